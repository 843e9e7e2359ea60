"""The golden set: equivalent claims of the experts merged, each in layer G - f + 1 (MAD-Fact Eq. 16)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.pyramid import PyramidContext
from factcourt.metrics.response import layer_weight, pyramid_layer
from factcourt.nodes.helpers import emit, language_for
from factcourt.nodes.pyramid.match import embedding, proposals, same_fact
from factcourt.providers.embeddings import similarities
from factcourt.state.pyramid import GoldenClaim, Pyramid, PyramidState
from factcourt.state.records import Usage


async def merge_claims(
    ctx: PyramidContext, language: str, stated: list[tuple[str, str]]
) -> tuple[list[tuple[str, list[str], list[str]]], Usage, list[str]]:
    """Merge (expert, claim) pairs into facts: (text, experts that state it, its member claims).

    Claims are taken in order; each joins the earlier fact the matcher confirms among those
    whose first claim is most similar to it, else starts a fact of its own. A failed
    confirmation keeps the claim apart and leaves a note.
    """
    texts = [text for _, text in stated]
    table = await similarities(texts, texts, embedding(ctx))
    facts: list[tuple[int, list[str], list[str]]] = []  # first claim's index, experts, members
    usage, notes = Usage(), []
    for i, (expert, text) in enumerate(stated):
        proposed = proposals(
            table[i], ctx.similarity_threshold, ctx.same_fact_candidates, among=[f[0] for f in facts]
        )
        position = None
        if proposed:
            position, spent, error = await same_fact(ctx, language, text, [texts[j] for j in proposed])
            usage += spent
            notes += [error] if error else []
        if position is None:
            facts.append((i, [expert], [text]))
            continue
        _, experts, members = next(f for f in facts if f[0] == proposed[position])
        members.append(text)
        if expert not in experts:
            experts.append(expert)
    return [(texts[first], experts, members) for first, experts, members in facts], usage, notes


async def merge(state: PyramidState, runtime: Runtime[PyramidContext]) -> dict[str, Any]:
    """Build the pyramid from the experts that gave claims; the others are named with the reason."""
    ctx = runtime.context
    answers = {a.model: a for a in state.get("expert_answers", [])}
    claims = {c.expert: c for c in state.get("expert_claims", [])}
    failed = {}
    for expert in ctx.experts:
        answer = answers.get(expert)
        error = answer.error if answer else "no answer"
        if not error and expert in claims:
            error = claims[expert].error
        if error:
            failed[expert] = error
    answered = [e for e in ctx.experts if e not in failed]
    language = state.get("language") or language_for(ctx.language, state["question"])
    stated = [(expert, text) for expert in answered for text in claims[expert].split.texts]
    facts, usage, notes = await merge_claims(ctx, language, stated)
    golden = []
    for i, (text, experts, members) in enumerate(facts):
        layer = pyramid_layer(len(experts), len(answered))
        golden.append(
            GoldenClaim(
                id=f"g{i + 1}",
                text=text,
                experts=experts,
                members=members,
                layer=layer,
                weight=layer_weight(layer, len(answered)),
            )
        )
    emit("pyramid", golden=len(golden), experts=len(answered))
    spent = (state.get("usage") or Usage()) + usage
    pyramid = Pyramid(
        question=state["question"],
        language=language,
        experts=list(ctx.experts),
        answered=answered,
        failed=failed,
        claims=golden,
        notes=notes,
        # a check of the same answer takes a whole split; one with a failed part is made again there
        splits={e: claims[e].split for e in answered if claims[e].split.whole},
        usage=spent,
    )
    return {"pyramid": pyramid, "usage": usage}
