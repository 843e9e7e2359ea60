"""Where factcourt keeps its caches, logs and downloaded weights."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from platformdirs import user_cache_dir

from factcourt.errors import ConfigError


def cache_dir() -> Path:
    """Return the user cache directory (``FACTCOURT_CACHE_DIR`` overrides it).

    One it cannot create or write in is bad configuration (exit 2) that names the variable, not
    a raw PermissionError wherever the cache is first touched.
    """
    env = os.environ.get("FACTCOURT_CACHE_DIR")
    root = Path(env or user_cache_dir("factcourt"))
    try:
        root.mkdir(parents=True, exist_ok=True)
        _writable(root)
    except OSError as exc:
        where = f"FACTCOURT_CACHE_DIR={env}" if env else f"the cache folder {root}"
        raise ConfigError(
            f"{where} cannot be used ({exc.strerror or exc}): set FACTCOURT_CACHE_DIR to a folder "
            "you can write"
        ) from None
    return root


@functools.cache
def _writable(root: Path) -> None:
    """Write and delete a file in ``root``, once per process and folder (the cache is hot)."""
    tempfile.TemporaryFile(dir=root).close()


STORE_VARIABLE = "FACTCOURT_STORE"


def store_url() -> str | None:
    """The shared PostgreSQL store (``FACTCOURT_STORE=postgresql://...``), or None for the SQLite files.

    It holds the answer cache, the crash checkpoints and the batch results, so that processes on
    several machines share them; ``--store`` sets it for one command.
    """
    return os.environ.get(STORE_VARIABLE) or None
