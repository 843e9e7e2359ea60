"""Training's API: Debate-SFT's ``train_moderator`` and the moderators trained; the trained reader's file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from factcourt.api import checked
from factcourt.errors import InputError


@checked
def train_moderator(
    data: Path,
    base: str,
    out: Path | None = None,
    *,
    device: str = "auto",
    save_every: int = 10,
    progress: Callable[[int, int, float | None], None] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Debate-SFT: train a moderator on synth-sft's samples; its folder and training identity.

    ``settings`` are :class:`factcourt.training.TrainSettings` fields (rank, alpha, lr, epochs,
    batch, max_steps, max_tokens, samples, seed). ``out`` defaults to a folder named after the
    base and the data in the cache's ``moderators``, which ``--role-model moderator=NAME`` finds.
    """
    from factcourt.training import TrainSettings, file_sha256
    from factcourt.training import train_moderator as train

    data = Path(data)
    if not data.is_file():
        raise InputError(f"no such SynDeC file: {data}")
    chosen = TrainSettings(**{k: v for k, v in settings.items() if v is not None})
    if out is None:
        from factcourt.providers.trained import trained_dir

        stem = Path(base.removeprefix("local:")).stem.lower()
        out = trained_dir() / f"debate-sft-{stem}-{file_sha256(data)[:8]}-{chosen.samples}"
    trained = train(data, base, Path(out), chosen, device=device, save_every=save_every, progress=progress)
    return {"name": trained.name, "folder": str(trained.folder), **trained.identity}


def trained_moderators() -> list[dict[str, Any]]:
    """Every trained moderator in the cache: name, folder and training identity."""
    from factcourt.providers.trained import all_trained

    return [{"name": t.name, "folder": str(t.folder), **t.identity} for t in all_trained()]


def shipped_reader() -> Path:
    """The trained reader's weights file that ships with factcourt (``factcourt/readers/``)."""
    from factcourt.providers.reader import SHIPPED

    return SHIPPED


__all__ = [
    "shipped_reader",
    "train_moderator",
    "trained_moderators",
]
