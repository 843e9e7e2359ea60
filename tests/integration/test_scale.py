"""Batches at scale on real parts: a PostgreSQL store that processes share, a Ray cluster of two workers.

The models are the simulated one (by rule, any latency), which every process and Ray worker
resolves by name, or a scripted one in a forked child.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from factcourt.cli import main
from factcourt.providers import cache
from tests.faults import interrupted, one_error
from tests.unit.test_batch import kill_and_resume, results, write_rows

pytestmark = pytest.mark.integration


def rows_file(path: Path, count: int, name: str = "Item") -> Path:
    return write_rows(path, [{"id": f"r{i}", "text": f"{name}{i} is fine."} for i in range(count)])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def batch(rows: Path, out: Path, *more: str) -> list[str]:
    return ["check", "--batch", str(rows), "--out", str(out), "--search", "none", "--json", *more]


def stored_results(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute("SELECT COUNT(*) FROM factcourt_kv_batch_results").fetchone()[0]


@pytest.fixture
def shared_store(postgres, monkeypatch):
    """FACTCOURT_STORE names the session's PostgreSQL, emptied for the test."""
    monkeypatch.setenv("FACTCOURT_STORE", postgres)
    cache.clear()
    yield postgres
    for key in [k for k in cache._stores if k.startswith(postgres)]:
        cache._stores.pop(key)  # its connection closes with it: a forked child never shares it


