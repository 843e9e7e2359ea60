"""A simulated chat model with a fixed latency per call, for load tests and server demos.

It follows the prompts the way a careful model would, by rule: the Clerk splits sentences,
a checker says ``supported`` when the evidence shown contains most of the claim's words and
``not_enough_evidence`` otherwise. It answers tool calls for whichever schema it is bound to,
and the free-text questions of the audit, so every graph runs on it end to end with no server
and no network.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

_WORD = re.compile(r"\w+", re.UNICODE)
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
    words = {w for w in _WORD.findall(claim.lower()) if w not in _STOP}
    seen = set(_WORD.findall(evidence.lower()))
    return bool(words) and len(words & seen) / len(words) >= share


def rule_answer(schema: str, prompt: str) -> dict[str, Any]:
    """The rule-based answer to a prompt that asks for ``schema``."""
    claim = tagged(prompt, "claim") or labelled(prompt, "Claim")
    evidence = tagged(prompt, "evidence") or labelled(prompt, "Evidence Set")
    covered = evidence_covers(claim, evidence)
    verdict = "supported" if covered else "not_enough_evidence"
    if schema == "ClerkOutput":
        # the response comes as numbered sentences, "[3] The sentence."
        claims, dropped = [], []
        for number, sentence in re.findall(r"^\[(\d+)\] (.+)$", tagged(prompt, "response"), re.M):
            if re.search(r"\b(ignore|you should|i think|please)\b", sentence, re.I):
                dropped.append({"sentence": int(number), "reason": "instruction"})
            else:
                claims.append({"sentence": int(number), "claim": sentence.strip()})
        return {"claims": claims, "dropped": dropped}
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
    if schema == "SearchQuery":
        return {"query": f"{claim} facts"}
    if schema == "CorrectorAnswer":
        return {"wrong": tagged(prompt, "sentence"), "right": ""}
    if schema == "SftJustification":
        return {"justification": "Weighing the cited evidence leads to the gold verdict."}
    if schema in HALLUCINATION_SCHEMAS:
        return hallucination_answer(schema, prompt)
    if schema in AUDIT_SCHEMAS:
        return audit_answer(schema, prompt)
    if schema in LONGQA_SCHEMAS:
        return longqa_answer(schema, prompt)
    if schema == "LongAnswer":
        return {"answer": f"{tagged(prompt, 'question')} is a well-documented subject."}
    if schema == "SameFact":
        listed = re.findall(r"^(\d+)\. (.*)$", tagged(prompt, "candidates"), flags=re.M)
        same = [
            int(n)
            for n, text in listed
            if evidence_covers(claim, text, 0.9) and evidence_covers(text, claim, 0.9)
        ]
        return {"reasoning": "By their words.", "match": same[0] if same else 0}
    raise ValueError(f"the simulated model knows no schema {schema!r}")


HALLUCINATION_SCHEMAS = {
    "SubQuestions",
    "KnowledgeStatements",
    "PerspectiveAnswer",
    "ComprehensiveAnswer",
    "TeamAnswer",
    "JudgeAnswer",
    "JudgeQualityAnswer",
    "RefinerAnswer",
    "HallucinationCheck",
    "MadrCritique",
}


def hallucination_answer(schema: str, prompt: str) -> dict[str, Any]:
    """The hallucination debate by rule: the answer is sound when the knowledge covers it."""
    question, answer = tagged(prompt, "question"), tagged(prompt, "answer")
    sound = evidence_covers(answer, tagged(prompt, "knowledge"))
    conclusion = "no_hallucination" if sound else "hallucination"
    said = "The knowledge [E1] states the answer." if sound else "The knowledge does not state the answer."
    if schema == "SubQuestions":
        return {"sub_questions": [question], "keywords": _WORD.findall(question)[:5]}
    if schema == "KnowledgeStatements":
        fragments = re.findall(r"^\[(\d+)\] [^:]*: (.*)$", tagged(prompt, "knowledge"), flags=re.M)
        return {"statements": [{"statement": text, "sources": [int(n)]} for n, text in fragments[:5]]}
    if schema == "PerspectiveAnswer":
        return {"analysis": said, "conclusion": conclusion}
    if schema == "HallucinationCheck":
        return {"reasoning": said, "conclusion": conclusion}
    if schema == "MadrCritique":
        return {"critique": said, "faithful": True}
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


LONGQA_SCHEMAS = {"FactSubQuestions", "FusedQuestion"}


def _chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def longqa_answer(schema: str, prompt: str) -> dict[str, Any]:
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
        words = {w.lower() for w in _WORD.findall(question)}
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


AUDIT_SCHEMAS = {"AuditCases", "AuditCase", "Appraisal"}
_MODES = ("claim", "evidence", "wisdom of crowds")


def audit_case(scenario: str, tag: str, number: int) -> dict[str, Any]:
    """A test case of ``scenario``: the modes in turn, the evidence stating the claim."""
    mode = _MODES[number % len(_MODES)]
    claim = f"{scenario.replace('_', ' ').capitalize()} case {tag} holds."
    aux = {"claim": [], "evidence": [f"Sources agree: {claim}"], "wisdom of crowds": ["> I doubt it."]}
    return {"test_mode": mode, "source_claim": claim, "auxiliary_info": aux[mode], "key_point": scenario}


def audit_answer(schema: str, prompt: str) -> dict[str, Any]:
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


def audit_text(prompt: str) -> str:
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
    raise ValueError("the simulated model answers free text only to the audit's questions")


class SimulatedChatModel(BaseChatModel):
    """Answers structured-output requests by rule after a fixed delay."""

    latency_s: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "factcourt-simulated"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        """Bind the schemas; the first one is answered."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _answer(self, messages: list[BaseMessage], tools: list[dict] | None) -> ChatResult:
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
            text = written = audit_text(said)
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
