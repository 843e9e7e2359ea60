"""``bench sweep``: candidate default settings scored against right answers, with their cost.

One run of ``default-record`` per dataset (the first pass is kept and every claim is still
debated, three jurors for two rounds) holds what each candidate would have said: the first
pass alone, the jury after one or two rounds, with two or three jurors, with or without the
first pass's vote, and routing at each threshold (the first pass decides when its confidence
reaches theta, else the candidate's jury). Replaying the records scores every candidate on the
same claims at the cost of one run. Two-juror candidates are exact for round 1 only, so none
is replayed for round 2. A candidate's calls are those the graph would make: in the last round
the jurors who could no longer change the majority are not counted (``settled_stop``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import run_bench, select
from factcourt.metrics.classification import binary_report, to_binary
from factcourt.nodes.claims.judge_vote import majority
from factcourt.nodes.claims.rules import final_turns, first_pass_decides, majority_decided
from factcourt.state.records import Turn
from factcourt.store import PredictionStore

RECORD_METHOD = "default-record"
THETAS = (0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
CALL_BUDGET = 2.5  # model calls per claim the default may spend


@dataclass(frozen=True)
class Outcome:
    """What a candidate says on one claim and the calls it spends."""

    verdict: str | None
    calls: int
    debated: bool


def _turns(record: dict[str, Any]) -> tuple[Turn | None, list[Turn]]:
    detail = record.get("detail", {})
    first = Turn.model_validate(detail["first_pass"]) if detail.get("first_pass") else None
    return first, [Turn.model_validate(t) for t in detail.get("transcript", [])]


def _heard(turns: list[Turn], speakers: list[str], rounds: int, with_first: Turn | None) -> list[Turn]:
    """The turns up to the last round's settled majority: the jurors after it are not asked."""
    earlier = [t for t in turns if t.speaker in speakers and t.round < rounds]
    last = [t for t in turns if t.speaker in speakers and t.round == rounds]
    for spoken in range(1, len(speakers)):
        heard = [t for t in last if t.speaker in speakers[:spoken]]
        if majority_decided(earlier + heard, speakers, spoken, with_first):
            return earlier + heard
    return earlier + last


def _jury(turns: list[Turn], jurors: int, rounds: int, with_first: Turn | None) -> Outcome:
    speakers = list(dict.fromkeys(t.speaker for t in turns))[:jurors]
    used = _heard(turns, speakers, rounds, with_first)
    final = {with_first.speaker: with_first} if with_first is not None and with_first.verdict else {}
    final.update(final_turns(used))  # jurors after the first pass, as the judge orders them
    return Outcome(majority(final), sum(t.calls for t in used), True)


def candidates() -> dict[str, Callable[[Turn | None, list[Turn]], Outcome]]:
    """Every candidate setting, named as the context would set it."""
    juries: dict[str, Callable[[Turn | None, list[Turn]], Outcome]] = {}

    def jury_of(j: int, r: int, first_votes: bool) -> Callable[[Turn | None, list[Turn]], Outcome]:
        return lambda first, turns: _jury(turns, j, r, first if first_votes else None)

    for jurors, rounds in ((3, 2), (3, 1), (2, 1)):
        name = f"jurors={jurors} rounds={rounds}"
        juries[name] = jury_of(jurors, rounds, False)
        juries[f"{name} +first-pass vote"] = jury_of(jurors, rounds, True)
    out: dict[str, Callable[[Turn | None, list[Turn]], Outcome]] = {
        "first pass only (= single)": lambda first, turns: Outcome(first.verdict if first else None, 1, False)
    }
    for name, jury in juries.items():
        out[f"first_pass=off {name}"] = jury
        for theta in THETAS:
            out[f"first_pass=route theta={theta} {name}"] = _routed(theta, jury)
    return out


def _routed(
    theta: float, jury: Callable[[Turn | None, list[Turn]], Outcome]
) -> Callable[[Turn | None, list[Turn]], Outcome]:
    routing = BenchContext(first_pass_theta=theta)  # the graph's own rule decides the replay

    def decide(first: Turn | None, turns: list[Turn]) -> Outcome:
        if first is not None and first_pass_decides(routing, first):
            return Outcome(first.verdict, 1, False)
        outcome = jury(first, turns)
        return Outcome(outcome.verdict, 1 + outcome.calls, True)

    return decide


