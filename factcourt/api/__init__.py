"""The Python API, the one door to every system: ``factcourt.check``, ``verify``, ``detect``, ``audit``, ...

This package holds what every system's API shares (running a graph, resumably or not, the
store, the embedded servers, the preflight, a served thread's result); each system's own
functions live in its module (``factcourt.api.claims``, ``.hallucination``, ``.pyramid``,
``.audit``), which the registry (``factcourt.systems``) names: this package names no system,
and is handed by the registry what it needs of them (:func:`read_threads_with`). Each returns
its system's result model (or a :class:`Pyramid`): ``kind`` names it, and its
``model_dump(mode="json")`` is the JSON the command prints. The command line runs every
command through here too: ``progress`` hands it each progress event of a run, and a resumable
run (a crashed one resumes from its checkpoints) says first how it runs.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any, NamedTuple, TypeVar, cast, get_type_hints

from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, TypeAdapter, ValidationError

from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError, FactcourtError, InputError, first_line
from factcourt.inputs import undecodable
from factcourt.providers.search import LANGUAGE_NOT_COVERED, uncovered_language
from factcourt.state.records import Evidence, Result

Call = TypeVar("Call", bound=Callable[..., Any])


def checked(function: Call) -> Call:
    """``function``, whose arguments are checked against its annotations before it runs (pydantic).

    An argument of the wrong type, or with text that is not UTF-8, is one InputError naming it,
    not a TypeError, AttributeError or multi-line dump from deep in the run; ``check("x", "q",
    "sim")`` took "sim" for the settings, and ``audit("fake_news")`` each letter for an object.
    What pydantic converts (a dict for an Evidence, a str for a Path) the function gets so.
    """
    signature = inspect.signature(function)

    @functools.cache
    def adapters() -> dict[str, TypeAdapter[Any]]:  # on first use: the hints name classes imported late
        hints = get_type_hints(function)
        return {
            name: TypeAdapter(hints[name], config=ConfigDict(arbitrary_types_allowed=True))
            for name, parameter in signature.parameters.items()
            if hints.get(name, Any) is not Any
            and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL)
        }

    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        bound = signature.bind(*args, **kwargs)  # a missing or unknown argument: Python's own TypeError
        for name, text in [*zip(signature.parameters, bound.args), *bound.kwargs.items()]:
            if problem := undecodable(text):  # each setting of **overrides by its own name
                raise InputError(f"{name}: {problem}")
        for name, value in bound.arguments.items():
            if (adapter := adapters().get(name)) is None:
                continue
            try:
                bound.arguments[name] = adapter.validate_python(value)
            except ValidationError as exc:
                wanted = signature.parameters[name].annotation
                raise InputError(wrong_argument(name, wanted, value, exc)) from None
        return bound

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def acall(*args: Any, **kwargs: Any) -> Any:
            bound = check(args, kwargs)
            return await function(*bound.args, **bound.kwargs)

        return cast(Call, acall)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = check(args, kwargs)
        return function(*bound.args, **bound.kwargs)

    return cast(Call, call)


def wrong_argument(name: str, annotation: Any, value: Any, exc: ValidationError) -> str:
    """One line for an argument of the wrong type: what it must be, and what it was or what in it is wrong."""
    shown = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    wants = f"{name} must be {shown}"
    errors = exc.errors()
    first = errors[0]
    if first["input"] is value or len(errors) > 1:  # the whole argument, or no member of a union, fits
        return f"{wants}, not {'None' if value is None else type(value).__name__}"
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
    return f"{wants}: {where}: {first['msg'][:1].lower()}{first['msg'][1:]}"


ProgressHook = Callable[[dict[str, Any]], None]
"""Takes each progress event of a run: the graph's own (``{"event": "verdict", ...}``, see
``nodes.helpers.emit``) and, for a resumable run, first ``{"event": "run", "resumed": ...,
"beside_live_run": ..., "cleared_unreadable": ...}``."""


async def run_graph(
    graph: Any,
    payload: dict[str, Any] | None,
    ctx: BaseContext,
    config: RunnableConfig,
    progress: ProgressHook | None,
    durability: str | None = None,
) -> dict[str, Any]:
    """Run ``graph`` to its final state, handing each progress event to ``progress``."""
    if progress is None:
        return cast(
            dict[str, Any], await graph.ainvoke(payload, config=config, context=ctx, durability=durability)
        )
    final: dict[str, Any] = {}
    async for namespace, mode, chunk in graph.astream(
        payload,
        config=config,
        context=ctx,
        stream_mode=["custom", "values"],
        subgraphs=True,
        durability=durability,
    ):
        if mode == "custom":
            progress(chunk)
        elif not namespace:  # the root graph's state, not a claim subgraph's
            final = chunk
    return final


async def run_resumably(
    name: str,
    build: Callable[[], Any],
    identity: list[Any],
    payload: dict[str, Any],
    ctx: BaseContext,
    progress: ProgressHook | None,
    *,
    keep: bool,
    **config: Any,
) -> dict[str, Any]:
    """Run graph ``name``, made by ``build``, under the SQLite checkpointer: a crashed run resumes.

    ``identity``: what names the run (its texts), so a crashed run of it is found again.
    """
    from factcourt.checkpoints import DURABILITY, resumable_run

    async with resumable_run(name, build, identity, payload, ctx, keep=keep, **config) as run:
        if progress is not None:
            progress(
                {
                    "event": "run",
                    "resumed": run.resumed,
                    "beside_live_run": run.beside_live_run,
                    "cleared_unreadable": run.cleared_unreadable,
                }
            )
        return await run_graph(run.graph, run.payload, ctx, run.config, progress, DURABILITY)


def use_store(url: str | None = None) -> None:
    """Keep the cache, crash checkpoints and batch results in the PostgreSQL store at ``url``.

    Without ``url``, the store ``FACTCOURT_STORE`` names, if any. Either is reached once now, so
    that a database that cannot be reached stops the run before any model call (ConfigError).
    """
    import os

    from factcourt.paths import STORE_VARIABLE, store_url
    from factcourt.providers.postgres import check_reachable

    if url:
        os.environ[STORE_VARIABLE] = url  # Ray workers and child processes get it too
    if shared := store_url():
        check_reachable(shared)


def stop_servers_on_exit() -> None:
    """Stop this process's embedded model servers when it ends (SIGTERM included).

    It may start them again after a Ctrl-C of an earlier call.
    """
    # The embedded server starts in a worker thread, where Python cannot install signal
    # handlers: install them here, in the caller's (usually the main) thread. A Ctrl-C of an
    # earlier call (in a notebook, say) must not keep this one from starting the server.
    from factcourt.providers.local_server import allow_starts, install_exit_handlers

    install_exit_handlers()
    allow_starts()


def stop_servers() -> None:
    """Stop the embedded servers at once, unless another process uses them: no keep-alive after Ctrl-C."""
    from factcourt.providers.local_server import stop_all

    stop_all()


def leave_servers() -> None:
    """Leave the embedded servers to their keep-alive, as a process that ends does."""
    from factcourt.providers.local_server import leave_all

    leave_all()


def preflight(
    ctx: BaseContext, answerers: list[str] | None = None, progress: Callable[[int, int], None] | None = None
) -> None:
    """Fail fast on configuration (missing keys, missing corpus) before any model call.

    ``answerers``: expert or target models that answer on settings of their own, each checked too.
    ``progress``: hears (done, total) while hybrid retrieval embeds a corpus it has not seen.
    """
    from factcourt.providers.models import models
    from factcourt.providers.search import backend

    for role in type(ctx).agent_roles():  # the roles this command's graph asks, as the run reaches them
        models(ctx).reached(role)
    if ctx.retrieval_enabled:
        backend(ctx, progress)
    for model in dict.fromkeys(answerers or []):
        try:
            models(ctx.for_model(model))["answer"]
        except ConfigError as exc:
            raise ConfigError(f"{model}: {exc}") from None


def models_by_role(model: str | None = None, settings: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """Each role with the model it uses (``model``, else the default): name, endpoint, weights.

    ``settings``: a context's settings besides (a deployer's: its endpoint, its model); any
    setting of no model's is left out. A model no run could reach is a ConfigError.
    """
    from factcourt.context.base import known_roles
    from factcourt.providers.models import models

    shared = {f.name for f in fields(BaseContext)}
    values = {k: v for k, v in (settings or {}).items() if k in shared}
    ctx = BaseContext.from_dict(values | ({"model": model} if model is not None else {}))
    return [(role, models(ctx)[role]) for role in known_roles()]  # a listing's own table: no run


def clear_cache() -> tuple[int, int, int]:
    """Delete the cached answers and searches and the crashed runs' checkpoints.

    Returns (answers and searches deleted, runs deleted, live runs kept).
    """
    from factcourt import checkpoints
    from factcourt.providers import cache

    answers = cache.clear()
    deleted, live = checkpoints.clear()
    return answers, deleted, live


# the key of a served run's checkpoint metadata that holds the settings its result names (served.py)
RESULT_SETTINGS = "factcourt_settings"


class StoredRun(NamedTuple):
    """What reading a served thread's result takes of the graph that ran it."""

    state: Any
    """The graph's state schema: the thread's JSON values are turned back into it."""
    result: Callable[[Any, Any], Result]
    """``(state, context) -> Result``: the result of a finished run's state."""
    context: type[BaseContext]
    """The graph's context: a page names its defaults."""


