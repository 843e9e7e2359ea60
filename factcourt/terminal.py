r"""What factcourt prints on a terminal: text in which no escape sequence or control character acts.

A table cell, an error sentence or a progress line holds user text (file names, claims, row ids)
and a model's words. ``\x1b]0;...\x07`` in any of them would retitle the terminal, ``\x1b[2J``
clear it, a lone ``\r`` overwrite what was printed. :class:`Console` shows each such character
as a visible escape (``\x1b``) instead; every console of the command line is one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from rich import console as rich_console
from rich.segment import Segment

# the bidirectional embeddings, overrides and isolates: U+202E shows the text after it reversed,
# so a cell could read as another claim or verdict than the one it holds
_BIDI = "\u202a-\u202e\u2066-\u2069"
# C0 controls but tab and line feed, DEL, the C1 controls (0x9b is CSI on some terminals), bidi
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
# a line end written by Windows is a line end
_CRLF = re.compile("\r\n")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def neutralise(text: str) -> str:
    r"""``text`` with each control character but tab and line end, and each bidi control, shown as an escape.

    ``\x1b``, ``\u202e``: seen, and acting on nothing.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_visible, _CRLF.sub("\n", text))


class Console(rich_console.Console):
    """A rich console whose text can move no cursor, retitle, clear or ring the terminal.

    Strings are neutralised before rich lays them out (markup, tables, wrapping see the visible
    form); the text of every other renderable (a ``Text`` made elsewhere, a progress column) is
    neutralised as it is written. rich's own control codes (its styles, the live display's
    cursor moves) pass: they are control segments, or added when the segments are written.
    """

    def render_str(self, text: str, **kwargs: Any) -> Any:
        """The string as rich reads it, neutralised first."""
        return super().render_str(neutralise(text), **kwargs)

    def render(self, renderable: Any, options: Any = None) -> Iterable[Segment]:
        """Rich's segments, the text of each that is not a control code neutralised."""
        for segment in super().render(renderable, options):
            if segment.control or not _UNSAFE.search(segment.text):
                yield segment
            else:
                yield Segment(neutralise(segment.text), segment.style)

    def on_broken_pipe(self) -> None:
        """Let a closed pipe reach the command line's entry point, which ends every command alike.

        rich's own ends the process with exit 1, which reads as a failed run.
        """
        self.quiet = True
        raise BrokenPipeError


# DEL, the C1 controls and bidi: JSON escapes the C0 controls only, and ensure_ascii=False keeps these
_UNESCAPED = re.compile(f"[\x7f-\x9f{_BIDI}]")


def json_text(value: Any, **kwargs: Any) -> str:
    r"""``json.dumps(value, ensure_ascii=False, ...)`` with DEL, the C1 controls and bidi escaped (\u009b).

    The same JSON value, readable as UTF-8, and nothing in it a terminal acts on.
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _UNESCAPED.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
