"""A batch's rows spread over a Ray cluster: the same graphs on every worker, the store deduplicating.

Install with ``pip install 'factcourt[ray]'``. The rows go out in chunks, one Ray task each;
a worker settles its chunk as :func:`factcourt.batch.settle_all` does on one machine, against
the endpoints the settings name, with the store this process uses (``FACTCOURT_*`` variables
travel in the job's runtime environment). A task whose worker dies is run again by Ray
(``max_retries``): the rows it had finished are then taken from the store, neither asked again
nor counted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import socket
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from factcourt.batch import Row, settle_all
from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError

RETRIES = 3  # runs of a task whose worker died, after the first
CONNECT_TIMEOUT_S = 5
CHUNKS_PER_CPU = 4  # enough chunks to keep every worker busy while the slowest finishes
GCS_PORT = 6379


def connect(address: str) -> Any:
    """Join the Ray cluster at ``address`` ('auto': the one this machine belongs to); return ``ray``.

    An address nobody answers on, or no cluster, is one ConfigError before any model call.
    """
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray needs Ray: pip install 'factcourt[ray]'") from None
    if address != "auto":
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        try:
            socket.create_connection((parts.hostname, parts.port or GCS_PORT), CONNECT_TIMEOUT_S).close()
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot reach the Ray cluster at {address}: {exc}") from None
    shared = {k: v for k, v in os.environ.items() if k.startswith("FACTCOURT_")}
    try:
        ray.init(
            address=address,
            runtime_env={"env_vars": shared},
            log_to_driver=False,
            logging_level="ERROR",
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        said = next(iter(str(exc).strip().splitlines()), type(exc).__name__)
        raise ConfigError(f"cannot join the Ray cluster at {address}: {said}") from None
    return ray


def settle_on_ray(
    address: str,
    kind: str,
    rows: list[Row],
    ctx: BaseContext,
    concurrency: int,
    on_outcome: Callable[[Row, dict[str, Any]], None],
) -> None:
    """Settle ``rows`` on the cluster at ``address``, ``concurrency`` at a time on each worker."""
    ray = connect(address)
    # Ray prints its notices (a worker died, ...) to standard output, which holds --json's result
    with contextlib.redirect_stdout(sys.stderr):
        _settle(ray, kind, rows, ctx, concurrency, on_outcome)


def _settle(
    ray: Any,
    kind: str,
    rows: list[Row],
    ctx: BaseContext,
    concurrency: int,
    on_outcome: Callable[[Row, dict[str, Any]], None],
) -> None:
    try:
        task = ray.remote(settle_chunk).options(max_retries=RETRIES, num_cpus=1)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(concurrency, math.ceil(len(rows) / (CHUNKS_PER_CPU * cpus))))
        chunks = [rows[i : i + size] for i in range(0, len(rows), size)]
        pending = {task.remote(kind, chunk, ctx, concurrency): chunk for chunk in chunks}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            chunk = pending.pop(ready[0])
            try:
                outcomes = ray.get(ready[0])
            except ray.exceptions.RayError as exc:  # its retries spent: its rows fail, the rest go on
                said = next(iter(str(exc).strip().splitlines()), type(exc).__name__)
                outcomes = [{"id": row.id, "error": f"the Ray task failed: {said}"[:400]} for row in chunk]
            for row, outcome in zip(chunk, outcomes, strict=True):
                on_outcome(row, outcome)
    finally:
        ray.shutdown()


def settle_chunk(kind: str, rows: list[Row], ctx: BaseContext, concurrency: int) -> list[dict[str, Any]]:
    """The Ray task: settle a chunk of rows on this worker; their outcomes in the chunk's order."""
    outcomes: dict[str, dict[str, Any]] = {}
    asyncio.run(settle_all(kind, rows, ctx, concurrency, lambda row, o: outcomes.__setitem__(row.id, o)))
    return [outcomes[row.id] for row in rows]
