"""Run-time configuration that every graph shares: models, endpoints, the embedded server, search, cache.

Every field is a JSON value with a description, so LangGraph Studio draws a form that explains
itself. Each system's graph takes a subclass holding only its own fields (``factcourt.context.claims``,
``.hallucination``, ...), so its Studio form shows what that graph reads. Providers resolve the
names (models, search backends) into objects; secrets are read from the environment only and
never stored here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Self, TypedDict, TypeVar, cast, get_type_hints

from pydantic import Field, TypeAdapter, ValidationError

from factcourt.errors import ConfigError

# the embedded server's defaults, here so that the settings need no provider (providers read them)
# 2 s was too short: a new factcourt process takes 2 to 4 s to import before it asks
KEEP_ALIVE_S = 5.0  # how long the server stays up after its last user, for the next command
# how long a process waits for another's server with other weights or settings: a bench run may
# hold it for long, and a wait past this is more likely a forgotten process than a queue
WAIT_S = 600.0

Kept = TypeVar("Kept")


class Flag(TypedDict, total=False):
    """How the command line offers a field where its flag is not made from its name alone."""

    name: str
    """The published spelling (``--concurrency``), where it is not ``--`` and the field's name."""
    metavar: str
    """What ``--help`` calls the value of a dict's flag, given as ``KEY=VALUE`` (``ROLE=MODEL``)."""
    group: str
    """The ``--help`` group it is listed in, where not its class's (the published flags' groups)."""
    repeat: str
    """What giving it several times means, where it may be (``--base-url``'s replicas of a batch)."""


def describe(
    text: str,
    default: Any = None,
    factory: Any = None,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    flag: Flag | None = None,
    names_models: bool = False,
) -> Any:
    """A field with its description and its bounds, the one place that every reader takes them from.

    Pydantic reads the field's metadata as ``Field``'s arguments: Studio's form (the context's JSON
    schema) shows the description and the bounds as minimum and maximum, and ``--set``, the served
    context check and the API check a value against the same bounds (``BaseContext._check_types``).
    The command line makes each field's flag from the same (``commands.shared.add_settings``); ``flag``
    says where it departs from the field's name. ``names_models``: its values are model names (a
    served run may not name a path with one). Pydantic leaves these two keys alone.
    """
    bounds = {name: value for name, value in (("ge", ge), ("gt", gt), ("le", le)) if value is not None}
    metadata = {"description": text, **bounds, "flag": flag or {}, "names_models": names_models}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


# every context class that names a command (registered by __init_subclass__), in the order they were
# defined: a key unknown to one names the command of another. Not the registry of systems
# (factcourt.systems.SYSTEMS), which the layers below it may not import
CONTEXTS: list[type[BaseContext]] = []


def known_roles() -> tuple[str, ...]:
    """Every role of the system contexts defined: a settings file may name any command's roles."""
    return tuple(dict.fromkeys(role for context in CONTEXTS for role in context.agent_roles()))


# a debate settles in a few rounds (the papers run 2-5), and a call that failed ten times in a
# row fails the eleventh too: larger values only multiply the calls
MAX_ROUNDS = 20
MAX_RETRIES = 10
# an hour: a 2,048-token answer of a slow CPU model takes minutes; a longer wait holds a served
# run's worker (and a client may set it) for nothing
MAX_TIMEOUT_S = 3600.0
# LangGraph's step limit of a run that debates nothing; a debate adds its rounds' steps
BASE_STEPS = 200


def debate_steps(rounds: int, speakers: int) -> int:
    """The steps a debate of ``rounds`` takes beyond the base: a few (retrieve, speak, route) per turn."""
    return rounds * (3 * max(speakers, 2) + 4)


