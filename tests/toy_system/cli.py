"""``factcourt echo``: the toy's command."""

from __future__ import annotations

import argparse
import asyncio

from factcourt.commands.batch import add_batch_options, run_batch_command
from factcourt.commands.shared import add_settings, emit_result, exit_code, out, settings_from
from tests.toy_system.context import EchoContext
from tests.toy_system.state import EchoResult


def cmd_echo(args: argparse.Namespace) -> int:
    """Judge one text."""
    from tests.toy_system.api import aecho

    result = asyncio.run(aecho(args.text, settings_from(args, EchoContext)))
    emit_result(result, args, print_echo)
    return exit_code(result)


def cmd_echo_rows(args: argparse.Namespace) -> int:
    """Judge every text of ``--batch``."""
    return run_batch_command(args, "echo", settings_from(args, EchoContext))


def print_echo(result: EchoResult) -> None:
    """One line."""
    out.print("loud" if result.loud else "quiet")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``echo``."""
    p = sub.add_parser("echo", help="does a text shout? (a toy system)")
    p.add_argument("text", nargs="?", default="")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", help="also write the JSON result to this file (with --batch: the results)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_batch_options(p, '{"id", "text"}', cmd_echo_rows)
    add_settings(p, EchoContext)
    p.set_defaults(func=cmd_echo)
