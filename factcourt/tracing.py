"""LangSmith tracing: standard variables, secrets kept out, and a bounded flush at exit.

Tracing is switched on by the standard ``LANGSMITH_TRACING`` / ``LANGSMITH_API_KEY`` /
``LANGSMITH_PROJECT`` / ``LANGSMITH_ENDPOINT`` variables; LangChain's tracer picks them up. The
client's own flush can block for 12-18 s when the endpoint is unreachable, so the CLI waits at
most ``FLUSH_TIMEOUT_S`` for it.
"""

from __future__ import annotations

import os
import threading

FLUSH_TIMEOUT_S = 1.5


def flush_traces(timeout_s: float = FLUSH_TIMEOUT_S) -> None:
    """Wait up to ``timeout_s`` for pending trace uploads; never raise, never block longer."""

    def flush() -> None:
        try:
            from langchain_core.tracers.langchain import wait_for_all_tracers

            wait_for_all_tracers()
        except Exception:  # noqa: BLE001  tracing must never fail a run
            pass

    worker = threading.Thread(target=flush, daemon=True)
    worker.start()
    worker.join(timeout_s)


def tracing_enabled() -> bool:
    """Whether LangSmith tracing is switched on by the standard variables."""
    value = os.environ.get("LANGSMITH_TRACING") or os.environ.get("LANGCHAIN_TRACING_V2") or ""
    return value.strip().lower() in ("1", "true", "yes")
