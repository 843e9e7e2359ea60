"""Reports for people: a result as one self-contained HTML page (``factcourt.report_html``)."""

from factcourt.report.html import KINDS, detect_kind, render, write_html

__all__ = ["KINDS", "detect_kind", "render", "report_html", "write_html"]


def report_html(result: dict, kind: str | None = None, folder=None) -> str:
    """The HTML page of a result of check, verify, detect, leaderboard, audit or bench run.

    ``kind`` is found from the result's shape when not given; ``folder`` is where a leaderboard,
    audit or bench run wrote its plots, to show them inline.

    Example:
        >>> Path("report.html").write_text(factcourt.report_html(factcourt.check(text)))
    """
    return render(result, kind, folder)
