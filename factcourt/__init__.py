"""factcourt: check what an LLM wrote by making agents debate each claim over evidence.

The systems' API functions and contexts, imported from their own modules. The registry of
systems (``factcourt.systems``) is imported too, so every layer it hands its parts to has them
whichever module a program imports first.
"""

# the registry first: it hands the layers below the systems' parts, whichever module is imported
from factcourt import systems  # noqa: F401
from factcourt.api.audit import aaudit, audit
from factcourt.api.claims import acheck, averify, check, verify
from factcourt.api.hallucination import adetect, detect
from factcourt.api.pyramid import LeaderboardContext, abuild_pyramid, build_pyramid, load_pyramid
from factcourt.context.audit import AuditContext
from factcourt.context.claims import ClaimsContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.context.longqa import LongQAContext
from factcourt.context.pyramid import PyramidContext
from factcourt.report import report_html

__all__ = [
    "report_html",
    "ClaimsContext",
    "HallucinationContext",
    "PyramidContext",
    "LongQAContext",
    "AuditContext",
    "acheck",
    "averify",
    "check",
    "verify",
    "adetect",
    "detect",
    "LeaderboardContext",
    "abuild_pyramid",
    "build_pyramid",
    "load_pyramid",
    "aaudit",
    "audit",
]
