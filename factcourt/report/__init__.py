"""Reports for people: a result as one self-contained HTML page (``factcourt.report_html``)."""

from typing import Any

from factcourt.report.html import kind_of, kinds, render, write_html
from factcourt.state.records import Result

__all__ = ["kind_of", "kinds", "render", "report_html", "write_html"]


def report_html(result: Result | dict[str, Any], kind: str | None = None, folder=None) -> str:
    """The HTML page of a result of check, verify, detect, leaderboard, audit or bench run.

    ``result``: what the API returned, or its JSON (a saved ``--json`` or report.json). ``kind``
    is the result's own when not given (see :func:`kind_of`); ``folder`` is where a leaderboard,
    audit or bench run wrote its plots, to show them inline.

    Example:
        >>> Path("report.html").write_text(factcourt.report_html(factcourt.check(text)))
    """
    return render(result, kind, folder)
