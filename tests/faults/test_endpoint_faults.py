"""A model endpoint that refuses, talks garbage, fails or hangs: every run ends in one sentence.

Each fault must give exit 1 and a one-sentence reason that names it, never a traceback, never
an empty or partial result that passes for a finished one; what was checked before the fault is
kept in the result.
"""

import json

import pytest

from factcourt.cli import main
from tests.faults import ANSWERS_S, HUNG_S, one_error
from tests.faults.stub import dead_url

# the fault, and the words its one sentence must hold
FAULTS = {
    "refuse": "cannot connect to",
    "garbage": "not a chat completion",
    "invalid_json": "not a chat completion",
    "bad_json": "not valid JSON",
    "http500": "HTTP 500",
    "empty_choices": "not a chat completion",
    "hang": f"did not answer within timeout_s={HUNG_S} s",
}
# Beside a hung call, the stub's answers to the other claims race this time-out: ten times
# HUNG_S, as the test must wait that long
PART_WAY_HUNG_S = 10 * HUNG_S


def settings(fault: str, hung_s: float = HUNG_S) -> list[str]:
    """A short time-out only where every call to the stub hangs; one retry shows that retries happen."""
    timeout = hung_s if fault == "hang" else ANSWERS_S
    return ["--set", f"timeout_s={timeout}", "--set", "retries=1", "--no-cache", "--search", "none"]


def endpoint(stub, fault: str, fault_when: str = "") -> str:
    if fault == "refuse":
        return dead_url()
    stub.mode, stub.fault_when = fault, fault_when
    return stub.url


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failing_clerk_fails_check_with_its_reason(fault, stub, tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    out = tmp_path / "r.json"
    url = endpoint(stub, fault)
    argv = ["check", str(text), "--base-url", url, "--model", "m", *settings(fault)]
    code = main([*argv, "--json", "--out", str(out)])
    said = one_error(capsys.readouterr().err)
    assert code == 1
    assert "could not split the text into claims" in said and FAULTS[fault] in said
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["claims"] == []
    assert [d["reason"] for d in result["dropped"]] == ["clerk_failed"]
    assert FAULTS[fault] in result["dropped"][0]["error"]


@pytest.mark.parametrize("fault", [f for f in FAULTS if f != "refuse"])
def test_a_fault_part_way_keeps_every_finished_claim(fault, stub, tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one. Beta is two. Gamma is three.", encoding="utf-8")
    out = tmp_path / "r.json"
    url = endpoint(stub, fault, fault_when="Beta")
    args = ["check", str(text), "--base-url", url, "--model", "m", "--role-model", "clerk=sim"]
    code = main([*args, *settings(fault, PART_WAY_HUNG_S), "--json", "--out", str(out)])
    said = one_error(capsys.readouterr().err)
    reason = FAULTS[fault].replace(f"={HUNG_S} s", f"={PART_WAY_HUNG_S} s")
    assert code == 1 and "1 of 3 claims" in said and reason in said
    claims = {c["text"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}
    assert {t: c["verdict"] for t, c in claims.items()} == {
        "Alpha is one.": "refuted",
        "Beta is two.": None,
        "Gamma is three.": "refuted",
    }
    assert reason in claims["Beta is two."]["error"]


@pytest.mark.parametrize("fault", FAULTS)
def test_verify_fails_in_one_sentence(fault, stub, capsys):
    url = endpoint(stub, fault)
    claim = ["verify", "--claim", "The Moon orbits the Earth."]
    code = main([*claim, "--base-url", url, "--model", "m", *settings(fault)])
    said = one_error(capsys.readouterr().err)
    assert code == 1 and "the claim could not be checked" in said and FAULTS[fault] in said


def test_a_time_out_is_not_retried_and_a_server_error_is(stub, capsys):
    claim = ["verify", "--claim", "The Moon orbits the Earth.", "--model", "m"]
    assert main([*claim, *settings("hang"), "--base-url", endpoint(stub, "hang")]) == 1
    assert stub.seen(1) == 1, "a hung call was tried again"
    stub.requests = 0
    assert main([*claim, *settings("http500"), "--base-url", endpoint(stub, "http500")]) == 1
    assert stub.requests == 2  # retries=1
    capsys.readouterr()


@pytest.mark.parametrize("fault", ["garbage", "invalid_json"])
def test_a_reply_that_does_not_parse_is_retried_and_names_the_endpoint(fault, stub, capsys):
    claim = ["verify", "--claim", "The Moon orbits the Earth.", "--model", "m", *settings(fault)]
    assert main([*claim, "--base-url", endpoint(stub, fault)]) == 1
    assert stub.requests == 2  # retries=1
    said = one_error(capsys.readouterr().err)
    assert f"{stub.url} sent a reply that is not a chat completion" in said and "JSONDecodeError" not in said


def test_a_round_in_which_every_turn_failed_ends_the_debate(stub, tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one.", encoding="utf-8")
    url = endpoint(stub, "hang")
    args = ["check", str(text), "--base-url", url, "--model", "m", "--role-model", "clerk=sim"]
    code = main([*args, *settings("hang"), "--preset", "madfact", "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert stub.seen(3) == 3, "round 2 ran after all three round-1 turns had failed"
    claim = json.loads(captured.out)["claims"][0]
    assert claim["error"].startswith("every turn of round 1 failed")
    assert [t["round"] for t in claim["transcript"]] == [1, 1, 1]


def test_a_failed_first_pass_fails_the_claim_without_a_debate(stub, tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one.", encoding="utf-8")
    url = endpoint(stub, "hang")
    args = ["check", str(text), "--base-url", url, "--model", "m", "--role-model", "clerk=sim"]
    assert main([*args, *settings("hang"), "--json"]) == 1
    assert stub.seen(1) == 1
    claim = json.loads(capsys.readouterr().out)["claims"][0]
    assert claim["error"].startswith("the first pass failed") and claim["transcript"] == []
