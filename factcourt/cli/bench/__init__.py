"""``factcourt bench ...`` and ``factcourt synth-sft``: a module each, wired here.

Each module holds its command's flags (``add_command``) and handler; the flags several of them
add the same way are :mod:`factcourt.cli.bench.flags`.
"""

from __future__ import annotations

import argparse

from factcourt.cli.bench import (
    answers,
    calibrate,
    clerk,
    corrector,
    engine,
    perf,
    retrieval,
    rules,
    run,
    server,
    sweep,
    synth_sft,
)

# in the order ``factcourt bench --help`` lists them
BENCH_COMMANDS = [run, sweep, calibrate, clerk, answers, retrieval, corrector, perf, engine, rules, server]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``bench`` commands and ``synth-sft``."""
    bench = sub.add_parser("bench", help="benchmarks: quality, cost and speed")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCH")
    for command in BENCH_COMMANDS:
        command.add_command(bench_sub)
    synth_sft.add_command(sub)
