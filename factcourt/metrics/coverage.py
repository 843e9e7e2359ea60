"""What the Clerk covers of a text, and how whole answers score against segment labels.

Coverage counts what a split loses, not only what it keeps: sentences with no claim, drops by
reason, and the gold claims (annotators' atomic claims) that no produced claim states. The
segment scores judge a checked answer as a user reads it: a segment is flagged when any claim
taken from it was refuted, and flags are scored against the annotators' false segments.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from factcourt.metrics.response import f1

# a gold claim is stated by a produced claim that holds this share of its content words
MATCH_SHARE = 0.6
_STOP = frozenset(
    "the and for are was were has have had its his her their this that these those with from into "
    "also which who whom whose been being not but than then there such one".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased words of three or more letters (or any number), stop words aside, and CJK characters."""
    # digits count apart too: "14th" holds the 14 of "the 14th century"
    latin = {w for w in re.findall(r"[^\W_]{3,}|\d+", text.lower()) if w not in _STOP}
    latin |= set(re.findall(r"\d+", text))
    latin = {w for w in latin if not re.search(r"[\u3400-\u9fff]", w)}
    return latin | set(re.findall(r"[\u3400-\u9fff]", text))


def key_words(text: str) -> set[str]:
    """The names and numbers of a text (capitalised words and digits), lower-cased: what a fact is about."""
    return {w.lower() for w in re.findall(r"\b(?:[A-Z][\w'-]*|\d[\d,.]*\d|\d)", text)} - _STOP


def states(claim: str, gold: str) -> bool:
    """Whether ``claim`` states the gold claim.

    It must hold every name and number of the gold claim and at least MATCH_SHARE of its content
    words: "France has many reactors" is not stated by a claim about the United States' reactors.
    """
    wanted, said = content_words(gold), content_words(claim)
    names = {w for w in key_words(gold) if w in content_words(w)}  # "The" and "I" are no names
    return bool(wanted) and names <= said and len(wanted & said) >= MATCH_SHARE * len(wanted)


def gold_coverage(golds: Sequence[str], claims: Sequence[str]) -> tuple[int, int]:
    """(gold claims stated by some produced claim, gold claims)."""
    return sum(any(states(c, g) for c in claims) for g in golds), len(golds)


def source_sentence(gold: str, sentences: Sequence[str]) -> int | None:
    """The index of the sentence that shares the most content words with a gold claim, or None."""
    wanted = content_words(gold)
    shared = [len(wanted & content_words(s)) for s in sentences]
    if not shared or max(shared) == 0:
        return None
    return shared.index(max(shared))


def text_coverage(
    sentences: Sequence[tuple[int, int, str]],
    claims: Sequence[tuple[tuple[int, int] | None, str]],
    drop_reasons: Iterable[str],
    golds: Sequence[str] = (),
) -> dict[str, object]:
    """One text's coverage.

    Args:
        sentences: the text's sentences as (start, end, text).
        claims: the produced claims as (their sentence's span, claim text).
        drop_reasons: the reason of each dropped sentence or part.
        golds: the annotators' claims of the text, if any.

    A checkable sentence is one a gold claim comes from; it is dropped when no claim came from it.
    """
    spans = {span for span, _ in claims if span is not None}
    claimed = [(start, end) in spans for start, end, _ in sentences]
    row: dict[str, object] = {
        "sentences": len(sentences),
        "sentences_with_claim": sum(claimed),
        "claims": len(claims),
        "claims_per_sentence": round(len(claims) / len(sentences), 3) if sentences else None,
        "dropped": dict(Counter(drop_reasons)),
    }
    if golds:
        texts = [text for _, _, text in sentences]
        checkable = {i for g in golds if (i := source_sentence(g, texts)) is not None}
        matched, total = gold_coverage(golds, [text for _, text in claims])
        row.update(
            gold_claims=total,
            gold_matched=matched,
            checkable_sentences=len(checkable),
            checkable_dropped=sum(1 for i in checkable if not claimed[i]),
        )
    return row


def segment_spans(response: str, segments: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each segment stands in the response (searched in order), None where it is not found."""
    spans: list[tuple[int, int] | None] = []
    cursor = 0
    for segment in segments:
        start = response.find(segment.strip(), cursor)
        if start < 0:
            start = response.find(segment.strip())
        if start < 0:
            spans.append(None)
            continue
        end = start + len(segment.strip())
        spans.append((start, end))
        cursor = end
    return spans


def flagged_segments(
    spans: Sequence[tuple[int, int] | None], claims: Sequence[tuple[tuple[int, int] | None, bool | None]]
) -> tuple[list[bool], list[bool], list[bool]]:
    """(flagged, covered, decided) per segment, for claims given as (their sentence's span, supported).

    ``supported`` is True or False where the claim got that verdict, None where it got neither
    (not enough evidence, conflicting). A segment is covered when a claim's sentence overlaps
    it, decided when one of those claims got a verdict either way, and flagged only when one
    was refuted: a claim that could not be checked says nothing false.
    """
    flagged, covered, decided = [], [], []
    for span in spans:
        mine = [ok for where, ok in claims if span and where and where[0] < span[1] and span[0] < where[1]]
        covered.append(bool(mine))
        decided.append(any(ok is not None for ok in mine))
        flagged.append(any(ok is False for ok in mine))
    return flagged, covered, decided


def false_segment_scores(flags: Sequence[bool], gold_false: Sequence[bool]) -> dict[str, float | int | None]:
    """Precision, recall and F1 of flagging the false segments; None where undefined."""
    tp = sum(f and g for f, g in zip(flags, gold_false, strict=True))
    flagged, false = sum(flags), sum(gold_false)
    precision = tp / flagged if flagged else None
    recall = tp / false if false else None
    return {
        "segments": len(flags),
        "false": false,
        "flagged": flagged,
        "hits": tp,
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
    }
