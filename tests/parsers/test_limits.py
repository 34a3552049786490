"""The limits on one log file (:mod:`zhuoji.parsers.limits`) as every reader applies them.

Bytes per file (decompressed), per game and per line of a stream, characters per id or
name: each with a clear error naming the file, the line and the field, and the reading
of a stream resuming at the next game where it can.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.support.factories import doc_bytes, game_dict, stream_bytes
from zhuoji.parsers import read
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.limits import Limits, current_limits, format_size, parse_size
from zhuoji.parsers.read import (
    Encoding,
    generate_fast_games,
    generate_fast_games_from_bytes,
    generate_games,
    generate_games_from_bytes,
)

SMALL = Limits(max_file_bytes=1 << 20, max_game_bytes=1 << 16, max_line_bytes=2000)


def _items(data: bytes, encoding: Encoding, limits: Limits, gzipped: bool = False) -> list[Any]:
    """Both forms read the same; the fast form's items."""
    slow = list(generate_games_from_bytes(data, encoding, gzipped=gzipped, limits=limits))
    quick = list(generate_fast_games_from_bytes(data, encoding, gzipped=gzipped, limits=limits))
    assert [str(i) if isinstance(i, MalformedLogError) else i.game_id for i in slow] == [
        str(i) if isinstance(i, MalformedLogError) else i.game_id for i in quick
    ]
    return quick


def _errors(items: list[Any]) -> list[MalformedLogError]:
    return [i for i in items if isinstance(i, MalformedLogError)]


# --- settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("1048576", 1 << 20), ("1MiB", 1 << 20), ("64 KiB", 64 << 10), ("4G", 4 << 30), ("2kb", 2048)],
)
def test_sizes_are_bytes_with_an_optional_binary_unit(text: str, value: int) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1.5MiB", "-1", "0", "1 PB"])
def test_a_bad_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


def test_limits_come_from_the_environment_with_documented_defaults() -> None:
    assert Limits.from_env({}) == Limits()
    assert Limits() == Limits(4 << 30, 64 << 20, 1 << 20, 256)
    env = {"ZHUOJI_MAX_LINE_BYTES": "4KiB", "ZHUOJI_MAX_TEXT_LENGTH": "32"}
    assert Limits.from_env(env) == Limits(max_line_bytes=4096, max_text_length=32)
    with pytest.raises(ValueError, match="ZHUOJI_MAX_GAME_BYTES: not a size: 'lots'"):
        Limits.from_env({"ZHUOJI_MAX_GAME_BYTES": "lots"})
    assert format_size(64 << 20) == "64 MiB" and format_size(1000) == "1000 bytes"


