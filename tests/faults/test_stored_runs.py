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

    def __init__(self, state, graph_id="factcheck"):
        self.state = state
        self.graph_id = graph_id
        self.threads = self

    async def get_state(self, thread):
        return self.state

    async def get(self, thread):
        return {"thread_id": thread, "metadata": {"graph_id": self.graph_id}}


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
