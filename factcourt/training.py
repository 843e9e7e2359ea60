"""Debate-SFT's post-training (``factcourt train-moderator``): LoRA on SynDeC samples.

transformers + peft (the ``train`` extra); the loss counts the target's tokens only. The base is
one of the project's GGUF models (transformers dequantises it; the copy is kept beside the GGUF,
since reading a GGUF this way takes a minute even for 135M parameters) or any Hugging Face path.
The run checkpoints its adapter and optimiser every few steps and resumes from there after a
Ctrl-C or a kill; the finished moderator is a llama.cpp LoRA GGUF with its identity beside it
(``providers.trained``), each written under a temporary name and renamed at the end.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from factcourt.errors import BackendError, ConfigError, InputError
from factcourt.inputs import read_rows
from factcourt.providers.trained import (
    ADAPTER,
    IDENTITY,
    Trained,
    trained_dir,
    write_lora_gguf,
)
from factcourt.providers.weights import LOCAL_MODELS, ensure_weights

GROUPS = {"all": ("correct", "error"), "correct": ("correct",), "error": ("error",)}
CHECKPOINT = "checkpoint"
# LoRA on every projection of the attention and the MLP, as HerO and DebateCV's setup (which
# copies HerO's) train it
TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass(frozen=True)
class TrainSettings:
    """What a training run depends on (the paper's LoRA rank, alpha, lr and epochs by default)."""

    rank: int = 128
    alpha: float = 256.0
    lr: float = 2e-5
    epochs: float = 2.0
    batch: int = 8  # samples per optimiser step (gradient accumulation); the paper gives none
    max_steps: int | None = None  # stop early (tests, a quick look)
    max_tokens: int = 4096  # the embedded server's window: longer samples could never be served
    samples: str = "all"  # "correct" and "error" are the paper's ablations w/o C_error, w/o C_correct
    seed: int = 0


@dataclass(frozen=True)
class Sample:
    """One tokenised sample: its ids, and labels that are -100 outside the target."""

    input_ids: list[int]
    labels: list[int]


def read_samples(path: Path, groups: tuple[str, ...]) -> list[dict[str, Any]]:
    """The SynDeC samples of ``groups`` in a synth-sft file; anything else there is bad input."""
    samples = []
    for number, row in read_rows(path, "SynDeC"):
        if not isinstance(row, dict) or not isinstance(row.get("messages"), list) or "target" not in row:
            raise InputError(f"{path}:{number}: not a synth-sft sample (no 'messages' and 'target')")
        if row.get("group") in groups:
            samples.append(row)
    if not samples:
        raise InputError(f"{path} holds no {'/'.join(groups)} sample to train on")
    return samples


def tokenise(tokenizer: Any, sample: dict[str, Any]) -> Sample:
    """The chat template over the messages and the target; the prompt's tokens are masked out."""
    messages = sample["messages"]
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    full = tokenizer.apply_chat_template(
        [*messages, {"role": "assistant", "content": sample["target"]}], tokenize=False
    )
    if not full.startswith(prompt):
        raise ConfigError("the base model's chat template does not end a prompt where its answer begins")
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    ids = prompt_ids + tokenizer(full[len(prompt) :], add_special_tokens=False)["input_ids"]
    return Sample(ids, [-100] * len(prompt_ids) + ids[len(prompt_ids) :])


def file_sha256(path: Path) -> str:
    """The data's identity: a moderator names what it was trained on."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def base_gguf(base: str) -> Path | None:
    """The GGUF file a base names: a shipped local model (``smollm2``, ``local:qwen-0.5b``) or a path."""
    name = base.removeprefix("local:")
    if name in LOCAL_MODELS:
        return ensure_weights(LOCAL_MODELS[name])
    path = Path(base).expanduser()
    return path if path.suffix == ".gguf" else None


def _available_bytes(device: str) -> int | None:
    """Free memory where the model will live (None: unknown)."""
    import torch

    if device == "cuda":
        return torch.cuda.mem_get_info()[0]
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None


def check_memory(weight_bytes: int, device: str, what: str) -> None:
    """Refuse a base that would not fit: float32 weights, their LoRA and the activations."""
    needed, free = int(weight_bytes * 1.5) + (1 << 29), _available_bytes(device)
    if free is not None and needed > free:
        raise ConfigError(
            f"too little memory to train {what}: it needs about {needed / 2**30:.1f} GiB and "
            f"{free / 2**30:.1f} GiB is free on {device}; train a smaller base"
        )


def hf_copy(gguf: Path, device: str) -> Path:
    """The GGUF dequantised into a Hugging Face folder, made once (beside it when that folder is writable)."""
    stat = gguf.stat()
    digest = hashlib.sha256(f"{gguf.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    home = gguf.parent if os.access(gguf.parent, os.W_OK) else trained_dir().parent / "models"
    folder = home / "hf" / f"{gguf.stem}-{digest}"
    if folder.is_dir():
        return folder
    # Q4 holds about 4.5 bits a weight: float32 takes about 7 times the file
    check_memory(stat.st_size * 7, "cpu", gguf.name)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ConfigError(f"cannot load base model {gguf}: {str(exc).splitlines()[0][:200]}") from exc
    temporary = folder.with_name(folder.name + f".part{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    tokenizer.save_pretrained(temporary)
    # transformers will not save a model it read from GGUF: its dequantised tensors and config will
    from safetensors.torch import save_model

    save_model(model, str(temporary / "model.safetensors"))
    model.config.__dict__.pop("quantization_config", None)
    model.config.save_pretrained(temporary)
    temporary.rename(folder)
    return folder


def load_base(base: str, device: str) -> tuple[Any, Any, Path | None]:
    """The base model (float32 on CPU, bfloat16 on CUDA), its tokenizer and its GGUF for serving."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = base_gguf(base)
    if gguf is not None and not gguf.is_file():
        raise ConfigError(f"no such GGUF file: {gguf}")
    source = str(hf_copy(gguf, device)) if gguf is not None else base
    weights = sum(p.stat().st_size for p in Path(source).glob("*.safetensors")) if gguf else 0
    check_memory(weights, device, base)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        # transformers types .to through a decorator that reads the device as the model; without
        # the train extra the line is unchecked and the ignore unused
        model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype).to(device)  # type: ignore[arg-type, unused-ignore]
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"cannot load base model {base!r}: {str(exc).splitlines()[0][:200]}") from exc
    return model, tokenizer, gguf


