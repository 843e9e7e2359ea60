"""The command line: ``factcourt check | verify | detect | audit | pyramid | leaderboard | models | ...``.

One module per command group parses, calls the API (``factcourt.api``) and renders. A system's
group is named by its entry in the registry (``factcourt.systems``); the groups that run no one
system (tools, benchmarks, training, reports) are :func:`groups`. Exit codes: 0 done, 1 the run
failed, 2 bad input or configuration.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

from factcourt.commands.batch import chosen
from factcourt.commands.shared import check_paths, err, fail, output_lock
from factcourt.errors import FactcourtError, first_line
from factcourt.inputs import undecodable
from factcourt.redact import redact
from factcourt.terminal import neutralise


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error messages show the words they quote harmlessly.

    "unrecognized arguments: ..." quotes the command line as given: an escape sequence in it
    would act on the terminal. Its subcommands' parsers are of this class too.
    """

    def error(self, message: str) -> NoReturn:
        """Print the usage and the message, neutralised, and exit 2."""
        super().error(neutralise(message))

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse, then refuse an argument that holds bytes that are not UTF-8 (exit 2).

        A cache key, a prompt or a JSON file would fail on it mid-run with a UnicodeEncodeError.
        """
        parsed, rest = super().parse_known_args(args, namespace)
        for action in self._actions:
            if problem := undecodable(getattr(parsed, action.dest, None)):
                self.error(f"argument {'/'.join(action.option_strings) or action.dest}: {problem}")
        return parsed, rest


class LogFormatter(logging.Formatter):
    """A log line as the terminal shows it: no key in it, and its escape sequences neutralised.

    A library's warning may quote what it was given or answered: user text, an endpoint's words.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The line, redacted and neutralised."""
        return neutralise(redact(super().format(record)))


def groups() -> list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]]:
    """The command groups of no one system: tools, benchmarks, training, reports."""
    from factcourt.cli import bench, tools, train
    from factcourt.commands import report

    return [tools.add_commands, bench.add_commands, train.add_commands, report.add_commands]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand: each system's (the registry's) and the groups'."""
    from factcourt.systems import SYSTEMS  # the registry sits above every command it names

    # typed as argparse's: every add_commands takes its subparsers (which make Parsers all the same)
    parser: argparse.ArgumentParser = Parser(
        prog="factcourt",
        description="Check what an LLM wrote: agents debate each claim over retrieved evidence. "
        "With no OPENAI_API_KEY it runs offline on an embedded llama.cpp model and a "
        "local Wikipedia corpus.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for add_commands in dict.fromkeys([*(s.cli for s in SYSTEMS if s.cli), *groups()]):
        add_commands(sub)
    _debug_everywhere(parser)
    return parser


def _debug_everywhere(parser: argparse.ArgumentParser) -> None:
    """Accept ``--debug`` after any subcommand too, as the error messages suggest it."""
    for action in parser._actions:  # argparse lists subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                # SUPPRESS: a subcommand without the flag leaves the main parser's value alone
                command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
                _debug_everywhere(command)


def drop_closed_loop_reports(unraisable: sys.UnraisableHookArgs) -> None:
    """After a Ctrl-C, a transport collected once the run's event loop closed says so: noise."""
    if isinstance(unraisable.exc_value, RuntimeError) and "Event loop is closed" in str(unraisable.exc_value):
        return
    sys.__unraisablehook__(unraisable)


def _quiet_unstarted_steps_on_ctrl_c() -> None:
    """Ctrl-C drops the run's steps that had not started, and Python warns of each such coroutine.

    Nothing is lost (a resumable run resumes from its checkpoints), so the warnings ("coroutine
    'arun_with_retry' was never awaited") are noise before "interrupted": silenced from the Ctrl-C on.
    So are asyncio's reports of the tasks the teardown drops: a checkpoint write LangGraph had
    scheduled finds the saver's connection closed ("Task exception was never retrieved").
    """
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or getattr(previous, "quiets_unstarted", False):
        return  # ignored (a background job), or wrapped by an earlier main() in this process

    def on_ctrl_c(signum: int, frame: FrameType | None) -> None:
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        sys.unraisablehook = drop_closed_loop_reports
        previous(signum, frame)

    setattr(on_ctrl_c, "quiets_unstarted", True)  # read back with getattr, as on any handler
    if threading.current_thread() is threading.main_thread():  # where Python allows handlers
        signal.signal(signal.SIGINT, on_ctrl_c)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a command and map errors to exit codes."""
    to_stderr = logging.StreamHandler()
    to_stderr.setFormatter(LogFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[to_stderr])
    # a library's warnings.warn too, redacted and neutralised; released first, as a second
    # main() in one process (tests) would otherwise keep the first one's capture, since undone
    logging.captureWarnings(False)
    logging.captureWarnings(True)
    parser = build_parser()
    args = parser.parse_args(argv)
    from factcourt.api import stop_servers_on_exit

    stop_servers_on_exit()  # main() may run again in this process (tests) after a Ctrl-C
    _quiet_unstarted_steps_on_ctrl_c()
    try:
        check_paths(args)  # no output overwrites an input or another output
        if hasattr(args, "store"):  # a checking command: its store is reached before any call
            from factcourt.api import use_store

            use_store(args.store)
        with output_lock(args):
            code = chosen(args)(args)
        sys.stdout.flush()  # a closed stdout shows here, not in Python's exit ("Exception ignored")
        return code
    except BrokenPipeError:
        # the reader went (``| head -1``): end quietly, as a program SIGPIPE ends; what is left
        # to write goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except FactcourtError as exc:
        fail(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        from factcourt.api import stop_servers

        stop_servers()
        err.print("[yellow]interrupted[/]")
        return 130
    except Exception as exc:  # noqa: BLE001
        if args.debug:
            raise
        # its first line: a library's message (pydantic's, say) runs to many; --debug shows them
        said = redact(first_line(exc))
        fail(f"{type(exc).__name__}: {said} (run with --debug for details)")
        return 1
    finally:
        from factcourt.tracing import flush_traces

        flush_traces()


def run() -> None:
    """Console entry point: ``main``, then an exit that no pending trace upload can delay.

    With tracing on and LangSmith unreachable, the client's exit handlers retry for tens of
    seconds; :func:`flush_traces` already gave uploads a bounded chance, so the process ends
    here without running them (the embedded model server is left first).
    """
    code = main()
    from factcourt.tracing import tracing_enabled

    if not tracing_enabled():
        sys.exit(code)
    from factcourt.api import leave_servers

    leave_servers()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
