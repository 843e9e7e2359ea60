"""One embedded server per machine: the registry's lock, record and users, and the join/start/wait
protocol of local_server, on fake users (processes holding a user lock) and a fake server."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from factcourt.errors import BackendError
from factcourt.providers import local_server, server_registry
from factcourt.providers.local_server import LocalModelServer
from factcourt.providers.server_registry import Registry, pid_alive, watch_users
from tests.signals import ctrl_c_not_ignored

FAKE_CHILD = Path(__file__).with_name("fake_llama_child.py")
REGISTRY_MODULE = server_registry.__file__
HOLD_USER = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("server_registry", sys.argv[1])
registry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(registry)
if sys.argv[3] == "on-request":
    print("ready", flush=True)
    sys.stdin.readline()
registry.Registry(sys.argv[2]).join()
print("joined", flush=True)
time.sleep(60)
"""


def fake_user(root: Path, on_request: bool = False) -> subprocess.Popen:
    """Another process using the server: it holds a user lock until it dies.

    ``on_request``: it starts now but joins only at :func:`join_now`, within milliseconds, where
    a fresh Python process would take a loaded machine a second or more.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_USER, REGISTRY_MODULE, str(root), "on-request" if on_request else "now"],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline() == ("ready\n" if on_request else "joined\n")
    return proc


def join_now(proc: subprocess.Popen) -> None:
    proc.stdin.write("join\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == "joined\n"


def kill9(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def until(condition, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(
        LocalModelServer,
        "_command",
        lambda self: [
            sys.executable,
            str(FAKE_CHILD),
            REGISTRY_MODULE,
            "--port",
            str(self.port),
            "--registry",
            str(self.registry.root),
            "--keep-alive",
            str(self.keep_alive),
        ],
    )
    yield tmp_path
    local_server.stop_all()
    local_server.allow_starts()


@pytest.fixture
def weights(tmp_path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not read by the fake server")
    return path


def test_another_process_probing_for_users_is_not_a_user(tmp_path):
    """The server's watcher probes every 0.25 s: a Ctrl-C'd run that probes at that moment must
    still see no user and stop the server at once, not leave it for its keep-alive."""
    import fcntl

    registry = Registry(tmp_path)
    probe = registry._open("users")
    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the other probe, held for a moment
    threading.Timer(0.1, os.close, [probe]).start()
    assert not registry.has_users()
    user = fake_user(tmp_path)
    assert registry.has_users()  # a user holds its lock for good: no wait outlasts it
    kill9(user)


def test_a_user_counts_until_it_dies_even_by_sigkill(tmp_path):
    registry = Registry(tmp_path)
    assert not registry.has_users()
    user = fake_user(tmp_path)
    assert registry.has_users()
    kill9(user)
    assert not registry.has_users()


def test_the_record_is_removed_only_by_the_server_it_names(tmp_path):
    registry = Registry(tmp_path)
    registry.write({"pid": 123, "port": 1})
    registry.remove(456)
    assert registry.read() == {"pid": 123, "port": 1}
    registry.remove(123)
    assert registry.read() is None


def test_pid_alive_is_false_for_the_dead_and_for_zombies():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    assert until(lambda: not pid_alive(proc.pid))  # a zombie until the wait below
    proc.wait()
    assert not pid_alive(proc.pid) and not pid_alive(0) and pid_alive(os.getpid())


def watch_in_thread(registry: Registry, keep_alive_s: float) -> dict:
    done: dict = {}
    threading.Thread(
        target=lambda: done.setdefault("fd", watch_users(registry, keep_alive_s, poll_s=0.02)), daemon=True
    ).start()
    return done


def test_the_watchdog_waits_for_the_last_user_then_keep_alive_then_holds_the_lock(tmp_path):
    registry = Registry(tmp_path)
    registry.write({"pid": os.getpid(), "port": 1})
    first, second = fake_user(tmp_path), fake_user(tmp_path)
    done = watch_in_thread(registry, keep_alive_s=0.5)
    kill9(first)
    time.sleep(0.3)
    assert "fd" not in done  # the second user still runs
    kill9(second)
    gone = time.monotonic()
    assert until(lambda: "fd" in done)
    assert time.monotonic() - gone >= 0.45  # keep-alive
    assert registry.read() is None
    assert registry.lock(timeout_s=0) is None  # held until the server's process exits
    os.close(done["fd"])


def test_a_user_joining_within_keep_alive_keeps_the_server(tmp_path):
    registry = Registry(tmp_path)
    user, next_user = fake_user(tmp_path), fake_user(tmp_path, on_request=True)
    done = watch_in_thread(registry, keep_alive_s=2.0)
    kill9(user)
    join_now(next_user)  # milliseconds after the last user left, well within keep-alive
    time.sleep(2.3)  # past the keep-alive counted from the kill: only the new user keeps it
    assert "fd" not in done
    kill9(next_user)
    assert until(lambda: "fd" in done, 10)
    os.close(done["fd"])


def test_the_watchdog_does_not_stop_while_a_user_is_joining(tmp_path):
    registry = Registry(tmp_path)
    joining = registry.lock()
    done = watch_in_thread(registry, keep_alive_s=0.0)
    time.sleep(0.3)
    assert "fd" not in done
    os.close(joining)
    assert until(lambda: "fd" in done)
    os.close(done["fd"])


def test_a_second_user_shares_the_server_and_the_last_one_stops_it(cache, weights):
    first = LocalModelServer(weights, keep_alive=30).start(timeout_s=20)
    second = LocalModelServer(weights, keep_alive=30).start(timeout_s=20)
    assert (second.pid, second.port) == (first.pid, first.port)
    assert first.process is not None and second.process is None  # joined, not started
    assert second.log_path == first.log_path
    first.stop()
    assert second.alive()  # the other user keeps it
    second.stop()
    assert until(lambda: first.process.poll() is not None, 6)
    assert Registry(cache / "llama-server").read() is None


def test_a_user_that_leaves_lets_the_server_stop_by_itself_after_keep_alive(cache, weights):
    server = LocalModelServer(weights, keep_alive=2.0).start(timeout_s=20)
    server.stop(linger=True)
    assert server.process.poll() is None  # waiting for a next command
    assert until(lambda: server.process.poll() is not None, 15)
    assert Registry(cache / "llama-server").read() is None


def test_other_settings_wait_until_the_running_server_stops(cache, weights):
    first = LocalModelServer(weights, slots=1, keep_alive=30).start(timeout_s=20)
    started: dict = {}
    threading.Thread(
        target=lambda: started.setdefault("server", LocalModelServer(weights, slots=2).start(timeout_s=20)),
        daemon=True,
    ).start()
    time.sleep(1.0)
    assert "server" not in started
    first.stop()
    assert until(lambda: "server" in started, 20)
    assert started["server"].pid != first.pid and not first.alive()
    started["server"].stop()


def test_a_record_of_a_dead_server_is_replaced(cache, weights):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    probe = LocalModelServer(weights)
    Registry(cache / "llama-server").write(
        {"key": probe.key, "pid": dead.pid, "port": 1, "model": str(weights), "log": "x"}
    )
    server = LocalModelServer(weights).start(timeout_s=20)
    assert server.process is not None and server.pid != dead.pid
    assert Registry(cache / "llama-server").read()["pid"] == server.pid


def start_in_thread(server: LocalModelServer, **kwargs) -> tuple[threading.Thread, dict]:
    """Start ``server`` in a thread; the dict gets its error, or the server under 'server'."""
    outcome: dict = {}

    def start():
        try:
            outcome["server"] = server.start(timeout_s=20, **kwargs)
        except BackendError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    return thread, outcome


def test_stop_all_ends_a_wait_for_the_lock(cache, weights, monkeypatch):
    holder = Registry(cache / "llama-server").lock()
    waiting = threading.Event()
    lock = Registry.lock

    def lock_and_tell(self, *args, **kwargs):
        waiting.set()
        return lock(self, *args, **kwargs)

    monkeypatch.setattr(Registry, "lock", lock_and_tell)
    thread, outcome = start_in_thread(LocalModelServer(weights))
    assert waiting.wait(20)
    local_server.stop_all()
    thread.join(10)
    assert "stopped while waiting" in outcome.get("error", "")
    os.close(holder)


def test_stop_all_before_a_start_reads_it_still_ends_the_wait(cache, weights):
    """A Ctrl-C or stop_all() that comes before a worker thread's start begins is not missed."""
    holder = Registry(cache / "llama-server").lock()
    local_server.stop_all()
    thread, outcome = start_in_thread(LocalModelServer(weights))
    thread.join(10)
    assert "stopped while waiting" in outcome.get("error", "")
    os.close(holder)
    local_server.allow_starts()  # the next run of a long-lived process starts again
    server = LocalModelServer(weights).start(timeout_s=20)
    assert server.alive()
    server.stop()


