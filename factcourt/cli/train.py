"""``factcourt train-moderator``: Debate-SFT's LoRA post-training of the moderator."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from factcourt.cli.shared import at_least_one, err, out
from factcourt.progress import Progress


def cmd_train_moderator(args: argparse.Namespace) -> int:
    """Train a moderator on synth-sft's samples and say how to use it."""
    from factcourt.api.training import train_moderator

    with Progress(
        TextColumn("[bold]train-moderator"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[loss]}"),
        console=err,
    ) as bar:
        task = bar.add_task("train", total=None, loss="loading the base model")

        def shown(step: int, total: int, loss: float | None) -> None:
            bar.update(task, completed=step, total=total, loss="" if loss is None else f"loss {loss:.3f}")

        trained = train_moderator(
            Path(args.data),
            args.base,
            Path(args.out) if args.out else None,
            device=args.device,
            save_every=args.save_every,
            progress=shown,
            rank=args.rank,
            alpha=args.alpha,
            lr=args.lr,
            epochs=args.epochs,
            batch=args.batch,
            max_steps=args.max_steps,
            max_tokens=args.max_tokens,
            samples=args.samples,
            seed=args.seed,
        )
    out.print(
        f"moderator {escape(trained['name'])}: {trained['steps']} steps on {trained['trained_on']} "
        f"samples ({trained['samples']}), final loss {trained['final_loss']:.3f}, in "
        f"{escape(trained['folder'])}"
    )
    out.print(f"use it with: --role-model moderator={escape(trained['name'])}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``train-moderator``."""
    p = sub.add_parser(
        "train-moderator",
        help="Debate-SFT: LoRA-train the moderator on synth-sft's samples (needs the train extra)",
        description="LoRA supervised fine-tuning of the moderator on synth-sft's SynDeC samples, "
        "loss on the answer's tokens only. Defaults are DebateCV's (rank 128, alpha 256, lr 2e-5, "
        "2 epochs). A quick CPU run: --rank 16 --alpha 32 --lr 2e-4 --epochs 1. Interrupted, the "
        "same command resumes from the last checkpoint. Needs: pip install -e '.[train]'.",
    )
    p.add_argument("--data", required=True, help="synth-sft's JSONL")
    p.add_argument(
        "--base",
        default="smollm2",
        help="base model: a shipped local model (smollm2, qwen-0.5b, qwen-1.5b), a GGUF file, or a "
        "Hugging Face path (served only from a GGUF of it) (default smollm2)",
    )
    p.add_argument("--out", help="folder of the trained moderator (default: one named after base and data)")
    p.add_argument("--rank", type=at_least_one, help="LoRA rank (128; quick: 16)")
    p.add_argument("--alpha", type=float, help="LoRA alpha (256; quick: 32)")
    p.add_argument("--lr", type=float, help="learning rate (2e-5; quick: 2e-4)")
    p.add_argument("--epochs", type=float, help="epochs over the samples (2; quick: 1)")
    p.add_argument("--batch", type=at_least_one, help="samples per optimiser step (8)")
    p.add_argument("--max-steps", type=at_least_one, help="stop after this many optimiser steps")
    p.add_argument("--max-tokens", type=at_least_one, help="skip longer samples (4096, the server's window)")
    p.add_argument(
        "--samples",
        choices=["all", "correct", "error"],
        help="all (Debate-SFT); correct: w/o C_error; error: w/o C_correct (the paper's ablations)",
    )
    p.add_argument("--seed", type=int, help="shuffling and LoRA initialisation (0)")
    p.add_argument(
        "--device", choices=["auto", "cpu", "cuda"], default="auto", help="auto: CUDA when present"
    )
    p.add_argument("--save-every", type=at_least_one, default=10, help="checkpoint every N steps (10)")
    p.set_defaults(func=cmd_train_moderator)
