"""Bad input and bad configuration: exit 2 and one sentence, before any model call."""

import os
import socket
import subprocess
import sys

import pytest

import factcourt
from factcourt.cli import main
from factcourt.errors import InputError
from factcourt.state.records import Evidence
from tests.faults import one_error
from tests.faults.stub import dead_url

TEXTS = {
    "empty": (b"", "empty"),
    "whitespace": (b" \n\t\n", "empty"),
    "binary": (bytes(range(256)) * 4, "not UTF-8"),
    "latin-1": ("café au lait".encode("latin-1"), "not UTF-8"),
    "utf-16 without BOM": ("The Eiffel Tower is in Paris.".encode("utf-16-le"), "NUL bytes"),
    "NUL in UTF-8": (b"The Eiffel Tower\x00 is in Paris.", "NUL bytes"),
    "over the limit": (b"Paris is in France. " * 6000, "the limit is"),
}


@pytest.mark.parametrize("kind", TEXTS)
def test_text_that_cannot_be_checked(kind, tmp_path, capsys):
    data, words = TEXTS[kind]
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    assert main(["check", str(path), "--model", "sim", "--search", "none"]) == 2
    assert words in one_error(capsys.readouterr().err)


EVIDENCE = {
    "empty file": (b"", "holds no evidence"),
    "empty list": (b"[]", "holds no evidence"),
    "blank lines": (b"\n\n", "holds no evidence"),
    "latin-1": ('{"text": "café"}'.encode("latin-1"), "not UTF-8"),
    "utf-16 without BOM": ('{"text": "x"}'.encode("utf-16-le"), "NUL bytes"),
    "not JSON": (b'{"text": "fine"}\nnot json\n', "e.jsonl:2"),
}


@pytest.mark.parametrize("kind", EVIDENCE)
def test_evidence_file_that_cannot_be_read(kind, tmp_path, capsys):
    data, words = EVIDENCE[kind]
    path = tmp_path / "e.jsonl"
    path.write_bytes(data)
    assert (
        main(["verify", "--claim", "The Moon orbits the Earth.", "--evidence", str(path), "--model", "sim"])
        == 2
    )
    assert words in one_error(capsys.readouterr().err)


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("c.jsonl", '{"text": "café"}'.encode("latin-1"), "not UTF-8"),
        ("c.json", b"{not json", "not valid JSON"),
        ("missing.jsonl", None, "corpus not found"),
    ],
)
def test_corpus_that_cannot_be_read(name, data, words, tmp_path, capsys):
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    assert (
        main(["verify", "--claim", "The Moon orbits the Earth.", "--corpus", str(path), "--model", "sim"])
        == 2
    )
    assert words in one_error(capsys.readouterr().err)


# the arguments of each command, beside --set (the leaderboard's settings are checked before its prompts)
COMMAND_ARGS = {
    "check": ["t.txt"],
    "detect": ["--question", "Who wrote Hamlet?", "--answer", "Shakespeare."],
    "leaderboard": ["--prompts", "p.jsonl", "--targets", "sim", "--experts", "sim", "--out", "o"],
}


