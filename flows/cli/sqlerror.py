"""A DuckDB error as the command line prints it: where in the query it went wrong.

DuckDB's message for a query it cannot parse, bind or convert ends with two lines that
show the place: ``LINE 2: ...`` (the query's line, cut to a window around the place on a
long line, ``...`` marking the cut) and a line of ``^`` under the offending token.
:func:`split_sql_error` keeps them: the first line of the message is the error line, the
lines after it (DuckDB's hints, such as ``Candidate bindings: ...``, then the LINE and
caret lines) follow it on standard error, and with ``--json`` the place is kept as
fields. The query's line is escaped as all human output is
(:func:`zhuoji.flows.text.terminal.safe`: a tab is ``\\t``), and the caret is moved to stay
under the same characters (DuckDB places it by display width: a CJK character takes two
columns, a control character none).

Importing this module costs nothing: no DuckDB, no Typer.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from zhuoji.flows.text.terminal import safe

__all__ = ["SqlError", "split_sql_error"]

_LINE = re.compile(r"^LINE (\d+): (.*)$")
_CARET = re.compile(r"^( *)(\^+) *$")
_CUT = "..."


def _width(ch: str) -> int:
    """The columns ``ch`` takes on a terminal, as DuckDB counts them for its caret."""
    if unicodedata.category(ch) in ("Cc", "Cf", "Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _text_width(text: str) -> int:
    return sum(map(_width, text))


def _index_at(text: str, column: int, start: int = 0) -> int:
    """The index of the character of ``text`` at display ``column`` (counted from
    ``start``); ``len(text)`` past its end."""
    width = 0
    for i in range(start, len(text)):
        if width >= column:
            return i
        width += _width(text[i])
    return len(text)


@dataclass(frozen=True)
class SqlError:
    """A DuckDB error's text, split for the terminal and for JSON."""

    message: str
    """The first line (``Parser Error: syntax error at or near "hands"``)."""
    lines: tuple[str, ...] = ()
    """The lines printed under the error line: escaped, the caret under its token."""
    fields: dict[str, Any] = field(default_factory=dict)
    """What ``--json`` adds to ``{"error": {"message": ...}}``: ``details`` (DuckDB's
    further lines, as it gives them), ``position`` (``line``, ``column`` and ``length``
    in the query, 1-based, in characters; ``column`` null when DuckDB's window of a long
    line cannot be placed in it) and ``caret`` (the LINE and caret lines as DuckDB gives
    them)."""


def split_sql_error(text: str, query: str | None = None) -> SqlError:
    """Split DuckDB's error ``text`` (about ``query``, where known: it places the window
    DuckDB shows of a long line)."""
    first, _, rest = text.partition("\n")
    others = [line for line in rest.split("\n") if line.strip()]
    lines: list[str] = []
    details: list[str] = []
    fields: dict[str, Any] = {}
    i = 0
    while i < len(others):
        line = others[i]
        head = _LINE.match(line)
        caret = _CARET.match(others[i + 1]) if head is not None and i + 1 < len(others) else None
        if head is None or caret is None or "position" in fields:
            details.append(line)
            lines.append(safe(line))
            i += 1
            continue
        prefix = f"LINE {head[1]}: "
        excerpt = head[2]
        at = len(caret[1]) - len(prefix)
        if at < 0:
            details.append(line)
            lines.append(safe(line))
            i += 1
            continue
        start = _index_at(excerpt, at)
        end = max(_index_at(excerpt, len(caret[2]), start), start + 1)
        end = min(end, len(excerpt)) if start < len(excerpt) else start
        shown = prefix + safe(excerpt)
        under = " " * (len(prefix) + _text_width(safe(excerpt[:start])))
        lines.extend([shown, under + "^" * max(1, _text_width(safe(excerpt[start:end])))])
        fields["position"] = {
            "line": int(head[1]),
            "column": _column(excerpt, start, int(head[1]), query),
            "length": max(1, end - start),
        }
        fields["caret"] = [line, others[i + 1]]
        i += 2
    if details:
        fields = {"details": details, **fields}
    return SqlError(first, tuple(lines), fields)


def _column(excerpt: str, start: int, line_no: int, query: str | None) -> int | None:
    """The 1-based column in the query's line ``line_no`` of the excerpt's character
    ``start``: the excerpt is the whole line, or (``...`` before it) a window of it found
    in ``query``; None when that window cannot be found."""
    if not excerpt.startswith(_CUT):
        return start + 1
    if query is None:
        return None
    query_lines = query.split("\n")
    if not 0 < line_no <= len(query_lines):
        return None
    window = excerpt[len(_CUT):]
    if window.endswith(_CUT):
        window = window[: -len(_CUT)]
    found = query_lines[line_no - 1].find(window)
    if found < 0 or start < len(_CUT):
        return None
    return found + start - len(_CUT) + 1
