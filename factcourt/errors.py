"""Errors the command line turns into exit codes and one-sentence messages.

Every message is redacted when the error is made (:mod:`factcourt.redact`): a key an endpoint
echoed never reaches a terminal, a log or a file through an error.
"""

from typing import Any

from factcourt.redact import redact


def first_line(error: object, default: str = "") -> str:
    """The first line of an error's text (a library's message may run to many), or ``default``."""
    return next(iter(str(error).strip().splitlines()), "") or default


class FactcourtError(Exception):
    """Base class: the run failed (exit code 1)."""

    exit_code = 1

    def __init__(self, *args: Any) -> None:
        super().__init__(*(redact(a) for a in args))


class ConfigError(FactcourtError, ValueError):
    """Bad input or configuration (exit code 2).

    A ValueError too: the LangGraph server shows the message of built-in exception types only
    (others read "An internal error occurred"), so a served graph's client reads this sentence.
    """

    exit_code = 2


class InputError(ConfigError):
    """The text, claim or file given cannot be checked as it is."""


class BackendError(FactcourtError):
    """A model or search backend failed after its retries."""


class StoreError(FactcourtError):
    """The shared store went away during a run: the run stops; what it finished is kept."""
