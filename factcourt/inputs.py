"""The user's files as text (UTF-8, or UTF-16 with a byte-order mark), and a text's language.

Text, evidence, corpus and dataset files all go through here, so each gets the same exit code
(2) and the same hint instead of a raw ``UnicodeDecodeError``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from factcourt.errors import InputError
from factcourt.state.longqa import Seed
from factcourt.state.records import Evidence


def decode(data: bytes, name: str) -> str:
    """Decode UTF-8 (or UTF-16 with a byte-order mark); anything else is rejected, not guessed."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{name} is not UTF-8 text (bad byte at offset {exc.start}); convert it first, "
                "e.g. `iconv -f latin1 -t utf-8`"
            ) from exc
    if "\x00" in text:
        # ASCII in UTF-16 without a byte-order mark decodes as UTF-8 with a NUL every other byte
        raise InputError(
            f"{name} holds NUL bytes: UTF-16 without a byte-order mark, or not text at all; "
            "convert it first, e.g. `iconv -f utf-16le -t utf-8`"
        )
    return text


# Python keeps bytes that are not UTF-8 (of a command line, a file name) as lone surrogates,
# "\udcff" for 0xff; no model, cache key or JSON file takes them
_SURROGATE = re.compile("[\ud800-\udfff]")


def undecodable(value: Any) -> str | None:
    """Why ``value``'s text (a string, or one in its lists, mappings or models) is not UTF-8, or None."""
    if isinstance(value, str):
        if (found := _SURROGATE.search(value)) is None:
            return None
        code = ord(found.group())
        what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        return f"{what} at character {found.start() + 1} is not UTF-8 text"
    if isinstance(value, BaseModel):
        value = dict(value)
    if isinstance(value, dict):
        value = [*value, *value.values()]
    if isinstance(value, list | tuple | set | frozenset):
        return next(filter(None, map(undecodable, value)), None)
    return None


