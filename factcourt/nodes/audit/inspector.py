"""The Quality Inspector: checks [evidence] cases against the corpus and revises cases (Fig 11)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.errors import BackendError
from factcourt.nodes.audit.common import OBJECTS, case_json, consult, current_object
from factcourt.nodes.helpers import clip
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.providers.search import search, tokenize
from factcourt.state.audit import AuditCase, AuditCases, AuditState, case_of
from factcourt.state.records import Evidence, Usage

WIKI_RESULTS = 5  # the authors' srlimit
SHOWN_FAILURES = 6


def quoted(piece: str, found: list[Evidence]) -> bool:
    """Whether half or more of the piece's words occur in the titles and texts found for it."""
    words = set(tokenize(piece))
    seen = {w for e in found for w in tokenize(f"{e.title} {e.text}")}
    return not words or len(words & seen) >= len(words) / 2


async def unquoted_pieces(ctx: AuditContext, cases: list[AuditCase]) -> tuple[list[list[str]], Usage]:
    """Per case, the evidence pieces a search of the corpus cannot find ([evidence] cases only)."""
    settings, usage, failing = replace(ctx, top_k=WIKI_RESULTS), Usage(), []
    for case in cases:
        missing = []
        for piece in case.auxiliary_info if case.test_mode == "evidence" else []:
            found, real_call = await asyncio.to_thread(search, settings, piece)
            usage += Usage.search_call() if real_call else Usage()
            if not quoted(piece, found):
                missing.append(piece)
        failing.append(missing)
    return failing, usage


def wiki_checked(ctx: AuditContext) -> bool:
    """Whether the corpus check runs: it is on and there is a search backend to ask."""
    return ctx.audit_wiki_check and ctx.retrieval_enabled


async def inspector(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """One Quality Inspector pass over the pending cases, more while the corpus check fails.

    A pass that does not parse, or returns another number of cases, leaves the cases as they
    were (a note says so): they are sound cases the Inquirer or Prober wrote, only unrevised.
    Evidence that still fails the check is kept and flagged (``wiki_check`` false).
    """
    ctx, pending = runtime.context, state.get("pending", [])
    if not pending:
        return {}
    obj, scenario = current_object(state), state["scenario"]
    cases, usage, notes = [case_of(r) for r in pending], Usage(), []
    checked = wiki_checked(ctx)

    async def failures() -> list[list[str]]:
        nonlocal usage, checked
        if not checked:
            return [[] for _ in cases]
        try:
            missing, spent = await unquoted_pieces(ctx, cases)
        except BackendError as exc:
            notes.append(f"{scenario}: the corpus check could not run, so it was skipped: {exc}")
            checked = False
            return [[] for _ in cases]
        usage += spent
        return missing

    missing = await failures()
    for done in range(ctx.audit_inspector_passes):
        if done and not any(missing):
            break
        pieces = [clip(p, 120) for m in missing for p in m][:SHOWN_FAILURES]
        answer = await consult(
            ctx,
            "inspector",
            AuditCases,
            conversation(
                EN.INSPECTOR,
                object=OBJECTS[obj],
                scenario=scenario,
                cases=case_json(cases),
                count=len(cases),
                wiki_failures=EN.WIKI_FAILURES.format(pieces=pieces) if pieces else "",
            ),
            run_name=f"quality inspector: {scenario}",
        )
        usage += answer.usage
        if answer.value is None or len(answer.value.cases) != len(cases):
            said = (
                answer.error
                if answer.value is None
                else f"it returned {len(answer.value.cases)} cases for {len(cases)}"
            )
            notes.append(f"{scenario}: a Quality Inspector pass was not used ({said})")
            break
        cases = answer.value.cases
        missing = await failures()
    records = [
        r.model_copy(
            update={"case": c, "wiki_check": (not m) if checked and c.test_mode == "evidence" else None}
        )
        for r, c, m in zip(pending, cases, missing, strict=True)
    ]
    return {"pending": records, "usage": usage, "notes": notes}
