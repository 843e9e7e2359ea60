"""The embedded model server: llama.cpp's own server (``xllamacpp`` wheel) on 127.0.0.1.

It runs in a child process (``factcourt.providers.llama_child``), started on demand.

One server per process and model file, reused by every call of the run, stopped at exit
(normal exit, an error, Ctrl-C or SIGTERM), so no orphan process is left behind.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from factcourt.errors import BackendError, ConfigError
from factcourt.paths import cache_dir


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalModelServer:
    """A llama.cpp server process serving one GGUF file."""

    def __init__(self, model_path: Path, *, n_ctx: int = 4096, threads: int = 0, slots: int = 1):
        """Describe the server; nothing starts before :meth:`start`."""
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.threads = threads or os.cpu_count() or 2
        self.slots = slots
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = cache_dir() / "logs" / f"llama-server-{os.getpid()}.log"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 180.0) -> LocalModelServer:
        """Start the server on a free port and wait until it answers."""
        try:
            import xllamacpp  # noqa: F401  (only to give a clear error when missing)
        except ImportError as exc:
            raise ConfigError(
                "the embedded model needs the xllamacpp package: run the README install command"
            ) from exc
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        for _attempt in range(3):  # a port taken between free_port() and bind: pick another
            self.port = free_port()
            with self.log_path.open("ab") as log:
                self.process = subprocess.Popen(
                    [
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
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,  # Ctrl-C reaches us; we stop it ourselves
                )
            _register(self)  # from the spawn on: a signal during start-up must stop it too
            if self._wait_ready(timeout_s):
                return self
            if self.process.poll() is None:
                self.stop()
                break
            tail = self.log_path.read_bytes()[-4000:].lower()
            if b"address already in use" not in tail and b"couldn't bind" not in tail:
                break
        _running.pop(self.model_path, None)
        raise BackendError(f"the local model server did not start; see its log: {self.log_path}")

    def _wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
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
        """Whether the process still runs."""
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Terminate the server (kill it after 5 s) and reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        _running.pop(self.model_path, None)


_running: dict[Path, LocalModelServer] = {}
_lock = threading.Lock()
_hooks_installed = False
_sigterm_installed = False


def shared_server(model_path: Path, *, threads: int = 0, slots: int = 1) -> LocalModelServer:
    """Return the running server for ``model_path``, starting it once per process.

    A server that died mid-run is reported with its log instead of silently restarted, so a
    crash is never mistaken for a slow answer.
    """
    with _lock:
        server = _running.get(model_path)
        if server is not None:
            if not server.alive():
                _running.pop(model_path, None)
                raise BackendError(f"the local model server stopped; see its log: {server.log_path}")
            return server
        return LocalModelServer(model_path, threads=threads, slots=slots).start()


def death_note(model_path: Path) -> str:
    """A sentence naming the log when the server for ``model_path`` has died, else ''."""
    server = _running.get(Path(model_path))
    if server is not None and not server.alive():
        return f" (the local model server stopped; see its log: {server.log_path})"
    return ""


def stop_all() -> None:
    """Stop every server this process started."""
    for server in list(_running.values()):
        server.stop()


def _register(server: LocalModelServer) -> None:
    _running[server.model_path] = server
    install_exit_handlers()


def install_exit_handlers() -> None:
    """Stop the servers at exit and on SIGTERM.

    Python allows signal handlers only from the main thread: the CLI calls this at start-up.
    """
    global _hooks_installed, _sigterm_installed
    if not _hooks_installed:
        _hooks_installed = True
        atexit.register(stop_all)
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return
    _sigterm_installed = True
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: object) -> None:
        stop_all()
        if callable(previous):
            previous(signum, frame)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_sigterm)
