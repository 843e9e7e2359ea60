"""``factcourt train-moderator``: Debate-SFT's LoRA post-training of the moderator."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from factcourt.commands.shared import at_least_one, err, out
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


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

    p = sub.add_parser(
        "train-reader",
        help="build the trained reader's data, train it, or choose its calibration (the fit: train extra)",
        description="The reader of the first pass (claim + evidence -> supported, refuted, not addressed) "
        "in three steps: 'data' builds training rows from the dev parts of the shared claim sets "
        "and from the offline corpus (never a test part) with a data card; 'fit' fine-tunes MiniLM-L6 "
        "on the corpus's rows, then on the claim sets' (resumes from its checkpoints when run again); "
        "'calibrate' reads the held-back and "
        "searched dev claims and writes the calibration slopes into the weights. See "
        "factcourt/readers/README.md for the shipped reader's commands and figures.",
    )
    p.add_argument("step", choices=["data", "fit", "calibrate"])
    p.add_argument("--data", required=True, help="the folder of the training data (written by 'data')")
    p.add_argument("--shared", default="../shared/data", help="the shared benchmark data (../shared/data)")
    p.add_argument("--out", help="the weights file (default: the shipped one, factcourt/readers/)")
    p.add_argument("--per-set", type=at_least_one, default=1500, help="most rows of one claim set (1500)")
    p.add_argument("--synthetic", type=int, default=7500, help="rows made from the corpus (7500)")
    p.add_argument("--epochs", type=float, default=2.0, help="fit: epochs over the corpus's rows (2)")
    p.add_argument("--lr", type=float, default=8e-5, help="fit: learning rate over the corpus's rows (8e-5)")
    p.add_argument(
        "--set-steps",
        type=int,
        default=300,
        help="fit: batches of the claim sets' rows after the corpus's, each set weighing the same (300)",
    )
    p.add_argument(
        "--set-lr", type=float, default=3e-5, help="fit: learning rate over the claim sets' rows (3e-5)"
    )
    p.add_argument(
        "--verdicts-below",
        type=float,
        default=0.5,
        help="calibrate: the verdicts fitted are those whose P(not addressed) is below this (0.5)",
    )
    p.add_argument(
        "--exclude", action="append", default=[], help="a source to leave out of training (leave-one-out)"
    )
    p.set_defaults(func=cmd_train_reader)


def cmd_train_reader(args: argparse.Namespace) -> int:
    """Build the reader's data, train it, or choose its calibration on the dev parts."""
    if args.step == "data":
        from factcourt.bench.reader_data import build

        card = build(Path(args.shared), Path(args.data), per_set=args.per_set, synthetic=args.synthetic)
        out.print(f"{card['rows']} training rows, {card['held_back']} held back; sha256 {card['sha256']}")
        out.print(f"the data card: {escape(str(Path(args.data) / 'card.json'))}")
        return 0
    try:
        from factcourt import reader_training
    except ImportError as exc:  # torch or transformers
        err.print(f"train-reader needs the train extra ({exc.name} is missing): pip install -e '.[train]'")
        return 2
    from factcourt.api.training import shipped_reader

    weights = Path(args.out) if args.out else shipped_reader()
    if args.step == "fit":
        reader_training.train(
            Path(args.data),
            weights,
            epochs=args.epochs,
            lr=args.lr,
            set_steps=args.set_steps,
            set_lr=args.set_lr,
            exclude=tuple(args.exclude),
            progress=lambda line: err.print(escape(line)),
        )
        card = json.loads((Path(args.data) / "card.json").read_text(encoding="utf-8"))
        command = "factcourt train-reader fit --data DATA --out OUT" + "".join(
            f" --exclude {name}" for name in args.exclude
        )
        reader_training.stamp(weights, data_sha256=card["sha256"], command=command)
        out.print(f"trained reader: {escape(str(weights))}")
        return 0
    readings = reader_training.dev_readings(
        Path(args.data), Path(args.shared), weights, progress=lambda line: err.print(escape(line))
    )
    slopes = reader_training.choose_slopes(readings, args.verdicts_below)
    reader_training.stamp(weights, slopes=slopes)
    (weights.with_suffix(".dev.jsonl")).write_text(
        "".join(json.dumps(r) + "\n" for r in readings), encoding="utf-8"
    )
    out.print(
        f"calibration slopes {slopes}; the dev readings: {escape(str(weights.with_suffix('.dev.jsonl')))}"
    )
    return 0