def test_a_process_that_asks_for_other_weights_leaves_its_server_first(cache, weights, tmp_path):
    """It used to wait, holding the process's lock, for the server it kept running itself."""
    other = tmp_path / "other.gguf"
    other.write_bytes(b"other weights")
    first = local_server.shared_server(weights, keep_alive=30)
    outcome: dict = {}
    thread = threading.Thread(
        target=lambda: outcome.setdefault("server", local_server.shared_server(other, keep_alive=30)),
        daemon=True,
    )
    thread.start()
    thread.join(20)
    assert outcome["server"].model_path == other and outcome["server"].pid != first.pid
    assert until(lambda: not first.alive(), 10)
    assert local_server._current is outcome["server"]


def test_a_wait_for_another_processs_server_is_bounded(cache, weights):
    first = LocalModelServer(weights, slots=1, keep_alive=30).start(timeout_s=20)
    with pytest.raises(BackendError, match=r"model\.gguf, pid \d+\) still runs after local_wait_s=0\.3 s"):
        LocalModelServer(weights, slots=2).start(timeout_s=20, wait_s=0.3)
    holder = Registry(cache / "llama-server").lock()
    with pytest.raises(BackendError, match="held the embedded model server's registry lock"):
        LocalModelServer(weights, slots=2).start(timeout_s=20, wait_s=0.3)
    os.close(holder)
    first.stop()


