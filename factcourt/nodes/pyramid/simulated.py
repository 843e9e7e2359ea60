"""The simulated model's rules for the importance pyramid: an expert's answer, the same-fact matcher."""

from __future__ import annotations

import re
from typing import Any

from factcourt.providers.simulated import evidence_covers, labelled, tagged

SCHEMAS = {"LongAnswer", "SameFact"}


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """An expert's one-sentence answer; the candidate that says the same as the claim, word for word."""
    if schema == "LongAnswer":
        return {"answer": f"{tagged(prompt, 'question')} is a well-documented subject."}
    claim = tagged(prompt, "claim") or labelled(prompt, "Claim")
    if schema == "SameFact":
        listed = re.findall(r"^(\d+)\. (.*)$", tagged(prompt, "candidates"), flags=re.M)
        same = [
            int(n)
            for n, text in listed
            if evidence_covers(claim, text, 0.9) and evidence_covers(text, claim, 0.9)
        ]
        return {"reasoning": "By their words.", "match": same[0] if same else 0}
    raise ValueError(f"no rule of the pyramid for {schema!r}")
