"""Independent units spread over a Ray cluster: the same graphs on every worker, the store deduplicating.

Install with ``pip install 'factcourt[ray]'``. The units (a batch's rows, a benchmark's
predictions, a leaderboard's answers, checks and scores, an audit's runs) go out in chunks, one
Ray task each; a worker runs its chunk's units as the one-process run does, against the
endpoints the settings name, with the store this process uses (``FACTCOURT_*`` variables travel
in the job's runtime environment). A task whose worker dies is run again by Ray
(``max_retries``): each unit's outcome is put in the store as it is made, so the units the task
had finished are then taken from there, neither made again nor counted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import socket
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

from factcourt.errors import ConfigError, StoreError, first_line
from factcourt.nodes.helpers import bounded
from factcourt.providers import cache
from factcourt.providers.cache import once, store

RETRIES = 3  # runs of a task whose worker died, after the first
CONNECT_TIMEOUT_S = 5
CHUNKS_PER_CPU = 4  # enough chunks to keep every worker busy while the slowest finishes
GCS_PORT = 6379
MADE = "fanout_units"  # the store's table of the outcomes made by tasks still running

Unit = TypeVar("Unit")


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
            # typed int, but a name works (Ray's default is one); unchecked without the ray extra
            logging_level="ERROR",  # type: ignore[arg-type, unused-ignore]
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        said = first_line(exc, type(exc).__name__)
        raise ConfigError(f"cannot join the Ray cluster at {address}: {said}") from None
    return ray


@contextlib.contextmanager
def cluster(address: str) -> Iterator[Any]:
    """``ray``, joined to the cluster at ``address`` for the block (one job: its workers serve every fan-out).

    A process joined already (``ray.init`` called before: a notebook, a Ray job's own driver)
    keeps its connection, job and runtime environment, and stays joined after the block. Call it
    in the main thread, where Ray's driver installs its signal handlers.
    """
    ray: Any = sys.modules.get("ray")
    joined = ray is not None and ray.is_initialized()
    if not joined:
        ray = connect(address)
    try:
        # Ray prints its notices (a worker died, ...) to standard output, which holds --json's result
        with contextlib.redirect_stdout(sys.stderr):
            yield ray
    finally:
        if not joined:
            ray.shutdown()


def fan_out(
    ray: Any,
    units: Sequence[Unit],
    work: Callable[[Unit], Awaitable[Any]],
    on_outcome: Callable[[Unit, Any], None],
    failed: Callable[[Unit, str], Any],
    *,
    concurrency: int,
) -> None:
    """Run ``work(unit)`` for every unit on the cluster, ``concurrency`` at a time on each worker.

    Each outcome (a JSON value) is handed to ``on_outcome`` here, as its chunk comes back. A
    task whose retries are spent hands its units' ``failed(unit, reason)`` over instead, and the
    rest go on, unless the task raised StoreError (the shared store went away), which is raised
    here. ``work`` should not raise for one unit's failure, which would fail its chunk.
    ``work`` and the units travel by pickle: ``work`` a module-level function of factcourt
    (every worker has it installed), or a ``functools.partial`` of one.
    """
    if not units:
        return
    task = ray.remote(run_chunk).options(max_retries=RETRIES, num_cpus=1)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = max(1, min(concurrency, math.ceil(len(units) / (CHUNKS_PER_CPU * cpus))))
    run = uuid.uuid4().hex  # names this fan-out's outcomes in the store
    shared = ray.put(work)  # sent once, not with every chunk
    pending = {}
    for start in range(0, len(units), size):
        chunk = list(units[start : start + size])
        keys = [f"{run}:{start + i}" for i in range(len(chunk))]
        pending[task.remote(shared, chunk, keys, concurrency)] = chunk
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        chunk = pending.pop(ready[0])
        try:
            outcomes = ray.get(ready[0])
        except ray.exceptions.RayError as exc:  # its retries spent: its units fail, the rest go on
            if isinstance(cause := getattr(exc, "cause", None), StoreError):
                raise cause from None  # no unit can be made without the store: the run stops
            said = first_line(exc, type(exc).__name__)
            outcomes = [failed(unit, f"the Ray task failed: {said}"[:400]) for unit in chunk]
        for unit, outcome in zip(chunk, outcomes, strict=True):
            on_outcome(unit, outcome)


def run_chunk(
    work: Callable[[Unit], Awaitable[Any]], units: list[Unit], keys: list[str], concurrency: int
) -> list[Any]:
    """The Ray task: the chunk's outcomes in its order, each under its key in the store as it is made."""
    try:
        made = store(MADE)
        jobs = [partial(once, made, key, partial(work, unit)) for unit, key in zip(units, keys, strict=True)]
        outcomes = asyncio.run(bounded(concurrency, jobs))
        made.discard(keys)  # they travel back in the task's result from here on
    except StoreError:
        raise
    except Exception:
        # the chunk's own reads of the store fail with the driver's error: named StoreError, the
        # batch stops in one sentence instead of failing every row of the chunk
        if gone := cache.lost_store():
            raise StoreError(gone) from None
        raise
    return [outcome for outcome, _ in outcomes]
