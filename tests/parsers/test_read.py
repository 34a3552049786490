from __future__ import annotations

import gzip
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import zhuoji.parsers.read as read
from tests.support.factories import changed, doc_bytes, game_dict, stream_bytes
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import (
    Encoding,
    format_loc,
    generate_fast_games,
    generate_games,
    generate_games_from_bytes,
    generate_stream_games,
    generate_stream_games_from_bytes,
    is_log_path,
    parse_document,
    parse_encoding,
)

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def _games(items: list[Game | MalformedLogError]) -> list[str]:
    """Each item as ``ok <game_id>`` or ``error <sentence>``."""
    return [f"ok {i.game_id}" if isinstance(i, Game) else f"error {i}" for i in items]


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "encoding", "gzipped"),
    [
        ("a.json", Encoding.DOCUMENT, False),
        ("a.json.gz", Encoding.DOCUMENT, True),
        ("a.jsonl", Encoding.STREAM, False),
        ("a.ndjson", Encoding.STREAM, False),
        ("a.jsonl.gz", Encoding.STREAM, True),
        ("A.NDJSON.GZ", Encoding.STREAM, True),
    ],
)
def test_the_encoding_follows_the_file_name(name: str, encoding: Encoding, gzipped: bool) -> None:
    assert parse_encoding(name) == (encoding, gzipped)
    assert is_log_path(name)


def test_other_names_are_not_logs() -> None:
    assert not is_log_path("a.txt")
    assert not is_log_path("out/faults.jsonl")  # the simulator's fault manifest
    with pytest.raises(ValueError, match="not a log file name"):
        parse_encoding("a.json.bz2")


def test_format_loc_reads_like_a_json_path() -> None:
    assert format_loc(("hands", 3, "events", 17, "discard", "tile")) == "hands[3].events[17].tile"
    assert format_loc(("hands", 0, "wall", 4)) == "hands[0].wall[4]"
    assert format_loc(("game_id",)) == "game_id"


# --- document --------------------------------------------------------------------------------


def test_a_document_parses() -> None:
    game = parse_document(doc_bytes(game_dict()))
    assert game.game_id == "g-1" and len(game.hands[0].events) == 8


def _document_error(data: bytes) -> MalformedLogError:
    with pytest.raises(MalformedLogError) as info:
        parse_document(data, path="x.json")
    return info.value


