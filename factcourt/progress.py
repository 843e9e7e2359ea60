"""rich's progress bar, which also shows progress where stderr is a log file.

rich draws nothing live when its console is no terminal, so a run started in the background
(``factcourt bench run ... > run.log 2>&1 &``) would be silent for hours: there a plain line of
the same columns is printed every ``log_every_s`` seconds instead.
"""

from __future__ import annotations

import time
from typing import Any

from rich import progress as rich_progress
from rich.progress import TaskID


class Progress(rich_progress.Progress):
    """A rich Progress that prints a line per task every ``log_every_s`` s when not on a terminal."""

    def __init__(self, *columns: Any, log_every_s: float = 30.0, **kwargs: Any) -> None:
        """Columns and options as rich's; ``log_every_s`` paces the lines written to a log."""
        super().__init__(*columns, **kwargs)
        self._log_every_s = log_every_s
        self._to_log = not self.disable and not self.console.is_terminal
        self._logged_at: dict[TaskID, float] = {}

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        """Update as rich does, then maybe write the task's line to the log."""
        super().update(task_id, **kwargs)
        self._log(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        """Advance as rich does, then maybe write the task's line to the log."""
        super().advance(task_id, advance)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        task = self._tasks[task_id]
        if not self._to_log or not task.completed:  # nothing done yet: a failure says it all
            return
        now = time.monotonic()
        finished = task.total is not None and task.completed >= task.total
        if not finished and now - self._logged_at.get(task_id, float("-inf")) < self._log_every_s:
            return
        self._logged_at[task_id] = now
        self.console.print(self.make_tasks_table([task]))
