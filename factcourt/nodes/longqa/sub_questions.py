"""One sub-question per verified fact, and the seed's topic, in one call."""

from __future__ import annotations

from langgraph.runtime import Runtime

from factcourt.context import Context
from factcourt.nodes._shared import fence
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.state import FactSubQuestions, KnowledgeTriple, LongQAState

OTHER_TOPIC = "other"


def in_gathered_order(triples: list[KnowledgeTriple]) -> list[KnowledgeTriple]:
    """The triples in the order they were gathered (the verifier's branches finish in any order)."""
    return sorted(triples, key=lambda t: int(t.id.rsplit("-k", 1)[1]))


def kept_facts(triples: list[KnowledgeTriple]) -> list[KnowledgeTriple]:
    """The facts the verifier kept, in the order they were gathered."""
    return in_gathered_order([t for t in triples if t.outcome == "kept"])


def known_topic(answer: str, topics: list[str]) -> str:
    """The listed topic the model named (case and separators aside), else 'other'."""
    key = answer.strip().lower().replace(" ", "_").replace("-", "_")
    return next((t for t in topics if t.lower() == key), OTHER_TOPIC)


async def write_sub_questions(state: LongQAState, runtime: Runtime[Context]) -> dict:
    """Ask for the sub-questions; a fact the answer leaves without one is noted and left out."""
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
            state["language"],
            "LONGQA_SUBQ",
            question=fence(seed.question),
            facts="\n".join(f"{n}. {fence(t.knowledge.text)}" for n, t in enumerate(facts, 1)),
            topics=", ".join(ctx.longqa_topics),
        ),
        run_name="longqa: sub-questions",
        tags=["system:longqa"],
    )
    if answer.value is None:
        return {"usage": answer.usage, "error": f"the sub-questions could not be written: {answer.error}"}
    written = [q.strip() for q in answer.value.questions]
    questions = {t.id: q for t, q in zip(facts, written, strict=False) if q}
    notes = []
    if len(questions) < len(facts):
        notes.append(f"{len(facts) - len(questions)} verified fact(s) got no sub-question")
    update = {
        "sub_questions": questions,
        "topic": known_topic(answer.value.topic, ctx.longqa_topics),
        "usage": answer.usage,
        "notes": notes,
    }
    if not questions:
        update["error"] = "the answer held no sub-question"
    return update
