"""Stored Platt calibrations of the first pass's label reading: one per model and prompt.

A raw label probability says how the model leans, not how often it is right, and how far the
two differ depends on the model: a calibration is fitted per model on the dev parts of the
benchmark sets (``factcourt bench calibrate``) and kept with the model's identity and a digest
of the prompt it was read under, so another model or prompt is never scaled by a stranger's fit.
The shipped folder holds the fit for the embedded default; a user's fits live in the cache
directory and win over it.

How much a reading says depends on the evidence it was read over: over a dataset's or a user's
given passages the 1.5B model's lean is informative, over what the local search found it is
nearly noise. One pooled fit is overconfident on the one and underconfident on the other, so the
pooled fit sets only where the verdict turns, and a slope per evidence kind says how sure to be
(``fit_slope``): on the dev parts, leave one dataset out, this kept the pooled fit's verdicts and
cut the mean ECE from .193 to .057.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from factcourt.context.base import BaseContext
from factcourt.metrics.calibration import logit, platt
from factcourt.paths import cache_dir
from factcourt.store import write_whole

SHIPPED = Path(__file__).resolve().parent.parent / "calibrations"


@dataclass(frozen=True)
class Calibration:
    """sigmoid(a * logit(p) + b), fitted for ``model`` under the label prompt ``prompt``.

    ``slopes`` (per evidence kind, ``evidence_kind``) replace ``a`` around the same boundary
    (-b / a, where the pooled fit turns the verdict) for readings over that kind of evidence.
    """

    a: float
    b: float
    model: str
    prompt: str
    fitted_on: dict[str, Any] = field(default_factory=dict)
    slopes: dict[str, float] = field(default_factory=dict)
    # what `bench calibrate` chose, leaving one dataset out: 'platt' moves the verdict's boundary,
    # 'slope' (b = 0) keeps the raw verdict and scales only the confidence, 'raw' changes nothing
    form: str = "platt"

    @property
    def boundary(self) -> float:
        """The raw log-odds at which the calibrated probability is 0.5."""
        return -self.b / self.a

    def apply(self, p_raw: float, kind: str | None = None) -> float:
        """The calibrated probability of a raw one read over ``kind`` of evidence."""
        if kind in self.slopes and self.a > 0:
            return platt(p_raw, self.slopes[kind], -self.slopes[kind] * self.boundary)
        return platt(p_raw, self.a, self.b)


def evidence_kind(search: str) -> str | None:
    """'given' (passages that came with the claim), 'searched' (found by a backend), or None."""
    if search == "given":
        return "given"
    return None if search == "none" else "searched"


def leaning(p_raw: float, calibration: Calibration | None) -> bool:
    """Whether the verdict is 'supported': the raw reading's side of the calibration's boundary."""
    if calibration is None:
        return p_raw >= 0.5
    return calibration.a * logit(p_raw) + calibration.b >= 0


def model_key(ctx: BaseContext, role: str) -> str:
    """The model ``role`` reads with: the shipped local model's name, a weights file, or an endpoint's."""
    from factcourt.providers.models import model_identity, models

    choice = models(ctx)[role]
    if choice.endpoint == "embedded":
        return f"local:{choice.local_model}" if choice.local_model else f"weights:{model_identity(choice)}"
    return f"{choice.endpoint}:{choice.name}"


def prompt_key(words: str) -> str:
    """A digest of the prompt a reading was taken under: a fit holds only for those words."""
    return hashlib.sha256(words.encode()).hexdigest()[:12]


def _file_name(model: str, label_set: str = "two") -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")[:80]
    labels = "" if label_set == "two" else f"-{label_set}"  # each label set has its own fit
    return f"{slug}-{hashlib.sha256(model.encode()).hexdigest()[:8]}{labels}.json"


def user_folder() -> Path:
    """Where ``bench calibrate`` writes a user's fits."""
    return cache_dir() / "calibrations"


def stored(model: str, prompt: str, label_set: str) -> Calibration | None:
    """The calibration fitted for ``model`` under the prompt of digest ``prompt``, or None."""
    for folder in (user_folder(), SHIPPED):
        path = folder / _file_name(model, label_set)
        if path.is_file():
            found = _load(path, path.stat().st_mtime_ns)
            if found is not None and found.model == model and found.prompt == prompt:
                return found
    return None


@functools.lru_cache(maxsize=16)
def _load(path: Path, mtime_ns: int) -> Calibration | None:
    try:
        return Calibration(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):  # a damaged file is no calibration, never a crash
        return None


def save(calibration: Calibration, label_set: str, folder: Path | None = None) -> Path:
    """Write ``calibration`` (of ``label_set``) where ``stored`` finds it (the user folder unless told)."""
    folder = folder or user_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / _file_name(calibration.model, label_set)
    # a run that reads it meanwhile finds the old one or the new one, never half of one
    write_whole(path, json.dumps(asdict(calibration), indent=2) + "\n")
    return path
