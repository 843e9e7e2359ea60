"""The HTML report on the command line: the ``--html`` option and ``factcourt report-html``."""

from __future__ import annotations

import argparse
import asyncio
from urllib.parse import urlsplit

from factcourt.commands.shared import exit_code, prepare_out
from factcourt.errors import ConfigError


def add_html_option(parser: argparse.ArgumentParser) -> None:
    """``--html FILE`` on a command whose result the report can show."""
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write the result as one HTML page that opens offline in any browser",
    )


def prepare_html(args: argparse.Namespace) -> None:
    """Check ``--html``'s file before the run (exit 2), as ``--out`` is checked."""
    prepare_out(args.html, "--html")


def check_url(url: str) -> None:
    """Refuse (exit 2) a ``--url`` that is no http(s) address of a server."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018  a port that is no number raises here
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"--url takes the server's http(s) address, such as http://127.0.0.1:2024, not {url!r}"
        )


def cmd_report_html(args: argparse.Namespace) -> int:
    """Write the page of a run stored on a LangGraph server."""
    from factcourt.api import stored_result
    from factcourt.report import write_html

    check_url(args.url)
    prepare_out(args.out)
    result = asyncio.run(stored_result(args.url, args.thread))
    write_html(args.out, result)
    return exit_code(result)  # a run that finished with parts it could not check says so, as check does


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``report-html``."""
    p = sub.add_parser(
        "report-html",
        help="the HTML page of a finished run on a LangGraph server",
        description="Read a finished check, verify or detect run from a thread of a LangGraph server "
        "(factcourt serve) and write it as one HTML page. Exit 0 written; 1 not readable, or the run failed "
        "or has not finished (no page), or it finished with parts it could not check (the page is written, "
        "as check --html writes it); 2 bad input.",
    )
    p.add_argument("--url", default="http://127.0.0.1:2024", help="the server's URL")
    p.add_argument("--thread", required=True, help="the thread's id")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.set_defaults(func=cmd_report_html)
