"""The real LangGraph server (``langgraph dev``): streamed runs, graph drawing, context schema."""

import asyncio
import json

import pytest
from langgraph_sdk import get_client

from factcourt.cli import main
from tests.faults import one_error
from tests.faults.stub import dead_url
from tests.integration import langgraph_server

pytestmark = pytest.mark.integration
TEXT = "The Eiffel Tower is in Paris. The Moon is Earth's only natural satellite. Mount Everest is in Asia."


CORPUS = [
    {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower is a tower in Paris."},
    {"id": "moon", "title": "Moon", "text": "The Moon is Earth's only natural satellite."},
    {"id": "rhine", "title": "Rhine", "text": "The Rhine flows from the Alps."},
    {"id": "nile", "title": "Nile", "text": "The Nile is a river in Africa."},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Start ``langgraph dev`` on a free port, wait for /ok, stop it by its process group.

    Its corpus and its endpoint are the deployer's (FACTCOURT_SERVER_SETTINGS): a run may not name
    them. Nobody answers on that endpoint: only the simulated model answers.
    """
    cache = tmp_path_factory.mktemp("server-cache")
    corpus = cache / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(d) for d in CORPUS), encoding="utf-8")
    settings = cache / "server-settings.json"
    settings.write_text(json.dumps({"corpus": str(corpus), "base_url": dead_url()}), encoding="utf-8")
    env = {
        "FACTCOURT_CACHE_DIR": str(cache),
        "FACTCOURT_SERVER_SETTINGS": str(settings),
    }
    with langgraph_server(cache, env) as url:
        yield {"url": url}


def test_streamed_factcheck_run_through_the_sdk(server):
    async def run():
        client = get_client(url=server["url"])
        thread = await client.threads.create()
        events, updates = [], []
        async for part in client.runs.stream(
            thread["thread_id"],
            "factcheck",
            input={"response": TEXT},
            context={"model": "sim", "search": "local", "rule": "adaptive"},
            stream_mode=["updates", "custom"],
            stream_subgraphs=True,
        ):
            if part.event.startswith("custom"):
                events.append(part.data)
            elif part.event.startswith("updates"):
                updates.append(part.data)
        state = await client.threads.get_state(thread["thread_id"])
        return events, updates, state["values"]

    events, updates, values = asyncio.run(run())
    kinds = [e["event"] for e in events]
    assert kinds[0] == "claims" and kinds.count("claim_started") == 3 and kinds.count("verdict") == 3
    assert any("decompose" in u for u in updates)
    results = values["results"]
    assert len(results) == 3 and values["scores"]["claims"] == 3
    verdicts = {r["claim"]["text"]: r["verdict"] for r in results}
    assert verdicts["The Eiffel Tower is in Paris."] == "supported", results


def test_graph_shows_rule_branches_and_context_schema_is_described(server):
    async def fetch():
        client = get_client(url=server["url"])
        [assistant] = await client.assistants.search(graph_id="factcheck", metadata={"created_by": "system"})
        graph = await client.assistants.get_graph(assistant["assistant_id"], xray=True)
        schemas = await client.assistants.get_schemas(assistant["assistant_id"])
        return graph, schemas

    graph, schemas = asyncio.run(fetch())
    labels = {e.get("data") for e in graph["edges"] if e.get("conditional")}
    assert {"retrieval_first", "adaptive_unanimous", "converged", "moderate"} <= labels
    node_names = {n["id"].split(":")[-1] for n in graph["nodes"]}
    assert {
        "decompose",
        "retrieve",
        "debater_turn",
        "moderator",
        "judge_vote",
        "score",
        "corrector",
    } <= node_names
    fields = schemas["context_schema"]["properties"]
    assert {"rule", "protocol", "model", "search"} <= set(fields)
    undescribed = [name for name, spec in fields.items() if not spec.get("description")]
    assert not undescribed


def test_assistants_for_each_protocol_and_rule(server):
    from factcourt.serving.server import create_standard_assistants

    created = asyncio.run(create_standard_assistants(server["url"]))
    names = {a["name"] for a in created}
    assert {
        "factcheck-jury-free",
        "factcheck-jury-adaptive",
        "factcheck-adversarial-free",
        "verify-adversarial-adaptive",
        "hallucination-team",
    } <= names
    again = asyncio.run(create_standard_assistants(server["url"]))
    assert {a["assistant_id"] for a in again} == {a["assistant_id"] for a in created}
    adaptive = next(a for a in created if a["name"] == "factcheck-jury-adaptive")
    assert adaptive["context"]["rule"] == "adaptive"


def test_each_graphs_studio_form_lists_only_its_own_settings(server):
    """The schema endpoint Studio draws its form from: each graph's context, none of another's."""
    from dataclasses import fields

    from tests.unit.test_contexts import OWN

    async def forms():
        client = get_client(url=server["url"])
        found = {}
        for graph_id in OWN:
            [assistant] = await client.assistants.search(graph_id=graph_id, metadata={"created_by": "system"})
            found[graph_id] = await client.assistants.get_schemas(assistant["assistant_id"])
        return found

    from factcourt.serving.served import SERVER_ONLY

    shown = {graph_id: set(s["context_schema"]["properties"]) for graph_id, s in asyncio.run(forms()).items()}
    for graph_id, form in shown.items():  # less what only the deployer sets
        assert form == {f.name for f in fields(OWN[graph_id])} - set(SERVER_ONLY), graph_id
    assert "audit_seeds" not in shown["hallucination"] and "epsilon" not in shown["factcheck"]


@pytest.mark.parametrize(
    "context, said",
    [
        # the deployer's endpoint is down: the run ends with nothing checked
        ({"model": "m", "retries": 0}, "the Clerk could not split the text into claims: cannot connect to"),
        # a step raises: the run ends in error
        ({"model": "sim", "search": "tavily"}, "run failed (ConfigError: TAVILY_API_KEY is not set: export"),
    ],
)
def test_report_html_of_a_run_that_failed_on_the_server_says_so_in_one_sentence(
    server, tmp_path, capsys, context, said
):
    """Issue 54, item 9: report-html of a failed run wrote a page "factcourt check: 0 claims", exit 0."""

    async def failed_run() -> str:
        client = get_client(url=server["url"])
        thread = await client.threads.create()
        await client.runs.wait(
            thread["thread_id"], "factcheck", input={"response": TEXT}, context=context, raise_error=False
        )
        return thread["thread_id"]

    thread = asyncio.run(failed_run())
    argv = ["report-html", "--url", server["url"], "--thread", thread, "--out", str(tmp_path / "r.html")]
    assert main(argv) == 1
    assert said in one_error(capsys.readouterr().err)
