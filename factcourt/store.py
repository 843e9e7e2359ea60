"""Records written one line at a time, so a killed benchmark or batch resumes where it stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from factcourt.errors import ConfigError, InputError
from factcourt.inputs import read_text_file


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
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = read_text_file(path) if path.exists() else ""
            # opened before the run, not at its first record: a place it cannot write is refused now
            with path.open("a", encoding="utf-8") as fh:
                if text and not text.endswith("\n"):  # a killed run's half line: never glue onto it
                    fh.write("\n")
        except OSError as exc:
            raise _unwritable(path, exc) from None
        for number, line in enumerate(text.splitlines(), start=1):
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
            self.records[self._key(record)] = record

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
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.records[self._key(record)] = record


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
            path.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            raise _unwritable(path, exc) from None
