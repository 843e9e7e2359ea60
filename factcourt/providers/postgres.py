"""PostgreSQL as the shared store: cache tables and run leases that processes on many machines share.

Chosen by ``FACTCOURT_STORE`` (see :func:`factcourt.paths.store_url`); psycopg 3, the driver the
LangGraph Postgres checkpointer uses too. Install with ``pip install 'factcourt[postgres]'``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any, cast

from factcourt.errors import ConfigError, first_line
from factcourt.redact import redact

CONNECT_TIMEOUT_S = 5
# Concurrent CREATE TABLE IF NOT EXISTS in two processes can still fail on the catalog's unique
# index, and two runs of the checkpointer's migrations on the table of versions: the first use
# of a table, and the migrations, are serialised by advisory locks, one for each.
KV_SETUP_LOCK = 0x6661_6374  # 'fact'
CHECKPOINT_SETUP_LOCK = KV_SETUP_LOCK + 1
KV_PREFIX = "factcourt_kv_"


def connect(url: str, **options: Any) -> Any:
    """A psycopg connection in autocommit; an unreachable or refused database is one ConfigError."""
    try:
        import psycopg
    except ImportError:
        raise ConfigError("a postgresql:// store needs psycopg: pip install 'factcourt[postgres]'") from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, **options)
    except psycopg.Error as exc:
        said = first_line(exc, type(exc).__name__)
        raise ConfigError(f"cannot reach the store {redact(url)}: {said}") from None


def check_reachable(url: str) -> None:
    """Connect once, before any model call: a store that cannot be reached stops the run at once."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"the store must be a postgresql:// URL, not {redact(url)!r}")
    connect(url).close()


class PostgresKV:
    """A thread-safe JSON key-value table in PostgreSQL: the same interface as ``SqliteKV``.

    A connection the store closed (it went away, then came back) is made again, so a
    long-lived process (a server, a notebook) does not fail every call after a blip.
    """

    def __init__(self, url: str, table: str):
        """Open a connection and create ``factcourt_<table>`` if it is not there."""
        self._url = url
        self._table = f"{KV_PREFIX}{table}"  # the database may be shared with other programs
        self._lock = threading.Lock()
        self._db = connect(url)
        with self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (KV_SETUP_LOCK,))
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {self._table} (k TEXT PRIMARY KEY, v TEXT)")

    def _execute(self, statement: str, params: tuple[object, ...]) -> Any:
        """The cursor of ``statement`` (the caller holds the lock), on a live connection.

        A connection closed, or whose server went away while it was idle (it learns so only
        here), is made again and the statement run once more (each is one that may run twice).
        """
        import psycopg

        try:
            return self._db.execute(statement, params)
        except psycopg.OperationalError:
            if not self._db.closed:
                raise
        self._db = connect(self._url)
        return self._db.execute(statement, params)

    def get(self, key: str) -> Any | None:
        """Return the stored value, or None."""
        with self._lock:
            row = self._execute(f"SELECT v FROM {self._table} WHERE k = %s", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        """Store a JSON value under ``key``."""
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._execute(
                f"INSERT INTO {self._table} VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
                (key, blob),
            )

    def put_new(self, key: str, value: Any) -> bool:
        """Store ``value`` unless ``key`` holds one already; return whether this call stored it."""
        blob = json.dumps(value, ensure_ascii=False)
        with self._lock:
            cursor = self._execute(
                f"INSERT INTO {self._table} VALUES (%s, %s) ON CONFLICT (k) DO NOTHING", (key, blob)
            )
        return cast(int, cursor.rowcount) == 1

    def discard(self, keys: list[str]) -> None:
        """Delete the values of ``keys`` (those stored)."""
        with self._lock:
            self._execute(f"DELETE FROM {self._table} WHERE k = ANY(%s)", (keys,))


def clear(url: str) -> int:
    """Delete every row of factcourt's cache tables in the store; return how many there were."""
    with connect(url) as db:
        tables = db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE %s",
            (KV_PREFIX.replace("_", "\\_") + "%",),
        ).fetchall()
        return sum(db.execute(f"DELETE FROM {name}").rowcount for (name,) in tables)


class AdvisoryLease:
    """A run's lease held as a session advisory lock: it dies with its connection, so with its process.

    What a lock file is on one machine, for processes on several.
    """

    def __init__(self, url: str, name: str):
        """Try to take the lease of ``name``; :attr:`held` says whether it was free."""
        self._db = connect(url)
        number = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)
        self.held = bool(self._db.execute("SELECT pg_try_advisory_lock(%s)", (number,)).fetchone()[0])
        if not self.held:
            self._db.close()

    def release(self) -> None:
        """Give the lease back."""
        self._db.close()
