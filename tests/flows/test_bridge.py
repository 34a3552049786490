from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from tests.support.factories import game_dict
from zhuoji.flows.audit import bridge
from zhuoji.flows.audit.bridge import game_from_records, hand_from_record, hand_records
from zhuoji.parsers import fast
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_fast_games, generate_games, is_log_path
from zhuoji.rules.events import (
    Chow,
    Discard,
    Draw,
    ExhaustiveDraw,
    Flip,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Ready,
    RecordedItem,
    RecordedResult,
    Win,
)
from zhuoji.rules.tiles import Tile

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def _game() -> Game:
    data = game_dict(hands=2)
    data["base_stake"] = 3
    data["hands"][0]["events"].append(
        {"type": "chow", "seat": 2, "tiles": ["3m", "4m", "5m"], "from": 1}
    )
    data["hands"][0]["events"].append({"type": "exhaustive_draw"})
    data["hands"][0]["events"].append(
        {"type": "kong", "seat": 2, "tile": "9s", "kind": "exposed", "from": 0}
    )
    data["hands"][0]["events"].append({"type": "win", "seat": 3, "tile": "9s", "from": 2})
    return Game.model_validate(data)


def test_hand_records_convert_every_field() -> None:
    records = hand_records(_game())
    assert len(records) == 2
    first = records[0]
    assert (
        first.hand_no,
        first.n_players,
        first.dealer,
        first.dealer_streak,
        first.base_stake,
    ) == (
        1,
        4,
        0,
        0,
        3,
    )
    assert first.deal[0][:3] == (Tile.M1, Tile.M2, Tile.M3) and len(first.deal[0]) == 14
    assert first.wall == (Tile.M5, Tile.P6, Tile.S7, Tile.S1)
    assert first.events == (
        Discard(0, Tile.S1),
        Pong(1, Tile.S1, 0),
        Discard(1, Tile.M9),
        Draw(1, Tile.M5),
        Kong(1, Tile.P4, KongKind.CONCEALED, None),
        Ready(0),
        Win(1, Tile.P6, None),
        Flip(Tile.S7),
        Chow(2, (Tile.M3, Tile.M4, Tile.M5), 1),
        ExhaustiveDraw(),
        Kong(2, Tile.S9, KongKind.EXPOSED, 0),
        Win(3, Tile.S9, 2),
    )
    assert first.result == RecordedResult((3, -1, -1, -1), 1, (RecordedItem(0, 1, 1, "hand"),))


def test_optional_parts_stay_none() -> None:
    data = game_dict()
    del data["hands"][0]["wall"], data["hands"][0]["result"]
    (record,) = hand_records(Game.model_validate(data))
    assert record.wall is None and record.result is None


def test_records_convert_back_to_the_same_hands() -> None:
    game = _game()
    records = hand_records(game)
    for record, hand in zip(records, game.hands, strict=True):
        back = hand_from_record(record, dice=hand.dice)
        # The engine's events carry no time stamps: compare without them.
        assert back.model_copy(update={"events": ()}) == hand.model_copy(update={"events": ()})
        assert [type(e) for e in back.events] == [type(e) for e in hand.events]
        assert [getattr(e, "tile", None) for e in back.events] == [
            getattr(e, "tile", None) for e in hand.events
        ]
    again = game_from_records(records, game_id=game.game_id, players=game.players)
    assert hand_records(again) == records
    assert again.base_stake == 3


def test_the_samples_convert_both_ways() -> None:
    for path in sorted(p for p in SAMPLE.rglob("*") if is_log_path(p)):
        for game in generate_games(path):
            assert isinstance(game, Game)
            records = hand_records(game)
            assert all(isinstance(r, HandRecord) for r in records)
            assert hand_records(game_from_records(records, game_id="x")) == records


def test_game_from_records_needs_consistent_records() -> None:
    (record,) = hand_records(Game.model_validate(game_dict()))
    other = HandRecord(
        **{**{f.name: getattr(record, f.name) for f in dataclasses.fields(record)}, "n_players": 3}
    )
    with pytest.raises(ValueError, match="players and stake"):
        game_from_records([record, other], game_id="x")
    with pytest.raises(ValueError, match="at least one hand"):
        game_from_records([], game_id="x")


def _sample_paths() -> list[Path]:
    return sorted(p for p in SAMPLE.rglob("*") if p.is_file() and is_log_path(p))


def test_the_fast_form_gives_the_records_of_the_models() -> None:
    # Twice: the second time every event and result item comes from the bridge's caches.
    for _ in range(2):
        for path in _sample_paths():
            models = [g for g in generate_games(path) if isinstance(g, Game)]
            quick = [g for g in generate_fast_games(path) if isinstance(g, fast.Game)]
            assert [hand_records(g) for g in quick] == [hand_records(g) for g in models]


def test_timed_events_convert_but_are_not_remembered() -> None:
    data = game_dict(hands=1)
    for i, event in enumerate(data["hands"][0]["events"]):
        event["t"] = 1_000_000 + i
    game = fast.parse_game(orjson.dumps(data))
    before = len(bridge._ENGINE_EVENTS)
    (record,) = hand_records(game)
    plain = hand_records(Game.model_validate(data))[0]
    assert record == plain
    assert len(bridge._ENGINE_EVENTS) == before


def test_the_caches_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge, "_ENGINE_EVENTS", {})
    monkeypatch.setattr(bridge, "_RECORDED_ITEMS", {})
    monkeypatch.setattr(bridge, "_CACHE_LIMIT", 0)
    data = game_dict(hands=1)
    (record,) = hand_records(fast.parse_game(orjson.dumps(data)))
    assert record == hand_records(Game.model_validate(data))[0]
    assert bridge._ENGINE_EVENTS == {} and bridge._RECORDED_ITEMS == {}
