"""``factcourt models | cache | serve | ui | assistants``: models, cache, the LangGraph server, its page."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.commands.shared import number, out
from factcourt.redact import redact


def cmd_models(args: argparse.Namespace) -> int:
    """Show which model each role uses and where its weights are."""
    from factcourt.api import models_by_role
    from factcourt.api.training import trained_moderators

    table = Table(title="Models by role")
    for col in ("role", "model", "endpoint", "structured output", "weights"):
        table.add_column(col)
    for role, c in models_by_role(args.model):
        weights = c.weights
        if weights:
            weights += " (present)" if Path(weights).exists() else " (fetched on first use)"
        # an endpoint's password (OPENAI_BASE_URL's too) is never shown
        table.add_row(role, escape(c.name), escape(redact(c.endpoint)), c.method, escape(weights))
    out.print(table)
    trained = trained_moderators()
    if trained:
        table = Table(title="Trained moderators (--role-model moderator=NAME)")
        for col in (
            "name",
            "base",
            "data sha256",
            "samples",
            "steps",
            "LoRA r/alpha, lr, epochs",
            "final loss",
        ):
            table.add_column(col)
        for t in trained:
            table.add_row(
                escape(t["name"]),
                escape(str(t["base"])),
                t["data_sha256"][:12],
                f"{t['trained_on']} ({t['samples']})",
                str(t["steps"]),
                f"{t['rank']}/{t['alpha']:g}, {t['lr']:g}, {t['epochs']:g}",
                f"{t['final_loss']:.3f}",
            )
        out.print(table)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """Show what the cache directory holds; ``--clear`` deletes the caches and crashed runs."""
    from factcourt.api import clear_cache
    from factcourt.paths import cache_dir

    if args.clear:
        answers, deleted, live = clear_cache()
        out.print(
            f"deleted {answers} cached answers and searches and the checkpoints of {deleted} "
            f"unfinished run(s); {live} live run(s) kept"
        )
    table = Table(title=f"Cache: {escape(str(cache_dir()))}")
    for col in ("file", "MB"):
        table.add_column(col)
    for path in sorted(p for p in cache_dir().rglob("*") if p.is_file()):
        table.add_row(escape(str(path.relative_to(cache_dir()))), f"{path.stat().st_size / 1e6:.2f}")
    out.print(table)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run ``langgraph dev`` for this project (Studio and the HTTP API)."""
    from factcourt.serving.server import PROJECT_ROOT, check_port_free, langgraph_dev

    check_port_free(args.port)
    command, env = langgraph_dev(args.port, reload=not args.no_reload)
    os.chdir(PROJECT_ROOT)  # langgraph.json's graph paths resolve against the working directory
    os.execvpe(command[0], command, env)
    return 0  # not reached


def cmd_ui(args: argparse.Namespace) -> int:
    """Serve the page to check text in, beside the graphs, until Ctrl-C."""
    from factcourt.serving.server import serve_page

    serve_page(args.port, model=args.model, browser=not args.no_browser)
    return 0  # not reached: Ctrl-C ends it


def cmd_assistants(args: argparse.Namespace) -> int:
    """Create one assistant per graph, protocol and rule on a running server."""
    from factcourt.serving.server import create_standard_assistants

    made = asyncio.run(create_standard_assistants(args.url, args.timeout))
    table = Table(title=f"Assistants on {escape(args.url)}")
    for col in ("name", "assistant_id", "context"):
        table.add_column(col)
    for a in made:
        table.add_row(escape(a["name"]), a["assistant_id"], escape(json.dumps(a.get("context") or {})))
    out.print(table)
    return 0


def port_number(value: str) -> int:
    """A TCP port, 1 to 65535, or a usage error (exit 2)."""
    try:
        port = int(value)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, not {value!r}")
    return port


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``models``, ``cache``, ``serve``, ``ui`` and ``assistants``."""
    p = sub.add_parser("models", help="show the model each role uses")
    p.add_argument("--model", help="as in check")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("cache", help="show the cache directory; --clear empties it")
    p.add_argument(
        "--clear",
        action="store_true",
        help="delete the cached answers and searches and the checkpoints of unfinished runs that "
        "are not live (the model weights stay)",
    )
    p.set_defaults(func=cmd_cache)

    p = sub.add_parser("serve", help="start the LangGraph server and Studio (langgraph dev)")
    p.add_argument("--port", type=port_number, default=2024)
    p.add_argument("--no-reload", action="store_true")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "ui",
        help="a page to check text in, served by the LangGraph server (127.0.0.1, a free port)",
        description="Start the LangGraph server with the page to check text in at /ui (check, verify, "
        "detect; the claims marked as they are decided; the evidence, votes and debate of each; "
        "downloads; recent runs), print its address and open it where a browser exists. Ctrl-C stops it.",
    )
    p.add_argument("--port", type=port_number, help="the port (default: a free one)")
    p.add_argument(
        "--model",
        help="the model every run uses, as in check (default: the server's); a run may not name another",
    )
    p.add_argument("--no-browser", action="store_true", help="print the address only")
    p.set_defaults(func=cmd_ui)

    p = sub.add_parser(
        "assistants",
        help="create the standard assistants on a LangGraph server",
        description="One assistant per claim graph (factcheck, verify), protocol and "
        "rule, e.g. factcheck-jury-adaptive, and one per hallucination layout (hallucination-agents, "
        "hallucination-team). Existing ones are kept.",
    )
    p.add_argument("--url", default="http://127.0.0.1:2024", help="the server's URL")
    p.add_argument(
        "--timeout",
        type=number(float, 0, above=True),
        default=30.0,
        help="seconds to wait for each reply (30)",
    )
    p.set_defaults(func=cmd_assistants)
