"""What a command writes: one run at a time per output, checked before the run, no other file spoiled."""

import asyncio
import json
import multiprocessing
import os
import re
import time

import pytest

from factcourt.cli import main
from factcourt.commands import shared
from tests.faults import ANSWERS_S, one_error

NO_RETRIES = ["--set", "retries=0", "--set", f"timeout_s={ANSWERS_S}", "--no-cache"]


def _slow_first_run(module: str, name: str, argv: list[str], started: str, release: str) -> None:
    """The first of two runs, in a child process: its first model step holds its output until ``release``.

    Not a fixed wait, which a second run slowed by a busy machine could outlast.
    """
    import importlib

    target = importlib.import_module(module)
    original = getattr(target, name)

    async def slow(*args, **kwargs):
        open(started, "w").close()
        deadline = time.monotonic() + 120  # without the lock, no release comes: the test fails below
        while not os.path.exists(release) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return await original(*args, **kwargs)

    setattr(target, name, slow)
    os._exit(main(argv))


def _release_when_the_second_waits(monkeypatch, release) -> None:
    """Let the first run go on once the second says it waits for the lock (not after a sleep)."""
    told = shared.err.print

    def tell_then_release(*args, **kwargs):
        told(*args, **kwargs)
        if "another run is writing" in " ".join(map(str, args)):
            release.touch()

    monkeypatch.setattr(shared.err, "print", tell_then_release)


@pytest.mark.parametrize(
    "command, step",
    [
        (
            ["bench", "run", "--methods", "single", "--evidence", "given"],
            ("factcourt.bench.runner", "predict"),
        ),
        (["synth-sft"], ("factcourt.bench.sft", "sample")),
    ],
    ids=["bench run", "synth-sft"],
)
def test_two_runs_into_one_out_at_once_make_each_record_once(
    command, step, qa_dataset, fourway_dataset, tmp_path, capsys, monkeypatch
):
    out = tmp_path / ("b" if command[0] == "bench" else "sft.jsonl")
    dataset = qa_dataset if command[0] == "bench" else fourway_dataset  # Debate-SFT needs four labels
    argv = [*command, "--dataset", str(dataset), "--model", "sim", "--out", str(out)]
    started, release = tmp_path / "started", tmp_path / "release"
    first = multiprocessing.get_context("fork").Process(
        target=_slow_first_run, args=(*step, argv, str(started), str(release))
    )
    first.start()
    deadline = time.monotonic() + 600
    while not started.exists():
        assert first.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    _release_when_the_second_waits(monkeypatch, release)
    assert main(argv) == 0  # the second, while the first is in its run
    first.join(600)
    assert first.exitcode == 0
    assert "another run is writing" in " ".join(capsys.readouterr().err.split())
    lines = (out / "predictions.jsonl" if out.suffix == "" else out).read_text(encoding="utf-8").splitlines()
    keys = [(r["method"], r["id"]) for r in map(json.loads, lines)]
    assert len(keys) == len(set(keys)), "a record was made and written twice"


