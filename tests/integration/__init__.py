"""Integration tests: the real servers, started by the tests themselves."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from factcourt.providers.local_server import free_port
from factcourt.serving.server import running_langgraph_dev


@contextlib.contextmanager
def langgraph_server(folder: Path, env: dict[str, str], ready_timeout_s: float = 60) -> Iterator[str]:
    """A real ``langgraph dev`` with state and log in ``folder``: its URL (a failed start shows its log)."""
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        try:
            with running_langgraph_dev(
                free_port(),
                env={"LANGSMITH_TRACING": "false", **env},
                log=log,
                ready_timeout_s=ready_timeout_s,
                state_dir=folder,
            ) as url:
                yield url
        except RuntimeError as exc:
            pytest.fail(f"{exc}\n{log_path.read_text()}")
