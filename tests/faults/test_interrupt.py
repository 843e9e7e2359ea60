"""Ctrl-C of a check ends in "interrupted" alone: the steps it drops unstarted are not warned about."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from tests.signals import ctrl_c_not_ignored


def test_ctrl_c_of_a_check_says_interrupted_and_nothing_else(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text(" ".join(f"City {i} is in country {i}." for i in range(30)), encoding="utf-8")
    cache = tmp_path / "cache"
    argv = [
        "check",
        str(text),
        "--model",
        "sim:0.3",
        "--search",
        "none",
        "--no-cache",
        "--set",
        "first_pass=off",
    ]
    run = subprocess.Popen(
        [sys.executable, "-m", "factcourt.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FACTCOURT_CACHE_DIR": str(cache), "COLUMNS": "400"},
        preexec_fn=ctrl_c_not_ignored,
    )
    deadline = time.monotonic() + 600  # bounds, not timings: a busy machine is slow
    while not _checkpoints(cache / "checkpoints.sqlite"):  # the claims are being debated
        assert run.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(1)  # claims in flight and claims not yet started
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=600)
    assert run.returncode == 130, err
    assert "never awaited" not in err and "RuntimeWarning" not in err
    assert err.strip().endswith("interrupted")


def _checkpoints(path) -> int:
    try:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_after_a_ctrl_c_a_transport_collected_once_the_loop_closed_is_not_reported(monkeypatch):
    import sys
    from types import SimpleNamespace

    shown = []
    monkeypatch.setattr(sys, "__unraisablehook__", lambda unraisable: shown.append(unraisable.exc_value))

    from factcourt.cli import drop_closed_loop_reports

    def report(exc):
        fields = {"exc_traceback": None, "err_msg": None, "object": None}
        return SimpleNamespace(exc_type=type(exc), exc_value=exc, **fields)

    drop_closed_loop_reports(report(RuntimeError("Event loop is closed")))
    assert shown == []
    other = ValueError("something else")
    drop_closed_loop_reports(report(other))
    assert shown == [other]  # anything else is still reported
