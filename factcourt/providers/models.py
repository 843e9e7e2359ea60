"""Chat models: every role goes through ``ChatOpenAI`` (or a registered test double).

A run resolves each role's model once: :func:`models` is the context's table, role ->
:class:`ModelChoice`, kept with it (made when the run starts, in ``run_config``, or at a role's
first read), and everything downstream reads it. :func:`choose` resolves one role of a model name
(``BaseContext.role_models`` overrides ``BaseContext.model``), for that table only:
- a name registered with :func:`register_model` (scripted fakes in tests);
- ``sim`` or ``sim:LATENCY``: the simulated model used by load tests and server demos;
- otherwise ``ChatOpenAI``: against ``base_url`` (or ``OPENAI_BASE_URL``) when given, against
  OpenAI when ``OPENAI_API_KEY`` is set, else against the embedded llama.cpp server.

:func:`ask` is the one way nodes call a model: structured output with the method the endpoint
supports, retries of answers that do not parse, the SQLite cache, and usage per role taken from
what the server reports (never estimated with tiktoken, which needs the network).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
import math
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from openai import LengthFinishReasonError
from pydantic import BaseModel, SecretStr, ValidationError

from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError
from factcourt.providers.cache import cache_key, store
from factcourt.redact import redact
from factcourt.state.records import Usage

T = TypeVar("T", bound=BaseModel)
Built = TypeVar("Built")

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
# Roles whose long-form answers the embedded server decodes under the schema's grammar (strings
# held to their bounds) and that decide no verdict: a target's answer, IMPD-MACD's report, whose
# json_schema replies ran past max_tokens and were asked again (1.5 calls and 610 tokens an item)
GRAMMAR_ROLES = ("answer", "refiner")

_registered: dict[str, BaseChatModel] = {}
# per event loop (weakly: a finished asyncio.run frees its clients), then per settings
_built: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[object, ...], Any]] = (
    weakref.WeakKeyDictionary()
)
_built_lock = threading.Lock()


def register_model(name: str, model: BaseChatModel | None) -> None:
    """Make ``model`` selectable by ``name`` in the context (None unregisters it)."""
    if model is None:
        _registered.pop(name, None)
    else:
        _registered[name] = model


@dataclass(frozen=True)
class ModelChoice:
    """What a role will use, for ``factcourt models`` and for cache keys."""

    role: str
    name: str
    endpoint: str  # "openai", a base URL, "embedded", "simulated" or "registered"
    method: str
    weights: str = ""
    local_model: str = ""  # the shipped local model (LOCAL_MODELS) whose weights are fetched on first use
    adapter: str = ""  # a trained moderator's LoRA GGUF, served on ``weights``


# the endpoints that give an answer's token log-probabilities when asked
LOGPROB_ENDPOINTS = ("openai", "embedded")


def gives_logprobs(ctx: BaseContext, role: str) -> bool:
    """Whether ``role``'s answers come with their tokens' log-probabilities.

    Not through function calling: OpenAI gives none for a tool call's arguments.
    """
    choice = models(ctx)[role]
    return ctx.logprobs and choice.endpoint in LOGPROB_ENDPOINTS and choice.method != "function_calling"


def choose(ctx: BaseContext, role: str) -> ModelChoice:
    """Resolve the model of ``role`` without starting anything."""
    name = ctx.model_of(role)
    if name in _registered:
        return ModelChoice(role, name, "registered", _method(ctx, "function_calling"))
    if name == "sim" or name.startswith("sim:"):
        sim_latency(name)  # a bad latency is bad input now, not a crash at the first call
        return ModelChoice(role, name, "simulated", "function_calling")
    named_local = name.startswith("local:")  # a shipped local model by name: embedded whatever the keys
    if name not in ("auto", "local") and not named_local:
        from factcourt.providers.trained import find_trained

        trained = find_trained(name)
        if trained is not None:  # Debate-SFT's moderator: its adapter on its base, embedded
            weights = str(trained.base_gguf)
            return ModelChoice(
                role,
                trained.name,
                "embedded",
                _method(ctx, "json_schema"),
                weights,
                adapter=str(trained.adapter),
            )
    base_url = ctx.base_url or os.environ.get("OPENAI_BASE_URL")
    if base_url and not named_local:
        return ModelChoice(
            role, name if name != "auto" else DEFAULT_OPENAI_MODEL, base_url, _method(ctx, "function_calling")
        )
    if name != "local" and not named_local and os.environ.get("OPENAI_API_KEY"):
        return ModelChoice(
            role, name if name != "auto" else DEFAULT_OPENAI_MODEL, "openai", _method(ctx, "json_schema")
        )
    if name not in ("auto", "local") and not named_local:
        raise ConfigError(
            f"model {name!r} needs OPENAI_API_KEY (OpenAI) or a base_url (any compatible server)"
        )
    from factcourt.providers.weights import LOCAL_MODELS, local_spec, weights_path

    spec = local_spec(name if named_local else "local")
    if ctx.local_weights and not named_local:
        weights, shipped = ctx.local_weights, ""
    else:
        weights, shipped = str(weights_path(spec)), next(k for k, v in LOCAL_MODELS.items() if v == spec)
    return ModelChoice(
        role,
        Path(weights).stem,
        "embedded",
        # a long-form answer under json_schema can run to max_tokens (the string bound is not
        # enforced); the grammar bounds it. Verdicts keep json_schema: under the grammar the
        # verifier lost 5 of 55 HaluEval items and won none.
        _method(ctx, "grammar" if role in GRAMMAR_ROLES else "json_schema"),
        weights=weights,
        local_model=shipped,
    )


def sim_latency(name: str) -> float:
    """The seconds per call of ``sim:LATENCY`` (0 for ``sim``); anything but a number from 0 is bad input."""
    said = name.partition(":")[2]
    try:
        latency = float(said or 0)
    except ValueError:
        latency = math.nan
    if not 0 <= latency < math.inf:
        raise ConfigError(
            f"model {name!r}: sim:LATENCY takes seconds per call, a number from 0 (e.g. sim:0.2)"
        )
    return latency


# resolving a role and keeping what it gave is one step: ask()'s threads read a table at once
_resolving = threading.Lock()


class Models:
    """One context's table, role -> :class:`ModelChoice`: each role resolved once, then read.

    Kept with the context (:func:`models`), so a run's models never change under it: an
    environment variable set or a moderator trained mid-run changes nothing in it, and the next
    run, with a context of its own, resolves anew. A role that does not resolve (a missing key, a bad
    ``sim:`` latency) gives the same one-sentence ConfigError at each read.
    """

    def __init__(self, ctx: BaseContext) -> None:
        self._ctx = ctx
        self._resolved: dict[str, ModelChoice | ConfigError] = {}

    def __getitem__(self, role: str) -> ModelChoice:
        """The model a call of ``role`` with this context uses."""
        with _resolving:
            if role not in self._resolved:
                try:
                    self._resolved[role] = choose(self._ctx, role)  # the one place a run resolves
                except ConfigError as exc:
                    self._resolved[role] = exc
            resolved = self._resolved[role]
        if isinstance(resolved, ConfigError):
            raise resolved.with_traceback(None)
        return resolved

    def reached(self, role: str) -> ModelChoice:
        """The model of ``role`` as the run reaches it (its checkpoint key, its preflight).

        One with settings of its own (``model_settings``: an audit target's endpoint) with them,
        from the table of the context made for it.
        """
        name = self._ctx.model_of(role)
        return models(self._ctx.for_model(name))[role] if name in self._ctx.model_settings else self[role]


def models(ctx: BaseContext) -> Models:
    """The table of ``ctx``'s models: made at the first call, then kept with the context."""
    return ctx.kept(Models, lambda: Models(ctx))


Context = TypeVar("Context", bound=BaseContext)


def reading_models(ctx: Context, of: BaseContext) -> Context:
    """``ctx``, made from ``of`` with no model setting changed (an agent's temperature): ``of``'s models."""
    ctx.kept(Models, lambda: models(of))
    return ctx


def _method(ctx: BaseContext, endpoint_default: str) -> str:
    return endpoint_default if ctx.structured_output == "auto" else ctx.structured_output


def chat_model(
    ctx: BaseContext,
    choice: ModelChoice,
    loop: asyncio.AbstractEventLoop,
    url: str | None = None,
    *,
    fresh: bool = False,
) -> BaseChatModel:
    """Return the chat model for a resolved choice, built once per event loop, settings and endpoint.

    ChatOpenAI's async HTTP client belongs to the event loop it was first used in, so each
    ``asyncio.run`` (two ``factcourt.check`` calls in one script) gets its own instance.
    ``fresh``: the embedded server evaluates the whole prompt, none of it from its prompt cache.
    """
    if choice.endpoint == "registered":
        return _registered[choice.name]
    url = url or endpoint_url(ctx, choice)
    fresh = fresh and choice.endpoint == "embedded"
    return _once_per_loop(
        loop, (*_settings(ctx, choice), url, fresh), lambda: _build(ctx, choice, url, fresh=fresh)
    )


def structured_model(
    ctx: BaseContext,
    choice: ModelChoice,
    loop: asyncio.AbstractEventLoop,
    schema: type[BaseModel],
    *,
    fresh: bool = False,
) -> Any:
    """Return the chat model of ``choice`` bound to answer ``schema`` (with the raw message).

    Binding converts the schema to a tool each time (an eighth of the framework's own time per
    call on the simulated model, by cProfile), so the bound runnable is kept beside its model.
    """
    if choice.endpoint == "registered":  # a test may register another model under the same name
        return chat_model(ctx, choice, loop).with_structured_output(
            schema, method=choice.method, include_raw=True
        )
    url = endpoint_url(ctx, choice)
    model = chat_model(ctx, choice, loop, url, fresh=fresh)
    if choice.method == "grammar":
        bind = functools.partial(grammar_bound, model, schema)
    else:
        bind = functools.partial(model.with_structured_output, schema, method=choice.method, include_raw=True)
    return _once_per_loop(loop, (*_settings(ctx, choice), url, schema, fresh), bind)


# room for the indented layout the models were trained on (a compact one cost the 1.5B the README
# example), never for a loop of newlines
WHITESPACE = r"[\x20\x0A]{1,12}"


def llguidance_grammar(schema: type[BaseModel]) -> str:
    """The llama.cpp server's LLGuidance grammar of ``schema``: strict JSON, bounds enforced.

    Through ``response_format`` this server leaves ``maxLength`` unenforced and lets the model
    open with a code fence and pad with whitespace: SmolLM2 asked for a 2,400-character answer
    wrote 8,252 characters until ``max_tokens``, and with unbounded whitespace it looped on
    newlines and invented keys. Bounded whitespace and no extra keys end the answer where the
    schema does.
    """
    from xllamacpp import json_schema_to_grammar

    spec = closed(schema.model_json_schema())
    spec["x-guidance"] = {"whitespace_pattern": WHITESPACE}
    return cast(str, json_schema_to_grammar(json.dumps(spec)))


def closed(spec: Any) -> Any:
    """A JSON schema in which no object takes a key it does not list."""
    if isinstance(spec, list):
        return [closed(item) for item in spec]
    if not isinstance(spec, dict):
        return spec
    spec = {key: closed(value) for key, value in spec.items()}
    if spec.get("type") == "object" and "properties" in spec:
        spec.setdefault("additionalProperties", False)
    return spec


def grammar_bound(model: BaseChatModel, schema: type[BaseModel]) -> Any:
    """``model`` under the schema's grammar, its reply read as with_structured_output's is."""
    from langchain_core.runnables import RunnableLambda

    def read(raw: Any) -> dict[str, Any]:
        try:
            return {"raw": raw, "parsed": schema.model_validate_json(raw.content), "parsing_error": None}
        except ValidationError as exc:  # cut at max_tokens: asked again with the complaint
            return {"raw": raw, "parsed": None, "parsing_error": exc}

    return model.bind(extra_body={"grammar": llguidance_grammar(schema)}) | RunnableLambda(read)


def endpoint_url(ctx: BaseContext, choice: ModelChoice) -> str:
    """Where the choice's requests go; for the embedded model, the address of its server now.

    The embedded server is joined or started here, on every call: a run that moves between
    local models (a leaderboard) leaves one server for the next, and a model used again later
    gets a new server on a new port, which a client built for the old one would miss.
    """
    if choice.endpoint != "embedded":
        return choice.endpoint
    from factcourt.providers.local_server import shared_server
    from factcourt.providers.weights import LOCAL_MODELS, ensure_weights

    weights = ensure_weights(LOCAL_MODELS[choice.local_model]) if choice.local_model else _own_weights(choice)
    return shared_server(
        weights,
        threads=ctx.local_threads,
        slots=ctx.local_slots,
        keep_alive=ctx.local_keep_alive,
        wait_s=ctx.local_wait_s,
        adapter=Path(choice.adapter) if choice.adapter else None,
    ).base_url


def _own_weights(choice: ModelChoice) -> Path:
    """The GGUF file of ``local_weights``, or a ConfigError when there is none."""
    if not Path(choice.weights).is_file():
        raise ConfigError(f"local_weights: no such GGUF file: {choice.weights}")
    return Path(choice.weights)


def model_identity(choice: ModelChoice) -> str:
    """Who answers, for the cache key: the endpoint, or for the embedded model its weights file.

    A shipped model's file is pinned by sha256 and verified when fetched, so its name says which
    it is (and its keys stay as they were); a ``local_weights`` file is named by its resolved
    path, size and mtime, so another file of that name or one replaced in place is asked anew.
    """
    if choice.endpoint != "embedded":
        return choice.endpoint
    if choice.local_model:
        return ""
    from factcourt.providers.server_registry import server_key

    if choice.adapter:  # the base and the trained adapter on it, each by path, size and mtime
        return f"{server_key(_own_weights(choice))}+{server_key(Path(choice.adapter))}"
    return server_key(_own_weights(choice))


def _settings(ctx: BaseContext, choice: ModelChoice) -> tuple[ModelChoice, float, int, float, int, bool]:
    return (choice, ctx.temperature, ctx.max_tokens, ctx.timeout_s, ctx.retries, ctx.logprobs)


# OpenAI returns at most 20 alternatives per token; 10 cover the verdict labels' first tokens
TOP_LOGPROBS = 10


def _once_per_loop(
    loop: asyncio.AbstractEventLoop, key: tuple[object, ...], build: Callable[[], Built]
) -> Built:
    with _built_lock:
        built = _built.setdefault(loop, {})
        if key not in built:
            built[key] = build()
        return cast(Built, built[key])  # what a key holds was made by that key's build()


# llama.cpp's own account of a call (``timings``: prompt tokens evaluated and from its cache, the
# milliseconds of each phase); the chat client drops it, so a response hook keeps it for ask()
_TIMINGS: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "timings", default=None
)


