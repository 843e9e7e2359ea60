"""One speaker's turn: a jury evaluator (MAD-Fact) or a debater (DebateCV)."""

from __future__ import annotations

import difflib
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.protocols import PROTOCOLS
from factcourt.nodes.claims.rules import may_retrieve_when_unsure, round_failed
from factcourt.nodes.helpers import (
    confidence_from_logprobs,
    emit,
    fence,
    format_evidence,
    format_pool,
    ground_citations,
    read_confidence,
    shown_evidence,
)
from factcourt.providers.models import ask
from factcourt.state.claims import ClaimState
from factcourt.state.records import AgentAnswer, Turn, without_trailing

COPY_RATIO = 0.75  # this similar to another speaker's words is a repetition, not an argument


def _messages(ctx: ClaimsContext, state: ClaimState, speaker: str, language: str) -> list[BaseMessage]:
    claim = state["claim"]
    shared = {
        "claim": fence(claim.text),
        "evidence": format_evidence(state.get("evidence", [])),
        "pool": format_pool(state.get("turns", [])),
        "queries": "; ".join(state.get("queries", [])) or "none",
        "round": state["round"],
    }
    return PROTOCOLS[ctx.protocol].messages(ctx, state, speaker, language, shared)


def answer_schema(ctx: ClaimsContext, index: int, round_: int) -> type[AgentAnswer]:
    """The turn's answer, ending where what is read ends.

    A juror whose confidence comes from logprobs and who may not retrieve writes no confidence
    and no query, which followed its verdict: 16 to 22 fewer tokens a turn on HaluEval.
    """
    protocol = PROTOCOLS[ctx.protocol]
    if (
        protocol.unread_when_sure
        and not may_retrieve_when_unsure(ctx, round_)
        and confidence_from_logprobs(ctx.juror_context(index), protocol.role)
    ):
        return without_trailing(protocol.answer, protocol.unread_when_sure)
    return protocol.answer


def previous_turn(turns: list[Turn], speaker: str) -> Turn | None:
    """The speaker's last turn with a verdict, if it spoke before."""
    return next((t for t in reversed(turns) if t.speaker == speaker and t.verdict), None)


def copies_another(text: str, turns: list[Turn], speaker: str) -> bool:
    """Whether ``text`` mostly repeats what another speaker said."""
    mine = " ".join(text.lower().split())
    return any(
        difflib.SequenceMatcher(None, mine, " ".join(t.text.lower().split())).ratio() >= COPY_RATIO
        for t in turns
        if t.speaker != speaker and t.text
    )


async def debater_turn(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Let the next speaker answer; an unsure one may first ask for evidence."""
    ctx, claim = runtime.context, state["claim"]
    round_, index = state["round"], state["turn_in_round"]
    own = ctx.juror_context(index)  # the speaker's model and settings: its request and its reading
    speaker = ctx.speakers[index]
    language = state["language"]
    protocol = PROTOCOLS[ctx.protocol]
    role = protocol.role
    answer = await ask(
        own,
        role,
        answer_schema(ctx, index, round_),
        _messages(ctx, state, speaker, language),
        run_name=f"{role}:{speaker} round {round_}",
        tags=[f"protocol:{ctx.protocol}", f"rule:{ctx.rule}", f"claim:{claim.id}"],
        metadata={"claim_id": claim.id, "round": round_, "speaker": speaker},
    )
    value = answer.value
    verdict = getattr(value, "verdict", None)
    probabilities, confidence = read_confidence(
        own, answer.logprobs, verdict, getattr(value, "confidence", None)
    )
    retrieved = state.get("retrieved_for_turn", False)
    if (
        value is not None
        and confidence is not None
        and confidence < ctx.theta
        and not retrieved
        and may_retrieve_when_unsure(ctx, round_)
    ):
        # the unsure first answer is not put in the pool: the speaker answers again with evidence
        return {
            "awaiting_evidence": True,
            "suggested_query": getattr(value, "search_query"),  # the answer is never shortened here
            "unsure_calls": state.get("unsure_calls", 0) + 1,
            "usage": answer.usage,
        }
    shown = shown_evidence(state.get("evidence", []))
    text, cited, dropped = ground_citations(getattr(value, protocol.argument) if value else "", shown)
    turns = state.get("turns", [])
    rejected = None
    before = previous_turn(turns, speaker)
    if (
        ctx.change_guard
        and verdict
        and before
        and before.verdict
        and verdict != before.verdict
        and (not cited or copies_another(text, turns, speaker))
    ):
        # a changed verdict needs evidence of its own; conformity is not an argument
        rejected, verdict = verdict, before.verdict
        confidence = probabilities.get(verdict) if probabilities else before.confidence
    turn = Turn(
        speaker=speaker,
        round=round_,
        retrieved_before=retrieved,
        failed=answer.error,
        verdict=verdict,
        confidence=confidence,
        probabilities=probabilities,
        text=text,
        citations=sorted({*cited, *(getattr(value, "citations", []) if value else [])} & set(shown)),
        calls=1 + state.get("unsure_calls", 0),
        dropped_citations=dropped,
        rejected_change=rejected,
    )
    emit(
        "turn_done",
        claim_id=claim.id,
        speaker=speaker,
        round=round_,
        verdict=turn.verdict,
        failed=turn.failed,
    )
    last_of_round = index + 1 == len(ctx.speakers)
    update = {
        "turns": [turn],
        "usage": answer.usage,
        "retrieved_for_turn": False,
        "unsure_calls": 0,
        "round": round_ + 1 if last_of_round else round_,
        "turn_in_round": 0 if last_of_round else index + 1,
    }
    if last_of_round and (failed := round_failed([*turns, turn], round_)):
        update["error"] = failed  # the debate stops here; the claim fails with this reason
    return update
