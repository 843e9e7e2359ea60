"""Loaders for the shared benchmark schema, keeping gold labels away from the methods.

A dataset row becomes a :class:`Case` (what a method may see: claim, question, evidence) and a
:class:`Gold` (what only the scorer sees). ``meta`` is read for gold fields only and never
reaches a method.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from factcourt.errors import InputError
from factcourt.inputs import json_problem, read_text_file
from factcourt.state import Evidence, Seed

FOUR_WAY = {
    "Supported": "supported",
    "Refuted": "refuted",
    "Not Enough Evidence": "not_enough_evidence",
    "Conflicting Evidence/Cherrypicking": "conflicting_evidence",
}


def _spelling(label: str) -> str:
    """A label without case, spaces, hyphens or underscores: 'Cherry-picking' is 'Cherrypicking'."""
    return re.sub(r"[\s_-]+", "", label).lower()


# AVeriTeC's labels and the verdicts' own names, in any of those spellings
_FOUR_WAY_SPELLINGS = {_spelling(k): v for k, v in FOUR_WAY.items()} | {
    _spelling(v): v for v in FOUR_WAY.values()
}


@dataclass(frozen=True)
class Case:
    """What a method is given."""

    id: str
    claim: str
    question: str = ""
    evidence: tuple[Evidence, ...] = ()
    answer: str = ""  # a QA row's answer as written (the hallucination methods judge it)


@dataclass(frozen=True)
class Gold:
    """What the scorer compares against."""

    label: bool
    label_4way: str | None = None
    evidence_text: tuple[str, ...] = field(default=())


def read_rows(path: Path, what: str = "dataset") -> list[tuple[int, object]]:
    """The JSON value of each non-blank line of a JSONL file, with its line number."""
    rows = []
    for number, line in enumerate(read_text_file(path, f"{what} file").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise json_problem(str(path), exc, number) from exc
    return rows


def _evidence_of(items: list) -> tuple[Evidence, ...]:
    """Evidence texts; bare URLs (FELM's references) carry no text to check against: skipped."""
    out = []
    for item in items or []:
        if isinstance(item, dict):
            out.append(
                Evidence(
                    text=item.get("text", ""),
                    url=item.get("url") or "",  # null: no URL, as when the key is left out
                    title=item.get("title") or "",
                    source="given",
                )
            )
        elif isinstance(item, str) and not item.startswith(("http://", "https://")):
            out.append(Evidence(text=item, source="given", url=""))
    return tuple(e for e in out if e.text.strip())


def _text(row: dict, field: str, where: str) -> str:
    """A field that must hold text: else one sentence naming the line (a method would judge "None")."""
    value = row[field]
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {field!r} must be a non-empty text, not {json.dumps(value)}")
    return value


def _listed(value: Any, field: str, where: str) -> list:
    """Evidence as a list of texts or objects; one text is one piece (not one per character)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise InputError(f"{where}: {field!r} must be a list of texts or objects, or one text")
    return value


def load(path: Path, limit: int | None = None) -> list[tuple[Case, Gold]]:
    """Load a claims file (``claim``/``label``) or a QA file (``question``/``answer``/``label``)."""
    pairs, seen = [], {}
    for number, row in read_rows(Path(path)):
        where = f"{path}:{number}"
        if not isinstance(row, dict):
            raise InputError(f"{where}: not a JSON object (a case has 'id', 'claim' or 'question', 'label')")
        try:
            case_id = _case_id(row["id"], where)
            if "claim" in row:
                case = Case(
                    id=case_id,
                    claim=_text(row, "claim", where),
                    question=row.get("source_question") or "",
                    evidence=_evidence_of(_listed(row.get("evidence", []), "evidence", where)),
                )
            else:  # HaluEval QA: checked as the claim "the answer to Q is A"
                question, answer = _text(row, "question", where), _text(row, "answer", where)
                case = Case(
                    id=case_id,
                    question=question,
                    claim=f'The answer to the question "{question}" is "{answer}".',
                    evidence=_evidence_of(_listed(row.get("knowledge", ""), "knowledge", where)),
                    answer=answer,
                )
            meta = row.get("meta") or {}
            gold = Gold(
                label=_label(row["label"], where),
                label_4way=_four_way(meta.get("label_4way"), where),
                evidence_text=tuple(e.text for e in case.evidence),
            )
        except KeyError as exc:
            raise InputError(f"{where}: missing field {exc}") from exc
        except ValidationError as exc:
            error = exc.errors()[0]
            field_name = ".".join(str(part) for part in error["loc"])
            raise InputError(
                f"{where}: evidence {field_name}: {error['msg'][0].lower()}{error['msg'][1:]}"
            ) from None
        if case_id in seen:
            # predictions are stored by id: a second case with it would take the first one's answer
            raise InputError(f"{where}: repeats the id {case_id!r} of line {seen[case_id]}")
        seen[case_id] = number
        pairs.append((case, gold))
        if limit and len(pairs) >= limit:
            break
    if not pairs:
        raise InputError(f"{path} holds no case")
    return pairs


def _case_id(value: object, where: str) -> str:
    """An id as text: integers are read as their digits; anything else but a string is an error."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise InputError(f"{where}: id {value!r} is not a non-empty string or an integer")
    return str(value)


_LABEL_WORDS = {"true": True, "false": False, "1": True, "0": False}


def _four_way(value: object, where: str) -> str | None:
    """A four-way gold label as a verdict; a row without one is scored binary only.

    An unknown label is an error: falling back to binary would silently drop the row from the
    four-way scores and train SFT on the wrong target.
    """
    if value in (None, ""):
        return None
    verdict = _FOUR_WAY_SPELLINGS.get(_spelling(str(value)))
    if verdict is None:
        raise InputError(f"{where}: label_4way {value!r} is not one of {sorted(FOUR_WAY)}")
    return verdict


def _label(value: object, where: str) -> bool:
    """A gold label written as a boolean, 0/1 or true/false; anything else is an error.

    ``bool("false")`` would silently count such a label as true.
    """
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word not in _LABEL_WORDS:
        raise InputError(f"{where}: label {value!r} is not true/false or 1/0")
    return _LABEL_WORDS[word]


def read_evidence_file(path: Path, flag: str = "--evidence") -> list[Evidence]:
    """Read evidence for ``factcourt verify --evidence`` (or the ``flag`` that gave it); errors name the line.

    The file is a JSON list or JSONL of strings or objects with ``text`` (optional ``url``,
    ``title``).
    """
    text = read_text_file(path, "evidence file")
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):  # one JSON list: its own line and column, not a row's
            raise json_problem(str(path), exc) from exc
        items = [row for _, row in read_rows(path, "evidence")]
    evidence = []
    for index, item in enumerate(items, start=1):
        if isinstance(item, str):
            evidence.append(Evidence(text=item, source="given"))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            evidence.append(
                Evidence(
                    text=item["text"],
                    url=str(item.get("url", "")),
                    title=str(item.get("title", "")),
                    source="given",
                )
            )
        else:
            raise InputError(f"{path}: item {index} is neither a string nor an object with 'text'")
    if not any(e.text.strip() for e in evidence):
        raise InputError(f"{path} holds no evidence text; give at least one passage, or leave out {flag}")
    return evidence