def test_synth_sft_refuses_an_out_that_is_another_programs_text(fourway_dataset, tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nsecond line\n", encoding="utf-8")
    argv = ["synth-sft", "--dataset", str(fourway_dataset), "--model", "sim", "--out", str(notes)]
    assert main(argv) == 2
    assert "notes.txt:1: not a factcourt record" in one_error(capsys.readouterr().err)
    assert notes.read_text(encoding="utf-8") == "my notes\nsecond line\n"


def test_synth_sft_refuses_an_unwritable_out_before_the_run(qa_dataset, monkeypatch, capsys):
    from factcourt.bench import sft

    async def no_run(*args, **kwargs):
        raise AssertionError("the run started before --out was checked")

    monkeypatch.setattr(sft, "sample", no_run)
    argv = ["synth-sft", "--dataset", str(qa_dataset), "--model", "sim", "--out", "/proc/self/sft.jsonl"]
    assert main(argv) == 2
    assert "cannot write /proc/self/sft.jsonl" in one_error(capsys.readouterr().err)


def test_engine_refuses_a_folder_to_append_to_before_the_run(qa_dataset, tmp_path, monkeypatch, capsys):
    from factcourt.bench import engine

    async def no_run(*args, **kwargs):
        raise AssertionError("the run started before --append was checked")

    monkeypatch.setattr(engine, "predict", no_run)
    argv = ["bench", "engine", "--dataset", str(qa_dataset), "--model", "sim", "--append", str(tmp_path)]
    assert main(argv) == 2
    assert f"--append {tmp_path} is a folder" in one_error(capsys.readouterr().err)


@pytest.mark.parametrize("command", ["synth-sft", "bench engine", "leaderboard"])
def test_a_failing_endpoint_is_named_on_the_console(
    command, stub, qa_dataset, fourway_dataset, tmp_path, capsys
):
    stub.mode = "http500"
    endpoint = ["--base-url", stub.url, "--model", "m", *NO_RETRIES]
    argv = {
        "synth-sft": ["synth-sft", "--dataset", str(fourway_dataset), "--out", str(tmp_path / "s.jsonl")],
        "bench engine": ["bench", "engine", "--dataset", str(qa_dataset), "--repeats", "1", "--part", "all"],
        "leaderboard": ["leaderboard", "--prompts", "P", "--targets", "m", "--experts", "sim"],
    }[command]
    if command == "leaderboard":
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"id": "p1", "prompt": "Where is the Eiffel Tower?"}\n', encoding="utf-8")
        argv = [*argv, "--out", str(tmp_path / "lb"), "--search", "none"]
        argv[argv.index("P")] = str(prompts)
        endpoint = ["--base-url", stub.url, "--model", "sim", *NO_RETRIES]  # the target fails, the rest works
    assert main([*argv, *endpoint]) == 1
    said = one_error(capsys.readouterr().err)
    assert "first reason" in said and "answered HTTP 500" in said


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "run", "--dataset", "D", "--methods", "single"],
        ["bench", "sweep", "--dataset", "D:given", "--limit", "2"],
        ["bench", "calibrate", "--dataset", "D:given", "--limit", "2"],
        ["leaderboard", "--prompts", "D", "--targets", "sim", "--experts", "sim"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_file_given_as_the_folder_to_write_is_named_a_file(argv, qa_dataset, tmp_path, capsys):
    taken = tmp_path / "results.txt"
    taken.write_text("kept", encoding="utf-8")
    argv = [a.replace("D", str(qa_dataset)) if a.startswith("D") else a for a in argv]
    assert main([*argv, "--model", "sim", "--search", "none", "--out", str(taken)]) == 2
    assert f"--out must be a folder: {taken} is a file" in one_error(capsys.readouterr().err)
    assert taken.read_text(encoding="utf-8") == "kept"


def _under_cache(folder: str, module: str, name: str, argv: list[str], started: str, release: str) -> None:
    os.environ["FACTCOURT_CACHE_DIR"] = folder
    _slow_first_run(module, name, argv, started, release)


def test_two_batches_into_one_out_under_other_cache_folders_write_each_row_once(
    tmp_path, monkeypatch, capsys
):
    """Issue 65, item 11: the lock lived in the cache folder, which each writer had its own of."""
    rows, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    texts = ["Paris is in France.", "The Moon orbits the Earth.", "Mount Everest is in Asia."]
    rows.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)))
    argv = ["check", "--batch", str(rows), "--out", str(out), "--model", "sim", "--search", "none", "--quiet"]
    started, release = tmp_path / "started", tmp_path / "release"
    first = multiprocessing.get_context("fork").Process(
        target=_under_cache,
        args=(
            str(tmp_path / "cache-a"),
            "factcourt.batch",
            "settle",
            [*argv, "--no-cache"],
            str(started),
            str(release),
        ),
    )
    first.start()
    deadline = time.monotonic() + 600
    while not started.exists():
        assert first.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    _release_when_the_second_waits(monkeypatch, release)
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path / "cache-b"))
    assert main([*argv, "--no-cache"]) == 0
    first.join(600)
    assert first.exitcode == 0
    assert "another run is writing" in " ".join(capsys.readouterr().err.split())
    ids = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == ["0", "1", "2"]
    # a file two writers did double is refused, not read as finished
    out.write_text(out.read_text(encoding="utf-8") * 2, encoding="utf-8")
    assert main([*argv, "--no-cache"]) == 2
    assert re.search(r"holds row '\d' more than once", one_error(capsys.readouterr().err))
