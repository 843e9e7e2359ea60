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
from factcourt.inputs import read_json, read_rows
from factcourt.state.records import Evidence

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


def _evidence_of(items: list[object]) -> tuple[Evidence, ...]:
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


def _text(row: dict[str, Any], field: str, where: str) -> str:
    """A field that must hold text: else one sentence naming the line (a method would judge "None")."""
    value = row[field]
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {field!r} must be a non-empty text, not {json.dumps(value)}")
    return value


def _listed(value: Any, field: str, where: str) -> list[object]:
    """Evidence as a list of texts or objects; one text is one piece (not one per character)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise InputError(f"{where}: {field!r} must be a list of texts or objects, or one text")
    return value


def averitec_row(item: dict[str, Any], index: int, split: str) -> dict[str, Any]:
    """One claim of AVeriTeC's own JSON file (``dev.json``) in the shared schema.

    Its id is the shared copy's (``averitec-dev-000``), so both files fall in the same parts.
    Each answer becomes one "Q: .. A: .." piece with its source URL, a Boolean one followed by
    the annotator's explanation, word for word as in the shared ``claims.jsonl``.
    """
    evidence = [
        {
            "text": f"Q: {question['question']} A: {answer['answer']}"
            + (f". {answer['boolean_explanation']}" if answer.get("boolean_explanation") else ""),
            "url": answer.get("source_url") or "",
        }
        for question in item.get("questions") or []
        for answer in question.get("answers") or []
    ]
    return {
        "id": f"averitec-{split}-{index:03d}",
        "claim": item["claim"],
        "label": item["label"] == "Supported",
        "evidence": evidence,
        "meta": {"label_4way": item["label"]},
    }


def _rows(path: Path) -> list[tuple[str, Any]]:
    """Each row with where it is: a JSONL file's lines, or the claims of AVeriTeC's JSON list (.json)."""
    if path.suffix != ".json":
        return [(f"{path}:{number}", row) for number, row in read_rows(path)]
    items = read_json(path, "dataset")
    if not isinstance(items, list):
        raise InputError(f"{path}: not a JSON list of AVeriTeC claims (a .jsonl file has one case a line)")
    split = path.stem  # AVeriTeC's dev.json: ids averitec-dev-000.., as in the shared claims.jsonl
    rows = []
    for index, item in enumerate(items):
        where = f"{path}: claim {index}"
        try:
            rows.append((where, averitec_row(item, index, split)))
        except (KeyError, TypeError) as exc:
            raise InputError(f"{where}: not an AVeriTeC claim (needs 'claim', 'label', 'questions'): {exc}")
    return rows


def load(path: Path, limit: int | None = None) -> list[tuple[Case, Gold]]:
    """Load a claims file (``claim``/``label``), a QA file (``question``/``answer``/``label``).

    AVeriTeC's own JSON list (``dev.json``) is read as a claims file (:func:`averitec_row`).
    """
    pairs: list[tuple[Case, Gold]] = []
    seen: dict[str, str] = {}
    for where, row in _rows(Path(path)):
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
            label, label_4way = _gold(row["label"], meta, where)
            gold = Gold(
                label=label,
                label_4way=label_4way,
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
            raise InputError(f"{where}: repeats the id {case_id!r} of {seen[case_id]}")
        seen[case_id] = where
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


# a claims_4way.jsonl row (label null) whose class a verdict can name; binary scores count it FALSE
_NULL_LABELS = {"not_enough_info": "not_enough_evidence", "disputed": "conflicting_evidence"}


def _gold(value: object, meta: dict[str, Any], where: str) -> tuple[bool, str | None]:
    """The binary gold label and the four-way one of a row."""
    if value is None and (norm := meta.get("label_norm")) is not None:
        if norm not in _NULL_LABELS:
            raise InputError(
                f"{where}: label null with meta.label_norm {norm!r}: "
                f"only {sorted(_NULL_LABELS)} can be scored"
            )
        return False, _NULL_LABELS[norm]
    return _label(value, where), _four_way(meta.get("label_4way"), where)


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
