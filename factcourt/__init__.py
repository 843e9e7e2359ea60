"""factcourt: check what an LLM wrote by making agents debate each claim over evidence."""

from factcourt.api import (
    abuild_pyramid,
    acheck,
    adetect,
    averify,
    build_pyramid,
    check,
    detect,
    load_pyramid,
    verify,
)
from factcourt.context import Context

__all__ = [
    "Context",
    "abuild_pyramid",
    "acheck",
    "adetect",
    "averify",
    "build_pyramid",
    "check",
    "detect",
    "load_pyramid",
    "verify",
]
