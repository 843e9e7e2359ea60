"""The leaderboard end to end on the embedded llama.cpp path with SmolLM2 (target, expert and checker)."""

import json
from pathlib import Path

import pytest

from factcourt.cli import main
from factcourt.providers import local_server

pytestmark = pytest.mark.integration

PROMPTS = Path(__file__).parent.parent / "fixtures" / "longform_prompts.jsonl"


def test_leaderboard_on_the_embedded_model(smollm2, tmp_path):
    """SmolLM2-135M proves the plumbing, not the ranking: every stage runs on the real server and
    the real embedder, and each prompt is scored or named failed, never silently missing."""
    out = tmp_path / "lb"
    args = [
        "leaderboard",
        "--prompts", str(PROMPTS),
        "--targets", "local:smollm2",
        "--experts", "local:smollm2",
        "--limit", "1",
        "--out", str(out),
        "--model", "local:smollm2",
        "--no-cache",
        "--set", "answer_max_tokens=200",
        "--set", "max_tokens=256",
        "--set", "retries=0",
        "--set", "max_claims=6",
    ]  # fmt: skip
    code = main(args)
    assert code in (0, 1)
    summary = json.loads((out / "report.json").read_text())
    row = summary["report"]["rows"][0]
    assert row["model"] == "local:smollm2" and row["prompts"] == 1
    built = summary["report"]["pyramids"]
    failures = row["answer_failed"] + row["check_failed"] + row["score_failed"]
    failures += built["failed"] + built["short_of_experts"]
    assert row["scored"] == 1 or failures  # scored, or the failure is named
    assert (code == 1) == bool(failures)
    assert row["cost"]["answer"]["calls"] >= 1 and row["cost"]["answer"]["input_tokens"] > 0
    pyramid = json.loads(next((out / "pyramids").glob("*.json")).read_text())
    assert pyramid["answered"] == ["local:smollm2"] or pyramid["failed"]
    assert all(g["layer"] == 1 and g["weight"] == 2.0 for g in pyramid["claims"])  # G = 1
    # resumes: a second run keeps every finished record and redoes only the failed ones
    finished = [r for r in (out / "records.jsonl").read_text().splitlines() if '"error": null' in r]
    assert main(args) in (0, 1)
    kept = (out / "records.jsonl").read_text().splitlines()
    assert all(r in kept for r in finished)
    local_server.stop_all()
    assert local_server._current is None
