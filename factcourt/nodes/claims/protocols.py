"""The debate protocols in one table: who speaks with which prompt, what ends a round, who decides.

A new protocol is one row here and its name, debaters and default rounds in
``factcourt.context.claims`` (``ProtocolName``, ``DEBATERS``, ``DEFAULT_ROUNDS``), which the command
line and the server's standard assistants read too; the turn node, the rules, the graph's router and
the judge read the row rather than test the protocol's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from factcourt.context.claims import AFFIRMATIVE, NEGATIVE, ClaimsContext
from factcourt.nodes.helpers import fence, question_of
from factcourt.prompts import conversation
from factcourt.prompts.claims import table
from factcourt.state.claims import ClaimState, DebaterAnswer, JurorAnswer
from factcourt.state.records import AgentAnswer, Turn


def argument(turns: list[Turn], speaker: str, round_: int, language: str) -> str:
    """What ``speaker`` argued in ``round_``, as DebateCV's own prompts quote an argument."""
    said = next((t for t in turns if t.speaker == speaker and t.round == round_ and t.failed is None), None)
    return fence(said.text) if said else table(language).NO_ARGUMENT


def _paper_debater_prompt(
    state: ClaimState, speaker: str, language: str, shared: dict[str, object]
) -> list[BaseMessage]:
    """DebateCV's Appendix B: the meta-prompt, then one prompt per round with the debater's answers.

    The Affirmative opens, then answers the Negative's last argument (A-_{t-1}); the Negative
    rebuts the Affirmative's argument of the round (A+_t). Each sees no other turn.
    """
    turns, now, words = state.get("turns", []), state["round"], table(language)
    system = words.DCV_PAPER_DEBATER_SYSTEM.format(claim=shared["claim"], evidence=shared["evidence"])
    messages: list[BaseMessage] = [SystemMessage(system)]
    for round_ in range(1, now + 1):
        if speaker == NEGATIVE:
            said = words.DCV_PAPER_REBUTTAL.format(affirmative=argument(turns, AFFIRMATIVE, round_, language))
        elif round_ == 1:
            said = words.DCV_PAPER_OPENING.format(claim=shared["claim"])
        else:
            said = words.DCV_PAPER_CONTINUE.format(opposition=argument(turns, NEGATIVE, round_ - 1, language))
        messages.append(HumanMessage(said))
        if round_ < now:
            messages.append(AIMessage(argument(turns, speaker, round_, language)))
    return messages


def _debater_prompt(
    ctx: ClaimsContext, state: ClaimState, speaker: str, language: str, shared: dict[str, object]
) -> list[BaseMessage]:
    if ctx.debate_prompts == "paper":
        return _paper_debater_prompt(state, speaker, language, shared)
    words = table(language)
    stance = words.AFFIRMATIVE_STANCE if speaker == AFFIRMATIVE else words.NEGATIVE_STANCE
    return conversation(words.DEBATER, side=speaker, stance=stance, **shared)


def _juror_prompt(
    ctx: ClaimsContext, state: ClaimState, speaker: str, language: str, shared: dict[str, object]
) -> list[BaseMessage]:
    # the persona comes last so every juror shares the prompt prefix (llama.cpp reuses its cache)
    paper, words = ctx.role_texts == "paper", table(language)
    persona = (
        (words.ROLES_PAPER if paper else words.ROLES)[speaker]
        if ctx.use_roles
        else (words.NEUTRAL_ROLE_PAPER if paper else words.NEUTRAL_ROLE)
    )
    return conversation(
        words.JUROR_PAPER if paper else words.JUROR,
        question=fence(question_of(state, language)),
        persona=persona,
        **shared,
    )


@dataclass(frozen=True)
class Protocol:
    """What one debate protocol does differently."""

    role: str
    """The model role its speakers answer as."""
    answer: type[AgentAnswer]
    """A turn's structured answer."""
    argument: str
    """The answer's field that is the turn's text."""
    messages: Callable[[ClaimsContext, ClaimState, str, str, dict[str, object]], list[BaseMessage]]
    """A turn's prompt, from the fields every protocol shows (claim, evidence, pool, ...)."""
    after_round: Literal["moderate", "rule"]
    """'moderate': the moderator summarises every round and may stop; 'rule': the rule and the round limit."""
    verdict: Literal["moderator", "majority"]
    """Who decides the claim: the moderator's last summary, or the majority of the last turns."""
    first_round_vote: bool
    """Whether the first round's majority is kept beside the verdict (a jury's)."""
    retrieves_first: Callable[[str, int, int], bool]
    """Under rule ``r``, whether turn ``t`` of round ``n`` starts with a retrieval."""
    retrieves_when_unsure: Callable[[str, int], bool]
    """Under rule ``r``, whether an unsure speaker of round ``n`` may retrieve and answer again."""
    unread_when_sure: frozenset[str] = frozenset()
    """The answer's last fields only an unsure speaker's retry reads (its written confidence and
    query): left out where the confidence comes from logprobs and no retrieval may follow."""


PROTOCOLS: dict[str, Protocol] = {
    # MAD-Fact: role-played evaluators, majority vote; 'adaptive' retrieves in round 2 (reached
    # only when round 1 disagreed)
    "jury": Protocol(
        role="evaluator",
        answer=JurorAnswer,
        argument="explanation",
        messages=_juror_prompt,
        after_round="rule",
        verdict="majority",
        first_round_vote=True,
        retrieves_first=lambda rule, round_, turn: (
            round_ == 1 if rule == "mandatory_search" else rule == "adaptive" and round_ >= 2
        ),
        retrieves_when_unsure=lambda rule, round_: rule in ("free", "adaptive") and round_ == 1,
        unread_when_sure=frozenset({"confidence", "search_query"}),
    ),
    # DebateCV: Affirmative against Negative, the moderator decides
    "adversarial": Protocol(
        role="debater",
        answer=DebaterAnswer,
        argument="argument",
        messages=_debater_prompt,
        after_round="moderate",
        verdict="moderator",
        first_round_vote=False,
        retrieves_first=lambda rule, round_, turn: rule == "mandatory_search" and round_ == 1 and turn == 0,
        retrieves_when_unsure=lambda rule, round_: rule in ("free", "adaptive"),
    ),
}
