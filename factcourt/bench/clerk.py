"""``bench clerk``: how often the Clerk's claims are self-contained, and what it covers of real answers.

Each fixture row is a response with one ``sentence`` that needs its context to be understood
("It was completed in 1889."), and ``expect``: the name (alternatives split by ``|``) a
self-contained claim from it must carry. A claim from that sentence counts as self-contained
when it holds the name and no unresolved reference. Rows may share a response (a long text
with many dependent sentences): each response is decomposed once. Rates are given per language.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import in_part
from factcourt.errors import BackendError, InputError
from factcourt.inputs import detect_language, read_json, read_rows
from factcourt.metrics.coverage import text_coverage
from factcourt.nodes.agents.clerk import same_sentence, sentences_of
from factcourt.nodes.agents.references import unresolved
from factcourt.nodes.claims.decompose import decompose
from factcourt.state.claims import FactcheckState
from factcourt.state.records import Usage


def score_item(item: dict[str, Any], claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge the claims the Clerk drew from the fixture's sentence."""
    language = detect_language(item["sentence"])
    mine = [c["text"] for c in claims if same_sentence(c.get("sentence", ""), item["sentence"])]
    names = item["expect"].split("|")
    good = [c for c in mine if any(n in c for n in names) and not unresolved(c, language)]
    return {
        "sentence": item["sentence"],
        "language": language,
        "claims": mine,
        "self_contained": bool(mine) and len(good) == len(mine),
    }


FIXTURE_FIELDS = ("response", "sentence", "expect")


def read_fixture(path: Path) -> list[dict[str, Any]]:
    """The fixture's rows; one without its texts, or none at all, is bad input, never a 0% rate."""
    items = []
    for number, item in read_rows(path, "fixture"):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in FIXTURE_FIELDS):
            raise InputError(f"{path}:{number}: not an object with the texts {', '.join(FIXTURE_FIELDS)}")
        items.append(item)
    if not items:
        raise InputError(f"{path} holds no item")
    return items


def rates(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | int]]:
    """Self-contained rate and count per language of the fixture's sentences."""
    found: dict[str, dict[str, float | int]] = {}
    for language in sorted({r["language"] for r in rows}):
        mine = [r for r in rows if r["language"] == language]
        found[language] = {"items": len(mine), "rate": sum(r["self_contained"] for r in mine) / len(mine)}
    return found


async def run_clerk_bench(fixture: Path, ctx: BenchContext) -> dict[str, Any]:
    """Decompose every fixture response once and report the rate of self-contained claims."""
    items = read_fixture(fixture)
    claims_of: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows, usage = [], Usage()
    for item in items:
        key = (item["response"], item.get("question", ""))
        if key not in claims_of:
            state: FactcheckState = {"response": key[0], "question": key[1]}
            result = await decompose(state, Runtime(context=ctx))  # the Clerk alone: no debate
            usage += result["usage"]
            if failed := [d.error for d in result["dropped"] if d.reason == "clerk_failed"]:
                raise BackendError(f"the Clerk failed, so no rate is given: {failed[0]}")
            claims_of[key] = [c.model_dump() for c in result["claims"]]
        rows.append(score_item(item, claims_of[key]))
    rate = sum(r["self_contained"] for r in rows) / len(rows)
    return {
        "items": len(rows),
        "responses": len(claims_of),
        "self_contained_rate": rate,
        "by_language": rates(rows),
        "clerk_calls": usage.calls,
        # what the Clerk read and wrote: its output is most of a long text's checking time
        "prompt_tokens": usage.input_tokens,
        "cached_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
        "model_seconds": round(usage.ms / 1000, 1),
        "rows": rows,
    }


def run(fixture: Path, ctx: BenchContext) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_clerk_bench(fixture, ctx))


def read_answers(path: Path, part: str) -> list[dict[str, Any]]:
    """Whole answers of a shared-schema claims file, in order, with the annotators' claims of each.

    Rows sharing a ``source_response`` are one answer; its id is the rows' id less the last part
    ("factoolqa-03-01" -> "factoolqa-03"), and ``part`` splits answers by that id.
    """
    if path.suffix == ".json":
        chosen = [a for a in _halluqa_answers(path) if in_part(a["id"], part)]
        if not chosen:
            raise InputError(f"{path} holds no answer of two sentences or more in part {part!r}")
        return chosen
    answers: dict[str, dict[str, Any]] = {}
    for number, row in read_rows(path, "answers"):
        if not isinstance(row, dict) or not all(
            isinstance(row.get(k), str) for k in ("id", "claim", "source_response")
        ):
            raise InputError(f"{path}:{number}: not an object with the texts id, claim and source_response")
        if not row["source_response"].strip():
            continue
        found = answers.setdefault(
            row["source_response"],
            {
                "id": row["id"].rsplit("-", 1)[0],
                "question": row.get("source_question") or "",
                "response": row["source_response"],
                "gold": [],
            },
        )
        found["gold"].append(row["claim"])
    chosen = [a for a in answers.values() if in_part(a["id"], part)]
    if not chosen:
        raise InputError(f"{path} holds no answer in part {part!r}")
    return chosen


