"""A simulated chat model with a fixed latency per call, for load tests and server demos.

It follows the prompts the way a careful model would, by rule: the Clerk splits sentences,
a checker says ``supported`` when the evidence shown contains most of the claim's words and
``not_enough_evidence`` otherwise. It answers tool calls for whichever schema it is bound to,
and the free-text questions of the audit, so every graph runs on it end to end with no server
and no network.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from factcourt.handed import Handed

WORD = re.compile(r"\w+", re.UNICODE)
_STOP = {"the", "a", "an", "of", "in", "on", "is", "was", "and", "to", "by", "for", "it", "as"}


def tagged(text: str, tag: str) -> str:
    """Return the content of the last ``<tag>...</tag>`` block in ``text``."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", text, flags=re.S)
    return found[-1].strip() if found else ""


def labelled(text: str, label: str) -> str:
    """The claim or the evidence set where DebateCV's own prompts label it ``**Label:**`` (untagged).

    The claim is one line; the evidence set runs to the next label.
    """
    found = re.findall(rf"\*\*{label}:\*\* (.*?)(?=\n\*\*|\Z)", text, flags=re.S)
    value = found[-1].strip() if found else ""
    return value.splitlines()[0] if label == "Claim" and value else value


def evidence_covers(claim: str, evidence: str, share: float = 0.75) -> bool:
    """Whether most content words of the claim occur in the evidence."""
    words = {w for w in WORD.findall(claim.lower()) if w not in _STOP}
    seen = set(WORD.findall(evidence.lower()))
    return bool(words) and len(words & seen) / len(words) >= share


# the shared agents' schemas (the Clerk's split, a search query): every system asks for them
def _shared(schema: str, prompt: str) -> dict[str, Any]:
    """The Clerk splits sentences and drops instructions; a query asks for the claim's facts."""
    if schema == "ClerkOutput":
        # the response comes as numbered sentences, "[3] The sentence."
        claims, dropped = [], []
        for number, sentence in re.findall(r"^\[(\d+)\] (.+)$", tagged(prompt, "response"), re.M):
            if re.search(r"\b(ignore|you should|i think|please)\b", sentence, re.I):
                dropped.append({"sentence": int(number), "reason": "instruction"})
            else:
                claims.append({"sentence": int(number), "claim": sentence.strip()})
        return {"claims": claims, "dropped": dropped}
    if schema == "SearchQuery":
        return {"query": f"{tagged(prompt, 'claim') or labelled(prompt, 'Claim')} facts"}
    raise ValueError(schema)


def rule_answer(schema: str, prompt: str) -> dict[str, Any]:
    """The rule-based answer to a prompt that asks for ``schema``: the shared agents' or a system's rule.

    Each system's rules are the module its registry entry names (``System.simulated``), handed
    over with :data:`SYSTEM_RULES`; rules for schemas no system asks for (the benchmarks') are
    added with :func:`add_rules`.
    """
    if schema in ("ClerkOutput", "SearchQuery"):
        return _shared(schema, prompt)
    for rules in _systems_rules():
        if schema in rules.SCHEMAS:
            return cast(dict[str, Any], rules.answer(schema, prompt))
    raise ValueError(f"the simulated model knows no schema {schema!r}")


def free_text(prompt: str) -> str:
    """The answer to a prompt that asks for no schema, from the first system whose rules take it."""
    for rules in _systems_rules():
        if (said := getattr(rules, "text", lambda prompt: None)(prompt)) is not None:
            return cast(str, said)
    raise ValueError("the simulated model answers free text only to the questions a system's rules take")


_ADDED: list[ModuleType] = []


def add_rules(rules: ModuleType) -> None:
    """Follow ``rules`` too: a module with ``SCHEMAS`` and ``answer`` (and maybe ``text``), like a system's.

    The benchmarks add theirs where their schemas are defined, so this provider names no benchmark.
    """
    if rules not in _ADDED:
        _ADDED.append(rules)


# the systems' rules, handed over by the registry: this provider names no system
SYSTEM_RULES: Handed[Sequence[ModuleType]] = Handed(())


def _systems_rules() -> list[Any]:
    return [*SYSTEM_RULES(), *_ADDED]


class SimulatedChatModel(BaseChatModel):
    """Answers structured-output requests by rule after a fixed delay."""

    latency_s: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "factcourt-simulated"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        """Bind the schemas; the first one is answered."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _answer(self, messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        # the data lives in the user turns: the last one, or in a multi-turn dialogue (DebateCV's
        # moderator) the first one holds the claim and the evidence and later ones add the debate;
        # under DebateCV's own prompts the system prompt holds them, labelled (other system
        # prompts name the tags, which would confuse ``tagged``)
        said = "\n".join(
            str(m.content)
            for m in messages
            if m.type == "human" or m.type == "system" and "**Claim:**" in str(m.content)
        )
        if tools:
            name = tools[0]["function"]["name"]
            args = rule_answer(name, said)
            text, calls = "", [{"name": name, "args": args, "id": "call_sim", "type": "tool_call"}]
            written = json.dumps(args)
        else:
            text = written = free_text(said)
            calls = []
        usage = {"input_tokens": len(prompt) // 4, "output_tokens": len(written) // 4}
        message = AIMessage(
            content=text,
            tool_calls=calls,
            usage_metadata={**usage, "total_tokens": sum(usage.values())},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        time.sleep(self.latency_s)
        return self._answer(messages, kwargs.get("tools"))

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        await asyncio.sleep(self.latency_s)
        return self._answer(messages, kwargs.get("tools"))