@pytest.fixture(scope="module")
def ray_cluster():
    """A Ray cluster on this machine with two workers (two CPUs, no dashboard); its address."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths have a limit
    ray = Path(sys.executable).parent / "ray"
    command = [ray, "start", "--head", "--block", "--port", str(port), "--num-cpus", "2"]
    # no --node-ip-address 127.0.0.1: a driver asked for 127.0.0.1 joins this machine's own address
    # (Ray's rule), which a head bound to the loopback does not answer on
    command += ["--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", folder]
    log = Path(folder) / "head.log"
    # on a busy 2-core machine the head's agents take minutes to start: Ray's default waits fail it
    patient = {**os.environ, "RAY_agent_register_timeout_ms": "600000", "RAY_raylet_start_wait_time_s": "600"}
    with open(log, "wb") as said:
        head = subprocess.Popen(command, start_new_session=True, env=patient, stdout=said, stderr=said)
    try:
        deadline = time.monotonic() + 300
        while b"Ray runtime started" not in log.read_bytes():  # the head and its node are up
            assert head.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # the head and everything it started, nothing else
        try:
            head.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        subprocess.run(["rm", "-rf", folder], check=False)


# ------------------------------------------------------------------ PostgreSQL


def test_an_unreachable_store_exits_2_in_one_sentence_before_any_call(
    tmp_path, capsys, scripted, monkeypatch
):
    pytest.importorskip("psycopg", reason="pip install '.[postgres]'")
    monkeypatch.setenv("FACTCOURT_STORE", "")  # --store sets it for the process: put back after
    rows = rows_file(tmp_path / "b.jsonl", 2)
    url = f"postgresql://me:secret@127.0.0.1:{free_port()}/db"
    assert main(batch(rows, tmp_path / "r.jsonl", "--model", "scripted", "--store", url)) == 2
    said = capsys.readouterr().err
    assert "cannot reach the store postgresql://me:[redacted]@127.0.0.1" in said and "secret" not in said
    assert scripted.calls == []


def test_two_batch_processes_on_one_postgres_store_share_it_and_write_no_result_twice(
    tmp_path, capsys, shared_store
):
    rows = rows_file(tmp_path / "b.jsonl", 40)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    model = ["--model", "sim:0.02"]
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "factcourt.cli", *batch(rows, tmp_path / f"out-{n}.jsonl", *model)],
            env={**env, "FACTCOURT_CACHE_DIR": str(tmp_path / f"cache-{n}")},  # two machines' own caches
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in ("a", "b")
    ]
    summaries = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, (out + err).decode()[-3000:]
        summaries.append(json.loads(out))
    # each result was made and stored once: the other process took it from the store
    assert sum(s["this_run"]["checked"] for s in summaries) == 40 == stored_results(shared_store)
    a, b = ({r["id"]: r for r in results(tmp_path / f"out-{n}.jsonl")} for n in ("a", "b"))
    assert len(a) == len(b) == 40 and a == b

    # a third machine makes no model call: the results, and the answers under them, are shared
    os.environ["FACTCOURT_CACHE_DIR"] = str(tmp_path / "cache-c")  # the autouse fixture puts it back
    assert main(batch(rows, tmp_path / "out-c.jsonl", *model)) == 0
    third = json.loads(capsys.readouterr().out)["this_run"]
    assert third["from_store"] == 40 and third["calls"] == 0
    text = tmp_path / "t.txt"
    text.write_text("Item7 is fine.", encoding="utf-8")
    assert main(["check", str(text), *model, "--search", "none", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["usage"]["calls"] == 0


def test_a_batch_on_postgres_killed_with_sigkill_resumes_from_its_checkpoints(
    tmp_path, capsys, scripted, shared_store
):
    kill_and_resume(tmp_path, capsys, scripted)


# ------------------------------------------------------------------ Ray


def ray_args(command: str, tmp_path: Path, dataset: Path, model: str) -> list[str]:
    """A small run of ``command`` on ``model``, to which --out is still to be added."""
    asked = ["Tell me about the Eiffel Tower.", "Tell me about Paris."]
    prompts = write_rows(tmp_path / "p.jsonl", [{"id": f"p{i}", "prompt": p} for i, p in enumerate(asked)])
    return {
        "check": ["check", "--batch", str(rows_file(tmp_path / "b.jsonl", 2)), "--search", "none", "--json"],
        "bench": ["bench", "run", "--dataset", str(dataset), "--methods", "single", "--evidence", "given"],
        "leaderboard": ["leaderboard", "--prompts", str(prompts), "--targets", model, "--experts", model]
        + ["--search", "none", "--no-cache"],
        "audit": ["audit", "--target-model", model, "--objects", "social_rumor", "--scale", "smoke"]
        + ["--search", "none", "--no-cache", "--quiet"],
    }[command] + ["--model", model]


@pytest.mark.parametrize("command", ["check", "bench", "leaderboard", "audit"])
def test_an_unreachable_ray_address_exits_2_in_one_sentence_before_any_call(
    tmp_path, capsys, scripted, fourway_dataset, command
):
    pytest.importorskip("ray", reason="pip install '.[ray]'")
    address = f"127.0.0.1:{free_port()}"
    argv = ray_args(command, tmp_path, fourway_dataset, "scripted")
    assert main([*argv, "--out", str(tmp_path / "out"), "--ray", address]) == 2
    said = capsys.readouterr().err
    assert f"cannot reach the Ray cluster at {address}" in said
    assert scripted.calls == []


def test_200_rows_over_two_ray_workers_and_postgres_give_200_results_and_no_duplicate(
    tmp_path, capsys, ray_cluster, shared_store
):
    rows = rows_file(tmp_path / "b.jsonl", 200)
    out = tmp_path / "r.jsonl"
    assert main(batch(rows, out, "--model", "sim", "--ray", ray_cluster, "--concurrency", "16")) == 0
    summary = json.loads(capsys.readouterr().out)
    ids = [r["id"] for r in results(out)]
    assert len(ids) == len(set(ids)) == 200 == summary["finished"] == stored_results(shared_store)
    assert summary["this_run"]["checked"] == 200 and summary["failed"] == []


def running_tasks() -> list[int]:
    """The processes of Ray workers running a chunk of rows now."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(b"ray::run_chunk"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_ray_worker_killed_mid_run_loses_no_row_and_counts_none_twice(tmp_path, capsys, ray_cluster):
    rows = rows_file(tmp_path / "b.jsonl", 60)
    out = tmp_path / "r.jsonl"
    codes = []
    args = batch(rows, out, "--model", "sim:0.05", "--ray", ray_cluster, "--concurrency", "4")
    driver = threading.Thread(target=lambda: codes.append(main(args)))
    driver.start()
    killed = None
    deadline = time.monotonic() + 240
    while killed is None and driver.is_alive() and time.monotonic() < deadline:
        if out.exists() and len(out.read_text().splitlines()) >= 8 and (workers := running_tasks()):
            os.kill(workers[0], signal.SIGKILL)
            killed = workers[0]
        time.sleep(0.05)
    driver.join(300)
    assert killed is not None, "no worker was running a chunk to kill"
    assert codes == [0]
    summary = json.loads(capsys.readouterr().out)
    ids = [r["id"] for r in results(out)]
    assert len(ids) == len(set(ids)) == 60 == summary["finished"] == summary["this_run"]["rows"]


