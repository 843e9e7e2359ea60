"""Errors the command line turns into exit codes and one-sentence messages."""


class FactcourtError(Exception):
    """Base class: the run failed (exit code 1)."""

    exit_code = 1


class ConfigError(FactcourtError):
    """Bad input or configuration (exit code 2)."""

    exit_code = 2


class InputError(ConfigError):
    """The text, claim or file given cannot be checked as it is."""


class BackendError(FactcourtError):
    """A model or search backend failed after its retries."""
