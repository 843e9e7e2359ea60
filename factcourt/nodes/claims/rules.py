"""When agents retrieve and when a debate ends: the rule variants as pure functions.

The graph's routers (``graphs/verify.py``) and the turn node both read these, so the
behaviour of each rule is written down once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.protocols import PROTOCOLS
from factcourt.state.records import Turn


def evidence_first(ctx: ClaimsContext) -> bool:
    """Whether the claim itself is searched before anyone speaks."""
    return ctx.evidence_first and ctx.retrieval_enabled


def first_pass_decides(ctx: ClaimsContext, first: Turn) -> bool:
    """Whether the first pass settles the claim: routing on, a verdict, confident enough.

    A threshold of 0 decides every claim, also on endpoints that give no logprobs.
    """
    sure = ctx.first_pass_theta <= 0.0 or (first.confidence or 0.0) >= ctx.first_pass_theta
    return ctx.first_pass == "route" and first.verdict is not None and sure


NO_CONFIDENCE = "no confidence: sent to the jury"


def first_pass_unweighed(ctx: ClaimsContext, first: Turn) -> str | None:
    """Why a routing first pass's verdict went to the jury unweighed, else None.

    Without a confidence (``confidence_source='reported'``: the verifier reports none; or an
    endpoint that gives no logprobs) a ``first_pass_theta`` above 0 is never reached.
    """
    routes = ctx.first_pass == "route" and ctx.first_pass_theta > 0.0
    return NO_CONFIDENCE if routes and first.verdict is not None and first.confidence is None else None


def retrieve_before_turn(ctx: ClaimsContext, state: Mapping[str, Any]) -> bool:
    """Whether the next turn must start with a retrieval (the 'retrieval first' strategy)."""
    if not ctx.retrieval_enabled:
        return False
    round_, turn = state.get("round", 1), state.get("turn_in_round", 0)
    return PROTOCOLS[ctx.protocol].retrieves_first(ctx.rule, round_, turn)


def may_retrieve_when_unsure(ctx: ClaimsContext, round_: int) -> bool:
    """Whether a speaker below ``theta`` confidence may retrieve and answer again."""
    if not ctx.retrieval_enabled:
        return False
    return PROTOCOLS[ctx.protocol].retrieves_when_unsure(ctx.rule, round_)


def moderator_may_stop(ctx: ClaimsContext, round_: int) -> bool:
    """Whether the moderator may close the debate after ``round_`` when it has converged."""
    return ctx.rule == "adaptive" or round_ >= 2


def final_turns(turns: list[Turn]) -> dict[str, Turn]:
    """Each speaker's last answered turn, in the order they last spoke."""
    last: dict[str, Turn] = {}
    for turn in turns:
        if turn.failed is None:
            last.pop(turn.speaker, None)
            last[turn.speaker] = turn
    return last


def majority_decided(turns: list[Turn], speakers: list[str], spoken: int, first: Turn | None = None) -> bool:
    """Whether the first ``spoken`` speakers' last verdicts (and ``first``'s vote) decide the majority.

    Each speaker still to speak adds at most one vote, so the leader must be ahead of the runner-up
    by more than their number (strictly: a tie would go to a later speaker).
    """
    verdicts = [t.verdict for s, t in final_turns(turns).items() if s in speakers[:spoken]]
    if first is not None:
        verdicts.append(first.verdict)
    counts = [n for _, n in Counter(v for v in verdicts if v).most_common(2)] + [0, 0]
    return counts[0] > counts[1] + len(speakers) - spoken


def majority_settled(ctx: ClaimsContext, state: Mapping[str, Any]) -> bool:
    """Whether the last round's speakers still to speak can no longer change the majority.

    Never where a Judge agent or a moderator decides.
    """
    done = state.get("turn_in_round", 0)
    if (
        not ctx.settled_stop
        or PROTOCOLS[ctx.protocol].verdict != "majority"
        or ctx.jury_judge == "model"
        or done == 0
        or state.get("round", 1) < ctx.max_rounds
    ):
        return False
    first = state.get("first_pass") if ctx.first_pass_votes else None
    return majority_decided(state.get("turns", []), ctx.speakers, done, first)


def unanimous(turns: list[Turn], round_: int) -> bool:
    """Whether every answered turn of ``round_`` gave the same verdict."""
    verdicts = {t.verdict for t in turns if t.round == round_ and t.failed is None}
    return len(verdicts) == 1


def round_failed(turns: list[Turn], round_: int) -> str | None:
    """Why ``round_`` failed when none of its turns answered, else None.

    Its speakers share the models and the endpoint, so another round would only fail again
    (with a hung endpoint, after ``timeout_s`` for each of its turns).
    """
    held = [t for t in turns if t.round == round_]
    if not held or any(t.failed is None for t in held):
        return None
    return f"every turn of round {round_} failed: " + "; ".join(sorted({t.failed or "" for t in held}))[:400]
