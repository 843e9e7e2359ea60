"""The embedded model server: llama.cpp's own server (``xllamacpp`` wheel) on 127.0.0.1.

It runs in a child process (``factcourt.providers.llama_child``), started on demand.

One server per machine: every factcourt process (CLI, bench, LangGraph server) that asks for the
same weights and settings joins the running one (``server_registry``); one that asks for other
weights or settings waits until it has stopped (at most ``local_wait_s``). Each process uses
one server at a time, for its whole run. The server stops ``keep_alive`` seconds after its last
user is gone, however that user ended; a user that is interrupted (Ctrl-C, SIGTERM) or calls
:func:`stop_all` stops it at once when no other process uses it, so no orphan process is left
behind.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import FrameType
from typing import Any, cast

from factcourt.context.base import KEEP_ALIVE_S, WAIT_S
from factcourt.errors import BackendError, ConfigError
from factcourt.paths import cache_dir
from factcourt.providers.server_registry import Registry, pid_alive, server_key

log = logging.getLogger(__name__)


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return cast(int, sock.getsockname()[1])  # an AF_INET address: (host, port)


class LocalModelServer:
    """The machine's llama.cpp server process for one GGUF file, as one of its users."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        threads: int = 0,
        slots: int = 1,
        keep_alive: float = KEEP_ALIVE_S,
        adapter: Path | None = None,
    ):
        """Describe the server (``adapter``: a LoRA GGUF on the weights); nothing starts yet."""
        self.model_path = Path(model_path)
        self.adapter = Path(adapter) if adapter else None
        self.n_ctx = n_ctx
        self.threads = threads or os.cpu_count() or 2
        self.slots = slots
        self.keep_alive = keep_alive
        self.port = 0
        self.pid = 0
        self.process: subprocess.Popen[bytes] | None = None  # only in the process that started it
        self.published = False  # in the registry: other processes may use it
        self.log_path = cache_dir() / "logs" / f"llama-server-{os.getpid()}.log"
        self.registry = Registry(cache_dir() / "llama-server")
        self._user: int | None = None  # descriptor of this process's user lock

    @property
    def key(self) -> str:
        """What another process must ask for to share this server."""
        adapter = {"adapter": server_key(self.adapter)} if self.adapter else {}
        return server_key(
            self.model_path, n_ctx=self.n_ctx, threads=self.threads, slots=self.slots, **adapter
        )

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 180.0, wait_s: float = WAIT_S) -> LocalModelServer:
        """Join the machine's server for these weights and settings, else start it and wait until it answers.

        While another process's server for other weights or settings runs, wait until it stops,
        for at most ``wait_s`` seconds.
        """
        try:
            import xllamacpp  # noqa: F401  (only to give a clear error when missing)
        except ImportError as exc:
            raise ConfigError(
                "the embedded model needs the xllamacpp package: run the README install command"
            ) from exc
        stopped = _stopping.is_set  # stop_all() or Ctrl-C, before or during the wait
        key, told = self.key, False
        deadline = time.monotonic() + wait_s
        while True:
            lock = self.registry.lock(timeout_s=max(0.0, deadline - time.monotonic()), abandon=stopped)
            if lock is None:
                if stopped():
                    raise BackendError("stopped while waiting for the local model server")
                raise BackendError(
                    f"another factcourt process held the embedded model server's registry lock for "
                    f"local_wait_s={wait_s:g} s (starting or stopping its server): {self.registry.root}"
                )
            try:
                record = self.registry.read()
                if record is None or not _is_server(record["pid"]):
                    if record is not None:  # it crashed or was killed
                        self.registry.remove(record["pid"])
                    return self._spawn(timeout_s, stopped)
                if record["key"] == key:
                    return self._join(record)
            finally:
                os.close(lock)
            if not told:
                told = True
                log.warning(
                    "waiting for the embedded model server of another factcourt process (%s, pid %d) "
                    "to stop: one runs at a time",
                    Path(record["model"]).name,
                    record["pid"],
                )
            if time.monotonic() >= deadline:
                raise BackendError(
                    f"the embedded model server of another factcourt process ({Path(record['model']).name}, "
                    f"pid {record['pid']}) still runs after local_wait_s={wait_s:g} s; one runs at a time"
                )
            for _ in range(10):
                if stopped():
                    raise BackendError("stopped while waiting for the local model server")
                time.sleep(0.1)

    def _join(self, record: dict[str, Any]) -> LocalModelServer:
        self.pid, self.port, self.log_path = record["pid"], record["port"], Path(record["log"])
        self._user = self.registry.join()
        self.published = True
        _register(self)
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=10):
                return self
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            self.stop(linger=True)
            raise BackendError(
                f"the local model server of another factcourt process (pid {self.pid}) does not "
                f"answer; see its log: {self.log_path}"
            ) from None

    def _spawn(self, timeout_s: float, stopped: Callable[[], bool]) -> LocalModelServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._user = self.registry.join()  # before the spawn: the server never sees zero users
        for _attempt in range(3):  # a port taken between free_port() and bind: pick another
            self.port = free_port()
            with self.log_path.open("ab") as log_file:
                self.process = subprocess.Popen(
                    self._command(),
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,  # Ctrl-C reaches us; we stop it ourselves
                )
            self.pid = self.process.pid
            _register(self)  # from the spawn on: a signal during start-up must stop it too
            if self._wait_ready(timeout_s, stopped):
                record = {"key": self.key, "pid": self.pid, "port": self.port, "model": str(self.model_path)}
                self.registry.write(record | {"log": str(self.log_path)})
                self.published = True
                return self
            if self.process.poll() is None or stopped():
                break
            tail = self.log_path.read_bytes()[-4000:].lower()
            if b"address already in use" not in tail and b"couldn't bind" not in tail:
                break
        self.stop()
        raise BackendError(f"the local model server did not start; see its log: {self.log_path}")

    def _command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "factcourt.providers.llama_child",
            "--model",
            str(self.model_path),
            "--port",
            str(self.port),
            "--ctx",
            str(self.n_ctx),
            "--threads",
            str(self.threads),
            "--slots",
            str(self.slots),
            "--alias",
            self.model_path.stem,
            "--registry",
            str(self.registry.root),
            "--keep-alive",
            str(self.keep_alive),
            *(["--lora", str(self.adapter)] if self.adapter else []),
        ]

    def _wait_ready(self, timeout_s: float, stopped: Callable[[], bool]) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not stopped():
            if self.process is None or self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        return False

    def alive(self) -> bool:
        """Whether the server process still runs."""
        if self.process is not None:
            return self.process.poll() is None
        return self.pid > 0 and pid_alive(self.pid)

    def stop(self, *, linger: bool = False) -> None:
        """Stop using the server; stop the server too unless another process uses it.

        ``linger``: leave the stopping to the server, which waits ``keep_alive`` seconds for a
        next user first (the normal end of a command). Idempotent.
        """
        global _current
        if _current is self:
            _current = None
        user, self._user = self._user, None
        if user is not None:
            os.close(user)
        if not self.published:  # nobody else knows of it: ours alone to stop
            self._terminate()
            return
        if linger:
            return
        lock = self.registry.lock(timeout_s=3)
        if lock is None:  # busy for long: the server stops by itself once no user remains
            return
        try:
            record = self.registry.read()
            if record is None or record["pid"] != self.pid or self.registry.has_users():
                return
            self._terminate()
            self.registry.remove(self.pid)
        finally:
            os.close(lock)

    def _terminate(self) -> None:
        """Terminate the server (kill it after 5 s) and reap it when it is our child."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            return
        if not _is_server(self.pid):
            return
        with contextlib.suppress(ProcessLookupError):  # it may exit between the checks and the kill
            os.kill(self.pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while pid_alive(self.pid):
                if time.monotonic() > deadline:
                    os.kill(self.pid, signal.SIGKILL)
                    deadline = float("inf")
                time.sleep(0.05)


def _is_server(pid: int) -> bool:
    """Whether ``pid`` is a live embedded server (not a process that got a dead server's pid)."""
    if not pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"llama_child" in fh.read()
    except OSError:
        return True  # no /proc: trust the pid


# This process's server: one at a time, as on the machine (a second would wait for the first,
# which this process itself keeps running)
_current: LocalModelServer | None = None
_lock = threading.Lock()
_hooks_installed = False
_sigterm_installed = False
# Set by stop_all() and Ctrl-C, and sticky: a start in a worker thread that has not yet begun
# waiting must give up too. allow_starts() clears it for the next run of a long-lived process.
_stopping = threading.Event()


def shared_server(
    model_path: Path,
    *,
    threads: int = 0,
    slots: int = 1,
    keep_alive: float = KEEP_ALIVE_S,
    wait_s: float = WAIT_S,
    adapter: Path | None = None,
) -> LocalModelServer:
    """Return the machine's server for ``model_path`` (and ``adapter``), joined or started once per process.

    A server that died mid-run is reported with its log instead of silently restarted, so a
    crash is never mistaken for a slow answer. A process that asks for other weights or
    settings gives up the server it used first (one embedded server per machine).
    """
    with _lock:
        server = _current
        if server is not None and not server.alive():
            server.stop()
            raise BackendError(f"the local model server stopped; see its log: {server.log_path}")
        wanted = LocalModelServer(
            model_path, threads=threads, slots=slots, keep_alive=keep_alive, adapter=adapter
        )
        if server is not None:
            if server.key == wanted.key:
                return server
            server.stop()
        return wanted.start(wait_s=wait_s)


@contextlib.asynccontextmanager
async def request_turn(slots: int) -> AsyncIterator[None]:
    """Hold the machine's request turn while one request runs on a one-slot server.

    Processes sharing the server would otherwise queue inside it, where the wait counts
    against each request's time-out: a `check` beside a `bench run` timed out there.
    """
    server = _current
    if server is None or slots > 1:
        yield
        return
    fd = await server.registry.turn()
    try:
        yield
    finally:
        os.close(fd)


def death_note(model_path: Path) -> str:
    """A sentence naming the log when the server for ``model_path`` has died, else ''."""
    server = _current
    if server is not None and server.model_path == Path(model_path) and not server.alive():
        return f" (the local model server stopped; see its log: {server.log_path})"
    return ""


def stop_all() -> None:
    """Stop using the server, and stop it if no other process uses it, now.

    Starts and waits for a server in this process give up until :func:`allow_starts`.
    """
    _stopping.set()
    if _current is not None:
        _current.stop()


def allow_starts() -> None:
    """Let a new run start or join a server after :func:`stop_all` or Ctrl-C.

    Call it before the run's worker threads start: a stop requested after it is not missed.
    """
    _stopping.clear()


def leave_all() -> None:
    """Stop using the server; it stops by itself after its ``keep_alive`` without users."""
    if _current is not None:
        _current.stop(linger=True)


def _register(server: LocalModelServer) -> None:
    global _current
    _current = server
    install_exit_handlers()


def install_exit_handlers() -> None:
    """Leave the servers at exit, stop them on SIGTERM, and end waits for them on Ctrl-C.

    Python allows signal handlers only from the main thread: the CLI calls this at start-up.
    """
    global _hooks_installed, _sigterm_installed
    if not _hooks_installed:
        _hooks_installed = True
        atexit.register(leave_all)
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return
    _sigterm_installed = True
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        stop_all()
        if callable(previous):
            previous(signum, frame)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_sigterm)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: a start or a wait for the server in a worker thread gives up, then KeyboardInterrupt.

    asyncio.run joins its worker threads before the interrupt reaches the CLI: one waiting its
    turn for the server would otherwise hold the process for as long as the other server runs.
    """
    _stopping.set()
    signal.default_int_handler(signum, frame)
