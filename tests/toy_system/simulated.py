"""The simulated model's rule for the toy: a text shouts when it holds the marks asked about."""

from __future__ import annotations

import re
from typing import Any

SCHEMAS = {"Shout"}


def answer(schema: str, prompt: str) -> dict[str, Any]:
    """Whether the text holds the marks the prompt names."""
    marks = re.search(r"contain '(!+)'", prompt)
    text = re.search(r"<text>(.*)</text>", prompt, re.S)
    return {"loud": bool(marks and text and marks.group(1) in text.group(1))}