@dataclass(kw_only=True)
class BaseContext:
    """Settings every run has, whatever graph it runs."""

    command: ClassVar[str] = ""
    """The ``factcourt`` command whose ``--set`` takes this context's keys (named in errors)."""
    model_roles: ClassVar[tuple[str, ...]] = ()
    """The agent roles its graph asks, each of which ``role_models`` may give a model of its own."""

    model: str = describe(
        "Chat model for every role. 'auto': gpt-4o-mini when OPENAI_API_KEY is set, else the "
        "embedded local model. 'local': the embedded llama.cpp model; 'local:qwen-1.5b' (the "
        "default), 'local:qwen-0.5b', 'local:smollm2': a shipped local model by name. "
        "'sim:LATENCY': the simulated model (load tests, demos). Any other name is sent to the "
        "endpoint as is.",
        "auto",
        flag={"group": "models and search"},
        names_models=True,
    )
    base_url: str | None = describe(
        "OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, LM Studio). Default: "
        "OPENAI_BASE_URL, else OpenAI when a key is set, else the embedded server.",
        flag={
            "group": "models and search",
            "repeat": "with --batch, repeat it to send the rows to several replicas in turn",
        },
    )
    role_models: dict[str, str] = describe(
        "Per-role model overrides, {role: model}, over 'model'. Each command's --help names its "
        "graph's roles; `factcourt models` lists every role with the model it uses.",
        factory=dict,
        flag={"name": "--role-model", "metavar": "ROLE=MODEL", "group": "models and search"},
        names_models=True,
    )
    local_weights: str | None = describe(
        "GGUF file the embedded llama.cpp server loads. Default: Qwen2.5-Coder-1.5B-Instruct "
        "Q4_K_M, fetched once into the user cache.",
    )
    structured_output: Literal["auto", "grammar", "json_schema", "function_calling", "json_mode"] = describe(
        "How structured answers are requested. 'auto': json_schema on OpenAI and the embedded "
        "llama.cpp server, function calling on other endpoints, and for long-form answers on the "
        "embedded server 'grammar' (the schema's LLGuidance grammar, which enforces string "
        "bounds that this server's json_schema leaves open; for verdicts it cost accuracy).",
        "auto",
    )
    logprobs: bool = describe(
        "Ask OpenAI and the embedded server for the answer's token log-probabilities, so a "
        "verdict's confidence is read from the model rather than from what it says.",
        True,
    )
    local_slots: int = describe(
        "Requests the embedded llama.cpp server decodes in parallel, and claims checked at once on it "
        "(more slots gave no throughput on 2 cores: factcourt bench engine).",
        1,
        ge=1,
    )
    local_threads: int = describe("CPU threads of the embedded server; 0 = every core.", 0, ge=0)
    local_keep_alive: float = describe(
        "Seconds the embedded server, shared by every factcourt process of the machine, stays up "
        "after its last user ended, so that the next command finds it loaded.",
        KEEP_ALIVE_S,
        ge=0,
    )
    local_wait_s: float = describe(
        "Seconds to wait for another factcourt process's embedded server with other weights or "
        "settings to stop (one runs per machine) before giving up.",
        WAIT_S,
        ge=0,
    )
    temperature: float = describe("Sampling temperature of every agent.", 0.0, ge=0, le=2)
    max_tokens: int = describe("Most tokens one agent answer may have.", 512, ge=1)
    timeout_s: float = describe(
        "Seconds before a model call gives up. A time-out is not retried (a model that did not "
        "answer in this time rarely does on the next try): raise it for a slow local model.",
        120.0,
        gt=0,
        le=MAX_TIMEOUT_S,
    )
    retries: int = describe(
        "Retries of a model call that could not connect, got a server error or an answer that "
        "does not parse, and of a failed search.",
        2,
        ge=0,
        le=MAX_RETRIES,
    )
    confidence_source: Literal["logprobs", "reported"] = describe(
        "Where a verdict's confidence comes from: the token log-probabilities of the verdict "
        "(falls back to the reported value when the endpoint gives none) or the number the "
        "model writes.",
        "logprobs",
    )

    search: Literal["auto", "local", "tavily", "serper", "given", "none"] = describe(
        "Search backend. 'auto': tavily when TAVILY_API_KEY is set, else serper when "
        "SERPER_API_KEY is set, else local. 'local': BM25 over a corpus (default: offline "
        "Wikipedia summaries), "
        "'tavily' (TAVILY_API_KEY), 'serper' (SERPER_API_KEY), 'given' (only the evidence that "
        "came with the input), 'none' (ablation: no retrieval).",
        "auto",
        flag={"group": "models and search"},
    )
    corpus: str | None = describe(
        "Local corpus: a JSONL file ({'text', 'title', 'id'|'url'}) or a folder of .txt files. "
        "Default: the offline Wikipedia lead summaries.",
        flag={"group": "models and search"},
    )
    top_k: int = describe("Evidence pieces kept per search.", 3, ge=1)
    retrieval: Literal["bm25", "hybrid"] = describe(
        "How the local backend ranks its corpus. 'bm25': by words. 'hybrid': BM25's and "
        "multilingual-e5-small's top 50 fused by reciprocal rank; the corpus is embedded once, "
        "at first use (minutes; kept in the user cache), then a query costs one embedding.",
        "bm25",
    )

    model_settings: dict[str, dict[str, Any]] = describe(
        "Settings of single expert or target models, by name, over this run's, e.g. "
        "{'deepseek-r1': {'base_url': 'https://...', 'temperature': 0.6}}.",
        factory=dict,
    )
    answer_max_tokens: int = describe(
        "Most tokens of an expert's or a target model's long-form answer (it is also held to "
        "2,400 characters, so a constrained model closes it in time).",
        2048,
        ge=1,
    )
    answer_timeout_s: float = describe(
        "Seconds a long-form answer may take, when more than timeout_s: 2,048 tokens at 10-20 "
        "tokens a second on a 2-core CPU take minutes.",
        600.0,
        le=MAX_TIMEOUT_S,
    )

    language: Literal["auto", "en", "zh"] = describe(
        "Language of prompts: 'auto' detects Chinese text.", "auto"
    )
    max_concurrency: int = describe(
        "Claims checked at the same time (on the embedded model, as many as its local_slots).",
        4,
        ge=1,
        flag={"name": "--concurrency", "group": "run"},
    )
    cache: bool = describe(
        "Cache model and search calls in SQLite under the user cache.", True, flag={"group": "run"}
    )

    @classmethod
    def agent_roles(cls) -> tuple[str, ...]:
        """Its own roles and those of the contexts it extends (a leaderboard checks and builds pyramids)."""
        return tuple(
            dict.fromkeys(role for kind in cls.__mro__ for role in kind.__dict__.get("model_roles", ()))
        )

    def model_of(self, role: str) -> str:
        """The model name ``role`` answers with: its own in ``role_models``, else ``model``."""
        return self.role_models.get(role) or self.model

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "command" in cls.__dict__:
            CONTEXTS.append(cls)

    def __post_init__(self) -> None:
        """Check every value against its field's type, then each class's own ranges."""
        self._check_types()
        self.validate()

    def validate(self) -> None:
        """Resolve 'auto' search and check the model names; a subclass checks its own after these.

        A field's bounds are checked with its type (``describe``); ``validate`` checks what one
        field's bounds cannot say (values that depend on each other, the names in lists).
        """
        if self.search == "auto":
            self.search = (
                "tavily"
                if os.environ.get("TAVILY_API_KEY")
                else "serper"
                if os.environ.get("SERPER_API_KEY")
                else "local"
            )
        # an empty name (--model "$UNSET") would quietly start the embedded model
        if not self.model.strip() or not all(m.strip() for m in self.role_models.values()):
            raise ConfigError("a model name is empty: name one (auto, local, sim, or an endpoint's model)")
        known = known_roles()
        bad_roles = [r for r in self.role_models if r not in known]
        if bad_roles:
            offered = type(self).agent_roles() or known  # this command's own, where it has some
            raise ConfigError(f"unknown model role(s) {bad_roles}; choose from {list(offered)}")

    def _check_types(self) -> None:
        # --set, the server and the API pass JSON values: 'banana' for a float fails here, in
        # one sentence, and not at the first model call
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                # a class is hashable though its instances are not: mypy reads the instances' __hash__
                adapter = _adapter(type(self), f.name)  # type: ignore[arg-type]
                setattr(self, f.name, adapter.validate_python(value))
            except ValidationError as exc:
                said = exc.errors()[0]["msg"]
                raise ConfigError(f"{f.name}={value!r}: {said[0].lower()}{said[1:]}") from None
            validated = getattr(self, f.name)  # the texts 'nan' and 'inf' validate to floats too
            # NaN is false in every range check, and an infinite time-out waits on a hung server forever
            if isinstance(validated, float) and not math.isfinite(validated):
                said = "not a number" if math.isnan(validated) else "not a finite number"
                raise ConfigError(f"{f.name}={validated!r}: {said}")
            if bounds := _bounds(f.metadata):
                try:
                    _bounded(type(self), f.name).validate_python(validated)  # type: ignore[arg-type]
                except ValidationError as exc:
                    raise ConfigError(_out_of_bounds(f.name, validated, bounds, exc)) from None

    @property
    def retrieval_enabled(self) -> bool:
        """Whether agents may search (off for 'given', 'none' and the no-search ablation)."""
        return self.search not in ("given", "none")

    def step_limit(self) -> int:
        """LangGraph's step limit of a run of its graph: a graph that debates adds its rounds' steps.

        At a fixed limit, a run of many rounds debated to the end and then failed with
        GraphRecursionError. A context that extends two adds the larger of their debates.
        """
        return BASE_STEPS

    def trace_metadata(self) -> dict[str, Any]:
        """What a run's trace is filed under (LangSmith metadata)."""
        return {"search": self.search}

    def kept(self, key: Hashable, make: Callable[[], Kept]) -> Kept:
        """What ``make`` works out from these settings, made at the first call and kept with them.

        So a run works it out once: its models (``providers.models.models``) and the contexts made
        from it for one model or agent (``for_model``), whose models are then resolved once too.
        Not a setting: no field, so never compared, copied (``replace``, ``for_model``), pickled
        or part of a run's key. A context's settings do not change once it is made.
        """
        made: dict[Hashable, Any] = self.__dict__.setdefault("_kept", {})
        if key not in made:
            made.setdefault(key, make())  # two threads may make it at once: both get the first kept
        return cast(Kept, made[key])

    def __getstate__(self) -> dict[str, Any]:
        """The settings without what is kept: a copy, or a Ray worker's, works it out for itself."""
        return {name: value for name, value in vars(self).items() if name != "_kept"}

    def for_model(self, name: str, **overrides: Any) -> Self:
        """The run's settings for an expert or target model: it answers with ``name`` in every role.

        Without ``overrides``, one context per model, kept: the run resolves that model once.
        """
        if not overrides:
            return self.kept(("for_model", name), lambda: self._made_for(name, {}))
        return self._made_for(name, overrides)

    def _made_for(self, name: str, overrides: dict[str, Any]) -> Self:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(
            model=name,
            role_models={},
            max_tokens=self.answer_max_tokens,
            timeout_s=max(self.timeout_s, self.answer_timeout_s),
        )
        values.update(self.model_settings.get(name, {}), **overrides)
        return type(self).from_dict(values)

    @classmethod
    def adjust(cls, values: dict[str, Any]) -> dict[str, Any]:
        """What settings named together imply for this system (nothing, unless a subclass says so)."""
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Self:
        """Build a context from JSON values, rejecting unknown keys with a clear error.

        A key of another system's context names the command that takes it.
        """
        values = dict(values or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        for key in unknown:
            if owner := next((s for s in CONTEXTS if key in s.__dict__.get("__annotations__", {})), None):
                raise ConfigError(
                    f"{key} is a setting of `factcourt {owner.command}`, not of `factcourt {cls.command}`"
                )
        if unknown:
            raise ConfigError(
                f"unknown setting(s) {unknown}; see `factcourt {cls.command or 'check'} --help`"
            )
        return cls(**values)

    @classmethod
    def project(cls, settings: BaseContext, **overrides: Any) -> Self:
        """Build this context from another's values (a wider one, e.g. the bench's), plus ``overrides``."""
        known = {f.name for f in fields(cls)}
        values = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name in known}
        return cls.from_dict({**values, **cls.adjust(overrides)})

    @classmethod
    def make(cls, settings: dict[str, Any] | BaseContext | None = None, **overrides: Any) -> Self:
        """Build this context from a dict or an existing context plus keyword overrides.

        What the settings imply (``adjust``) is read from the dict and the overrides; a context
        passed in was already read that way.
        """
        if isinstance(settings, BaseContext):
            return cls.project(settings, **overrides)
        return cls.from_dict(cls.adjust({**(settings or {}), **overrides}))


