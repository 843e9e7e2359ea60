"""The page to check text in (``factcourt ui``): served at ``/ui`` by the LangGraph server itself.

``langgraph.json`` mounts :data:`app` beside the graphs (``"http": {"app": ...}``), so one process
serves the graphs, Studio's API and this page. The page runs checks through the server's own API
(threads, ``runs/stream``, cancel); the routes here only serve the page and turn results into the
HTML report's page, which the page shows as it is: the marks, icons, words and colours are the
report's own, not a copy.
"""

from __future__ import annotations

import json
import os
import typing
from dataclasses import MISSING, fields
from typing import Any, Literal

from markupsafe import Markup
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factcourt.errors import FactcourtError
from factcourt.inputs import first_complaint, strip_controls
from factcourt.report.html import _asset, _env, render
from factcourt.systems import SYSTEMS, named

# The report's own policy (nothing from the network, inline style and script) with the server's
# API to talk to; the report shown in a frame inherits it.
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# The settings a person changes (model, endpoint and key are the deployer's: see served.py).
PERSON_SETTINGS = ("protocol", "rule", "jurors", "rounds", "search", "language", "max_concurrency")
# A result posted to be drawn: the largest text a run takes, with its claims' evidence and debate.
MAX_BODY_BYTES = 20_000_000
# The names the server answers to besides loopback's, comma-separated (e.g. a LAN name), as
# starlette's TrustedHostMiddleware reads them ("*.example.org" too)
HOSTS_VARIABLE = "FACTCOURT_ALLOWED_HOSTS"


def settings_form() -> list[dict[str, Any]]:
    """Each person's setting as the drawer shows it: name, description, choices or kind, default, graphs.

    Read from the contexts, so a new choice or default shows on the page without an edit here.
    """
    shown: dict[str, dict[str, Any]] = {}
    for mode, graph in modes().items():
        context = named(graph).context
        hints = typing.get_type_hints(context)
        for f in fields(context):
            if f.name not in PERSON_SETTINGS:
                continue
            entry = shown.setdefault(f.name, {"name": f.name, "modes": []})
            entry["modes"].append(mode)
            if "description" in entry:
                continue
            kind = hints[f.name]
            choices = list(typing.get_args(kind)) if typing.get_origin(kind) is Literal else None
            entry |= {
                "description": f.metadata.get("description", ""),
                "choices": choices,
                "kind": "choice" if choices else "number",
                "default": None if f.default is MISSING else f.default,
            }
    return [shown[name] for name in PERSON_SETTINGS if name in shown]


def modes() -> dict[str, str]:
    """The ways to check that the registry's systems offer here: each one's mode and the graph it runs.

    A mode is the system's command, which is also the report kind of its result.
    """
    return {s.command: s.name for s in SYSTEMS if s.page and s.command}


async def page(request: Request) -> Response:
    """The page: the form, the progress line, the report's frame, the recent runs."""
    html = _env.get_template("ui.html.j2").render(
        modes=list(modes()),
        graphs=modes(),
        settings=settings_form(),
        style=Markup(_asset("report.css") + _asset("ui.css")),
        script=Markup(_asset("ui.js")),
    )
    return HTMLResponse(html, headers=_headers())


async def result(request: Request) -> Response:
    """A finished run's result, as the command line prints it (409 with a sentence when there is none)."""
    from factcourt.api import stored_result

    try:
        found = await stored_result(None, request.path_params["thread_id"])
    except FactcourtError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=409, headers=_headers())
    return JSONResponse(found.model_dump(mode="json"), headers=_headers())


async def report(request: Request) -> Response:
    """The HTML report of the result posted (a finished one, or the claims done so far)."""
    body = await _body(request)
    if body is None:
        return _refuse(f"the result is over {MAX_BODY_BYTES // 1_000_000} MB", 413)
    try:
        posted = json.loads(body)
    except ValueError:
        return _refuse("the body is not JSON")
    except RecursionError:
        return _refuse("the body is JSON nested too deeply to be a result")
    if not isinstance(posted, dict) or not isinstance(posted.get("result"), dict):
        return _refuse('post {"result": {...}, "kind": ...}')
    kind = posted.get("kind")
    if kind not in modes():
        return _refuse(f"kind must be one of {', '.join(modes())}")
    try:
        html = render(posted["result"], kind)
    except ValidationError as exc:  # pydantic's own text runs to many lines and links
        return _refuse(f"the result cannot be drawn: {first_complaint(exc)}")
    except (FactcourtError, KeyError, TypeError, ValueError, AttributeError) as exc:
        return _refuse(f"the result cannot be drawn ({type(exc).__name__}: {exc})")
    return HTMLResponse(html, headers=_headers())


async def _body(request: Request) -> bytes | None:
    """The request's body, or None once it is over MAX_BODY_BYTES (read no further than that)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            return None
    return bytes(body)


def _refuse(sentence: str, status: int = 400) -> Response:
    return JSONResponse({"detail": sentence}, status_code=status, headers=_headers())


def _headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


class FrontDoor(TrustedHostMiddleware):
    """Every request to the server, the graphs' API included, before the server reads or logs it.

    The server puts this app's middleware outermost. Its Host must be loopback or the deployer's
    (DNS rebinding: a page of evil.example whose name now points here would be same-origin); its
    path may hold no control character (the server's log, on the deployer's terminal, writes it
    raw); and a preflight's private-network grant goes only with CORS's (``langgraph dev`` adds
    it to every preflight, to any origin).
    """

    def __init__(self, app: ASGIApp) -> None:
        named = [h.strip() for h in os.environ.get(HOSTS_VARIABLE, "").split(",") if h.strip()]
        super().__init__(app, allowed_hosts=["127.0.0.1", "localhost", *named], www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a foreign Host or a path with control characters; grant private-network with CORS only."""
        root = scope.get("root_path", "")
        if scope["type"] not in ("http", "websocket") or root == "/noauth" or root.startswith("/noauth/"):
            # the server's own client (the result route's): in-process, as LangGraph's auth lets it by
            await self.app(scope, receive, send)
            return
        if strip_controls(scope["path"]) != scope["path"]:
            await _refuse("the path holds control characters")(scope, receive, send)
            return

        async def granting_with_cors_only(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "access-control-allow-origin" not in headers:
                    del headers["access-control-allow-private-network"]
            await send(message)

        await super().__call__(scope, receive, granting_with_cors_only)


app = Starlette(
    routes=[
        Route("/ui", page, methods=["GET"]),
        Route("/ui/threads/{thread_id}/result", result, methods=["GET"]),
        Route("/ui/report", report, methods=["POST"]),
    ],
    middleware=[Middleware(FrontDoor)],
)
