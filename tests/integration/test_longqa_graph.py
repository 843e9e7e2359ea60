"""``factcourt build-longqa`` on the embedded llama.cpp path with SmolLM2: every stage on the real server."""

import json
from pathlib import Path

import pytest

from factcourt.cli import main
from factcourt.providers import local_server

pytestmark = pytest.mark.integration

SEEDS = Path(__file__).parent.parent / "fixtures" / "halluqa_seeds.json"


def test_build_a_seed_offline_on_the_embedded_model(smollm2, tmp_path, capsys):
    """SmolLM2-135M proves the plumbing, not the questions: the seed is built or names why not.

    One seed runs every stage on the real server; a second one only ran them again (several
    seeds, their concurrency and their records are the scripted unit tests' work).
    """
    out = tmp_path / "set"
    args = ["build-longqa", "--seeds", str(SEEDS), "--out", str(out), "--limit", "1", "--json", "--no-cache"]
    settings = ["--set", f"local_weights={json.dumps(str(smollm2))}", "--set", "max_tokens=256"]
    code = main([*args, *settings, "--set", "retries=0", "--set", "longqa_max_facts=2"])
    local_server.stop_all()
    report = json.loads(capsys.readouterr().out)
    stats = report["stats"]
    assert report["usage"]["calls"] >= 1 and report["usage"]["input_tokens"] > 0
    outcomes = ("built", "no_verified_knowledge", "not_built", "failed")
    assert stats["seeds"] == 1 and sum(stats[k] for k in outcomes) == 1
    assert code == (1 if stats["failed"] else 0)
    assert all(why for why in report["failures"].values()), "a failed seed with no reason"
    assert all(why for why in report["not_built"].values()), "an unbuilt seed with no reason"
    built = [json.loads(x) for x in (out / "built.jsonl").read_text(encoding="utf-8").splitlines()]
    for record in built:
        for triple in record["triples"]:  # every fact the verifier saw has an outcome and a reason
            assert triple["outcome"] and triple["reason"]
        assert record["status"] != "built" or record["question"]
    assert (out / "review.csv").is_file() and (out / "report.md").is_file()
    assert local_server._current is None
