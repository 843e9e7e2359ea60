"""``bench clerk``: how often the Clerk's claims are self-contained, on a fixture of sentences.

Each fixture row is a short response whose ``sentence`` needs its context to be understood
("It was completed in 1889."), with ``expect``: the name (alternatives split by ``|``) a
self-contained claim from it must carry. A claim from that sentence counts as self-contained
when it holds the name and no unresolved reference.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from factcourt.bench.datasets import read_rows
from factcourt.context import Context
from factcourt.errors import InputError
from factcourt.inputs import detect_language
from factcourt.nodes.decompose import decompose, same_sentence, unresolved


def score_item(item: dict[str, Any], claims: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge the claims the Clerk drew from the fixture's sentence."""
    language = detect_language(item["sentence"])
    mine = [c["text"] for c in claims if same_sentence(c.get("sentence", ""), item["sentence"])]
    names = item["expect"].split("|")
    good = [c for c in mine if any(n in c for n in names) and not unresolved(c, language)]
    return {
        "sentence": item["sentence"],
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


async def run_clerk_bench(fixture: Path, ctx: Context) -> dict[str, Any]:
    """Decompose every fixture response and report the rate of self-contained claims."""
    items = read_fixture(fixture)
    rows, calls = [], 0
    for item in items:
        state = {"response": item["response"], "question": item.get("question", "")}
        result = await decompose(state, Runtime(context=ctx))  # the Clerk alone: no debate
        calls += result["usage"].calls
        rows.append(score_item(item, [c.model_dump() for c in result["claims"]]))
    rate = sum(r["self_contained"] for r in rows) / len(rows) if rows else 0.0
    return {"items": len(rows), "self_contained_rate": rate, "clerk_calls": calls, "rows": rows}


def run(fixture: Path, ctx: Context) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_clerk_bench(fixture, ctx))
