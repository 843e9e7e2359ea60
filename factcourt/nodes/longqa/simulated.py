"""The simulated model's rules for the long-form question builder."""

from __future__ import annotations

import re
from typing import Any

from factcourt.providers.simulated import WORD, tagged

SCHEMAS = {"FactSubQuestions", "FusedQuestion"}


def _chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """The long-form question builder by rule: a question per fact, then the seed and them joined.

    Each sub-question asks about its fact (so it is never the seed again); the topic is the first
    listed one the seed names, else 'other'; the fused question keeps the seed word for word and
    adds the first candidates' questions.
    """
    question = tagged(prompt, "question")
    if schema == "FactSubQuestions":
        facts = re.findall(r"^(\d+)\. (.+)$", tagged(prompt, "facts"), flags=re.M)
        listed = re.findall(r"^(?:Topics:|主题：)\s*(.+)$", prompt, flags=re.M)
        topics = [t.strip() for t in listed[-1].split(",")] if listed else []
        words = {w.lower() for w in WORD.findall(question)}
        topic = next((t for t in topics if t and (t.lower() in words or t in question)), "other")
        ask = "关于“{}”，还有哪些细节？" if _chinese(question) else "What more is known about this: {}?"
        return {
            "questions": [{"fact": int(n), "question": ask.format(fact.strip())} for n, fact in facts[:12]],
            "topic": topic,
        }
    candidates = re.findall(r"^(\d+)\. (.+)$", tagged(prompt, "candidates"), flags=re.M)[:3]
    asked = [q.strip() for _, group in candidates for q in group.split(" / ") if q.strip()]
    return {
        "selected": [int(n) for n, _ in candidates],
        "reason": "The first candidates, in order.",
        "question": " ".join([question, *asked]),
    }