def _device(requested: str) -> str:
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--device cuda: torch sees no CUDA device here")
    return requested


def _save_checkpoint(folder: Path, model: Any, optimizer: Any, step: int, run: dict[str, Any]) -> None:
    """The adapter and optimiser after ``step`` optimiser steps, replacing the last checkpoint whole."""
    import torch
    from peft import get_peft_model_state_dict

    temporary = folder.with_name(folder.name + ".part")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    torch.save(
        {"adapter": get_peft_model_state_dict(model), "optimizer": optimizer.state_dict(), "step": step},
        temporary / "state.pt",
    )
    (temporary / "run.json").write_text(json.dumps(run, sort_keys=True), encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    temporary.rename(folder)


def _order(n: int, epoch: int, seed: int) -> list[int]:
    """The samples' order in ``epoch``: fixed by the seed, so a resumed run sees the same batches."""
    order = list(range(n))
    random.Random(seed * 1000 + epoch).shuffle(order)
    return order


def train_moderator(
    data: Path,
    base: str,
    out: Path,
    settings: TrainSettings = TrainSettings(),
    *,
    device: str = "auto",
    save_every: int = 10,
    progress: Callable[[int, int, float | None], None] | None = None,
) -> Trained:
    """Train a moderator on ``data`` (synth-sft's JSONL) from ``base``; write it to ``out``.

    ``progress(step, total, loss)`` is called once before the first step and after each one.
    """
    data, out = Path(data), Path(out)
    samples = read_samples(data, GROUPS[settings.samples])
    try:
        import peft  # noqa: F401
        import torch
    except ImportError as exc:
        raise ConfigError(
            f"train-moderator needs the train extra ({exc.name} is missing): pip install -e '.[train]'"
        ) from exc
    run = {"base": base, "data_sha256": file_sha256(data), **asdict(settings)}
    if (out / IDENTITY).is_file():
        done = Trained.load(out)
        if {k: done.identity.get(k) for k in run} == run:
            return done  # this very run finished before
        raise ConfigError(f"{out} holds a moderator of another run; name another --out")
    device = _device(device)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(settings.seed)
    model, tokenizer, gguf = load_base(base, device)
    tokenised = [tokenise(tokenizer, s) for s in samples]
    kept = [t for t in tokenised if len(t.input_ids) <= settings.max_tokens]
    if not kept:
        raise InputError(f"every sample of {data} is longer than --max-tokens {settings.max_tokens}")
    from peft import LoraConfig, get_peft_model, set_peft_model_state_dict

    model = get_peft_model(
        model,
        LoraConfig(
            r=settings.rank,
            # peft types an int and divides it by r (unchecked, the ignore unused, without the train extra)
            lora_alpha=settings.alpha,  # type: ignore[arg-type, unused-ignore]
            lora_dropout=0.05,
            target_modules=TARGET_MODULES,
            task_type="CAUSAL_LM",
        ),
    )
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.lr)
    per_epoch = math.ceil(len(kept) / settings.batch)
    total = math.ceil(per_epoch * settings.epochs)
    if settings.max_steps:
        total = min(total, settings.max_steps)
    checkpoint, step = out / CHECKPOINT, 0
    if (checkpoint / "state.pt").is_file():
        stored = json.loads((checkpoint / "run.json").read_text(encoding="utf-8"))
        if stored != run:
            raise ConfigError(f"{checkpoint} is a checkpoint of another run; name another --out")
        state = torch.load(checkpoint / "state.pt", map_location=device, weights_only=True)
        set_peft_model_state_dict(model, state["adapter"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
    model.train()
    loss_value: float | None = None
    if progress:
        progress(step, total, loss_value)
    try:
        while step < total:
            epoch, first = divmod(step * settings.batch, per_epoch * settings.batch)
            order = _order(len(kept), epoch, settings.seed)
            batch = order[first : first + settings.batch]
            optimizer.zero_grad()
            losses = []
            for index in batch:
                sample = kept[index]
                ids = torch.tensor([sample.input_ids], device=device)
                labels = torch.tensor([sample.labels], device=device)
                loss = model(input_ids=ids, labels=labels).loss / len(batch)
                loss.backward()
                losses.append(loss.item())
            optimizer.step()
            step, loss_value = step + 1, sum(losses)
            if step % save_every == 0 and step < total:
                _save_checkpoint(checkpoint, model, optimizer, step, run)
            if progress:
                progress(step, total, loss_value)
    except torch.OutOfMemoryError as exc:
        raise BackendError(f"training ran out of memory on {device} at step {step + 1}: {exc}") from exc
    except BaseException:
        # Ctrl-C or SIGTERM: keep the steps done (the optimiser's state is that of ``step``)
        _save_checkpoint(checkpoint, model, optimizer, step, run)
        raise
    from peft import get_peft_model_state_dict

    identity = {
        **run,
        "base_gguf": str(gguf) if gguf else None,
        "architecture": model.config.model_type,
        "steps": step,
        "trained_on": len(kept),
        "skipped_longer_than_max_tokens": len(tokenised) - len(kept),
        "final_loss": loss_value,
        "device": device,
    }
    write_lora_gguf(
        get_peft_model_state_dict(model),
        model.config,
        settings.alpha,
        out / ADAPTER,
    )
    trained = Trained.write(out, identity)
    shutil.rmtree(checkpoint, ignore_errors=True)
    return trained
