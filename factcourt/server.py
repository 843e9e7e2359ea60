"""Helpers for the deployed LangGraph server: the standard assistants, one per protocol and rule.

Each assistant is a graph plus a saved context, e.g. ``factcheck`` with
``{"protocol": "jury", "rule": "adaptive"}``; clients then run it by assistant id.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent  # the folder that holds langgraph.json
PROTOCOLS = ("jury", "adversarial")
RULES = ("free", "mandatory_search", "adaptive")


def langgraph_dev(port: int, *, reload: bool = False) -> tuple[list[str], dict[str, str]]:
    """The ``langgraph dev`` command line for this project, and its environment.

    Analytics and the version check are off: both reach the network, which may be absent.
    """
    command = [
        str(Path(sys.executable).with_name("langgraph")),
        "dev",
        "--no-browser",
        "--port",
        str(port),
        "--config",
        str(PROJECT_ROOT / "langgraph.json"),
    ]
    if not reload:
        command.append("--no-reload")
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    return command, env


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
