"""Predictions written one line at a time, so a killed benchmark resumes where it stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class PredictionStore:
    """An append-only JSONL file of finished (method, case) predictions."""

    def __init__(self, path: Path):
        """Open (or create) the file; records already there count as done."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):  # a killed run's half line: never glue onto it
                with path.open("a", encoding="utf-8") as fh:
                    fh.write("\n")
            for line in text.splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the half-written line of a killed run: that case is redone
                self.records[(record["method"], record["id"])] = record

    def done(self, method: str, case_id: str) -> bool:
        """Whether this prediction is already stored."""
        return (method, case_id) in self.records

    def succeeded(self, method: str, case_id: str) -> bool:
        """Whether this prediction is stored without an error."""
        return self.done(method, case_id) and not self.records[(method, case_id)].get("error")

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished prediction and flush it to disk before returning."""
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.records[(record["method"], record["id"])] = record
