"""``factcourt synth-sft``: Debate-SFT's SynDeC data from the adversarial protocol.

The debate runs on the claim and its gold evidence only (unless the user names a search); the gold
label is used afterwards, to decide whether the Corrector must write the justification that leads
to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factcourt.api import averify
from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import Case, Gold, load
from factcourt.context.claims import PRESETS
from factcourt.nodes.helpers import fence, format_evidence, format_pool, format_summaries
from factcourt.prompts import conversation, prompt
from factcourt.providers.models import ask
from factcourt.state import Evidence, RoundSummary, SftJustification, Turn
from factcourt.store import PredictionStore

GOLD_BINARY = {True: "supported", False: "refuted"}
# DebateCV's golden setting: the debatecv preset on the evidence that came with the claim
DEBATE_SETTINGS = {**PRESETS["debatecv"], "search": "given"}


def gold_verdict(gold: Gold) -> str:
    """The four-way gold label where the dataset has one, else supported/refuted."""
    return gold.label_4way or GOLD_BINARY[gold.label]


def debate_context(settings: dict[str, Any]) -> BenchContext:
    """DebateCV's golden setting under the settings the user named (``settings_values``): theirs win."""
    return BenchContext.from_dict({**DEBATE_SETTINGS, **BenchContext.adjust(settings)})


async def sample(case: Case, gold: Gold, ctx: BenchContext) -> dict[str, Any]:
    """One chat-format training sample; ``corrected`` marks a Corrector-written target."""
    result = await averify(case.claim, list(case.evidence), case.question, ctx)
    evidence = [Evidence.model_validate(e) for e in result["evidence"]]
    turns = [Turn.model_validate(t) for t in result["transcript"]]
    summaries = [RoundSummary.model_validate(s) for s in result["summaries"]]
    context = prompt("en", "SFT_CONTEXT").format(
        claim=fence(case.claim), evidence=format_evidence(evidence), pool=format_pool(turns)
    )
    target_verdict, justification = result["verdict"], result["justification"]
    corrected, error = False, result["error"]
    wanted = gold_verdict(gold)
    if error is None and target_verdict != wanted:
        answer = await ask(
            ctx,
            "corrector",
            SftJustification,
            conversation(
                "en",
                "SFT",
                claim=fence(case.claim),
                evidence=format_evidence(evidence),
                pool=format_pool(turns),
                summaries=format_summaries(summaries),
                verdict=wanted,
            ),
            run_name="sft corrector",
            tags=["synth-sft"],
        )
        if answer.value is None:
            error = f"corrector failed: {answer.error}"
        else:
            target_verdict, justification, corrected = wanted, answer.value.justification, True
    return {
        "id": case.id,
        "messages": [
            {"role": "system", "content": prompt("en", "SFT_TASK")},
            {"role": "user", "content": context.strip()},
            {
                "role": "assistant",
                "content": json.dumps(
                    {"verdict": target_verdict, "justification": justification}, ensure_ascii=False
                ),
            },
        ],
        "corrected": corrected,
        "moderator_verdict": result["verdict"],
        "error": error,
    }


async def synth_sft(dataset: Path, out: Path, ctx: BenchContext, limit: int | None = None) -> dict:
    """Write one sample per case to ``out`` (JSONL, resumable); return counts.

    ``ctx`` is the debate's context, e.g. ``debate_context(settings)``.
    """
    store = PredictionStore(out)
    counts: dict[str, Any] = {"written": 0, "corrected": 0, "failed": 0, "skipped": 0, "first_error": None}
    for case, gold in load(dataset, limit):
        if store.done("sft", case.id):
            counts["skipped"] += 1
            continue
        record = await sample(case, gold, ctx)
        if record["error"]:
            counts["failed"] += 1
            counts["first_error"] = counts["first_error"] or record["error"]
            continue  # a failed debate makes no training sample (and is retried next run)
        store.append({"method": "sft", **record})
        counts["written"] += 1
        counts["corrected"] += record["corrected"]
    return counts
