"""``factcourt synth-sft``: Debate-SFT training data (adversarial debate + Corrector)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.markup import escape

from factcourt.bench.context import BenchContext
from factcourt.commands.shared import (
    add_settings,
    at_least_one,
    fail,
    out,
    preflight,
    prepare_out,
    settings_values,
)


def cmd_synth_sft(args: argparse.Namespace) -> int:
    """Build Debate-SFT training data."""
    from factcourt.bench.sft import debate_context, synth_sft

    prepare_out(args.out)
    ctx = debate_context(settings_values(args))  # the options the user gave win over the preset
    preflight(ctx)
    counts = asyncio.run(synth_sft(Path(args.dataset), Path(args.out), ctx, args.limit, args.part))
    out.print(
        f"{counts['written']} samples written to {escape(args.out)} ({counts['corrected']} with a "
        f"Corrector-written target, C_error), {counts['failed']} failed, {counts['skipped']} "
        "already there"
    )
    if counts["failed"]:
        fail(
            f"{counts['failed']} samples failed (run again to retry them); first reason: "
            f"{counts['first_error']}"
        )
        return 1
    return 0


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``synth-sft``."""
    p = sub.add_parser("synth-sft", help="build Debate-SFT data (adversarial debate + Corrector)")
    p.add_argument(
        "--dataset",
        required=True,
        help="claims with four-way labels and evidence: AVeriTeC's dev.json, or JSONL with meta.label_4way",
    )
    p.add_argument("--out", required=True, help="JSONL output (resumes when it exists)")
    p.add_argument("--limit", type=at_least_one, help="first N cases")
    p.add_argument(
        "--part",
        choices=["dev", "test", "all"],
        default="dev",
        help="the bench's fixed split; only 'dev' is synthesised: 'test' measures the trained moderator",
    )
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_synth_sft)
