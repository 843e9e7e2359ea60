"""The graphs a deployed LangGraph server serves (``langgraph.json``): a trust boundary.

A run posted to the server comes from a client, not from the deployer. So on a served graph:

- endpoints and files come from the deployer, never from a run: ``base_url``,
  ``embedding_base_url``, ``local_weights`` and ``corpus`` (also inside ``model_settings``)
  are refused in a run's or an assistant's context, and a model name that names a path on the
  server is refused. The deployer sets them in the server's environment (``OPENAI_BASE_URL``,
  the keys) and in a JSON file of settings named by ``FACTCOURT_SERVER_SETTINGS``, applied to
  every run. So a key goes only to OpenAI or to an endpoint the deployer chose, and a client's
  error texts name such an endpoint ("the server's model endpoint"), never its address;
- when the deployer names a ``model`` (``factcourt ui --model`` does), the models are the
  deployer's too: a run that names another (in any setting of :func:`model_name_fields`) is refused;
- a run's context is checked as the command line checks ``--set``: an unknown key, another
  graph's setting, a bad type or range is refused in one sentence;
- a run's input is checked as the API checks it (types, empty or too long texts, unknown fields).

Each graph is a factory (LangGraph calls it for every run with the run's context, before the
server drops keys its schema does not list) returning the graph of ``factcourt.graphs`` as a
:class:`ServedGraph`. A refusal is a ConfigError, a ValueError, whose sentence the server shows.
The command line and the API do not come through here: a user's own ``--base-url`` stays theirs.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from langgraph.graph.state import CompiledStateGraph
from pydantic import TypeAdapter, ValidationError

from factcourt.api import RESULT_SETTINGS
from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError, InputError
from factcourt.inputs import first_complaint, strip_controls, undecodable
from factcourt.redact import hide_endpoint
from factcourt.runs import run_config
from factcourt.systems import SYSTEMS, System, named

if TYPE_CHECKING:
    from langgraph_sdk.runtime import ServerRuntime

C = TypeVar("C", bound=BaseContext)
SETTINGS_VARIABLE = "FACTCOURT_SERVER_SETTINGS"
# what only the deployer sets: where requests go (and so where keys go) and what files are read
SERVER_ONLY = ("base_url", "embedding_base_url", "local_weights", "corpus")
# the checkpoint metadata key of the settings a run's result names (see ``result_settings``)


def deployer_settings() -> dict[str, Any]:
    """The settings of ``FACTCOURT_SERVER_SETTINGS`` (a JSON object file), or none."""
    path = os.environ.get(SETTINGS_VARIABLE)
    if not path:
        return {}
    try:
        values = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{SETTINGS_VARIABLE}={path}: cannot read a JSON object ({exc})") from None
    if not isinstance(values, dict):
        raise ConfigError(f"{SETTINGS_VARIABLE}={path}: not a JSON object")
    known = {f.name for system in SYSTEMS for f in fields(system.context)}
    if unknown := sorted(set(values) - known):
        raise ConfigError(f"{SETTINGS_VARIABLE}={path}: unknown setting(s) {unknown}")
    return values


def hide_deployer_endpoints(settings: dict[str, Any]) -> None:
    """Name the deployer's endpoints in every text a client gets, rather than show where they are."""
    entries = settings.get("model_settings")
    entries = entries.values() if isinstance(entries, dict) else ()
    own = [entry.get("base_url") for entry in entries if isinstance(entry, dict)]
    for url in (os.environ.get("OPENAI_BASE_URL"), settings.get("base_url"), *own):
        hide_endpoint(url if isinstance(url, str) else None, "the server's model endpoint")
    embedding = settings.get("embedding_base_url")
    hide_endpoint(embedding if isinstance(embedding, str) else None, "the server's embedding endpoint")


def model_name_fields() -> list[str]:
    """The settings whose values are model names, in any system's context: ``describe(names_models=True)``.

    A name in one must not name a file or folder of the server.
    """
    return list(
        dict.fromkeys(f.name for s in SYSTEMS for f in fields(s.context) if f.metadata.get("names_models"))
    )


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, str)]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _names_a_path(name: str) -> bool:
    # a trained moderator is found by its folder, or by its name under the trained models' folder
    # (where "mine/../../x" climbs out): a client may not point the server at one. Told by the
    # name's form alone: whether a file of that name exists must not change the answer
    return name.startswith(("/", "~", ".")) or "\\" in name or ".." in Path(name).parts


