"""The types hold: mypy, with the settings of pyproject.toml, finds no error in factcourt."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_mypy_finds_no_error():
    # a process of its own, as `make lint` runs it; its cache (.mypy_cache, ignored by git) makes
    # a rerun take seconds, a cold run most of a minute
    run = subprocess.run(
        [str(Path(sys.executable).with_name("mypy"))], capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stdout + run.stderr  # mypy's report: every error, where
