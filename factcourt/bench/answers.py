"""``bench answers``: what a user gets: ``check`` on whole answers, scored against segment labels.

Each answer of a response-level file in the shared schema (FELM-WK's: ``meta.segments`` and
``meta.segment_labels``, True for a correct segment) is checked whole, as ``factcourt check``
checks it. A segment is flagged only when a claim taken from a sentence overlapping it was
refuted (not enough evidence flags nothing), and decided when such a claim got a verdict either
way: each reading's coverage is the share of segments decided. Scored beside two floors: every
segment flagged, and the same claims and evidence read by ``plain`` (the uncalibrated label
reading: raw P(true) at least 0.5). ``meta`` serves the scoring only: the checker never sees it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from factcourt.api.claims import acheck
from factcourt.bench.context import BenchContext
from factcourt.bench.runner import in_part, run_settings
from factcourt.errors import InputError
from factcourt.inputs import read_rows
from factcourt.metrics.coverage import false_segment_scores, flagged_segments, segment_spans
from factcourt.progress import Progress
from factcourt.state.claims import ClaimReport
from factcourt.store import PredictionStore, keep_settings


def read_answers(path: Path, part: str) -> list[dict[str, Any]]:
    """The answers of ``part`` with their segments and segment labels; bad rows are bad input."""
    answers = []
    for number, row in read_rows(path, "answers"):
        meta = row.get("meta") if isinstance(row, dict) else None
        segments = (meta or {}).get("segments")
        labels = (meta or {}).get("segment_labels")
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("id"), str)
            or not isinstance(row.get("source_response"), str)
            or not isinstance(segments, list)
            or not isinstance(labels, list)
            or len(segments) != len(labels)
        ):
            raise InputError(
                f"{path}:{number}: not an answer with id, source_response and meta.segments beside "
                "meta.segment_labels of the same length"
            )
        if row["source_response"].strip() and in_part(row["id"], part):
            answers.append(
                {
                    "id": row["id"],
                    "question": row.get("source_question") or "",
                    "response": row["source_response"],
                    "segments": [str(s) for s in segments],
                    "false": [label is False for label in labels],
                }
            )
    if not answers:
        raise InputError(f"{path} holds no answer in part {part!r}")
    return answers


def _supported(claim: ClaimReport, reading: str) -> bool | None:
    """Whether ``reading`` ('default' or 'plain') found the claim supported; None when neither.

    The default decides only by its verdict, supported or refuted; plain reads every raw P(true).
    """
    if reading == "plain" and claim.p_true_raw is not None:
        return claim.p_true_raw >= 0.5
    return {"supported": True, "refuted": False}.get(claim.verdict or "")


async def _one(answer: dict[str, Any], ctx: BenchContext) -> dict[str, Any]:
    """Check one answer whole and flag its segments by each reading."""
    start = time.perf_counter()
    try:
        result = await acheck(answer["response"], answer["question"], ctx)
    except Exception as exc:  # noqa: BLE001  one broken answer must not stop the benchmark
        return {"id": answer["id"], "error": f"{type(exc).__name__}: {exc}"}
    spans = segment_spans(answer["response"], answer["segments"])
    record: dict[str, Any] = {
        "id": answer["id"],
        "error": None,
        "false": answer["false"],
        "claims": len(result.claims),
        "failed_claims": sum(1 for c in result.claims if c.verdict is None),
        "unresolved": sum(1 for c in result.claims if c.unresolved),
        "dropped": [d.reason for d in result.dropped],
        "calls": result.usage.calls,
        "seconds": round(time.perf_counter() - start, 1),
        "verdicts": [
            [c.text, c.verdict, c.p_true_raw, list(c.span) if c.span else None] for c in result.claims
        ],
    }
    for reading in ("default", "plain"):
        # a failed claim covers nothing; one not checked covers its segment, undecided
        marks = [(c.span, _supported(c, reading)) for c in result.claims if c.verdict is not None]
        flagged, covered, decided = flagged_segments(spans, marks)
        record[f"flagged_{reading}"] = flagged
        record[f"decided_{reading}"] = decided
        record["covered"] = covered
    return record


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Segment scores of the default, plain and flag-everything readings, and what a response cost."""
    done = [r for r in records if not r.get("error")]
    gold = [f for r in done for f in r["false"]]
    found: dict[str, Any] = {
        "answers": len(done),
        "failed_answers": len(records) - len(done),
        "segments": len(gold),
        "false_segments": sum(gold),
    }
    if not done:
        return found
    for reading in ("default", "plain"):
        flags = [f for r in done for f in r[f"flagged_{reading}"]]
        scores = false_segment_scores(flags, gold)
        # a response is judged false when any of its segments is flagged (FELM's response label)
        right = sum(any(r[f"flagged_{reading}"]) == any(r["false"]) for r in done)
        decided = sum(d for r in done for d in r[f"decided_{reading}"])
        found[reading] = {
            **scores,
            "response_accuracy": right / len(done),
            "coverage": decided / len(gold) if gold else None,
        }
    everything = false_segment_scores([True] * len(gold), gold)
    found["all_flagged"] = {
        **everything,
        "response_accuracy": sum(any(r["false"]) for r in done) / len(done),
        "coverage": 1.0 if gold else None,
    }
    found["coverage"] = sum(c for r in done for c in r["covered"]) / len(gold) if gold else None
    found["claims_per_answer"] = sum(r["claims"] for r in done) / len(done)
    found["unresolved_per_answer"] = sum(r["unresolved"] for r in done) / len(done)
    found["calls_per_answer"] = sum(r["calls"] for r in done) / len(done)
    found["seconds_per_answer"] = sum(r["seconds"] for r in done) / len(done)
    found["failed_claims"] = sum(r["failed_claims"] for r in done)
    dropped: dict[str, int] = {}
    for reason in (d for r in done for d in r["dropped"]):
        dropped[reason] = dropped.get(reason, 0) + 1
    found["dropped"] = dropped
    return found


async def run_answers(
    path: Path, ctx: BenchContext, *, out: Path, limit: int | None, part: str, quiet: bool = False
) -> dict[str, Any]:
    """Check each answer not yet in ``out``/answers.jsonl, one at a time, and summarise them all."""
    answers = read_answers(path, part)[:limit]
    keep_settings(out, {**run_settings(path, ctx), "part": part}, "bench answers")
    store = PredictionStore(out / "answers.jsonl", key=("id",))
    # a record from before not_enough_evidence stopped flagging holds no decided segments: redone
    todo = [
        a
        for a in answers
        if not store.succeeded(a["id"]) or "decided_default" not in store.records[(a["id"],)]
    ]
    columns = (TextColumn("answers"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=quiet) as progress:
        task = progress.add_task("answers", total=len(answers), completed=len(answers) - len(todo))
        for answer in todo:
            store.append(await _one(answer, ctx))
            progress.advance(task)
    records = [store.records[(a["id"],)] for a in answers]
    return {"dataset": str(path), "part": part, "out": str(out), **summary(records)}


def run(
    path: Path, ctx: BenchContext, *, out: Path, limit: int | None, part: str, quiet: bool
) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_answers(path, ctx, out=out, limit=limit, part=part, quiet=quiet))
