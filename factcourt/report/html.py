"""One self-contained HTML page per result: the checked text with what is wrong in it marked.

The page works offline (styles and script inline, plots as ``data:`` URIs). Every text in it
(the user's, a model's, the evidence) goes through Jinja's autoescape or, for the marked text
the script draws page by page, through ``textContent`` from a JSON block whose ``<`` are
escaped: nothing in a result can open a tag.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, cast

from jinja2 import ChainableUndefined, Environment, PackageLoader
from markupsafe import Markup

from factcourt.errors import FactcourtError, InputError
from factcourt.handed import Handed
from factcourt.nodes.helpers import fence
from factcourt.state.records import Result

# the folder reports of the leaderboard and the benchmarks: no system's results
FOLDER_REPORTS = ("leaderboard", "bench")


@dataclass(frozen=True)
class HtmlView:
    """How the HTML report shows a system's result: a view of it and the template that draws the view."""

    view: Callable[[Any, Path | None], dict[str, Any]]
    """``(result, folder) -> dict``: the template's values."""
    template: str = "tables"
    """A template of ``factcourt/report/templates`` (``tables`` shows a view's ``body``)."""


# a system's result kind (its command), result model and view
Shown = tuple[str, type[Result], HtmlView]
# the systems' results and views, handed over by the registry: this module names no system
SHOWN: Handed[Sequence[Shown]] = Handed(())


def kinds() -> tuple[str, ...]:
    """What a page shows: the results of the systems that have a view, then the folder reports."""
    return (*(kind for kind, _, _ in SHOWN()), *FOLDER_REPORTS)


# Each mark: a colour, an icon and words, so the page reads without colour too. Ordered worst
# first: a sentence holding a refuted and a supported claim is marked refuted.
MARKS: dict[str, tuple[str, str]] = {
    "failed": ("⚠", "failed: not checked"),
    "refuted": ("✗", "refuted"),
    "conflicting_evidence": ("⇄", "conflicting evidence"),
    "not_enough_evidence": ("?", "not enough evidence"),
    "supported": ("✓", "supported"),
    "dropped": ("–", "dropped by the Clerk"),
    "hallucination": ("✗", "hallucination"),
}
VERDICT_MARKS = ("supported", "refuted", "not_enough_evidence", "conflicting_evidence", "dropped", "failed")
# Characters of text drawn at once: a 20 MB text stays one page of this in the document.
PAGE_CHARS = 20_000

_env = Environment(
    loader=PackageLoader("factcourt.report", "templates"),
    autoescape=True,
    undefined=ChainableUndefined,  # results of older runs lack some fields: shown empty
    trim_blocks=True,
    lstrip_blocks=True,
)


def kind_of(result: Result | dict[str, Any]) -> str:
    """Which command made ``result``: its ``kind``; InputError when it names none and no known shape fits.

    A result's JSON names its kind. A file written before results did (and the folder reports of
    the leaderboard and the benchmarks, which name none) is known here by its shape, and only here.
    """
    if isinstance(result, Result):
        return result.kind
    if isinstance(named := result.get("kind"), str):
        return named
    for kind, model, _ in SHOWN():  # each result model knows its own older JSON
        if model.has_shape(result):
            return kind
    report = result.get("report")
    if isinstance(report, dict) and "rows" in report and "score_names" in report:
        return "leaderboard"
    if isinstance(report, dict) and "methods" in result:
        return "bench"
    *most, last = kinds()
    raise InputError(f"no report of {', '.join(most)} or {last} run: say which with kind=")


def render(result: Result | dict[str, Any], kind: str | None = None, folder: Path | None = None) -> str:
    """The HTML page of one result: a system's result model, or JSON (a result's, or a folder report's).

    ``kind``: which command made it, when the JSON does not say (see :func:`kind_of`).
    ``folder``: where a leaderboard, audit or bench run wrote its plots, to inline them.
    """
    kind = kind or kind_of(result)
    if kind not in kinds():
        raise InputError(f"kind must be one of {', '.join(kinds())}, not {kind!r}")
    shown = next(((model, html) for named, model, html in SHOWN() if named == kind), None)
    if shown is not None:
        model, html = shown
        typed = result if isinstance(result, Result) else model.model_validate(result)
        page, template = html.view(typed, folder), html.template
    else:
        page, template = _folder_report(dict(result), kind, folder), "tables"
    return _env.get_template(f"{template}.html.j2").render(
        kind=kind,
        marks=MARKS,
        icons={mark: icon for mark, (icon, _) in MARKS.items()},
        verdict_marks=VERDICT_MARKS,
        style=Markup(_asset("report.css")),
        script=Markup(_asset("report.js")),
        **page,
    )


def write_html(
    path: str | Path, result: Result | dict[str, Any], kind: str | None = None, folder: Path | None = None
) -> None:
    """Write :func:`render`'s page to ``path``; a failed write is one clear sentence."""
    try:
        Path(path).write_text(render(result, kind, folder), encoding="utf-8")
    except OSError as exc:
        raise FactcourtError(f"could not write --html {path} ({exc.strerror})") from exc


def _asset(name: str) -> str:
    return resources.files("factcourt.report").joinpath("templates", name).read_text(encoding="utf-8")


