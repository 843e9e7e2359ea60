"""User text and model words are shown as they are (never read as console markup), each failure once."""

import pytest

from factcourt.cli import main
from tests.faults import ANSWERS_S, one_error

TEXT = "Array a[i] holds [red] values."
NO_RETRIES = ["--set", f"timeout_s={ANSWERS_S}", "--set", "retries=0", "--no-cache", "--search", "none"]


def said(text: str) -> str:
    return " ".join(text.split())


def test_verify_shows_the_claim_as_written(capsys):
    assert main(["verify", "--claim", TEXT, "--model", "sim", "--search", "none"]) == 0
    assert TEXT in said(capsys.readouterr().out)


def test_the_claims_table_shows_the_claim_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # one line per row: the claim is not wrapped
    text = tmp_path / "t.txt"
    text.write_text(TEXT, encoding="utf-8")
    assert main(["check", str(text), "--model", "sim", "--search", "none"]) == 0
    assert TEXT in said(capsys.readouterr().out)


def test_a_file_name_in_an_error_is_shown_as_written(tmp_path, capsys):
    missing = tmp_path / "notes[bold].txt"
    assert main(["check", str(missing), "--model", "sim", "--search", "none"]) == 2
    assert f"no such file: {missing}" in one_error(capsys.readouterr().err)


def test_a_models_words_in_an_error_are_shown_as_written(scripted, capsys):
    scripted.script["Label"] = [RuntimeError("Rating: [[s]] is my [bold]answer")]
    argv = ["verify", "--claim", "The Moon orbits the Earth.", "--model", "scripted", *NO_RETRIES]
    assert main(argv) == 1
    assert "Rating: [[s]] is my [bold]answer" in one_error(capsys.readouterr().err)


def test_many_agents_failing_alike_give_the_reason_once(stub, capsys):
    stub.mode = "http500"
    argv = ["detect", "-q", "Where is Paris?", "-a", "In France.", "--base-url", stub.url, "--model", "m"]
    assert main([*argv, *NO_RETRIES]) == 1
    error = one_error(capsys.readouterr().err)
    assert error.count("answered HTTP 500") == 1 and len(error) < 400
    assert "more failures, in the notes" in error


@pytest.mark.parametrize("fault", ["empty_choices", "no_choices"])
def test_a_reply_without_choices_is_one_sentence_in_the_users_terms(fault, stub, capsys):
    stub.mode = fault
    argv = ["verify", "--claim", "The Moon orbits the Earth.", "--base-url", stub.url, "--model", "m"]
    assert main([*argv, *NO_RETRIES]) == 1
    error = one_error(capsys.readouterr().err)
    assert error.endswith(f"{stub.url} sent a reply that is not a chat completion")


def test_an_unexpected_error_of_many_lines_is_one_line(monkeypatch, capsys):
    import factcourt.cli.tools

    def broken(args):
        raise ValueError("1 validation error for Thing\nfield\n  Input should be a valid string")

    monkeypatch.setattr(factcourt.cli.tools, "cmd_models", broken)
    assert main(["models"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "error: ValueError: 1 validation error for Thing (run with --debug for details)"