@pytest.mark.parametrize(
    "command, setting, words",
    [
        ("check", "temperature=banana", "temperature='banana': input should be a valid number"),
        ("check", "retries=-1", "retries must be at least 0"),
        ("check", "language=fr", "language='fr': input should be 'auto', 'en' or 'zh'"),
        ("check", "timeout_s=0", "timeout_s must be more than 0"),
        ("check", "timeout_s=NaN", "timeout_s=nan: not a number"),  # NaN passes every range check
        ("check", "timeout_s=nan", "timeout_s=nan: not a number"),  # not JSON: the text 'nan', read as NaN
        ("leaderboard", "unmatched_weight=NaN", "unmatched_weight=nan: not a number"),
        ("check", "jurors=2.5", "jurors=2.5: input should be a valid integer"),
        ("check", "use_roles=maybe", "use_roles='maybe': input should be a valid boolean"),
        ("check", "colour=red", "unknown setting(s) ['colour']"),
        # another system's setting names the command that takes it
        ("check", "epsilon=0.1", "epsilon is a setting of `factcourt detect`, not of `factcourt check`"),
        ("detect", "protocol=jury", "protocol is a setting of `factcourt check`, not of `factcourt detect`"),
    ],
)
def test_a_setting_of_the_wrong_type_or_range(command, setting, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    assert main([command, *COMMAND_ARGS[command], "--model", "sim", "--set", setting]) == 2
    assert words in one_error(capsys.readouterr().err)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["verify", "--claim", "The Moon orbits the Earth.\udcff"], "argument --claim: the byte 0xff at"),
        (["check", "T", "--question", "Where is\udcff it?"], "argument --question/-q: the byte 0xff at"),
        (["detect", "-q", "Where is\udcff Paris?", "-a", "In France."], "argument --question/-q: the byte"),
        (["verify", "--claim", "Paris.", "--set", 'model="sim\udcff"'], "argument --set: the byte 0xff"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else "",
)
def test_an_argument_that_is_not_utf8_is_refused_in_one_sentence(argv, words, tmp_path, capsys):
    """Item 17 of #65: bytes that are not UTF-8 (Python keeps them as lone surrogates) crashed the run."""
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    argv = [str(text) if a == "T" else a for a in argv]
    with pytest.raises(SystemExit) as refused:  # a usage error, as argparse's own
        main([*argv, "--model", "sim", "--search", "none"])
    assert refused.value.code == 2
    said = one_error(capsys.readouterr().err)
    assert words in said and "is not UTF-8 text" in said and "UnicodeEncodeError" not in said


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: factcourt.check(None, model="sim"), "text must be str, not None"),
        (
            lambda: factcourt.check("Paris is in France.", "Where?", "sim"),
            "settings must be dict[str, Any] | BaseContext | None, not str",
        ),
        (
            lambda: factcourt.verify("Paris is in France.", evidence="str", model="sim"),
            "evidence must be list[Evidence] | None, not str",
        ),
        (
            lambda: factcourt.detect("Where is Paris?", "In France.", knowledge="str", model="sim"),
            "knowledge must be list[Evidence] | None, not str",
        ),
        (lambda: factcourt.audit("fake_news", model="sim"), "objects must be list[str] | None, not str"),
        (
            lambda: factcourt.verify("Paris is in France.", evidence=[{"text": 3}], model="sim"),
            "evidence must be list[Evidence] | None: [0].text: input should be a valid string",
        ),
        (
            lambda: factcourt.check("The Moon orbits the Earth.\udcff", model="sim"),
            "text: the byte 0xff at character 27 is not UTF-8 text",
        ),
        (lambda: factcourt.verify("Paris.", model="sim\udcff"), "model: the byte 0xff at character 4"),
        (
            lambda: factcourt.verify("Paris.", evidence=[Evidence(text="caf\udce9")], model="sim"),
            "evidence: the byte 0xe9 at character 4 is not UTF-8 text",
        ),
    ],
)
def test_the_api_refuses_an_argument_of_the_wrong_type_in_one_line(call, words):
    """Item 18 of #65: raw TypeError, AttributeError, a pydantic dump, a str taken as a list."""
    with pytest.raises(InputError) as raised:
        call()
    said = str(raised.value)
    assert words in said and "\n" not in said


def test_debug_is_accepted_after_the_subcommand(capsys):
    assert main(["models", "--debug"]) == 0
    assert main(["--debug", "models"]) == 0
    capsys.readouterr()


def test_serve_refuses_a_bad_or_taken_port_before_starting(monkeypatch, capsys):
    def no_exec(*args):
        raise AssertionError("langgraph dev was started")

    monkeypatch.setattr(os, "execvpe", no_exec)
    with pytest.raises(SystemExit) as usage:
        main(["serve", "--port", "99999"])
    assert usage.value.code == 2
    assert "a port is a number from 1 to 65535" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert f"port {port} is not free" in one_error(capsys.readouterr().err)


@pytest.mark.parametrize(
    "model, words",
    [
        ("sim:-1", "sim:LATENCY takes seconds per call"),
        ("", "a model name is empty"),
        ("gpt-4o-mini", "model 'gpt-4o-mini' needs OPENAI_API_KEY"),
    ],
)
def test_ui_refuses_a_model_no_run_could_use_before_starting(model, words, monkeypatch, capsys):
    """Issue 65.21: ``ui --model sim:-1`` (or "") started the server; every run then failed."""
    from factcourt.serving import server

    def no_server(*args, **kwargs):
        raise AssertionError("langgraph dev was started")

    monkeypatch.setattr(server, "running_langgraph_dev", no_server)
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "FACTCOURT_SERVER_SETTINGS"):
        monkeypatch.delenv(variable, raising=False)
    assert main(["ui", "--model", model, "--no-browser"]) == 2
    assert words in one_error(capsys.readouterr().err)


