"""``report-html`` writes a page of finished runs only: a failed or unfinished one is one sentence, exit 1.

Issue 54, item 9: a thread whose run ended in error gave a page "factcourt check: 0 claims", exit 0.
"""

import pytest

from factcourt.cli import main
from tests.faults import one_error

# the state a LangGraph server keeps of a check whose first step failed: its input, and the step
# still to run, with the error the server stores for it ({"error": name, "message": ...})
FAILED = {
    "values": {"response": "The Eiffel Tower is in Paris.", "question": ""},
    "next": ["clerk"],
    "tasks": [
        {
            "id": "t",
            "name": "clerk",
            "error": {"error": "ConfigError", "message": "An internal error occurred"},
        }
    ],
}
RUNNING = FAILED | {"tasks": [{"id": "t", "name": "clerk", "error": None, "interrupts": []}]}


class Thread:
    """A LangGraph server's client that holds one thread's state, run by graph ``graph_id``."""

    def __init__(self, state, graph_id="factcheck", status="idle"):
        self.state = state
        self.graph_id = graph_id
        self.status = status
        self.threads = self

    async def get_state(self, thread):
        return self.state

    async def get(self, thread):
        return {"thread_id": thread, "status": self.status, "metadata": {"graph_id": self.graph_id}}


@pytest.mark.parametrize(
    "state, said",
    [
        (FAILED, "failed (ConfigError: An internal error occurred)"),
        (FAILED | {"tasks": [{"id": "t", "name": "clerk", "error": "ValueError('no claims')"}]}, "failed"),
        (RUNNING, "has not finished"),
    ],
)
def test_report_html_of_a_failed_or_unfinished_run_is_one_sentence_and_exit_1(
    state, said, tmp_path, monkeypatch, capsys
):
    import langgraph_sdk

    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread(state))
    out = tmp_path / "r.html"
    assert main(["report-html", "--thread", "t1", "--out", str(out)]) == 1
    err = one_error(capsys.readouterr().err)
    assert "thread t1" in err and said in err and "0 claims" not in err
    assert not out.exists()


# a finished run: the thread's values are the graph's output
VERIFIED = {
    "values": {"results": [{"claim": {"id": "c1", "text": "Paris is in France."}, "verdict": "refuted"}]},
    "next": [],
    "tasks": [],
}


def test_report_html_of_a_graph_without_a_page_is_one_sentence_and_exit_1(tmp_path, monkeypatch, capsys):
    import langgraph_sdk

    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread(VERIFIED, "pyramid"))
    out = tmp_path / "r.html"
    assert main(["report-html", "--thread", "t1", "--out", str(out)]) == 1
    assert "holds no finished run of a graph whose result a page shows" in one_error(capsys.readouterr().err)
    assert not out.exists()


def test_a_run_refused_before_its_first_step_or_stopped_is_said_so_not_drawn(tmp_path, monkeypatch, capsys):
    """Issue 65, item 14: a refused run's thread (status error, no step, no values) gave a page of
    0 claims, exit 0; a stopped one said "run failed (CancelledError())"."""
    import langgraph_sdk

    out = tmp_path / "r.html"
    refused = {"values": {}, "next": [], "tasks": []}
    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread(refused, None, "error"))
    assert main(["report-html", "--thread", "t1", "--out", str(out)]) == 1
    assert "thread t1's run failed before its first step" in one_error(capsys.readouterr().err)
    stopped = FAILED | {"tasks": [{"id": "t", "name": "clerk", "error": "CancelledError()"}]}
    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread(stopped, status="interrupted"))
    assert main(["report-html", "--thread", "t1", "--out", str(out)]) == 1
    assert one_error(capsys.readouterr().err).startswith("error: Stopped on the server")
    assert not out.exists()


def test_the_pages_result_route_refuses_a_refused_run(monkeypatch):
    import langgraph_sdk
    from starlette.testclient import TestClient

    from factcourt.serving.page import app

    refused = {"values": {}, "next": [], "tasks": []}
    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread(refused, None, "error"))
    answer = TestClient(app, base_url="http://127.0.0.1").get("/ui/threads/t1/result")
    assert answer.status_code == 409 and "failed before its first step" in answer.json()["detail"]


class NotLangGraph:
    """A JSON service that is no LangGraph server: every answer a JSON object of its own."""

    def __init__(self):
        self.threads = self.assistants = self

    async def get_state(self, thread):
        return {"detail": "hello"}

    async def get(self, thread):
        return {"detail": "hello"}

    async def search(self, **kwargs):
        return {"detail": "hello"}


def test_a_json_server_that_is_not_langgraph_is_named_so(tmp_path, monkeypatch, capsys):
    """Issue 65, item 20: "TypeError: string indices must be integers"; "holds no finished run"."""
    import langgraph_sdk

    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url, **kw: NotLangGraph())
    url = "http://127.0.0.1:9"
    assert main(["assistants", "--url", url]) == 1
    assert "is it a LangGraph server?" in one_error(capsys.readouterr().err)
    assert main(["report-html", "--url", url, "--thread", "t1", "--out", str(tmp_path / "r.html")]) == 1
    assert "is it a LangGraph server?" in one_error(capsys.readouterr().err)