def test_the_readers_read_the_environment_when_a_file_is_opened(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = game_dict()
    game["players"][0]["id"] = "p" * 40
    monkeypatch.setenv("ZHUOJI_MAX_TEXT_LENGTH", "39")
    assert current_limits().max_text_length == 39
    (error,) = list(generate_games_from_bytes(doc_bytes(game), Encoding.DOCUMENT))
    assert isinstance(error, MalformedLogError)
    assert error.json_path == "players[0].id"
    monkeypatch.setenv("ZHUOJI_MAX_TEXT_LENGTH", "40")
    (parsed,) = list(generate_games_from_bytes(doc_bytes(game), Encoding.DOCUMENT))
    assert not isinstance(parsed, MalformedLogError)


# --- lines -----------------------------------------------------------------------------------


class _Chunks:
    """A source whose reads return pieces of random sizes (as a pipe or gzip may)."""

    def __init__(self, data: bytes, rng: random.Random, most: int) -> None:
        self._data = data
        self._at = 0
        self._rng = rng
        self._most = most

    def read1(self, size: int = -1, /) -> bytes:
        n = self._rng.randint(1, self._most)
        piece = self._data[self._at : self._at + n]
        self._at += len(piece)
        return piece


def _naive_blocks(data: bytes, max_line: int) -> list[bytes | None]:
    out: list[bytes | None] = []
    if not data:
        return out
    for raw in data.split(b"\n"):
        out.append(None if len(raw) > max_line else raw)
    if data.endswith(b"\n"):
        out.pop()  # no line after the last newline
    return out


def test_long_lines_are_found_wherever_the_reads_cut_them() -> None:
    rng = random.Random(7)
    for _ in range(300):
        max_line = rng.randint(1, 40)
        lengths = [
            rng.choice([0, 1, max_line - 1, max_line, max_line + 1, rng.randint(0, 150)])
            for _ in range(rng.randint(0, 30))
        ]
        lines = [bytes(rng.choice(b"ab ") for _ in range(max(n, 0))) for n in lengths]
        data = b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
        limits = Limits(max_line_bytes=max_line)
        source = _Chunks(data, rng, rng.choice([1, 3, max_line, 4 * max_line, 1000]))
        got: list[bytes | None] = []
        for block in read._generate_blocks(source, limits):
            if block is None:
                got.append(None)
            else:
                got.extend(_naive_blocks(block, 1 << 30))
        # A final line without newline after a dropped one is still a line of its own.
        assert got == _naive_blocks(data, max_line), (max_line, lengths)


def _long_line_stream(line: bytes, *, before: int = 1) -> tuple[bytes, int]:
    """Games g-1 .. g-before, then a game with ``line`` among its events, then g-z."""
    stream = b"".join(stream_bytes(game_dict(game_id=f"g-{i}")) for i in range(1, before + 1))
    bad = stream_bytes(game_dict(game_id="g-bad")).split(b"\n")
    bad.insert(3, line)
    at = stream.count(b"\n") + 4
    return stream + b"\n".join(bad) + stream_bytes(game_dict(game_id="g-z")), at


def test_a_line_beyond_the_limit_is_a_fault_of_its_game_and_reading_goes_on() -> None:
    data, at = _long_line_stream(b"x" * 2001)
    items = _items(data, Encoding.STREAM, SMALL)
    assert [getattr(i, "game_id", None) for i in items] == ["g-1", "g-bad", "g-z"]
    (error,) = _errors(items)
    assert error.line == at
    assert error.reason == (
        "the line is longer than 2000 bytes, the limit for one line (ZHUOJI_MAX_LINE_BYTES)"
    )
    assert str(error).startswith(f"<input> line {at}, game 'g-bad': the line is longer")
    ok, _ = _long_line_stream(b" " * 2000)  # blank, at the limit: nothing wrong
    assert not _errors(_items(ok, Encoding.STREAM, SMALL))


def test_a_long_line_across_many_reads_keeps_the_line_numbers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(read, "BLOCK_SIZE", 64)
    data, at = _long_line_stream(
        b'{"type":"draw","seat":0,"tile":"' + b"5" * 5000 + b'"}', before=3
    )
    items = _items(data, Encoding.STREAM, SMALL)
    (error,) = _errors(items)
    assert error.line == at
    later = stream_bytes(game_dict(game_id="g-z")).count(b"\n")
    assert data.count(b"\n") - later + 1 > at  # g-z follows, and is read
    assert getattr(items[-1], "game_id", None) == "g-z"


# --- games and files -------------------------------------------------------------------------


def test_a_stream_game_beyond_the_limit_is_refused_and_the_next_is_read() -> None:
    big = game_dict(game_id="g-big", hands=40)
    data = stream_bytes(big) + stream_bytes(game_dict(game_id="g-2"))
    size = len(stream_bytes(big))
    limits = Limits(max_game_bytes=size - 1)
    items = _items(data, Encoding.STREAM, limits)
    (error,) = _errors(items)
    assert error.game_id == "g-big" and error.line is not None
    assert f"the game holds more than {size - 1} bytes, the limit for one game" in error.reason
    assert getattr(items[-1], "game_id", None) == "g-2"
    assert not _errors(_items(data, Encoding.STREAM, Limits(max_game_bytes=size)))


def test_a_document_beyond_the_limit_is_refused_before_it_is_read_whole() -> None:
    data = doc_bytes(game_dict(hands=5))
    for gzipped in (False, True):
        raw = gzip.compress(data) if gzipped else data
        (error,) = _items(raw, Encoding.DOCUMENT, Limits(max_game_bytes=len(data) - 1), gzipped)
        assert isinstance(error, MalformedLogError)
        assert "the limit for one game (ZHUOJI_MAX_GAME_BYTES)" in error.reason
        (game,) = _items(raw, Encoding.DOCUMENT, Limits(max_game_bytes=len(data)), gzipped)
        assert not isinstance(game, MalformedLogError)


def test_a_stream_beyond_the_file_limit_ends_with_one_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(read, "BLOCK_SIZE", 256)
    one = stream_bytes(game_dict(game_id="g-1"))
    data = one + b"\n" * 5000 + stream_bytes(game_dict(game_id="g-2"))
    limit = len(one) + 1000
    items = _items(gzip.compress(data), Encoding.STREAM, Limits(max_file_bytes=limit), True)
    assert getattr(items[0], "game_id", None) == "g-1"
    (error,) = items[1:]
    assert isinstance(error, MalformedLogError)
    assert error.reason == (
        f"the file holds more than {limit} bytes (decompressed), the limit for one "
        "file (ZHUOJI_MAX_FILE_BYTES)"
    )
    assert not _errors(_items(data, Encoding.STREAM, Limits(max_file_bytes=len(data))))


def test_blank_lines_anywhere_cost_nothing_per_line_and_keep_the_numbers() -> None:
    blank = b"\n \t\r\n" * 20_000
    game = stream_bytes(game_dict(game_id="g-1"))
    data = blank + game + blank + b'{"type":"draw","seat":0,"tile":"1m"}\n'
    items = _items(data, Encoding.STREAM, Limits())
    (error,) = _errors(items)
    assert error.line == data.count(b"\n")
    assert error.reason == "an event line before any start_game"


# --- texts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "json_path", "what"),
    [
        (("game_id",), "game_id", "the game id"),
        (("ruleset",), "ruleset", "the ruleset name"),
        (("players", 2, "id"), "players[2].id", "the player id"),
        (("players", 1, "name"), "players[1].name", "the player name"),
        (
            ("hands", 0, "result", "items", 0, "reason"),
            "hands[0].result.items[0].reason",
            "the reason",
        ),
    ],
)
def test_ids_and_names_beyond_the_limit_are_refused_in_both_encodings(
    where: tuple[Any, ...], json_path: str, what: str
) -> None:
    game = game_dict()
    target: Any = game
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = "名" * 257
    reason = f"{what} is 257 characters long, more than the limit of 256 (ZHUOJI_MAX_TEXT_LENGTH)"
    for data, encoding in (
        (doc_bytes(game), Encoding.DOCUMENT),
        (stream_bytes(game), Encoding.STREAM),
    ):
        (error,) = _items(data, encoding, Limits(max_line_bytes=1 << 20))
        assert isinstance(error, MalformedLogError)
        assert (error.reason, error.json_path) == (reason, json_path)
        assert error.game_id == (None if json_path == "game_id" else "g-1")
        if encoding is Encoding.STREAM:
            assert error.line is not None
    target[where[-1]] = "名" * 256
    assert not _errors(_items(doc_bytes(game), Encoding.DOCUMENT, Limits()))


def test_a_huge_player_id_costs_no_more_than_its_document(tmp_path: Path) -> None:
    game = game_dict()
    game["players"][0]["id"] = "p" * 20_000_000
    path = tmp_path / "big-id.json"
    path.write_bytes(json.dumps(game).encode())
    for items in (list(generate_games(path)), list(generate_fast_games(path))):
        (error,) = items
        assert isinstance(error, MalformedLogError)
        assert error.json_path == "players[0].id"
        assert "20,000,000 characters long" in error.reason
        assert len(str(error)) < 300  # the id itself is never quoted


def test_blocks_read_from_a_file_object() -> None:
    source = io.BytesIO(b"a\n" + b"b" * 10 + b"\nc")
    assert list(read._generate_blocks(source, Limits(max_line_bytes=5))) == [b"a\n", None, b"c"]
