"""The user's files as text (UTF-8, or UTF-16 with a byte-order mark), and a text's language.

Text, evidence, corpus and dataset files all go through here, so each gets the same exit code
(2) and the same hint instead of a raw ``UnicodeDecodeError``.
"""

from __future__ import annotations

import re
from pathlib import Path

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


def read_text_file(path: Path) -> str:
    """The text of the file at ``path`` (see :func:`decode`); a folder or a missing file is bad input."""
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"no such file: {path}") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    return decode(data, str(path))


_CJK = re.compile(r"[\u4e00-\u9fff]")


def detect_language(text: str) -> str:
    """'zh' when a fifth or more of the letters are Chinese characters, else 'en'."""
    letters = [c for c in text if c.isalpha()]
    return "zh" if letters and len(_CJK.findall(text)) / len(letters) >= 0.2 else "en"
