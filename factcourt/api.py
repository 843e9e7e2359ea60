"""The Python API, the one door to every system: ``factcourt.check``, ``verify``, ``detect``, ``audit``, ...

Each returns its system's result model (or a :class:`Pyramid`): ``kind`` names it, and its
``model_dump(mode="json")`` is the JSON the command prints. The command line runs every command
through here too: ``progress`` hands it each progress event of a run, and a resumable run (a
crashed one resumes from its checkpoints) says first how it runs.
"""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from factcourt.context.audit import AuditContext
from factcourt.context.base import BaseContext
from factcourt.context.claims import ClaimsContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.context.pyramid import PyramidContext
from factcourt.errors import ConfigError, FactcourtError, InputError, first_line
from factcourt.inputs import first_complaint, long_question, read_text_file, strip_controls
from factcourt.nodes.agents.clerk import response_problem
from factcourt.nodes.claims.open_case import claim_problem
from factcourt.nodes.pyramid.open import question_problem
from factcourt.providers.search import LANGUAGE_NOT_COVERED, uncovered_language
from factcourt.runs import run_config
from factcourt.state.audit import AuditResult
from factcourt.state.claims import CheckResult, CheckSettings, ClaimReport, ClaimResult, VerifyResult
from factcourt.state.hallucination import DetectResult, DetectSettings, HallucinationReport
from factcourt.state.pyramid import Pyramid
from factcourt.state.records import Claim, ClerkSplit, Evidence, Result, Usage
from factcourt.systems import load

ProgressHook = Callable[[dict[str, Any]], None]
"""Takes each progress event of a run: the graph's own (``{"event": "verdict", ...}``, see
``nodes.helpers.emit``) and, for a resumable run, first ``{"event": "run", "resumed": ...,
"beside_live_run": ..., "cleared_unreadable": ...}``."""


async def run_graph(
    graph: Any,
    payload: dict[str, Any] | None,
    ctx: BaseContext,
    config: dict[str, Any],
    progress: ProgressHook | None,
    durability: str | None = None,
) -> dict[str, Any]:
    """Run ``graph`` to its final state, handing each progress event to ``progress``."""
    if progress is None:
        return await graph.ainvoke(payload, config=config, context=ctx, durability=durability)
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
    identity: list[Any],
    payload: dict[str, Any],
    ctx: BaseContext,
    progress: ProgressHook | None,
    *,
    keep: bool,
    **config: Any,
) -> dict[str, Any]:
    """Run graph ``name`` under the SQLite checkpointer: a crashed run of ``identity`` resumes."""
    from factcourt.checkpoints import DURABILITY, resumable_run
    from factcourt.systems import named

    build = named(name).builder()
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


def _order(results: list[ClaimResult]) -> list[ClaimResult]:
    return sorted(results, key=lambda r: (len(r.claim.id), r.claim.id))


def check_result(state: dict[str, Any], ctx: ClaimsContext) -> CheckResult:
    """The final state of a ``factcheck`` run as its result."""
    results = _order(state.get("results", []))
    total = state.get("usage") or Usage()
    for result in results:
        total = total + result.usage
    return CheckResult(
        question=state.get("question", ""),
        language=state.get("language"),
        settings=CheckSettings(
            protocol=ctx.protocol,
            rule=ctx.rule,
            search=ctx.search,
            model=ctx.model,
            jurors=len(ctx.speakers),
            rounds=ctx.max_rounds,
        ),
        claims=[ClaimReport.of(r) for r in results],
        dropped=state.get("dropped", []),
        scores=state.get("scores", {}),
        language_not_covered=sum(r.uncovered_language is not None for r in results),
        usage=total,
        correction=state.get("correction"),
        response=state.get("response", ""),  # the text the spans point into (the HTML report marks it)
    )