def test_assistants_names_the_url_of_a_server_that_refuses_or_never_answers(capsys):
    url = dead_url().removesuffix("/v1")
    assert main(["assistants", "--url", url]) == 1
    said = one_error(capsys.readouterr().err)
    assert f"no LangGraph server answers at {url}" in said
    with socket.socket() as silent:  # accepts connections (the kernel does), never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        assert main(["assistants", "--url", url, "--timeout", "0.5"]) == 1
    assert f"the LangGraph server at {url} did not answer within 0.5 s" in one_error(capsys.readouterr().err)


def test_the_installed_command_ends_a_dead_endpoint_in_one_sentence(tmp_path):
    """The real process: exit status and stderr as a user sees them (no traceback)."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "factcourt.cli",
            "check",
            "--base-url",
            dead_url(),
            "--model",
            "m",
            "--no-cache",
        ],
        input="The Eiffel Tower is in Paris.",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert run.returncode == 1
    said = run.stderr.strip()  # a blank line where the progress display was
    assert said.startswith("error: the Clerk could not split the text into claims: cannot connect to")
    assert "\n" not in said


def test_a_corpus_line_with_a_null_text_names_file_line_and_field(tmp_path, capsys):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "Paris is in France."}\n{"text": null}\n', encoding="utf-8")
    assert main(["verify", "--claim", "Paris is in France.", "--corpus", str(path), "--model", "sim"]) == 2
    assert "c.jsonl:2: text=null: input should be a valid string" in one_error(capsys.readouterr().err)


def test_a_folder_given_as_the_text_is_named_a_folder(tmp_path, capsys):
    assert main(["check", str(tmp_path), "--model", "sim", "--search", "none"]) == 2
    assert f"{tmp_path} is a folder, not a file" in one_error(capsys.readouterr().err)


@pytest.mark.parametrize(
    "option, words",
    [
        (["--set", "max_concurrency=0"], "max_concurrency must be at least 1, not 0"),
        (["--concurrency", "0"], "max_concurrency must be at least 1, not 0"),
        (["--set", "top_k=0"], "top_k must be at least 1, not 0"),
        (["--rounds", "-1"], "rounds must be at least 0, not -1"),
    ],
)
def test_a_count_out_of_range_names_its_setting_and_value(option, words, tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    assert main(["check", str(path), "--model", "sim", "--search", "none", *option]) == 2
    assert words in one_error(capsys.readouterr().err)


def _no_run(monkeypatch):
    """Make any model call fail the test: a bad --out must be refused before the run."""
    from factcourt.providers import models

    def refuse(*args, **kwargs):
        raise AssertionError("the run started before --out was checked")

    monkeypatch.setattr(models, "_prepare", refuse)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "T", "--search", "none"],
        ["verify", "--claim", "Paris is in France.", "--search", "none"],
        ["detect", "-q", "Where is Paris?", "-a", "In France.", "--search", "none"],
        ["pyramid", "-q", "Where is Paris?", "--experts", "sim", "--search", "none"],
    ],
    ids=lambda argv: argv[0],
)
@pytest.mark.parametrize("where", ["a folder", "an unwritable folder's file"])
def test_an_out_that_cannot_be_written_is_refused_before_the_run(argv, where, tmp_path, monkeypatch, capsys):
    text = tmp_path / "t.txt"
    text.write_text("The Eiffel Tower is in Paris.", encoding="utf-8")
    _no_run(monkeypatch)
    out, words = (tmp_path, "is a folder") if where == "a folder" else ("/proc/self/r.json", "cannot write")
    argv = [str(text) if a == "T" else a for a in argv]
    assert main([*argv, "--model", "sim", "--out", str(out)]) == 2
    assert words in one_error(capsys.readouterr().err)


def test_a_batch_with_only_rejected_lines_asks_for_no_retry(tmp_path, capsys):
    """Issue 65, item 22: "0 row(s) failed ... run the same command again to retry the failed rows"."""
    import json

    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"id": "a", "text": "Paris is in France."}) + "\n" + json.dumps({"id": "b"}) + "\n"
    )
    argv = ["check", "--batch", str(rows), "--out", str(tmp_path / "o.jsonl"), "--model", "sim", "--no-cache"]
    assert main([*argv, "--search", "none", "--quiet"]) == 1
    said = one_error(capsys.readouterr().err)
    assert "1 line(s) were rejected (fix them in the --batch file)" in said
    assert "failed" not in said and "retry" not in said


def test_bench_clerk_refuses_a_fixture_beside_answers(tmp_path, capsys):
    """Issue 65, item 22: --answers replaced the --fixture given, without a word."""
    with pytest.raises(SystemExit) as stop:
        main(["bench", "clerk", "--answers", "a.jsonl", "--fixture", "f.jsonl", "--model", "sim"])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