_stored_run: Callable[[str], StoredRun | None] = lambda graph: None  # noqa: E731


def read_threads_with(stored_run: Callable[[str], StoredRun | None]) -> None:
    """Read a served thread's result with ``stored_run(graph_id)`` (None: no result a page shows).

    The registry (``factcourt.systems``) hands it over at startup: this package names no system.
    """
    global _stored_run
    _stored_run = stored_run


Given = TypeVar("Given", bound=BaseContext)


def context_with_given(
    kind: type[Given],
    knowledge: list[Evidence] | None,
    settings: dict[str, Any] | BaseContext | None,
    overrides: dict[str, Any],
) -> Given:
    """The run's ``kind`` of context, where knowledge given with no search named means search 'given'."""
    named = "search" in overrides or isinstance(settings, BaseContext) or "search" in (settings or {})
    if knowledge is not None and not named:
        overrides = {**overrides, "search": "given"}
    return kind.make(settings, **overrides)


async def stored_result(url: str | None, thread: str) -> Result:
    """The result of a finished run on a LangGraph server, from its thread.

    The server names the graph a thread ran (its ``graph_id``) and stores the state as JSON; the
    graph's own state schema turns it back into the objects its system's result is made of.
    ``url`` None: the server this code runs in (its page).
    """
    from langgraph_sdk import get_client
    from pydantic import TypeAdapter

    client = get_client(url=url)
    try:
        state = await client.threads.get_state(thread)
        found = await client.threads.get(thread)
    except Exception as exc:  # noqa: BLE001 (connection and HTTP status errors alike)
        raise FactcourtError(f"could not read thread {thread} from {url or 'this server'}: {exc}") from exc
    if not (isinstance(found, dict) and "status" in found and isinstance(state, dict) and "values" in state):
        raise FactcourtError(
            f"the server at {url or 'this address'} answered with no LangGraph thread: "
            "is it a LangGraph server?"
        )
    graph_id = (found.get("metadata") or {}).get("graph_id")
    failure = next((task["error"] for task in state.get("tasks") or [] if task.get("error")), None)
    if failure and _stored_error(failure).startswith("CancelledError"):
        raise FactcourtError(f"Stopped on the server: thread {thread}'s run has no result to show")
    if failure:
        raise FactcourtError(
            f"thread {thread}'s run failed ({_stored_error(failure)}): it has no result to show"
        )
    if found["status"] == "error":  # refused before its first step: no task, no state to show
        raise FactcourtError(
            f"thread {thread}'s run failed before its first step (the server refused it): "
            "it has no result to show"
        )
    if state.get("next"):  # a step still to run: the run goes on (or was stopped)
        raise FactcourtError(
            f"thread {thread}'s run has not finished (it is still running, or was stopped): "
            "it has no result to show yet"
        )
    stored = _stored_run(str(graph_id))
    if stored is None:
        raise FactcourtError(f"thread {thread} holds no finished run of a graph whose result a page shows")
    values = TypeAdapter(stored.state).validate_python(dict(state.get("values") or {}))  # type: ignore[arg-type]
    result = stored.result(values, stored.context.make({}))
    if "settings" in type(result).model_fields:
        # the settings the run names in its checkpoint (serving/served.py); a run stored before they were
        # kept names none, rather than the defaults it may not have run with
        saved = (state.get("metadata") or {}).get(RESULT_SETTINGS)
        shown = type(result.settings)  # type: ignore[attr-defined]  # only results naming settings
        result = result.model_copy(
            update={"settings": shown.model_validate_json(saved) if saved else shown()}
        )
    return result


_REPR = re.compile(r"(\w+)\((.*)\)", re.S)


def _stored_error(error: Any) -> str:
    """A task's error as a LangGraph server stores it, one line: ``Name: message``.

    The server keeps ``{"error": name, "message": ...}``, or the exception's repr
    (``ConfigError('TAVILY_API_KEY is not set')``).
    """
    if isinstance(error, dict):
        error = f"{error.get('error', 'error')}: {error.get('message', '')}".rstrip(": ")
    elif (found := _REPR.fullmatch(str(error).strip())) is not None:
        try:
            message = ast.literal_eval(found.group(2))
        except (ValueError, SyntaxError):
            message = None
        if isinstance(message, str):
            error = f"{found.group(1)}: {message}"
    return first_line(error, "an error")


__all__ = [
    "checked",
    "clear_cache",
    "context_with_given",
    "LANGUAGE_NOT_COVERED",
    "leave_servers",
    "models_by_role",
    "preflight",
    "ProgressHook",
    "run_graph",
    "read_threads_with",
    "run_resumably",
    "stop_servers",
    "stop_servers_on_exit",
    "StoredRun",
    "stored_result",
    "uncovered_language",
    "use_store",
]
