"""Crash checkpoints of ``check`` and ``audit`` runs: one SQLite file, a thread per run, a lease per live run.

With a shared store (``FACTCOURT_STORE``) the checkpoints live in PostgreSQL (LangGraph's
Postgres checkpointer) and a lease is a session advisory lock, so that it holds across machines.

A run's thread id is a digest of its text, question and settings, so the same check run again
after a crash (Ctrl-C, a dead model server, kill -9) resumes it, and claims whose branch had
finished are not checked again. A live run holds a lease, an OS file lock that dies with its
process (kill -9 included): a second run of the same text never resumes a live one, it takes a
fresh thread beside it. A finished run's checkpoints are deleted unless kept, so the file holds
live and crashed runs only; :func:`clear` deletes the crashed ones too.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from filelock import FileLock, Timeout
from langchain_core.runnables import RunnableConfig

from factcourt.context.base import BaseContext
from factcourt.handed import Handed
from factcourt.paths import cache_dir, store_url
from factcourt.providers.cache import cache_key, prepared
from factcourt.runs import run_config
from factcourt.state import checkpointed_types

# Lease files are named by a prefix of the thread id's digest. Two unrelated live runs that
# share one cost the second a fresh thread and a wrong "still going" note, so the prefix is long
# enough to make that a one in four billion chance; the folder gains one empty file per run.
LEASE_FILES_DIGITS = 8

# A step's checkpoint is saved before the next step starts. With LangGraph's default ("async")
# it is saved while the next step runs, and a run killed in that window left a thread whose
# latest checkpoint had nothing next: the resume took the run as finished and started afresh,
# losing everything done (3 of 10 kills in the audit's kill-and-resume test).
DURABILITY = "sync"


class CheckRun(NamedTuple):
    """What :func:`resumable_run` yields; ``payload`` is None when resuming."""

    graph: Any
    payload: dict[str, Any] | None
    config: RunnableConfig
    resumed: bool
    beside_live_run: bool
    cleared_unreadable: int
    """Crashed runs cleared because an older factcourt saved them under module paths now gone."""


def checkpoints_path() -> Path:
    """The SQLite file of the checkpoints."""
    return cache_dir() / "checkpoints.sqlite"


def lease(thread_id: str) -> Any:
    """Hold ``thread_id``'s lease (it has ``release()``), or None when a live process holds it."""
    if url := store_url():
        from factcourt.providers.postgres import AdvisoryLease

        shared = AdvisoryLease(url, f"factcourt checkpoint {thread_id}")
        return shared if shared.held else None
    folder = cache_dir() / "leases"
    folder.mkdir(exist_ok=True)
    lock = FileLock(folder / f"{cache_key(thread_id)[:LEASE_FILES_DIGITS]}.lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        return None
    return lock


@asynccontextmanager
async def resumable_run(
    name: str,
    build: Callable[[], Any],
    identity: list[Any],
    payload: dict[str, Any],
    ctx: BaseContext,
    *,
    keep: bool = False,
    **config: Any,
) -> AsyncIterator[CheckRun]:
    """Graph ``name`` (from ``build``) under the SQLite checkpointer, resuming a crashed run.

    A run is the same as a crashed one when its ``identity`` (what it works on) and settings
    are; ``config`` adds to the run config (e.g. a recursion limit).
    """
    async with _saver(checkpoint_serde()) as saver:
        cleared = await _clear_other_layouts(saver)
        graph = build().compile(checkpointer=saver, name=name)
        base = run_key(name, identity, ctx)
        thread_id, held, resumed, beside = await _take_thread(saver, graph, base, ctx)
        try:
            run = run_config(ctx, **config, configurable={"thread_id": thread_id})
            yield CheckRun(graph, None if resumed else payload, run, resumed, beside, cleared)
            if not keep and not (await graph.aget_state(run)).next:
                await saver.adelete_thread(thread_id)
        finally:
            held.release()


# the systems' state modules, handed over by the registry: this module names no system
STATE_MODULES: Handed[Sequence[ModuleType]] = Handed(())


def allowed_types() -> list[tuple[str, str]]:
    """The models a checkpoint may hold: the checkpointer's allow-list."""
    return checkpointed_types(list(STATE_MODULES()))


def checkpoint_serde() -> Any:
    """The checkpoints' serializer: factcourt's models allowed, and whole across Ctrl-C and SIGTERM.

    ormsgpack runs Python inside an encode or decode (a Pydantic model's ``model_dump``, its
    constructor), and turns whatever that code raises into ``TypeError: Type is not msgpack
    serializable: Claim``, the KeyboardInterrupt of a Ctrl-C that lands there included: the run
    then ended in that error instead of "interrupted". So the signals wait for the encode or decode
    to end, and their handlers run right after it.
    """
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    class SignalSafeSerializer(JsonPlusSerializer):
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            with signals_held():
                return super().dumps_typed(obj)

        def loads_typed(self, data: tuple[str, bytes]) -> Any:
            with signals_held():
                return super().loads_typed(data)

    return SignalSafeSerializer(allowed_msgpack_modules=allowed_types())


@contextmanager
def signals_held(signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Run the block with ``signums``' Python handlers deferred to its end (main thread only).

    Python runs signal handlers in the main thread alone, so elsewhere there is nothing to hold.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[tuple[int, Any]] = []
    previous = {signum: signal.getsignal(signum) for signum in signums}
    held = {signum: handler for signum, handler in previous.items() if callable(handler)}
    for signum in held:
        signal.signal(signum, lambda signum, frame: arrived.append((signum, frame)))
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
        for signum, frame in arrived:
            held[signum](signum, frame)


@asynccontextmanager
async def _saver(serde: Any) -> AsyncIterator[Any]:
    """The checkpointer of the store: PostgreSQL when one is shared, else the SQLite file."""
    if url := store_url():
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        from factcourt.providers.postgres import check_reachable

        await asyncio.to_thread(check_reachable, url)  # its one sentence, not psycopg's
        async with AsyncPostgresSaver.from_conn_string(url, serde=serde) as saver:
            await _migrate_once(saver, url)
            yield saver
        return
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = await asyncio.to_thread(lambda: prepared(checkpoints_path(), _tables))
    async with aiosqlite.connect(path, timeout=30) as conn:  # concurrent batch rows share the file
        local = AsyncSqliteSaver(conn, serde=serde)
        await local.setup()
        yield local


def _tables(conn: sqlite3.Connection) -> None:
    """A new checkpoint file's settings and tables (WAL mode among them)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn.execute("PRAGMA auto_vacuum = FULL")  # before the tables: deleted runs' pages go back
    SqliteSaver(conn).setup()


_migrated: set[str] = set()


async def _migrate_once(saver: Any, url: str) -> None:
    """The Postgres checkpointer's migrations, once per process and database, one process at a time.

    The lock is polled: a session waiting on it inside a statement would deadlock with the
    holder's ``CREATE INDEX CONCURRENTLY``, which waits for every open transaction to end.
    """
    from factcourt.providers.postgres import CHECKPOINT_SETUP_LOCK

    if url in _migrated:
        return
    while not (await _sql(saver, "SELECT pg_try_advisory_lock(?)", (CHECKPOINT_SETUP_LOCK,)))[0][0]:
        await asyncio.sleep(0.1)
    try:
        await saver.setup()
    finally:
        await _sql(saver, "SELECT pg_advisory_unlock(?)", (CHECKPOINT_SETUP_LOCK,))
    _migrated.add(url)


async def _sql(saver: Any, statement: str, params: tuple[object, ...] = ()) -> list[Sequence[Any]]:
    """Run ``statement`` (with ``?`` marks) on the checkpointer's own connection; rows as tuples."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    if isinstance(saver, AsyncSqliteSaver):
        async with saver.conn.execute(statement, params) as cursor:
            rows: list[Sequence[Any]] = list(await cursor.fetchall())
        await saver.conn.commit()
        return rows
    from psycopg.rows import tuple_row

    async with saver.conn.cursor(row_factory=tuple_row) as cursor:  # its connection makes dicts
        await cursor.execute(statement.replace("?", "%s"), params)
        return list(await cursor.fetchall()) if cursor.description else []


def layout() -> str:
    """A digest of the classes a checkpoint may hold, by module path (``factcourt.state.claims``, ...)."""
    return cache_key("checkpoint layout", sorted(allowed_types()))


async def _clear_other_layouts(saver: Any) -> int:
    """Delete the crashed runs saved under another layout; return how many.

    Their states name classes by module paths that moved (``factcourt.state`` became a
    package): they would not deserialise, and resuming them would only warn and start over.
    A live run of an older factcourt keeps its checkpoints.
    """
    await _sql(saver, "CREATE TABLE IF NOT EXISTS factcourt_layout (digest TEXT NOT NULL)")
    stored = [row[0] for row in await _sql(saver, "SELECT digest FROM factcourt_layout")]
    current = await asyncio.to_thread(layout)
    if stored == [current]:
        return 0
    cleared = 0
    threads = [row[0] for row in await _sql(saver, "SELECT DISTINCT thread_id FROM checkpoints")]
    for thread_id in threads:
        held = lease(thread_id)
        if held is None:
            continue
        await saver.adelete_thread(thread_id)
        held.release()
        cleared += 1
    await _sql(saver, "DELETE FROM factcourt_layout")
    await _sql(saver, "INSERT INTO factcourt_layout (digest) VALUES (?)", (current,))
    return cleared


def run_key(name: str, identity: list[Any], ctx: BaseContext) -> str:
    """What names a run of graph ``name`` on ``identity`` with these settings (its thread's base).

    Each role's model as the run resolved it ('auto' is OpenAI once a key is set; a weights file
    by path, size and mtime): a crashed run is never finished by another model.
    """
    from factcourt.providers.models import model_identity, models

    table = models(ctx)  # the run's own: what its calls read
    # as the run reaches them: an audit target on an endpoint of its own, with that endpoint
    chosen = [
        (c.name, model_identity(c), c.method)
        for c in (table.reached(role) for role in type(ctx).agent_roles())
    ]
    return cache_key(name, *identity, asdict(ctx), chosen)[:32]


async def _take_thread(
    saver: Any, graph: Any, base: str, ctx: BaseContext
) -> tuple[str, FileLock, bool, bool]:
    """A thread for this run and its lease: a crashed run's to resume, else a fresh one.

    Returns ``(thread_id, lease, resumed, beside_live_run)``.
    """
    beside = False
    found = await _sql(
        saver,
        "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id = ? OR thread_id LIKE ?",
        (base, f"{base}-%"),
    )
    known = sorted(row[0] for row in found)
    for thread_id in known:
        held = lease(thread_id)
        if held is None:
            beside = True  # its run still lives: never resume it
            continue
        if (await graph.aget_state(run_config(ctx, configurable={"thread_id": thread_id}))).next:
            return thread_id, held, True, beside
        await saver.adelete_thread(thread_id)  # a finished run that was kept: start afresh
        held.release()
    number = 1
    while True:
        thread_id = base if number == 1 else f"{base}-{number}"
        held = lease(thread_id)
        if held is not None:
            return thread_id, held, False, beside
        beside, number = True, number + 1


def clear() -> tuple[int, int]:
    """Delete the checkpoints of every run that is not live; return (deleted, left live)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    if url := store_url():
        return _clear_shared(url)
    path = checkpoints_path()
    if not path.exists():
        return 0, 0
    with sqlite3.connect(path, timeout=30) as conn:
        saver = SqliteSaver(conn)
        saver.setup()
        threads = [t for (t,) in conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()]
        deleted, live = _delete_unleased(saver, threads)
    if live:  # VACUUM could hold the file longer than a live run's busy timeout; pages get reused
        return deleted, live
    with sqlite3.connect(path, timeout=30) as conn:
        try:
            conn.execute("PRAGMA auto_vacuum = FULL")
            conn.execute("VACUUM")  # gives the space back, and turns auto_vacuum on in an old file
        except sqlite3.OperationalError:
            pass  # a run started meanwhile holds the file; the space is reused meanwhile
    return deleted, live


def _clear_shared(url: str) -> tuple[int, int]:
    """:func:`clear` in the shared store."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg import Connection

    from factcourt.providers.postgres import check_reachable

    check_reachable(url)
    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        assert isinstance(saver.conn, Connection)  # from_conn_string opens one connection, not a pool
        with saver.conn.cursor() as cursor:
            found = cursor.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
        return _delete_unleased(saver, [row["thread_id"] for row in found])


def _delete_unleased(saver: Any, threads: list[str]) -> tuple[int, int]:
    """Delete the threads no live run holds; return (deleted, live)."""
    deleted = live = 0
    for thread_id in threads:
        held = lease(thread_id)
        if held is None:
            live += 1
            continue
        saver.delete_thread(thread_id)
        held.release()
        deleted += 1
    return deleted, live
