"""The simulated model's rules for the claim court's agents.

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
    "Label",
    "ThreeLabel",
    "CorrectorAnswer",
}


def reading(prompt: str) -> tuple[str, str, bool]:
    """The claim and the evidence a prompt shows, and whether the evidence covers the claim."""
    claim = tagged(prompt, "claim") or labelled(prompt, "Claim")
    evidence = tagged(prompt, "evidence") or labelled(prompt, "Evidence Set")
    return claim, evidence, evidence_covers(claim, evidence)


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """The rule-based answer to a prompt of the claim court that asks for ``schema``."""
    claim, evidence, covered = reading(prompt)
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
    if schema == "Label":
        return {"verdict": "supported" if covered else "refuted"}
    if schema == "ThreeLabel":
        return {"verdict": "supported" if covered else "not_enough_evidence"}
    if schema == "CorrectorAnswer":
        return {"wrong": tagged(prompt, "sentence"), "right": ""}
    raise ValueError(f"no rule of the claim court for {schema!r}")
