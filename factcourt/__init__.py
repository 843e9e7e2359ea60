"""factcourt: check what an LLM wrote by making agents debate each claim over evidence."""

from factcourt.api import (
    aaudit,
    abuild_pyramid,
    acheck,
    adetect,
    audit,
    averify,
    build_pyramid,
    check,
    detect,
    load_pyramid,
    verify,
)
from factcourt.context import Context
from factcourt.report import report_html

__all__ = [
    "Context",
    "aaudit",
    "abuild_pyramid",
    "acheck",
    "adetect",
    "audit",
    "averify",
    "build_pyramid",
    "check",
    "detect",
    "load_pyramid",
    "report_html",
    "verify",
]
