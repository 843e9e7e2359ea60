"""Where factcourt keeps its caches, logs and downloaded weights."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir


def cache_dir() -> Path:
    """Return the user cache directory (``FACTCOURT_CACHE_DIR`` overrides it)."""
    root = Path(os.environ.get("FACTCOURT_CACHE_DIR") or user_cache_dir("factcourt"))
    root.mkdir(parents=True, exist_ok=True)
    return root
