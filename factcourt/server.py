"""Helpers for the deployed LangGraph server: the standard assistants, one per protocol and rule.

Each assistant is a graph plus a saved context, e.g. ``factcheck`` with
``{"protocol": "jury", "rule": "adaptive"}``; clients then run it by assistant id.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from factcourt.errors import BackendError, ConfigError
from factcourt.systems import SYSTEMS

if TYPE_CHECKING:
    from langgraph_sdk.schema import Assistant

PROJECT_ROOT = Path(__file__).resolve().parent.parent  # the folder that holds langgraph.json


def langgraph_dev(port: int, *, reload: bool = False) -> tuple[list[str], dict[str, str]]:
    """The ``langgraph dev`` command line for this project, and its environment.

    Analytics and the version check are off: both reach the network, which may be absent.
    """
    command = [
        str(Path(sys.executable).with_name("langgraph")),
        "dev",
        "--no-browser",
        "--port",
        str(port),
        "--config",
        str(PROJECT_ROOT / "langgraph.json"),
    ]
    if not reload:
        command.append("--no-reload")
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    return command, env


@contextlib.contextmanager
def running_langgraph_dev(
    port: int,
    *,
    env: dict[str, str] | None = None,
    log: IO[bytes] | int = subprocess.DEVNULL,
    ready_timeout_s: float = 60,
) -> Iterator[str]:
    """Run ``langgraph dev`` on ``port`` for the ``with`` block; yields its URL once /ok answers.

    The server runs in its own process group, stopped at the end (SIGTERM, then SIGKILL after
    15 s), so its workers go with it. Raises RuntimeError when it exits or stays silent.
    """
    command, base_env = langgraph_dev(port)
    process = subprocess.Popen(
        command,
        cwd=PROJECT_ROOT,
        env={**base_env, **(env or {})},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + ready_timeout_s
        while True:
            try:
                with urllib.request.urlopen(f"{url}/ok", timeout=1):
                    break  # a reply other than 200 raises HTTPError, an OSError
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(
                        f"langgraph dev exited (code {process.returncode}) before answering /ok"
                    ) from None
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"langgraph dev did not answer /ok in {ready_timeout_s:.0f} s"
                    ) from None
                time.sleep(0.05)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def serve_page(port: int | None, *, model: str | None = None, browser: bool = True) -> None:
    """Serve the graphs, Studio's API and the page to check text in (``/ui``) until Ctrl-C.

    ``port`` None: a free one. ``model``: the model every run uses, set as the deployer sets it
    (over ``FACTCOURT_SERVER_SETTINGS``'s), since the page may not choose one. The page's address
    is printed, and opened where a browser exists.
    """
    from factcourt.providers.local_server import free_port
    from factcourt.served import SETTINGS_VARIABLE, deployer_settings

    if port is None:
        port = free_port()
    else:
        check_port_free(port)
    with tempfile.TemporaryDirectory(prefix="factcourt-ui-") as folder:
        env = {}
        if model:
            settings = Path(folder) / "settings.json"
            settings.write_text(json.dumps({**deployer_settings(), "model": model}), encoding="utf-8")
            env[SETTINGS_VARIABLE] = str(settings)
        log = Path(folder) / "server.log"
        with log.open("wb") as sink:
            try:
                # a cold start imports every graph: on a busy laptop that takes minutes, not seconds
                with running_langgraph_dev(port, env=env, log=sink, ready_timeout_s=300) as url:
                    print(f"The page: {url}/ui  (Studio's API beside it; Ctrl-C stops both)", flush=True)
                    if browser:
                        webbrowser.open(f"{url}/ui")
                    # a kill (not only Ctrl-C) stops the server too: it runs in a session of its own
                    before = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
                    try:
                        while True:
                            time.sleep(3600)
                    finally:
                        signal.signal(signal.SIGTERM, before)
            except RuntimeError as exc:  # the server's own words say why it did not start
                tail = log.read_text(encoding="utf-8", errors="replace")[-2000:].strip()
                raise BackendError(f"{exc}; its log ends:\n{tail}" if tail else str(exc)) from None


def standard_assistants() -> list[dict[str, Any]]:
    """Name, graph and context of every standard assistant, as each system declares them.

    The claim court per protocol and rule; the hallucination debate in the paper's layout and in
    its one-call-per-team mode.
    """
    return [
        {"name": name, "graph_id": system.name, "context": context}
        for system in SYSTEMS
        for name, context in system.assistants
    ]


def check_port_free(port: int) -> None:
    """Fail in one sentence when ``port`` is taken (``langgraph dev`` would otherwise move on)."""
    with socket.socket() as sock:
        # as the server itself binds: connections in TIME_WAIT do not make the port taken, a
        # listener still does (Linux)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ConfigError(
                f"port {port} is not free ({exc.strerror}); choose another with --port"
            ) from None


async def create_standard_assistants(url: str, timeout_s: float = 30.0) -> list[Assistant]:
    """Create the standard assistants on the server at ``url`` (existing ones are reused).

    A server that is down, silent past ``timeout_s`` or failing is one sentence naming ``url``.
    """
    import httpx

    try:
        return await _create_standard_assistants(url, timeout_s)
    except httpx.TimeoutException:
        raise BackendError(f"the LangGraph server at {url} did not answer within {timeout_s:g} s") from None
    except httpx.UnsupportedProtocol:
        raise ConfigError(f"{url!r} is not an http(s) URL") from None
    except httpx.HTTPStatusError as exc:
        raise BackendError(
            f"the LangGraph server at {url} answered HTTP {exc.response.status_code}"
        ) from None
    except httpx.TransportError as exc:
        raise BackendError(
            f"no LangGraph server answers at {url} ({exc or type(exc).__name__}); start one with "
            "`factcourt serve`"
        ) from None
    except ValueError:  # the SDK's JSON decoding: a web page or another service at that URL
        raise BackendError(
            f"the server at {url} sent a reply that is not JSON: is it a LangGraph server?"
        ) from None
    except (TypeError, KeyError, AttributeError):  # JSON, but not of assistants: another JSON service
        raise BackendError(
            f"the server at {url} answered JSON that names no assistants: is it a LangGraph server?"
        ) from None


async def _create_standard_assistants(url: str, timeout_s: float) -> list[Assistant]:
    from langgraph_sdk import get_client

    client = get_client(url=url, timeout=timeout_s)
    existing = {a["name"]: a for a in await client.assistants.search(limit=100)}
    made = []
    for spec in standard_assistants():
        if spec["name"] in existing:
            made.append(existing[spec["name"]])
            continue
        made.append(
            await client.assistants.create(
                spec["graph_id"],
                context=spec["context"],
                name=spec["name"],
                metadata={"created_by": "factcourt"},
            )
        )
    return made
