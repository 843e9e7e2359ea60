"""The moderator (DebateCV): summarise the round, check convergence, give the verdict."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from factcourt.context.claims import AFFIRMATIVE, NEGATIVE, ClaimsContext
from factcourt.nodes.claims.protocols import argument
from factcourt.nodes.claims.rules import moderator_may_stop
from factcourt.nodes.helpers import (
    emit,
    fence,
    format_evidence,
    format_pool,
    ground_citations,
    shown_evidence,
)
from factcourt.prompts.claims import table
from factcourt.providers.models import Answer, ask
from factcourt.state.claims import (
    ClaimState,
    ModeratorAnswer,
    ModeratorFinalPaper,
    ModeratorRoundPaper,
    RoundSummary,
)
from factcourt.state.records import AgentAnswer, Evidence, Turn

# RoundSummary's field behind each field of DebateCV's own answers (App. B.2)
PAPER_FIELDS = {
    "primary_insight": "summary",
    "evidence_gaps": "gaps",
    "justification_for_proceeding": "proceeding",
    "justification_for_verdict": "justification",
}
ModeratorReply = ModeratorAnswer | ModeratorRoundPaper | ModeratorFinalPaper


def moderator_schema(debate_prompts: str, round_: int, max_rounds: int) -> type[ModeratorReply]:
    """What the moderator answers at the end of ``round_``: ours, or the paper's per-round or final answer."""
    if debate_prompts == "ours":
        return ModeratorAnswer
    return ModeratorFinalPaper if round_ >= max_rounds else ModeratorRoundPaper


def moderator_reply(summary: RoundSummary, schema: type[AgentAnswer]) -> str:
    """A round's answer as the moderator's own turn: ``schema``'s fields, in the schema's order."""
    values = {
        **summary.model_dump(mode="json"),
        **{paper: getattr(summary, ours) for paper, ours in PAPER_FIELDS.items()},
        "proceeding_necessity": "No" if summary.stop else "Yes",
    }
    return json.dumps({name: values[name] for name in schema.model_fields}, ensure_ascii=False)


def read_answer(value: ModeratorReply) -> dict[str, Any]:
    """A moderator's answer in RoundSummary's terms; ``stop`` is what it asked for."""
    if isinstance(value, ModeratorAnswer):
        return value.model_dump()
    said = {ours: getattr(value, paper, "") for paper, ours in PAPER_FIELDS.items()}
    # the final prompt ends the debate; a per-round answer ends it with "No" and a verdict. The
    # paper has no new-insights flag: asking for another round is its sign of them
    proceed = getattr(value, "proceeding_necessity", "No") == "Yes"
    return {
        **said,
        "new_insights": proceed,
        "stop": not proceed and value.verdict is not None,
        "verdict": value.verdict,
    }


def _round_prompt(
    language: str,
    debate_prompts: str,
    claim: str,
    evidence: str,
    turns: list[Turn],
    round_: int,
    max_rounds: int,
) -> str:
    """The user turn of ``round_``: ours (the first opens with the claim and evidence) or the paper's."""
    words = table(language)
    if debate_prompts == "paper":
        said = {
            "affirmative": argument(turns, AFFIRMATIVE, round_, language),
            "negative": argument(turns, NEGATIVE, round_, language),
        }
        if round_ >= max_rounds:
            return words.DCV_PAPER_FINAL.format(claim=claim, **said)
        return words.DCV_PAPER_ROUND.format(round=round_, **said)
    return (words.MODERATOR.user if round_ == 1 else words.MODERATOR_ROUND).format(
        claim=claim,
        evidence=evidence,
        pool=format_pool([t for t in turns if t.round == round_]),
        round=round_,
        max_rounds=max_rounds,
        last_round_note=words.LAST_ROUND_NOTE if round_ >= max_rounds else "",
    )


def moderator_messages(
    language: str,
    claim: str,
    evidence: list[Evidence],
    turns: list[Turn],
    summaries: list[RoundSummary],
    max_rounds: int,
    debate_prompts: str,
) -> list[BaseMessage]:
    """What the moderator is sent at the end of round ``len(summaries) + 1``.

    DebateCV's multi-turn dialogue: one user turn per round with that round's debate, the
    moderator's answers to the earlier rounds between them. Debate-SFT trains on exactly these
    messages, so a trained moderator sees at inference what it learned from. The claim and the
    knowledge base as it stands now come first (ours: in the first user turn; the paper's: in
    its meta-prompt): with given evidence that never changes, and the server's prompt cache
    serves every earlier round.
    """
    claim, shown = fence(claim), format_evidence(evidence)
    words = table(language)
    system = words.MODERATOR.system
    if debate_prompts == "paper":
        system = words.DCV_PAPER_MODERATOR_SYSTEM.format(claim=claim, evidence=shown)
    messages: list[BaseMessage] = [SystemMessage(system)]
    finished = len(summaries) + 1
    for round_ in range(1, finished + 1):
        messages.append(
            HumanMessage(_round_prompt(language, debate_prompts, claim, shown, turns, round_, max_rounds))
        )
        if round_ < finished:
            schema = moderator_schema(debate_prompts, round_, max_rounds)
            messages.append(AIMessage(moderator_reply(summaries[round_ - 1], schema)))
    return messages


async def moderator(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """End a round; a moderator answer that never parses fails the claim (no made-up verdict)."""
    ctx, claim = runtime.context, state["claim"]
    finished = state["round"] - 1
    last = finished >= ctx.max_rounds
    answer: Answer[ModeratorReply] = await ask(
        ctx,
        "moderator",
        moderator_schema(ctx.debate_prompts, finished, ctx.max_rounds),
        moderator_messages(
            state["language"],
            claim.text,
            state.get("evidence", []),
            state.get("turns", []),
            state.get("summaries", []),
            ctx.max_rounds,
            ctx.debate_prompts,
        ),
        run_name=f"moderator round {finished}",
        tags=[f"protocol:{ctx.protocol}", f"rule:{ctx.rule}", f"claim:{claim.id}"],
        metadata={"claim_id": claim.id, "round": finished},
    )
    if answer.value is None:
        return {"usage": answer.usage, "error": f"moderator failed: {answer.error}"}
    said = read_answer(answer.value)
    stop = last or (said["stop"] and moderator_may_stop(ctx, finished))
    # its justification becomes the claim's (and Debate-SFT's target): only evidence it was shown
    shown = shown_evidence(state.get("evidence", []))
    summary = RoundSummary(
        round=finished,
        summary=ground_citations(said["summary"], shown)[0],
        new_insights=said["new_insights"],
        gaps=said["gaps"],
        proceeding=said.get("proceeding", ""),
        stop=stop,
        verdict=said["verdict"],
        justification=ground_citations(said["justification"], shown)[0],
    )
    emit("round_summary", claim_id=claim.id, round=finished, stop=stop, verdict=summary.verdict)
    return {"summaries": [summary], "stop": stop, "usage": answer.usage}


def format_summaries(summaries: list[RoundSummary]) -> str:
    """Earlier moderator summaries, one line each."""
    # DebateCV's final prompt asks for no summary: that round has none to show
    return " | ".join(f"R{s.round}: {fence(s.summary)}" for s in summaries if s.summary) or "(none)"
