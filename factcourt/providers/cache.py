"""A small key-value cache for model answers, search results and batch results.

It lives in SQLite under the user cache, or in the shared PostgreSQL store when one is set
(``FACTCOURT_STORE``), so that processes on several machines share it. Keys are sha256 digests
of everything that changes the answer (model identity, request parameters, the full prompt or
query), so a hit is always a valid reuse. Secrets are never part of a key or a value.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from filelock import FileLock

from factcourt.paths import cache_dir, store_url


def cache_key(*parts: Any) -> str:
    """Digest JSON-serialisable parts into a cache key."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


_prepared: set[Path] = set()
_prepared_lock = threading.Lock()


def prepared(path: Path, setup: Callable[[sqlite3.Connection], None]) -> Path:
    """``path`` after ``setup`` ran on it, once per process and one process at a time.

    SQLite answers 'database is locked' at once, whatever the busy timeout, to a connection that
    switches a file to WAL while another one holds it: concurrent batch rows opening a new file
    did that. ``setup`` makes the switch (and the tables) before anyone else opens the file.
    """
    with _prepared_lock:
        if path not in _prepared:
            path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(f"{path}.lock"), closing(sqlite3.connect(path, timeout=30)) as db:
                setup(db)
                db.commit()
            _prepared.add(path)
    return path


def _wal(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")


class SqliteKV:
    """A thread-safe JSON key-value table in one SQLite file."""

    def __init__(self, path: Path, table: str):
        """Open (or create) ``table`` in the file at ``path``."""
        self._table = table
        self._lock = threading.Lock()
        self._db = sqlite3.connect(prepared(path, _wal), check_same_thread=False, timeout=30)
        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (k TEXT PRIMARY KEY, v TEXT)")
        self._db.commit()

    def get(self, key: str) -> Any | None:
        """Return the stored value, or None."""
        with self._lock:
            row = self._db.execute(f"SELECT v FROM {self._table} WHERE k = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        """Store a JSON value under ``key``."""
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._db.execute(f"INSERT OR REPLACE INTO {self._table} VALUES (?, ?)", (key, blob))
            self._db.commit()

    def put_new(self, key: str, value: Any) -> bool:
        """Store ``value`` unless ``key`` holds one already; return whether this call stored it."""
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            cursor = self._db.execute(
                f"INSERT INTO {self._table} VALUES (?, ?) ON CONFLICT (k) DO NOTHING", (key, blob)
            )
            self._db.commit()
        return cursor.rowcount == 1

    def discard(self, keys: list[str]) -> None:
        """Delete the values of ``keys`` (those stored)."""
        with self._lock:
            self._db.executemany(f"DELETE FROM {self._table} WHERE k = ?", [(k,) for k in keys])
            self._db.commit()


_stores: dict[str, Any] = {}
_stores_lock = threading.Lock()


def store(table: str) -> Any:
    """Return the process-wide cache table ``table``: in the shared store, else under the user cache."""
    with _stores_lock:
        url = store_url()
        path = cache_dir() / "cache.sqlite"
        key = f"{url or path}:{table}"
        if key not in _stores:
            if url:
                from factcourt.providers.postgres import PostgresKV

                _stores[key] = PostgresKV(url, table)
            else:
                _stores[key] = SqliteKV(path, table)
        return _stores[key]


def lost_store() -> str | None:
    """Why the shared store cannot be reached now, or None: it answers, or the store is the SQLite file.

    Asked after a failure that may be the store's: a store gone away fails every call after it.
    """
    url = store_url()
    if not url:
        return None
    from factcourt.errors import ConfigError
    from factcourt.providers.postgres import check_reachable

    try:
        check_reachable(url)
    except ConfigError as exc:
        return str(exc)
    return None


async def once(kv: Any | None, key: str, make: Callable[[], Awaitable[Any]]) -> tuple[Any, bool]:
    """``make()``'s JSON value under ``key`` in the table ``kv``, made once by all who share the table.

    Returns the value and whether it was taken from ``kv`` (made before, or meanwhile by another
    process, whose value is then the one kept everywhere). A ``make`` that raises stores nothing;
    ``kv`` None stores nothing either.
    """
    if kv is not None and (hit := await asyncio.to_thread(kv.get, key)) is not None:
        return hit, True
    value = await make()
    if kv is not None and not await asyncio.to_thread(kv.put_new, key, value):
        return await asyncio.to_thread(kv.get, key), True
    return value, False


def clear() -> int:
    """Delete every cached answer, search and batch result; return how many there were."""
    if url := store_url():
        from factcourt.providers.postgres import clear as clear_shared

        return clear_shared(url)
    path = cache_dir() / "cache.sqlite"
    if not path.exists():
        return 0
    removed = 0
    with sqlite3.connect(path, timeout=30) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            removed += db.execute(f"DELETE FROM {table}").rowcount
    with sqlite3.connect(path, timeout=30) as db:
        try:
            db.execute("VACUUM")
        except sqlite3.OperationalError:
            pass  # another run has it open; the space is reused meanwhile
    return removed
