"""Helpers for the deployed LangGraph server: the standard assistants, one per protocol and rule.

Each assistant is a graph plus a saved context, e.g. ``factcheck`` with
``{"protocol": "jury", "rule": "adaptive"}``; clients then run it by assistant id.
"""

from __future__ import annotations

from typing import Any

PROTOCOLS = ("jury", "adversarial")
RULES = ("free", "mandatory_search", "adaptive")


def standard_assistants() -> list[dict[str, Any]]:
    """Name, graph and context of every standard assistant."""
    return [
        {
            "name": f"{graph}-{protocol}-{rule}",
            "graph_id": graph,
            "context": {"protocol": protocol, "rule": rule},
        }
        for graph in ("factcheck", "verify")
        for protocol in PROTOCOLS
        for rule in RULES
    ]


async def create_standard_assistants(url: str) -> list[dict[str, Any]]:
    """Create the standard assistants on the server at ``url`` (existing ones are reused)."""
    from langgraph_sdk import get_client

    client = get_client(url=url)
    existing = {a["name"]: a for a in await client.assistants.search(limit=100)}
    made = []
    for spec in standard_assistants():
        if spec["name"] in existing:
            made.append(existing[spec["name"]])
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