def _chosen_models(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Each model a context names, as (setting, name): its own and those of its models' settings."""
    settings = values.get("model_settings")
    keys = model_name_fields()
    chosen = [(key, name) for key in keys for name in _names(values.get(key))]
    for entry, own in (settings if isinstance(settings, dict) else {}).items():
        chosen += [
            (f"model_settings[{entry!r}].{key}", name)
            for key in keys
            for name in _names(own.get(key) if isinstance(own, dict) else None)
        ]
    return chosen


def client_problem(values: dict[str, Any]) -> str | None:
    """Why a run's (or an assistant's) context may not be taken on a served graph, or None."""
    for key, value in values.items():
        if problem := undecodable(value):  # JSON's "\udcff": no cache key or prompt takes it
            return f"{key}: {problem}"
    for key in SERVER_ONLY:
        if values.get(key) not in (None, ""):
            return (
                f"{key} is set by the server's deployer ({SETTINGS_VARIABLE} or the environment), "
                "not by a run"
            )
    settings = values.get("model_settings")
    named = _chosen_models(values)
    for entry, own in (settings if isinstance(settings, dict) else {}).items():
        # an entry is a model's own settings over the run's: a nested one would hide another
        if taken := sorted(set(own if isinstance(own, dict) else {}) & {*SERVER_ONLY, "model_settings"}):
            return (
                f"model_settings[{entry!r}]: {', '.join(taken)} is set by the server's deployer, not by a run"
            )
        named.append(("model_settings", entry))
    for key, name in named:
        if _names_a_path(name):
            return f"{key}={name!r}: a model on this server is named, not given by a path"
    return None


def served_context(kind: type[C], values: Any) -> C:
    """The context of a served run: the deployer's settings, then the run's, checked as ``--set``."""
    if values is None:
        values = {}
    if isinstance(values, BaseContext):  # built here already (an API caller of the served graph)
        return kind.make(values)
    if not isinstance(values, dict):
        raise ConfigError(f"the context must be a JSON object, not {type(values).__name__}")
    if problem := client_problem(values):
        raise ConfigError(problem)
    own = {f.name for f in fields(kind)}
    settings = deployer_settings()
    hide_deployer_endpoints(settings)
    deployer = {k: v for k, v in settings.items() if k in own}
    if "model" in deployer and (
        chosen := [key for key, name in _chosen_models(values) if name != deployer["model"]]
    ):
        # the deployer's model is what every run uses (`factcourt ui --model`): another would
        # spend the server's key on a model the deployer did not choose, or start a local one
        raise ConfigError(f"{chosen[0]}: this server's deployer chose the model every run uses")
    merged = {**deployer, **values}
    if isinstance(deployer.get("model_settings"), dict) and isinstance(values.get("model_settings"), dict):
        merged["model_settings"] = {
            name: {**deployer["model_settings"].get(name, {}), **values["model_settings"].get(name, {})}
            for name in {*deployer["model_settings"], *values["model_settings"]}
        }
    return kind.make(merged)


def _typed(schema: Any, payload: dict[str, Any]) -> None:
    allowed = set(schema.__annotations__)
    if unknown := sorted(set(payload) - allowed):
        raise InputError(f"unknown input field(s) {unknown}; this graph takes {sorted(allowed)}")
    try:
        _adapter(schema).validate_python(payload)
    except ValidationError as exc:
        raise InputError(f"input {first_complaint(exc)}") from None


@cache
def _adapter(schema: Any) -> TypeAdapter[Any]:
    return TypeAdapter(schema)


def without_controls(payload: Any) -> Any:
    """A run's input with terminal escapes and control characters taken out of its texts.

    As the command line and the API take them out: such a sequence never becomes a claim.
    """
    if not isinstance(payload, dict):
        return payload
    clean = {k: strip_controls(v) if isinstance(v, str) else v for k, v in payload.items()}
    if isinstance(claim := clean.get("claim"), dict) and isinstance(claim.get("text"), str):
        clean["claim"] = {**claim, "text": strip_controls(claim["text"])}
    return clean


def check_input(graph: str, payload: Any) -> None:
    """Refuse a served run's input as the API would refuse it (None, a resume, passes)."""
    if payload is None:
        return
    if not isinstance(payload, dict):
        if type(payload).__name__ == "Command":
            return
        raise InputError(f"the input must be a JSON object, not {type(payload).__name__}")
    for key, value in payload.items():
        if problem := undecodable(value):  # JSON's "\udcff": no cache key or prompt takes it
            raise InputError(f"input {key}: {problem}")
    system = named(graph)
    _typed(system.input, payload)
    if system.input_problem and (problem := system.input_problem(payload)):
        raise InputError(problem)


def result_settings(graph: str, context: BaseContext) -> dict[str, str]:
    """The settings a run's result names, as its checkpoints' metadata keeps them (JSON text).

    The server keeps no run's context with its thread, so a stored run's page named the defaults.
    Only what the result shows: the context holds the deployer's endpoints. LangGraph copies a
    config's string metadata into each checkpoint's, which the thread's state returns.
    """
    system = named(graph)
    if system.stored is None or system.result is None or "settings" not in system.result.model_fields:
        return {}
    return {RESULT_SETTINGS: system.stored({}, context).settings.model_dump_json()}  # type: ignore[attr-defined]


class ServedGraph(CompiledStateGraph[Any, Any, Any, Any]):
    """A graph of ``factcourt.graphs`` as the server runs it: its input and context checked first.

    Studio's form leaves out what only the deployer sets.
    """

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The context's JSON schema without the deployer's fields."""
        schema = super().get_context_jsonschema()
        if schema and isinstance(schema.get("properties"), dict):
            schema = {
                **schema,
                "properties": {k: v for k, v in schema["properties"].items() if k not in SERVER_ONLY},
            }
        return schema

    async def astream(
        self,
        input: Any,  # noqa: A002  (Pregel's name)
        config: Any = None,
        *,
        context: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Check the input and build the context (deployer's settings under the run's), then run."""
        input = without_controls(input)  # noqa: A001
        check_input(self.name, input)
        if self.context_schema is not None:
            context = served_context(self.context_schema, context)
            if not (config or {}).get("max_concurrency"):
                # the run's bound on claims at a time, as the API sets it: the server sets none, so
                # every claim ran at once (the embedded model's one slot queued them all). In a thread:
                # resolving the model reads the cache folder, a blocking call the server refuses
                bound = (await asyncio.to_thread(run_config, context))["max_concurrency"]
                config = {**(config or {}), "max_concurrency": bound}
            config = {
                **(config or {}),
                "metadata": {**(config or {}).get("metadata", {}), **result_settings(self.name, context)},
            }
        async for part in super().astream(input, config, context=context, **kwargs):
            yield part


def served(graph: CompiledStateGraph[Any, Any, Any, Any]) -> ServedGraph:
    """``graph`` as a :class:`ServedGraph` (the same nodes, channels and settings)."""
    attrs = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    return ServedGraph(**attrs)


def graph_factory(name: str) -> Callable[..., ServedGraph]:
    """The server's factory of graph ``name`` (its registry entry's), as ``langgraph.json`` names it.

    A system outside the package defines its own (``echo = graph_factory("echo")``) in its module
    and names that module in ``langgraph.json``.
    """
    system: System = named(name)
    graph = cache(lambda: served(system.compiled()))

    def factory(runtime: ServerRuntime[Any]) -> ServedGraph:
        # called for every run with the run's whole context, before the server drops the keys
        # its schema does not list (which would pass a forbidden or misspelt key in silence)
        if getattr(runtime, "access_context", None) == "threads.create_run":
            served_context(system.context, getattr(runtime, "context", None))
        return graph()

    return factory


# each system's factory under its graph's name, as langgraph.json names it (``served.py:factcheck``)
factcheck = graph_factory("factcheck")
verify = graph_factory("verify")
hallucination = graph_factory("hallucination")
pyramid = graph_factory("pyramid")
longqa = graph_factory("longqa")
audit = graph_factory("audit")
