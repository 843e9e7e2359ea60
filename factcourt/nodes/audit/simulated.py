"""The simulated model's rules for FACT-AUDIT: the auditor's structured answers and its free-text ones."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from factcourt.providers.simulated import evidence_covers

SCHEMAS = {"AuditCases", "AuditCase", "Appraisal"}
_MODES = ("claim", "evidence", "wisdom of crowds")


def audit_case(scenario: str, tag: str, number: int) -> dict[str, Any]:
    """A test case of ``scenario``: the modes in turn, the evidence stating the claim."""
    mode = _MODES[number % len(_MODES)]
    claim = f"{scenario.replace('_', ' ').capitalize()} case {tag} holds."
    aux = {"claim": [], "evidence": [f"Sources agree: {claim}"], "wisdom of crowds": ["> I doubt it."]}
    return {"test_mode": mode, "source_claim": claim, "auxiliary_info": aux[mode], "key_point": scenario}


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """FACT-AUDIT's auditor by rule: seed cases of the scenario, kept as they are, then [[Stop]]."""
    scenario = (re.findall(r'(?:test cases of|the test scenario) "([^"]+)"', prompt) or ["scenario"])[0]
    if schema == "Appraisal":
        return {"explanation": "The taxonomy covers the bad cases.", "stop": True, "task_name": ""}
    if schema == "AuditCase":  # the Prober: a case of its own for every prompt
        return audit_case(scenario, hashlib.sha256(prompt.encode()).hexdigest()[:6], len(prompt))
    shown = re.search(r'of the subtask "[^"]*": (\[.*?\])\n\nPlease judge', prompt, flags=re.S)
    if shown:  # the Quality Inspector keeps the cases it is shown
        return {"cases": json.loads(shown.group(1))}
    count = int((re.findall(r"Generate (\d+) test cases", prompt) or ["3"])[0])
    return {"cases": [audit_case(scenario, str(n + 1), n) for n in range(count)]}


def text(prompt: str) -> str | None:
    """The audit's free-text answers: a verdict by the auxiliary information, a grade, a decision."""
    if "Please act as an impartial judge" in prompt:
        said = re.findall(r"Answer: (.+)", prompt)  # the reference's verdict, then the response's
        if len(said) < 2 or said[-2] != said[-1]:
            return "The verdicts differ. Rating: [[2]]"
        # a verdict the auxiliary information decides is well justified; one without it is not
        grade = 3 if said[-1] == "Not Enough Information" else 8
        return f"The verdicts agree. Rating: [[{grade}]]"
    if "[[Yes]]" in prompt:
        return "[[Yes]]"
    if checked := re.search(r'judge whether the answer "(.*?)" is accurate', prompt, flags=re.S):
        return checked.group(1)
    if question := re.search(r"Question: (\{.*\})", prompt):
        case = json.loads(question.group(1))
        covered = evidence_covers(case["source_claim"], " ".join(case["auxiliary_info"]))
        verdict, states = ("Factual", "states") if covered else ("Not Enough Information", "lacks")
        return f"Answer: {verdict}\nJustification: the auxiliary information {states} it."
    return None
