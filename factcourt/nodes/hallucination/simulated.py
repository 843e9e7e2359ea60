"""The simulated model's rules for the hallucination debate."""

from __future__ import annotations

import re
from typing import Any

from factcourt.providers.simulated import WORD, evidence_covers, tagged

SCHEMAS = {
    "SubQuestions",
    "KnowledgeStatements",
    "PerspectiveAnswer",
    "ComprehensiveAnswer",
    "TeamAnswer",
    "JudgeAnswer",
    "JudgeQualityAnswer",
    "RefinerAnswer",
}


def judged(prompt: str) -> tuple[bool, str, str]:
    """Whether the knowledge a prompt shows covers its answer, the conclusion that follows, and why."""
    sound = evidence_covers(tagged(prompt, "answer"), tagged(prompt, "knowledge"))
    said = "The knowledge [E1] states the answer." if sound else "The knowledge does not state the answer."
    return sound, "no_hallucination" if sound else "hallucination", said


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """The hallucination debate by rule: the answer is sound when the knowledge covers it."""
    question, answer = tagged(prompt, "question"), tagged(prompt, "answer")
    sound, conclusion, said = judged(prompt)
    if schema == "SubQuestions":
        return {"sub_questions": [question], "keywords": WORD.findall(question)[:5]}
    if schema == "KnowledgeStatements":
        fragments = re.findall(r"^\[(\d+)\] [^:]*: (.*)$", tagged(prompt, "knowledge"), flags=re.M)
        return {"statements": [{"statement": text, "sources": [int(n)]} for n, text in fragments[:5]]}
    if schema == "PerspectiveAnswer":
        return {"analysis": said, "conclusion": conclusion}
    if schema in ("ComprehensiveAnswer", "TeamAnswer"):
        team = (
            {"logic": said, "consistency": said, "factual": said}
            if schema == "TeamAnswer"
            else {"analysis": said}
        )
        return {**team, "false_premise": False, "summary": said, "conclusion": conclusion}
    if schema in ("JudgeAnswer", "JudgeQualityAnswer"):
        # teams that agree: little dispute, or (the paper's scores) a debate of good quality
        scored, score = ("dispute", 0.1) if schema == "JudgeAnswer" else ("quality", 0.9)
        scores = {f"{dimension}_{scored}": score for dimension in ("logic", "fact", "coherence", "overall")}
        return {
            "reasoning": said,
            **scores,
            "consensus": True,
            "winner": "pro" if sound else "con",
            "confidence": 0.9,
            "feedback": "",
        }
    findings = [] if sound else [{"type": "factual", "probability": 0.8, "span": answer, "evidence": said}]
    return {"explanation": said, "findings": findings}
