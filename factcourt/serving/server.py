"""The LangGraph server: starting it, who may call it, the standard assistants (one per protocol and rule).

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
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypedDict
from urllib.parse import urlsplit

from langgraph_sdk import Auth

from factcourt.errors import BackendError, ConfigError
from factcourt.systems import SYSTEMS

if TYPE_CHECKING:
    from langgraph_sdk.schema import Assistant
    from starlette.middleware.cors import CORSMiddleware

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the folder that holds langgraph.json
# runs the server runs at once: `langgraph dev` runs one unless told, so one run stuck on a slow
# model left every other client's run waiting (its --help says 10, the default of a deployment)
RUNS_AT_ONCE = 10

# langgraph.json's custom auth: the server answers programs, its own page and the web pages of
# the origins its deployer names (LangGraph's CORS setting), not any page the user has open
auth = Auth()


@auth.authenticate
async def same_origin_or_named(headers: dict[bytes, bytes]) -> str:
    """Let in a request from no web page, from the server's own page or from an origin the deployer names.

    A browser names the page behind every POST and cross-origin request (``Origin``). CORS only
    hides the reply from another origin's page: the request itself (a text/plain POST needs no
    preflight) would still start a run and spend the server's key.
    """
    origin = headers.get(b"origin")
    if origin is None:
        return "local"
    said = origin.decode("latin-1")
    # the Host was checked already (the page's FrontDoor): the page of that host is the server's own
    host = headers.get(b"host", b"").decode("latin-1")
    if urlsplit(said).netloc == host or _cors().is_allowed_origin(said):
        return "local"
    raise Auth.exceptions.HTTPException(
        status_code=403,
        detail=f"this server answers its own page and the origins its deployer names (CORS), not {said!r}",
    )


async def context_a_run_would_take(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Refuse an assistant whose saved context every run of it would refuse (it was made, then failed).

    Checked as a run's context is (``factcourt.serving.served``). An update names no graph unless it
    changes it: then only what no graph's run may set is checked.
    """
    from factcourt.serving.served import client_problem, served_context
    from factcourt.systems import named

    configurable = (value.get("config") or {}).get("configurable")
    context = value.get("context")
    values = {
        **(configurable if isinstance(configurable, dict) else {}),
        **(context if isinstance(context, dict) else {}),
    }
    try:
        system = named(str(value.get("graph_id")))
    except KeyError:  # an update that keeps its graph, or a graph the server itself refuses
        problem = client_problem(values)
    else:
        try:
            served_context(system.context, values)
            problem = None
        except ValueError as exc:  # a ConfigError, in one sentence
            problem = str(exc)
    if problem:
        raise Auth.exceptions.HTTPException(status_code=400, detail=f"the assistant's context: {problem}")


auth.on.assistants.create(context_a_run_would_take)
auth.on.assistants.update(context_a_run_would_take)


@cache
def _cors() -> CORSMiddleware:
    """The server's own CORS policy (langgraph.json's ``http.cors``, or the CORS_CONFIG variable)."""
    from langgraph_api import config
    from starlette.middleware.cors import CORSMiddleware

    settings = config.CORS_CONFIG or {"allow_origins": config.CORS_ALLOW_ORIGINS}
    return CORSMiddleware(None, **settings)  # type: ignore[arg-type]  # asked about origins, it wraps no app


def langgraph_dev(
    port: int, *, reload: bool = False, config: Path = PROJECT_ROOT / "langgraph.json"
) -> tuple[list[str], dict[str, str]]:
    """The ``langgraph dev`` command line for this project, and its environment.

    Analytics and the version check are off: both reach the network, which may be absent.
    """
    command = [
        str(Path(sys.executable).with_name("langgraph")),
        "dev",
        "--no-browser",
        "--port",
        str(port),
        "--n-jobs-per-worker",
        str(RUNS_AT_ONCE),
        "--config",
        str(config),
    ]
    if not reload:
        command.append("--no-reload")
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    return command, env


def _config_in(folder: Path) -> Path:
    """A copy of langgraph.json in ``folder`` naming the project's files by absolute path.

    The server reads its files relative to the folder it runs in, and keeps its state there.
    """
    config = json.loads((PROJECT_ROOT / "langgraph.json").read_text(encoding="utf-8"))

    def absolute(spec: str) -> str:
        return str(PROJECT_ROOT / spec) if spec.startswith("./") else spec

    config["dependencies"] = [str(PROJECT_ROOT)]
    config["graphs"] = {name: absolute(spec) for name, spec in config["graphs"].items()}
    config["auth"]["path"] = absolute(config["auth"]["path"])
    config["http"]["app"] = absolute(config["http"]["app"])
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@contextlib.contextmanager
def running_langgraph_dev(
    port: int,
    *,
    env: dict[str, str] | None = None,
    log: IO[bytes] | int = subprocess.DEVNULL,
    ready_timeout_s: float = 60,
    state_dir: Path | None = None,
) -> Iterator[str]:
    """Run ``langgraph dev`` on ``port`` for the ``with`` block; yields its URL once /ok answers.

    The server keeps its threads and pending runs under ``state_dir`` (``.langgraph_api``; the
    project's folder by default): a folder of its own keeps a run another server left pending
    from being taken up again.

    The server runs in its own process group, stopped at the end (SIGTERM, then SIGKILL after
    15 s), so its workers go with it. Raises RuntimeError when it exits or stays silent.
    """
    command, base_env = langgraph_dev(
        port, config=_config_in(state_dir) if state_dir else PROJECT_ROOT / "langgraph.json"
    )
    process = subprocess.Popen(
        command,
        cwd=state_dir or PROJECT_ROOT,
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
    (over ``FACTCOURT_SERVER_SETTINGS``'s), since the page may not choose one, and a run may not
    name another. A model no run could reach (``sim:-1``, ``""``, a name without a key) is a
    ConfigError before the server starts. The page's address is printed, and opened where a
    browser exists.
    """
    from factcourt.api import models_by_role
    from factcourt.providers.local_server import free_port
    from factcourt.serving.served import SETTINGS_VARIABLE, deployer_settings

    models_by_role(model, deployer_settings())
    if port is None:
        port = free_port()
    else:
        check_port_free(port)
    with tempfile.TemporaryDirectory(prefix="factcourt-ui-") as folder:
        env = {}
        if model is not None:
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


class AssistantSpec(TypedDict):
    """A standard assistant as its system declares it."""

    name: str
    graph_id: str
    context: dict[str, Any]


def standard_assistants() -> list[AssistantSpec]:
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
    made = []
    for spec in standard_assistants():
        # any client may make an assistant of a standard name: one is reused only when it is
        # the standard one (its graph, its context and nothing configured besides)
        found = await client.assistants.search(graph_id=spec["graph_id"], name=spec["name"], limit=100)
        if same := next((a for a in found if _is_standard(a, spec)), None):
            made.append(same)
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


def _is_standard(assistant: Assistant, spec: AssistantSpec) -> bool:
    config = dict(assistant.get("config") or {})
    # the server copies the context into the configurable; anything else was configured
    if config.pop("configurable", {}) not in ({}, spec["context"]) or any(config.values()):
        return False
    return (
        assistant["name"] == spec["name"]  # the search's name is a part of one
        and assistant["graph_id"] == spec["graph_id"]
        and (assistant.get("context") or {}) == spec["context"]
    )
