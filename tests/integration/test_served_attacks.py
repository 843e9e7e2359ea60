"""A hostile client of a real ``langgraph dev`` (issue 54, items 1, 2 and 8): the key and the files stay.

And a hostile web page (issue 65, items 1, 7 and 9): another origin, another Host, an escape in
a path, an assistant of a standard name.

The server holds OPENAI_API_KEY, as the guide tells deployers; a stub chat endpoint on 127.0.0.1
stands for a host the client controls and records every Authorization header it gets; a folder
of .txt files stands for the server's own files.
"""

import asyncio
import json

import httpx
import pytest
from langgraph_sdk import get_client

from tests.faults.stub import Stub
from tests.integration import langgraph_server

pytestmark = pytest.mark.integration
KEY = "sk-test-SERVERKEY-0123456789abcdef"
SECRET = "The database password is hunter2-on-the-server."
EVIL = "http://evil.example"
# what the deployer names: a web page's origin (LangGraph's CORS setting) and a host name
NAMED_ORIGIN = "https://studio.example"
NAMED_HOST = "factcourt.lan"
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
    cors = {"allow_origins": [NAMED_ORIGIN], "allow_methods": ["*"], "allow_headers": ["*"]}
    env = {
        "FACTCOURT_CACHE_DIR": str(cache),
        "OPENAI_API_KEY": KEY,
        "CORS_CONFIG": json.dumps(cors),
        "FACTCOURT_ALLOWED_HOSTS": NAMED_HOST,
    }
    with langgraph_server(cache, env) as url:
        yield {"url": url, "folder": str(folder), "log": cache / "server.log"}


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
        # refused when made (issue 65, item 22c: tests/integration/test_served_runs.py); an
        # assistant whose context the config names is refused so too
        with pytest.raises(httpx.HTTPStatusError) as made:
            await client.assistants.create(
                "factcheck",
                config={"configurable": {"model": "anything", "base_url": attacker.url}},
                name="borrow-the-key",
            )
        through_assistant = {"__error__": made.value.response.json()}
        through_config = await client.runs.wait(
            None,
            "factcheck",
            input={"response": TEXT},
            config={"configurable": {"model": "anything", "base_url": attacker.url}},
            raise_error=False,
        )
        return through_assistant, through_config

    for reply in asyncio.run(go()):
        said = reply["__error__"].get("message") or reply["__error__"]["detail"]
        assert "base_url is set by the server's deployer" in said
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


def preflight(url: str, path: str, origin: str) -> httpx.Response:
    """A browser's preflight of a JSON POST from ``origin``, asking for private-network access."""
    return httpx.options(
        f"{url}{path}",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
            "Access-Control-Request-Private-Network": "true",
        },
    )


def test_another_websites_page_can_neither_read_nor_start_runs(server):
    """Issue 65.1: any origin got ``access-control-allow-origin: *`` (and the private-network
    grant), and a text/plain POST to /runs/wait, which needs no preflight, started a run."""
    url = server["url"]
    reply = httpx.post(f"{url}/threads/search", json={"limit": 2}, headers={"Origin": EVIL})
    assert reply.status_code == 403 and "access-control-allow-origin" not in reply.headers
    assert EVIL in reply.json()["detail"]
    asked = preflight(url, "/threads/search", EVIL)
    assert "access-control-allow-origin" not in asked.headers
    assert "access-control-allow-private-network" not in asked.headers
    run = {"assistant_id": "factcheck", "input": {"response": TEXT}, "context": {"model": "sim"}}
    simple = {"Origin": EVIL, "Content-Type": "text/plain"}
    assert httpx.post(f"{url}/runs/wait", content=json.dumps(run), headers=simple).status_code == 403
    # the routes the page adds: a report drawn for another page is refused too
    drawn = httpx.post(f"{url}/ui/report", json={"result": {}, "kind": "check"}, headers={"Origin": EVIL})
    assert drawn.status_code == 403


def test_the_page_itself_programs_and_the_origins_the_deployer_names_are_answered(server):
    url = server["url"]
    for headers in ({"Origin": url}, {}):  # the page's own fetch, a program
        assert httpx.post(f"{url}/threads/search", json={"limit": 1}, headers=headers).status_code == 200
    named = httpx.post(f"{url}/threads/search", json={"limit": 1}, headers={"Origin": NAMED_ORIGIN})
    assert named.status_code == 200 and named.headers["access-control-allow-origin"] == NAMED_ORIGIN
    asked = preflight(url, "/threads/search", NAMED_ORIGIN)
    assert asked.headers["access-control-allow-origin"] == NAMED_ORIGIN
    assert asked.headers["access-control-allow-private-network"] == "true"


@pytest.mark.parametrize("path", ["/ui", "/ui/threads/x/result", "/threads/search", "/docs"])
def test_a_request_naming_another_host_is_refused(server, path):
    """Issue 65.1: any Host was accepted: a page of a name rebound to 127.0.0.1 read the server as its own."""
    url = server["url"]
    method = "POST" if path == "/threads/search" else "GET"
    body = {"json": {"limit": 1}} if method == "POST" else {}
    port = url.rsplit(":", 1)[1]
    foreign = httpx.request(method, f"{url}{path}", headers={"Host": f"evil.example:{port}"}, **body)
    assert foreign.status_code == 400
    named = httpx.request(method, f"{url}{path}", headers={"Host": f"{NAMED_HOST}:{port}"}, **body)
    assert named.status_code != 400


def test_a_path_holding_a_terminal_escape_is_refused_before_the_log_writes_it(server):
    """Issue 65.9: %1B%5D0%3BPWNED%07 in a path was written raw to the log on the deployer's terminal."""
    reply = httpx.get(f"{server['url']}/threads/%1B%5D0%3BPWNED%07/state")
    assert reply.status_code == 400 and reply.json()["detail"] == "the path holds control characters"
    assert b"\x1b]0;PWNED" not in server["log"].read_bytes()


def test_assistants_reuses_only_the_standard_assistant_of_a_name(server):
    """Issue 65.7: a client's "factcheck-jury-adaptive" on graph hallucination with sim:1e300 was
    listed (and so run) as the standard one."""
    from factcourt.serving.server import create_standard_assistants

    async def plant():
        client = get_client(url=server["url"])
        for graph, context in (
            ("hallucination", {"model": "sim:1e300"}),
            ("factcheck", {"model": "sim:1e300"}),
        ):
            await client.assistants.create(graph, context=context, name="factcheck-jury-adaptive")

    asyncio.run(plant())
    made = {a["name"]: a for a in asyncio.run(create_standard_assistants(server["url"]))}
    mine = made["factcheck-jury-adaptive"]
    assert mine["graph_id"] == "factcheck" and mine["context"] == {"protocol": "jury", "rule": "adaptive"}
    again = {a["name"]: a["assistant_id"] for a in asyncio.run(create_standard_assistants(server["url"]))}
    assert again == {name: a["assistant_id"] for name, a in made.items()}
