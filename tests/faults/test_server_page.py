"""The routes the page adds to the LangGraph server, as a hostile client calls them (issue 65).

Called at the ASGI level, as the server calls them; the real ``langgraph dev`` is in
tests/integration/test_served_attacks.py.
"""

import asyncio
import json

from factcourt.serving.page import MAX_BODY_BYTES, app

MB = 1_000_000


def call(method: str, path: str, chunks=(), headers=(), host: str = "127.0.0.1:2024") -> tuple[dict, int]:
    """Send a request to the page's app; its reply (status, headers, body) and the body chunks it read."""
    chunks = list(chunks)
    read = 0
    reply: dict = {"body": b""}

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            reply["status"] = message["status"]
            reply["headers"] = {k.decode(): v.decode() for k, v in message["headers"]}
        else:
            reply["body"] += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", host.encode()), *((k.encode(), v.encode()) for k, v in headers)],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 2024),
    }
    asyncio.run(app(scope, receive, send))
    return reply, read


def detail(reply: dict) -> str:
    return json.loads(reply["body"])["detail"]


def test_an_oversized_report_body_is_refused_before_it_is_read_whole():
    """Item 8: a 60 MB body was read whole (about 117 MB of memory) before the 20 MB check."""
    sixty = [b"x" * MB] * 60
    reply, read = call("POST", "/ui/report", sixty)  # sent in chunks, no length declared
    assert reply["status"] == 413 and "over 20 MB" in detail(reply)
    assert read <= MAX_BODY_BYTES // MB + 1, f"read {read} MB of 60"
    reply, read = call("POST", "/ui/report", sixty, headers=[("content-length", str(60 * MB))])
    assert reply["status"] == 413 and read == 0


def test_a_deeply_nested_report_body_is_one_sentence_not_a_bare_500():
    """Item 19: json.loads raised RecursionError, which the server answered with a bare HTTP 500."""
    nested = b'{"result": ' + b"[" * 100_000 + b"]" * 100_000 + b', "kind": "check"}'
    reply, _ = call("POST", "/ui/report", [nested])
    assert reply["status"] == 400 and detail(reply) == "the body is JSON nested too deeply to be a result"


def test_a_malformed_result_is_one_sentence_without_pydantics_preamble():
    """Item 19: pydantic's multi-line text, with its errors.pydantic.dev links, was the page's message."""
    body = json.dumps({"result": {"response": "x", "claims": [{"text": 5}]}, "kind": "check"}).encode()
    reply, _ = call("POST", "/ui/report", [body])
    said = detail(reply)
    assert reply["status"] == 400 and said.startswith("the result cannot be drawn: ")
    assert "\n" not in said and "pydantic.dev" not in said and "validation error" not in said, said
