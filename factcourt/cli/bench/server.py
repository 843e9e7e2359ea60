"""``factcourt bench server``: the LangGraph server's cold start and per-run overhead."""

from __future__ import annotations

import argparse
import json

from factcourt.commands.shared import at_least_one


def cmd_bench_server(args: argparse.Namespace) -> int:
    """The LangGraph server's cold start and per-run overhead."""
    from factcourt.bench.server import run_server_bench
    from factcourt.serving.server import running_langgraph_dev

    print(json.dumps(run_server_bench(running_langgraph_dev, args.runs), indent=2))
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench server``."""
    p = bench_sub.add_parser("server", help="langgraph dev: cold start and streamed-run overhead")
    p.add_argument("--runs", type=at_least_one, default=5)
    p.set_defaults(func=cmd_bench_server)
