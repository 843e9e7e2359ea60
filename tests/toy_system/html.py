"""The toy's page: one line, in the report's ``tables`` template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markupsafe import Markup

from tests.toy_system.state import EchoResult


def view(result: EchoResult, folder: Path | None = None) -> dict[str, Any]:
    """The page's values: its body says whether the text shouts."""
    said = "loud" if result.loud else "quiet"
    body = Markup("<p>{} is <strong>{}</strong></p>").format(result.text, said)
    return {"body": body, "plots": [], "reliability": [], "data": None}
