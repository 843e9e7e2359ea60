"""Crash checkpoints: clearing them never stalls a live run, and leases do not collide."""

import sqlite3

from factcourt import checkpoints


def saved_thread(thread_id: str) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(checkpoints.checkpoints_path()) as conn:
        SqliteSaver(conn).setup()
        conn.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) "
            "VALUES (?, '', '1', 'json', x'7b7d', x'7b7d')",
            (thread_id,),
        )


def test_clear_keeps_a_live_run_and_does_not_vacuum_under_it(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path))
    saved_thread("crashed")
    saved_thread("live")
    held = checkpoints.lease("live")
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    assert checkpoints.clear() == (1, 1)
    assert not [s for s in statements if s.startswith("VACUUM")]
    held.release()
    assert checkpoints.clear() == (1, 0)
    assert "VACUUM" in statements


def test_leases_of_different_threads_do_not_share_a_file(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path))
    held = [checkpoints.lease(f"thread-{n}") for n in range(300)]  # 3 digits collided here
    assert all(held)
    for lock in held:
        lock.release()


def test_a_crashed_run_is_not_resumed_by_another_model(monkeypatch):
    from factcourt.checkpoints import run_key
    from factcourt.context.claims import ClaimsContext

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    embedded = run_key("factcheck", ["text", ""], ClaimsContext())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # model 'auto' is OpenAI's now
    assert run_key("factcheck", ["text", ""], ClaimsContext()) != embedded


def test_a_runs_key_stays_as_it_was_so_stored_runs_resume(monkeypatch):
    """Pinned: the keys of runs stored before each role's model was resolved once per run (#66).

    A setting added to a context changes every key (its settings are part of it): update these then.
    """
    from factcourt.api.audit import audit_context
    from factcourt.checkpoints import run_key
    from factcourt.context.claims import ClaimsContext

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    sim = ClaimsContext(model="sim", search="none")
    assert run_key("factcheck", ["Paris is in France.", ""], sim) == "fe250751eacb802adb92704c156ba283"
    # the target on an endpoint of its own (model_settings), the auditor simulated
    audit = audit_context(
        "smoke", "qwen-7b", "http://127.0.0.1:8081/v1", {"model": "sim", "search": "none"}, {}
    )
    assert run_key("audit", [["fake_news"]], audit) == "ae1d61997bf75638b41473b1edeac0ed"
    endpoint = ClaimsContext(
        model="gpt-4o",
        base_url="http://127.0.0.1:8000/v1",
        role_models={"moderator": "sim:0.5"},
        search="none",
    )
    assert run_key("factcheck", ["t", ""], endpoint) == "56bd7cbdf1074a93c4b89f7fc0af5487"


def test_a_crashed_run_is_not_resumed_on_replaced_weights(tmp_path):
    import os

    from factcourt.checkpoints import run_key
    from factcourt.context.claims import ClaimsContext

    weights_file = tmp_path / "model.gguf"
    weights_file.write_bytes(b"one")
    ctx = ClaimsContext(local_weights=str(weights_file))
    before = run_key("factcheck", ["text", ""], ctx)
    weights_file.write_bytes(b"other weights")
    os.utime(weights_file, ns=(1, 1))
    assert run_key("factcheck", ["text", ""], ctx) != before


def test_runs_an_older_factcourt_saved_are_cleared_with_one_note(tmp_path, monkeypatch, capsys):
    import asyncio

    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    from factcourt.commands.shared import say_how_it_runs
    from factcourt.context.claims import ClaimsContext

    class State(TypedDict):
        n: int

    def build():
        return StateGraph(State).add_node("step", lambda state: {}).add_edge(START, "step")

    async def open_run():
        async with checkpoints.resumable_run("t", build, ["x"], {"n": 1}, ClaimsContext(model="sim")) as run:
            return run

    monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path))
    saved_thread("crashed-under-factcourt.state")  # a file with no layout recorded: an older factcourt's
    first = asyncio.run(open_run())
    assert first.cleared_unreadable == 1
    say_how_it_runs(first._asdict(), True, "this same text")
    assert "1 interrupted run(s) saved by an older factcourt cannot resume" in capsys.readouterr().err
    assert asyncio.run(open_run()).cleared_unreadable == 0  # the layout is recorded now


def test_concurrent_runs_opening_a_new_checkpoint_file_all_get_it(tmp_path, monkeypatch):
    """SQLite refuses at once, busy timeout or not, a switch to WAL while another connection holds
    the file: batch rows opening a new file together failed with 'database is locked'."""
    import asyncio

    async def open_together(count):
        async def one():
            async with checkpoints._saver(None) as saver:
                await asyncio.sleep(0.01)  # held while the others open
                return saver.is_setup

        return await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)

    for attempt in range(8):
        monkeypatch.setenv("FACTCOURT_CACHE_DIR", str(tmp_path / f"cache{attempt}"))
        outcomes = asyncio.run(open_together(8))
        assert outcomes == [True] * 8, (attempt, outcomes)
