"""The fault suite: every bad input and endpoint fault ends in one sentence and the right exit code."""

import threading
from collections.abc import Callable
from pathlib import Path
from unittest import mock

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
    handlers want the main thread). ``act()`` runs in the call that wrote the line, so the run's
    own loop waits for it: a watcher thread raced the run, whose simulated latency a busy machine
    does not slow, while it slowed ``act`` (stopping a store). Fails when the command ended first.
    """
    from factcourt.cli import main
    from factcourt.store import PredictionStore

    acted = threading.Event()
    append = PredictionStore.append

    def append_then_act(store: PredictionStore, record: dict) -> None:
        append(store, record)
        if not acted.is_set() and store.path.resolve() == out.resolve():
            if len(out.read_text(encoding="utf-8").splitlines()) >= lines:
                acted.set()
                act()

    with mock.patch.object(PredictionStore, "append", append_then_act):
        code = main(argv)
    assert acted.is_set(), f"the command ended before {out} held {lines} lines"
    return code
