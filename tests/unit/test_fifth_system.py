"""A fifth system from its own modules (``tests/toy_system``) and one registry entry.

Registered, it is a command with its own flags, a result the API and a served thread give, a
page of the HTML report, ``--batch`` rows with their summary, answers of the simulated model
and types the checkpoints may hold: nothing of the package names it.
"""

import json
import re

import pytest

from factcourt import systems
from factcourt.cli import main
from factcourt.report import render
from tests.toy_system.registry import ECHO
from tests.toy_system.state import EchoResult

SIM = ["--model", "sim", "--no-cache"]


@pytest.fixture
def echo():
    systems.SYSTEMS.append(ECHO)  # in place: every layer holds this one list
    yield ECHO
    systems.SYSTEMS.remove(ECHO)


def test_the_command_runs_the_system_on_the_simulated_model_and_takes_its_own_settings(echo, capsys):
    assert main(["echo", "Hello!!", *SIM, "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["kind"], said["loud"], said["usage"]["calls"]) == ("echo", True, 1)
    assert main(["echo", "Hello!!", "--set", "echo_marks=3", *SIM, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["loud"] is False  # the setting reached the node
    with pytest.raises(SystemExit):
        main(["echo", "--help"])
    shown = capsys.readouterr().out
    assert "--model" in shown and "--protocol" not in shown and "--layout" not in shown
    # its agent's role is its own: declared in its context, named in its help, given a model
    assert "roles: shouter" in " ".join(shown.split())
    assert main(["echo", "Hey!", *SIM, "--role-model", "shouter=sim", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["loud"] is True


def test_the_api_returns_its_result_and_a_served_thread_of_it_reads_back(echo, monkeypatch):
    import asyncio

    import langgraph_sdk

    from factcourt.api import stored_result
    from tests.toy_system.api import aecho

    # the registry lists its API function and context, found through its entry alone
    assert {"aecho", "EchoContext"} <= set(systems.exported())
    result = asyncio.run(aecho("quiet words.", model="sim", cache=False))
    assert isinstance(result, EchoResult) and (result.kind, result.loud, result.failure()) == (
        "echo",
        False,
        None,
    )

    class Thread:  # a LangGraph server's client holding a finished run of graph "echo"
        threads = None

        async def get_state(self, thread):
            return {"values": {"text": "Hi!", "loud": True}, "next": []}

        async def get(self, thread):
            return {"status": "idle", "metadata": {"graph_id": "echo"}}

    Thread.threads = Thread()
    monkeypatch.setattr(langgraph_sdk, "get_client", lambda url: Thread())
    served = asyncio.run(stored_result("http://127.0.0.1:2024", "t1"))
    assert isinstance(served, EchoResult) and served.loud is True


def test_the_report_shows_its_page_from_the_result_or_its_json(echo):
    result = EchoResult(text="Hi <b>!</b>", loud=True)
    page = render(result)
    assert "Hi &lt;b&gt;!&lt;/b&gt; is <strong>loud</strong>" in page
    assert render(result.model_dump(mode="json")) == page  # its JSON names its kind


def test_batch_rows_run_and_count_its_verdicts(echo, tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "text": "Stop!"}\n{"id": 2, "text": "calm."}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["echo", "--batch", str(rows), "--out", str(out), "--json", *SIM]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["finished"] == 2 and summary["verdicts"] == {"loud": 1, "quiet": 1}
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["kind"], r["loud"]) for r in written] == [("1", "echo", True), ("2", "echo", False)]


def test_checkpoints_may_hold_its_types(echo):
    from factcourt import checkpoints

    assert ("tests.toy_system.state", "EchoResult") in systems.checkpointed_types()
    assert ("tests.toy_system.state", "EchoResult") in checkpoints.allowed_types()


def test_the_server_serves_it_from_a_line_of_its_own_module(echo):
    from factcourt.serving.served import ServedGraph
    from tests.toy_system.served import echo as factory  # langgraph.json: "./tests/toy_system/served.py:echo"

    assert isinstance(factory(None), ServedGraph) and factory(None).name == "echo"


def test_the_development_guide_lists_the_files_it_took():
    from pathlib import Path

    root = Path(__file__).parents[2]
    guide = (root / "docs" / "development.md").read_text(encoding="utf-8")
    section = guide[guide.index("A fifth system is") : guide.index("A system of the package adds")]
    items = re.findall(r"^- `(\w+\.py)`(?: and `(\w+\.py)`)?", section, re.M)
    listed = {name for item in items for name in item if name}
    toy = {path.name for path in (root / "tests" / "toy_system").glob("*.py")} - {"__init__.py"}
    assert listed == toy
    assert "one `System` entry" in section and "one line in\n`langgraph.json`" in section
