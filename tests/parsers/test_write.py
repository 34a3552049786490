from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.factories import game_dict
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import (
    generate_games,
    generate_stream_games_from_bytes,
    is_log_path,
    parse_document,
)
from zhuoji.parsers.tiles import CANONICAL_TILES
from zhuoji.parsers.write import format_document, format_stream, generate_stream_lines, write_games

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_document_bytes_are_deterministic_and_compact() -> None:
    game = Game.model_validate(game_dict())
    first = format_document(game)
    assert first == format_document(Game.model_validate(game_dict()))
    assert first.startswith(b'{"schema":"zhuoji-log/1","game_id":"g-1","ruleset":"guiyang",')
    assert first.endswith(b"}\n") and first.count(b"\n") == 1 and b": " not in first
    indented = format_document(game, indent=True)
    assert indented.startswith(b'{\n  "schema": "zhuoji-log/1",\n')
    assert parse_document(indented) == game


def test_absent_optional_fields_stay_absent() -> None:
    data = game_dict()
    del data["hands"][0]["result"]
    del data["hands"][0]["wall"]
    text = format_document(Game.model_validate(data))
    for key in (b'"result"', b'"wall"', b'"t":null', b'"from":null', b'"started_at"'):
        assert key not in text


def test_rule_overrides_are_written_in_key_order() -> None:
    data = game_dict()
    data["rule_overrides"] = {"z": 1, "a": {"y": None, "b": [1, 2]}}
    text = format_document(Game.model_validate(data))
    assert b'"rule_overrides":{"a":{"y":null,"b":[1,2]},"z":1}' in text


def test_stream_lines_follow_the_contract() -> None:
    lines = list(generate_stream_lines(Game.model_validate(game_dict(hands=2))))
    assert lines[0].startswith(b'{"type":"start_game","schema":"zhuoji-log/1","game_id":"g-1"')
    assert lines[1].startswith(b'{"type":"start_hand","hand_no":1,')
    assert lines[2] == b'{"type":"discard","seat":0,"tile":"1s","t":1200}\n'
    assert lines[10].startswith(b'{"type":"end_hand","result":{"deltas":[3,-1,-1,-1]')
    assert lines[-1] == b'{"type":"end_game"}\n'
    assert len(lines) == 1 + 2 * 10 + 1 and all(line.endswith(b"\n") for line in lines)


def test_write_games_by_extension(tmp_path: Path) -> None:
    games = [Game.model_validate(game_dict(game_id=f"g{i}")) for i in range(3)]
    for name in ("a.jsonl", "a.ndjson", "a.jsonl.gz"):
        assert write_games(tmp_path / name, games) == 3
        assert list(generate_games(tmp_path / name)) == games
    assert write_games(tmp_path / "one.json.gz", games[:1]) == 1
    assert list(generate_games(tmp_path / "one.json.gz")) == games[:1]
    with pytest.raises(ValueError, match="a document file holds one game, got 3"):
        write_games(tmp_path / "three.json", games)
    assert not (tmp_path / "three.json").exists()


def test_gzip_output_is_deterministic(tmp_path: Path) -> None:
    games = [Game.model_validate(game_dict())]
    write_games(tmp_path / "a.jsonl.gz", games)
    write_games(tmp_path / "b.jsonl.gz", games)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.jsonl.gz").read_bytes()) == format_stream(games)


def _round_trip(game: Game) -> None:
    document = format_document(game)
    (from_stream,) = generate_stream_games_from_bytes(format_stream([game]))
    assert from_stream == game
    assert isinstance(from_stream, Game)
    assert format_document(from_stream) == document
    assert parse_document(document) == game


def test_the_samples_survive_document_stream_document() -> None:
    for path in sorted(p for p in SAMPLE.rglob("*") if is_log_path(p)):
        for game in generate_games(path):
            assert isinstance(game, Game)
            _round_trip(game)


# --- generated games -------------------------------------------------------------------------

_tiles = st.sampled_from(CANONICAL_TILES)
_t = st.none() | st.integers(0, 10**7)


def _event(n: int) -> st.SearchStrategy[dict[str, Any]]:
    seat = st.integers(0, n - 1)

    def build(
        kind: str, s: int, tile: str, frm: int | None, t: int | None, tiles: list[str], kong: str
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"type": kind}
        if kind not in ("flip", "exhaustive_draw"):
            out["seat"] = s
        if kind in ("draw", "discard", "pong", "kong", "win", "flip"):
            out["tile"] = tile
        if kind == "kong":
            out["kind"] = kong
        if kind == "chow":
            out["tiles"] = tiles
        if kind in ("pong", "chow") or (kind in ("kong", "win") and frm is not None):
            out["from"] = frm if frm is not None else 0
        if t is not None:
            out["t"] = t
        return out

    return st.builds(
        build,
        st.sampled_from(
            ["draw", "discard", "pong", "kong", "ready", "win", "flip", "exhaustive_draw", "chow"]
        ),
        seat,
        _tiles,
        st.none() | seat,
        _t,
        st.lists(_tiles, min_size=1, max_size=3),
        st.sampled_from(["exposed", "added", "concealed"]),
    )


@st.composite
def _games(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 4))
    seat = st.integers(0, n - 1)
    text = st.text(min_size=1, max_size=8)
    hands = []
    for hand_no in range(draw(st.integers(0, 3))):
        hand: dict[str, Any] = {
            "hand_no": hand_no + 1,
            "dealer": draw(seat),
            "dealer_streak": draw(st.integers(0, 5)),
            "deal": draw(st.lists(st.lists(_tiles, max_size=14), min_size=n, max_size=n)),
            "events": draw(st.lists(_event(n), max_size=12)),
        }
        if draw(st.booleans()):
            hand["wall"] = draw(st.lists(_tiles, max_size=10))
        if draw(st.booleans()):
            hand["dice"] = draw(st.lists(st.integers(1, 6), min_size=2, max_size=2))
        if draw(st.booleans()):
            result: dict[str, Any] = {
                "deltas": draw(st.lists(st.integers(-99, 99), min_size=n, max_size=n))
            }
            if draw(st.booleans()):
                result["next_dealer"] = draw(seat)
            if draw(st.booleans()):
                result["items"] = [
                    {
                        "payer": draw(seat),
                        "payee": draw(seat),
                        "amount": draw(st.integers(0, 20)),
                        "reason": draw(text),
                    }
                ]
            hand["result"] = result
        hands.append(hand)
    game: dict[str, Any] = {
        "schema": "zhuoji-log/1",
        "game_id": draw(text),
        "ruleset": draw(text),
        "base_stake": draw(st.integers(1, 10)),
        "players": [
            {"seat": s, "id": draw(text), **({"name": draw(text)} if draw(st.booleans()) else {})}
            for s in range(n)
        ],
        "hands": hands,
    }
    if draw(st.booleans()):
        game["rule_overrides"] = draw(
            st.dictionaries(
                text,
                st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | text,
                max_size=3,
            )
        )
    if draw(st.booleans()):
        game["started_at"] = "2026-11-01T20:15:00+08:00"
    return game


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_games())
def test_generated_games_round_trip_losslessly(data: dict[str, Any]) -> None:
    _round_trip(Game.model_validate(data))
