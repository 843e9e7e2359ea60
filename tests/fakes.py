"""Scripted chat models for unit tests: no network, no server."""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from factcourt.providers.simulated import rule_answer


class Cut(str):
    """A reply that stopped at max_tokens, returned as it is (function calling raises nothing)."""


Answer = dict | str | Cut | Exception | Callable[[str], Any]


def cut_at_max_tokens(said: str, prompt_tokens: int, completion_tokens: int) -> Exception:
    """What the OpenAI client raises for an answer that stopped at max_tokens (it keeps the usage)."""
    from openai import LengthFinishReasonError
    from openai.types.chat import ChatCompletion

    message = {"role": "assistant", "content": said}
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "length", "message": message}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return LengthFinishReasonError(completion=ChatCompletion.model_validate(completion))


class ScriptedModel(BaseChatModel):
    """Answers each structured request from a script keyed by schema name ("text": free text).

    A script entry is a list consumed in order (the last item repeats) of: a dict (the tool
    arguments), a str (plain text, which does not parse), an Exception (raised, as a timeout
    would be) or a callable of the prompt returning one of those. Schemas with no entry are
    answered by the simulated model's rules. Every call is recorded in ``calls``.
    """

    script: dict[str, list[Answer]] = Field(default_factory=dict)
    calls: list[tuple[str, str]] = Field(default_factory=list)
    sent: list[tuple[str, list]] = Field(default_factory=list)  # the messages of each call

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def count(self, schema: str) -> int:
        return sum(1 for name, _ in self.calls if name == schema)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        # a free-text request (no schema bound) is answered from the script's "text" entry
        name = kwargs["tools"][0]["function"]["name"] if kwargs.get("tools") else "text"
        prompt = str(messages[-1].content)
        index = self.count(name)
        self.calls.append((name, "\n".join(str(m.content) for m in messages)))
        self.sent.append((name, list(messages)))
        entries = self.script.get(name)
        answer: Any = entries[min(index, len(entries) - 1)] if entries else rule_answer(name, prompt)
        if callable(answer) and not isinstance(answer, dict):
            answer = answer(prompt)
        if isinstance(answer, Exception):
            raise answer
        # 4 of the 10 prompt tokens served from the server's prompt cache, as llama.cpp reports it
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_token_details": {"cache_read": 4},
        }
        metadata = {}
        if isinstance(answer, dict) and LOGPROBS in answer:
            answer = dict(answer)
            metadata = {"logprobs": {"content": verdict_tokens(answer, answer.pop(LOGPROBS))}}
        if isinstance(answer, Cut):
            message = AIMessage(
                content=str(answer), usage_metadata=usage, response_metadata={"finish_reason": "length"}
            )
        elif isinstance(answer, str):
            message = AIMessage(content=answer, usage_metadata=usage)
        else:
            message = AIMessage(
                content="",
                usage_metadata=usage,
                response_metadata=metadata,
                tool_calls=[
                    {"name": name, "args": answer, "id": f"call_{len(self.calls)}", "type": "tool_call"}
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


LOGPROBS = "__logprobs__"


def with_logprobs(answer: dict, distribution: dict[str, float]) -> dict:
    """The answer, served with token logprobs giving ``distribution`` at its verdict's first token."""
    return {**answer, LOGPROBS: distribution}


def verdict_tokens(answer: dict, distribution: dict[str, float]) -> list[dict]:
    """Tokens of the answer as JSON: one per field, the verdict's carrying the alternatives."""
    tokens = []
    for key, value in answer.items():
        tokens.append({"token": f'"{key}":"', "logprob": 0.0, "top_logprobs": []})
        alternatives = [
            {"token": label, "logprob": math.log(p)} for label, p in distribution.items() if p > 0
        ]
        tokens.append(
            {"token": str(value), "logprob": 0.0, "top_logprobs": alternatives if key == "verdict" else []}
        )
        tokens.append({"token": '",', "logprob": 0.0, "top_logprobs": []})
    return tokens


def rating(verdict: str, explanation: str = "Per the evidence.") -> dict:
    return {"explanation": explanation, "verdict": verdict}


def juror(verdict: str, confidence: float = 0.9, query: str = "") -> dict:
    return {
        "explanation": f"I say {verdict}.",
        "verdict": verdict,
        "confidence": confidence,
        "search_query": query,
    }


def moderator(verdict: str, stop: bool, new_insights: bool = False) -> dict:
    return {
        "summary": "round summary",
        "new_insights": new_insights,
        "gaps": "",
        "stop": stop,
        "justification": f"The debate shows {verdict}.",
        "verdict": verdict,
    }


def debater(confidence: float = 0.9, query: str = "") -> dict:
    return {
        "argument": "Per [E1] it holds.",
        "citations": [1],
        "confidence": confidence,
        "search_query": query,
    }


# ------------------------------------------------ three experts of an importance pyramid

ANSWERS = {
    "expert-a": "The Eiffel Tower is in Paris. The Eiffel Tower was completed in 1889. "
    "The Eiffel Tower is 330 metres tall.",
    "expert-b": "The Eiffel Tower stands in Paris. The Eiffel Tower was finished in 1889.",
    "expert-c": "The Eiffel Tower is in Paris. Gustave Eiffel's company built the Eiffel Tower.",
}
FACTS = ("paris", "1889", "330", "built")


def fact_of(text):
    return next((f for f in FACTS if f in text.lower()), None)


def same_fact_by_key(prompt):
    """The matcher as a careful model would answer: the candidate about the same fact."""
    claim = re.search(r"<claim>(.*?)</claim>", prompt, re.S).group(1)
    listed = re.findall(
        r"^(\d+)\. (.*)$", re.search(r"<candidates>(.*?)</candidates>", prompt, re.S).group(1), re.M
    )
    same = [int(n) for n, text in listed if fact_of(text) == fact_of(claim)]
    return {"reasoning": "compared", "match": same[0] if same else 0}


def bag_of_words(texts):
    """Embeds by hashed words: shared words make similar vectors."""
    rows = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            rows[i, zlib.crc32(word.encode()) % 512] += 1
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


class BagOfWords:
    """An async Embedder of bags of words."""

    async def embed(self, texts):
        return bag_of_words(texts)


class PassageBagOfWords:
    """A passage embedder of bags of words (hybrid search), counting the passages it embeds."""

    name = "bag-of-words"

    def __init__(self):
        self.embedded = 0

    def queries(self, texts):
        return bag_of_words(texts)

    def passages(self, texts):
        self.embedded += len(texts)
        return bag_of_words(texts)
