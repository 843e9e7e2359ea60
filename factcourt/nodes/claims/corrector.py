"""The corrector: rewrite the response minimally where claims were refuted."""

from __future__ import annotations

import asyncio
import difflib
import json
import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.helpers import fence, format_evidence
from factcourt.prompts import conversation
from factcourt.prompts.claims import table
from factcourt.providers.models import ask
from factcourt.state.claims import (
    ClaimResult,
    Correction,
    CorrectionFailure,
    CorrectorAnswer,
    Edit,
    FactcheckState,
)
from factcourt.state.records import Usage

# words that belong to a check's report, not to the corrected text (the small model wrote
# "This contradicts the claim ... Therefore, the verdict is refuted." into a user's text)
_REPORT_WORDS = re.compile(
    r"\b(verdict|refuted|refutes|supported|claims?|evidence|contradicts?|contradicted|contradiction|"
    r"therefore|thus|hence|incorrect|inaccurate|according to)\b|判定|证据|声明|因此|所以|错误|不正确",
    re.IGNORECASE,
)
# words a minimal correction may add without evidence: negations and grammar, not facts
_COMMON = frozenset(
    "the and for are was were its has had have with from that this which not but no never cannot "
    "does did do is be been being can could will would only also any some more less than who what "
    "when where there their they them these those into onto over under about per".split()
)
STEM = 5  # "recommended" in the evidence grounds "recommend"
REFUSED = "the corrector's rewrite was refused"
LONGER_AT_MOST = 1.5  # a corrected sentence is about as long as the original
KEPT_AT_LEAST = 0.5  # share of the original's words (Chinese: characters) a rewrite keeps in order
SPELLING = 0.8  # changed words this alike ("Hilary" -> "Hillary") correct spelling, not a fact


_UNIT = re.compile(r"[\u3400-\u9fff]|[^\W_]+")  # a word of Latin text, a character of Chinese


def _units(text: str) -> list[str]:
    """Words of Latin text, characters of Chinese: what a minimal edit keeps or changes."""
    return _UNIT.findall(text.lower())


def replacement_problem(original: str, replacement: str, evidence: list[str]) -> str | None:
    """Why ``replacement`` is not a minimal, grounded correction of ``original``, or None.

    An empty replacement removes the sentence and is always allowed.
    """
    if not replacement:
        return None
    if len(replacement) > LONGER_AT_MOST * len(original) + 20:
        return f"it is too long ({len(replacement)} characters for a sentence of {len(original)})"
    before, after = _units(original), _units(replacement)
    if after == before:
        return "it changes nothing in the sentence"
    if _spelling_only(before, after):
        return "it changes only spelling, not the false fact"
    if doubled := next(
        (a for a, b in zip(after, after[1:]) if a == b and f"{a} {a}" not in " ".join(before)), None
    ):
        return f"it repeats '{doubled}': the substitution left a word twice"
    # a report word the sentence itself holds ("Claims that ...") is the user's, not the check's
    if found := next(
        (f for f in _REPORT_WORDS.finditer(replacement) if f.group(0).lower() not in original.lower()), None
    ):
        return f"it holds '{found.group(0)}': a correction states the fact, not the check"
    kept = difflib.SequenceMatcher(None, before, after, autojunk=False).ratio()
    if kept < KEPT_AT_LEAST:
        return f"it keeps too little of the sentence ({kept:.0%} alike)"
    stated = " ".join(evidence).lower()
    new = [
        u
        for u in dict.fromkeys(after)
        if u not in before and u not in _COMMON and u not in stated and u[:STEM] not in stated
    ]
    unstated = [u for u in new if u.isdigit() or len(u) > 2 or re.match(r"[\u3400-\u9fff]", u)]
    if unstated:
        shown = [w for w in _UNIT.findall(replacement) if w.lower() in unstated]
        return f"it adds what the evidence does not state: {', '.join(shown[:5])}"
    return None


def _spelling_only(before: list[str], after: list[str]) -> bool:
    """Whether every change is a word respelt or split ('Trumps' -> "Trump's"), no number changed."""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        old, new = "".join(before[i1:i2]), "".join(after[j1:j2])
        if tag != "replace" or (old != new and any(c.isdigit() for c in old + new)):
            return False
        if difflib.SequenceMatcher(None, old, new, autojunk=False).ratio() < SPELLING:
            return False
    return True


