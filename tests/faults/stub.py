"""An OpenAI-compatible chat endpoint on 127.0.0.1 that fails on purpose.

Modes: ``ok`` (answers every structured request by the simulated model's rules), ``garbage``
(a 200 reply that is not JSON, an HTML page), ``invalid_json`` (a 200 reply labelled JSON whose
body does not parse), ``bad_json`` (a completion whose tool-call arguments do not
parse), ``http500``, ``empty_choices``, ``no_choices`` (JSON without them), ``unauthorized`` (a 401
that echoes the Authorization header it got, as OpenAI's "Incorrect API key provided" does) and
``hang`` (reads the request, never answers). Every request's Authorization header is kept in
``authorizations``.
``refuse`` is an address nobody listens on. A fault hits only requests whose body contains
``fault_when`` (every request when it is empty), so a run can fail part-way.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from factcourt.providers.simulated import rule_answer

MODES = (
    "ok",
    "garbage",
    "invalid_json",
    "bad_json",
    "http500",
    "empty_choices",
    "no_choices",
    "unauthorized",
    "hang",
)


def dead_url() -> str:
    """An endpoint URL on a port nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def completion(message: dict) -> dict:
    return {
        "id": "stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class Stub:
    """The server; ``mode`` and ``fault_when`` may change between runs."""

    def __init__(self) -> None:
        self.mode, self.fault_when, self.requests = "ok", "", 0
        self.authorizations: list[str] = []
        self.released = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def seen(self, requests: int, within_s: float = 120) -> int:
        """The requests counted once ``requests`` have come (at most ``within_s`` seconds).

        A client that gave up on a hung call may have closed before this server read it.
        """
        deadline = time.monotonic() + within_s
        while self.requests < requests and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.requests

    def close(self) -> None:
        self.released.set()  # hung handlers return
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                stub.requests += 1
                stub.authorizations.append(self.headers.get("Authorization", ""))
                request = json.loads(raw)
                mode = stub.mode if stub.fault_when in raw.decode("utf-8") else "ok"
                if mode == "hang":
                    stub.released.wait(60)
                    return
                if mode == "unauthorized":
                    said = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
                    body = {
                        "error": {"message": said, "type": "invalid_request_error", "code": "invalid_api_key"}
                    }
                    self._send(401, json.dumps(body).encode())
                elif mode == "http500":
                    self._send(500, b'{"error": {"message": "stub: internal error"}}')
                elif mode == "garbage":
                    self._send(200, b"<html>502 Bad Gateway</html>", "text/html")
                elif mode == "invalid_json":
                    self._send(200, b"{'id': 'stub', 'object': 'chat.completion', 'choices': [")
                elif mode == "empty_choices":
                    self._send(200, json.dumps({**completion({}), "choices": []}).encode())
                elif mode == "no_choices":
                    self._send(200, b'{"id": "stub", "object": "chat.completion"}')
                else:
                    name = request["tools"][0]["function"]["name"]
                    args = rule_answer(name, request["messages"][-1]["content"])
                    arguments = '{"verdict": "supp' if mode == "bad_json" else json.dumps(args)
                    call = {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                    self._send(
                        200,
                        json.dumps(
                            completion({"role": "assistant", "content": None, "tool_calls": [call]})
                        ).encode(),
                    )

        return Handler
