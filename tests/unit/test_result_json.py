"""The JSON a user gets from check, verify, detect and audit on the simulated model, kept as fixtures.

The fixtures were written by the code before the registry of systems and the typed results:
the JSON is the same but for what CHANGELOG.md says changed (each result names its ``kind``).
"""

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from factcourt.cli import main

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "results"
SIM = ["--model", "sim", "--no-cache", "--json"]
ARGV = {
    "check": ["check", str(HERE / "check.txt"), "--search", "local", "--corpus", str(HERE / "corpus.jsonl")],
    "verify": [
        "verify",
        "--claim",
        "Paris is the capital of France.",
        "--evidence",
        str(HERE / "evidence.json"),
    ],
    "detect": [
        "detect",
        "--question",
        "What is the capital of France?",
        "--answer",
        "Paris is the capital of France.",
        "--knowledge",
        str(HERE / "evidence.json"),
    ],
}
AUDIT = {"model": "sim", "scale": "smoke", "cache": False, "search": "none", "audit_scenario_cap": 2}


def produce(kind: str) -> dict:
    """The JSON of ``kind`` run on the simulated model, as a user gets it."""
    if kind == "audit":
        import factcourt

        return factcourt.audit(["social_rumor"], **AUDIT).model_dump(mode="json")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main([*ARGV[kind], *SIM]) == 0
    return json.loads(printed.getvalue())


def _portable(value):
    """The JSON without what differs from run to run: the fixture folder's path, the calls' wall time."""
    text = json.dumps(value).replace(json.dumps(str(HERE))[1:-1], "<fixtures>")
    return json.loads(re.sub(r'"ms": \d+', '"ms": 0', text))


@pytest.mark.parametrize("kind", ["check", "verify", "detect", "audit"])
def test_json_is_what_it_was_and_names_its_kind(kind):
    before = json.loads((HERE / f"{kind}.json").read_text(encoding="utf-8"))
    now = _portable(produce(kind))
    assert now.pop("kind") == kind
    assert now == before
