"""FACT-AUDIT's API: ``audit`` how well a target model fact-checks.

Its report files (report.json, report.md, cases.jsonl, the IMR chart) are :mod:`factcourt.api.audit.report`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

from factcourt.api import ProgressHook, checked, run_resumably, stop_servers_on_exit
from factcourt.context.audit import AuditContext
from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError, InputError
from factcourt.state.audit import AuditResult

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


@checked
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
    from factcourt.api.audit.report import audit_json
    from factcourt.graphs.audit import build

    ctx = audit_context(scale, target_model, target_base_url, settings, overrides)
    chosen = audit_objects(objects)
    state = await run_resumably(
        "audit",
        build,
        [chosen],
        {"objects": chosen},
        ctx,
        progress,
        keep=keep_checkpoint,
        recursion_limit=AUDIT_STEP_LIMIT,
    )
    return AuditResult(**audit_json(state, ctx))


@checked
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


__all__ = [
    "aaudit",
    "audit",
]
