"""When the first pass must say "not enough evidence", and why: the rule both readers answer to.

A verdict is shown only where the evidence addresses the claim and the calibrated confidence
clears the bar chosen on the dev parts; anything else is ``not_enough_evidence``, and the reason
is the turn's text (the result's ``unchecked_reason``).
"""

from __future__ import annotations

import re

from factcourt.context.claims import ClaimsContext
from factcourt.providers.calibration import evidence_kind
from factcourt.state.records import Evidence

_NAME = re.compile(r"\b(?:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*|\d[\d,.]*)")
_OPENERS = frozenset("The A An In On At It He She They This That His Her Its Their".split())


def missing_names(claim: str, evidence: list[Evidence]) -> list[str]:
    """The claim's names and numbers that no piece of evidence mentions (case-insensitive)."""
    seen = " ".join(f"{e.title} {e.text}" for e in evidence).lower()
    names = [m.group(0).rstrip(".,") for m in _NAME.finditer(claim)]
    names = [n for n in names if n not in _OPENERS]
    return [n for n in dict.fromkeys(names) if n.lower() not in seen]


def _listed(names: list[str]) -> str:
    shown = [f'"{n}"' for n in names[:3]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def own_page(claim: str, evidence: list[Evidence], pieces: tuple[int, ...]) -> bool:
    """Whether the passage that decided comes from a page the claim names (its title is in the claim)."""
    titles = [evidence[i].title for i in pieces if i < len(evidence)]
    return any(t and t.lower() in claim.lower() for t in titles)


def no_evidence_reason(ctx: ClaimsContext) -> str | None:
    """Why a claim with no evidence at all gets no verdict, or None when none is wanted."""
    if ctx.search == "none":  # asked to judge from the model's own knowledge: no evidence to want
        return None
    return "no evidence was found for it" if ctx.retrieval_enabled else "no evidence was given for it"


def abstain_reason(
    ctx: ClaimsContext,
    claim: str,
    evidence: list[Evidence],
    *,
    p_true: float,
    p_silent: float | None,
    disagree: bool = False,
    trained: bool = False,
) -> str | None:
    """Why the evidence decides nothing about ``claim``, or None when a verdict may be shown.

    ``p_true`` is the calibrated P(supported) against P(refuted); ``p_silent`` the reader's
    P(not addressed) (None for a reading that has no third output). The confidence bar holds over
    the offline Wikipedia search, where it was chosen; over evidence the user gave, a corpus of
    theirs or the web, the reading decides as before. Over searched evidence the trained reader
    never refutes: on the dev parts of FELM-WK and FacToolQA its refutations were right 4 times
    in 12 (0 in 6 over the claim's own page), little above the 23% of false claims there.
    """
    if not evidence:
        return no_evidence_reason(ctx)
    missing = missing_names(claim, evidence)
    if p_silent is not None and p_silent >= ctx.not_enough_above:
        searched = evidence_kind(ctx.search) == "searched"
        where = "the passages found do" if searched else "the evidence does"
        if missing:
            return f"{where} not mention {_listed(missing)} (P(not addressed) {p_silent:.2f})"
        return f"{where} not address it (P(not addressed) {p_silent:.2f})"
    if disagree:
        return "the passages found disagree: one supports it, another contradicts it"
    confidence = max(p_true, 1.0 - p_true)
    if trained and evidence_kind(ctx.search) == "searched" and p_true < 0.5:
        return (
            f"the passages found seem to contradict it (P(true) {p_true:.2f}), but over a search such "
            "readings were mostly wrong on our dev sets: not enough to call it false"
        )
    if offline_wikipedia(ctx) and confidence < ctx.verdict_bar:
        gap = f"; they do not mention {_listed(missing)}" if missing else ""
        bar = f"below the bar of {ctx.verdict_bar:.2f}"
        return f"the reading was uncertain (P(true) {p_true:.2f}, {bar}){gap}"
    return None


def named_pages(claim: str, evidence: list[Evidence]) -> list[str]:
    """The titles of the evidence's pages that the claim names: the title, as written, in the claim.

    Case counts: "breach of the contract" does not name the page "Contract", nor "blue light" the
    page "Blue" (both were read as the claim's own page on FELM-WK's dev part when case was not).
    """
    return [e.title for e in evidence if e.title and re.search(rf"\b{re.escape(e.title)}\b", claim)]


def offline_wikipedia(ctx: ClaimsContext) -> bool:
    """Whether the run searches the shipped Wikipedia summaries, whose page titles a claim names.

    The page rules were measured there only: a user's corpus titles its documents by file name,
    and a web page's title ("Eiffel Tower - Wikipedia") is never written in a claim.
    """
    return ctx.search == "local" and not ctx.corpus


def unaddressed_by_search(ctx: ClaimsContext, claim: str, evidence: list[Evidence]) -> str | None:
    """Why a claim searched in the offline Wikipedia gets no reading: no passage is of a page it names.

    Over that corpus the 1.5B's reading of other pages was noise on the dev parts (the
    calibration's slope for searched evidence, .034): such a claim is not read, and says why.
    """
    if not offline_wikipedia(ctx) or not evidence or named_pages(claim, evidence):
        return None
    titles = list(dict.fromkeys(e.title for e in evidence if e.title))[:3]
    found = f" (found: {', '.join(titles)})" if titles else ""
    missing = missing_names(claim, evidence)
    gap = f"; they do not mention {_listed(missing)}" if missing else ""
    return f"none of the passages found comes from a page the claim names{found}{gap}"
