"""Build a LongHalluQA-style set from seed questions: resumable, with a review round trip.

Every seed runs the ``longqa`` graph once; its outcome is one line of ``built.jsonl`` (a killed
run resumes after the last finished seed, and seeds that failed are tried again). From those
lines the outputs are rewritten after every build or review import:

- ``triples.jsonl``: every (question, knowledge, category) triple with the verifier's outcome;
- ``review.csv``: one row per built question and review stage (factual consistency, then
  answerability) with ``decision`` (keep / drop) and ``reason`` columns;
- ``reviews.json``: the imported decisions per question and stage, which later builds keep;
- ``longhalluqa.jsonl``: the questions kept at both review stages (``id``, ``topic``, ``prompt``
  as in the LongFact prompts, plus the seed), as the paper keeps only those;
- ``report.json`` and ``report.md``: retention, questions awaiting review, topic counts, question
  length ratio, notes, examples.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from factcourt.context.longqa import LongQAContext
from factcourt.errors import InputError
from factcourt.inputs import read_text_file
from factcourt.metrics.longqa import REVIEW_STAGES, build_stats, review_outcome
from factcourt.nodes.helpers import bounded, concurrency
from factcourt.nodes.longqa.fuse import NO_SELECTION
from factcourt.nodes.longqa.gather import seed_problem
from factcourt.nodes.longqa.sub_questions import in_gathered_order
from factcourt.progress import Progress
from factcourt.runs import run_config
from factcourt.state.longqa import KnowledgeTriple, Seed
from factcourt.state.records import Usage
from factcourt.store import PredictionStore, sheet_rows, sheet_text, write_jsonl, write_whole
from factcourt.terminal import Console

STAGE = "longqa"  # the method name of the store's records
REVIEW_COLUMNS = [
    "id",
    "topic",
    "seed_question",
    "question",
    "sub_questions",
    "knowledge",
    "decision",
    "stage",
    "reason",
]
EXAMPLES = 3
ANSWER_RATIO = "not measured: the builder writes questions only, no answers to compare"
REPORTED_SETTINGS = (
    "model",
    "search",
    "corpus",
    "longqa_theta",
    "longqa_max_facts",
    "longqa_cluster_distance",
)
# what a seed's stored outcome depends on besides the seed (a resume under others is refused)
STORED_SETTINGS = (
    *REPORTED_SETTINGS,
    "base_url",
    "role_models",
    "local_weights",
    "temperature",
    "max_tokens",
    "top_k",
    "longqa_topics",
    "language",
)


def seed_record(seed: Seed, state: dict[str, Any]) -> dict[str, Any]:
    """One seed's outcome as stored: the question built, or why none was."""
    built = state.get("built")
    triples: list[KnowledgeTriple] = state.get("triples") or state.get("gathered") or []
    topic = state.get("topic") or ""
    status = (
        "built"
        if built
        else "failed"
        if state.get("error")
        else "not_built"
        if state.get("not_built")
        else "no_verified_knowledge"
    )
    return {
        "method": STAGE,
        "id": seed.id,
        "seed": seed.model_dump(mode="json"),
        "status": status,
        "language": state.get("language"),
        "question": built.question if built else "",
        "topic": topic,
        "candidates": built.candidates if built else [],
        "selected": built.selected if built else [],
        "reason": built.reason if built else "",
        "sub_questions": state.get("sub_questions", {}),
        "triples": [
            t.model_copy(update={"category": topic or t.category}).model_dump(mode="json")
            for t in in_gathered_order(triples)
        ],
        "queries": state.get("queries", []),
        "notes": state.get("notes", []),
        "error": state.get("error") or state.get("not_built"),
        "usage": (state.get("usage") or Usage()).model_dump(mode="json"),
    }


def seeds_problem(seeds: list[Seed]) -> tuple[Seed, str] | None:
    """The first seed that cannot be built on, with why.

    Bad input, not a failure that every rerun would "retry" the same way.
    """
    return next(((s, p) for s in seeds if (p := seed_problem(s))), None)


