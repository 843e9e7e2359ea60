"""Records written one line at a time, so a killed benchmark or batch resumes where it stopped."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from factcourt.errors import ConfigError, InputError
from factcourt.inputs import decode, read_bytes, read_text_file


def _unwritable(path: Path, exc: OSError) -> ConfigError:
    return ConfigError(f"cannot write to {path}: {exc.strerror or exc}; give another --out")


class PredictionStore:
    """An append-only JSONL file of finished records, each known by its ``key`` fields.

    A benchmark's are (method, case) predictions; a batch's are results by row id.
    """

    def __init__(self, path: Path, key: tuple[str, ...] = ("method", "id")):
        """Open (or create) the file; records already there count as done."""
        self.path = path
        self.key = key
        self.records: dict[tuple[str, ...], dict[str, Any]] = {}
        self.repeated: list[tuple[str, ...]] = []
        """Keys stored more than once: a record made again (a failed one), or two writers at once."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text, tail = _whole_lines(path) if path.exists() else ("", b"")
            # opened before the run, not at its first record: a place it cannot write is refused now
            with path.open("a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise _unwritable(path, exc) from None
        # a killed run's half line: dropped before the first record is appended (a reader that
        # never appends leaves the file as it found it: a live run may be writing that line)
        self._torn = bool(tail)
        lines = text.splitlines()
        try:  # a whole record that only lost its line end counts; a fragment is made again
            whole = json.loads(tail.decode("utf-8")) if tail else None
        except ValueError:
            whole = None
        if isinstance(whole, dict) and all(k in whole for k in key):
            lines.append(tail.decode("utf-8"))
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                if line.startswith("{"):
                    continue  # the half-written line of a killed run: that case is redone
                record = None  # a line of text: another program's file
            if not isinstance(record, dict) or any(k not in record for k in key):
                # another program's file: appending to it would spoil it and reading it cannot resume
                named = " and ".join(f"'{k}'" for k in key)
                raise ConfigError(
                    f"{path}:{number}: not a factcourt record (an object with {named}); give another --out"
                )
            if (known := self._key(record)) in self.records:
                self.repeated.append(known)
            self.records[known] = record

    def _key(self, record: dict[str, Any]) -> tuple[str, ...]:
        return tuple(record[k] for k in self.key)

    def done(self, *key: str) -> bool:
        """Whether the record of this key (e.g. method and case id) is already stored."""
        return key in self.records

    def succeeded(self, *key: str) -> bool:
        """Whether the record of this key is stored without an error."""
        return self.done(*key) and not self.records[key].get("error")

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished prediction and flush it to disk before returning."""
        if self._torn:
            drop_torn_line(self.path)
            self._torn = False
        append_line(self.path, json.dumps(record, ensure_ascii=False), mended=True)
        self.records[self._key(record)] = record


def _whole_lines(path: Path) -> tuple[str, bytes]:
    """The text of ``path``'s whole lines, and the bytes of a last line without its line end.

    The fragment is kept apart: cut in the middle of a character, it is no UTF-8 text.
    """
    data = read_bytes(path)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data.endswith(b"\n"):
        return decode(data, str(path)), b""
    cut = data.rfind(b"\n") + 1
    return decode(data[:cut], str(path)), data[cut:]


def drop_torn_line(path: Path) -> None:
    """End ``path`` with a whole line: a last line without its line end is cut, or ended.

    A writer killed in the middle of its last line leaves a fragment: appending after it would
    leave the fragment inside the file, which then no longer parses line by line, so it is cut
    (the record it began is made again). A last line that is a whole JSON value only lost its
    line end: it is kept and ended. A missing file is left missing.
    """
    try:
        with path.open("r+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            if not size:
                return
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return
            start, block = size, 1 << 16
            while start > 0:  # back to the last line end, a block at a time
                start = max(0, start - block)
                fh.seek(start)
                found = fh.read(min(block, size - start)).rfind(b"\n")
                if found >= 0:
                    start += found + 1
                    break
            fh.seek(start)
            try:
                json.loads(fh.read())
            except ValueError:  # not JSON, or not UTF-8
                fh.truncate(start)
            else:
                fh.write(b"\n")
    except FileNotFoundError:
        pass


def append_line(path: Path, line: str, *, mended: bool = False) -> None:
    """Append one JSONL line to ``path``, flushed to disk; a torn last line is dropped first.

    ``mended``: the caller has already dropped it (a store does so once, not at every record).
    """
    if not mended:
        drop_torn_line(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def write_whole(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a reader never finds half of it.

    The text goes to a file beside it, flushed to disk, which then takes its name: a write cut
    short (a full disk, a kill) leaves the file as it was. One that cannot be written is a
    ConfigError that names it.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise _unwritable(path, exc) from None


def write_jsonl(path: Path, records: Iterable[Any]) -> None:
    """Write ``records`` as a whole JSONL file, one line each (:func:`write_whole`)."""
    write_whole(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


# what a spreadsheet reads as a formula at a cell's start (OWASP's list): such a cell gets a
# quote before it, which shows it as text, so a question or claim from a hostile source cannot
# run =HYPERLINK(...) or =cmd|... in the reviewer's spreadsheet
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if not text.startswith(FORMULA_STARTS):
        return text
    try:
        float(text)  # a negative number is no formula
    except ValueError:
        return "'" + text
    return text


def sheet_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """A CSV sheet for people to open in a spreadsheet, every cell kept from reading as a formula."""
    sheet = io.StringIO(newline="")
    writer = csv.DictWriter(sheet, columns)
    writer.writeheader()
    writer.writerows({k: _cell(v) for k, v in row.items()} for row in rows)
    return sheet.getvalue()


def sheet_rows(text: str) -> list[dict[str, Any]]:
    """The rows of a sheet :func:`sheet_text` wrote, as a spreadsheet may save it again.

    Saved with ``;`` or tabs between cells (as spreadsheets do in many locales) it reads the
    same; a cell's quote against formulas is taken off.
    """
    text = text.lstrip("\ufeff")
    try:  # the header's separator; the rest is read as excel writes it (quotes doubled)
        delimiter = csv.Sniffer().sniff(text.split("\n", 1)[0], delimiters=",;\t").delimiter
    except csv.Error:  # one column, or none
        delimiter = ","
    return [
        {k: _uncell(v) for k, v in row.items()}
        for row in csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    ]


def _uncell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def keep_settings(out: Path, settings: dict[str, Any], what: str, *, record: bool = True) -> None:
    """Record the ``settings`` of the first run in ``out``; refuse a later run with other ones.

    The records of a folder are reused, so a changed dataset, model or checker would mix old and
    new results in one table. A folder without settings.json (an older version's, or a fresh one)
    gets these, unless ``record`` is false (a run that runs nothing, such as --report-only).
    """
    path = out / "settings.json"
    if path.is_file():
        before = json.loads(read_text_file(path))
        changed = [
            f"{k} {repr(before[k]) if k in before else '(not recorded)'} -> {v!r}"
            for k, v in settings.items()
            if k not in before or before[k] != v
        ]
        if changed:
            raise InputError(
                f"{out} holds a {what} run with other settings ({'; '.join(changed)}): "
                "its stored results would be mixed with new ones; use a new --out"
            )
    elif record:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _unwritable(path, exc) from None
        write_whole(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
