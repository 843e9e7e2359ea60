"""The user's files as text (UTF-8, or UTF-16 with a byte-order mark), and a text's language.

Text, evidence, corpus and dataset files all go through here, so each gets the same exit code
(2) and the same hint instead of a raw ``UnicodeDecodeError``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from factcourt.errors import InputError


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


def read_text_file(path: Path, what: str = "file") -> str:
    """The text of the file at ``path`` (see :func:`decode`); a folder or a missing file is bad input.

    ``what`` names the file in the message ("evidence file"): a folder is said to be a folder.
    """
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"no such {what}: {path}") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    return decode(data, str(path))


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


def first_complaint(exc: ValidationError) -> str:
    """Pydantic's first complaint as ``field=value: what is wrong``, without its multi-line preamble."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    value = json.dumps(first["input"], default=str)
    # a scalar is shown; a whole object (a missing field's parent) would drown the sentence
    shown = f"={value}" if field and not isinstance(first["input"], dict | list) and len(value) <= 80 else ""
    said = first["msg"][:1].lower() + first["msg"][1:]
    return f"{field}{shown}: {said}" if field else said
