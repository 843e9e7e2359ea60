"""Gather knowledge for a seed: its own source and best answers, then what search finds.

With a web backend the seed is searched as the paper did (the question verbatim, then the
gatherer's keywords and sub-questions); with ``local`` the question is searched in the corpus
when the corpus holds the seed's language; with ``given`` or ``none`` the seed's own knowledge is
all there is. The gatherer then writes concise, self-contained knowledge statements, each with
the fragments it rests on: the knowledge triples the verifier checks next.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.longqa import LongQAContext
from factcourt.errors import BackendError
from factcourt.nodes.agents.gatherer import (
    decompose,
    refine_knowledge,
    search_fragments,
    search_queries,
)
from factcourt.nodes.helpers import emit, language_for
from factcourt.nodes.longqa.cluster import topic_clusters
from factcourt.providers.search import LANGUAGE_NOT_COVERED, uncovered_language
from factcourt.state.longqa import KnowledgeTriple, LongQAState, Seed
from factcourt.state.records import Evidence, Usage

MAX_SEED_CHARS = 1000
# statements closer than this (cosine distance of their terms) say the same thing: one is kept
SAME_FACT_DISTANCE = 0.35


def seed_problem(seed: Seed) -> str | None:
    """Why a seed cannot be built on, or None."""
    if not seed.question.strip():
        return "the seed question is empty"
    if len(seed.question) > MAX_SEED_CHARS:
        return f"the seed question has {len(seed.question)} characters; the limit is {MAX_SEED_CHARS}"
    return None


def input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served run's input (its schema checked) cannot be built on, or None."""
    if "seed" not in payload:
        return "input 'seed' is missing: the seed question to build on"
    return seed_problem(Seed.model_validate(payload["seed"]))


def seed_fragments(seed: Seed) -> list[Evidence]:
    """The seed's best answers and its source (a URL names where the answers come from)."""
    url = seed.source if seed.source.startswith(("http://", "https://")) else ""
    texts = [*seed.answers, *([seed.source] if seed.source.strip() and not url else [])]
    seen: set[str] = set()
    fragments = []
    for text in texts:
        key = " ".join(text.split())
        if key and key not in seen:
            seen.add(key)
            fragments.append(Evidence(text=text.strip(), url=url, title="seed", source="seed"))
    return fragments


def distinct(statements: list[tuple[str, list[Evidence]]]) -> list[tuple[str, list[Evidence]]]:
    """One statement of each group that says the same thing (the first)."""
    groups = topic_clusters([s for s, _ in statements], SAME_FACT_DISTANCE)
    return [statements[group[0]] for group in groups]


async def web_queries(
    ctx: LongQAContext, question: str, language: str
) -> tuple[list[str], Usage, str | None]:
    """The question verbatim, then the gatherer's keywords and sub-questions (semantic expansion)."""
    decomposed = await decompose(ctx, question, language, "longqa")
    note = None
    if decomposed.value is None:
        note = f"the search plan failed, so only the question was searched: {decomposed.error}"
    return search_queries(question, decomposed.value), decomposed.usage, note


async def gather_knowledge(state: LongQAState, runtime: Runtime[LongQAContext]) -> dict[str, Any]:
    """Knowledge triples for the seed, from its own knowledge and search."""
    ctx = runtime.context
    seed = Seed.model_validate(state["seed"])  # Studio and the HTTP API send it as a JSON object
    language = state.get("language") or language_for(ctx.language, seed.question)
    start: dict[str, Any] = {"seed": seed, "language": language}
    if problem := seed_problem(seed):
        return {**start, "error": problem}
    usage, notes, queries = Usage(), list[str](), list[str]()
    fragments = seed_fragments(seed)
    if ctx.search in ("tavily", "serper"):
        queries, planning, note = await web_queries(ctx, seed.question, language)
        usage += planning
        notes += [note] if note else []
    elif ctx.search == "local":
        if missing := uncovered_language(ctx, seed.question):
            notes.append(f"{LANGUAGE_NOT_COVERED}: it holds no '{missing}' text; seed knowledge only")
        else:
            queries = [seed.question]
    try:
        found, searched = await search_fragments(ctx, queries)
    except BackendError as exc:
        return {**start, "usage": usage, "queries": queries, "notes": notes, "error": str(exc)}
    fragments += found
    usage += searched
    emit("gathered", seed_id=seed.id, fragments=len(fragments))
    update = {**start, "queries": queries, "notes": notes}
    if not fragments:
        return {**update, "usage": usage, "error": "no knowledge found: the seed has no answers or source"}
    statements, refining = await refine_knowledge(ctx, seed.question, fragments, language, "longqa")
    usage += refining
    if statements is None:
        notes.append("the knowledge statements could not be written: the fragments are verified as they are")
        statements = [(f.text, [f]) for f in fragments]
    statements = distinct(statements)[: ctx.longqa_max_facts]
    triples = [
        KnowledgeTriple(
            id=f"{seed.id}-k{n}",
            question=seed.question,
            knowledge=Evidence(text=text, url=(sources or [Evidence(text="")])[0].url, source="gathered"),
            sources=sources or fragments,
            category=seed.category,
        )
        for n, (text, sources) in enumerate(statements, 1)
    ]
    return {**update, "gathered": triples, "usage": usage}
