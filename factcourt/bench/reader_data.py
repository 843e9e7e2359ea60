"""Training data for the trained reader: claim + evidence -> supported / refuted / not addressed.

Two sources, both built here without a large model:

- the shared claim sets with their own evidence, **dev parts only** (``in_part(id, "dev")``), each
  set's dev part cut by id into a training slice and a held-back slice to choose on; "not enough
  info" rows of the four-way files are the third class. No set gives more than ``per_set`` rows,
  so COVID-Fact's 4,086 claims do not outweigh the rest;
- synthetic rows from the offline corpus, FactCC-style: a sentence of a summary against its own
  page (supported); the sentence with one fact changed, a year, a number, a name swapped for one of
  a page the search puts beside it, or a negation (refuted); the sentence against the passages the
  search finds on other pages (not addressed: the hard case an offline check meets most).

Rows whose claim-evidence pair, or COVID-Fact's evidence group (its false claims are word swaps
of true ones over the same evidence), also occurs in any test part or held-back slice are dropped,
so nothing a figure is reported on is trained on. HealthVer's unit is the pair: its claims recur
over other evidence, in every part.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

from factcourt.bench.runner import in_part
from factcourt.inputs import read_rows
from factcourt.providers.search import LocalBM25, load_corpus

CLASSES = ("supported", "refuted", "not_addressed")

# the eight sets with their own evidence, as they are named under ../shared/data
EVIDENCE_SETS = (
    "halueval_qa/qa.jsonl",
    "averitec_dev/claims.jsonl",
    "climate_fever/claims.jsonl",
    "wice/claims.jsonl",
    "healthver/claims.jsonl",
    "scifact/claims.jsonl",
    "covidfact/claims.jsonl",
    "politihop/claims.jsonl",
)
# four-way files whose "not enough info" rows are the third class (the others' classes are no
# class of ours: partially supported, disputed, half true)
NOT_ENOUGH_INFO = {"not_enough_info"}


@dataclass(frozen=True)
class Row:
    """One training or held-back example."""

    claim: str
    evidence: str
    label: str
    source: str
    id: str


def held_back(case_id: str) -> bool:
    """A quarter of each dev part, by id, kept out of training to choose on."""
    return hashlib.sha1(case_id.encode("utf-8")).digest()[1] % 4 == 0


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _set_name(path: str) -> str:
    return path.split("/")[0]


def _claim_of(row: dict[str, Any]) -> str:
    if "claim" in row:
        return cast(str, row["claim"])
    return f'The answer to the question "{row["question"]}" is "{row["answer"]}".'


def _evidence_of(row: dict[str, Any]) -> str:
    items = row.get("evidence") if "claim" in row else row.get("knowledge")
    if isinstance(items, str):
        items = [items]
    texts = []
    for item in items or []:
        text = item.get("text", "") if isinstance(item, dict) else item
        if text and not text.startswith(("http://", "https://")):
            texts.append(text.strip())
    return "\n".join(texts)


def _label_of(row: dict[str, Any]) -> str | None:
    meta = row.get("meta") or {}
    if row.get("label") is None:
        return "not_addressed" if meta.get("label_norm") in NOT_ENOUGH_INFO else None
    return "supported" if row["label"] in (True, 1, "true") else "refuted"


def _group_of(row: dict[str, Any], name: str) -> str:
    meta = row.get("meta") or {}
    group = meta.get("evidence_group")
    return f"{name}:{group}" if group is not None else ""


def _files(data: Path, path: str) -> list[Path]:
    main = data / path
    four_way = main.with_name("claims_4way.jsonl")
    return [main] + ([four_way] if four_way.exists() else [])


def _set_rows(data: Path, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for file in _files(data, path):
        for _number, row in read_rows(file):
            if isinstance(row, dict):
                yield str(row["id"]), row


def dataset_rows(data: Path, per_set: int, seed: int = 0) -> tuple[list[Row], list[Row], set[str]]:
    """Training rows and held-back rows of the eight sets, and every test part's keys to avoid.

    The keys are the normalised claim-evidence pairs and COVID-Fact's evidence groups of the test
    parts and of the held-back slices: a training row sharing any of them is dropped.
    """
    train: list[Row] = []
    held: list[Row] = []
    avoid: set[str] = set()
    for path in EVIDENCE_SETS:
        name = _set_name(path)
        candidates: list[Row] = []
        groups: dict[str, str] = {}
        for case_id, row in _set_rows(data, path):
            label = _label_of(row)
            claim, evidence = _claim_of(row), _evidence_of(row)
            if label is None or not evidence:
                continue
            example = Row(claim, evidence, label, name, case_id)
            if not in_part(case_id, "dev") or held_back(case_id):
                avoid |= {_norm(claim + " || " + evidence), _norm(claim)} | ({_group_of(row, name)} - {""})
                if in_part(case_id, "dev"):
                    held.append(example)
                continue
            groups[case_id] = _group_of(row, name)
            candidates.append(example)
        kept = [
            r
            for r in candidates
            if _norm(r.claim + " || " + r.evidence) not in avoid and groups[r.id] not in avoid
        ]
        train += _balanced(kept, per_set, random.Random(f"{seed}:{name}"))
    return train, held, avoid


def _balanced(rows: list[Row], limit: int, rng: random.Random) -> list[Row]:
    """At most ``limit`` rows, the classes as even as the set allows."""
    by_class: dict[str, list[Row]] = {}
    for row in rows:
        by_class.setdefault(row.label, []).append(row)
    for members in by_class.values():
        rng.shuffle(members)
    out: list[Row] = []
    while len(out) < limit and any(by_class.values()):
        for label in CLASSES:
            if by_class.get(label) and len(out) < limit:
                out.append(by_class[label].pop())
    return out


_SENTENCE = re.compile(r"(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-z]+)*")
_NEGATABLE = re.compile(r"\b(is|was|are|were|has|had|can|will)\b")


def sentences(text: str) -> list[str]:
    """Sentences of a summary: a stop after a small letter or a digit, then a capital.

    A rule: a rare abbreviation such as "St. Louis" splits too, and costs one odd training row.
    """
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _names(text: str) -> list[str]:
    return [m.group(0) for m in _NAME.finditer(text) if m.start() > 0 or len(m.group(0).split()) > 1]


def change_one_fact(sentence: str, neighbours: list[str], rng: random.Random) -> str | None:
    """The sentence with one fact changed so that its own page contradicts it, or None.

    A year moves by 2-30, another number is scaled, a name becomes one from a neighbouring page
    (the search's neighbours share the topic, so the name is usually of the same kind), or a verb
    is negated; the first of these the sentence allows, tried in a random order.
    """
    ways = ["year", "number", "name", "negation"]
    rng.shuffle(ways)
    for way in ways:
        if way == "year" and (years := list(_YEAR.finditer(sentence))):
            m = rng.choice(years)
            year = int(m.group(0)) + rng.choice([-1, 1]) * rng.randint(2, 30)
            return sentence[: m.start()] + str(year) + sentence[m.end() :]
        if way == "number" and (
            numbers := [m for m in _NUMBER.finditer(sentence) if not _YEAR.fullmatch(m.group(0))]
        ):
            m = rng.choice(numbers)
            digits = m.group(0).replace(",", "")
            try:
                value = float(digits)
            except ValueError:
                continue
            new_value = value * rng.choice([0.3, 0.5, 2, 3, 10]) + rng.randint(1, 9)
            new = str(int(new_value)) if "." not in digits else f"{new_value:.1f}"
            return sentence[: m.start()] + new + sentence[m.end() :]
        if way == "name" and (own := _names(sentence)):
            other = [n for text in neighbours for n in _names(text) if n not in sentence]
            if other:
                target = rng.choice(own)
                return sentence.replace(target, rng.choice(other), 1)
        if way == "negation" and (verbs := list(_NEGATABLE.finditer(sentence))):
            m = verbs[0]
            return sentence[: m.end()] + " not" + sentence[m.end() :]
    return None


_PRONOUN = re.compile(r"^(?:It|He|She|They)\b")
_POSSESSIVE = re.compile(r"^(?:Its|His|Her|Their)\b")
_ASIDE = re.compile(r"\s*\([^()]*\)")
# "X is a ... tower on ... in Paris" -> "X is in Paris": the place a thing is in or at
_COPULA_PLACE = re.compile(
    r"^(?P<subject>[A-Z][^,;()]*?) (?P<verb>is|was|are|were) [^,;.]*? (?P<prep>in|at|near) "
    r"(?P<place>[A-Z][\w'-]*(?: (?:de |of |the )?[A-Z][\w'-]*)*)"
)
# a first clause is said outright only where no condition or contrast leads into it
_LEADS_IN = re.compile(r"^(?:Although|Though|While|After|Before|When|If|Because|Despite|As|Since|Unlike)\b")
# a clause has a verb; "A member of the Democratic Party" (an opening aside) has none
_VERB = re.compile(r"\b(?:is|was|are|were|has|had|have|[a-z]{3,}ed|[a-z]{3,}s)\b")
_WORDS = 110  # evidence words a training row holds: the fact stays inside the reader's 256 tokens


def restatement(sentence: str, title: str, rng: random.Random) -> str:
    """A claim the sentence entails, mostly not in the page's words.

    The page's name stands for a leading pronoun, asides in brackets go, and then one of: the place
    a copula sentence puts its subject in ("X is a ... in Paris" -> "X is in Paris"), the first
    clause alone, the sentence without an aside between commas, or the sentence as it is. Trained
    only on word-for-word copies, the pilot learned to spot copies, not support.
    """
    name = _ASIDE.sub("", title).strip()
    claim = _PRONOUN.sub(name, sentence, count=1)
    claim = _POSSESSIVE.sub(f"{name}'s", claim, count=1)
    claim = _ASIDE.sub("", claim)
    ways = [claim]
    if m := _COPULA_PLACE.match(claim):
        ways.append(f"{m['subject']} {m['verb']} {m['prep']} {m['place']}.")
    head = re.split(r",|;| which | who ", claim)[0].rstrip(" .")
    if (
        len(head.split()) >= 5
        and head != claim.rstrip(" .")
        and not _LEADS_IN.match(head)
        and _VERB.search(head)
    ):
        ways.append(head + ".")
    shorter = re.sub(r", [^,]{3,60}, ", " ", claim, count=1)
    if shorter != claim and len(shorter.split()) >= 5:
        ways.append(shorter)
    return rng.choice(ways)


def window(text: str, sentence: str, rng: random.Random, words: int = _WORDS) -> str:
    """Sentences of ``text`` around ``sentence``, at most ``words`` words, grown left or right at random."""
    parts = sentences(text)
    if sentence not in parts:
        return sentence
    low = high = parts.index(sentence)
    size = len(sentence.split())
    while True:
        sides = [
            side
            for side, at in ((-1, low - 1), (1, high + 1))
            if 0 <= at < len(parts) and size + len(parts[at].split()) <= words
        ]
        if not sides:
            return " ".join(parts[low : high + 1])
        side = rng.choice(sides)
        if side < 0:
            low -= 1
            size += len(parts[low].split())
        else:
            high += 1
            size += len(parts[high].split())


def _facts(claim: str) -> set[str]:
    return {m.group(0) for m in _NUMBER.finditer(claim)} | set(_names(claim))


def _rest_of_page(text: str, sentence: str, claim: str, rng: random.Random) -> str | None:
    """A window of the page without the sentence that lacks a fact of the claim, or None.

    The claim's own page, not addressing it: what the offline search meets when it finds the page
    a claim names but the summary does not say the claim's year, number or name.
    """
    others = [s for s in sentences(text) if s != sentence]
    if len(others) < 2:
        return None
    rest = window(" ".join(others), rng.choice(others), rng)
    return rest if any(fact not in rest for fact in _facts(claim)) else None


def synthetic_rows(count: int, avoid: set[str], seed: int = 0) -> list[Row]:
    """``count`` rows from the offline corpus, about a third of each class.

    Each page gives a restatement of one of its sentences against a window of the page holding
    it (supported), the restatement with one fact changed against the same window (refuted), and
    (not addressed) the restatement against the rest of its own page where that lacks one of its
    facts, or else against a passage the search (BM25, the one ``check`` uses) finds on another
    page.
    """
    pages = load_corpus(None)
    index = LocalBM25(pages)
    rng = random.Random(seed)
    order = list(range(len(pages)))
    rng.shuffle(order)
    rows: list[Row] = []
    for number in order:
        if len(rows) >= count:
            break
        page = pages[number]
        candidates = [s for s in sentences(page.text) if 6 <= len(s.split()) <= 45]
        if not candidates:
            continue
        sentence = rng.choice(candidates)
        if _norm(sentence) in avoid:
            continue
        claim = restatement(sentence, page.title, rng)
        evidence = window(page.text, sentence, rng)
        found = [e for e in index.search(sentence, 6) if e.url != page.url]
        source = f"corpus:{page.title}"
        rows.append(Row(claim, evidence, "supported", "corpus", source))
        changed = change_one_fact(claim, [e.text for e in found], rng)
        if changed and changed != claim:
            rows.append(Row(changed, evidence, "refuted", "corpus", source))
        # the rest of its own page may contradict a changed claim, so only the claim itself is
        # read against it
        asked = changed if changed and rng.random() < 0.3 else claim
        rest = (
            _rest_of_page(page.text, sentence, asked, rng) if asked == claim and rng.random() < 0.5 else None
        )
        if rest is None and found:
            other = rng.choice(found[:3]).text
            rest = window(other, rng.choice(sentences(other) or [other]), rng)
        if rest:
            rows.append(Row(asked, rest, "not_addressed", "corpus", source))
    return rows[:count]


def card(rows: list[Row], held: list[Row], digest: str) -> dict[str, Any]:
    """Counts per source and class, and the digest of the data."""
    count = Counter((r.source, r.label) for r in rows)
    held_count = Counter((r.source, r.label) for r in held)
    sources = sorted({r.source for r in rows} | {r.source for r in held})
    return {
        "sha256": digest,
        "rows": len(rows),
        "held_back": len(held),
        "train": {s: {c: count[(s, c)] for c in CLASSES if count[(s, c)]} for s in sources},
        "held_back_by_set": {
            s: {c: held_count[(s, c)] for c in CLASSES if held_count[(s, c)]} for s in sources
        },
    }


def build(
    data: Path, out: Path, *, per_set: int = 1200, synthetic: int = 7500, seed: int = 0
) -> dict[str, Any]:
    """Write ``train.jsonl``, ``held_back.jsonl`` and ``card.json`` under ``out``; return the card."""
    train, held, avoid = dataset_rows(data, per_set, seed)
    train += synthetic_rows(synthetic, avoid, seed)
    random.Random(seed).shuffle(train)
    out.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(asdict(r), ensure_ascii=False) for r in train]
    text = "\n".join(lines) + "\n"
    (out / "train.jsonl").write_text(text, encoding="utf-8")
    (out / "held_back.jsonl").write_text(
        "".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in held), encoding="utf-8"
    )
    summary = card(train, held, hashlib.sha256(text.encode("utf-8")).hexdigest())
    (out / "card.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