def substituted(sentence: str, wrong: str, right: str) -> tuple[str | None, str | None]:
    """The sentence with ``wrong`` replaced by ``right`` (empty: removed), or why it cannot be."""
    wrong, right = wrong.strip(), right.strip()
    if not right:
        return "", None
    core = wrong.strip(" .。\"'“”")
    if not core:
        return None, "it names no wrong words"
    if core == sentence.strip(" .。\"'“”"):  # the whole sentence rewritten: the guard judges it
        return right, None
    found = sentence.lower().find(core.lower())
    if found < 0 and (swapped := right.strip(" .。\"'“”")) and swapped.lower() in sentence.lower():
        # the fields the wrong way round: what it calls right is the sentence's own (false) words
        return substituted(sentence, swapped, core)
    if found < 0:
        return None, f"the wrong words '{core[:80]}' are not in the sentence"
    return sentence[:found] + right.strip(" .。") + sentence[found + len(core) :], None


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Replace each edit's span, last first so earlier offsets stay valid; the rest is untouched."""
    spanned = [(e.span, e) for e in edits if e.span]
    for (start, end), edit in sorted(spanned, key=lambda pair: pair[0][0], reverse=True):
        replacement = edit.replacement
        if not replacement:  # a removed sentence takes one adjoining space with it
            end += 1 if text[end : end + 1] == " " else 0
        text = text[:start] + replacement + text[end:]
    return text


async def correct(state: FactcheckState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """One corrector call per sentence holding refuted claims."""
    ctx, response = runtime.context, state["response"]
    refuted = [r for r in state.get("results", []) if r.verdict == "refuted" and r.claim.span]
    by_span = _by_region(refuted)
    if not by_span:
        return {"correction": Correction(text=response)}
    language = state.get("language", "en")

    async def fix(span: tuple[int, int], results: list[ClaimResult]):
        """The replacement (None when refused twice or failed), the error and the usage."""
        sentence = response[span[0] : span[1]]
        evidence = [e for r in results for e in r.evidence]
        messages = conversation(
            table(language).CORRECTOR,
            sentence=fence(sentence),
            claim=fence("; ".join(r.claim.text for r in results)),
            justification=fence(" ".join(r.justification for r in results)[:600]),
            evidence=format_evidence(evidence),
        )
        usage = Usage()
        for _ in range(2):  # one more ask after a refusal, then the edit is reported failed
            answer = await ask(
                ctx, "corrector", CorrectorAnswer, messages, run_name="corrector", tags=["corrector"]
            )
            usage += answer.usage
            if answer.value is None:
                return None, answer.error, usage
            replacement, problem = substituted(sentence, answer.value.wrong, answer.value.right)
            if replacement is not None:
                problem = replacement_problem(sentence, replacement, [e.text for e in evidence])
                if problem is None:
                    return replacement, None, usage
            messages = [
                *messages,
                AIMessage(json.dumps(answer.value.model_dump(), ensure_ascii=False)),
                HumanMessage(table(language).CORRECTOR_RETRY.format(problem=problem)),
            ]
        return None, f"{REFUSED}: {problem}", usage

    spans = sorted(by_span)
    answers = await asyncio.gather(*(fix(s, by_span[s]) for s in spans))
    usage, edits, failed = Usage(), [], []
    for span, (replacement, error, spent) in zip(spans, answers, strict=True):
        usage += spent
        results = by_span[span]
        if replacement is None:  # the sentence stays as it was, and the result says why
            failed.append(CorrectionFailure(claim_id=",".join(r.claim.id for r in results), error=error))
            continue
        edits.append(
            Edit(
                original=response[span[0] : span[1]],
                replacement=replacement,
                span=span,
                claim_id=",".join(r.claim.id for r in results),
                evidence=sorted({e.url for r in results for e in r.evidence if e.url}),
            )
        )
    correction = Correction(text=apply_edits(response, edits), edits=edits, failed=failed)
    return {"correction": correction, "usage": usage}


def _by_region(refuted: list[ClaimResult]) -> dict[tuple[int, int], list[ClaimResult]]:
    """Refuted claims grouped by the text they stand in, overlapping spans merged into one.

    Claims of one sentence share its span; a split saved before the Clerk named sentences by
    number may hold overlapping spans (a sentence with and without its last stop), and two
    rewrites of overlapping spans would cut the text after them.
    """
    regions: list[tuple[list[int], list[ClaimResult]]] = []
    spanned = [(r.claim.span, r) for r in refuted if r.claim.span]
    for (start, end), result in sorted(spanned, key=lambda pair: pair[0]):
        if regions and start < regions[-1][0][1]:
            regions[-1][0][1] = max(regions[-1][0][1], end)
            regions[-1][1].append(result)
        else:
            regions.append(([start, end], [result]))
    return {(span[0], span[1]): results for span, results in regions}
