"""Text for the terminal: what the human output of every command passes through.

A log's player names, game ids, file names and a warehouse's cells are data a stranger
wrote. Printed raw, an ANSI or OSC escape in a name (``\\x1b[2J``, ``\\x1b]0;...\\x07``)
clears and rewrites the reader's screen or retitles the window, and a bidirectional
override turns the rest of a line around. :func:`safe` writes every such character as a
visible escape (``\\x1b``, ``\\u202e``) instead; the JSON outputs need nothing, since JSON
escapes control characters itself.

A terminal that cannot show every character (``LANG=en_US.ISO-8859-1``,
``PYTHONIOENCODING=ascii``) gets the same output in its own encoding, each character it
cannot show written as a ``\\uXXXX`` escape (:func:`escape_unencodable`), instead of an
exception; a UTF-8 terminal gets exactly what it always got. A reader that goes away
(``zhuoji audit ... | head``) ends the command quietly (:func:`make_console`'s consoles
leave that to :mod:`zhuoji.flows.cli.errors`).

Importing this module costs nothing: no Rich, no Typer.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import sys
from contextlib import suppress
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "ESCAPE_ERRORS",
    "ESCAPE_KEEP_BYTES",
    "echo",
    "escape_unencodable",
    "make_console",
    "no_color",
    "safe",
    "safe_lines",
]

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


ESCAPE_ERRORS = "zhuoji-escape"
"""The error handler of the standard streams (:func:`escape_unencodable`), registered
when this module is imported: ``text.encode("ascii", ESCAPE_ERRORS)``."""
ESCAPE_KEEP_BYTES = "zhuoji-escape-surrogates"
"""The same for a stream that had ``surrogateescape`` (Python's choice in the C and
C.UTF-8 locales): a byte that was no UTF-8 in a file name (U+DC80-U+DCFF) is written as
that byte again, as it was before."""


def _escape_code(code: int) -> str:
    if code > 0xFFFF:  # beyond the BMP: its UTF-16 surrogate pair, as JSON writes it
        code -= 0x10000
        return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"
    return f"\\u{code:04x}"


def _escape_error(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    chunk = error.object[error.start : error.end]
    return "".join(_escape_code(ord(ch)) for ch in chunk), error.end


def _escape_keep_bytes(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    chunk = error.object[error.start : error.end]
    return b"".join(
        bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else _escape_code(code).encode()
        for code in map(ord, chunk)
    ), error.end


codecs.register_error(ESCAPE_ERRORS, _escape_error)
codecs.register_error(ESCAPE_KEEP_BYTES, _escape_keep_bytes)


def escape_unencodable() -> None:
    """Give standard output and standard error an encoding error handler that cannot fail.

    The streams keep their encoding (the locale's, or ``PYTHONIOENCODING``); a character
    the encoding has no byte for is written as ``\\uXXXX`` (four lowercase hex digits; a
    character beyond U+FFFF as its two UTF-16 surrogates, ``\\ud83c\\udc04``), which is
    also how JSON escapes it: a JSON line stays valid JSON with the same value on any
    terminal. Text the encoding can write (all of it on a UTF-8 terminal) is written as
    before, byte for byte, as are the bytes of a file name that is not UTF-8 where the
    stream wrote them (``surrogateescape``, :data:`ESCAPE_KEEP_BYTES`); only what used to
    raise ``UnicodeEncodeError`` changes (on a UTF-8 terminal: such a file name where the
    stream was ``strict``).

    Run before anything is printed (:func:`zhuoji.flows.cli.main.main`) and by the root command
    (:class:`zhuoji.flows.cli.errors.ZhuojiGroup`, for typer's ``CliRunner`` too); running it
    again changes nothing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        errors = getattr(stream, "errors", None)
        if reconfigure is None or errors in (ESCAPE_ERRORS, ESCAPE_KEEP_BYTES):
            continue
        keep = errors == "surrogateescape"
        with suppress(OSError, ValueError):  # a closed stream, or a flush to a closed pipe
            reconfigure(errors=ESCAPE_KEEP_BYTES if keep else ESCAPE_ERRORS)


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Write ``message`` (and a newline) to standard output, or error, and flush.

    In place of ``typer.echo``, which writes UTF-8 whatever the stream's encoding when that
    encoding is ASCII (Click takes an ASCII stream for a misconfigured one): a command's
    output is in the stream's encoding, escaped as :func:`escape_unencodable` says, on
    every path."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{message}\n" if nl else message)
    stream.flush()


@cache
def _console_class(*, decoration: bool) -> type[Console]:
    from rich.console import Console

    class PipeConsole(Console):
        """A console whose closed pipe ends the command by :mod:`zhuoji.flows.cli.errors`' rule
        (quietly, exit status 0), not Rich's (exit status 1); or, for ``decoration``,
        only ends the console's own output."""

        def on_broken_pipe(self) -> None:
            self.quiet = True
            if not decoration:
                raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    return PipeConsole


def make_console(*, decoration: bool = False, **options: Any) -> Console:
    """A Rich console for a command's human output: with ``NO_COLOR`` it prints no escape
    at all (Rich alone would still print bold and dim); a closed pipe raises
    ``BrokenPipeError``, which the root command turns into a quiet end. A ``decoration``
    console (an ingest's progress bar) goes quiet instead, and the command goes on: the
    run it records must end as it would have."""
    if no_color():
        options["color_system"] = None
    return _console_class(decoration=decoration)(**options)