NOT_A_WORD = re.compile(r"\W+")


def _halluqa_answers(path: Path) -> list[dict[str, Any]]:
    """HalluQA's JSON list: every answer (right or wrong) of two sentences or more, no gold claims.

    An answer of one sentence has no reference to resolve, so it tells nothing of what is dropped.
    """
    items = read_json(path, "answers")
    if not isinstance(items, list) or not all(isinstance(i, dict) and i.get("Question") for i in items):
        raise InputError(f"{path}: not HalluQA's list of objects with a 'Question'")
    return [
        {
            "id": f"halluqa-{item.get('question_id', number)}-{NOT_A_WORD.sub('_', key).lower()}",
            "question": item["Question"],
            "response": answer,
            "gold": [],
        }
        for number, item in enumerate(items, start=1)
        for key, answer in item.items()
        if key.startswith(("Best Answer", "Wrong_Answer"))
        and isinstance(answer, str)
        and len(sentences_of(answer)) >= 2
    ]


def _totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The coverage of many texts summed: rates over all their sentences and gold claims."""
    total = {
        k: sum(r[k] for r in rows) for k in ("sentences", "sentences_with_claim", "claims", "unresolved")
    }
    dropped: dict[str, int] = {}
    for row in rows:
        for reason, count in row["dropped"].items():
            dropped[reason] = dropped.get(reason, 0) + count
    golds = [r for r in rows if "gold_claims" in r]
    gold = {
        k: sum(r[k] for r in golds)
        for k in ("gold_claims", "gold_matched", "checkable_sentences", "checkable_dropped")
    }
    return {
        "texts": len(rows),
        **total,
        "dropped": dropped,
        "sentences_with_claim_share": total["sentences_with_claim"] / total["sentences"]
        if total["sentences"]
        else None,
        "claims_per_sentence": total["claims"] / total["sentences"] if total["sentences"] else None,
        **gold,
        "gold_coverage": gold["gold_matched"] / gold["gold_claims"] if gold["gold_claims"] else None,
        "checkable_dropped_share": (
            gold["checkable_dropped"] / gold["checkable_sentences"] if gold["checkable_sentences"] else None
        ),
        "texts_without_claim": sum(1 for r in rows if r["sentences"] and not r["claims"]),
    }


async def run_coverage(
    paths: list[Path], ctx: BenchContext, *, limit: int | None, part: str
) -> dict[str, Any]:
    """Split each answer of each file with the Clerk alone and report what it kept and dropped."""
    by_file: dict[str, dict[str, Any]] = {}
    usage = Usage()
    for path in paths:
        rows: list[dict[str, Any]] = []
        for answer in read_answers(path, part)[:limit]:
            state: FactcheckState = {"response": answer["response"], "question": answer["question"]}
            result = await decompose(state, Runtime(context=ctx))
            usage += result["usage"]
            sentences = [(s.start, s.end, s.text) for s in sentences_of(answer["response"])]
            claims = [(c.span, c.text) for c in result["claims"]]
            row = text_coverage(sentences, claims, [d.reason for d in result["dropped"]], answer["gold"])
            rows.append(
                {
                    "id": answer["id"],
                    **row,
                    "unresolved": sum(1 for c in result["claims"] if c.unresolved),
                    "claim_texts": [c.text for c in result["claims"]],
                    "dropped_sentences": [d.model_dump() for d in result["dropped"]],
                }
            )
        by_file[str(path)] = {"summary": _totals(rows), "rows": rows}
    rows = [r for f in by_file.values() for r in f["rows"]]
    if failed := sum(r["dropped"].get("clerk_failed", 0) for r in rows):
        # a part the Clerk failed on would count as dropped text: no coverage is given on it
        raise BackendError(
            f"the Clerk failed on {failed} part(s) of the answers, so no coverage is given: run the "
            "same command again with --cache to ask only those again"
        )
    return {
        "part": part,
        "files": by_file,
        "all": _totals(rows),
        "clerk_calls": usage.calls,
        "prompt_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "model_seconds": round(usage.ms / 1000, 1),
    }


def coverage(paths: list[Path], ctx: BenchContext, *, limit: int | None, part: str) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_coverage(paths, ctx, limit=limit, part=part))
