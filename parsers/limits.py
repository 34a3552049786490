"""Limits on what one log file may hold, so that no input costs unbounded memory or time.

Every reader of :mod:`zhuoji.parsers.read` checks them. The defaults suit real logs by a wide
margin; each can be changed with an environment variable (``ZHUOJI_MAX_FILE_BYTES`` and
so on), read when a file is opened, which is also how the ingest's worker processes get
them. A size is a number of bytes, optionally with a binary unit: ``1048576``,
``1024KiB``, ``1MiB``, ``4GiB`` (``K``, ``M`` and ``G`` mean the same).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache

from zhuoji.rules.messages import Message

__all__ = ["ENV_PREFIX", "Limits", "current_limits", "format_size", "parse_size"]

ENV_PREFIX = "ZHUOJI_"
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE_RE = re.compile(r"\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """A size in bytes from ``1048576``, ``1MiB``, ``64 KiB``, ``4G``; raises ``ValueError``."""
    match = _SIZE_RE.fullmatch(text)
    if match is None:
        raise ValueError(Message(
            "not a size: {q:any} (expected bytes such as 1048576 or 1MiB)", repr(text)))
    value = int(match.group(1)) * _UNITS[match.group(2).lower()]
    if value < 1:
        raise ValueError(Message("a limit must be at least 1, not {q:any}", repr(text)))
    return value


def format_size(value: int) -> str:
    """``1048576`` as ``1 MiB``; sizes that are no whole unit stay in bytes."""
    for unit, name in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= unit and value % unit == 0:
            return f"{value // unit} {name}"
    return Message("{n:n} bytes", value)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits on one log file. Each has an environment variable: the field name in
    capitals after ``ZHUOJI_`` (``ZHUOJI_MAX_LINE_BYTES``)."""

    max_file_bytes: int = 4 << 30
    """Bytes of a file once decompressed (the file as stored, when it is not compressed).
    Streams are read a game at a time, so this bounds the time a file takes, not memory."""

    max_game_bytes: int = 64 << 20
    """Bytes of one game: a whole document, or the lines of one game of a stream. A game
    is held whole while it is validated, so this bounds the memory a reader needs."""

    max_line_bytes: int = 1 << 20
    """Bytes of one line of a stream, its newline not counted."""

    max_text_length: int = 256
    """Characters of a game id, a ruleset name, a player id or name, a result item's reason."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with each ``ZHUOJI_MAX_…`` variable set in ``environ`` (by default
        ``os.environ``) in place of its default; a bad value raises ``ValueError`` naming it."""
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for f in fields(cls):
            name = ENV_PREFIX + f.name.upper()
            text = env.get(name)
            if text is None or not text.strip():
                continue
            try:
                values[f.name] = parse_size(text)
            except ValueError as exc:
                raise ValueError(Message("{name:any}: {why:any}", name, exc.args[0])) from None
        return cls(**values)

    def describe(self) -> list[tuple[str, str]]:
        """``(variable, value)`` for each limit, for messages and ``--help`` text."""
        return [
            (ENV_PREFIX + f.name.upper(), format_size(getattr(self, f.name)))
            if f.name.endswith("_bytes")
            else (ENV_PREFIX + f.name.upper(), str(getattr(self, f.name)))
            for f in fields(self)
        ]


_NAMES: tuple[str, ...] = tuple(ENV_PREFIX + f.name.upper() for f in fields(Limits))


@lru_cache(maxsize=8)
def _limits_of(values: tuple[str | None, ...]) -> Limits:
    return Limits.from_env({k: v for k, v in zip(_NAMES, values, strict=True) if v is not None})


def current_limits() -> Limits:
    """:meth:`Limits.from_env` of this process's environment as it is now (``ValueError``
    when a variable holds no size); the same values give the same limits from a cache."""
    return _limits_of(tuple(os.environ.get(name) for name in _NAMES))
