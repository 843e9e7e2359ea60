"""The simulated model's rules for the claim court's agents (and its benchmark baselines).

A checker says ``supported`` when the evidence shown holds most of the claim's words, and
``not_enough_evidence`` otherwise; the debaters, moderators and corrector answer in kind.
"""

from __future__ import annotations

from typing import Any

from factcourt.providers.simulated import evidence_covers, labelled, tagged

SCHEMAS = {
    "JurorAnswer",
    "DebaterAnswer",
    "ModeratorAnswer",
    "ModeratorRoundPaper",
    "ModeratorFinalPaper",
    "Rating",
    "ClaimCot",
    "CoopInstruction",
    "Label",
    "ThreeLabel",
    "FireStep",
    "CorrectorAnswer",
    "SftJustification",
}


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """The rule-based answer to a prompt of the claim court that asks for ``schema``."""
    claim = tagged(prompt, "claim") or labelled(prompt, "Claim")
    evidence = tagged(prompt, "evidence") or labelled(prompt, "Evidence Set")
    covered = evidence_covers(claim, evidence)
    verdict = "supported" if covered else "not_enough_evidence"
    if schema == "JurorAnswer":
        return {
            "verdict": verdict,
            "confidence": 0.9 if covered else 0.5,
            "explanation": "The evidence [E1] states it." if covered else "No evidence.",
            "search_query": "" if covered else claim,
        }
    if schema == "DebaterAnswer":
        return {
            "argument": "Evidence [E1] bears on the claim.",
            "citations": [1] if evidence else [],
            "confidence": 0.9 if covered else 0.5,
            "search_query": "" if covered else claim,
        }
    if schema == "ModeratorAnswer":
        return {
            "summary": "Both sides cited the evidence.",
            "new_insights": False,
            "gaps": "",
            "stop": True,
            "verdict": verdict,
            "justification": "The evidence decides.",
        }
    if schema == "ModeratorRoundPaper":
        return {
            "primary_insight": "Both sides cited the evidence.",
            "evidence_gaps": "",
            "justification_for_proceeding": "",
            "proceeding_necessity": "No",
            "justification_for_verdict": "The evidence decides.",
            "verdict": verdict,
        }
    if schema == "ModeratorFinalPaper":
        return {"justification_for_verdict": "The evidence decides.", "verdict": verdict}
    if schema == "Rating":
        return {"explanation": "By the evidence.", "verdict": verdict}
    if schema == "ClaimCot":
        return {"reasoning": "Step by step, the evidence [E1] decides.", "verdict": verdict}
    if schema == "CoopInstruction":
        return {"instruction": "Compare the claim with [E1].", "task_done": "Assistant:" in prompt}
    if schema == "Label":
        return {"verdict": "supported" if covered else "refuted"}
    if schema == "ThreeLabel":
        return {"verdict": "supported" if covered else "not_enough_evidence"}
    if schema == "FireStep":
        return {
            "reasoning": "By the evidence.",
            "action": "answer" if covered else "search",
            "search_query": claim,
            "verdict": verdict,
            "confidence": 0.9 if covered else 0.5,
        }
    if schema == "CorrectorAnswer":
        return {"wrong": tagged(prompt, "sentence"), "right": ""}
    if schema == "SftJustification":
        return {"justification": "Weighing the cited evidence leads to the gold verdict."}
    raise ValueError(f"no rule of the claim court for {schema!r}")