def data_json(data: Any) -> Markup:
    """JSON for a ``<script type="application/json">`` block: no ``<`` closes it, none opens a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def safe_url(url: str) -> str | None:
    """A URL a link may point at: web addresses only (a ``javascript:`` one would run on a click)."""
    return url if re.match(r"https?://", url or "", re.I) else None


# ------------------------------------------------------------------ marked text


def marked_pages(text: str, marks: Iterable[tuple[int, int, str, int, str]]) -> list[list[Any]]:
    """The text cut into pages of segments: plain strings, or ``[text, mark, [detail ids], label]``.

    ``marks``: (start, end, mark, detail id, label). Where marks overlap, the segment lists
    every detail and shows the worst mark. The script draws one page at a time from this; the
    text is sent cut, not with offsets, since JavaScript counts UTF-16 units and Python code points.
    """
    spans = [(s, e, m, d, lab) for s, e, m, d, lab in marks if 0 <= s < e <= len(text)]
    breaks = set(_page_cuts(text))
    cuts = sorted({0, len(text), *(p for s, e, *_ in spans for p in (s, e)), *breaks})
    starts = sorted(spans)
    order = {m: k for k, m in enumerate(MARKS)}
    pages: list[list[Any]] = [[]]
    active: list[tuple[int, int, str, int, str]] = []
    next_span = 0
    for a, b in zip(cuts, cuts[1:], strict=False):
        if a in breaks and pages[-1]:
            pages.append([])
        while next_span < len(starts) and starts[next_span][0] <= a:
            active.append(starts[next_span])
            next_span += 1
        active = [s for s in active if s[1] > a]
        piece = text[a:b]
        if not active:
            pages[-1].append(piece)
            continue
        worst = min(active, key=lambda s: order[s[2]])[2]
        ids = sorted({s[3] for s in active})
        label = "; ".join(dict.fromkeys(s[4] for s in sorted(active, key=lambda s: s[3])))
        pages[-1].append([piece, worst, ids, label])
    return pages


def _page_cuts(text: str) -> list[int]:
    """Where pages begin: about every PAGE_CHARS, at a line break or space when one is near."""
    cuts, start = [], 0
    while len(text) - start > PAGE_CHARS:
        end = start + PAGE_CHARS
        at = max(text.rfind("\n", start + PAGE_CHARS // 2, end), text.rfind(" ", end - 200, end))
        start = at + 1 if at > start else end
        cuts.append(start)
    return cuts


def locate(text: str, part: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first place of ``part`` in ``text`` that no other located part holds.

    The agents read untrusted text fenced ('<' as '‹', one character for one) and quote it so: it
    is looked for fenced, at the same offsets.
    """
    text, part = fence(text), fence(part)
    at = text.find(part) if part else -1
    while at >= 0:
        end = at + len(part)
        k = bisect.bisect_left(taken, (end, end))
        if not any(s < end and at < e for s, e in taken[max(0, k - 1) : k + 1]):
            bisect.insort(taken, (at, end))
            return at, end
        at = text.find(part, at + 1)
    return None


# ------------------------------------------------------------------ pages of tables


def tables_page(
    text: str,
    folder: Path | None,
    plots: tuple[str, ...] = (),
    reliability: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A page of tables (the ``tables`` template): Markdown as HTML, the ``plots`` ``folder`` holds inline."""
    return {
        "body": Markup(_markdown_html(text, folder)),
        "plots": [
            {"name": name, "uri": uri} for name in plots if folder and (uri := _png_uri(folder / name))
        ],
        "reliability": reliability or [],
        "data": None,
    }


def _folder_report(result: dict[str, Any], kind: str, folder: Path | None) -> dict[str, Any]:
    """A leaderboard's or a bench run's folder report: its own Markdown and its plots."""
    folder = Path(folder) if folder else None
    if kind == "leaderboard":
        from factcourt.api.pyramid.leaderboard import markdown as leaderboard_md

        text = leaderboard_md(result["report"], result["settings"])
        return tables_page(text, folder, ("leaderboard.png",))
    from factcourt.bench.report import markdown as bench_md

    text = f"# Benchmark: {result.get('dataset', '')}\n\n{bench_md(result['report'])}"
    return tables_page(text, folder, ("f1_false_vs_cost.png",), _reliability(result["report"]))


def _png_uri(path: Path) -> str | None:
    if path.suffix.lower() != ".png" or not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _markdown_html(text: str, folder: Path | None) -> str:
    """Markdown as HTML with raw HTML escaped, tables sortable and scrollable, images inline or named."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def image(renderer, tokens, idx, options, env):  # noqa: ANN001, ANN202
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        uri = _png_uri(folder / Path(src).name) if folder and src else None
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        if uri is None:
            return str(Markup("<em>(plot {} not found)</em>").format(src))
        return str(Markup('<img src="{}" alt="{}" class="plot">').format(uri, alt))

    md.add_render_rule("image", image)
    md.add_render_rule("table_open", lambda *a: '<div class="table-wrap"><table class="sortable">\n')
    md.add_render_rule("table_close", lambda *a: "</table></div>\n")
    return cast(str, md.render(text))


def _reliability(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each method's reliability bins, with the points of its diagram (100 x 100, y up)."""
    methods = []
    for method, r in report.items():
        rows = (r.get("calibration") or {}).get("rows") or []
        biggest = max((b["n"] for b in rows), default=1)
        points = [
            {
                **b,
                "x": 100 * b["mean_p"],
                "y": 100 - 100 * b["frac_true"],
                "r": 2 + 4 * (b["n"] / biggest) ** 0.5,
            }
            for b in rows
        ]
        methods.append({"method": method, "rows": points, "ece": r["calibration"].get("ece")})
    return methods