@contextlib.contextmanager
def server_timings() -> Iterator[list[dict[str, Any]]]:
    """Collect the ``timings`` of the chat completions made inside (in this task)."""
    kept: list[dict[str, Any]] = []
    token = _TIMINGS.set(kept)
    try:
        yield kept
    finally:
        _TIMINGS.reset(token)


async def _keep_timings(response: Any) -> None:
    kept = _TIMINGS.get()
    if kept is None or not response.request.url.path.endswith("/chat/completions"):
        return
    await response.aread()
    with contextlib.suppress(ValueError):
        if isinstance(body := response.json(), dict) and isinstance(body.get("timings"), dict):
            kept.append(body["timings"])


def _build(ctx: BaseContext, choice: ModelChoice, url: str, *, fresh: bool = False) -> BaseChatModel:
    if choice.endpoint == "simulated":
        from factcourt.providers.simulated import SimulatedChatModel

        return SimulatedChatModel(latency_s=sim_latency(choice.name))
    import httpx
    from langchain_openai import ChatOpenAI

    common: dict[str, Any] = {
        # langchain-openai shares one async HTTP client per process by default, bound to the
        # first event loop; each of our instances belongs to one loop, so it gets its own
        "http_async_client": httpx.AsyncClient(
            timeout=ctx.timeout_s, event_hooks={"response": [_keep_timings]}
        ),
        "temperature": ctx.temperature,
        "timeout": ctx.timeout_s,
        "max_retries": 0,  # ask() retries, and does not retry a time-out
        # no keep-alive socket options: langchain-openai applies them through a transport of
        # its own, which ignores HTTP(S)_PROXY and warns on every run where one is set
        "http_socket_options": (),
    }
    if ctx.logprobs and choice.endpoint in LOGPROB_ENDPOINTS:
        common |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
    if choice.endpoint == "openai":
        return ChatOpenAI(model=choice.name, max_completion_tokens=ctx.max_tokens, **common)
    # llama.cpp and several compatible servers ignore max_completion_tokens
    return ChatOpenAI(
        model=choice.name,
        base_url=url,
        api_key=SecretStr(
            "local" if choice.endpoint == "embedded" else os.environ.get("OPENAI_API_KEY", "none")
        ),
        # llama.cpp evaluates a prompt it partly holds from the cached point on, in other batches
        # than a cold one, and a fully held one from its last token alone: the logits move by a
        # few hundredths, enough to flip a near-tie. A fresh prompt gives the same ones every time.
        extra_body={"max_tokens": ctx.max_tokens} | ({"cache_prompt": False} if fresh else {}),
        **common,
    )


