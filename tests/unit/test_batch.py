"""``check --batch`` and ``detect --batch``: rows read line by line, results one line each, resumable."""

import json
import multiprocessing
import os
import signal
import time

import pytest

from factcourt.batch import read_batch, replica
from factcourt.cli import main
from factcourt.errors import InputError
from tests.faults.stub import Stub

TEXTS = {f"r{i}": f"Item{i} is number {i}." for i in range(1, 7)}


def write_rows(path, rows, tail="\n"):
    path.write_text("\n".join(json.dumps(r) for r in rows) + tail, encoding="utf-8")
    return path


def results(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def batch_args(rows, out, *more):
    return ["check", "--batch", str(rows), "--out", str(out), "--search", "none", "--json", *more]


# ------------------------------------------------------------------ reading rows


def test_rows_are_read_with_their_line_numbers_and_ids_as_text(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": 1, "text": "A is B.", "question": "What is A?"}\r\n\n{"id": "x", "text": "C."}'
    )
    batch = read_batch(path, "check")
    assert [(r.line, r.id, r.values) for r in batch.rows] == [
        (1, "1", {"text": "A is B.", "question": "What is A?"}),
        (3, "x", {"text": "C."}),
    ]
    assert batch.rejected == []


def test_each_bad_line_is_rejected_with_its_line_number_and_the_rest_is_read(tmp_path):
    path = tmp_path / "b.jsonl"
    lines = [
        b'{"id": "a", "text": "Fine."}',
        b'{"id": "b"}',  # no text
        b'{"id": "c", "text": "   "}',  # blank text
        b'{"id": "d", "text": 7}',  # not text
        b'{"text": "no id"}',
        b'{"id": "a", "text": "Again."}',  # duplicate id
        '{"id": "e", "text": "caf\u00e9"}'.encode("latin-1"),  # not UTF-8
        b"[1, 2]",
        b'{"id": "f", "text": broken}',
        b'{"id": "g", "text": "Also fine."}',
        b'{"id": "h", "text": "torn',  # a writer killed mid-line
    ]
    path.write_bytes(b"\n".join(lines))
    batch = read_batch(path, "check")
    assert [r.id for r in batch.rows] == ["a", "g"]
    said = {r.line: r.reason for r in batch.rejected}
    assert said[2] == "no 'text'" and said[3] == "no 'text'" and said[4] == "a non-text 'text'"
    assert said[5].startswith("no id")
    assert said[6] == "duplicate id 'a' (first on line 1)"
    assert said[7] == "not UTF-8 text"
    assert said[8].startswith("not a JSON object")
    assert said[9].startswith("not valid JSON")
    assert said[11].startswith("torn last line")
    assert [r.id for r in batch.rejected if r.line in (2, 6)] == ["b", "a"]


def test_detect_rows_need_a_question_and_an_answer(tmp_path):
    path = write_rows(
        tmp_path / "q.jsonl",
        [{"id": 1, "question": "Q?", "answer": "A."}, {"id": 2, "question": "Q?"}, {"id": 3, "answer": "A."}],
    )
    batch = read_batch(path, "detect")
    assert [r.id for r in batch.rows] == ["1"]
    assert [(r.line, r.reason) for r in batch.rejected] == [(2, "no 'answer'"), (3, "no 'question'")]


@pytest.mark.parametrize(
    "content, said",
    [
        (None, "no such batch file"),
        (b"", "holds no rows"),
        (b"\n \n", "holds no rows"),
        (b"id,text\n1,hello\n", "holds no row that can be read; line 1: not valid JSON"),
        ('{"id": 1, "text": "A."}\n'.encode("utf-16-le"), "NUL bytes"),
    ],
)
def test_a_file_unreadable_as_a_whole_is_bad_input(tmp_path, content, said):
    path = tmp_path / "b.jsonl"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=said):
        read_batch(path, "check")


def test_a_replica_is_fixed_by_the_row_id_and_every_replica_gets_rows():
    urls = ["http://a/v1", "http://b/v1", "http://c/v1"]
    chosen = [replica(f"r{i}", urls) for i in range(60)]
    assert chosen == [replica(f"r{i}", urls) for i in range(60)]
    assert set(chosen) == set(urls)
    assert replica("r1", []) is None


# ------------------------------------------------------------------ the command


