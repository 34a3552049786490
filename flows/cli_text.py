"""Text for the terminal: what the human output of every command passes through.

A log's player names, game ids, file names and a warehouse's cells are data a stranger
wrote. Printed raw, an ANSI or OSC escape in a name (``\\x1b[2J``, ``\\x1b]0;...\\x07``)
clears and rewrites the reader's screen or retitles the window, and a bidirectional
override turns the rest of a line around. :func:`safe` writes every such character as a
visible escape (``\\x1b``, ``\\u202e``) instead; the JSON outputs need nothing, since JSON
escapes control characters itself.

Importing this module costs nothing: no Rich, no Typer.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["make_console", "no_color", "safe", "safe_lines"]

# C0 controls (newline and tab included: one value never spans lines or jumps columns),
# DEL and the C1 controls (U+009B is a one-character CSI), the line and paragraph
# separators, and the bidirectional embeddings, overrides, isolates and marks.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: object) -> str:
    """``str(text)`` with every control character written as a visible escape."""
    value = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_escape, value)


def safe_lines(text: str) -> str:
    """Like :func:`safe`, but the line breaks of a multi-line message stay line breaks."""
    return "\n".join(safe(line) for line in text.split("\n"))


def no_color() -> bool:
    """``NO_COLOR`` set to anything but the empty string (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR"))


def make_console(**options: Any) -> Console:
    """A Rich console for a command's human output: with ``NO_COLOR`` it prints no escape
    at all (Rich alone would still print bold and dim)."""
    from rich.console import Console

    if no_color():
        options["color_system"] = None
    return Console(**options)
