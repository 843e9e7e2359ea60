"""A hostile client of a real ``langgraph dev`` (issue 54, items 1, 2 and 8): the key and the files stay.

The server holds OPENAI_API_KEY, as the guide tells deployers; a stub chat endpoint on 127.0.0.1
stands for a host the client controls and records every Authorization header it gets; a folder
of .txt files stands for the server's own files.
"""

import asyncio
import json

import pytest
from langgraph_sdk import get_client

from factcourt.providers.local_server import free_port
from factcourt.server import running_langgraph_dev
from tests.faults.stub import Stub

pytestmark = pytest.mark.integration
KEY = "sk-test-SERVERKEY-0123456789abcdef"
SECRET = "The database password is hunter2-on-the-server."
TEXT = "The database password is secret."


@pytest.fixture(scope="module")
def attacker():
    stub = Stub()
    yield stub
    stub.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cache = tmp_path_factory.mktemp("served-cache")
    folder = tmp_path_factory.mktemp("server-files")
    (folder / "password.txt").write_text(SECRET, encoding="utf-8")
    env = {"LANGSMITH_TRACING": "false", "FACTCOURT_CACHE_DIR": str(cache), "OPENAI_API_KEY": KEY}
    with (cache / "server.log").open("wb") as log:
        try:
            with running_langgraph_dev(free_port(), env=env, log=log) as url:
                yield {"url": url, "folder": str(folder), "log": cache / "server.log"}
        except RuntimeError as exc:
            pytest.fail(f"{exc}\n{(cache / 'server.log').read_text()}")


def wait(url: str, graph: str, payload: dict, **options) -> dict:
    """POST /runs/wait (a stateless run) and return what the client gets back."""

    async def go():
        return await get_client(url=url).runs.wait(None, graph, input=payload, raise_error=False, **options)

    return asyncio.run(go())


def refusal(reply) -> str:
    """The message of a run that ended in error, as the client reads it."""
    error = reply.get("__error__") if isinstance(reply, dict) else None
    assert error, f"the run was not refused: {json.dumps(reply, default=str)[:500]}"
    return error["message"]


@pytest.mark.parametrize(
    "graph, payload, context",
    [
        ("factcheck", {"response": TEXT}, {"model": "anything", "base_url": "URL"}),
        (
            "verify",
            {"claim": {"id": "c1", "text": TEXT}},
            {"model": "m", "model_settings": {"m": {"base_url": "URL"}}},
        ),
        # the audit's target_base_url, as the CLI and the API set it
        (
            "audit",
            {"objects": ["social_rumor"]},
            {"model": "sim", "role_models": {"target": "t"}, "model_settings": {"t": {"base_url": "URL"}}},
        ),
    ],
)
def test_the_servers_key_never_goes_to_a_host_the_client_names(server, attacker, graph, payload, context):
    """Item 1: a run naming base_url got ``Authorization: Bearer <the server's key>`` sent there."""
    attacker.authorizations.clear()
    context = json.loads(json.dumps(context).replace("URL", attacker.url))
    said = refusal(wait(server["url"], graph, payload, context=context))
    assert "set by the server's deployer" in said
    assert not attacker.authorizations and KEY not in said


def test_nor_through_an_assistant_or_the_configurable(server, attacker):
    """The other doors to a run's context: an assistant's saved context, ``config.configurable``."""
    attacker.authorizations.clear()

    async def go():
        client = get_client(url=server["url"])
        assistant = await client.assistants.create(
            "factcheck", context={"model": "anything", "base_url": attacker.url}, name="borrow-the-key"
        )
        through_assistant = await client.runs.wait(
            None, assistant["assistant_id"], input={"response": TEXT}, raise_error=False
        )
        through_config = await client.runs.wait(
            None,
            "factcheck",
            input={"response": TEXT},
            config={"configurable": {"model": "anything", "base_url": attacker.url}},
            raise_error=False,
        )
        return through_assistant, through_config

    for reply in asyncio.run(go()):
        assert "base_url is set by the server's deployer" in refusal(reply)
    assert not attacker.authorizations
    assert KEY not in server["log"].read_text(errors="replace")


def test_a_run_cannot_read_the_servers_files(server):
    """Item 2: ``"corpus": "/some/folder"`` returned the folder's text as evidence."""
    reply = wait(
        server["url"], "factcheck", {"response": TEXT}, context={"model": "sim", "corpus": server["folder"]}
    )
    assert "corpus is set by the server's deployer" in refusal(reply)
    assert "hunter2" not in json.dumps(reply)
    reply = wait(server["url"], "factcheck", {"response": TEXT}, context={"model": server["folder"]})
    assert "not given by a path" in refusal(reply) and "hunter2" not in json.dumps(reply)


@pytest.mark.parametrize(
    "graph, payload, context, words",
    [
        ("factcheck", {"response": TEXT}, {"model": "sim", "temperature": "banana"}, "temperature='banana'"),
        ("factcheck", {"response": TEXT}, {"model": "sim", "epsilon": 0.2}, "epsilon is a setting of"),
        ("factcheck", {"response": TEXT}, {"model": "sim", "no_such_key": 1}, "unknown setting(s)"),
        ("factcheck", {"response": 12345}, {"model": "sim"}, "input should be a valid string"),
        ("factcheck", {"response": TEXT, "question": "q" * 5000}, {"model": "sim"}, "the limit is 4,000"),
    ],
)
def test_a_refusal_reaches_the_client_as_its_sentence(server, graph, payload, context, words):
    """Item 8: the client read "An internal error occurred", or the run was taken."""
    said = refusal(wait(server["url"], graph, payload, context=context))
    assert words in said and "internal error" not in said


def test_a_plain_run_still_runs(server):
    reply = wait(
        server["url"], "factcheck", {"response": "The Eiffel Tower is in Paris."}, context={"model": "sim"}
    )
    assert "__error__" not in reply and reply["scores"]["claims"] >= 1
