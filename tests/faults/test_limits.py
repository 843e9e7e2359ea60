"""Bad input is refused in one sentence with exit 2 before any call; failures read as one sentence (issue 54).

Items 10 (report-html's URL), 12 (bounds on rounds and retries), 13 (an answer with wrong
fields), 14 (a batch row too long to check) and 17 (bench clerk's fixture from any folder).
"""

import json

import pytest

from factcourt.cli import main
from tests.faults import one_error

NO_SEARCH = ["--search", "none", "--no-cache"]


def _text(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text("The Eiffel Tower is in Paris.\n", encoding="utf-8")
    return text


def test_report_html_refuses_a_url_that_is_none_with_exit_2(tmp_path, capsys):
    argv = ["report-html", "--url", "notaurl", "--thread", "t1", "--out", str(tmp_path / "r.html")]
    assert main(argv) == 2
    assert "--url" in one_error(capsys.readouterr().err)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--rounds", "99999999999999999999"], "rounds"),
        (["--rounds", "100"], "rounds"),
        (["--set", "rounds=1000"], "rounds"),
        (["--set", "retries=1000000"], "retries"),
    ],
)
def test_rounds_and_retries_are_bounded_before_any_call(extra, named, tmp_path, scripted, capsys):
    argv = ["check", str(_text(tmp_path)), "--model", "scripted", *NO_SEARCH, *extra]
    assert main(argv) == 2
    assert named in one_error(capsys.readouterr().err)
    assert not scripted.calls


def test_verify_and_detect_bound_rounds_too(scripted, capsys):
    argv = ["verify", "--claim", "Paris is in France.", "--model", "scripted", *NO_SEARCH]
    assert main([*argv, "--rounds", "100000"]) == 2
    assert "rounds" in one_error(capsys.readouterr().err)
    argv = ["detect", "--question", "Where is Paris?", "--answer", "In France.", "--model", "scripted"]
    assert main([*argv, *NO_SEARCH, "--set", "rounds=100000"]) == 2
    assert "rounds" in one_error(capsys.readouterr().err)
    assert not scripted.calls


@pytest.mark.parametrize("protocol", ["jury", "adversarial"])
def test_the_most_rounds_allowed_run_to_the_end(protocol, capsys):
    from factcourt.context.base import MAX_ROUNDS

    # every juror of a debate that never settles speaks every round: the graph's steps grow with them
    argv = ["verify", "--claim", "The Eiffel Tower is in Paris.", "--model", "sim", *NO_SEARCH, "--json"]
    argv += ["--protocol", protocol, "--rounds", str(MAX_ROUNDS), "--set", "first_pass=off"]
    argv += ["--jurors", "6", "--rule", "free", "--set", "settled_stop=false"] if protocol == "jury" else []
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["verdict"]


def test_the_step_limit_follows_the_rounds():
    from factcourt.context.base import MAX_ROUNDS
    from factcourt.context.claims import ClaimsContext
    from factcourt.runs import run_config

    def limit(rounds: int) -> int:
        ctx = ClaimsContext.make({"model": "sim", "rounds": rounds, "jurors": 6, "first_pass": "off"})
        return run_config(ctx)["recursion_limit"]

    # a speaker's turn is a few steps (retrieve, speak, route): six of them a round
    assert limit(MAX_ROUNDS) >= limit(1) + (MAX_ROUNDS - 1) * 6 * 3


def test_an_answer_with_a_missing_field_fails_in_one_sentence(tmp_path, scripted, capsys):
    scripted.script["Label"] = [{"reasoning": "It is in Paris."}]  # no verdict
    argv = ["check", str(_text(tmp_path)), "--model", "scripted", *NO_SEARCH, "--json"]
    assert main([*argv, "--set", "retries=0"]) == 1
    result = json.loads(capsys.readouterr().out)
    errors = [c["error"] for c in result["claims"]]
    assert errors and all(e for e in errors)
    for error in errors:
        assert "\n" not in error and "pydantic" not in error and "ValidationError" not in error, error
        assert "the field 'verdict' is missing" in error, error


def test_a_batch_row_too_long_to_check_is_rejected_not_failed(tmp_path, capsys):
    rows = tmp_path / "b.jsonl"
    rows.write_text(
        json.dumps({"id": "big", "text": "The Eiffel Tower is in Paris. " * 200_000}) + "\n"
        + json.dumps({"id": "ok", "text": "The Eiffel Tower is in Paris."}) + "\n"
        + json.dumps({"id": "esc", "text": "\x1b[2J"}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "r.jsonl"
    argv = ["check", "--batch", str(rows), "--out", str(out), "--model", "sim", *NO_SEARCH, "--json"]
    assert main(argv) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["failed"] == []
    rejected = {r["id"]: r["reason"] for r in summary["rejected"]}
    assert set(rejected) == {"big", "esc"}
    assert "the limit is" in rejected["big"] and "empty" in rejected["esc"]
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["ok"]


def test_bench_clerk_finds_its_fixture_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "clerk", "--model", "sim", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] > 0


def test_each_context_sets_its_own_step_limit_and_concurrency():
    from factcourt.context.base import BASE_STEPS
    from factcourt.context.hallucination import HallucinationContext
    from factcourt.context.pyramid import PyramidContext
    from factcourt.runs import run_config

    def limit(rounds: int) -> int:
        return HallucinationContext.make({"model": "sim", "rounds": rounds}).step_limit()

    assert limit(9) > limit(1) > BASE_STEPS == PyramidContext.make({"model": "sim"}).step_limit()
    # the graph's own roles bound its calls at a time: the judge on the embedded server, its slots
    ctx = HallucinationContext.make({"model": "sim", "role_models": {"judge": "local"}, "local_slots": 3})
    assert run_config(ctx)["max_concurrency"] == 3
    assert run_config(HallucinationContext.make({"model": "sim", "local_slots": 3}))["max_concurrency"] == 4
