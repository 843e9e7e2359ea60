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
    """A LangGraph server's client that holds one thread's state."""

    def __init__(self, state):
        self.state = state
        self.threads = self

    async def get_state(self, thread):
        return self.state


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