@dataclass
class Answer(Generic[T]):
    """A structured (or free-text) answer, or why there is none, with the usage it cost.

    A free-text answer (``schema`` None) keeps the model's words in ``text`` and what the
    caller's ``parse`` read from them in ``value``.

    ``logprobs`` holds the answer's tokens as the server returned them (``token``,
    ``logprob``, ``top_logprobs``), when the endpoint gives them.
    """

    value: T | None
    usage: Usage
    error: str | None = None
    cached: bool = False
    logprobs: list[dict[str, Any]] | None = None
    text: str | None = None
    cut: bool = False  # the last try stopped at max_tokens: a smaller question may fit


async def ask(
    ctx: BaseContext,
    role: str,
    schema: type[T] | None,
    messages: Sequence[BaseMessage],
    *,
    run_name: str,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    parse: Callable[[str], Any] | None = None,
    sample: int | list[int] = 0,
    fresh: bool = False,
    retry_cut: bool = True,
) -> Answer[T]:
    """Ask the model of ``role`` for a ``schema`` answer, or for free text when ``schema`` is None.

    Free text is read by ``parse`` (text -> value; a ValueError says why it does not parse), or
    taken as it is when there is no ``parse``; an empty reply never counts as an answer.
    ``sample`` tells apart answers sampled several times from one prompt (votes at a
    temperature above 0, or another run of an audit), which would otherwise share one cache entry.
    ``fresh`` asks the embedded server to evaluate the whole prompt, none of it from its prompt
    cache, so that the answer's logprobs do not depend on what was asked before.
    ``retry_cut`` False returns an answer cut at max_tokens at once (``cut`` set), for a caller
    that asks a smaller question instead of the same one again.

    A refused connection, a server error or a reply that is no chat completion is retried with
    backoff, and an answer that does not parse is asked again with the parser's complaint, up to
    ``ctx.retries`` times in all. A time-out is not retried: a model that did not answer in
    ``timeout_s`` rarely does on the next try, and a busy local server only gets busier. A
    failure is returned as one sentence, not raised, so one bad item never stops a batch.
    """
    # Resolving the model may start the embedded server, and the cache is SQLite: both block,
    # so they run in a thread and the event loop (the LangGraph server's) stays free.
    choice, key, cache, hit, runnable = await asyncio.to_thread(
        _prepare, ctx, role, schema, messages, asyncio.get_running_loop(), sample, fresh
    )
    if hit is not None:
        if schema is None:
            said = hit["answer"]
            return Answer(_read(said, parse), Usage(), cached=True, logprobs=hit["logprobs"], text=said)
        return Answer(schema.model_validate(hit["answer"]), Usage(), cached=True, logprobs=hit["logprobs"])
    config = {"run_name": run_name, "tags": tags or [], "metadata": metadata or {}}
    usage, error, prompt = Usage(), None, list(messages)
    for attempt in range(ctx.retries + 1):
        started, timings, cut, bound = time.perf_counter(), [], False, None
        try:
            async with _turn(ctx, choice):
                # the clock starts at the turn: waiting for another call's turn is not this call's
                started = time.perf_counter()
                # timeout_s bounds the whole call, whatever answers it: the client's own time-out
                # is per read (a server that trickles never ends), the simulated model has none
                async with (bound := asyncio.timeout(ctx.timeout_s)):
                    with server_timings() as timings:
                        out = await runnable.ainvoke(prompt, config=config)
            if schema is None:
                out = _free_text(out, parse)
        except (ValidationError, LengthFinishReasonError) as exc:
            # json_schema answers are parsed inside the client, which raises instead of
            # returning the parsing error: the same complaint-and-retry applies
            out = {"raw": None, "parsed": None, "parsing_error": _short(exc)}
            out["cut"] = isinstance(exc, LengthFinishReasonError)
            # a cut answer still cost its tokens; the client keeps the completion on the error
            out["spent"] = getattr(getattr(exc, "completion", None), "usage", None)
        except Exception as exc:  # noqa: BLE001  report, don't crash
            timed_out = isinstance(exc, openai.APITimeoutError) or bool(bound and bound.expired())
            error = failure_reason(exc, ctx, choice, timed_out=timed_out)
            # a request that got no answer is a call all the same (the endpoint may bill it)
            usage += Usage.model_call(role, 0, 0, ms=round((time.perf_counter() - started) * 1000), failed=1)
            if timed_out or not _transient(exc):
                break
            await asyncio.sleep(min(0.5 * 2**attempt, 8.0))
            continue
        usage += _usage_of(role, out.get("raw"), out.get("spent"), time.perf_counter() - started, timings)
        if out.get("parsed") is not None:
            logprobs = _logprobs_of(out.get("raw"))
            said = out.get("text")
            if cache is not None:
                answer = said if schema is None else out["parsed"].model_dump(mode="json")
                await asyncio.to_thread(cache.put, key, {"answer": answer, "logprobs": logprobs})
            return Answer(out["parsed"], usage, logprobs=logprobs, text=said)
        # counted: grammar-constrained output should always validate, so this must stay rare
        usage += Usage(unparsable=1)
        complaint = out.get("parsing_error")
        # the parser's exception can print as "None": its type then says what went wrong
        said = _short(complaint) if isinstance(complaint, Exception) else complaint
        error = f"unparsable answer: {said or _no_answer(out.get('raw'))}"[:500]
        if (cut := _was_cut(out)) and not retry_cut:
            break
        prompt = [
            *messages,
            HumanMessage(
                f"Your last answer could not be parsed ({error[:200]}). Answer again, following "
                + (f"the {schema.__name__} schema exactly." if schema else "the format asked for exactly.")
            ),
        ]
    if choice.endpoint == "embedded" and error:
        from factcourt.providers.local_server import death_note

        error += death_note(Path(choice.weights))
    return Answer(None, usage, redact(error), cut=cut)


