"""Known secrets are never written: every error text, result, report and log line goes through :func:`redact`.

An endpoint may echo the key it was sent ("Incorrect API key provided: Bearer sk-..."); that
text becomes a claim's failure reason, a batch row's error, an audit case, an HTML report. The
secrets known are the values of the key variables below, read when the text is made (a key set
later counts too), and any key a run was given (:func:`register_secret`). A URL's password
(``http://user:PASSWORD@host``) and its query's secrets (``?api_key=...``) are taken out of
every text, and an endpoint a server hides from its clients (:func:`hide_endpoint`) is named, not shown.
"""

from __future__ import annotations

import os
import re
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

# the password of a URL's user part: scheme://user:PASSWORD@host
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:)[^\s/?#@]+@", re.IGNORECASE)
# a query parameter whose name says it holds a secret: ?api_key=..., &token=..., &sig=...
_QUERY_SECRET = re.compile(
    r"([?&][\w.-]*(?:key|token|secret|pass|pwd|sig|auth|credential)[\w.-]*=)[^&#\s]+", re.IGNORECASE
)

_given: set[str] = set()
_hidden: dict[str, str] = {}
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on, in this process (a key a run was given)."""
    if value and len(value.strip()) >= MIN_SECRET_CHARS:
        with _lock:
            _given.add(value.strip())


def hide_endpoint(url: str | None, name: str) -> None:
    """Show ``url`` as ``name`` from now on, in this process (a deployer's endpoint, to clients)."""
    if url and url.strip():
        with _lock:
            _hidden[url.strip()] = name


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
    with _lock:
        hidden = sorted(_hidden.items(), key=lambda item: len(item[0]), reverse=True)
    for url, name in hidden:
        text = text.replace(url, name)
    text = _QUERY_SECRET.sub(rf"\1{REDACTED}", _URL_PASSWORD.sub(rf"\1{REDACTED}@", text))
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