def test_a_batch_writes_one_line_per_row_and_a_summary(tmp_path, capsys):
    rows = write_rows(tmp_path / "b.jsonl", [{"id": i, "text": t} for i, t in TEXTS.items()])
    out = tmp_path / "out" / "results.jsonl"
    assert main(batch_args(rows, out, "--model", "sim", "--concurrency", "3")) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = results(out)
    assert sorted(r["id"] for r in lines) == sorted(TEXTS)
    assert all(r["response"] == TEXTS[r["id"]] and r["claims"] for r in lines)
    assert summary["rows"] == summary["finished"] == 6 and summary["failed"] == summary["rejected"] == []
    assert summary["claims"] == 6 and sum(summary["verdicts"].values()) == 6
    run = summary["this_run"]
    assert run["rows"] == run["checked"] == 6 and run["calls"] == summary["usage"]["calls"] > 0
    assert summary["cost_usd"] > 0 and run["rows_per_s"] > 0

    # the same batch again: every row is in --out already, nothing runs
    assert main(batch_args(rows, out, "--model", "sim")) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["this_run"]["rows"] == 0 and again["finished"] == 6 and len(results(out)) == 6


def test_rejected_and_failed_rows_are_listed_the_rest_is_checked_and_the_exit_code_says_so(
    tmp_path, capsys, scripted
):
    def label(prompt):
        if "Item2" in prompt and scripted.count("Label") < 100:
            raise TimeoutError("the model did not answer")
        return {"verdict": "supported"}

    scripted.script["Label"] = [label]
    rows = tmp_path / "b.jsonl"
    rows.write_text(
        "\n".join([json.dumps({"id": i, "text": t}) for i, t in list(TEXTS.items())[:3]] + ['{"id": "r9"}']),
        encoding="utf-8",
    )
    out = tmp_path / "r.jsonl"
    assert main(batch_args(rows, out, "--model", "scripted", "--set", "retries=0")) == 1
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert [(f["id"], f["line"]) for f in summary["failed"]] == [("r2", 2)]
    assert "TimeoutError" in summary["failed"][0]["reason"]
    assert summary["rejected"] == [{"line": 4, "id": "r9", "reason": "no 'text'"}]
    assert sorted(r["id"] for r in results(out)) == ["r1", "r3"]  # a failed row is written nowhere
    assert (
        "1 row(s) failed (run the same command again to retry them) and 1 line(s) were rejected"
        in " ".join(captured.err.split())
    )

    scripted.script["Label"] = [{"verdict": "supported"}]  # the model is back: the rerun retries r2 only
    scripted.calls.clear()
    assert main(batch_args(rows, out, "--model", "scripted")) == 1  # line 4 is still no row
    assert sorted(r["id"] for r in results(out)) == ["r1", "r2", "r3"]
    assert all("Item2" in prompt for _, prompt in scripted.calls)


def test_a_readable_summary_lists_each_failed_and_rejected_row(tmp_path, capsys):
    rows = tmp_path / "b.jsonl"
    rows.write_text('{"id": "a", "text": "Alpha is one."}\n{"id": "b", "text": ""}\n', encoding="utf-8")
    out = tmp_path / "r.jsonl"
    args = ["check", "--batch", str(rows), "--out", str(out), "--model", "sim", "--search", "none"]
    assert main(args) == 1
    shown = " ".join(capsys.readouterr().out.split())
    assert "2 rows: 1 finished, 0 failed, 1 rejected" in shown
    assert "rejected line 2 (b): no 'text'" in shown and "model calls" in shown


