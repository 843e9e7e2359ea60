"""Bad settings and inputs are refused before any model call (exit 2, one sentence naming them)."""

import json
import logging

import pytest

from factcourt.cli import main
from tests.faults import one_error
from tests.faults.stub import dead_url

CLAIM = ["verify", "--claim", "Paris is in France.", "--search", "none"]


@pytest.mark.parametrize(
    "model, words",
    [
        ("sim:abc", "model 'sim:abc': sim:LATENCY takes seconds per call"),
        ("sim:-1", "model 'sim:-1': sim:LATENCY takes seconds per call"),
        ("sim:nan", "model 'sim:nan': sim:LATENCY takes seconds per call"),
        ("", "a model name is empty"),
        (" ", "a model name is empty"),
    ],
)
def test_a_model_name_that_names_nothing_is_bad_input(model, words, capsys):
    assert main([*CLAIM, "--model", model]) == 2
    assert words in one_error(capsys.readouterr().err)


def test_an_empty_role_model_is_bad_input(capsys):
    assert main([*CLAIM, "--model", "sim", "--role-model", "judge="]) == 2
    assert "a model name is empty" in one_error(capsys.readouterr().err)


def test_an_unusable_cache_folder_names_the_variable(tmp_path, monkeypatch, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(taken))
    assert main([*CLAIM, "--model", "sim"]) == 2
    said = one_error(capsys.readouterr().err).replace(" ", "")  # the long path is wrapped
    assert f"FACTCOURT_CACHE_DIR={taken}cannotbeused" in said and "Error:" not in said


@pytest.mark.parametrize("command", ["check", "verify"])
def test_a_question_over_the_limit_is_bad_input(command, tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Paris is in France.", encoding="utf-8")
    head = ["check", str(text)] if command == "check" else ["verify", "--claim", "Paris is in France."]
    assert main([*head, "--question", "Why? " * 24_000, "--model", "sim", "--search", "none"]) == 2
    assert "the question has 120,000 characters; the limit is 4,000" in one_error(capsys.readouterr().err)


def test_a_seed_over_the_limit_is_bad_input_naming_it(tmp_path, capsys):
    seeds = tmp_path / "seeds.jsonl"
    rows = [{"id": "short", "question": "Where is Paris?"}, {"id": "long", "question": "Why? " * 300}]
    seeds.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    argv = ["build-longqa", "--seeds", str(seeds), "--out", str(tmp_path / "out"), "--model", "sim"]
    assert main([*argv, "--search", "none"]) == 2
    said = one_error(capsys.readouterr().err)
    assert "seed long: the seed question has 1499 characters; the limit is 1000" in said
    assert "run again" not in said


def test_an_endpoint_run_goes_through_the_proxy_the_environment_names(stub, monkeypatch, capsys, caplog):
    """The stub is the proxy: the endpoint itself (a dead port) answers only through it."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", stub.url.removesuffix("/v1"))
    caplog.set_level(logging.WARNING)
    argv = [*CLAIM, "--base-url", dead_url(), "--model", "m", "--no-cache", "--set", "retries=0"]
    assert main(argv) == 0, capsys.readouterr().err
    assert stub.requests == 1
    assert not [r for r in caplog.records if "proxy" in r.getMessage()]


def test_an_audit_of_a_target_on_its_own_endpoint_runs(stub, tmp_path, capsys):
    """The run's key resolved the target without its endpoint: every such audit was 'bad input'."""
    stub.mode = "http500"
    argv = ["audit", "--target-model", "m", "--target-base-url", stub.url, "--model", "sim"]
    # no retries: what is checked is where the target's calls go, not how often a 500 is retried
    options = ["--scale", "smoke", "--out", str(tmp_path / "a"), "--search", "none", "--quiet"]
    code = main([*argv, *options, "--set", "retries=0"])
    said = one_error(capsys.readouterr().err)
    assert code == 1 and "no case was graded" in said and "OPENAI_API_KEY" not in said