def test_a_truncated_document_names_the_place() -> None:
    data = doc_bytes(game_dict())
    error = _document_error(data[: len(data) // 2])
    assert error.reason == "the JSON ends early: the file is truncated"
    assert error.path == "x.json" and error.line == 1 and error.column is not None
    assert str(error).startswith("x.json line 1 column ")


def test_invalid_utf8_is_reported_with_its_line() -> None:
    data = orjson.dumps(game_dict(), option=orjson.OPT_INDENT_2).replace(
        b'"player 1"', b'"pl\xe9yer 1"'
    )
    error = _document_error(data)
    assert error.reason == "invalid UTF-8 (byte 0xe9)"
    assert error.line == data[: data.index(b"\xe9")].count(b"\n") + 1


def test_binary_junk_is_not_json() -> None:
    junk = bytes((i * 7919 + 13) % 256 for i in range(3000))
    assert _document_error(junk).reason == "binary data, not a JSON text log"
    assert _document_error(b"").reason == "the file is empty"
    assert _document_error(b"{nope}").reason.startswith("invalid JSON")


@pytest.mark.parametrize(
    ("edit", "sentence"),
    [
        (
            lambda g: g["hands"][0]["events"][2].update(tile="10m"),
            "x.json, game 'g-1', field hands[0].events[2].tile: unknown tile '10m'",
        ),
        (lambda g: g.pop("game_id"), "x.json, field game_id: required field is missing"),
        (
            lambda g: g["hands"][0]["events"][1].update(type="peng"),
            "x.json, game 'g-1', field hands[0].events[1]: unknown event type 'peng'",
        ),
        (
            lambda g: g["hands"][0]["events"][1].update(colour="red"),
            "x.json, game 'g-1', field hands[0].events[1].colour: unknown field 'colour'",
        ),
        (
            lambda g: g.update(venue="hall"),
            "x.json, game 'g-1', field venue: unknown field 'venue'",
        ),
        (
            lambda g: g["hands"][0]["events"][1].update(seat=5),
            "x.json, game 'g-1', field hands[0].events[1].seat: seat 5 out of range",
        ),
        (
            lambda g: g["hands"][0]["result"]["deltas"].pop(),
            "x.json, game 'g-1', field hands[0].result.deltas: 3 deltas for 4 players",
        ),
        (
            lambda g: g.update(schema="zhuoji-log/9"),
            "x.json, game 'g-1', field schema: unsupported schema 'zhuoji-log/9' "
            "(expected 'zhuoji-log/1')",
        ),
    ],
)
def test_document_errors_are_one_readable_sentence(edit: Any, sentence: str) -> None:
    assert str(_document_error(doc_bytes(changed(game_dict(), edit)))) == sentence


def test_seat_faults_of_small_tables_carry_their_path() -> None:
    data = doc_bytes(changed(game_dict(3), lambda g: g["hands"][0]["events"][1].update(seat=3)))
    error = _document_error(data)
    assert error.json_path == "hands[0].events[1].seat"
    assert error.reason == "seat 3 out of range for 3 players"


def test_several_faults_are_counted() -> None:
    def edit(g: dict[str, Any]) -> None:
        g["hands"][0]["events"][0]["tile"] = "10m"
        g["hands"][0]["events"][2]["tile"] = "11m"

    error = _document_error(doc_bytes(changed(game_dict(), edit)))
    assert error.more == 1 and str(error).endswith("(and 1 more fault)")


# --- stream ----------------------------------------------------------------------------------


def test_a_stream_gives_the_same_game_as_the_document() -> None:
    data = game_dict()
    (game,) = generate_stream_games_from_bytes(stream_bytes(data))
    assert game == parse_document(doc_bytes(data))


def test_a_bad_game_does_not_hide_the_good_games_after_it() -> None:
    good1, good2 = game_dict(game_id="a"), game_dict(game_id="c", hands=2)
    bad = changed(game_dict(game_id="b"), lambda g: g["hands"][0]["events"][3].update(tile="10m"))
    text = stream_bytes(good1, bad, good2)
    items = list(generate_stream_games_from_bytes(text, path="s.jsonl"))
    assert _games(items) == [
        "ok a",
        "error s.jsonl line 18, game 'b', field hands[0].events[3].tile: unknown tile '10m'",
        "ok c",
    ]


def _stream_with_bad_tile() -> bytes:
    return stream_bytes(game_dict(game_id="a"), game_dict(game_id="b"))


def test_each_malformed_line_kind_costs_only_its_game() -> None:
    lines = _stream_with_bad_tile().splitlines(keepends=True)
    # line 1 start_game, 2 start_hand, 3..10 events, 11 end_hand, 12 end_game; game b: 13..24
    cases: dict[str, tuple[int, Callable[[bytes], bytes]]] = {
        "truncated line": (5, lambda raw: raw[:10] + b"\n"),
        "invalid utf-8": (6, lambda raw: raw.replace(b'"seat"', b'"s\xffat"')),
        "binary": (4, lambda raw: b"\x00\x01\x02\x03junk\x00\n"),
    }
    reasons = {
        "truncated line": "the line ends in the middle of a JSON value (truncated)",
        "invalid utf-8": "invalid UTF-8 (byte 0xff at column 18)",
        "binary": "binary data, not a JSON text line",
    }
    for name, (line, edit) in cases.items():
        broken = list(lines)
        broken[line - 1] = edit(broken[line - 1])
        items = list(generate_stream_games_from_bytes(b"".join(broken)))
        assert _games(items) == [f"error <input> line {line}, game 'a': {reasons[name]}", "ok b"], (
            name
        )


def test_structure_faults_in_a_stream() -> None:
    good = stream_bytes(game_dict(game_id="z"))
    lines = stream_bytes(game_dict(game_id="a")).splitlines(keepends=True)
    no_end_game = b"".join(lines[:-1])
    assert _games(list(generate_stream_games_from_bytes(no_end_game + good))) == [
        "error <input> line 12, game 'a': the game started at line 1 has no end_game before "
        "the next start_game",
        "ok z",
    ]
    no_end_hand = b"".join(lines[:10] + lines[11:])
    assert _games(list(generate_stream_games_from_bytes(no_end_hand + good))) == [
        "error <input> line 11, game 'a': end_game while the hand started at line 2 is open",
        "ok z",
    ]
    orphan = b'{"type":"draw","seat":0,"tile":"5m"}\n'
    assert _games(list(generate_stream_games_from_bytes(orphan + good))) == [
        "error <input> line 1: an event line before any start_game",
        "ok z",
    ]
    extra_on_end = lines[10].replace(b'{"type":"end_hand"', b'{"type":"end_hand","x":1')
    text = b"".join([*lines[:10], extra_on_end, *lines[11:]])
    assert _games(list(generate_stream_games_from_bytes(text + good))) == [
        "error <input> line 11, game 'a': unknown field 'x' on a end_hand line",
        "ok z",
    ]
    hands_in_header = lines[0].replace(b'{"type":"start_game"', b'{"type":"start_game","hands":[]')
    text = b"".join([hands_in_header, *lines[1:]])
    assert _games(list(generate_stream_games_from_bytes(text + good))) == [
        "error <input> line 1, game 'a': field 'hands' does not belong on a start_game line",
        "ok z",
    ]


def test_a_control_line_is_found_wherever_its_type_is_on_the_line() -> None:
    header = {"game_id": "a", "note": "not a start_game", "players": [], "type": "start_game"}
    lines = stream_bytes(game_dict(game_id="a")).splitlines(keepends=True)
    fields = orjson.loads(lines[0])
    header.update({k: v for k, v in fields.items() if k != "type"})
    header["players"] = [{**p, "name": "big_game"} for p in fields["players"]]
    moved = orjson.dumps({"note": "a_hand", **header}) + b"\n"  # "type" last, hints before it
    (game,) = generate_stream_games_from_bytes(b"".join([moved, *lines[1:]]))
    assert isinstance(game, MalformedLogError) and "note" in game.reason  # the header was read
    del header["note"]
    moved = orjson.dumps(header) + b"\n"
    (game,) = generate_stream_games_from_bytes(b"".join([moved, *lines[1:]]))
    assert isinstance(game, Game) and {p.name for p in game.players} == {"big_game"}


def test_a_control_object_split_over_two_lines_is_no_control_line() -> None:
    good = stream_bytes(game_dict(game_id="z"))
    lines = stream_bytes(game_dict(game_id="a")).splitlines(keepends=True)
    split = lines[1].replace(b'{"type":"start_hand"', b'{"type":\n"start_hand"')
    assert split != lines[1]
    text = b"".join([lines[0], split, *lines[2:]])
    assert _games(list(generate_stream_games_from_bytes(text + good))) == [
        "error <input> line 2, game 'a': an event line outside a hand",
        "ok z",
    ]


def test_a_truncated_stream_keeps_the_games_before_the_cut() -> None:
    text = _stream_with_bad_tile()
    assert text.endswith(b'{"type":"end_game"}\n')
    at_a_line_end = text[: -len(b'{"type":"end_game"}\n')]
    items = list(generate_stream_games_from_bytes(at_a_line_end, path="t.jsonl"))
    assert _games(items) == [
        "ok a",
        "error t.jsonl line 23, game 'b': the file ends inside the game started at line 13: "
        "it is truncated",
    ]
    lines = text.splitlines(keepends=True)
    items = list(generate_stream_games_from_bytes(b"".join(lines[:-2]), path="t.jsonl"))
    assert _games(items) == [
        "ok a",
        "error t.jsonl line 22, game 'b': the file ends inside the game started at line 13: "
        "it is truncated",
    ]
    mid_line = text[: len(text) - 40]
    items = list(generate_stream_games_from_bytes(mid_line, path="t.jsonl"))
    assert _games(items) == [
        "ok a",
        "error t.jsonl line 23, game 'b': the line ends in the middle of a JSON value (truncated)",
    ]


def test_blank_lines_crlf_and_spaced_control_lines_are_read() -> None:
    lines = stream_bytes(game_dict(game_id="a")).splitlines()
    lines[0] = lines[0].replace(b'{"type":"start_game"', b'{ "type" : "start_game"')
    text = b"\r\n".join([b"", *lines[:5], b"", b"   ", *lines[5:], b""])
    (game,) = generate_stream_games_from_bytes(text)
    assert isinstance(game, Game) and game == Game.model_validate(game_dict(game_id="a"))


def test_a_field_error_after_blank_lines_names_the_right_line() -> None:
    lines = stream_bytes(
        changed(game_dict(), lambda g: g["hands"][0]["events"][5].update(seat=9))
    ).splitlines(keepends=True)
    text = b"".join([*lines[:4], b"\n", b"\n", *lines[4:]])
    (error,) = generate_stream_games_from_bytes(text)
    assert isinstance(error, MalformedLogError)
    assert (error.line, error.json_path) == (10, "hands[0].events[5].seat")


@pytest.mark.parametrize("block", [7, 64, 1000])
def test_small_read_blocks_split_lines_anywhere(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(read, "BLOCK_SIZE", block)
    games = [game_dict(game_id=f"g{i}", hands=2) for i in range(3)]
    bad = changed(games[1], lambda g: g["hands"][1]["events"][6].update(tile="10m"))
    items = list(generate_stream_games_from_bytes(stream_bytes(games[0], bad, games[2])))
    assert _games(items) == [
        "ok g0",
        "error <input> line 41, game 'g1', field hands[1].events[6].tile: unknown tile '10m'",
        "ok g2",
    ]


class _CountingSource:
    def __init__(self, data: bytes) -> None:
        self.inner = io.BytesIO(data)
        self.consumed = 0

    def read1(self, size: int = -1, /) -> bytes:
        assert size > 0, "the reader must never ask for everything"
        chunk = self.inner.read1(size)
        self.consumed += len(chunk)
        return chunk


def test_a_stream_is_read_game_by_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read, "BLOCK_SIZE", 4096)
    data = stream_bytes(*[game_dict(game_id=f"g{i}", hands=3) for i in range(40)])
    source = _CountingSource(data)
    games = generate_stream_games(source)
    first = next(games)
    assert isinstance(first, Game) and first.game_id == "g0"
    assert source.consumed < len(data) // 10
    assert len(list(games)) == 39 and source.consumed == len(data)


# --- files -----------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_every_encoding_reads_from_files(tmp_path: Path) -> None:
    data = game_dict()
    second = game_dict(game_id="g-2")
    expected = Game.model_validate(data)
    stream = stream_bytes(data, second)
    files = {
        "a.json": doc_bytes(data),
        "a.json.gz": gzip.compress(doc_bytes(data)),
        "a.jsonl": stream,
        "a.ndjson": stream,
        "a.jsonl.gz": gzip.compress(stream),
        "a.ndjson.gz": gzip.compress(stream),
    }
    for name, content in files.items():
        items = list(generate_games(_write(tmp_path / name, content)))
        is_document = ".json" in name and "l" not in name.split(".")[1]
        assert items == (
            [expected] if is_document else [expected, Game.model_validate(second)]
        ), name


class _Sink:
    def __init__(self) -> None:
        self.data = bytearray()
        self.ends = 0

    def update(self, data: bytes, /) -> None:
        assert not self.ends, "bytes after the end"
        self.data += data

    def end(self) -> None:
        self.ends += 1


def test_a_sink_gets_every_byte_of_the_file_in_the_read_that_parses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "BLOCK_SIZE", 4096)  # many reads of each file
    data = game_dict()
    stream = stream_bytes(*(game_dict(game_id=f"g{i}", hands=4) for i in range(40)))
    packed = gzip.compress(stream)
    files = {
        "a.json": doc_bytes(data),
        "a.json.gz": gzip.compress(doc_bytes(data)),
        "a.jsonl": stream,
        "a.ndjson.gz": packed,
        # faults that stop the reading early: the rest of the file still goes to the sink
        "cut.jsonl.gz": packed[: len(packed) // 2],
        "junk.jsonl.gz": b"\x1f\x8b\x08\x00" + b"\x17" * 64 + b"more" * 1000,
        "bad.json.gz": b"not gzip" * 100,
    }
    for name, content in files.items():
        sink = _Sink()
        items = list(generate_fast_games(_write(tmp_path / name, content), sink=sink))
        assert bytes(sink.data) == content and sink.ends == 1, name
        assert [repr(i) for i in items] == [
            repr(i) for i in generate_fast_games(tmp_path / name)
        ], name
    sink = _Sink()
    (error,) = generate_fast_games(tmp_path / "missing.jsonl", sink=sink)
    assert isinstance(error, MalformedLogError) and "cannot read the file" in error.reason
    assert (sink.data, sink.ends) == (bytearray(), 0)


def test_a_truncated_gzip_stream_keeps_earlier_games(tmp_path: Path) -> None:
    many = [game_dict(game_id=f"g{i}", hands=4) for i in range(30)]
    packed = gzip.compress(stream_bytes(*many))
    path = _write(tmp_path / "cut.jsonl.gz", packed[: len(packed) * 2 // 3])
    items = list(generate_games(path))
    good = [i for i in items if isinstance(i, Game)]
    errors = [i for i in items if isinstance(i, MalformedLogError)]
    assert len(good) >= 10 and [g.game_id for g in good] == [f"g{i}" for i in range(len(good))]
    assert len(errors) == 1 and "compressed data ends early" in errors[0].reason
    assert errors[0].path == str(path)


def test_gzip_faults_in_documents(tmp_path: Path) -> None:
    packed = gzip.compress(doc_bytes(game_dict()))
    (cut,) = generate_games(_write(tmp_path / "cut.json.gz", packed[:-12]))
    assert isinstance(cut, MalformedLogError) and "truncated" in cut.reason
    (plain,) = generate_games(_write(tmp_path / "plain.json.gz", doc_bytes(game_dict())))
    assert isinstance(plain, MalformedLogError) and plain.reason.startswith("not gzip data")
    (junk,) = generate_games(_write(tmp_path / "junk.jsonl.gz", b"\x1f\x8b\x08\x00" + b"\x17" * 64))
    assert isinstance(junk, MalformedLogError)


def test_an_unreadable_file_is_one_error(tmp_path: Path) -> None:
    (error,) = generate_games(tmp_path / "missing.jsonl")
    assert isinstance(error, MalformedLogError) and "cannot read the file" in str(error)


def test_bytes_in_memory_read_like_files() -> None:
    data = game_dict()
    (doc,) = generate_games_from_bytes(
        gzip.compress(doc_bytes(data)), Encoding.DOCUMENT, gzipped=True
    )
    stream = list(generate_games_from_bytes(stream_bytes(data), Encoding.STREAM))
    assert [doc] == stream == [Game.model_validate(data)]


def test_the_samples_parse() -> None:
    files = sorted(p for p in SAMPLE.rglob("*") if is_log_path(p))
    assert len(files) >= 3
    for path in files:
        items = list(generate_games(path))
        assert items and all(isinstance(i, Game) for i in items), items


def test_integers_beyond_64_bits_are_rejected_in_both_encodings() -> None:
    data = game_dict()
    data["rule_overrides"] = {"limit": 1}
    big = b'"limit":%d' % 2**64
    error = _document_error(doc_bytes(data).replace(b'"limit":1', big))
    assert (error.json_path, error.reason) == (
        "rule_overrides",
        f"value error, integer {2**64} is outside the 64-bit range",
    )
    (streamed,) = generate_stream_games_from_bytes(stream_bytes(data).replace(b'"limit":1', big))
    assert isinstance(streamed, MalformedLogError)
    assert (streamed.line, streamed.reason) == (1, error.reason)
    nan = stream_bytes(game_dict()).replace(b'"base_stake":1', b'"base_stake":NaN', 1)
    (bad,) = generate_stream_games_from_bytes(nan)
    assert isinstance(bad, MalformedLogError) and bad.reason.startswith("invalid JSON")
