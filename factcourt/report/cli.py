"""The command line's part of the HTML report: the ``--html`` option and ``factcourt report-html``."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from factcourt.errors import FactcourtError


def add_html_option(parser: argparse.ArgumentParser) -> None:
    """``--html FILE`` on a command whose result the report can show."""
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write the result as one HTML page that opens offline in any browser",
    )


def prepare_html(args: argparse.Namespace) -> None:
    """Check ``--html``'s file before the run (exit 2), as ``--out`` is checked."""
    from factcourt.cli_shared import prepare_out

    prepare_out(args.html, "--html")


async def stored_result(url: str, thread: str) -> dict[str, Any]:
    """The result of a finished check, verify or detect run on a LangGraph server, from its thread.

    The server stores the state as JSON; the graph's own state schema turns it back into the
    objects the API's reports read.
    """
    from langgraph_sdk import get_client
    from pydantic import TypeAdapter

    from factcourt import api

    try:
        state = await get_client(url=url).threads.get_state(thread)
    except Exception as exc:  # noqa: BLE001 (connection and HTTP status errors alike)
        raise FactcourtError(f"could not read thread {thread} from {url}: {exc}") from exc
    values: dict[str, Any] = dict(state.get("values") or {})  # type: ignore[arg-type]
    ctx = api.make_context()  # a run's settings are not in its state: the page names the defaults
    if "answer" in values:
        from factcourt.graphs.hallucination import graph

        return api.detection_json(TypeAdapter(graph.builder.state_schema).validate_python(values), ctx)
    if "response" in values:
        from factcourt.graphs.factcheck import graph

        return api.report(TypeAdapter(graph.builder.state_schema).validate_python(values), ctx)
    if values.get("results"):  # verify's thread shows only its output, the claim's result
        from factcourt.graphs.verify import graph

        return api.claim_json(TypeAdapter(graph.builder.state_schema).validate_python(values)["results"][0])
    raise FactcourtError(f"thread {thread} holds no finished check, verify or detect run")


def cmd_report_html(args: argparse.Namespace) -> int:
    """Write the page of a run stored on a LangGraph server."""
    from factcourt.cli_shared import prepare_out
    from factcourt.report import write_html

    prepare_out(args.out)
    write_html(args.out, asyncio.run(stored_result(args.url, args.thread)))
    return 0


def add_report_command(sub: argparse._SubParsersAction) -> None:
    """Register ``report-html``."""
    p = sub.add_parser(
        "report-html",
        help="the HTML page of a finished run on a LangGraph server",
        description="Read a finished check, verify or detect run from a thread of a LangGraph server "
        "(factcourt serve) and write it as one HTML page. Exit 0 written, 1 not readable, 2 bad input.",
    )
    p.add_argument("--url", default="http://127.0.0.1:2024", help="the server's URL")
    p.add_argument("--thread", required=True, help="the thread's id")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.set_defaults(func=cmd_report_html)
