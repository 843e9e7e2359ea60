"""The fault suite: every bad input and endpoint fault ends in one sentence and the right exit code."""

import threading
import time
from collections.abc import Callable
from pathlib import Path

# Time-outs for the stub endpoint (#65: no test may depend on how busy the machine is). A hung
# endpoint never answers, so a short time-out fires on any machine; where the stub answers, the
# time-out is one that no loaded machine's reply reaches: a slow reply is never a time-out.
HUNG_S = 1
ANSWERS_S = 300


def one_error(err: str) -> str:
    """The single error sentence of a run (rich wraps it: joined back)."""
    assert "Traceback" not in err
    said = " ".join(err.split())
    assert said.count("error:") == 1, err
    return said


def interrupted(argv: list[str], out: Path, lines: int, act: Callable[[], object]) -> int:
    """``main(argv)``'s exit code; ``act()`` runs once ``out`` holds ``lines`` lines.

    The command runs in this thread, as on the command line (Ray's driver and the signal
    handlers want the main thread); a watcher acts. Fails when the command ended first.
    """
    from factcourt.cli import main

    ended, acted = threading.Event(), threading.Event()

    def watch() -> None:
        while not ended.is_set():
            if out.exists() and len(out.read_text(encoding="utf-8").splitlines()) >= lines:
                act()
                acted.set()
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        code = main(argv)
    finally:
        ended.set()
        watcher.join()
    assert acted.is_set(), f"the command ended before {out} held {lines} lines"
    return code