def _first(item: dict, *keys: str) -> str:
    return next((str(item[k]).strip() for k in keys if item.get(k) not in (None, "")), "")


def load_seeds(path: Path) -> list[Seed]:
    """Short seed questions for the LongHalluQA builder: HalluQA's JSON list, or JSON/JSONL rows.

    HalluQA rows carry ``Question``, ``Best Answer1..4``, ``Source``, ``Category`` and ``Class``;
    other rows ``question`` (or ``prompt``), ``answers`` (or ``answer``), ``source`` and
    ``category``. The wrong answers are never read.
    """
    text = read_text_file(path, "seed file")
    try:
        data = json.loads(text)
        items = list(enumerate(data if isinstance(data, list) else [data], start=1))
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):  # HalluQA's one JSON list: its own line and column
            raise json_problem(str(path), exc) from exc
        items = read_rows(path, "seed")
    seeds, seen = [], set()
    for number, item in items:
        question = _first(item, "Question", "question", "prompt") if isinstance(item, dict) else ""
        if not question:
            raise InputError(f"{path}: item {number} has no question ('Question', 'question' or 'prompt')")
        answers = [_first(item, f"Best Answer{n}") for n in range(1, 5)]
        listed = item.get("answers") or ([item["answer"]] if item.get("answer") else [])
        seed = Seed(
            id=_first(item, "question_id", "id") or str(number),
            question=question,
            source=_first(item, "Source", "source"),
            answers=[a for a in answers if a] + [str(a).strip() for a in listed if str(a).strip()],
            kind=_first(item, "Category", "kind"),
            category=_first(item, "Class", "category", "topic"),
        )
        if seed.id in seen:
            raise InputError(f"{path}: item {number} repeats the id {seed.id!r}")
        seen.add(seed.id)
        seeds.append(seed)
    if not seeds:
        raise InputError(f"{path} holds no seed questions")
    return seeds
