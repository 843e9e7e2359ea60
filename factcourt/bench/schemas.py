"""The structured answers only the benchmarks ask for: the baselines' and synth-sft's Corrector's.

No graph's state holds them, so no checkpoint does. The simulated model answers them by the
bench's own rules (``factcourt.bench.simulated``), which this module adds to the provider's, so
whoever asks for one of these has them and the providers name no benchmark.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from factcourt.bench import simulated
from factcourt.providers.simulated import add_rules
from factcourt.state.hallucination import HaluConclusion
from factcourt.state.records import REASONING_CHARS, AgentAnswer, Probability, Verdict, text


class FireStep(AgentAnswer):
    """One step of the FIRE baseline: answer now, or search again."""

    reasoning: str = text("what the evidence so far shows", REASONING_CHARS)
    action: Literal["answer", "search"]
    search_query: str = text("the next query, when searching", 120, default="")
    verdict: Verdict = Field(description="the best verdict now")
    confidence: Probability = Field(ge=0.0, le=1.0, description="probability the verdict is correct")


class ClaimCot(AgentAnswer):
    """A chain-of-thought verdict on a claim (DebateCV's CoT, Majority and Cooperation baselines)."""

    reasoning: str = text("step by step, citing evidence as [E1]", REASONING_CHARS)
    verdict: Verdict


class CoopInstruction(AgentAnswer):
    """The AI user's next instruction in a CAMEL cooperation."""

    instruction: str = text("one instruction for the assistant", 300)
    task_done: bool = Field(description="true when the assistant's last answer completes the task")


class SftJustification(AgentAnswer):
    """A justification leading from the debate to the given verdict."""

    justification: str = text("the justification", 600)


class HallucinationCheck(AgentAnswer):
    """One agent's step-by-step check of an answer (the CoT and MAD baselines)."""

    reasoning: str = text(
        "step by step: what is asked, what the answer claims, what the knowledge shows", REASONING_CHARS
    )
    conclusion: HaluConclusion


class MadrCritique(AgentAnswer):
    """A MADR critic's review of another agent's explanation (Kim et al. 2024)."""

    critique: str = text("the errors found in the explanation, or why it holds", REASONING_CHARS)
    faithful: bool = Field(description="true when the explanation and its conclusion hold")


add_rules(simulated)
