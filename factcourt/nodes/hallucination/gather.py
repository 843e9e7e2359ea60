"""The information-gathering agent: question -> sub-questions and keywords -> searches -> knowledge.

With search 'given' the knowledge that came with the input is used as it is; with 'none' there
is none (the paper's "w/o EK" ablation). A search backend that fails fails the item: a debate
without the evidence it was meant to have must not pass for "no hallucination".
"""

from __future__ import annotations

import asyncio
import re
import unicodedata

from langgraph.runtime import Runtime

from factcourt.context.hallucination import HallucinationContext
from factcourt.errors import BackendError
from factcourt.nodes._shared import EVIDENCE_SHOWN, emit, fence, language_for
from factcourt.nodes.hallucination.protocol import clip
from factcourt.prompts import conversation
from factcourt.providers.models import Answer, ask
from factcourt.providers.search import STOP_WORDS, search
from factcourt.state import Evidence, HallucinationState, KnowledgeStatements, SubQuestions, Usage

MAX_ITEM_CHARS = 4000
FRAGMENT_CHARS = 300
NOTE_CHARS = 120
# whole numbers (1,000 and 4.5), Chinese runs and other words apart from each other (1889年, 由Steve)
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[\u4e00-\u9fff]+|[^\W\d_\u4e00-\u9fff]+")


def item_problem(question: str, answer: str) -> str | None:
    """Why a question-answer pair cannot be checked, or None."""
    for name, value in (("question", question), ("answer", answer)):
        if not value.strip():
            return f"the {name} is empty"
        if len(value) > MAX_ITEM_CHARS:
            return f"the {name} has {len(value)} characters; the limit is {MAX_ITEM_CHARS}"
    return None


def search_queries(question: str, decomposition: SubQuestions | None) -> list[str]:
    """The question, the keywords together, then each sub-question; no query twice."""
    queries = [question]
    if decomposition is not None:
        queries += [" ".join(k.strip() for k in decomposition.keywords[:5] if k.strip())]
        queries += [q.strip() for q in decomposition.sub_questions[:3]]
    seen: set[str] = set()
    unique = []
    for query in queries:
        key = " ".join(query.lower().split())
        if key and key not in seen:
            seen.add(key)
            unique.append(query)
    return unique


async def gather(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> dict:
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


async def decompose(
    ctx: HallucinationContext, question: str, language: str, system: str
) -> Answer[SubQuestions]:
    """The gatherer's sub-questions and search keywords for ``question``."""
    return await ask(
        ctx,
        "gatherer",
        SubQuestions,
        conversation(language, "HALU_DECOMPOSE", question=fence(question)),
        run_name="gather: decompose",
        tags=[f"system:{system}"],
    )


async def search_fragments(ctx: HallucinationContext, queries: list[str]) -> tuple[list[Evidence], Usage]:
    """What the searches for ``queries`` return, without repeats; a backend failure raises BackendError."""
    fragments: list[Evidence] = []
    usage = Usage()
    for query in queries:
        found, real_call = await asyncio.to_thread(search, ctx, query)
        usage += Usage.search_call() if real_call else Usage()
        known = {(e.url, e.text) for e in fragments}
        fragments += [e for e in found if (e.url, e.text) not in known]
    return fragments, usage


async def refine_knowledge(
    ctx: HallucinationContext, question: str, fragments: list[Evidence], language: str, system: str
) -> tuple[list[tuple[str, list[Evidence]]] | None, Usage]:
    """Concise knowledge statements from ``fragments``, each with the fragments it rests on.

    None when the call failed or kept nothing: the caller falls back to the fragments.
    """
    refined = await ask(
        ctx,
        "gatherer",
        KnowledgeStatements,
        conversation(
            language,
            "HALU_KNOWLEDGE",
            question=fence(question),
            fragments="\n".join(
                f"[{i}] {fence(e.title)}: {fence(clip(e.text, FRAGMENT_CHARS))}"
                for i, e in enumerate(fragments, 1)
            ),
        ),
        run_name="gather: knowledge",
        tags=[f"system:{system}"],
    )
    if refined.value is None or not refined.value.statements:
        return None, refined.usage
    statements = [
        (item.statement, [fragments[n - 1] for n in item.sources if 1 <= n <= len(fragments)])
        for item in refined.value.statements
        if item.statement.strip()
    ]
    return statements or None, refined.usage


def stated_by(statement: str, sources: list[Evidence]) -> bool:
    """Whether every name and number of ``statement`` occurs in ``sources`` (titles included).

    Names (capitalised words) and numbers carry what a statement can get wrong; the rest may be
    paraphrase. Case, accents, thousands separators and stop words do not count. A capitalised
    common word ("Both", "However") counts too: such a statement gives way to its fragments.
    """
    facts = {_plain(w) for w in _WORD.findall(statement) if w[0].isupper() or w[0].isdigit()} - STOP_WORDS
    found = {_plain(w) for e in sources for w in _WORD.findall(f"{e.title} {e.text}")}
    return facts <= found


def _plain(word: str) -> str:
    """``word`` case-folded, without accents or thousands separators (Zürich, 1,000 -> zurich, 1000)."""
    decomposed = unicodedata.normalize("NFKD", word)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return re.sub(r",(?=\d{3}\b)", "", bare)


def grounded_statements(
    statements: list[tuple[str, list[Evidence]]], fragments: list[Evidence]
) -> tuple[list[tuple[str, list[Evidence]]], list[str]]:
    """The statements their fragments state (the fragments in place of the rest), and the rest.

    The embedded gatherer writes, despite its prompt, statements that answer the question from
    memory and cite an unrelated fragment ("the boy of Gary Paulsen's Hatchet is Peter Pan",
    citing Peter Pan's page); the debate would take them as retrieved knowledge. A statement
    citing nothing must be stated by one fragment, or it goes. Stand-ins come after the stated
    statements, so they do not crowd them out of the knowledge shown; no text comes twice.
    """
    kept: list[tuple[str, list[Evidence]]] = []
    stand_ins: list[tuple[str, list[Evidence]]] = []
    unstated = []
    for statement, sources in statements:
        checked_against = [sources] if sources else [[f] for f in fragments]
        if any(stated_by(statement, group) for group in checked_against):
            kept.append((statement, sources))
        else:
            unstated.append(statement)
            stand_ins += [(f.text, [f]) for f in sources]
    distinct, shown = [], set()
    for text, sources in kept + stand_ins:
        if text not in shown:
            shown.add(text)
            distinct.append((text, sources))
    return distinct, unstated