async def build_seeds(
    seeds: list[Seed], ctx: LongQAContext, out: Path, *, console: Console | None = None, quiet: bool = False
) -> list[dict[str, Any]]:
    """Run the builder on every seed not yet stored (or stored as failed); return their records."""
    from factcourt.graphs.longqa import graph

    store = PredictionStore(out / "built.jsonl")

    def done(seed: Seed) -> bool:
        return store.done(STAGE, seed.id) and store.records[(STAGE, seed.id)]["status"] != "failed"

    todo = [(k, s) for k, s in enumerate(seeds) if not done(s)]
    config = run_config(ctx)
    with Progress(
        TextColumn("[bold]build-longqa"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console or Console(stderr=True),
        disable=quiet,
    ) as bar:
        task = bar.add_task("build", total=len(seeds), completed=len(seeds) - len(todo), last="")

        async def one(position: int, seed: Seed) -> None:
            state = await graph.ainvoke({"seed": seed}, config=config, context=ctx)
            # seeds finish in any order: the store keeps each one's place in the seeds file
            record = {**seed_record(seed, state), "position": position}
            store.append(record)
            bar.update(task, advance=1, last=f"{seed.id}: {record['status']}")

        await bounded(concurrency(ctx), [partial(one, k, s) for k, s in todo])
    return [store.records[(STAGE, s.id)] for s in seeds]


def stored_records(out: Path) -> list[dict[str, Any]]:
    """The seeds' records of an earlier build in ``out``, in the order of the seeds file.

    A record stored before records kept their place comes after those that did, as stored.
    """
    path = out / "built.jsonl"
    if not path.is_file():
        raise InputError(f"{out} holds no build (no built.jsonl): build first with --seeds")
    records = [r for (method, _), r in PredictionStore(path).records.items() if method == STAGE]
    return sorted(records, key=lambda r: r.get("position", len(records)))


Reviews = dict[str, dict[str, dict[str, str]]]  # seed id -> stage -> decision and reason


def _stages(stage: str) -> tuple[str, ...]:
    """The stages a decision is for: the one named, or both when none is (a one-row review)."""
    return (stage,) if stage else REVIEW_STAGES


def read_reviews(out: Path) -> Reviews:
    """The review decisions imported so far, by seed id and stage.

    An earlier version kept one decision per question with the stage it named: read as that
    stage's decision, or both stages' when it named none.
    """
    path = out / "reviews.json"
    reviews = json.loads(read_text_file(path)) if path.is_file() else {}
    for seed_id, review in reviews.items():
        if "decision" in review:
            decided = {"decision": review["decision"], "reason": review.get("reason", "")}
            reviews[seed_id] = {s: decided for s in _stages(review.get("stage", ""))}
    return reviews


def _is_review_sheet(rows: list[dict[str, Any]]) -> bool:
    return bool(rows) and all(c in rows[0] for c in ("id", "decision", "reason"))


def _decision_of(row: dict[str, str | None]) -> tuple[str, str, str]:
    """A sheet row's decision (lower-cased), stage and reason, blanks as ''."""
    decision, stage, reason = (row.get(k) or "" for k in ("decision", "stage", "reason"))
    return decision.strip().lower(), stage.strip(), reason.strip()


def import_review(out: Path, sheet: Path) -> Reviews:
    """Read a filled review sheet into ``reviews.json``; a blank decision leaves an earlier one.

    A row decides the stage it names; a row that names none (a sheet of one row per question)
    decides both. Bad rows are bad input, named by their line: a decision that is not keep or
    drop, a drop without a reason, an unknown stage or an id that was never built.
    """
    if not sheet.is_file():
        raise InputError(f"no such review sheet: {sheet}")
    built = {r["id"] for r in stored_records(out) if r["status"] == "built"}
    rows = sheet_rows(read_text_file(sheet))
    if not _is_review_sheet(rows):
        raise InputError(f"{sheet}: not a review sheet (it needs the columns id, decision, reason)")
    reviews = read_reviews(out)
    for line, row in enumerate(rows, start=2):
        decision, stage, reason = _decision_of(row)
        where = f"{sheet}:{line} (id {row['id']})"
        if row["id"] not in built:
            raise InputError(f"{where}: no question was built with this id")
        if decision not in ("", "keep", "drop"):
            raise InputError(f"{where}: decision must be keep or drop, not {row['decision']!r}")
        if stage and stage not in REVIEW_STAGES:
            raise InputError(f"{where}: stage must be one of {list(REVIEW_STAGES)} or empty")
        if decision == "drop" and not reason:
            raise InputError(f"{where}: a drop needs a reason")
        if decision:
            for s in _stages(stage):
                reviews.setdefault(row["id"], {})[s] = {"decision": decision, "reason": reason}
    write_whole(out / "reviews.json", json.dumps(reviews, ensure_ascii=False, indent=2))
    return reviews


# the fingerprint of review.csv as the last build wrote it: a sheet that differs was edited
WRITTEN_SHEET = ".review.csv.sha256"


def unimported_review(out: Path) -> str | None:
    """Why ``review.csv`` may not be rewritten: a reviewer filled it in and never imported it.

    The guide has reviewers fill ``review.csv`` in place; every build rewrites it from
    ``reviews.json``, so a rebuild before the import would throw their decisions away.
    """
    sheet = out / "review.csv"
    if not sheet.is_file():
        return None
    text = read_text_file(sheet)
    written = out / WRITTEN_SHEET
    if written.is_file() and written.read_text(encoding="utf-8").strip() == _fingerprint(text):
        return None
    rows = sheet_rows(text)
    if rows and not _is_review_sheet(rows):  # changed past reading: its decisions cannot be told apart
        return (
            f"{sheet} was changed and no longer reads as a review sheet (the columns id, decision, "
            "reason), so this command would overwrite whatever it holds: move the file away first"
        )
    reviews = read_reviews(out)
    edited = []
    for row in rows:
        decision, stage, reason = _decision_of(row)
        stored = [reviews.get(row.get("id") or "", {}).get(s, {}) for s in _stages(stage)]
        if decision and any((d.get("decision"), d.get("reason", "")) != (decision, reason) for d in stored):
            edited.append(row.get("id"))
    if not edited:
        return None
    return (
        f"{sheet} holds {len(edited)} decision{'s' * (len(edited) > 1)} not imported yet (first: id "
        f"{edited[0]}), which this command would overwrite: import them with --import-review {sheet} "
        "first, or move the file away"
    )


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _kept_knowledge(record: dict[str, Any]) -> list[str]:
    return [t["knowledge"]["text"] for t in record["triples"] if t["outcome"] == "kept"]


def _selected(record: dict[str, Any]) -> list[str]:
    return [q for n in record["selected"] for q in record["candidates"][n - 1]]


def _decisions(reviews: Reviews, seed_id: str) -> dict[str, str]:
    return {stage: d["decision"] for stage, d in reviews.get(seed_id, {}).items()}


def stats_rows(records: list[dict[str, Any]], reviews: Reviews) -> list[dict[str, Any]]:
    """The rows ``build_stats`` reads, one per seed."""
    return [
        {
            "status": r["status"],
            "decisions": _decisions(reviews, r["id"]),
            "topic": r["topic"],
            "seed_question": r["seed"]["question"],
            "question": r["question"],
            "gathered": len(r["triples"]),
            "kept": len(_kept_knowledge(r)),
        }
        for r in records
    ]


def write_outputs(out: Path, records: list[dict[str, Any]], ctx: LongQAContext | None) -> dict[str, Any]:
    """Rewrite every output file from the records and the review decisions; return the report.

    Without ``ctx`` (a review import) the report keeps the settings of the build.
    """
    if unimported := unimported_review(out):
        raise InputError(unimported)
    reviews = read_reviews(out)
    built = [r for r in records if r["status"] == "built"]
    kept = [r for r in built if review_outcome(_decisions(reviews, r["id"])) == "kept"]
    triples = [{"seed_id": r["id"], **triple} for r in records for triple in r["triples"]]
    write_jsonl(out / "triples.jsonl", triples)
    rows = []
    for r in built:
        for stage in REVIEW_STAGES:
            review = reviews.get(r["id"], {}).get(stage, {})
            rows.append(
                {
                    "id": r["id"],
                    "topic": r["topic"],
                    "seed_question": r["seed"]["question"],
                    "question": r["question"],
                    "sub_questions": " | ".join(_selected(r)) or f"({NO_SELECTION})",
                    "knowledge": " | ".join(_kept_knowledge(r)),
                    "decision": review.get("decision", ""),
                    "stage": stage,
                    "reason": review.get("reason", ""),
                }
            )
    sheet = sheet_text(REVIEW_COLUMNS, rows)
    write_whole(out / "review.csv", sheet)
    write_whole(out / WRITTEN_SHEET, _fingerprint(sheet))
    rows = [
        {
            "id": f"longhalluqa-{r['id']}",
            "topic": r["topic"],
            "prompt": r["question"],
            "seed_id": r["id"],
            "seed_question": r["seed"]["question"],
            "kind": r["seed"]["kind"],
            "sub_questions": _selected(r),
        }
        for r in kept
    ]
    write_jsonl(out / "longhalluqa.jsonl", rows)
    report = {
        "stats": build_stats(stats_rows(records, reviews)),
        "notes": dict(Counter(n for r in records for n in r["notes"]).most_common()),
        "failures": {r["id"]: r["error"] for r in records if r["status"] == "failed"},
        "not_built": {r["id"]: r["error"] for r in records if r["status"] == "not_built"},
        "usage": sum((Usage.model_validate(r["usage"]) for r in records), Usage()).model_dump(mode="json"),
        "examples": [
            {
                "id": r["id"],
                "seed_question": r["seed"]["question"],
                "question": r["question"],
                "topic": r["topic"],
            }
            for r in kept[:EXAMPLES]
        ],
    }
    if ctx is not None:
        report["settings"] = {k: v for k, v in asdict(ctx).items() if k in REPORTED_SETTINGS}
    elif (out / "report.json").is_file():
        report["settings"] = json.loads(read_text_file(out / "report.json")).get("settings", {})
    (out / "report.json").write_text(
        json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (out / "report.md").write_text(markdown(report), encoding="utf-8")
    return report


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def markdown(report: dict[str, Any]) -> str:
    """The report for people: counts and rates, topics, length ratio, notes, example questions."""
    s = report["stats"]
    ratio = s["question_length_ratio"]
    lines = [
        "# LongHalluQA-style build",
        "",
        "| | |",
        "| --- | --- |",
        f"| seeds | {s['seeds']} |",
        f"| built | {s['built']} (none verified {s['no_verified_knowledge']}, "
        f"not built from the model's writing {s['not_built']}, failed {s['failed']}) |",
        f"| reviewed at both stages or dropped | {s['reviewed']} (dropped {s['dropped_in_review']}) |",
        f"| awaiting review (in no rate) | {s['unreviewed']} |",
        f"| kept at both stages | {s['kept']} |",
        f"| retention (kept / reviewed) | {_rate(s['retention'])} |",
        f"| seed retention (kept / seeds less those awaiting review) | {_rate(s['seed_retention'])} |",
        f"| facts the verifier kept | {s['facts_kept']} of {s['facts_gathered']} "
        f"({_rate(s['fact_retention'])}) |",
        "| question length ratio, new / seed question (characters, kept) | "
        + ("n/a" if ratio["mean"] is None else f"mean {ratio['mean']:.1f}x, pooled {ratio['pooled']:.1f}x")
        + " |",
        f"| answer length ratio (the paper's 9.4x) | {ANSWER_RATIO} |",
        "",
        "## Topics",
        "",
        *[f"- {topic or '(none)'}: {n}" for topic, n in s["topics"].items()],
    ]
    if report["notes"]:
        lines += ["", "## Notes", "", *[f"- {note} ({n} seed(s))" for note, n in report["notes"].items()]]
    if report["not_built"]:
        lines += [
            "",
            "## Seeds the model's writing left without a long-form question",
            "",
            *[f"- {i}: {why}" for i, why in report["not_built"].items()],
        ]
    if report["failures"]:
        lines += ["", "## Failed seeds", "", *[f"- {i}: {why}" for i, why in report["failures"].items()]]
    lines += ["", "## Examples", ""]
    for e in report["examples"]:
        lines += [f"**{e['id']}** ({e['topic']}) seed: {e['seed_question']}", "", f"> {e['question']}", ""]
    return "\n".join(lines) + "\n"
