"""One embedded server per machine: separate Python processes share the real llama.cpp server
(SmolLM2), and it exits once the last of them is gone, however they ended."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytestmark = pytest.mark.integration

# A factcourt process using the embedded server: prints the server's pid and port, makes one
# chat call, then holds the server until its stdin closes.
USER = """
import json, sys, urllib.request
from pathlib import Path
from factcourt.providers import local_server
local_server.install_exit_handlers()
server = local_server.shared_server(Path(sys.argv[1]), keep_alive=float(sys.argv[2]))
print(json.dumps({"pid": server.pid, "port": server.port, "started": server.process is not None}), flush=True)
body = {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}
request = urllib.request.Request(f"{server.base_url}/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=600) as reply:
    print(json.load(reply)["usage"]["completion_tokens"], flush=True)
sys.stdin.readline()
"""
KEEP_ALIVE = 1.0
# How long a server may take to exit once its keep-alive is over: a bound, not a timing, as busy
# cores slow its watchdog and teardown; test_server_registry times the keep-alive itself
EXIT_S = KEEP_ALIVE + 120


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def servers_under(cache) -> list[int]:
    """The llama.cpp server processes that use this test's registry."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            cmdline = open(f"/proc/{entry}/cmdline", "rb").read()
        except OSError:
            continue
        if b"llama_child" in cmdline and str(cache).encode() in cmdline and alive(int(entry)):
            found.append(int(entry))
    return found


@pytest.fixture
def users(smollm2, tmp_path):
    env = {**os.environ, "FACTCOURT_CACHE_DIR": str(tmp_path)}
    procs = []

    def start() -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-c", USER, str(smollm2), str(KEEP_ALIVE)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def read_server(proc: subprocess.Popen) -> dict:
    server = json.loads(proc.stdout.readline())
    assert int(proc.stdout.readline()) >= 1  # it got an answer from the server
    return server


def gone_within(pid: int, port: int, seconds: float) -> None:
    start = time.monotonic()
    while time.monotonic() - start < seconds and (alive(pid) or port_open(port)):
        time.sleep(0.05)
    assert not alive(pid) and not port_open(port)


@pytest.mark.parametrize("first_ends", ["sigkill", "exit"])
def test_two_processes_share_one_server_that_exits_after_the_last(users, tmp_path, first_ends):
    first, second = users(), users()  # started together: they race for the start
    a, b = read_server(first), read_server(second)
    assert (a["pid"], a["port"]) == (b["pid"], b["port"])
    assert sorted([a["started"], b["started"]]) == [False, True]  # one started it, one joined
    assert servers_under(tmp_path) == [a["pid"]]
    if first_ends == "sigkill":
        first.send_signal(signal.SIGKILL)
    else:
        first.stdin.close()
    first.wait(timeout=600)
    time.sleep(KEEP_ALIVE + 1.0)
    assert alive(a["pid"])  # the second process still uses it
    with urllib.request.urlopen(f"http://127.0.0.1:{a['port']}/health", timeout=600) as reply:
        assert reply.status == 200
    second.stdin.close()
    second.wait(timeout=600)
    gone_within(a["pid"], a["port"], EXIT_S)
    assert not (tmp_path / "llama-server" / "server.json").exists()


def test_the_server_exits_when_every_user_was_sigkilled(users, tmp_path):
    first, second = users(), users()
    a, b = read_server(first), read_server(second)
    assert a["pid"] == b["pid"]
    for proc in (first, second):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    gone_within(a["pid"], a["port"], EXIT_S)
    # the next user starts a fresh server (the dead one's record is gone or stale)
    third = users()
    c = read_server(third)
    assert c["started"] and c["pid"] != a["pid"]
