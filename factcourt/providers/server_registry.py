"""Which embedded model server runs on this machine, and which processes use it.

One directory (``cache_dir()/llama-server``) holds four files:

- ``lock``: held (``flock``, exclusive) by a process while it finds, joins or starts the server,
  and by the server itself from the moment it decides to stop until it has exited, so joining and
  stopping never cross and no second server starts while the first still holds its memory.
- ``server.json``: the running server (settings key, pid, port, log), written once it answers.
- ``users``: every process using the server holds a shared ``flock`` on it. The kernel drops a
  process's lock when it dies, SIGKILL included, so a dead user is never counted and a reused
  pid is never mistaken for a user.
- ``turn``: held (exclusive) by a process for each request it sends to a one-slot server, so a
  request's time-out counts from when the server takes it, not from a place in another
  process's queue.

Stdlib only: the server's own process imports it to watch its users.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

PROBE_GRACE_S = 0.5  # longer than any probe holds the users lock, even on a loaded machine


def server_key(model_path: Path, **settings: object) -> str:
    """Digest of the weights (path, size, mtime) and the settings a server was started with."""
    path = Path(model_path).resolve()
    stat = path.stat()
    text = json.dumps([str(path), stat.st_size, stat.st_mtime_ns, sorted(settings.items())])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _take_if_free(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` if no one holds it: whether it is ours now (never waits)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    if pid <= 0:  # kill(0) would reach our own process group
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(0) is all there is


class Registry:
    """The lock, record and users files of the machine's embedded server."""

    def __init__(self, root: Path):
        """Use (and create) the directory ``root``."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.record_path = self.root / "server.json"

    def _open(self, name: str) -> int:
        return os.open(self.root / name, os.O_RDWR | os.O_CREAT, 0o600)

    def lock(self, timeout_s: float | None = None, abandon: Callable[[], bool] = lambda: False) -> int | None:
        """Take the exclusive lock; return its descriptor (close it to release), or None.

        None when ``timeout_s`` passed or ``abandon()`` turned true first. It polls rather than
        blocks, so a process that is told to stop while it waits does stop.
        """
        fd = self._open("lock")
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not _take_if_free(fd):
            if abandon() or (deadline is not None and time.monotonic() >= deadline):
                os.close(fd)
                return None
            time.sleep(0.05)
        return fd

    async def turn(self, poll_s: float = 0.05) -> int:
        """Wait for the request turn without blocking the event loop; close the descriptor to pass it on.

        Polled rather than blocking in a thread: a cancelled wait then never takes the turn
        after its caller has gone.
        """
        fd = self._open("turn")
        try:
            while not _take_if_free(fd):
                await asyncio.sleep(poll_s)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def join(self) -> int:
        """Count this process as a user until the returned descriptor is closed (or it dies)."""
        fd = self._open("users")
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits at most for another process's has_users() probe
        return fd

    def has_users(self, probe_grace_s: float = PROBE_GRACE_S) -> bool:
        """Whether any live process holds a user lock.

        Another process's probe (the server's watcher, every 0.25 s) also holds the lock, for
        microseconds unless the machine is loaded: a lock that stays held for ``probe_grace_s``
        is a user's.
        """
        fd = self._open("users")
        deadline = time.monotonic() + probe_grace_s
        try:
            while not _take_if_free(fd):
                if time.monotonic() >= deadline:
                    return True
                time.sleep(0.01)
            return False
        finally:
            os.close(fd)  # also drops the probe's lock at once

    def read(self) -> dict[str, Any] | None:
        """The running server's record, or None."""
        try:
            return cast(dict[str, Any], json.loads(self.record_path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    def write(self, record: dict[str, Any]) -> None:
        """Publish ``record`` (atomically: a reader never sees half of it)."""
        tmp = self.record_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, self.record_path)

    def remove(self, pid: int) -> None:
        """Delete the record if it names ``pid``."""
        record = self.read()
        if record is not None and record.get("pid") == pid:
            self.record_path.unlink(missing_ok=True)


def watch_users(registry: Registry, keep_alive_s: float, poll_s: float = 0.25) -> int:
    """Return once no process has used the server for ``keep_alive_s`` seconds.

    Run by the server's own process. On return the record is gone and the caller holds the
    lock (the returned descriptor): it must exit without closing it, so that nobody joins a
    stopping server or starts a new one before this one is gone.
    """
    idle_since: float | None = None
    while True:
        time.sleep(poll_s)
        if registry.has_users():
            idle_since = None
            continue
        now = time.monotonic()
        idle_since = idle_since if idle_since is not None else now
        if now - idle_since < keep_alive_s:
            continue
        fd = registry.lock(timeout_s=0)
        if fd is None:  # someone is joining right now
            continue
        if registry.has_users():  # joined between the probe and the lock
            os.close(fd)
            idle_since = None
            continue
        registry.remove(os.getpid())
        return fd
