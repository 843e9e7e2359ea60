"""``bench retrieval``: whether the offline search finds the page a claim's annotators cited.

FELM-WK's segments carry reference URLs, many of them Wikipedia pages. Where such a page is in
the local corpus, recall@k is the share of those segments whose page is among the k passages a
query finds. Queries: the claim alone (what ``check`` searches), and the claim after its
question. Rankings: BM25 as the local backend ranks, and BM25's top candidates re-ranked by the
e5 embeddings the project ships (dense), or by both ranks fused (hybrid, reciprocal rank).
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import in_part
from factcourt.errors import InputError
from factcourt.inputs import read_rows
from factcourt.providers.embeddings import LocalE5
from factcourt.providers.search import LocalBM25, backend

CANDIDATES = 50  # BM25's top passages that the dense ranking re-orders
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al.)


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


async def run_retrieval(path: Path, ctx: BenchContext, *, k: int, part: str, dense: bool) -> dict[str, Any]:
    """Recall@k of the cited page per query and ranking."""
    index = backend(BenchContext.make(ctx, search="local"))
    if not isinstance(index, LocalBM25):
        raise InputError("bench retrieval measures the local corpus: use --search local")
    todo = cases(path, {t for d in index.documents if (t := page_key(d.url))}, part)
    if not todo:
        raise InputError(f"no segment of {path} (part {part!r}) cites a page the corpus holds")
    embedder = LocalE5()
    hits: dict[tuple[str, str], int] = {}
    seconds: dict[tuple[str, str], float] = {}
    for query_kind in ("claim", "question+claim"):
        for case in todo:
            query = case["claim"] if query_kind == "claim" else f"{case['question']} {case['claim']}"
            start = time.perf_counter()
            passages = index.search(query, CANDIDATES)
            bm25 = [page_key(e.url) for e in passages]
            texts = {page_key(e.url): e.text for e in passages}
            rankings = {"bm25": bm25}
            seconds[(query_kind, "bm25")] = (
                seconds.get((query_kind, "bm25"), 0.0) + time.perf_counter() - start
            )
            if dense and bm25:
                start = time.perf_counter()
                rows = await embedder.embed([query] + [texts[page][:1000] for page in bm25])
                order = np.argsort(-(rows[1:] @ rows[0]))
                rankings["dense"] = [bm25[i] for i in order]
                place = {doc: r for r, doc in enumerate(rankings["dense"])}
                rankings["hybrid"] = sorted(
                    bm25, key=lambda d: -(1 / (RRF_K + bm25.index(d)) + 1 / (RRF_K + place[d]))
                )
                spent = time.perf_counter() - start
                for name in ("dense", "hybrid"):
                    seconds[(query_kind, name)] = seconds.get((query_kind, name), 0.0) + spent
            for name, ranking in rankings.items():
                found = any(page in case["pages"] for page in ranking[:k])
                hits[(query_kind, name)] = hits.get((query_kind, name), 0) + found
    return {
        "dataset": str(path),
        "part": part,
        "k": k,
        "segments": len(todo),
        "recall": {f"{q} / {r}": n / len(todo) for (q, r), n in hits.items()},
        "ms_per_query": {f"{q} / {r}": round(1000 * s / len(todo), 1) for (q, r), s in seconds.items()},
    }


def run(path: Path, ctx: BenchContext, *, k: int, part: str, dense: bool) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_retrieval(path, ctx, k=k, part=part, dense=dense))