@cache
def _adapter(kind: type[BaseContext], name: str) -> TypeAdapter[Any]:
    return TypeAdapter(get_type_hints(kind)[name])


@cache
def _bounded(kind: type[BaseContext], name: str) -> TypeAdapter[Any]:
    """The field's type with its bounds, as pydantic reads them from the field (``describe``)."""
    bounds = _bounds(next(f.metadata for f in fields(kind) if f.name == name))
    hint: Any = get_type_hints(kind)[name]
    bounded: Any = Annotated[hint, Field(ge=bounds.get("ge"), gt=bounds.get("gt"), le=bounds.get("le"))]
    return TypeAdapter(bounded)


def _bounds(metadata: Any) -> dict[str, float]:
    """The bounds ``describe`` put in a field's metadata."""
    return {k: metadata[k] for k in ("ge", "gt", "le") if k in metadata}


Bound = Literal["ge", "gt", "le"]
# the bound a value fell outside, by pydantic's error type
_BOUND_SAID: dict[str, Bound] = {"greater_than_equal": "ge", "greater_than": "gt", "less_than_equal": "le"}


def _out_of_bounds(name: str, value: Any, bounds: dict[str, float], exc: ValidationError) -> str:
    """The sentence of a value out of its field's bounds, as the hand checks said it before.

    A share or a scale (a float bounded both ways) is "in [lo, hi]"; a count is "at least" or
    "at most" the bound it fell outside.
    """
    if isinstance(value, float) and "ge" in bounds and "le" in bounds:
        return f"{name} must be in [{bounds['ge']}, {bounds['le']}], not {value}"
    bound = _BOUND_SAID.get(exc.errors()[0]["type"], "ge")
    said = {"ge": "at least", "gt": "more than", "le": "at most"}[bound]
    return f"{name} must be {said} {bounds[bound]}, not {value}"