async def acheck(
    text: str,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    *,
    progress: ProgressHook | None = None,
    resumable: bool = False,
    keep_checkpoint: bool = False,
    split: ClerkSplit | None = None,
    **overrides: Any,
) -> CheckResult:
    """Check a long-form text (async); ``resumable``: under checkpoints, so a crashed check resumes.

    ``split``: the Clerk's split of this very text made before (a pyramid's), taken instead of
    asking the Clerk again.
    """
    from factcourt.graphs.factcheck import graph

    if split is None:  # a split given was made of this very text, spans and all
        text, question = strip_controls(text), strip_controls(question or "")
    if problem := response_problem(text) or long_question(question or ""):
        raise InputError(problem)
    if split is not None and split.response != text:
        raise InputError("the split given is of another text: its claims' spans would point elsewhere")
    ctx = ClaimsContext.make(settings, **overrides)
    payload: dict[str, Any] = {"response": text, "question": question or ""}
    if split is not None:
        payload |= {"claims": split.claims, "dropped": split.dropped}
    if resumable:
        identity = [text, question or ""]
        state = await run_resumably("factcheck", identity, payload, ctx, progress, keep=keep_checkpoint)
    else:
        state = await run_graph(graph, payload, ctx, run_config(ctx), progress)
    return check_result(state, ctx)


def check_row_problem(values: dict[str, str]) -> str | None:
    """Why a ``check --batch`` row's texts cannot be checked, as :func:`acheck` would refuse them."""
    return response_problem(values["text"]) or long_question(values.get("question", ""))


async def check_row(values: dict[str, str], ctx: BaseContext) -> CheckResult:
    """A ``check --batch`` row's result (resumable)."""
    return await acheck(values["text"], values.get("question", ""), ctx, resumable=True)


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


def check(
    text: str, question: str = "", settings: dict[str, Any] | BaseContext | None = None, **overrides: Any
) -> CheckResult:
    """Check a long-form text; the result's JSON is what ``factcourt check --json`` prints.

    Example:
        >>> factcourt.check("Paris is the capital of France.", rule="adaptive")["scores"]
    """
    stop_servers_on_exit()
    return asyncio.run(acheck(text, question, settings, **overrides))