def test_bad_input_as_a_whole_exits_2_before_any_call(tmp_path, capsys, scripted):
    rows = tmp_path / "b.jsonl"
    rows.write_text("id,text\n1,Alpha\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    assert main(batch_args(rows, out, "--model", "scripted")) == 2
    assert "holds no row that can be read; line 1" in capsys.readouterr().err
    assert main(batch_args(tmp_path / "missing.jsonl", out, "--model", "scripted")) == 2
    assert main(["check", "--batch", str(rows), "--model", "scripted"]) == 2  # no --out
    assert "--batch needs --out" in capsys.readouterr().err
    assert scripted.calls == []


def test_out_holding_a_row_made_from_other_settings_is_refused(tmp_path, capsys):
    rows = write_rows(tmp_path / "b.jsonl", [{"id": "a", "text": "Alpha is one."}])
    out = tmp_path / "r.jsonl"
    assert main(batch_args(rows, out, "--model", "sim")) == 0
    assert main(batch_args(rows, out, "--model", "sim", "--set", "temperature=0.5")) == 2
    assert "made from another text or with other settings" in capsys.readouterr().err


def test_detect_batch(tmp_path, capsys):
    rows = write_rows(
        tmp_path / "q.jsonl",
        [
            {"id": "q1", "question": "Where is Paris?", "answer": "Paris is in France."},
            {"id": "q2", "question": "Where is Rome?", "answer": "Rome is in Italy."},
        ],
    )
    out = tmp_path / "r.jsonl"
    args = ["detect", "--batch", str(rows), "--out", str(out), "--model", "sim", "--search", "none", "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["finished"] == 2 and summary["claims"] is None
    assert sum(summary["verdicts"].values()) == 2
    assert {r["id"]: r["answer"] for r in results(out)} == {
        "q1": "Paris is in France.",
        "q2": "Rome is in Italy.",
    }
    assert main(["detect", "--model", "sim", "--question", "Q?"]) == 2  # no --answer, no --batch


def test_several_base_urls_are_replicas_used_in_turn(tmp_path, capsys):
    first, second = Stub(), Stub()
    try:
        rows = write_rows(tmp_path / "b.jsonl", [{"id": i, "text": t} for i, t in TEXTS.items()])
        out = tmp_path / "r.jsonl"
        urls = ["--base-url", first.url, "--base-url", second.url]
        code = main(batch_args(rows, out, "--model", "m", *urls))
        assert code == 0, capsys.readouterr()
        assert first.requests > 0 and second.requests > 0
        assert json.loads(capsys.readouterr().out)["finished"] == 6
    finally:
        first.close()
        second.close()
    assert main(["verify", "--claim", "A is B.", "--model", "m", *urls]) == 2
    assert "replicas for a --batch run" in capsys.readouterr().err


def test_a_batch_killed_with_sigkill_resumes_and_asks_nothing_it_finished(tmp_path, capsys, scripted):
    kill_and_resume(tmp_path, capsys, scripted)


def kill_and_resume(tmp_path, capsys, scripted):
    """A batch in a forked child dies under kill -9 after three rows; the rerun finishes the rest only."""
    texts = {f"k{i}": f"Thing{i} is fine. Other{i} is fine too." for i in range(8)}
    rows = write_rows(tmp_path / "b.jsonl", [{"id": i, "text": t} for i, t in texts.items()])
    out = tmp_path / "r.jsonl"
    parent = os.getpid()

    def label(prompt):
        # the child dies as under kill -9 (no handler runs) once three rows are written
        if os.getpid() != parent and out.exists() and len(out.read_text().splitlines()) >= 3:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.01)
        return {"verdict": "supported"}

    scripted.script["Label"] = [label]
    args = batch_args(rows, out, "--model", "scripted", "--concurrency", "2")
    child = multiprocessing.get_context("fork").Process(target=main, args=(args,))
    child.start()
    child.join(90)
    assert child.exitcode == -signal.SIGKILL
    before = {r["id"] for r in results(out)}
    assert 3 <= len(before) < len(texts)
    scripted.calls.clear()
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    ids = [r["id"] for r in results(out)]
    assert sorted(ids) == sorted(texts), "a row was lost or written twice"
    assert summary["this_run"]["rows"] == len(texts) - len(before)
    asked = " ".join(prompt for _, prompt in scripted.calls)
    assert not [i for i in before if texts[i].split()[0] in asked], "a finished row was asked again"


def test_a_ray_task_run_again_takes_the_units_it_had_finished_from_the_store():
    from factcourt.fanout import MADE, run_chunk
    from factcourt.providers.cache import store

    made = []

    async def work(unit: str) -> dict:
        made.append(unit)
        return {"unit": unit}

    store(MADE).put_new("run:0", {"unit": "a", "by": "the try whose worker died"})
    outcomes = run_chunk(work, ["a", "b"], ["run:0", "run:1"], 2)
    assert outcomes == [{"unit": "a", "by": "the try whose worker died"}, {"unit": "b"}] and made == ["b"]
    assert store(MADE).get("run:0") is None and store(MADE).get("run:1") is None  # returned: not kept


def test_a_ray_task_that_meets_the_store_gone_raises_store_error_not_a_failure_of_its_rows(monkeypatch):
    """CI defect: the chunk's own reads of the store failed with the driver's error, so its rows
    were 'failed' one by one (36 of 40) instead of the batch stopping in one sentence."""
    import sqlite3

    from factcourt import fanout
    from factcourt.errors import StoreError
    from factcourt.providers import cache

    class Gone:
        def get(self, key):
            raise sqlite3.OperationalError("server closed the connection unexpectedly")

    async def work(unit: str) -> dict:
        return {"unit": unit}

    monkeypatch.setattr(fanout, "store", lambda table: Gone())
    monkeypatch.setattr(cache, "lost_store", lambda: "cannot reach the store at db:5432")
    with pytest.raises(StoreError, match="cannot reach the store at db:5432"):
        fanout.run_chunk(work, ["a"], ["run:0"], 1)
    monkeypatch.setattr(cache, "lost_store", lambda: None)  # the store answers: the task's own failure
    with pytest.raises(sqlite3.OperationalError):
        fanout.run_chunk(work, ["a"], ["run:0"], 1)
