"""Progress reaches a log file: one line per task at most every log_every_s, and when it ends."""

import io

from rich.console import Console
from rich.progress import MofNCompleteColumn, TextColumn

from factcourt.progress import Progress


def bar(file):
    console = Console(file=file, force_terminal=False, width=80)
    return Progress(TextColumn("{task.description}"), MofNCompleteColumn(), console=console, log_every_s=3600)


def test_a_log_file_gets_a_line_at_the_start_then_at_most_one_per_interval_and_one_at_the_end():
    log = io.StringIO()
    with bar(log) as progress:
        task = progress.add_task("bench", total=3)
        progress.advance(task)
        progress.advance(task)  # within the interval: no line
        progress.update(task, completed=3)  # finished: always a line
    lines = [line.strip() for line in log.getvalue().splitlines() if line.strip()]
    assert lines[:2] == ["bench 1/3", "bench 3/3"]


def test_a_quiet_run_writes_nothing_to_the_log():
    log = io.StringIO()
    console = Console(file=log, force_terminal=False, width=80)
    with Progress(TextColumn("{task.description}"), console=console, disable=True) as progress:
        task = progress.add_task("bench", total=1)
        progress.update(task, completed=1)
    assert log.getvalue() == ""
