"""``python -m factcourt.cli``: the command line, as the ``factcourt`` script runs it."""

from factcourt.cli import run

run()
