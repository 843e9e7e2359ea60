"""The knowledge gatherer, which the hallucination debate and the LongHalluQA builder both ask.

Question -> sub-questions and keywords -> searches -> concise knowledge statements, each with
the fragments it rests on; a statement its fragments do not state gives way to them.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata

from factcourt.context.base import BaseContext
from factcourt.nodes.helpers import clip, fence
from factcourt.prompts import conversation
from factcourt.prompts.agents import table
from factcourt.providers.models import Answer, ask
from factcourt.providers.search import STOP_WORDS, search
from factcourt.state.records import Evidence, KnowledgeStatements, SubQuestions, Usage

FRAGMENT_CHARS = 300


# whole numbers (1,000 and 4.5), Chinese runs and other words apart from each other (1889年, 由Steve)
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[\u4e00-\u9fff]+|[^\W\d_\u4e00-\u9fff]+")


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


async def decompose(ctx: BaseContext, question: str, language: str, system: str) -> Answer[SubQuestions]:
    """The gatherer's sub-questions and search keywords for ``question``."""
    return await ask(
        ctx,
        "gatherer",
        SubQuestions,
        conversation(table(language).DECOMPOSE, question=fence(question)),
        run_name="gather: decompose",
        tags=[f"system:{system}"],
    )


async def search_fragments(ctx: BaseContext, queries: list[str]) -> tuple[list[Evidence], Usage]:
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
    ctx: BaseContext, question: str, fragments: list[Evidence], language: str, system: str
) -> tuple[list[tuple[str, list[Evidence]]] | None, Usage]:
    """Concise knowledge statements from ``fragments``, each with the fragments it rests on.

    None when the call failed or kept nothing: the caller falls back to the fragments.
    """
    refined = await ask(
        ctx,
        "gatherer",
        KnowledgeStatements,
        conversation(
            table(language).KNOWLEDGE,
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