def failure_reason(exc: Exception, ctx: BaseContext, choice: ModelChoice, *, timed_out: bool = False) -> str:
    """One sentence for a failed model call that names the endpoint, not the client's internals.

    ``timed_out``: the call ran past ``timeout_s`` (the client's time-out, or ask()'s bound on it).
    Known keys are redacted: an endpoint may echo the one it was sent.
    """
    return cast(str, redact(_failure_reason(exc, ctx, choice, timed_out)))


def _failure_reason(exc: Exception, ctx: BaseContext, choice: ModelChoice, timed_out: bool) -> str:
    where = {"embedded": "the embedded model server", "openai": "OpenAI"}.get(
        choice.endpoint, choice.endpoint
    )
    if timed_out:
        return f"{where} did not answer within timeout_s={ctx.timeout_s:g} s"
    if isinstance(exc, openai.APIConnectionError):
        root: BaseException = exc
        while root.__cause__ is not None:  # the socket's own words, under the clients' wrappers
            root = root.__cause__
        return f"cannot connect to {where} ({root})"
    if isinstance(exc, openai.APIStatusError):
        if (over := _over_the_window(exc)) is not None:
            prompt_tokens, window = over
            return (
                f"{where} refused a prompt of {prompt_tokens} tokens: its context window holds "
                f"{window} (send less text, or fewer or shorter evidence passages)"
            )
        said = exc.message.removeprefix(f"Error code: {exc.status_code} - ")
        return f"{where} answered HTTP {exc.status_code} ({said})"[:400]
    if _malformed_reply(exc):
        # the client's own words ("list index out of range", three sentences of a TypeError)
        # speak of its internals, not of the reply
        return f"{where} sent a reply that is not a chat completion"
    return f"{type(exc).__name__}: {exc}"[:400]


