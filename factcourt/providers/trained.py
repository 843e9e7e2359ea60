"""Trained moderators (Debate-SFT): a llama.cpp LoRA adapter beside the identity of its training run.

A moderator is a folder: ``adapter.gguf`` (the LoRA in llama.cpp's GGUF adapter format, which
the embedded server loads on top of the base GGUF) and ``moderator.json`` (base, data hash,
steps, settings). ``--role-model moderator=NAME`` names one under the cache's ``moderators``
folder, or gives its folder's path.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factcourt.errors import ConfigError
from factcourt.paths import cache_dir

ADAPTER = "adapter.gguf"
IDENTITY = "moderator.json"
# transformers' model types whose tensors llama.cpp names by gguf's map; llama's q and k rows
# are stored permuted for its rotary embedding (convert_hf_to_gguf's LlamaModel.permute)
ARCHITECTURES = {"llama": "llama", "qwen2": "qwen2"}
PERMUTED = {"llama"}


def trained_dir() -> Path:
    """Where trained moderators live by default, one folder each."""
    return cache_dir() / "moderators"


@dataclass(frozen=True)
class Trained:
    """A trained moderator: its folder and the identity of the run that made it."""

    folder: Path
    identity: dict[str, Any]

    @property
    def name(self) -> str:
        """What ``--role-model moderator=NAME`` calls it."""
        return self.folder.name

    @property
    def adapter(self) -> Path:
        """The LoRA GGUF the server loads."""
        return self.folder / ADAPTER

    @property
    def base_gguf(self) -> Path:
        """The GGUF the adapter goes on; a Hugging Face base has none the server could load."""
        base = self.identity.get("base_gguf")
        if not base:
            raise ConfigError(
                f"moderator {self.name} was trained from {self.identity.get('base')!r}, which is no "
                "GGUF: the embedded server loads GGUF only (convert the base with llama.cpp's "
                "convert_hf_to_gguf.py and train from that file)"
            )
        return Path(base)

    @classmethod
    def load(cls, folder: Path) -> Trained:
        """The moderator in ``folder`` (its identity file must be there)."""
        try:
            identity = json.loads((folder / IDENTITY).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{folder / IDENTITY} cannot be read as a trained moderator: {exc}") from exc
        return cls(folder, identity)

    @classmethod
    def write(cls, folder: Path, identity: dict[str, Any]) -> Trained:
        """Write the identity last, under a temporary name: a folder without it is no moderator."""
        temporary = folder / f".{IDENTITY}.part"
        temporary.write_text(json.dumps(identity, indent=2, sort_keys=True), encoding="utf-8")
        temporary.rename(folder / IDENTITY)
        return cls(folder, identity)


def find_trained(reference: str) -> Trained | None:
    """The moderator a model name refers to: a folder (or a file in it) or a name in ``trained_dir``."""
    path = Path(reference).expanduser()
    # a file names its folder; a bare name is never read as the working directory's moderator
    folders = [path.parent] if path.name in (IDENTITY, ADAPTER) else [path, trained_dir() / reference]
    for folder in folders:
        if (folder / IDENTITY).is_file() and (folder / ADAPTER).is_file():
            return Trained.load(folder)
    return None


def all_trained() -> list[Trained]:
    """Every finished moderator in ``trained_dir``."""
    root = trained_dir()
    if not root.is_dir():
        return []
    return [
        Trained.load(f)
        for f in sorted(root.iterdir())
        if (f / IDENTITY).is_file() and (f / ADAPTER).is_file()
    ]


def _permute(rows: Any, heads: int) -> Any:
    """convert_hf_to_gguf's rotary permutation of a projection's output rows."""
    return (
        rows.reshape(heads, 2, rows.shape[0] // heads // 2, *rows.shape[1:])
        .swapaxes(1, 2)
        .reshape(rows.shape)
    )


def write_lora_gguf(state: dict[str, Any], config: Any, alpha: float, path: Path) -> None:
    """Write peft's LoRA tensors as llama.cpp's adapter GGUF (as its convert_lora_to_gguf.py does).

    Each ``...q_proj.lora_A.weight`` / ``lora_B`` pair becomes ``blk.N.attn_q.weight.lora_a`` /
    ``.lora_b`` under gguf's tensor-name map; the file appears at ``path`` only when complete.
    """
    import gguf

    architecture = ARCHITECTURES.get(config.model_type)
    if architecture is None:
        raise ConfigError(
            f"no llama.cpp adapter can be written for architecture {config.model_type!r}; "
            f"supported: {sorted(ARCHITECTURES)}"
        )
    arch = next(k for k, v in gguf.MODEL_ARCH_NAMES.items() if v == architecture)
    names = gguf.get_tensor_name_map(arch, config.num_hidden_layers)
    pairs: dict[str, dict[str, Any]] = {}
    for key, tensor in state.items():
        module, _, which = key.removeprefix("base_model.model.").rpartition(".lora_")
        pairs.setdefault(module, {})[which.removesuffix(".weight")] = tensor.detach().float().cpu()
    temporary = path.with_name(f".{path.name}.part{os.getpid()}")
    writer = gguf.GGUFWriter(str(temporary), architecture)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    for module, pair in sorted(pairs.items()):
        name = names.get_name(f"{module}.weight", try_suffixes=(".weight",))
        if name is None:
            raise ConfigError(f"llama.cpp has no tensor for {module} of a {architecture} model")
        a, b = pair["A"], pair["B"]
        if architecture in PERMUTED and module.endswith(("q_proj", "k_proj")):
            heads = config.num_attention_heads if module.endswith("q_proj") else config.num_key_value_heads
            b = _permute(b, heads)
        writer.add_tensor(f"{name}.lora_a", a.numpy())
        writer.add_tensor(f"{name}.lora_b", b.numpy())
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    temporary.rename(path)