async def averify(
    claim: str,
    evidence: list[Evidence] | None = None,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> VerifyResult:
    """Check one claim (async)."""
    from factcourt.graphs.verify import graph

    claim, question = strip_controls(claim), strip_controls(question or "")
    if problem := claim_problem(claim) or long_question(question):
        raise InputError(problem)
    ctx = context_with_given(
        ClaimsContext, evidence, settings, overrides
    )  # as `verify --evidence`: no search on top
    payload: dict[str, Any] = {"claim": Claim(id="c1", text=claim), "question": question}
    if evidence is not None:
        payload["given_evidence"] = evidence
    state = await graph.ainvoke(payload, config=run_config(ctx), context=ctx)
    return verify_result(state, ctx)


def verify_result(state: dict[str, Any], ctx: ClaimsContext) -> VerifyResult:
    """The final state of a ``verify`` run as its result: its one claim's report."""
    if not state.get("results"):
        raise FactcourtError("the run holds no result of its claim")
    return VerifyResult.of(state["results"][0])


def verify(
    claim: str,
    evidence: list[Evidence] | None = None,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> VerifyResult:
    """Check one claim, with optional given evidence; the result's JSON is what ``verify --json`` prints."""
    stop_servers_on_exit()
    return asyncio.run(averify(claim, evidence, question, settings, **overrides))


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


def preflight(ctx: BaseContext, answerers: list[str] | None = None) -> None:
    """Fail fast on configuration (missing keys, missing corpus) before any model call.

    ``answerers``: expert or target models that answer on settings of their own, each checked too.
    """
    from factcourt.context.base import ROLES
    from factcourt.providers.models import choose, role_choice
    from factcourt.providers.search import backend

    for role in ROLES:
        role_choice(ctx, role)
    if ctx.retrieval_enabled:
        backend(ctx)
    for model in dict.fromkeys(answerers or []):
        try:
            choose(ctx.for_model(model), "answer")
        except ConfigError as exc:
            raise ConfigError(f"{model}: {exc}") from None


def models_by_role(model: str | None = None) -> list[tuple[str, Any]]:
    """Each role with the model it uses (``model``, else the default): name, endpoint, weights."""
    from factcourt.context.base import ROLES
    from factcourt.providers.models import choose

    ctx = BaseContext.from_dict({"model": model} if model is not None else {})
    return [(role, choose(ctx, role)) for role in ROLES]


def clear_cache() -> tuple[int, int, int]:
    """Delete the cached answers and searches and the crashed runs' checkpoints.

    Returns (answers and searches deleted, runs deleted, live runs kept).
    """
    from factcourt import checkpoints
    from factcourt.providers import cache

    answers = cache.clear()
    deleted, live = checkpoints.clear()
    return answers, deleted, live


# ------------------------------------------------------------ hallucination detection


def detect_result(state: dict[str, Any], ctx: HallucinationContext) -> DetectResult:
    """The final state of a ``hallucination`` run as its result."""
    report = state.get("report") or HallucinationReport(error="the debate produced no report")
    return DetectResult(
        question=state.get("question", ""),
        answer=state.get("answer", ""),
        **dict(report),
        knowledge=state.get("knowledge", []),
        stance_knowledge=state.get("stance_knowledge", {}),
        sub_questions=state.get("sub_questions", []),
        queries=state.get("queries", []),
        transcript=state.get("views", []),
        teams=state.get("teams", []),
        judgements=state.get("judgements", []),
        usage=state.get("usage") or Usage(),
        settings=DetectSettings(
            search=ctx.search,
            model=ctx.model,
            layout=ctx.hallucination_layout,
            judge=ctx.hallucination_judge,
            scores=ctx.hallucination_scores,
            jt=ctx.hallucination_jt,
            retrieval=ctx.hallucination_retrieval,
            agents=list(ctx.hallucination_agents),
            epsilon=ctx.epsilon,
            max_rounds=ctx.hallucination_rounds,
        ),
    )


def detect_payload(
    question: str, answer: str, knowledge: list[Evidence] | None, ctx: HallucinationContext
) -> dict[str, Any]:
    """Validate a question-answer pair and build the graph's input (bad input raises InputError)."""
    from factcourt.nodes.hallucination.gather import item_problem

    question, answer = strip_controls(question), strip_controls(answer)
    if problem := item_problem(question, answer):
        raise InputError(problem)
    if ctx.search == "given" and not any(e.text.strip() for e in knowledge or []):
        raise InputError("search 'given' needs knowledge: pass it, or choose another search")
    payload: dict[str, Any] = {"question": question, "answer": answer}
    if knowledge is not None:
        payload["given_knowledge"] = list(knowledge)
    return payload


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


async def adetect(
    question: str,
    answer: str,
    knowledge: list[Evidence] | None = None,
    settings: dict[str, Any] | BaseContext | None = None,
    *,
    progress: ProgressHook | None = None,
    **overrides: Any,
) -> DetectResult:
    """Decide whether ``answer`` to ``question`` hallucinates (async); see :func:`detect`."""
    from factcourt.graphs.hallucination import graph

    ctx = context_with_given(HallucinationContext, knowledge, settings, overrides)
    payload = detect_payload(question, answer, knowledge, ctx)
    state = await run_graph(graph, payload, ctx, run_config(ctx), progress)
    return detect_result(state, ctx)


def detect(
    question: str,
    answer: str,
    knowledge: list[Evidence] | None = None,
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> DetectResult:
    """Decide whether ``answer`` hallucinates: label 1 = no hallucination, 0 = hallucination.

    The result's JSON is what ``factcourt detect --json`` prints: the label, the hallucination types
    found (each with a probability, the answer span and the evidence), the debate and its cost.
    Given ``knowledge`` and no search named, the agents use that knowledge only.

    Example:
        >>> factcourt.detect("Who wrote Hamlet?", "Christopher Marlowe.", search="local")["label"]
    """
    stop_servers_on_exit()
    return asyncio.run(adetect(question, answer, knowledge, settings, **overrides))


def detect_row_problem(values: dict[str, str]) -> str | None:
    """Why a ``detect --batch`` row cannot be judged, as :func:`adetect` would refuse it."""
    from factcourt.nodes.hallucination.gather import item_problem

    return item_problem(values["question"], values["answer"])


async def detect_row(values: dict[str, str], ctx: BaseContext) -> DetectResult:
    """A ``detect --batch`` row's result."""
    return await adetect(values["question"], values["answer"], None, ctx)


# ------------------------------------------------------------ importance pyramid


def pyramid_key(question: str, ctx: PyramidContext, answers: dict[str, str] | None) -> str:
    """Cache key of a pyramid: the question, the expert set and every setting that changes it."""
    from factcourt.providers.cache import cache_key
    from factcourt.providers.models import choose, model_identity

    def named(choice) -> list:  # a local_weights file by what it is, not by its name
        return [choice, model_identity(choice)]

    return cache_key(
        "pyramid",
        question,
        ctx.experts,
        {e: ctx.model_settings.get(e, {}) for e in ctx.experts},
        # an expert whose answer is given is never asked: its model needs no key here either
        [
            named(choose(ctx.for_model(e), "answer"))
            for e in ctx.experts
            if not (answers or {}).get(e, "").strip()
        ],
        [ctx.answer_max_tokens, ctx.temperature, ctx.language, ctx.max_claims],
        [named(choose(ctx, "clerk")), named(choose(ctx, "matcher"))],
        [ctx.embedder, ctx.embedding_model, ctx.similarity_threshold, ctx.same_fact_candidates],
        answers or {},
    )


async def abuild_pyramid(
    question: str,
    settings: dict[str, Any] | BaseContext | None = None,
    answers: dict[str, str] | None = None,
    **overrides: Any,
) -> Pyramid:
    """The importance pyramid of ``question`` (async); see :func:`build_pyramid`."""
    from factcourt.graphs.pyramid import graph
    from factcourt.providers.cache import store

    if problem := question_problem(question):
        raise InputError(problem)
    ctx = PyramidContext.make(settings, **overrides)
    key = pyramid_key(question, ctx, answers)
    cache = store("pyramids") if ctx.cache else None
    if cache is not None and (hit := cache.get(key)) is not None:
        return Pyramid.model_validate(hit)
    payload: dict[str, Any] = {"question": question, "answers": dict(answers or {})}
    state = await graph.ainvoke(payload, config=run_config(ctx), context=ctx)
    pyramid = state["pyramid"]
    if cache is not None and not pyramid.failed and not pyramid.notes:  # a time-out is not kept
        await asyncio.to_thread(cache.put, key, pyramid.model_dump(mode="json"))
    return pyramid


def build_pyramid(
    question: str,
    settings: dict[str, Any] | BaseContext | None = None,
    answers: dict[str, str] | None = None,
    **overrides: Any,
) -> Pyramid:
    """Build (or take from the cache) the importance pyramid of ``question``.

    The ``experts`` of the settings answer it (``answers`` gives some answers already written),
    the Clerk splits each answer, equivalent claims are merged into the golden set, and each
    golden claim gets its layer and weight. Cached per question, expert set and settings.

    Example:
        >>> p = factcourt.build_pyramid("Tell me about the Eiffel Tower.", experts=["gpt-4o", "gpt-4o-mini"])
        >>> Path("eiffel.json").write_text(p.model_dump_json(indent=2))
    """
    stop_servers_on_exit()
    return asyncio.run(abuild_pyramid(question, settings, answers, **overrides))


def load_pyramid(path: Path) -> Pyramid:
    """A pyramid saved as JSON (``Pyramid.model_dump_json``); a file that is none is one clear error."""
    text = read_text_file(path, "pyramid file")
    try:
        return Pyramid.model_validate_json(text)
    except ValidationError as exc:  # one sentence, not pydantic's "1 validation error for Pyramid"
        raise InputError(f"{path} is not a saved pyramid: {first_complaint(exc)}") from None


# ------------------------------------------------------------------ FACT-AUDIT


# The audit loop ends by its own rules (budgets, cap, stops); this only stops a runaway bug.
AUDIT_STEP_LIMIT = 1_000_000


def audit_context(
    scale: str | None,
    target_model: str | None,
    target_base_url: str | None,
    settings: dict[str, Any] | BaseContext | None,
    overrides: dict[str, Any],
) -> AuditContext:
    """The audit's context: the scale's values, then the settings, then the target's endpoint.

    No scale: the settings are already scaled (the command line's context), and a setting left
    at its default stays there rather than taking the paper scale's value.
    """
    from factcourt.context.audit import AUDIT_SCALES

    if scale is not None and scale not in AUDIT_SCALES:
        raise ConfigError(f"unknown scale {scale!r}; choose from {', '.join(AUDIT_SCALES)}")
    if isinstance(settings, BaseContext):  # only what the caller set overrides the scale
        defaults = asdict(AuditContext())
        values = {k: v for k, v in asdict(AuditContext.project(settings)).items() if v != defaults[k]}
    else:
        values = dict(settings or {})
    values = {**AUDIT_SCALES.get(scale or "", {}), **values, **overrides}
    if target_base_url and not target_model:
        raise ConfigError("a target base URL needs the target's model name too")
    if target_model:
        values["role_models"] = {**values.get("role_models", {}), "target": target_model}
    if target_base_url:  # the target's own endpoint, as for any model named in model_settings
        settings_of = values.get("model_settings", {})
        own = {**settings_of.get(target_model, {}), "base_url": target_base_url}
        values["model_settings"] = {**settings_of, target_model: own}
    return AuditContext.from_dict(values)


def audit_objects(objects: list[str] | None) -> list[str]:
    """The objects to audit (default all three), checked; 'fake-news' means 'fake_news'."""
    from factcourt.nodes.audit.common import OBJECTS, objects_problem

    chosen = [o.replace("-", "_") for o in objects] if objects is not None else list(OBJECTS)
    if problem := objects_problem(chosen):
        raise InputError(problem)
    return chosen


def audit_run_key(objects: list[str], ctx: AuditContext) -> str:
    """What names an audit of ``objects`` with these settings: its crash checkpoints and its report."""
    from factcourt.checkpoints import run_key

    return run_key("audit", [objects], ctx)


async def aaudit(
    objects: list[str] | None = None,
    *,
    target_model: str | None = None,
    target_base_url: str | None = None,
    scale: str | None = "paper",
    settings: dict[str, Any] | BaseContext | None = None,
    keep_checkpoint: bool = False,
    progress: ProgressHook | None = None,
    **overrides: Any,
) -> AuditResult:
    """Audit a target model's fact-checking (async); see :func:`audit`."""
    from factcourt.audit_report import audit_json

    ctx = audit_context(scale, target_model, target_base_url, settings, overrides)
    chosen = audit_objects(objects)
    state = await run_resumably(
        "audit",
        [chosen],
        {"objects": chosen},
        ctx,
        progress,
        keep=keep_checkpoint,
        recursion_limit=AUDIT_STEP_LIMIT,
    )
    return AuditResult(**audit_json(state, ctx))


def audit(objects: list[str] | None = None, **options: Any) -> AuditResult:
    """Audit how well a target model fact-checks (FACT-AUDIT): IMR, JFR and Grade per scope.

    ``options`` are :func:`aaudit`'s: ``target_model`` and ``target_base_url`` name the model
    under audit; the auditor is ``model`` (the target too when no ``target_model`` is given,
    which flatters the target: the report says so). ``scale`` 'smoke' is a small audit, 'paper'
    (the default) the paper's numbers; any ``audit_*`` setting overrides them. A crashed audit
    with the same objects and settings resumes where it stopped. The result's JSON is report.json's
    structure plus ``cases``, every case with its response, reference, grade and comment.

    Example:
        >>> factcourt.audit(["social_rumor"], target_model="local", scale="smoke")["overall"]
    """
    stop_servers_on_exit()
    return asyncio.run(aaudit(objects, **options))


async def stored_result(url: str | None, thread: str) -> Result:
    """The result of a finished run on a LangGraph server, from its thread.

    The server names the graph a thread ran (its ``graph_id``) and stores the state as JSON; the
    graph's own state schema turns it back into the objects its system's result is made of.
    ``url`` None: the server this code runs in (its page).
    """
    from langgraph_sdk import get_client
    from pydantic import TypeAdapter

    from factcourt.systems import named

    client = get_client(url=url)
    try:
        state = await client.threads.get_state(thread)
        graph_id = ((await client.threads.get(thread)).get("metadata") or {}).get("graph_id")
    except Exception as exc:  # noqa: BLE001 (connection and HTTP status errors alike)
        raise FactcourtError(f"could not read thread {thread} from {url or 'this server'}: {exc}") from exc
    if state.get("next"):  # a step still to run: the run failed there, or goes on (or was stopped)
        failure = next((task["error"] for task in state.get("tasks") or [] if task.get("error")), None)
        if failure:
            raise FactcourtError(
                f"thread {thread}'s run failed ({_stored_error(failure)}): it has no result to show"
            )
        raise FactcourtError(
            f"thread {thread}'s run has not finished (it is still running, or was stopped): "
            "it has no result to show yet"
        )
    try:
        system = named(str(graph_id))
    except KeyError:
        system = None
    if system is None or system.stored is None:
        raise FactcourtError(f"thread {thread} holds no finished run of a graph whose result a page shows")
    schema = system.compiled().builder.state_schema
    values = TypeAdapter(schema).validate_python(dict(state.get("values") or {}))  # type: ignore[arg-type]
    # a run's settings are not in its state: the page names the defaults
    return load(system.stored)(values, system.context.make({}))


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
    "stored_result",
    "AUDIT_STEP_LIMIT",
    "LANGUAGE_NOT_COVERED",
    "ProgressHook",
    "aaudit",
    "abuild_pyramid",
    "acheck",
    "adetect",
    "audit",
    "audit_context",
    "audit_objects",
    "audit_run_key",
    "averify",
    "build_pyramid",
    "check",
    "check_result",
    "clear_cache",
    "context_with_given",
    "detect",
    "detect_payload",
    "detect_result",
    "leave_servers",
    "load_pyramid",
    "models_by_role",
    "preflight",
    "pyramid_key",
    "question_problem",
    "run_graph",
    "run_resumably",
    "stop_servers",
    "stop_servers_on_exit",
    "uncovered_language",
    "use_store",
    "verify",
    "verify_result",
]


def train_moderator(
    data: Path,
    base: str,
    out: Path | None = None,
    *,
    device: str = "auto",
    save_every: int = 10,
    progress: Callable[[int, int, float | None], None] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Debate-SFT: train a moderator on synth-sft's samples; its folder and training identity.

    ``settings`` are :class:`factcourt.training.TrainSettings` fields (rank, alpha, lr, epochs,
    batch, max_steps, max_tokens, samples, seed). ``out`` defaults to a folder named after the
    base and the data in the cache's ``moderators``, which ``--role-model moderator=NAME`` finds.
    """
    from factcourt.training import TrainSettings, file_sha256
    from factcourt.training import train_moderator as train

    data = Path(data)
    if not data.is_file():
        raise InputError(f"no such SynDeC file: {data}")
    chosen = TrainSettings(**{k: v for k, v in settings.items() if v is not None})
    if out is None:
        from factcourt.providers.trained import trained_dir

        stem = Path(base.removeprefix("local:")).stem.lower()
        out = trained_dir() / f"debate-sft-{stem}-{file_sha256(data)[:8]}-{chosen.samples}"
    trained = train(data, base, Path(out), chosen, device=device, save_every=save_every, progress=progress)
    return {"name": trained.name, "folder": str(trained.folder), **trained.identity}


def trained_moderators() -> list[dict[str, Any]]:
    """Every trained moderator in the cache: name, folder and training identity."""
    from factcourt.providers.trained import all_trained

    return [{"name": t.name, "folder": str(t.folder), **t.identity} for t in all_trained()]
