"""Reading logs in both encodings, from files, bytes or line streams.

Document (``.json``, ``.json.gz``): one game per file, validated in one pass by
pydantic-core straight from the bytes. Stream (``.jsonl``, ``.ndjson``, either ``.gz``):
read line by line, one game at a time. Only the few control lines (``start_game``,
``start_hand``, ``end_hand``, ``end_game``) are decoded in Python; event lines are kept as
raw bytes and spliced into one document per game, which pydantic-core validates in one
pass. When a game fails, the faulty line is found afterwards (the slow path runs only for
bad games), one :class:`~zhuoji.parsers.errors.MalformedLogError` is yielded for it, and reading
resumes at the next ``start_game`` line.

Every reader holds every file to the same checks (:func:`find_game_fault`, a game id once
per file) and to the limits of :class:`~zhuoji.parsers.limits.Limits` (bytes per file, game and
line; length of ids and names), so that one file gets one verdict wherever it is read;
only regular files are opened (:func:`open_regular_file`).

Every reader takes ``tiles`` (:data:`~zhuoji.parsers.tiles.TileSetOf`): the tiles a game of a
ruleset may hold, from a caller who knows the rules. Without it a game is held to the
108-tile notation, and an honour or a flower is an unknown tile, named by file, line and
field like any other.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, Protocol, TypeVar

import orjson
from pydantic import ValidationError

from zhuoji.parsers import fast
from zhuoji.parsers.errors import MalformedLogError, excerpt, system_reason
from zhuoji.parsers.limits import Limits, current_limits, format_size
from zhuoji.parsers.models import EVENT_TYPES, Game, validate_game_json
from zhuoji.parsers.tiles import TileSetOf
from zhuoji.rules.messages import Message

G = TypeVar("G", Game, fast.Game)
Validate = Callable[[bytes | str], G]
"""Validates one game document (bytes or text), raising ``pydantic.ValidationError``:
:func:`~zhuoji.parsers.models.validate_game_json` for the models,
:func:`~zhuoji.parsers.fast.parse_game`
for the fast form. Every reader below comes in both forms."""


def _models_validate(tiles: TileSetOf | None) -> Validate[Game]:
    return validate_game_json if tiles is None else partial(validate_game_json, tiles=tiles)


def _fast_validate(tiles: TileSetOf | None) -> Validate[fast.Game]:
    return fast.parse_game if tiles is None else partial(fast.parse_game, tiles=tiles)


class Encoding(StrEnum):
    DOCUMENT = "document"
    STREAM = "stream"


_SUFFIXES: tuple[tuple[str, Encoding, bool], ...] = (
    (".json.gz", Encoding.DOCUMENT, True),
    (".jsonl.gz", Encoding.STREAM, True),
    (".ndjson.gz", Encoding.STREAM, True),
    (".json", Encoding.DOCUMENT, False),
    (".jsonl", Encoding.STREAM, False),
    (".ndjson", Encoding.STREAM, False),
)
LOG_SUFFIXES: tuple[str, ...] = tuple(s for s, _, _ in _SUFFIXES)
"""File name endings of log files, compressed forms included."""


SIDECAR_NAMES: frozenset[str] = frozenset({"faults.jsonl"})
"""Files that sit beside logs but are not logs (the simulator's fault manifest)."""


def is_log_path(path: str | os.PathLike[str]) -> bool:
    """Whether the file name ends in one of :data:`LOG_SUFFIXES` (case-insensitive) and
    is not a sidecar file such as a fault manifest (:data:`SIDECAR_NAMES`)."""
    name = os.fspath(path).lower()
    return name.endswith(LOG_SUFFIXES) and os.path.basename(name) not in SIDECAR_NAMES


def parse_encoding(path: str | os.PathLike[str]) -> tuple[Encoding, bool]:
    """The encoding and whether gzip applies, from the file name; raises ``ValueError``."""
    name = os.fspath(path).lower()
    for suffix, encoding, gzipped in _SUFFIXES:
        if name.endswith(suffix):
            return encoding, gzipped
    raise ValueError(Message(
        "{path:any}: not a log file name (expected one of {suffixes:any})",
        os.fspath(path), ", ".join(LOG_SUFFIXES),
    ))


# --- pydantic errors to one readable sentence ------------------------------------------------


def format_loc(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON path, ``hands[3].events[17].tile``.

    Tags of the event union and internal schema names are left out.
    """
    out: list[str] = []
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out.append(f"[{part}]")
            continue
        if (
            i >= 2
            and loc[i - 2] == "events"
            and isinstance(loc[i - 1], int)
            and part in EVENT_TYPES
        ):
            continue  # the discriminated union's tag
        if "[" in part or "-" in part:
            continue  # an internal schema name such as function-after[...]
        out.append(f".{part}" if out else part)
    return "".join(out)


def _short(value: Any) -> str | None:
    if isinstance(value, str | int | float | bool) or value is None:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return None


_SEAT_FIELDS = frozenset({"seat", "from", "to", "dealer", "next_dealer", "payer", "payee"})


def _reason(err: Any) -> str:
    kind = err["type"]
    loc = err["loc"]
    ctx = err.get("ctx") or {}
    value = err.get("input")
    last = loc[-1] if loc else None
    if kind == "missing" or kind == "missing_keyword_only_argument":
        return Message("required field is missing")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return Message("unknown field {q:quoted}", excerpt(last))
    if kind == "union_tag_invalid":
        return Message("unknown event type {q:quoted}", excerpt(ctx.get("tag")))
    if kind == "union_tag_not_found":
        return Message("event has no 'type'")
    if kind == "unknown_tile":
        if isinstance(value, str):
            return Message("unknown tile {q:quoted}", excerpt(value))
        return Message("a tile must be text")
    if kind == "seat_layout":
        reason = ctx["reason"]
        return reason if isinstance(reason, Message) else str(reason)
    if kind in ("less_than_equal", "greater_than_equal") and last in _SEAT_FIELDS:
        return Message("seat {q:any} out of range", excerpt(value))
    if kind == "literal_error" and loc == ("schema",):
        return Message("unsupported schema {q:quoted} (expected 'zhuoji-log/1')", excerpt(value))
    msg = str(err["msg"])
    msg = msg[:1].lower() + msg[1:]
    shown = _short(value)
    if kind == "value_error" and msg.startswith("value error, "):
        # a validator's own reason, as pydantic words it (the glossary has no Chinese
        # for the reason: it is shown as it is)
        why = msg[len("value error, "):] + ("" if shown is None else f" (got {shown})")
        error = ctx.get("error")
        said = error.args[0] if isinstance(error, ValueError) and len(error.args) == 1 else None
        if isinstance(said, Message):  # the validator's reason is a message: its Chinese
            told = said if shown is None else Message("{r:any} (got {v:any})", said, shown)
            if told == why:
                return Message("value error, {why:any}", told)
        return Message("value error, {why:any}", why)
    if shown is not None and kind != "json_invalid":
        msg += f" (got {shown})"
        known = _PYDANTIC.get(kind)
        if known is not None:  # pydantic's sentence, when it is the one the glossary has
            template, names = known
            message = Message(template, *(ctx.get(n) for n in names), shown)
            if message == msg:
                return message
    return msg


_PYDANTIC: dict[str, tuple[str, tuple[str, ...]]] = {
    "int_type": ("input should be a valid integer (got {v:any})", ()),
    "int_parsing": ("input should be a valid integer (got {v:any})", ()),
    "string_type": ("input should be a valid string (got {v:any})", ()),
    "list_type": ("input should be a valid list (got {v:any})", ()),
    "bool_type": ("input should be a valid boolean (got {v:any})", ()),
    "tuple_type": ("input should be a valid tuple (got {v:any})", ()),
    "float_type": ("input should be a valid number (got {v:any})", ()),
    "datetime_type": ("input should be a valid datetime (got {v:any})", ()),
    "literal_error": ("input should be {e:any} (got {v:any})", ("expected",)),
    "started_at_text": ("a date-time text such as '2026-11-01T20:00:00+08:00' is expected, "
                        "not a number (no Unix time is read) (got {v:any})", ()),
    "model_type": ("input should be a valid dictionary or instance of {m:any} (got {v:any})",
                   ("class_name",)),
    "greater_than_equal": ("input should be greater than or equal to {n} (got {v:any})",
                           ("ge",)),
    "less_than_equal": ("input should be less than or equal to {n} (got {v:any})", ("le",)),
}
"""pydantic's errors the glossary has the Chinese of: the template and the ``ctx`` values
its placeholders take before the input shown. pydantic writes the sentence (its words may
change between releases): a message is made only when its English is pydantic's."""


def _error_loc(err: Any) -> tuple[int | str, ...]:
    ctx = err.get("ctx") or {}
    if "loc" in ctx:
        return tuple(ctx["loc"])
    return tuple(err["loc"])


def _from_validation_error(
    exc: ValidationError,
    *,
    path: str | None,
    game_id: str | None,
    line_of: Any = None,
) -> MalformedLogError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = _error_loc(first)
    line = line_of(loc) if line_of is not None else None
    return MalformedLogError(
        _reason(first),
        path=path,
        line=line,
        json_path=format_loc(loc) or None,
        game_id=game_id,
        more=len(errors) - 1,
    )


# --- JSON syntax diagnosis (slow path, only for bad input) ----------------------------------


def _is_binary(data: bytes) -> bool:
    head = data[:4096]
    if b"\x00" in head:
        return True
    control = sum(1 for b in head if b < 0x20 and b not in (0x09, 0x0A, 0x0D))
    return control * 20 > len(head)


JSON_DEPTH_LIMIT = 1024
"""How deeply arrays and objects may nest in a log (orjson's limit, which reads them)."""

_DEPTH_REASON = Message("nested deeper than {n:n} arrays and objects: depth limit exceeded",
                        JSON_DEPTH_LIMIT)


def _json_reason(exc: orjson.JSONDecodeError) -> Message:
    """orjson's reason, in words of our own where its wording changed between releases
    (the depth limit: "array and object recursion depth exceeded" in 3.10, "depth limit
    exceeded" later)."""
    if "depth" in exc.msg or "recursion" in exc.msg:
        return _DEPTH_REASON
    return Message(exc.msg)  # orjson's words: each has a template ([message.json])


def _diagnose_json(data: bytes) -> tuple[str, int | None, int | None]:
    """Why ``data`` is not one JSON value: (reason, line, column)."""
    if not data.strip():
        return Message("the file is empty"), None, None
    if _is_binary(data):
        return Message("binary data, not a JSON text log"), None, None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return Message("invalid UTF-8 (byte {b:any})", f"0x{data[exc.start]:02x}"), line, column
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if exc.pos >= len(data.rstrip()) or "end of data" in exc.msg:
            return Message("the JSON ends early: the file is truncated"), exc.lineno, exc.colno
        return Message("invalid JSON ({why:any})", _json_reason(exc)), exc.lineno, exc.colno
    return Message("invalid JSON"), None, None


def _peek_game_id(data: bytes) -> str | None:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict):
        game_id = obj.get("game_id")
        if isinstance(game_id, str):
            return game_id
    return None


def _is_json_error(exc: ValidationError) -> bool:
    return any(e["type"] == "json_invalid" for e in exc.errors(include_url=False))


# --- document encoding -----------------------------------------------------------------------


def parse_document(
    data: bytes | str,
    *,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Game:
    """One game from the bytes of a document; raises :class:`MalformedLogError`.

    A UTF-8 byte order mark at the start is skipped; the game gets the checks of
    :func:`find_game_fault` (``limits`` default to :func:`~zhuoji.parsers.limits.current_limits`).
    """
    return _parse_document(data, path, _models_validate(tiles), limits)


def parse_fast_document(
    data: bytes | str,
    *,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> fast.Game:
    """Like :func:`parse_document`, the game in the fast form (:mod:`zhuoji.parsers.fast`)."""
    return _parse_document(data, path, _fast_validate(tiles), limits)


def _parse_document(
    data: bytes | str, path: str | None, validate: Validate[G], limits: Limits | None = None
) -> G:
    limits = current_limits() if limits is None else limits
    if isinstance(data, bytes):
        if data.startswith(_BOM):
            data = data[len(_BOM) :]
    elif data.startswith("\ufeff"):
        data = data[1:]
    try:
        game = validate(data)
    except ValidationError as exc:
        raw = data.encode() if isinstance(data, str) else data
        if _is_json_error(exc):
            reason, line, column = _diagnose_json(raw)
            raise MalformedLogError(reason, path=path, line=line, column=column) from None
        raise _from_validation_error(exc, path=path, game_id=_peek_game_id(raw)) from None
    fault = find_game_fault(game, limits)
    if fault is not None:
        reason, loc = fault
        raise MalformedLogError(
            reason,
            path=path,
            json_path=format_loc(loc),
            game_id=None if loc == ("game_id",) else game.game_id,
        )
    return game


def _read_document_bytes(
    source: Readable, gzipped: bool, limits: Limits, path: str | None
) -> bytes:
    """A document's bytes, decompressed, read in blocks: past the smaller of
    :attr:`Limits.max_game_bytes` and :attr:`Limits.max_file_bytes` the reading stops
    with a :class:`MalformedLogError`, so a small file that expands enormously (a gzip
    bomb) costs no more than the limit."""
    limit = min(limits.max_game_bytes, limits.max_file_bytes)
    parts: list[bytes] = []
    total = 0

    def too_large() -> MalformedLogError:
        if limit < limits.max_game_bytes:
            return MalformedLogError(_file_too_large(limits), path=path)
        what = "the document (decompressed)" if gzipped else "the document"
        return MalformedLogError(_game_too_large(limits, what), path=path)

    try:
        if not gzipped:
            while data := source.read1(BLOCK_SIZE):
                total += len(data)
                if total > limit:
                    raise too_large()
                parts.append(data)
            return b"".join(parts)
        gunzip = _BoundedGunzip(limit)
        while data := source.read1(BLOCK_SIZE):
            if not gunzip.feed(data, parts):
                raise too_large()
        gunzip.finish()
    except OSError as exc:
        raise MalformedLogError(
            Message("cannot read the file ({why:any})", system_reason(exc)), path=path
        ) from None
    except _GzipFault as exc:
        raise MalformedLogError(exc.reason, path=path) from None
    return b"".join(parts)


class _GzipFault(Exception):
    """Why bytes are not (whole, sound) gzip data: the message is the reason."""

    def __init__(self, reason: Message) -> None:
        super().__init__(reason)
        self.reason = reason


class _BoundedGunzip:
    """Gzip data decompressed as it comes, every member of it, never past ``limit``
    bytes in all (zlib's ``max_length``: nothing beyond the limit is ever produced)."""

    __slots__ = ("_fed", "_inflate", "_left", "_started")

    def __init__(self, limit: int) -> None:
        self._inflate = zlib.decompressobj(31)
        self._left = limit
        self._fed = False  # the current member has been given data
        self._started = False  # the first member's header was checked

    def feed(self, data: bytes, out: list[bytes]) -> bool:
        """Decompress ``data`` into ``out``; ``False`` once the limit is passed."""
        if not self._started:
            self._started = True
            if not data.startswith(b"\x1f\x8b"):
                raise _GzipFault(Message("not gzip data ({why:any})",
                                         f"Not a gzipped file ({data[:2]!r})"))
        while data:
            if not self._fed and not data.strip(b"\x00"):
                return True  # zero padding after the last member, as gzip allows
            self._fed = True
            try:
                chunk = self._inflate.decompress(data, self._left + 1)
            except zlib.error as exc:
                raise _GzipFault(Message("corrupt gzip data ({why:any})", exc)) from None
            self._left -= len(chunk)
            if self._left < 0:
                return False
            out.append(chunk)
            if not self._inflate.eof:
                return True  # all of data taken in (max_length was not reached)
            data = self._inflate.unused_data
            self._inflate = zlib.decompressobj(31)
            self._fed = False
        return True

    def finish(self) -> None:
        if self._fed:
            raise _GzipFault(Message("the compressed data ends early: the file is truncated"))


# --- stream encoding -------------------------------------------------------------------------


class Readable(Protocol):
    """A binary source: an open file, a ``gzip.GzipFile``, ``io.BytesIO``.

    ``read1`` (at most one read of the underlying source) is what the reader calls, so
    that a decompression error loses no data decoded before it.
    """

    def read1(self, size: int = -1, /) -> bytes: ...


BLOCK_SIZE = 1 << 20
"""Bytes read at a time from a stream (whole lines are processed, the rest carried over)."""

_CONTROL_RE = re.compile(rb'"type"\s*:\s*"(start_game|start_hand|end_hand|end_game)"')
_CONTROL_HINT_RE = re.compile(rb'_(?:game|hand)"')
"""What every control type ends with, and no event type: where :data:`_CONTROL_RE` can
end. It begins with a literal, which the regular expression engine scans for quickly,
while ``"type"`` is on every event line."""
_HINT_LENGTH = len(b'_hand"')
_EVENTS = ""  # the kind of a run of event lines in :func:`_generate_parts`
_LONG = "long"  # the kind of a line too long in :func:`_generate_parts`


_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark: skipped at the start of a file (either encoding), a fault
anywhere else."""


_INNER_BOM = Message(
    "a byte order mark (U+FEFF) inside the file: only the first bytes may hold one")


class _FileTooLargeError(Exception):
    """A stream decompresses to more than :attr:`Limits.max_file_bytes`."""


def _file_too_large(limits: Limits) -> str:
    return Message(
        "the file holds more than {size:any} (decompressed), "
        "the limit for one file (ZHUOJI_MAX_FILE_BYTES)", format_size(limits.max_file_bytes),
    )


def _line_too_long(limits: Limits) -> str:
    return Message(
        "the line is longer than {size:any}, "
        "the limit for one line (ZHUOJI_MAX_LINE_BYTES)", format_size(limits.max_line_bytes),
    )


def _game_too_large(limits: Limits, what: str = "the game") -> str:
    return Message(
        "{what:gamepart} holds more than {size:any}, "
        "the limit for one game (ZHUOJI_MAX_GAME_BYTES)", what,
        format_size(limits.max_game_bytes),
    )


def _read_head(source: Readable) -> bytes:
    """The first read of a source, without a UTF-8 byte order mark it starts with."""
    chunk = source.read1(BLOCK_SIZE)
    while chunk and len(chunk) < len(_BOM) and _BOM.startswith(chunk):
        more = source.read1(BLOCK_SIZE)
        if not more:
            break
        chunk += more
    return chunk[len(_BOM) :] if chunk.startswith(_BOM) else chunk


def _split_long_lines(block: bytes, max_line: int) -> Iterator[bytes | None]:
    """``block`` (whole lines), with ``None`` in place of each line longer than
    ``max_line`` bytes (its newline not counted).

    Each step looks at most ``max_line + 1`` bytes ahead of a line start for the last
    newline there, and moves to the line after it: a line too long is one with no
    newline in that window. Steps are about ``max_line`` bytes apart, so a block of
    short lines costs one or two searches.
    """
    n = len(block)
    if n <= max_line:
        yield block
        return
    start = at = 0  # the first byte not yet yielded, the line start looked at
    while n - at > max_line:
        newline = block.rfind(b"\n", at, at + max_line + 1)
        if newline >= 0:
            at = newline + 1
            continue
        if at > start:
            yield block[start:at]
        yield None
        end = block.find(b"\n", at + max_line + 1)
        at = start = n if end < 0 else end + 1
    if start < n:
        yield block[start:]


def _generate_blocks(source: Readable, limits: Limits) -> Iterator[bytes | None]:
    """Blocks of whole lines (only the last may lack its newline), ``None`` for each line
    longer than :attr:`Limits.max_line_bytes` (dropped, its newline with it).

    The bytes of a line not yet ended are kept as a list of reads and joined once, when
    its newline comes, so a long line costs time in proportion to its length, and never
    more memory than the limit and one read. Raises :class:`_FileTooLargeError` past
    :attr:`Limits.max_file_bytes`.
    """
    max_line = limits.max_line_bytes
    max_file = limits.max_file_bytes
    pending: list[bytes] = []  # the line not yet ended
    pending_size = 0
    dropping = False  # inside a line too long, until its newline
    total = 0
    chunk = _read_head(source)
    while chunk:
        total += len(chunk)
        if total > max_file:
            raise _FileTooLargeError
        if dropping:
            newline = chunk.find(b"\n")
            if newline < 0:
                chunk = source.read1(BLOCK_SIZE)
                continue
            dropping = False
            chunk = chunk[newline + 1 :]
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            if chunk:
                pending.append(chunk)
                pending_size += len(chunk)
                if pending_size > max_line:
                    yield None
                    pending.clear()
                    pending_size = 0
                    dropping = True
            chunk = source.read1(BLOCK_SIZE)
            continue
        head = chunk if cut == len(chunk) else chunk[:cut]
        if pending:
            if pending_size + chunk.find(b"\n") > max_line:
                yield None
                head = head[chunk.find(b"\n") + 1 :]
            else:
                pending.append(head)
                head = b"".join(pending)
            pending.clear()
            pending_size = 0
        if head:
            yield from _split_long_lines(head, max_line)
        if cut < len(chunk):
            pending.append(chunk[cut:])
            pending_size = len(chunk) - cut
            if pending_size > max_line:
                yield None
                pending.clear()
                pending_size = 0
                dropping = True
        chunk = source.read1(BLOCK_SIZE)
    if pending:
        yield from _split_long_lines(b"".join(pending), max_line)


def _generate_parts(source: Readable, limits: Limits) -> Iterator[tuple[str, bytes, int]]:
    """``(kind, text, first line)``: a control line (kind is its type), a run of others,
    or a line too long (kind :data:`_LONG`, no text).

    Control lines are found by a regular expression over whole blocks, so the lines in
    between (the events) are never split or decoded here. A control line is one line:
    its ``"type"`` and its value are on the line (JSON Lines holds one value a line).
    """
    line = 1
    search = _CONTROL_RE.search
    for block in _generate_blocks(source, limits):
        if block is None:
            yield _LONG, b"", line
            line += 1
            continue
        pos = 0
        for hint in _CONTROL_HINT_RE.finditer(block):
            at = hint.start()
            if at < pos:
                continue  # on a line already taken
            start = block.rfind(b"\n", 0, at) + 1
            # The line's first control type, if it has one that ends here or before.
            match = search(block, start, at + _HINT_LENGTH)
            if match is None:
                continue
            end = block.find(b"\n", match.end())
            end = len(block) if end < 0 else end + 1
            if start > pos:
                yield _EVENTS, block[pos:start], line
                line += block.count(b"\n", pos, start)
            yield match.group(1).decode(), block[start:end], line
            line += 1
            pos = end
        if pos < len(block):
            yield _EVENTS, block[pos:], line
            line += block.count(b"\n", pos)


def _generate_lines(text: bytes, first_line: int) -> Iterator[tuple[bytes, int]]:
    """The non-blank lines of a run with their line numbers."""
    for offset, raw in enumerate(text.splitlines()):
        if raw.strip():
            yield raw, first_line + offset


@dataclass(slots=True)
class _HandParts:
    opened: bytes  # the start_hand fields as :func:`_open_object` writes them
    line: int
    runs: list[tuple[bytes, int]] = field(default_factory=list)
    result_json: bytes | None = None  # the end_hand line's result, when it has one
    end_line: int | None = None

    def events_json(self, *, fast: bool) -> bytes:
        """The body of the hand's events array."""
        if fast:
            stripped = [text.strip() for text, _ in self.runs]
            return b",".join(text.replace(b"\n", b",") for text in stripped if text)
        return b",".join(raw for raw, _ in self.event_lines())

    def event_lines(self) -> list[tuple[bytes, int]]:
        return [item for text, line in self.runs for item in _generate_lines(text, line)]


@dataclass(slots=True)
class _GameParts:
    header: dict[str, Any]
    opened: bytes  # the header as :func:`_open_object` writes it (exactly)
    line: int
    hands: list[_HandParts] = field(default_factory=list)
    size: int = 0  # bytes of the game's lines so far

    @property
    def game_id(self) -> str | None:
        game_id = self.header.get("game_id")
        return game_id if isinstance(game_id, str) else None

    def to_document(self, *, fast: bool) -> bytes:
        """The game as one JSON document, event lines spliced in undecoded.

        The fast form turns each run's newlines into commas; a blank line inside a run
        makes it invalid JSON, and the careful form (line by line) is used instead.
        """
        parts: list[bytes] = [self.opened, b'"hands":[']
        for i, hand in enumerate(self.hands):
            if i:
                parts.append(b",")
            parts.append(hand.opened)
            parts.append(b'"events":[')
            parts.append(hand.events_json(fast=fast))
            parts.append(b"]")
            if hand.result_json is not None:
                parts.append(b',"result":')
                parts.append(hand.result_json)
            parts.append(b"}")
        parts.append(b"]}")
        return b"".join(parts)

    def line_of(self, loc: tuple[int | str, ...]) -> int:
        """The line that holds the field at ``loc`` of the assembled document."""
        if len(loc) >= 2 and loc[0] == "hands" and isinstance(loc[1], int):
            if loc[1] >= len(self.hands):
                return self.line
            hand = self.hands[loc[1]]
            if len(loc) >= 4 and loc[2] == "events" and isinstance(loc[3], int):
                lines = hand.event_lines()
                if loc[3] < len(lines):
                    return lines[loc[3]][1]
            if len(loc) >= 3 and loc[2] == "result" and hand.end_line is not None:
                return hand.end_line
            return hand.line
        return self.line

    def find_bad_line(self) -> tuple[str, int] | None:
        for hand in self.hands:
            for raw, line in hand.event_lines():
                fault = _line_fault(raw)
                if fault is not None:
                    return fault, line
        return None


_RESULT_OPENED = b'{"result":'


def _result_json(fields: dict[str, Any], opened: bytes) -> bytes | None:
    """The ``result`` of an end_hand line (checked to have no other field) as JSON, cut
    from the fields as :func:`_open_object` wrote them: ``{"result":<value>,``."""
    if "result" not in fields:
        return None
    return opened[len(_RESULT_OPENED) : -1]


def _open_object(obj: dict[str, Any], *, exact: bool = False) -> bytes:
    """``obj`` as JSON without its closing brace, ready for more members.

    ``exact`` writes with the standard library, which keeps integers of any size (the
    game header was decoded the same way).
    """
    if exact:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False).encode()
    else:
        text = orjson.dumps(obj)
    return text[:-1] + b"," if obj else b"{"


def _line_fault(raw: bytes) -> str | None:
    """Why one line is not a JSON value, or ``None`` when it is one."""
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if _is_binary(raw):
            return Message("binary data, not a JSON text line")
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as uexc:
            return Message("invalid UTF-8 (byte {b:any})",
                           Message("{why:any} at column {c:n}", f"0x{raw[uexc.start]:02x}",
                                   uexc.start + 1))
        if "end of data" in exc.msg:
            return Message("the line ends in the middle of a JSON value (truncated)")
        return Message("invalid JSON ({why:any})",
                       Message("{why:any} at column {c:n}", _json_reason(exc), exc.colno))
    return None


def _reason_of(exc: ValueError) -> str:
    """An error's reason: the :class:`Message` it was raised with, else its text."""
    reason = exc.args[0] if len(exc.args) == 1 else None
    return reason if isinstance(reason, Message) else str(exc)


def _reject_constant(name: str) -> Any:
    raise ValueError(Message("invalid JSON ({why:any})",
                             Message("{name:any} is not a JSON value", name)))


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(Message("invalid JSON (number {v:any} is out of range)", text))
    return value


def _strict_json_loads(text: bytes) -> Any:
    """Standard JSON only (no NaN or Infinity), integers exact."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def _decode_control(kind: str, text: bytes) -> tuple[dict[str, Any], bytes] | None:
    """The fields (without ``type``) of a control line and the same fields as
    :func:`_open_object` writes them (what the assembled game holds), ``None`` if it is
    no control line.

    Raises ``ValueError`` with a reason when the line is not JSON.
    """
    if _BOM in text[:8]:  # the standard library would skip it at the start of a line
        raise ValueError(_INNER_BOM)
    try:
        # orjson turns integers beyond 64 bits into floats; the game header (one line a
        # game, with free-form rule_overrides) is decoded exactly by the standard library.
        obj = _strict_json_loads(text) if kind == "start_game" else orjson.loads(text)
    except RecursionError:
        raise ValueError(Message("invalid JSON (nested too deeply)")) from None
    except ValueError:
        raise ValueError(_line_fault(text) or Message("invalid JSON")) from None
    if not isinstance(obj, dict) or obj.get("type") != kind:
        return None
    del obj["type"]
    # The fields are written out again when the game is assembled: what cannot be
    # (nesting deeper than the encoder allows, lone surrogates) is a fault of this line.
    try:
        opened = _open_object(obj, exact=kind == "start_game")
    except (RecursionError, TypeError, ValueError) as exc:
        raise ValueError(Message("a value that cannot be re-encoded as JSON ({why:any})",
                                 exc)) from None
    return obj, opened


_NOT_IN_CONTROL: dict[str, frozenset[str]] = {
    "start_game": frozenset({"hands"}),
    "start_hand": frozenset({"events", "result"}),
}
_ONLY_IN_CONTROL: dict[str, frozenset[str]] = {
    "end_hand": frozenset({"result"}),
    "end_game": frozenset(),
}


def _control_fault(kind: str, fields: dict[str, Any]) -> str | None:
    banned = _NOT_IN_CONTROL.get(kind)
    if banned is not None:
        for key in fields:
            if key in banned:
                return Message("field {q:quoted} does not belong on a {kind:word} line",
                               excerpt(key), kind)
        return None
    allowed = _ONLY_IN_CONTROL[kind]
    for key in fields:
        if key not in allowed:
            return Message("unknown field {q:quoted} on a {kind:word} line", excerpt(key), kind)
    return None


# --- checks every reader applies to a parsed game --------------------------------------------


def _text_fault(what: str, text: str | None, limit: int) -> str | None:
    if text is not None and len(text) > limit:
        return Message(
            "{what:textfield} is {n:n} characters long, more than the limit of {limit:n} "
            "(ZHUOJI_MAX_TEXT_LENGTH)", what, f"{len(text):,}", limit,
        )
    return None


def find_game_fault(game: G, limits: Limits) -> tuple[str, tuple[int | str, ...]] | None:
    """The first fault of a parsed game that its model cannot see, as ``(reason, loc)``:
    a text longer than :attr:`Limits.max_text_length`, a ``hand_no`` twice.

    Every reader runs it on every game it yields, so that ``validate``, ``audit`` and
    ``ingest`` give one file one verdict.
    """
    limit = limits.max_text_length
    reason = _text_fault("the game id", game.game_id, limit)
    if reason is not None:
        return reason, ("game_id",)
    reason = _text_fault("the ruleset name", game.ruleset, limit)
    if reason is not None:
        return reason, ("ruleset",)
    for i, player in enumerate(game.players):
        reason = _text_fault("the player id", player.id, limit)
        if reason is not None:
            return reason, ("players", i, "id")
        reason = _text_fault("the player name", player.name, limit)
        if reason is not None:
            return reason, ("players", i, "name")
    seen: set[int] = set()
    for i, hand in enumerate(game.hands):
        if hand.hand_no in seen:
            return (Message("hand_no {n:n} appears twice in the game", hand.hand_no),
                    ("hands", i, "hand_no"))
        seen.add(hand.hand_no)
        result = hand.result
        if result is not None and result.items is not None:
            for j, item in enumerate(result.items):
                reason = _text_fault("the reason", item.reason, limit)
                if reason is not None:
                    return reason, ("hands", i, "result", "items", j, "reason")
    return None


def _duplicate_game(game_id: str, first: int | None) -> str:
    if first is None:
        return Message("the game id {g:any} appears twice in the file", repr(game_id))
    return Message("the game id {g:any} appears twice in the file (first at line {l:n})",
                   repr(game_id), first)


def _finish(
    game: _GameParts, path: str | None, validate: Validate[G], limits: Limits
) -> G | MalformedLogError:
    result = _validate_parts(game, path, validate)
    if isinstance(result, MalformedLogError):
        return result
    fault = find_game_fault(result, limits)
    if fault is None:
        return result
    reason, loc = fault
    return MalformedLogError(
        reason,
        path=path,
        line=game.line_of(loc),
        json_path=format_loc(loc),
        game_id=None if loc == ("game_id",) else result.game_id,
    )


def _validate_parts(
    game: _GameParts, path: str | None, validate: Validate[G]
) -> G | MalformedLogError:
    try:
        return validate(game.to_document(fast=True))
    except ValidationError as exc:
        error = exc
    if _is_json_error(error):
        try:
            return validate(game.to_document(fast=False))
        except ValidationError as exc:
            error = exc
        if _is_json_error(error):
            bad = game.find_bad_line()
            reason, line = (bad if bad is not None
                            else (Message("invalid JSON in the game"), game.line))
            return MalformedLogError(reason, path=path, line=line, game_id=game.game_id)
    return _from_validation_error(error, path=path, game_id=game.game_id, line_of=game.line_of)


def _next_line(text: bytes, line: int) -> int:
    """The number of the line after the part ``text`` that starts at ``line``."""
    return line + text.count(b"\n") + (0 if not text or text.endswith(b"\n") else 1)


def _first_content_line(text: bytes, first_line: int) -> int | None:
    """The number of the first non-blank line of a run, ``None`` when all are blank
    (``bytes.lstrip`` and a count, in C: a run of blank lines costs no Python work per
    line)."""
    start = len(text) - len(text.lstrip())
    if start == len(text):
        return None
    return first_line + text.count(b"\n", 0, start)


def generate_stream_games(
    source: Readable,
    *,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[Game | MalformedLogError]:
    """Games of a stream, one per ``start_game`` ... ``end_game`` run of lines.

    ``source`` is read in blocks of :data:`BLOCK_SIZE`, never whole. A game with any fault
    yields one :class:`MalformedLogError` naming its line, and reading resumes at the next
    ``start_game`` line. A read or decompression error ends the stream with one error, as
    does a stream past :attr:`Limits.max_file_bytes`. ``limits`` default to
    :func:`~zhuoji.parsers.limits.current_limits`.
    """
    return _generate_stream_games(source, path, _models_validate(tiles), limits)


def generate_fast_stream_games(
    source: Readable,
    *,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[fast.Game | MalformedLogError]:
    """Like :func:`generate_stream_games`, the games in the fast form."""
    return _generate_stream_games(source, path, _fast_validate(tiles), limits)


def _generate_stream_games(
    source: Readable, path: str | None, validate: Validate[G], limits: Limits | None = None
) -> Iterator[G | MalformedLogError]:
    limits = current_limits() if limits is None else limits
    max_game = limits.max_game_bytes
    game: _GameParts | None = None
    hand: _HandParts | None = None
    skipping = False  # after a fault, until the next start_game
    games_seen = 0  # start_game lines
    faults = 0
    first_lines: dict[str, int] = {}  # each game id yielded, the line its game starts on
    line = 1
    text = b""

    def fault(reason: str, at: int) -> MalformedLogError:
        nonlocal faults
        faults += 1
        game_id = game.game_id if game is not None else None
        if game_id is not None and len(game_id) > limits.max_text_length:
            game_id = None
        return MalformedLogError(reason, path=path, line=at, game_id=game_id)

    try:
        for kind, text, line in _generate_parts(source, limits):
            if kind == _LONG:
                if not skipping:
                    yield fault(_line_too_long(limits), line)
                    game = hand = None
                    skipping = True
                continue
            if game is not None and kind != "start_game":
                game.size += len(text)
                if game.size > max_game:
                    yield fault(_game_too_large(limits), line)
                    game = hand = None
                    skipping = True
                    continue
            control: tuple[dict[str, Any], bytes] | None = None
            if kind:
                try:
                    control = _decode_control(kind, text)
                except ValueError as exc:
                    if kind == "start_game":
                        games_seen += 1
                    if not skipping:
                        yield fault(_reason_of(exc), line)
                        game = hand = None
                        skipping = True
                    continue
            if control is None:  # event lines (or a line that only quotes a control type)
                if hand is not None:
                    hand.runs.append((text, line))
                    continue
                if skipping:
                    continue
                at = _first_content_line(text, line)
                if at is None:
                    continue
                yield fault(Message("an event line outside a hand") if game is not None
                            else Message("an event line before any start_game"), at)
                game = hand = None
                skipping = True
                continue
            fields, opened = control
            if kind == "start_game":
                games_seen += 1
                if game is not None:
                    yield fault(
                        Message("the game started at line {l:n} has no end_game before the "
                                "next start_game", game.line),
                        line,
                    )
                skipping = False
                game = _GameParts(fields, opened, line, size=len(text))
                hand = None
                reason = _control_fault(kind, fields)
                if reason is not None:
                    yield fault(reason, line)
                    game = None
                    skipping = True
                continue
            if skipping:
                continue
            reason = _control_fault(kind, fields)
            if reason is None:
                if game is None:
                    reason = Message("{kind:word} before any start_game", kind)
                elif kind == "start_hand" and hand is not None:
                    reason = Message("start_hand while the hand started at line {l:n} is open",
                                     hand.line)
                elif kind == "end_hand" and hand is None:
                    reason = Message("end_hand with no open hand")
                elif kind == "end_game" and hand is not None:
                    reason = Message("end_game while the hand started at line {l:n} is open",
                                     hand.line)
            if reason is not None:
                yield fault(reason, line)
                game = hand = None
                skipping = True
                continue
            assert game is not None
            if kind == "start_hand":
                hand = _HandParts(opened, line)
                game.hands.append(hand)
            elif kind == "end_hand":
                assert hand is not None
                hand.result_json = _result_json(fields, opened)
                hand.end_line = line
                hand = None
            else:  # end_game
                item = _finish(game, path, validate, limits)
                if not isinstance(item, MalformedLogError):
                    first = first_lines.get(item.game_id)
                    if first is not None:
                        item = MalformedLogError(
                            _duplicate_game(item.game_id, first),
                            path=path,
                            line=game.line,
                            json_path="game_id",
                            game_id=item.game_id,
                        )
                    else:
                        first_lines[item.game_id] = game.line
                if isinstance(item, MalformedLogError):
                    faults += 1
                yield item
                game = None
    except _FileTooLargeError:
        # Checked at each read, before the read's lines are looked at: no line to name.
        yield MalformedLogError(_file_too_large(limits), path=path)
        return
    except EOFError:
        at = _next_line(text, line)
        yield fault(Message("the compressed data ends early: the file is truncated"), at)
        return
    except gzip.BadGzipFile as exc:
        yield fault(Message("not gzip data or a corrupt gzip member ({why:any})", exc),
                    _next_line(text, line))
        return
    except (OSError, zlib.error) as exc:
        yield fault(Message("cannot read further ({why:any})", exc), _next_line(text, line))
        return
    if game is not None:
        yield fault(
            Message("the file ends inside the game started at line {l:n}: it is truncated",
                    game.line),
            _next_line(text, line) - 1,
        )
    elif not games_seen and not faults:
        yield MalformedLogError(Message("the file holds no game (a log holds at least one)"),
                                path=path)


def generate_stream_games_from_bytes(
    data: bytes,
    *,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[Game | MalformedLogError]:
    """Games of a stream held in memory (tests, small inputs)."""
    return generate_stream_games(io.BytesIO(data), path=path, limits=limits, tiles=tiles)


# --- files -----------------------------------------------------------------------------------


class NotRegularFileError(OSError):
    """A path that is no regular file (a named pipe, a device, a socket, a folder):
    reading it could block or never end, so it is refused."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(Message("{path:any}: not a regular file ({kind:any})", path, kind))
        self.path = path
        self.kind = kind
        self.reason = Message("not a regular file ({kind:any})", kind)


def describe_file_type(mode: int) -> str | None:
    """What an ``st_mode`` that is no regular file is (``"a named pipe (FIFO)"``), or
    ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return Message("a folder")
    if stat.S_ISFIFO(mode):
        return Message("a named pipe (FIFO)")
    if stat.S_ISCHR(mode):
        return Message("a character device")
    if stat.S_ISBLK(mode):
        return Message("a block device")
    if stat.S_ISSOCK(mode):
        return Message("a socket")
    return Message("not a file")


def open_regular_file(path: str | os.PathLike[str]) -> io.BufferedReader:
    """``path`` opened for reading in binary, when it is a regular file (after symbolic
    links); raises :class:`NotRegularFileError` for anything else, at once: a named pipe
    is opened without waiting for a writer, and a device is never read. Other failures
    raise ``OSError`` as ``open`` does."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(name, flags)
    try:
        kind = describe_file_type(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFileError(name, kind)
        os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def generate_games(
    path: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[Game | MalformedLogError]:
    """Every game of a log file, or one error per game (or file) that cannot be read.

    The encoding follows the file name (:data:`LOG_SUFFIXES`). Stream files are read
    line by line and never held whole. What is no regular file is refused, unread.
    ``limits`` (:class:`~zhuoji.parsers.limits.Limits`) default to
    :func:`~zhuoji.parsers.limits.current_limits`. ``tiles``: see the module's text.
    """
    return _generate_games(path, _models_validate(tiles), None, limits)


class ByteSink(Protocol):
    """Where :func:`generate_fast_games` can send the bytes of the file it reads (a
    content hash, say): ``update`` with each piece in order, then ``end`` once the whole
    file has been sent."""

    def update(self, data: bytes, /) -> None: ...

    def end(self) -> None: ...


class _TeeReader:
    """A binary file whose bytes, as they are read, also go to a :class:`ByteSink`."""

    def __init__(self, handle: io.BufferedIOBase, sink: ByteSink) -> None:
        self._handle = handle
        self._sink = sink

    def read(self, size: int = -1, /) -> bytes:
        data = self._handle.read(size)
        self._sink.update(data)
        return data

    def read1(self, size: int = -1, /) -> bytes:
        data = self._handle.read1(size)
        self._sink.update(data)
        return data

    def seek(self, offset: int, whence: int = 0, /) -> int:
        # a programming error, never a user's: not translated
        raise io.UnsupportedOperation("a file read into a sink is read once, forward")

    def drain(self) -> None:
        """Send what was not read (after a fault ended the reading early), then end."""
        while data := self._handle.read(BLOCK_SIZE):
            self._sink.update(data)
        self._sink.end()


def generate_fast_games(
    path: str | os.PathLike[str],
    *,
    sink: ByteSink | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[fast.Game | MalformedLogError]:
    """Like :func:`generate_games`, the games in the fast form (:mod:`zhuoji.parsers.fast`):
    the same games and errors, decoded at about the speed of plain JSON decoding.

    ``sink``, when given, gets every byte of the file as stored, in the one read that
    parses it (the rest of the file too, when a fault stops the parsing early), and its
    ``end`` once the last game or error is out. A file that cannot be opened sends
    nothing and never ends.
    """
    return _generate_games(path, _fast_validate(tiles), sink, limits)


def _generate_games(
    path: str | os.PathLike[str],
    validate: Validate[G],
    sink: ByteSink | None = None,
    limits: Limits | None = None,
) -> Iterator[G | MalformedLogError]:
    name = os.fspath(path)
    encoding, gzipped = parse_encoding(name)
    limits = current_limits() if limits is None else limits
    try:
        handle = open_regular_file(name)
    except NotRegularFileError as exc:
        yield MalformedLogError(exc.reason, path=name)
        return
    except OSError as exc:
        yield MalformedLogError(Message("cannot read the file ({why:any})",
                                        system_reason(exc)), path=name)
        return
    with handle:
        raw: io.BufferedReader | _TeeReader = handle if sink is None else _TeeReader(handle, sink)
        if encoding is Encoding.DOCUMENT:
            try:
                data = _read_document_bytes(raw, gzipped, limits, name)
                yield _parse_document(data, name, validate, limits)
            except MalformedLogError as exc:
                yield exc
        else:
            source: Readable = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            yield from _generate_stream_games(source, name, validate, limits)
        if isinstance(raw, _TeeReader):
            raw.drain()


def generate_games_from_bytes(
    data: bytes,
    encoding: Encoding,
    *,
    gzipped: bool = False,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[Game | MalformedLogError]:
    """Like :func:`generate_games` for bytes held in memory."""
    return _generate_games_from_bytes(
        data, encoding, gzipped, path, _models_validate(tiles), limits
    )


def generate_fast_games_from_bytes(
    data: bytes,
    encoding: Encoding,
    *,
    gzipped: bool = False,
    path: str | None = None,
    limits: Limits | None = None,
    tiles: TileSetOf | None = None,
) -> Iterator[fast.Game | MalformedLogError]:
    """Like :func:`generate_games_from_bytes`, the games in the fast form."""
    return _generate_games_from_bytes(
        data, encoding, gzipped, path, _fast_validate(tiles), limits
    )


def _generate_games_from_bytes(
    data: bytes,
    encoding: Encoding,
    gzipped: bool,
    path: str | None,
    validate: Validate[G],
    limits: Limits | None,
) -> Iterator[G | MalformedLogError]:
    limits = current_limits() if limits is None else limits
    if encoding is Encoding.DOCUMENT:
        try:
            raw = _read_document_bytes(io.BytesIO(data), gzipped, limits, path)
            yield _parse_document(raw, path, validate, limits)
        except MalformedLogError as exc:
            yield exc
        return
    source: Readable = io.BytesIO(data)
    if gzipped:
        source = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
    yield from _generate_stream_games(source, path, validate, limits)