def test_stopping_a_server_that_exits_meanwhile_is_no_error(monkeypatch, tmp_path):
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(local_server, "_is_server", lambda pid: True)

    def gone(pid, signum):
        raise ProcessLookupError(pid)

    monkeypatch.setattr(local_server.os, "kill", gone)
    server = LocalModelServer(tmp_path / "model.gguf")
    server.pid = 4242  # another process's server, which exited after the check
    server._terminate()


CTRL_C_WHILE_WAITING = """
import asyncio, os, signal, sys, threading
from pathlib import Path
from factcourt.providers import local_server
from factcourt.providers.server_registry import Registry
local_server.install_exit_handlers()
holder = Registry(Path(sys.argv[2]) / "llama-server").lock()  # another process is starting one
waiting, lock = threading.Event(), Registry.lock
Registry.lock = lambda self, *a, **k: (waiting.set(), lock(self, *a, **k))[1]
# Ctrl-C once the worker waits, however long a loaded machine takes to get there
threading.Thread(target=lambda: waiting.wait() and os.kill(os.getpid(), signal.SIGINT), daemon=True).start()
try:
    asyncio.run(asyncio.to_thread(local_server.LocalModelServer(Path(sys.argv[1])).start))
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_ctrl_c_ends_a_wait_in_a_worker_thread(weights, tmp_path):
    """asyncio.run joins its worker threads on the way out: the waiting one must give up."""
    env = {**os.environ, "FACTCOURT_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_WAITING, str(weights), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # only a failure waits this long: the wait it ends would last WAIT_S
        preexec_fn=ctrl_c_not_ignored,
    )
    assert done.stdout == "interrupted\n", done.stderr


def test_one_request_turn_at_a_time_and_a_cancelled_wait_never_takes_it(tmp_path):
    import asyncio

    registry = Registry(tmp_path)

    async def scenario():
        first = await registry.turn()
        waiting = asyncio.create_task(registry.turn())
        await asyncio.sleep(0.2)
        assert not waiting.done(), "a second request waits while the first holds the turn"
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        os.close(first)
        second = await asyncio.wait_for(registry.turn(), 1)  # the cancelled waiter did not take it
        os.close(second)

    asyncio.run(scenario())


def test_the_request_turn_is_skipped_for_a_server_with_several_slots(tmp_path, monkeypatch):
    import asyncio

    class Server:
        registry = Registry(tmp_path)

    monkeypatch.setattr(local_server, "_current", Server())

    async def scenario():
        held = await Server.registry.turn()
        async with local_server.request_turn(slots=2):  # parallel slots: the server takes it now
            pass
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                async with local_server.request_turn(slots=1):
                    pass
        os.close(held)

    asyncio.run(scenario())
