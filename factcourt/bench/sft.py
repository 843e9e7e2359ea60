"""``factcourt synth-sft``: Debate-SFT's SynDeC data from the adversarial protocol.

The debate runs on the claim and its gold evidence only (unless the user names a search); the gold
label is used afterwards, to decide whether the Corrector must write the justification that leads
to it. Each sample is the conversation the moderator node sent at its deciding turn (built by the
node's own ``moderator_messages``) and, as target, the answer it should have given in its own
schema; the paper's fields (i)-(vii) stand beside them. Under the preset's ``debate_prompts='paper'``
the debaters, the moderator and the Corrector get DebateCV's own prompts (Appendix B).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, convert_to_openai_messages

from factcourt.api.claims import averify
from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import Case, Gold
from factcourt.bench.prompts_en import EN
from factcourt.bench.runner import select
from factcourt.bench.schemas import SftJustification
from factcourt.context.claims import PRESETS
from factcourt.errors import InputError
from factcourt.nodes.claims.moderator import (
    format_summaries,
    moderator_messages,
    moderator_reply,
    moderator_schema,
)
from factcourt.nodes.helpers import fence, format_evidence, format_pool, language_for
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.state.claims import RoundSummary
from factcourt.state.records import Evidence, Turn
from factcourt.store import PredictionStore

# DebateCV's golden setting: the debatecv preset on the evidence that came with the claim
DEBATE_SETTINGS = {**PRESETS["debatecv"], "search": "given"}
# the bench's fixed split: synthesis reads the dev part, the trained moderator is measured on test
TRAIN_PART = "dev"


def debate_context(settings: dict[str, Any]) -> BenchContext:
    """DebateCV's golden setting under the settings the user named (``settings_values``): theirs win."""
    return BenchContext.from_dict({**DEBATE_SETTINGS, **BenchContext.adjust(settings)})


def training_cases(dataset: Path, part: str, limit: int | None) -> list[tuple[Case, Gold]]:
    """The cases synthesis may debate: the train part only, each with a four-way gold label."""
    if part != TRAIN_PART:
        raise InputError(
            f"synth-sft reads only the {TRAIN_PART!r} part: part {part!r} holds the test claims the "
            "trained moderator is measured on"
        )
    pairs = select(dataset, limit, None, part=part)
    unlabelled = next((c.id for c, g in pairs if g.label_4way is None), None)
    if unlabelled is not None:
        raise InputError(
            f"case {unlabelled!r} of {dataset} has no four-way label (meta.label_4way): Debate-SFT "
            "teaches all four verdicts; use AVeriTeC's own dev.json"
        )
    return pairs


def corrector_messages(
    ctx: BenchContext,
    claim: str,
    evidence: list[Evidence],
    turns: list[Turn],
    summaries: list[RoundSummary],
    verdict: str,
) -> list[BaseMessage]:
    """The Corrector's prompt: DebateCV's App. B.3 under its own prompts, else ours."""
    if ctx.debate_prompts == "paper":
        return [
            HumanMessage(
                EN.DCV_PAPER_CORRECTOR.format(
                    debate=format_pool(turns, chars=None),  # "the full debate recording" (§4)
                    insights=format_summaries(summaries),
                    verdict=EN.DCV_PAPER_LABELS[verdict],
                )
            )
        ]
    return conversation(
        EN.SFT,
        claim=fence(claim),
        evidence=format_evidence(evidence),
        pool=format_pool(turns),
        summaries=format_summaries(summaries),
        verdict=verdict,
    )


async def sample(case: Case, gold: Gold, ctx: BenchContext) -> dict[str, Any]:
    """One SynDeC sample: the moderator's deciding-turn messages, its target answer and fields (i)-(vii)."""
    wanted = gold.label_4way
    if wanted is None:  # training_cases refuses such a case: refused here too, before the debate's cost
        raise InputError(f"case {case.id} has no four-way gold label: it cannot teach the moderator")
    result = await averify(case.claim, list(case.evidence), case.question, ctx)
    evidence, turns, summaries = result.evidence, result.transcript, result.summaries
    error, corrected = result.error, None
    if error is None and result.verdict != wanted:
        answer = await ask(
            ctx,
            "corrector",
            SftJustification,
            corrector_messages(ctx, case.claim, evidence, turns, summaries, wanted),
            run_name="sft corrector",
            tags=["synth-sft"],
        )
        if answer.value is None:
            error = f"corrector failed: {answer.error}"
        else:
            corrected = answer.value.justification
    record: dict[str, Any] = {
        "id": case.id,
        "claim": case.claim,  # (i)
        "evidence": [e.text for e in case.evidence],  # (ii)
        "debate": [t.model_dump(mode="json") for t in turns],  # (iii)
        "gold_verdict": wanted,  # (iv)
        "predicted_verdict": result.verdict,  # (v)
        "predicted_justification": result.justification,  # (vi)
        "corrected_justification": corrected,  # (vii)
        "error": error,
    }
    if error is not None:
        return record
    *earlier, deciding = summaries
    messages = moderator_messages(
        language_for(ctx.language, case.claim),
        case.claim,
        evidence,
        turns,
        earlier,
        ctx.max_rounds,
        ctx.debate_prompts,
    )
    if corrected is not None:  # C_error: the gold verdict with the Corrector's justification
        deciding = deciding.model_copy(update={"verdict": wanted, "justification": corrected})
    schema = moderator_schema(ctx.debate_prompts, deciding.round, ctx.max_rounds)
    return {
        **record,
        "group": "error" if corrected is not None else "correct",
        "messages": convert_to_openai_messages(messages),
        "target": moderator_reply(deciding, schema),
    }


async def synth_sft(
    dataset: Path, out: Path, ctx: BenchContext, limit: int | None = None, part: str = TRAIN_PART
) -> dict[str, Any]:
    """Write one sample per case of the train part to ``out`` (JSONL, resumable); return counts.

    ``ctx`` is the debate's context, e.g. ``debate_context(settings)``.
    """
    pairs = training_cases(dataset, part, limit)
    store = PredictionStore(out)
    counts: dict[str, Any] = {"written": 0, "corrected": 0, "failed": 0, "skipped": 0, "first_error": None}
    for case, gold in pairs:
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
        counts["corrected"] += record["group"] == "error"
    return counts
