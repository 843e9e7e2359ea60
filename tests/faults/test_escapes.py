"""Escape sequences in user text or a model's words never reach the terminal or a claim (issue 54.4)."""

import json
import re

import pytest

from factcourt.cli import main

FAST = ["--model", "sim", "--search", "none", "--no-cache"]
HOSTILE = "The Eiffel Tower is in Paris.\x1b]0;PWNED\x07 It was completed \x1b[31min 1889\x1b[0m. \x1b[2J\n"
# ESC, BEL, the 8-bit CSI and DEL: any of them lets text move the cursor, retitle or clear the terminal
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_escapes_in_a_checked_text_never_become_claims(tmp_path, capsys):
    text = tmp_path / "a.txt"
    text.write_text(HOSTILE, encoding="utf-8")
    assert main(["check", str(text), *FAST, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    claims = [c["text"] for c in result["claims"]]
    assert not any(CONTROL.search(c) for c in claims), claims
    assert not any("[2J" in c or "PWNED" in c for c in claims), claims
    assert any("1889" in c for c in claims)
    assert not CONTROL.search(result["response"])


def test_the_table_of_a_check_shows_no_escape_sequence(tmp_path, capsys):
    text = tmp_path / "a.txt"
    text.write_text(HOSTILE, encoding="utf-8")
    assert main(["check", str(text), *FAST, "--quiet"]) == 0
    shown = capsys.readouterr()
    assert not CONTROL.search(shown.out.replace("\n", "")), shown.out
    assert not CONTROL.search(shown.err.replace("\n", ""))


def test_escapes_in_a_batch_row_never_become_claims(tmp_path, capsys):
    rows = tmp_path / "b.jsonl"
    rows.write_text(json.dumps({"id": "1", "text": HOSTILE}) + "\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    assert main(["check", "--batch", str(rows), "--out", str(out), *FAST, "--quiet"]) == 0
    claims = [c["text"] for c in json.loads(out.read_text(encoding="utf-8"))["claims"]]
    assert not any(CONTROL.search(c) for c in claims), claims


def test_verify_prints_no_escape_of_its_claim(capsys):
    claim = "Paris is in \x1b[2J\x1b]0;PWNED\x07France.\x9b31m"
    assert main(["verify", "--claim", claim, *FAST]) == 0
    shown = capsys.readouterr()
    assert not CONTROL.search(shown.out.replace("\n", "")), shown.out


def test_an_error_naming_a_file_shows_its_escapes_harmlessly(tmp_path, capsys):
    missing = tmp_path / "no\x1b[2Jsuch\x1b]0;PWNED\x07.txt"
    assert main(["check", str(missing), *FAST]) == 2
    said = capsys.readouterr().err
    assert not CONTROL.search(said.replace("\n", "")), said
    assert "no such file" in " ".join(said.split())


def test_the_console_neutralises_escapes_in_text_made_elsewhere(capsys):
    from rich.table import Table
    from rich.text import Text

    from factcourt.commands.shared import out

    table = Table()
    table.add_column("a")
    table.add_row(Text("model said \x1b[2J\x07 done\r"))
    out.print(table)
    out.print("plain \x1b]0;PWNED\x07 text", markup=False)
    shown = capsys.readouterr().out
    assert not CONTROL.search(shown.replace("\n", "")), shown
    assert "model said" in shown and "plain" in shown


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_a_row_id_shows_no_escape_in_a_batch_summary(as_json, tmp_path, capsys):
    rows = tmp_path / "b.jsonl"
    hostile = "r\x1b[2J\x9b2J\x7f"
    lines = [{"id": "ok", "text": "Paris is in France."}, {"id": hostile, "text": "   "}]
    rows.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    argv = ["check", "--batch", str(rows), "--out", str(tmp_path / "r.jsonl"), *FAST, "--quiet"]
    assert main([*argv, *(["--json"] if as_json else [])]) == 1
    shown = capsys.readouterr()
    for said in (shown.out, shown.err):
        assert not CONTROL.search(said.replace("\n", "")), said
    if as_json:
        assert json.loads(shown.out)["rejected"][0]["id"] == hostile  # the same value, escaped


def test_an_unrecognized_argument_shows_its_escapes_harmlessly(capsys):
    """argparse wrote "unrecognized arguments: <the words as given>" raw: they cleared the screen."""
    with pytest.raises(SystemExit) as exit_:
        main(["check", "a.txt", "\x1b]0;PWNED\x07\x1b[2J"])
    assert exit_.value.code == 2
    said = capsys.readouterr().err
    assert not CONTROL.search(said.replace("\n", "")), said
    assert "unrecognized arguments: \\x1b]0;PWNED\\x07\\x1b[2J" in said


def test_a_log_line_shows_its_escapes_harmlessly_and_no_key(tmp_path, capsys, monkeypatch):
    """A library's warning may quote user text or an endpoint's words: the log went to stderr raw."""
    import logging

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-LOGGEDKEY-0123456789")
    monkeypatch.setattr(logging.getLogger(), "handlers", [])  # as in a fresh process: main sets them
    argv = ["report-html", "--url", "notaurl", "--thread", "t1", "--out", str(tmp_path / "r.html")]
    assert main(argv) == 2
    logging.getLogger("a.library").warning(
        "retrying: %s", "\x1b]0;PWNED\x07 Bearer sk-test-LOGGEDKEY-0123456789"
    )
    said = capsys.readouterr().err
    assert "WARNING a.library: retrying: \\x1b]0;PWNED\\x07" in said, said
    assert not CONTROL.search(said.replace("\n", "")) and "LOGGEDKEY" not in said


def test_a_python_warning_goes_through_the_same_log_line(tmp_path, capsys, monkeypatch):
    """warnings.warn printed its message raw to stderr, past the log formatter: key and escapes."""
    import logging
    import warnings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-WARNEDKEY-0123456789")
    monkeypatch.setattr(logging.getLogger(), "handlers", [])  # as in a fresh process: main sets them
    monkeypatch.setattr(warnings, "filters", list(warnings.filters))
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    argv = ["report-html", "--url", "notaurl", "--thread", "t1", "--out", str(tmp_path / "r.html")]
    assert main(argv) == 2
    warnings.simplefilter("always")
    warnings.warn("unverified \x1b[2J endpoint sk-test-WARNEDKEY-0123456789", UserWarning, stacklevel=1)
    said = capsys.readouterr().err
    assert "WARNING py.warnings:" in said and "\\x1b[2J" in said, said
    assert not CONTROL.search(said.replace("\n", "")) and "WARNEDKEY" not in said


def test_a_bidi_override_in_a_checked_text_shows_as_an_escape_in_the_table(tmp_path, capsys):
    """Issue 65.9: U+202E passed into the ``check`` table, showing the rest of its cell reversed."""
    text = tmp_path / "a.txt"
    said = "The Eiffel Tower is in \u202eParis\u202c. It opened in \u20661889\u2069.\n"
    text.write_text(said, encoding="utf-8")
    assert main(["check", str(text), *FAST, "--quiet"]) == 0
    shown = capsys.readouterr().out
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", shown), shown
    assert "\\u202e" in shown
    assert main(["check", str(text), *FAST, "--json"]) == 0
    said = capsys.readouterr().out
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", said)
    assert "\u202eParis" in json.loads(said)["response"]  # the same JSON value, escaped