# A terminal's escape sequences as a whole (so "\x1b[31m" goes, not only its ESC): OSC, DCS, PM,
# APC and SOS strings up to their terminator (never past the line), CSI, then the short ones; the
# 8-bit CSI and OSC too
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?"
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x9d[^\x07\x9c\n]*(?:\x07|\x9c)?"
)
# what is left of the C0 and C1 controls and DEL; tabs and line ends stay
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences and control characters; tabs and line ends stay.

    User text (a file, a batch row, a claim) reaches the Clerk, the tables and the terminal: an
    escape sequence in it would retitle or clear the terminal, or become a claim of its own. A
    vertical tab or form feed ends a line, as it does for a reader.
    """
    text = _ESCAPE_SEQUENCE.sub("", text)
    return _CONTROL.sub("", text.replace("\x0b", "\n").replace("\x0c", "\n"))


def read_text_file(path: Path, what: str = "file") -> str:
    """The text of the file at ``path`` (see :func:`decode`); a folder or a missing file is bad input.

    ``what`` names the file in the message ("evidence file"): a folder is said to be a folder.
    """
    return decode(read_bytes(path, what), str(path))


def read_bytes(path: Path, what: str = "file") -> bytes:
    """The bytes of the file at ``path``; a folder, a missing file or one that cannot be read is bad input."""
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"no such {what}: {path}") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc


def json_problem(where: str, exc: json.JSONDecodeError, line: int | None = None) -> InputError:
    """Bad JSON in one sentence naming the place: file, line (``line`` for a JSONL row) and column."""
    return InputError(f"{where}:{line or exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})")


# a question goes with every prompt of its run: as long as detect's question at most
MAX_QUESTION_CHARS = 4000


def long_question(question: str) -> str | None:
    """Why a question is too long to go with every prompt, or None."""
    if len(question) > MAX_QUESTION_CHARS:
        return f"the question has {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
    return None


_CJK = re.compile(r"[\u4e00-\u9fff]")


def detect_language(text: str) -> str:
    """'zh' when a fifth or more of the letters are Chinese characters, else 'en'."""
    letters = [c for c in text if c.isalpha()]
    return "zh" if letters and len(_CJK.findall(text)) / len(letters) >= 0.2 else "en"


# a script's language where the script names one; another script is named by itself ('arabic',
# 'cyrillic'): the language is unknown, only that no Latin-script corpus holds it
SCRIPT_LANGUAGES = {
    "CJK": "zh",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "HANGUL": "ko",
    "GREEK": "el",
    "HEBREW": "he",
    "THAI": "th",
    "GEORGIAN": "ka",
    "ARMENIAN": "hy",
}


def _script(letter: str) -> str:
    first = unicodedata.name(letter, "LATIN").split(" ")[0]
    return "en" if first == "LATIN" else SCRIPT_LANGUAGES.get(first, first.lower())


def written_language(text: str) -> str:
    """The language of ``text`` as far as its letters' script tells, for a corpus's coverage.

    'zh' as :func:`detect_language` says it; else a script that writes a fifth or more of the
    letters names it ('ar'-script text is 'arabic'); Japanese from its kana, which mix with kanji;
    else 'en' (a Latin-script language is not told apart from English).
    """
    scripts = Counter(_script(c) for c in text if c.isalpha())
    letters = scripts.total()
    if scripts["ja"] >= 0.1 * letters > 0:
        return "ja"
    if detect_language(text) == "zh":
        return "zh"
    other = [(n, script) for script, n in scripts.items() if script != "en" and n >= 0.2 * letters]
    return max(other)[1] if other else "en"


def first_complaint(exc: ValidationError) -> str:
    """Pydantic's first complaint as ``field=value: what is wrong``, without its multi-line preamble."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    value = json.dumps(first["input"], default=str)
    # a scalar is shown; a whole object (a missing field's parent) would drown the sentence
    shown = f"={value}" if field and not isinstance(first["input"], dict | list) and len(value) <= 80 else ""
    said = first["msg"][:1].lower() + first["msg"][1:]
    return f"{field}{shown}: {said}" if field else said


def read_json(path: Path, what: str) -> Any:
    """A file's one JSON value; bad JSON is one sentence naming the file, line and column."""
    text = read_text_file(path, f"{what} file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise json_problem(str(path), exc) from exc


def read_items(path: Path, what: str) -> list[tuple[int, object]]:
    """The items of a JSON list (a lone value is one item) or the rows of a JSONL file, numbered from 1."""
    text = read_text_file(path, f"{what} file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):  # one JSON list: its own line and column, not a row's
            raise json_problem(str(path), exc) from exc
        return read_rows(path, what)
    return list(enumerate(data if isinstance(data, list) else [data], start=1))


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


def read_evidence_file(path: Path, flag: str = "--evidence") -> list[Evidence]:
    """Read evidence for ``factcourt verify --evidence`` (or the ``flag`` that gave it); errors name the line.

    The file is a JSON list or JSONL of strings or objects with ``text`` (optional ``url``,
    ``title``).
    """
    evidence = []
    for index, item in read_items(path, "evidence"):
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


def _first(item: dict[str, Any], *keys: str) -> str:
    return next((str(item[k]).strip() for k in keys if item.get(k) not in (None, "")), "")


def load_seeds(path: Path) -> list[Seed]:
    """Short seed questions for the LongHalluQA builder: HalluQA's JSON list, or JSON/JSONL rows.

    HalluQA rows carry ``Question``, ``Best Answer1..4``, ``Source``, ``Category`` and ``Class``;
    other rows ``question`` (or ``prompt``), ``answers`` (or ``answer``), ``source`` and
    ``category``. The wrong answers are never read.
    """
    seeds, seen = [], set()
    for number, item in read_items(path, "seed"):
        if not isinstance(item, dict) or not (question := _first(item, "Question", "question", "prompt")):
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
