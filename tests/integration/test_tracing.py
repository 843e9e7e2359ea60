"""LangSmith tracing against a local HTTP recorder standing in for the LangSmith API."""

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from factcourt.providers.local_server import free_port
from factcourt.tracing import FLUSH_TIMEOUT_S

pytestmark = pytest.mark.integration
SECRET = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"
TEXT = "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite."


class Recorder(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]] = []

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        if self.headers.get("content-encoding") == "zstd":
            import zstandard

            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        self.bodies.append((self.path, body))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_PATCH = do_POST  # noqa: N815

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(
            json.dumps(
                {
                    "version": "0.10.0",
                    "instance_flags": {},
                    "batch_ingest_config": {
                        "use_multipart_endpoint": False,
                        "size_limit": 100,
                        "size_limit_bytes": 20_971_520,
                        "scale_up_qsize_trigger": 1000,
                        "scale_up_nthreads_limit": 16,
                        "scale_down_nempty_trigger": 4,
                    },
                }
            ).encode()
        )

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    Recorder.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def run_cli(tmp_path, corpus, **env):
    tmp_path.mkdir(parents=True, exist_ok=True)
    text = tmp_path / "t.txt"
    text.write_text(TEXT, encoding="utf-8")
    full_env = {
        **os.environ,
        "FACTCOURT_CACHE_DIR": str(tmp_path / "cache"),
        "LANGSMITH_API_KEY": SECRET,
        "LANGSMITH_PROJECT": "factcourt-test",
        **env,
    }
    start = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "factcourt.cli",
            "check",
            str(text),
            "--model",
            "sim",
            "--corpus",
            corpus,
            "--json",
            "--rule",
            "adaptive",
            "--first-pass-theta",  # the sim model gives no logprobs: every claim goes to the jury
            "0.95",
        ],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return time.monotonic() - start


def runs_of(bodies):
    runs = []
    for _path, body in bodies:
        text = body.decode("utf-8", errors="replace")
        if text.lstrip().startswith("{"):
            data = json.loads(text)
            runs += data.get("post", []) + data.get("patch", [])
        else:  # multipart: one JSON part per run field
            for chunk in text.split("\r\n\r\n")[1:]:
                part = chunk.split("\r\n--")[0]
                try:
                    value = json.loads(part)
                except json.JSONDecodeError:
                    continue
                if isinstance(value, dict) and "name" in value:
                    runs.append(value)
    return runs


def test_run_tree_arrives_with_names_and_tags_and_no_secret(tmp_path, corpus, recorder):
    run_cli(tmp_path, corpus, LANGSMITH_TRACING="true", LANGSMITH_ENDPOINT=recorder)
    assert Recorder.bodies, "no trace reached the recorder"
    assert not any(SECRET.encode() in body for _, body in Recorder.bodies)
    runs = runs_of(Recorder.bodies)
    by_id = {r["id"]: r for r in runs if "id" in r}
    names = {r.get("name") for r in runs}
    assert {"factcheck", "check_claim", "debater_turn"} <= names
    turn = next(r for r in runs if str(r.get("name", "")).startswith("evaluator:General Public"))
    assert {"protocol:jury", "rule:adaptive"} <= set(turn.get("tags") or [])
    assert any(t.startswith("claim:c") for t in turn["tags"])

    def ancestry(run):
        chain = []
        while run is not None:
            chain.append(str(run.get("name")))
            run = by_id.get(run.get("parent_run_id"))
        return chain

    chains = [ancestry(r) for r in runs if r.get("run_type") == "llm"]
    # a model call under an agent turn, under the claim subgraph, under the graph
    turn_chain = next(c for c in chains if any(n.startswith("evaluator:") for n in c))
    assert turn_chain[-1] == "factcheck" and "check_claim" in turn_chain
    assert turn_chain.index("check_claim") > turn_chain.index("debater_turn")


def test_tracing_off_sends_nothing(tmp_path, corpus, recorder):
    run_cli(tmp_path, corpus, LANGSMITH_TRACING="false", LANGSMITH_ENDPOINT=recorder)
    assert Recorder.bodies == []


def test_unreachable_endpoint_neither_fails_nor_delays_the_run(tmp_path, corpus):
    """The time from the result to the process's end, not two runs' times: those differ by more
    than the flush's bound on a busy machine (#65), while no work of the run's is left to slow."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    text = tmp_path / "t.txt"
    text.write_text(TEXT, encoding="utf-8")
    env = {
        **os.environ,
        "FACTCOURT_CACHE_DIR": str(tmp_path / "cache"),
        "LANGSMITH_API_KEY": SECRET,
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_ENDPOINT": f"http://127.0.0.1:{free_port()}",
        "PYTHONUNBUFFERED": "1",  # the result reaches the pipe when it is printed
    }
    argv = [sys.executable, "-m", "factcourt.cli", "check", str(text), "--model", "sim", "--corpus", corpus]
    with (tmp_path / "err.txt").open("w+b") as err:
        run = subprocess.Popen([*argv, "--json"], env=env, stdout=subprocess.PIPE, stderr=err)
        last = time.monotonic()
        while run.stdout.read1(65536):
            last = time.monotonic()
        ended = time.monotonic()  # the pipe closes as the process ends
        assert run.wait(timeout=600) == 0, (err.seek(0), err.read().decode()[-2000:])
    # unbounded, LangSmith's flush held the exit for 12-18 s
    assert ended - last < FLUSH_TIMEOUT_S + 5, ended - last