def _over_the_window(exc: openai.APIStatusError) -> tuple[int | str, int | str] | None:
    """The prompt's tokens and the window, when llama.cpp refused a prompt over its context size."""
    body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    if not isinstance(body, dict) or body.get("type") != "exceed_context_size_error":
        return None
    return body.get("n_prompt_tokens", "too many"), body.get("n_ctx", "fewer")


def _transient(exc: Exception) -> bool:
    """Whether another try may succeed: no connection, a server error, a malformed reply."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError) or _malformed_reply(exc)


def _malformed_reply(exc: Exception) -> bool:
    """An error the client raised reading a reply that is not a chat completion.

    langchain-openai and langchain-core read ``choices[0]``, ``generations[0][0]`` and friends
    without checking them, so a malformed reply surfaces as a plain IndexError, KeyError,
    TypeError or ValueError raised in their code. The same types raised in our own code are
    bugs: they must not be blamed on the endpoint or retried.

    A 200 reply whose body does not parse as JSON fails inside the ``json`` module, called by
    the HTTP library's ``Response.json()`` on the client's behalf: the frame that counts is
    the innermost one outside those two.
    """
    if not isinstance(exc, (IndexError, KeyError, TypeError, ValueError)):
        return False
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    if isinstance(exc, json.JSONDecodeError):
        readers = ("json", "httpx", "httpx2")
        while frames and any(f"{os.sep}{package}{os.sep}" in frames[-1] for package in readers):
            frames.pop()
    innermost = frames[-1] if frames else ""
    clients = ("langchain_openai", "langchain_core", "openai")
    return any(f"{os.sep}{package}{os.sep}" in innermost for package in clients)


def _no_answer(raw: Any) -> str:
    """Why a reply held no answer: tool-call arguments that are not JSON, or nothing at all."""
    invalid = getattr(raw, "invalid_tool_calls", None)
    if invalid:
        return f"the tool-call arguments are not valid JSON: {str(invalid[0].get('args'))[:120]!r}"
    return "no answer in the reply"


def _prepare(
    ctx: BaseContext,
    role: str,
    schema: type[BaseModel] | None,
    messages: Sequence[BaseMessage],
    loop: asyncio.AbstractEventLoop,
    sample: int | list[int],
    fresh: bool,
):
    choice = models(ctx)[role]
    cache = store("answers") if ctx.cache and choice.endpoint != "registered" else None
    key = hit = None
    if cache is not None:
        key = cache_key(
            "answer+logprobs",
            choice.name,
            model_identity(choice),
            (f"grammar {WHITESPACE}" if choice.method == "grammar" else choice.method) if schema else "text",
            schema.model_json_schema() if schema else None,
            [m.model_dump() for m in messages],
            ctx.temperature,
            ctx.max_tokens,
            ctx.logprobs,
            *([sample] if sample else []),  # keys of single answers stay as they were
        )
        hit = cache.get(key)
    runnable = None
    if hit is None:
        runnable = (
            structured_model(ctx, choice, loop, schema, fresh=fresh)
            if schema
            else chat_model(ctx, choice, loop, fresh=fresh)
        )
    return choice, key, cache, hit, runnable


def _read(text: str, parse: Callable[[str], Any] | None) -> Any:
    if not text.strip():
        raise ValueError("the reply is empty")
    return parse(text) if parse else text


def _free_text(message: Any, parse: Callable[[str], Any] | None) -> dict[str, Any]:
    """A plain chat reply in the shape structured output has: raw, parsed, parsing_error (+ text)."""
    said = message.content if isinstance(message.content, str) else str(message.content)
    try:
        return {"raw": message, "parsed": _read(said, parse), "parsing_error": None, "text": said}
    except ValueError as exc:
        return {"raw": message, "parsed": None, "parsing_error": str(exc), "text": said}


def _turn(ctx: BaseContext, choice: ModelChoice) -> contextlib.AbstractAsyncContextManager[None]:
    """The embedded server's request turn (shared by every process on the machine), else nothing."""
    if choice.endpoint != "embedded":
        return contextlib.nullcontext()
    from factcourt.providers.local_server import request_turn

    return request_turn(ctx.local_slots)


