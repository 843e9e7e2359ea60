"""The house rules hold: the import contracts of pyproject.toml, checked by import-linter."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_every_import_contract_is_kept():
    # a process of its own: import-linter configures logging, which silenced this suite's loggers
    run = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout  # the report names each broken import chain
