"""factcourt: check what an LLM wrote by making agents debate each claim over evidence."""

from factcourt.api import acheck, adetect, averify, check, detect, verify
from factcourt.context import Context

__all__ = ["Context", "acheck", "adetect", "averify", "check", "detect", "verify"]
