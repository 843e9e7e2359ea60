"""One sub-question per verified fact, and the seed's topic, in one call."""

from __future__ import annotations

import difflib
import re
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.longqa import LongQAContext
from factcourt.nodes.helpers import fence
from factcourt.prompts import conversation
from factcourt.prompts.longqa import table
from factcourt.providers.models import ask
from factcourt.state.longqa import FactSubQuestions, KnowledgeTriple, LongQAState

OTHER_TOPIC = "other"


def in_gathered_order(triples: list[KnowledgeTriple]) -> list[KnowledgeTriple]:
    """The triples in the order they were gathered (the verifier's branches finish in any order)."""
    return sorted(triples, key=lambda t: int(t.id.rsplit("-k", 1)[1]))


def kept_facts(triples: list[KnowledgeTriple]) -> list[KnowledgeTriple]:
    """The facts the verifier kept, in the order they were gathered."""
    return in_gathered_order([t for t in triples if t.outcome == "kept"])


# a written question this close to the seed is the seed again: the model changed a character
# (文言文中的哪个词语 -> 文言文中哪个词语) and added nothing
SAME_AS_SEED = 0.9


def restates(question: str, seed: str) -> bool:
    """Whether a written question is the seed again, punctuation, spacing, case and a few characters aside."""
    a, b = _bare(question), _bare(seed)
    return a == b or difflib.SequenceMatcher(None, a, b).ratio() >= SAME_AS_SEED


def _bare(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def known_topic(answer: str, topics: list[str]) -> str:
    """The listed topic the model named (case and separators aside), else 'other'."""
    key = answer.strip().lower().replace(" ", "_").replace("-", "_")
    return next((t for t in topics if t.lower() == key), OTHER_TOPIC)


async def write_sub_questions(state: LongQAState, runtime: Runtime[LongQAContext]) -> dict[str, Any]:
    """Ask for the sub-questions; a fact left without one, or with the seed again, is noted and left out."""
    ctx, seed = runtime.context, state["seed"]
    facts = kept_facts(state.get("triples", []))
    if not facts:
        # a verifier that failed is not a verifier that found nothing: the seed failed, and the
        # next run of the same command tries it again
        failed = [t for t in state.get("triples", []) if t.outcome == "failed"]
        return {"error": f"verifying a fact failed: {failed[0].reason}"} if failed else {}
    answer = await ask(
        ctx,
        "gatherer",
        FactSubQuestions,
        conversation(
            table(state["language"]).SUBQ,
            question=fence(seed.question),
            facts="\n".join(f"{n}. {fence(t.knowledge.text)}" for n, t in enumerate(facts, 1)),
            topics=", ".join(ctx.longqa_topics),
        ),
        run_name="longqa: sub-questions",
        tags=["system:longqa"],
    )
    if answer.value is None:
        return {"usage": answer.usage, "error": f"the sub-questions could not be written: {answer.error}"}
    questions: dict[str, str] = {}
    restated = 0
    for written in answer.value.questions:
        text = written.question.strip()
        if not 1 <= written.fact <= len(facts) or not text or facts[written.fact - 1].id in questions:
            continue
        if restates(text, seed.question):
            restated += 1  # the seed asks it already: nothing for the long-form question to add
            continue
        questions[facts[written.fact - 1].id] = text
    notes = []
    if restated:
        notes.append(f"{restated} sub-question(s) asked the seed question again and were left out")
    if len(questions) < len(facts):
        notes.append(f"{len(facts) - len(questions)} verified fact(s) got no sub-question")
    update = {
        "sub_questions": questions,
        "topic": known_topic(answer.value.topic, ctx.longqa_topics),
        "usage": answer.usage,
        "notes": notes,
    }
    if not questions and restated:
        update["not_built"] = "every sub-question was the seed question again"
    elif not questions:
        update["error"] = "the answer held no sub-question"
    return update
