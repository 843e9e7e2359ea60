"""The hallucination debate's gathering step: the knowledge K_ext every agent sees, from the gatherer.

With search 'given' the knowledge that came with the input is used as it is; with 'none' there
is none (the paper's "w/o EK" ablation). With a search backend and ``hallucination_retrieval=
'stance'`` each team also searches once for its own viewpoint (IMPD-MACD §3.1). A search backend
that fails fails the item: a debate without the evidence it was meant to have must not pass for
"no hallucination".
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.hallucination import HallucinationContext
from factcourt.errors import BackendError
from factcourt.nodes.agents.gatherer import (
    decompose,
    grounded_statements,
    refine_knowledge,
    search_fragments,
    search_queries,
)
from factcourt.nodes.hallucination.protocol import STANCE_PIECES
from factcourt.nodes.helpers import EVIDENCE_SHOWN, clip, emit, language_for
from factcourt.prompts.hallucination import table
from factcourt.state.hallucination import HALU_TEAMS, HallucinationState
from factcourt.state.records import Evidence, Usage

MAX_ITEM_CHARS = 4000
NOTE_CHARS = 120
STANCE_QUERY_CHARS = 300  # the answer in a stance query: a search query, not the whole answer


def item_problem(question: str, answer: str) -> str | None:
    """Why a question-answer pair cannot be checked, or None."""
    for name, value in (("question", question), ("answer", answer)):
        if not value.strip():
            return f"the {name} is empty"
        if len(value) > MAX_ITEM_CHARS:
            return f"the {name} has {len(value)} characters; the limit is {MAX_ITEM_CHARS}"
    return None


def input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served run's input (its schema checked) cannot be checked, or None."""
    return item_problem(payload.get("question", ""), payload.get("answer", ""))


async def gather(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> dict[str, Any]:
    """Collect the knowledge K_ext every agent of the debate sees."""
    ctx = runtime.context
    question, answer = state.get("question", ""), state.get("answer", "")
    language = state.get("language") or language_for(ctx.language, f"{question} {answer}")
    start = {"round": 1, "language": language, "knowledge": []}
    if problem := item_problem(question, answer):
        return {**start, "error": problem}
    if ctx.search == "given":
        given = [
            e.model_copy(update={"source": e.source or "given"}) for e in state.get("given_knowledge") or []
        ]
        if not any(e.text.strip() for e in given):
            return {**start, "error": "search 'given' needs knowledge with the input, and none came"}
        return {**start, "knowledge": given}
    if ctx.search == "none":
        return start
    update = await _shared_knowledge(ctx, question, language, start)
    if ctx.hallucination_retrieval == "stance" and not update.get("error"):
        update = await _stance_knowledge(ctx, question, answer, language, update)
    return update


async def _stance_knowledge(
    ctx: HallucinationContext, question: str, answer: str, language: str, update: dict[str, Any]
) -> dict[str, Any]:
    """Each team's own search for its viewpoint: up to STANCE_PIECES results the shared knowledge lacks."""
    stance_queries = table(language).STANCE_QUERIES
    queries = {
        team: stance_queries[team].format(question=question, answer=clip(answer, STANCE_QUERY_CHARS))
        for team in HALU_TEAMS
    }
    usage = update.get("usage") or Usage()
    known = {(e.url, e.text) for e in [*update.get("fragments", []), *update["knowledge"]]}
    stances: dict[str, list[Evidence]] = {}
    for team, query in queries.items():
        try:
            found, searched = await search_fragments(ctx, [query])
        except BackendError as exc:
            return {**update, "usage": usage, "error": str(exc)}
        usage += searched
        stances[team] = [e for e in found if (e.url, e.text) not in known][:STANCE_PIECES]
        emit("retrieved", claim_id="answer", query=query, found=len(stances[team]))
    return {
        **update,
        "queries": [*update.get("queries", []), *queries.values()],
        "stance_knowledge": stances,
        "usage": usage,
    }


async def _shared_knowledge(
    ctx: HallucinationContext, question: str, language: str, start: dict[str, Any]
) -> dict[str, Any]:
    """The gatherer's knowledge every agent sees: decomposition, searches, refined statements."""
    usage = Usage()
    decomposed = await decompose(ctx, question, language, "hallucination")
    usage += decomposed.usage
    queries = search_queries(question, decomposed.value)
    try:
        fragments, searched = await search_fragments(ctx, queries)
    except BackendError as exc:
        return {**start, "usage": usage, "queries": queries, "error": str(exc)}
    usage += searched
    emit("retrieved", claim_id="answer", query=" | ".join(queries), found=len(fragments))
    update = {
        **start,
        "sub_questions": decomposed.value.sub_questions if decomposed.value else [],
        "queries": queries,
        "fragments": fragments,
    }
    notes = []
    if decomposed.value is None:
        notes.append(
            f"the question's decomposition failed, so only the question was searched: {decomposed.error}"
        )
    if not fragments:
        return {**update, "gather_notes": notes, "usage": usage}
    written, refining = await refine_knowledge(ctx, question, fragments, language, "hallucination")
    usage += refining
    written = written or []
    # the debate takes the knowledge as found (the long-form builder verifies each statement instead)
    statements, unstated = grounded_statements(written, fragments)
    if unstated:
        notes.append(
            f"{len(unstated)} of {len(written)} knowledge statements named what their sources do not"
            f" state and were set aside (the sources they cite are shown instead):"
            f" {'; '.join(clip(u, NOTE_CHARS) for u in unstated)}"
        )
    update["gather_notes"] = notes
    if not statements:  # the fragments themselves, then
        return {**update, "knowledge": fragments[:EVIDENCE_SHOWN], "usage": usage}
    knowledge = []
    for statement, sources in statements[:EVIDENCE_SHOWN]:
        first = sources[0] if sources else Evidence(text="")
        gathered = Evidence(
            text=statement, url=first.url, title=first.title, source="gathered", query=first.query
        )
        # a fragment standing in for a statement it did not bear out is shown as it was found
        knowledge.append(first if statement == first.text else gathered)
    return {**update, "knowledge": knowledge, "usage": usage}