def kill_a_worker() -> None:
    """Kill (SIGKILL) a Ray worker running a chunk, the first one seen."""
    deadline = time.monotonic() + 600  # a bound, not a timing: a busy machine starts workers slowly
    while not (workers := running_tasks()):
        assert time.monotonic() < deadline, "no worker was running a chunk to kill"
        time.sleep(0.02)
    os.kill(workers[0], signal.SIGKILL)


def test_a_ray_worker_killed_mid_bench_run_loses_no_prediction_and_writes_none_twice(
    tmp_path, capsys, ray_cluster
):
    cases = [
        {
            "id": f"c{i}",
            "claim": f"Thing{i} is fine.",
            "label": i % 2 == 0,
            "evidence": [f"Thing{i} is fine."],
        }
        for i in range(24)
    ]
    dataset = write_rows(tmp_path / "claims.jsonl", cases)
    predictions = tmp_path / "run" / "predictions.jsonl"
    args = ["bench", "run", "--dataset", str(dataset), "--methods", "single", "--evidence", "given"]
    args += [
        "--model",
        "sim:0.05",
        "--concurrency",
        "4",
        "--out",
        str(predictions.parent),
        "--ray",
        ray_cluster,
    ]
    assert interrupted(args, predictions, 6, kill_a_worker) == 0, capsys.readouterr().err[-2000:]
    made = predictions.read_text(encoding="utf-8")
    keys = [(r["method"], r["id"]) for r in results(predictions)]  # every line parses
    assert len(keys) == len(set(keys)) == 2 * len(cases)  # the method and the floor
    assert all(r["verdict"] for r in results(predictions))
    assert main(args) == 0  # nothing left to make, nothing appended
    assert predictions.read_text(encoding="utf-8") == made


def test_a_store_gone_mid_batch_over_ray_stops_it_in_one_sentence(
    tmp_path, capsys, ray_cluster, stoppable_store
):
    rows = rows_file(tmp_path / "b.jsonl", 40)
    out = tmp_path / "r.jsonl"
    args = batch(rows, out, "--model", "sim:0.05", "--ray", ray_cluster, "--concurrency", "4")
    args += ["--store", stoppable_store.url]
    assert interrupted(args, out, 4, lambda: stoppable_store.stop(immediate=True)) == 1
    said = one_error(capsys.readouterr().err)
    assert "the store went away during the batch (cannot reach the store" in said
    ids = [r["id"] for r in results(out)]
    assert len(ids) == len(set(ids)) and f"{len(ids)} of 40 rows are finished" in said


TIMING = re.compile(r"seconds|(^|_)ms$|_s$")  # what no two runs share: wall times, ms, tokens a second


def untimed(value: Any) -> Any:
    """A report without its timings."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not TIMING.search(k)}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


class TestOverRay:
    """bench run, leaderboard and audit over the two workers, in one Ray job: the workers start once.

    Most of a Ray run's time on this machine is a new job's workers importing factcourt.
    """

    @pytest.fixture(scope="class")
    @classmethod
    def joined(cls, ray_cluster, tmp_path_factory):
        """This process joined to the cluster (the commands keep the connection), then left."""
        import ray

        own = {"FACTCOURT_CACHE_DIR": str(tmp_path_factory.mktemp("workers"))}  # the workers' store
        ray.init(
            address=ray_cluster, runtime_env={"env_vars": own}, log_to_driver=False, logging_level="ERROR"
        )
        yield ray_cluster
        ray.shutdown()

    @pytest.mark.parametrize(
        ("command", "more", "report"),
        [
            ("bench", [], "report.json"),  # 4 units: 2 cases, the method and the floor
            ("leaderboard", [], "report.json"),  # 2 prompts: 2 answers, 2 pyramids, 2 checks, 2 scores
            ("audit", ["--runs", "2", "--set", "audit_initial_scenarios=1"], "runs.json"),  # 2 runs
        ],
    )
    def test_a_run_over_two_ray_workers_reports_what_one_process_reports(
        self, tmp_path, joined, fourway_dataset, command, more, report
    ):
        argv = [*ray_args(command, tmp_path, fourway_dataset, "sim"), *more]
        local, spread = tmp_path / "local", tmp_path / "ray"
        # exit 0: nothing failed in either run (1 would say a unit failed)
        assert main([*argv, "--out", str(local)]) == 0
        assert main([*argv, "--out", str(spread), "--ray", joined]) == 0
        made = [json.loads((out / report).read_text(encoding="utf-8")) for out in (local, spread)]
        assert untimed(made[0]) == untimed(made[1])
