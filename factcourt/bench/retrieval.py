"""``bench retrieval``: whether the offline search finds the page a claim's annotators cited.

FELM-WK's segments carry reference URLs, many of them Wikipedia pages. Where such a page is in
the local corpus, recall@k is the share of those segments whose page is among the k passages a
query finds. Queries: the claim alone (what ``check`` searches), and the claim after its
question. Rankings: BM25 as the local backend ranks, the e5 embeddings of the whole corpus
(dense), and both fused as ``retrieval='hybrid'`` searches (reciprocal rank).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import in_part
from factcourt.errors import InputError
from factcourt.inputs import read_rows
from factcourt.providers.dense import Progress
from factcourt.providers.search import LocalBM25, LocalHybrid, backend


def page_key(url: str) -> str | None:
    """An English Wikipedia page's title, normalised ("Eiffel_Tower"), or None for other URLs."""
    parsed = urlparse(url.strip())
    if not re.fullmatch(r"en\.(m\.)?wikipedia\.org", parsed.netloc.lower()):
        return None
    if not parsed.path.startswith("/wiki/"):
        return None
    title = unquote(parsed.path[len("/wiki/") :]).replace(" ", "_")
    return title[:1].upper() + title[1:] if title else None


def cases(path: Path, pages: set[str], part: str) -> list[dict[str, Any]]:
    """Segments of ``part`` that cite a Wikipedia page the corpus holds, with that page."""
    found = []
    for number, row in read_rows(path, "dataset"):
        if not isinstance(row, dict) or not isinstance(row.get("claim"), str):
            raise InputError(f"{path}:{number}: not an object with a claim")
        cited = {k for u in row.get("evidence") or [] if isinstance(u, str) and (k := page_key(u))}
        held = cited & pages
        answer = str(row.get("id", number)).rsplit("-", 1)[0]  # the split of bench answers: by answer
        if held and in_part(answer, part):
            found.append({"claim": row["claim"], "question": row.get("source_question") or "", "pages": held})
    return found


def run(
    path: Path, ctx: BenchContext, *, k: int, part: str, dense: bool, progress: Progress | None = None
) -> dict[str, Any]:
    """Recall@k of the cited page, and seconds a query, per query and ranking.

    ``dense`` adds the rankings of ``retrieval='hybrid'``: the embeddings alone, and fused with
    BM25 as that setting searches; ``progress`` hears the corpus's embedding where it is built.
    """
    local = BenchContext.make(ctx, search="local", retrieval="bm25")
    bm25 = backend(local)
    if not isinstance(bm25, LocalBM25):
        raise InputError("bench retrieval measures the local corpus: use --search local")
    pages = [page_key(d.url) for d in bm25.documents]
    todo = cases(path, {p for p in pages if p}, part)
    if not todo:
        raise InputError(f"no segment of {path} (part {part!r}) cites a page the corpus holds")
    rankings: dict[str, Callable[[str, int], list[int]]] = {"bm25": bm25.ranked}
    if dense:
        hybrid = backend(BenchContext.make(local, retrieval="hybrid"), progress)
        assert isinstance(hybrid, LocalHybrid)  # what retrieval='hybrid' builds on a local corpus
        rankings |= {"dense": hybrid.nearest, "hybrid": hybrid.ranked}
    hits: dict[str, int] = {}
    seconds: dict[str, float] = {}
    for query_kind in ("claim", "question+claim"):
        for case in todo:
            query = case["claim"] if query_kind == "claim" else f"{case['question']} {case['claim']}"
            for name, rank in rankings.items():
                start = time.perf_counter()
                found = rank(query, k)
                label = f"{query_kind} / {name}"
                seconds[label] = seconds.get(label, 0.0) + time.perf_counter() - start
                hits[label] = hits.get(label, 0) + any(pages[i] in case["pages"] for i in found)
    return {
        "dataset": str(path),
        "part": part,
        "k": k,
        "segments": len(todo),
        "recall": {label: n / len(todo) for label, n in hits.items()},
        "ms_per_query": {label: round(1000 * s / len(todo), 1) for label, s in seconds.items()},
    }
