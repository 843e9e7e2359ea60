"""A flag or setting that takes a number refuses NaN, infinity and out-of-range values (exit 2, no run)."""

import socket

import pytest

from factcourt.cli import main
from tests.faults import ANSWERS_S, one_error


def usage_error(argv: list[str], capsys) -> str:
    """argparse's refusal of a flag: exit 2 and its one sentence."""
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
    return one_error(capsys.readouterr().err)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["bench", "perf", "--latency", "nan"], "--latency: a number from 0, not 'nan'"),
        (["bench", "perf", "--latency", "-1"], "--latency: a number from 0, not '-1'"),
        (["bench", "perf", "--latency", "inf"], "--latency: a number from 0, not 'inf'"),
        (["bench", "perf", "--claims", "0"], "--claims: a whole number from 1, not '0'"),
        (["bench", "run", "--dataset", "d", "--price-input", "nan"], "--price-input: a number from 0"),
        (["bench", "run", "--dataset", "d", "--price-output", "-5"], "--price-output: a number from 0"),
        (["bench", "engine", "--dataset", "d", "--repeats", "0"], "--repeats: a whole number from 1"),
        (["bench", "sweep", "--dataset", "d:given", "--limit", "1"], "--limit: a whole number from 2"),
        (["bench", "server", "--runs", "0"], "--runs: a whole number from 1"),
        (["assistants", "--timeout", "nan"], "--timeout: a number above 0, not 'nan'"),
        (["assistants", "--timeout", "-1"], "--timeout: a number above 0, not '-1'"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_number_flag_out_of_range_is_a_usage_error(argv, words, capsys):
    said = usage_error(argv, capsys).partition(" error: ")[2]  # after the usage line
    assert words in said
    assert "max_claims" not in said and "--balanced" not in said  # the user's flag, not an inner name


def test_an_infinite_time_out_is_refused(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    for value in ("Infinity", "inf", "-Infinity"):
        assert main(["check", str(path), "--model", "sim", "--set", f"timeout_s={value}"]) == 2
        assert "timeout_s=" in (said := one_error(capsys.readouterr().err)) and "not a finite number" in said


def test_a_server_that_answers_garbage_is_named_in_one_sentence(stub, capsys):
    stub.mode = "garbage"
    url = stub.url.removesuffix("/v1")
    assert main(["assistants", "--url", url, "--timeout", str(ANSWERS_S)]) == 1
    said = one_error(capsys.readouterr().err)
    assert f"the server at {url} sent a reply that is not JSON" in said
    assert "JSONDecodeError" not in said


def test_a_refused_port_is_still_named(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    assert main(["assistants", "--url", url, "--timeout", "2"]) == 1
    assert f"no LangGraph server answers at {url}" in one_error(capsys.readouterr().err)
