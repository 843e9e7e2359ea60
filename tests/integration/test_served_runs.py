"""Served runs on a real ``langgraph dev`` (issue 65, items 2, 13 and 22).

A stored run's page names the settings it ran with, not the defaults; an assistant whose context
a run would refuse is refused when it is made; a run stuck on a slow model holds up no other
client's run.
"""

import asyncio
import json

import httpx
import pytest
from langgraph_sdk import get_client

from factcourt.cli import main
from tests.integration import langgraph_server

pytestmark = pytest.mark.integration
TEXT = "The Eiffel Tower is in Paris."
CLAIM = {"claim": {"id": "c1", "text": TEXT}}
# the deployer's endpoint: in the server's settings, never in what a client reads of a run
DEPLOYER_URL = "http://deployer-only.invalid/v1"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cache = tmp_path_factory.mktemp("served-runs")
    settings = cache / "settings.json"
    settings.write_text(json.dumps({"base_url": DEPLOYER_URL}), encoding="utf-8")
    env = {
        "FACTCOURT_CACHE_DIR": str(cache),
        "FACTCOURT_SERVER_SETTINGS": str(settings),
    }
    with langgraph_server(cache, env, ready_timeout_s=300) as url:
        yield url


def test_a_stored_run_names_the_settings_it_ran_with(server, tmp_path):
    """Item 13: the page's result, its JSON and report-html said jury, search local, model auto, 1 round."""
    context = {"model": "sim", "protocol": "adversarial", "search": "none", "rounds": 2}

    async def go():
        client = get_client(url=server)
        thread = (await client.threads.create())["thread_id"]
        await client.runs.wait(thread, "factcheck", input={"response": TEXT}, context=context)
        return thread

    thread = asyncio.run(go())
    shown = httpx.get(f"{server}/ui/threads/{thread}/result", timeout=60).json()["settings"]
    assert {k: shown[k] for k in context} == context
    out = tmp_path / "r.html"
    assert main(["report-html", "--url", server, "--thread", thread, "--out", str(out)]) in (0, 1)
    assert "Checked by sim (adversarial, rule free, search none)" in out.read_text(encoding="utf-8")
    stored = httpx.get(f"{server}/threads/{thread}/state", timeout=60).text
    assert DEPLOYER_URL not in stored


@pytest.mark.parametrize(
    "context, said",
    [
        ({"model": "m", "base_url": "http://evil.example"}, "base_url is set by the server's deployer"),
        ({"model_settings": {"m": {"base_url": "http://evil.example"}}}, "set by the server's deployer"),
        ({"protocol": "nope"}, "protocol"),
        ({"rounds_": 2}, "rounds_"),
    ],
)
def test_an_assistant_a_run_would_refuse_is_refused_when_made(server, context, said):
    """Item 22c: it was made, and failed only when run."""
    made = httpx.post(f"{server}/assistants", json={"graph_id": "factcheck", "context": context}, timeout=60)
    assert made.status_code == 400, made.text
    assert said in made.json()["detail"]
    if "deployer" not in said:
        return  # an update names no graph: only what no run may set is checked there
    # nor changed into one later
    fine = httpx.post(f"{server}/assistants", json={"graph_id": "factcheck", "context": {}}, timeout=60)
    assert fine.status_code == 200, fine.text
    changed = httpx.patch(
        f"{server}/assistants/{fine.json()['assistant_id']}", json={"context": context}, timeout=60
    )
    assert changed.status_code == 400, changed.text
    assert said in changed.json()["detail"]


def test_a_run_stuck_on_a_slow_model_holds_up_no_other_clients_run(server):
    """Item 2: a run on ``sim:1e300`` left another client's /runs/wait unanswered.

    No search, so the model is asked: over the offline search the trained reader decides with no call.
    """

    async def go():
        client = get_client(url=server)
        thread = (await client.threads.create())["thread_id"]
        stuck = await client.runs.create(
            thread, "verify", input=CLAIM, context={"model": "sim:1e300", "timeout_s": 3600, "search": "none"}
        )
        try:
            while (await client.runs.get(thread, stuck["run_id"]))["status"] == "pending":
                await asyncio.sleep(0.2)  # until it holds a place to run
            other = await asyncio.wait_for(
                get_client(url=server).runs.wait(
                    None, "verify", input=CLAIM, context={"model": "sim", "search": "none"}
                ),
                timeout=300,
            )
            still = await client.runs.get(thread, stuck["run_id"])
        finally:
            await client.runs.cancel(thread, stuck["run_id"])
        return other, still["status"]

    other, stuck = asyncio.run(go())
    assert other["results"][0]["verdict"], other
    assert stuck in ("pending", "running")