def replay(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Score every candidate on the recorded claims."""
    gold = [r["gold"] for r in records]
    parsed = [_turns(r) for r in records]
    scores = {}
    for name, decide in candidates().items():
        outcomes = [decide(first, turns) for first, turns in parsed]
        report = binary_report(gold, [to_binary(o.verdict) for o in outcomes])
        n = len(outcomes) or 1
        scores[name] = {
            "claims": len(outcomes),
            "macro_f1": report["macro_f1"],
            "accuracy": report["accuracy"],
            "calls_per_claim": sum(o.calls for o in outcomes) / n,
            "debated_share": sum(o.debated for o in outcomes) / n,
        }
    return scores


def best(table: dict[str, dict[str, dict[str, float]]], budget: float = CALL_BUDGET) -> str | None:
    """The best mean macro-F1 within the call budget on every dataset, if it earns its cost.

    A candidate dearer than the cheapest within budget is picked only where it gets at least one
    claim more right per dataset on the mean; below that the difference is a claim or two of
    noise, and the cheaper candidate stands.
    """
    names = next(iter(table.values()), {}).keys()
    within = [n for n in names if all(t[n]["calls_per_claim"] <= budget for t in table.values())]
    if not within:
        return None
    top = max(within, key=lambda n: sum(t[n]["macro_f1"] for t in table.values()))
    cheapest = min(within, key=lambda n: sum(t[n]["calls_per_claim"] for t in table.values()))
    gained = sum((t[top]["accuracy"] - t[cheapest]["accuracy"]) * t[top]["claims"] for t in table.values())
    return top if gained / len(table) >= 1 else cheapest


def markdown(table: dict[str, dict[str, dict[str, float]]], chosen: str | None) -> str:
    """One row per candidate: macro-F1, accuracy and calls per claim on each dataset."""
    names = list(next(iter(table.values()), {}))
    head = ["candidate", *(f"{d} macro-F1 / acc / calls" for d in table), "mean macro-F1"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    mean = {n: sum(t[n]["macro_f1"] for t in table.values()) / len(table) for n in names}
    for name in sorted(names, key=lambda n: -mean[n]):
        cells = [
            f"{t[name]['macro_f1']:.3f} / {t[name]['accuracy']:.3f} / {t[name]['calls_per_claim']:.2f}"
            for t in table.values()
        ]
        mark = " **(chosen)**" if name == chosen else ""
        lines.append(f"| {name}{mark} | " + " | ".join(cells) + f" | {mean[name]:.3f} |")
    return "\n".join(lines) + "\n"


def failures(records_of: dict[str, list[dict[str, Any]]]) -> tuple[dict[str, int], str | None]:
    """Failed recordings per dataset, and the first one's reason.

    A failed recording has no verdict, so every candidate counts it wrong: a sweep over an
    endpoint that failed every call scored 0.000 everywhere and still chose a setting.
    """
    failed = {name: sum(1 for r in records if r.get("error")) for name, records in records_of.items()}
    first = next((r["error"] for records in records_of.values() for r in records if r.get("error")), None)
    return {name: n for name, n in failed.items() if n}, first


def run_sweep(
    datasets: list[tuple[Path, str]],
    ctx_for: Callable[[str], BenchContext],
    out: Path,
    *,
    limit: int,
    part: str,
) -> dict[str, Any]:
    """Record each dataset (resumable), replay every candidate, write sweep.md and sweep.json."""
    table, records_of = {}, {}
    for path, evidence in datasets:
        # the path's digest keeps apart two datasets whose files or folders have the same name
        digest = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:8]
        name = f"{path.stem}-{digest}-{evidence}"
        asyncio.run(
            run_bench(
                path,
                [RECORD_METHOD],
                ctx_for(evidence),
                out / name,
                limit=limit,
                balanced=True,
                part=part,
            )
        )
        # the store's view: a killed run's half line skipped, a retried case once, earlier
        # --limit or --part choices left out
        ids = {case.id for case, _ in select(path, limit, None, balanced=True, part=part)}
        records = PredictionStore(out / name / "predictions.jsonl").records
        records_of[name] = [
            r for (method, case_id), r in records.items() if method == RECORD_METHOD and case_id in ids
        ]
        table[name] = replay(records_of[name])
    failed, first_error = failures(records_of)
    problem = (
        f"failed recordings ({', '.join(f'{name} {n}' for name, n in failed.items())}) count as wrong "
        "in every candidate, so none is chosen: run the same command again to retry them; first "
        f"reason: {first_error}"
        if failed
        else None
    )
    chosen = None if problem else best(table)
    (out / "sweep.md").write_text(
        (f"**{problem}**\n\n" if problem else "") + markdown(table, chosen), encoding="utf-8"
    )
    summary = {
        "datasets": list(table),
        "part": part,
        "limit": limit,
        "chosen": chosen,
        "failed": failed,
        "problem": problem,
        "table": table,
    }
    (out / "sweep.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary
