"""factcourt: check what an LLM wrote by making agents debate each claim over evidence.

``factcourt.check``, ``verify``, ``detect``, ``audit``, ``build_pyramid`` and each system's
context are found through the registry of systems (``factcourt.systems``), on first use.
"""

from typing import Any

from factcourt.report import report_html as report_html


def __getattr__(name: str) -> Any:
    from factcourt.systems import exported, public

    if name == "__all__":  # `from factcourt import *`
        return ["report_html", *exported()]
    return public(name, __name__)


def __dir__() -> list[str]:
    from factcourt.systems import exported

    return sorted({*globals(), *exported()})
