"""A benchmark over an endpoint that fails gives no figures that pass for results: exit 1 and the reason."""

import json

from factcourt.cli import main
from tests.faults import ANSWERS_S, one_error

NO_RETRIES = ["--set", "retries=0", "--set", f"timeout_s={ANSWERS_S}"]


def test_a_sweep_whose_recordings_failed_chooses_nothing(stub, qa_dataset, tmp_path, capsys):
    stub.mode = "http500"
    out = tmp_path / "sweep"
    argv = ["bench", "sweep", "--dataset", f"{qa_dataset}:given", "--limit", "2", "--part", "all"]
    assert main([*argv, "--base-url", stub.url, "--model", "m", *NO_RETRIES, "--out", str(out)]) == 1
    said = one_error(capsys.readouterr().err)
    assert "failed recordings" in said and "answered HTTP 500" in said
    summary = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    assert summary["chosen"] is None and list(summary["failed"].values()) == [2]
    assert "none is chosen" in (out / "sweep.md").read_text(encoding="utf-8")


def test_a_clerk_bench_whose_clerk_failed_gives_no_rate(stub, tmp_path, capsys):
    stub.mode = "http500"
    fixture = tmp_path / "f.jsonl"
    row = {
        "response": "The tower is in Paris. It opened in 1889.",
        "sentence": "It opened in 1889.",
        "expect": "tower",
    }
    fixture.write_text(json.dumps(row) + "\n", encoding="utf-8")
    argv = ["bench", "clerk", "--fixture", str(fixture), "--base-url", stub.url, "--model", "m", *NO_RETRIES]
    assert main(argv) == 1
    captured = capsys.readouterr()
    said = one_error(captured.err)
    assert "the Clerk failed, so no rate is given" in said and "answered HTTP 500" in said
    assert "Self-contained claims" not in captured.out
