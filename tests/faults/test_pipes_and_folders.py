"""A closed stdout and a file where a folder belongs (issue 65, item 22).

``factcourt verify ... | head -1`` ended "exit 1" in silence (rich's own handling) or "error:
BrokenPipeError"; ``bench answers --out e.txt`` said "cannot write to e.txt/settings.json: File
exists".
"""

import os
import subprocess
import sys

import pytest

from factcourt.cli import main
from tests.faults import one_error

CLAIM = "Paris is the capital of France."


@pytest.mark.parametrize("shown", [[], ["--json"]], ids=["table", "json"])
def test_a_closed_stdout_ends_quietly(tmp_path, shown):
    """The reader of the pipe is gone before the command writes: exit 141 (SIGPIPE's), no word."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "factcourt.cli", "verify", "--claim", CLAIM, "--model", "sim", *shown],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env={**os.environ, "FACTCOURT_CACHE_DIR": str(tmp_path)},
        )
    finally:
        os.close(writer)
    assert (run.returncode, run.stderr.strip()) == (141, "")  # a blank line where the progress was


@pytest.mark.parametrize(
    "command",
    [
        ["bench", "answers", "--dataset", "a.jsonl"],
        ["bench", "run", "--dataset", "a.jsonl"],
        ["bench", "sweep", "--dataset", "a.jsonl:given"],
        ["bench", "calibrate", "--dataset", "a.jsonl:given"],
    ],
    ids=lambda command: command[1],
)
def test_a_file_given_for_a_folder_out_is_refused(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "e.txt").write_text("kept", encoding="utf-8")
    assert main([*command, "--out", "e.txt", "--model", "sim"]) == 2
    assert "error: --out must be a folder: e.txt is a file" in one_error(capsys.readouterr().err)
    assert (tmp_path / "e.txt").read_text(encoding="utf-8") == "kept"
