"""Checkpoints: a finished run leaves none, a crashed one can be cleared, a live one is never resumed."""

import json
import multiprocessing
import os
import sqlite3
import time

from factcourt.checkpoints import checkpoints_path
from factcourt.cli import main


def threads() -> list[str]:
    with sqlite3.connect(checkpoints_path()) as db:
        return [r[0] for r in db.execute("SELECT DISTINCT thread_id FROM checkpoints")]


def test_a_finished_run_keeps_no_checkpoint_unless_asked(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one. Beta is two.", encoding="utf-8")
    args = ["check", str(text), "--model", "sim", "--search", "none", "--json"]
    assert main(args) == 0 and threads() == []
    assert main([*args, "--no-cache", "--keep-checkpoint"]) == 0 and len(threads()) == 1
    assert main(["cache", "--clear"]) == 0 and threads() == []
    assert "checkpoints of 1 unfinished run(s)" in " ".join(capsys.readouterr().out.split())


def test_a_second_check_of_a_live_run_runs_beside_it_and_never_resumes_it(tmp_path, capsys, scripted):
    text = tmp_path / "t.txt"
    text.write_text("Alpha is one.", encoding="utf-8")
    started, release = tmp_path / "started", tmp_path / "release"
    parent = os.getpid()

    def rating(prompt):
        if os.getpid() != parent:  # the first run, in the child, stays live until released
            started.touch()
            while not release.exists():
                time.sleep(0.05)
        return {"explanation": "ok", "verdict": "supported"}

    scripted.script["Label"] = [rating]
    args = ["check", str(text), "--model", "scripted", "--search", "none", "--no-cache", "--json"]
    live = multiprocessing.get_context("fork").Process(target=main, args=(args,))
    live.start()
    try:
        deadline = time.monotonic() + 600  # bounds, not timings: a busy machine is slow
        while not started.exists():
            assert live.is_alive() and time.monotonic() < deadline
            time.sleep(0.05)
        assert main(args) == 0
        captured = capsys.readouterr()
        assert "still going in another process" in " ".join(captured.err.split())
        assert "resuming" not in captured.err
        assert json.loads(captured.out)["claims"][0]["verdict"] == "supported"
        assert scripted.count("ClerkOutput") == 1, "the second run did not start from the beginning"
    finally:
        release.touch()
        live.join(600)
    assert live.exitcode == 0
    assert threads() == []  # both finished: nothing left
