"""Known secrets are never written: every error text, result, report and log line goes through :func:`redact`.

An endpoint may echo the key it was sent ("Incorrect API key provided: Bearer sk-..."); that
text becomes a claim's failure reason, a batch row's error, an audit case, an HTML report. The
secrets known are the values of the key variables below, read when the text is made (a key set
later counts too), and any key a run was given (:func:`register_secret`).
"""

from __future__ import annotations

import os
import threading
from typing import Any

SECRET_VARIABLES = (
    "OPENAI_API_KEY",
    "TAVILY_API_KEY",
    "SERPER_API_KEY",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
)
REDACTED = "[redacted]"
# a value this short is no key ("none", "local"): replacing it would mangle ordinary words
MIN_SECRET_CHARS = 8

_given: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on, in this process (a key a run was given)."""
    if value and len(value.strip()) >= MIN_SECRET_CHARS:
        with _lock:
            _given.add(value.strip())


def secret_values() -> list[str]:
    """The secrets known now, longest first (a key that holds another is replaced whole)."""
    found = {v.strip() for name in SECRET_VARIABLES if (v := os.environ.get(name))}
    with _lock:
        found |= _given
    return sorted((s for s in found if len(s) >= MIN_SECRET_CHARS), key=len, reverse=True)


def redact(text: Any) -> Any:
    """``text`` with every known secret replaced by ``[redacted]``; anything but a string as it is."""
    if not isinstance(text, str) or not text:
        return text
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
