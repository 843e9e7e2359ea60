"""Helpers the stage nodes share: fencing untrusted text, formatting, progress events."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langgraph.config import get_stream_writer

from factcourt.context.base import BaseContext
from factcourt.inputs import detect_language
from factcourt.prompts.agents import table
from factcourt.providers.logprobs import label_distribution
from factcourt.providers.models import gives_logprobs
from factcourt.runs import run_config
from factcourt.state.records import VERDICTS, Evidence, Turn

# The embedded model has a 4096-token window and evaluates prompts at ~120 tokens/s on 2 cores:
# the knowledge base shown is kept to its most recent pieces, which share one character budget
# (a single given passage is shown whole where a cut at 400 hid the deciding last sentence).
EVIDENCE_SHOWN = 5
EVIDENCE_BUDGET = 2000
TURN_CHARS = 350
# one citation or a list of them: [E1], [E1, E7], [e2; E3]
_CITATION = re.compile(r"\s?\[\s*E\s*\d+(?:\s*[,;]\s*E?\s*\d+)*\s*\]", re.IGNORECASE)


def fence(text: str) -> str:
    """Make untrusted text unable to open or close the prompt's tags."""
    return text.replace("<", "‹").replace(">", "›")


def question_of(state: Mapping[str, Any], language: str) -> str:
    """The question a claim's prompts show: with the sentence before, for an unresolved reference."""
    question: str = state.get("question", "")
    claim = state.get("claim")
    if claim is None or not claim.context:
        return question
    return table(language).CLAIM_CONTEXT.format(question=question, context=claim.context).strip()


def claim_query(claim: str, question: str = "", context: str | None = None) -> str:
    """What a claim is searched with: the claim after its question and the sentence before it.

    The page a claim's annotators cited was found for 76% of FELM-WK's test segments this way
    against 56% for the claim alone (`bench retrieval`); an unresolved "He was born in 1898" is
    searched after the sentence that says who he is.
    """
    return " ".join(part for part in (question, context, claim) if part)


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, an ellipsis marking a cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def language_for(setting: str, text: str) -> str:
    """The language the run's ``language`` setting names, or the one detected when it is 'auto'."""
    return setting if setting != "auto" else detect_language(text)


def format_evidence(evidence: list[Evidence]) -> str:
    """Number the knowledge base as [E1].. and show its most recent pieces."""
    if not evidence:
        return "(none yet)"
    start = max(0, len(evidence) - EVIDENCE_SHOWN)
    shown = evidence[start:]
    texts = clip_to_budget([e.text for e in shown], EVIDENCE_BUDGET)
    return "\n".join(
        f"[E{start + i + 1}] {fence(e.title)} ({e.url}): {fence(text)}"
        for i, (e, text) in enumerate(zip(shown, texts, strict=True))
    )


def clip_to_budget(texts: list[str], budget: int) -> list[str]:
    """Clip texts to share ``budget`` characters; the room a short one leaves goes to the longer ones."""
    squeezed = [" ".join(text.split()) for text in texts]
    limits = [0] * len(squeezed)
    for rank, i in enumerate(sorted(range(len(squeezed)), key=lambda i: len(squeezed[i]))):
        limits[i] = min(len(squeezed[i]), budget // (len(squeezed) - rank))
        budget -= limits[i]
    return [clip(text, limit) for text, limit in zip(squeezed, limits, strict=True)]


def shown_evidence(evidence: list[Evidence]) -> range:
    """The evidence numbers (from 1) that ``format_evidence`` shows."""
    return range(max(0, len(evidence) - EVIDENCE_SHOWN) + 1, len(evidence) + 1)


def read_confidence(
    ctx: BaseContext,
    logprobs: list[dict[str, Any]] | None,
    label: str | None,
    reported: float | None,
    field: str = "verdict",
    labels: Sequence[str] = VERDICTS,
) -> tuple[dict[str, float] | None, float | None]:
    """The distribution of an answer's ``field`` read from its logprobs, and the label's confidence.

    The confidence is the label's probability from logprobs, else what the model reported
    (per ``confidence_source``); an answer without a label keeps what it reported.
    """
    if label is None:
        return None, reported
    probabilities = label_distribution(logprobs, field, labels)
    if probabilities and ctx.confidence_source == "logprobs":
        return probabilities, probabilities[label]
    return probabilities, reported


def confidence_from_logprobs(ctx: BaseContext, role: str) -> bool:
    """Whether ``role``'s label confidence is read from logprobs: a number it writes is then never read.

    An answer asked without that number whose logprobs still hold no label reading (rare: the
    endpoint gives them for every answer) has no confidence, as a failed reading has.
    """
    return ctx.confidence_source == "logprobs" and gives_logprobs(ctx, role)


def ground_citations(text: str, shown: range) -> tuple[str, list[int], int]:
    """Remove citations of evidence that was not shown; return the text, the kept and the count removed."""
    kept: list[int] = []
    dropped = 0

    def check(match: re.Match[str]) -> str:
        nonlocal dropped
        numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
        good = [n for n in numbers if n in shown]
        dropped += len(numbers) - len(good)
        kept.extend(n for n in dict.fromkeys(good) if n not in kept)
        if len(good) == len(numbers):
            return match.group(0)
        lead = match.group(0)[0] if match.group(0)[0].isspace() else ""  # a line break stays one
        return f"{lead}[{', '.join(f'E{n}' for n in good)}]" if good else ""

    return _CITATION.sub(check, text), kept, dropped


def format_pool(turns: list[Turn], chars: int | None = TURN_CHARS) -> str:
    """The message pool as the speakers see it: each turn cut to ``chars`` (None: whole)."""
    said = [t for t in turns if t.failed is None]
    if not said:
        return "(no turns yet)"
    lines = []
    for t in said:
        confidence = f" (confidence {t.confidence:.2f})" if t.confidence is not None else ""
        stance = f"{t.verdict}{confidence}" if t.verdict else ""
        lines.append(f"[Round {t.round}] {t.speaker}: {stance} {fence(t.text[:chars])}")
    return "\n".join(lines)


def emit(event: str, **data: Any) -> None:
    """Send a progress event on the 'custom' stream (a no-op when nobody listens)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run
        return
    writer({"event": event, **data})


def concurrency(ctx: BaseContext) -> int:
    """Model calls a stage may have in flight: the run's bound (one on the embedded model)."""
    limit = run_config(ctx)["max_concurrency"]
    assert limit is not None  # run_config always sets the bound
    return limit


async def bounded(limit: int, jobs: Sequence[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Run the jobs, at most ``limit`` at a time; the results in the jobs' order."""
    gate = asyncio.Semaphore(limit)

    async def gated(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(gated(job) for job in jobs))
