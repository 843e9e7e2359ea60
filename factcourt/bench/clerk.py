"""``bench clerk``: how often the Clerk's claims are self-contained, on a fixture of sentences.

Each fixture row is a response with one ``sentence`` that needs its context to be understood
("It was completed in 1889."), and ``expect``: the name (alternatives split by ``|``) a
self-contained claim from it must carry. A claim from that sentence counts as self-contained
when it holds the name and no unresolved reference. Rows may share a response (a long text
with many dependent sentences): each response is decomposed once. Rates are given per language.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from factcourt.bench.context import BenchContext
from factcourt.errors import BackendError, InputError
from factcourt.inputs import detect_language, read_rows
from factcourt.nodes.agents.clerk import decompose, same_sentence
from factcourt.nodes.agents.references import unresolved
from factcourt.state import Usage


def score_item(item: dict[str, Any], claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge the claims the Clerk drew from the fixture's sentence."""
    language = detect_language(item["sentence"])
    mine = [c["text"] for c in claims if same_sentence(c.get("sentence", ""), item["sentence"])]
    names = item["expect"].split("|")
    good = [c for c in mine if any(n in c for n in names) and not unresolved(c, language)]
    return {
        "sentence": item["sentence"],
        "language": language,
        "claims": mine,
        "self_contained": bool(mine) and len(good) == len(mine),
    }


FIXTURE_FIELDS = ("response", "sentence", "expect")


def read_fixture(path: Path) -> list[dict[str, Any]]:
    """The fixture's rows; one without its texts, or none at all, is bad input, never a 0% rate."""
    items = []
    for number, item in read_rows(path, "fixture"):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in FIXTURE_FIELDS):
            raise InputError(f"{path}:{number}: not an object with the texts {', '.join(FIXTURE_FIELDS)}")
        items.append(item)
    if not items:
        raise InputError(f"{path} holds no item")
    return items


def rates(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | int]]:
    """Self-contained rate and count per language of the fixture's sentences."""
    found: dict[str, dict[str, float | int]] = {}
    for language in sorted({r["language"] for r in rows}):
        mine = [r for r in rows if r["language"] == language]
        found[language] = {"items": len(mine), "rate": sum(r["self_contained"] for r in mine) / len(mine)}
    return found


async def run_clerk_bench(fixture: Path, ctx: BenchContext) -> dict[str, Any]:
    """Decompose every fixture response once and report the rate of self-contained claims."""
    items = read_fixture(fixture)
    claims_of: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows, usage = [], Usage()
    for item in items:
        key = (item["response"], item.get("question", ""))
        if key not in claims_of:
            state = {"response": key[0], "question": key[1]}
            result = await decompose(state, Runtime(context=ctx))  # the Clerk alone: no debate
            usage += result["usage"]
            if failed := [d.error for d in result["dropped"] if d.reason == "clerk_failed"]:
                raise BackendError(f"the Clerk failed, so no rate is given: {failed[0]}")
            claims_of[key] = [c.model_dump() for c in result["claims"]]
        rows.append(score_item(item, claims_of[key]))
    rate = sum(r["self_contained"] for r in rows) / len(rows)
    return {
        "items": len(rows),
        "responses": len(claims_of),
        "self_contained_rate": rate,
        "by_language": rates(rows),
        "clerk_calls": usage.calls,
        # what the Clerk read and wrote: its output is most of a long text's checking time
        "prompt_tokens": usage.input_tokens,
        "cached_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
        "model_seconds": round(usage.ms / 1000, 1),
        "rows": rows,
    }


def run(fixture: Path, ctx: BenchContext) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_clerk_bench(fixture, ctx))
