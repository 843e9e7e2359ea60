"""``factcourt bench`` and ``factcourt synth-sft`` subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_bench_commands(sub: argparse._SubParsersAction, add_settings: Callable) -> None:
    """Register the benchmark commands."""
    return None