def _usage_of(
    role: str, raw: Any, spent: Any = None, seconds: float = 0.0, timings: Sequence[dict[str, Any]] = ()
) -> Usage:
    """One call's usage: from the reply, or from the client's completion usage when it raised.

    The server's ``timings`` (llama.cpp) say how long it evaluated and generated; the cached
    prompt tokens come from the reply's usage, or from the timings when the reply has none.
    """
    if spent is not None:
        tokens = (spent.prompt_tokens or 0, spent.completion_tokens or 0)
        details = getattr(spent, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", 0) or 0
    else:
        meta = getattr(raw, "usage_metadata", None) or {}
        tokens = (int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
        cached = int((meta.get("input_token_details") or {}).get("cache_read") or 0)
    served = sum(int(t.get("cache_n", 0)) for t in timings)
    return Usage.model_call(
        role,
        *tokens,
        cached_tokens=cached or served,
        ms=round(seconds * 1000),
        prompt_ms=round(sum(float(t.get("prompt_ms", 0)) for t in timings)),
        predicted_ms=round(sum(float(t.get("predicted_ms", 0)) for t in timings)),
    )


def _logprobs_of(raw: Any) -> list[dict[str, Any]] | None:
    content = (getattr(raw, "response_metadata", None) or {}).get("logprobs") or {}
    return content.get("content") if isinstance(content, dict) else None


def _was_cut(out: dict[str, Any]) -> bool:
    """Whether an unparsed answer stopped at max_tokens (json_schema raises; the others say so)."""
    metadata = getattr(out.get("raw"), "response_metadata", None) or {}
    return bool(out.get("cut")) or metadata.get("finish_reason") == "length"


def _short(exc: Exception) -> str:
    """Why an answer does not parse, in one line (pydantic's own text runs to five)."""
    if isinstance(exc, LengthFinishReasonError):
        return "the answer was cut at max_tokens before it was complete"
    invalid = exc if isinstance(exc, ValidationError) else exc.__cause__
    if isinstance(invalid, ValidationError):
        return _schema_complaint(invalid)
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _schema_complaint(exc: ValidationError) -> str:
    """An answer's fields against its schema in one sentence: "the field 'verdict' is missing"."""
    problems = exc.errors()
    first = problems[0]
    field = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        said = f"the field '{field}' is missing" if field else "a field is missing"
    else:
        message = " ".join(first["msg"].split())
        said = f"the field '{field}' is wrong: {message[:1].lower()}{message[1:]}" if field else message
    more = len(problems) - 1
    return said + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")
