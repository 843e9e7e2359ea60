"""The simulated model's rules for the benchmarks' own schemas (``factcourt.bench.schemas``).

They read a prompt as the claim court's and the hallucination debate's rules do; the schemas'
module adds them to the simulated model.
"""

from __future__ import annotations

from typing import Any

from factcourt.nodes.claims.simulated import reading
from factcourt.nodes.hallucination.simulated import judged

SCHEMAS = {
    "FireStep",
    "ClaimCot",
    "CoopInstruction",
    "SftJustification",
    "HallucinationCheck",
    "MadrCritique",
}


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """The rule-based answer to a baseline's (or the Corrector's) prompt that asks for ``schema``."""
    if schema in ("HallucinationCheck", "MadrCritique"):
        _, conclusion, said = judged(prompt)
        if schema == "MadrCritique":
            return {"critique": said, "faithful": True}
        return {"reasoning": said, "conclusion": conclusion}
    claim, _, covered = reading(prompt)
    verdict = "supported" if covered else "not_enough_evidence"
    if schema == "ClaimCot":
        return {"reasoning": "Step by step, the evidence [E1] decides.", "verdict": verdict}
    if schema == "CoopInstruction":
        return {"instruction": "Compare the claim with [E1].", "task_done": "Assistant:" in prompt}
    if schema == "FireStep":
        return {
            "reasoning": "By the evidence.",
            "action": "answer" if covered else "search",
            "search_query": claim,
            "verdict": verdict,
            "confidence": 0.9 if covered else 0.5,
        }
    if schema == "SftJustification":
        return {"justification": "Weighing the cited evidence leads to the gold verdict."}
    raise ValueError(f"no rule of the benchmarks for {schema!r}")
