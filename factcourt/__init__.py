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
from factcourt.context.audit import AuditContext
from factcourt.context.claims import ClaimsContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.context.longqa import LongQAContext
from factcourt.context.pyramid import LeaderboardContext, PyramidContext
from factcourt.report import report_html

__all__ = [
    "AuditContext",
    "ClaimsContext",
    "HallucinationContext",
    "LeaderboardContext",
    "LongQAContext",
    "PyramidContext",
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
