"""What JSON and the encodings leave open, decided once for every reader (docs/log-format.md,
"One verdict for one file"): both forms and both encodings must agree on each case."""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from tests.support.factories import doc_bytes, game_dict, stream_bytes
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.read import Encoding, generate_fast_games_from_bytes, generate_games_from_bytes

BOM = b"\xef\xbb\xbf"


def _both(data: bytes, encoding: Encoding, gzipped: bool = False) -> list[Any]:
    slow = list(generate_games_from_bytes(data, encoding, gzipped=gzipped))
    quick = list(generate_fast_games_from_bytes(data, encoding, gzipped=gzipped))
    assert [str(i) if isinstance(i, MalformedLogError) else i.game_id for i in slow] == [
        str(i) if isinstance(i, MalformedLogError) else i.game_id for i in quick
    ]
    return quick


def _encodings(game: dict[str, Any]) -> list[tuple[bytes, Encoding]]:
    return [(doc_bytes(game), Encoding.DOCUMENT), (stream_bytes(game), Encoding.STREAM)]


@pytest.mark.parametrize("value", [1_700_000_000, 1_700_000_000_000, 1.7e9, "1700000000", " 17 "])
def test_a_numeric_started_at_is_no_unix_time(value: object) -> None:
    game = game_dict()
    game["started_at"] = value
    for data, encoding in _encodings(game):
        (error,) = _both(data, encoding)
        assert isinstance(error, MalformedLogError)
        assert error.json_path == "started_at"
        assert error.reason.startswith(
            "a date-time text such as '2026-11-01T20:00:00+08:00' is expected, not a number"
        )


@pytest.mark.parametrize("value", ["2026-11-01T20:00:00+08:00", "2026-11-01 20:00", "2026-11-01"])
def test_a_date_time_text_is_read(value: str) -> None:
    game = game_dict()
    game["started_at"] = value
    for data, encoding in _encodings(game):
        (parsed,) = _both(data, encoding)
        assert not isinstance(parsed, MalformedLogError)
        assert parsed.started_at is not None


def test_started_at_of_another_kind_gets_the_models_own_error() -> None:
    game = game_dict()
    game["started_at"] = True
    (error,) = _both(doc_bytes(game), Encoding.DOCUMENT)
    assert isinstance(error, MalformedLogError) and "not a number" not in error.reason


def test_a_leading_byte_order_mark_is_skipped_in_every_encoding() -> None:
    game = game_dict()
    for data, encoding in _encodings(game):
        for gzipped in (False, True):
            raw = gzip.compress(BOM + data) if gzipped else BOM + data
            (parsed,) = _both(raw, encoding, gzipped)
            assert not isinstance(parsed, MalformedLogError), (encoding, gzipped)


def test_a_byte_order_mark_anywhere_else_is_a_fault_of_its_line() -> None:
    first = stream_bytes(game_dict(game_id="g-1"))
    data = first + BOM + stream_bytes(game_dict(game_id="g-2"))
    items = _both(data, Encoding.STREAM)
    assert getattr(items[0], "game_id", None) == "g-1"
    (error,) = items[1:]
    assert isinstance(error, MalformedLogError)
    assert error.line == first.count(b"\n") + 1
    assert "byte order mark (U+FEFF) inside the file" in error.reason
    (error,) = _both(b" " + BOM + doc_bytes(game_dict()), Encoding.DOCUMENT)
    assert isinstance(error, MalformedLogError)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \r\n\t\n"])
def test_an_empty_file_is_malformed_in_both_encodings(data: bytes) -> None:
    (stream,) = _both(data, Encoding.STREAM)
    assert isinstance(stream, MalformedLogError)
    assert stream.reason == "the file holds no game (a log holds at least one)"
    (document,) = _both(data, Encoding.DOCUMENT)
    assert isinstance(document, MalformedLogError) and document.reason == "the file is empty"
    (packed,) = _both(gzip.compress(data), Encoding.STREAM, gzipped=True)
    assert isinstance(packed, MalformedLogError)


def test_a_game_id_twice_in_a_stream_names_both_lines() -> None:
    one = stream_bytes(game_dict(game_id="g-1"))
    data = one + stream_bytes(game_dict(game_id="g-2")) + one
    items = _both(data, Encoding.STREAM)
    assert [getattr(i, "game_id", None) for i in items[:2]] == ["g-1", "g-2"]
    error = items[2]
    assert isinstance(error, MalformedLogError)
    at = 2 * one.count(b"\n") + 1
    assert str(error) == (
        f"<input> line {at}, game 'g-1', field game_id: the game id 'g-1' appears twice in "
        "the file (first at line 1)"
    )


def test_a_hand_no_twice_in_a_game_is_malformed_in_both_encodings() -> None:
    game = game_dict(hands=3)
    game["hands"][2]["hand_no"] = game["hands"][0]["hand_no"]
    for data, encoding in _encodings(game):
        (error,) = _both(data, encoding)
        assert isinstance(error, MalformedLogError)
        assert (error.reason, error.json_path) == (
            "hand_no 1 appears twice in the game",
            "hands[2].hand_no",
        )
        if encoding is Encoding.STREAM:
            starts = [n for n, ln in enumerate(data.split(b"\n"), 1) if b"start_hand" in ln]
            assert error.line == starts[2]


def test_a_repeated_key_reads_its_last_value_in_every_form() -> None:
    game = game_dict()
    document = doc_bytes(game).replace(b'"dealer":0,', b'"dealer":2,"dealer":1,', 1)
    stream = stream_bytes(game).replace(
        b'{"type":"discard","seat":0,', b'{"type":"discard","seat":3,"seat":2,', 1
    )
    (from_document,) = _both(document, Encoding.DOCUMENT)
    assert from_document.hands[0].dealer == 1
    (from_stream,) = _both(stream, Encoding.STREAM)
    assert from_stream.hands[0].events[0].seat == 2
    (slow,) = list(generate_games_from_bytes(stream, Encoding.STREAM))
    assert slow.hands[0].events[0].seat == 2  # type: ignore[union-attr]
