"""The flags several ``bench`` commands add the same way, and how their handlers read them."""

from __future__ import annotations

import argparse
from pathlib import Path

from factcourt.bench.context import BenchContext
from factcourt.commands.shared import settings_from
from factcourt.errors import ConfigError

EVIDENCE_CONDITIONS = ["given", "local", "tavily", "serper", "none"]


def add_part(parser: argparse.ArgumentParser, default: str, says: str | None = None) -> None:
    """``--part``: the bench's fixed half of the cases by id (tune on dev, report on test), or all."""
    parser.add_argument("--part", choices=["all", "dev", "test"], default=default, help=says)


def add_cache(parser: argparse.ArgumentParser, says: str = "reuse cached model answers") -> None:
    """``--cache``: off unless given (see :func:`bench_settings`)."""
    parser.add_argument("--cache", action="store_true", help=says)


def add_json(parser: argparse.ArgumentParser) -> None:
    """``--json``: the command's findings as JSON instead of tables."""
    parser.add_argument("--json", action="store_true")


def add_dataset_specs(parser: argparse.ArgumentParser) -> None:
    """``--dataset PATH:EVIDENCE``, repeatable: read by :func:`dataset_specs`."""
    parser.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="PATH:EVIDENCE, repeatable (e.g. ../shared/data/halueval_qa/qa.jsonl:given)",
    )


def dataset_specs(items: list[str]) -> list[tuple[Path, str]]:
    """--dataset PATH:EVIDENCE values as (path, evidence condition) pairs."""
    datasets = []
    for item in items:
        path, sep, evidence = item.rpartition(":")
        if not sep or evidence not in EVIDENCE_CONDITIONS:
            raise ConfigError(f"--dataset takes PATH:EVIDENCE (e.g. qa.jsonl:given), not {item!r}")
        datasets.append((Path(path), evidence))
    return datasets


def bench_settings(args: argparse.Namespace) -> BenchContext:
    """The command's settings, with the bench's own ``--evidence`` and ``--cache`` read into them.

    ``--evidence`` is ``--search`` under the name the reports give it. Without ``--cache`` the
    cache is off: cached answers would hide what the calls cost.
    """
    if getattr(args, "evidence", None):
        args.search = args.evidence
    if hasattr(args, "cache"):
        args.no_cache = not args.cache
    return settings_from(args, BenchContext)
