from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from tests.support.factories import changed, game_dict
from zhuoji.parsers import fast
from zhuoji.parsers.models import (
    ChowEvent,
    DiscardEvent,
    DrawEvent,
    Game,
    KongEvent,
    PongEvent,
    WinEvent,
    generate_seat_faults,
)


def _error_types(exc: ValidationError) -> list[tuple[Any, str]]:
    return [(e["loc"], e["type"]) for e in exc.errors()]


def test_a_well_formed_game_parses_with_every_event_type() -> None:
    data = game_dict()
    data["hands"][0]["events"].append(
        {"type": "chow", "seat": 2, "tiles": ["3m", "4m", "5m"], "from": 1}
    )
    data["hands"][0]["events"].append({"type": "exhaustive_draw"})
    game = Game.model_validate(data)
    events = game.hands[0].events
    assert [e.type for e in events] == [
        "discard",
        "pong",
        "discard",
        "draw",
        "kong",
        "ready",
        "win",
        "flip",
        "chow",
        "exhaustive_draw",
    ]
    assert isinstance(events[1], PongEvent) and events[1].from_seat == 0
    assert isinstance(events[4], KongEvent) and events[4].from_seat is None
    assert isinstance(events[8], ChowEvent) and events[8].tiles == ("3m", "4m", "5m")
    assert events[0].t == 1200 and events[2].t is None


def test_tiles_normalise_everywhere_in_a_game() -> None:
    def edit(g: dict[str, Any]) -> None:
        hand = g["hands"][0]
        hand["wall"] = ["五万", "\U0001f00b", "九筒", "幺鸡"]
        hand["deal"][1][0] = "一條"
        hand["events"][0]["tile"] = "幺雞"
        hand["events"].append(
            {"type": "chow", "seat": 2, "tiles": ["三万", "4万", "\U0001f00b"], "from": 1}
        )

    game = Game.model_validate(changed(game_dict(), edit))
    hand = game.hands[0]
    assert hand.wall == ("5m", "5m", "9p", "1s")
    assert hand.deal[1][0] == "1s"
    assert isinstance(hand.events[0], DiscardEvent) and hand.events[0].tile == "1s"
    assert isinstance(hand.events[-1], ChowEvent) and hand.events[-1].tiles == ("3m", "4m", "5m")


def test_serialisation_uses_the_json_names() -> None:
    game = Game.model_validate(game_dict())
    dumped = game.model_dump(mode="json", exclude_none=True)
    assert dumped["schema"] == "zhuoji-log/1"
    assert dumped["hands"][0]["events"][1] == {"type": "pong", "seat": 1, "tile": "1s", "from": 0}


def test_models_and_events_are_frozen() -> None:
    game = Game.model_validate(game_dict())
    with pytest.raises(ValidationError):
        game.game_id = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        game.hands[0].events[0].seat = 3  # type: ignore[misc,union-attr]
    assert isinstance(game.hands, tuple) and isinstance(game.hands[0].deal[0], tuple)


def test_events_can_be_built_in_code_by_attribute_name() -> None:
    event = WinEvent(seat=2, tile="六筒", from_seat=1)
    assert (event.type, event.tile, event.from_seat) == ("win", "6p", 1)
    assert DrawEvent(seat=0, tile="5m") == DrawEvent(seat=0, tile="五万")


def test_the_json_name_from_seat_is_not_accepted_in_a_log() -> None:
    data = changed(
        game_dict(),
        lambda g: g["hands"][0]["events"][1].update(
            {"from_seat": g["hands"][0]["events"][1].pop("from")}
        ),
    )
    with pytest.raises(ValidationError) as info:
        Game.model_validate(data, by_alias=True, by_name=False)
    assert (("hands", 0, "events", 1, "pong", "from"), "missing") in _error_types(info.value)


def test_a_fifth_copy_of_a_tile_in_a_deal_is_not_a_parse_error() -> None:
    def edit(g: dict[str, Any]) -> None:
        g["hands"][0]["deal"][0] = ["1s"] * 5 + ["2m"] * 9

    game = Game.model_validate(changed(game_dict(), edit))
    assert game.hands[0].deal[0].count("1s") == 5


def test_deal_sizes_are_not_checked_here() -> None:
    game = Game.model_validate(changed(game_dict(), lambda g: g["hands"][0]["deal"][2].pop()))
    assert len(game.hands[0].deal[2]) == 12


@pytest.mark.parametrize(
    ("edit", "loc", "kind"),
    [
        (lambda g: g.pop("game_id"), ("game_id",), "missing"),
        (lambda g: g.update(extra=1), ("extra",), "extra_forbidden"),
        (lambda g: g["players"][0].update(rank=1), ("players", 0, "rank"), "extra_forbidden"),
        (lambda g: g["hands"][0].update(note="x"), ("hands", 0, "note"), "extra_forbidden"),
        (
            lambda g: g["hands"][0]["events"][0].update(why="x"),
            ("hands", 0, "events", 0, "discard", "why"),
            "unexpected_keyword_argument",
        ),
        (
            lambda g: g["hands"][0]["events"][0].update(type="peng"),
            ("hands", 0, "events", 0),
            "union_tag_invalid",
        ),
        (
            lambda g: g["hands"][0]["events"][0].update(tile="10m"),
            ("hands", 0, "events", 0, "discard", "tile"),
            "unknown_tile",
        ),
        (lambda g: g["hands"][0]["wall"].append("0p"), ("hands", 0, "wall", 4), "unknown_tile"),
        (lambda g: g.update(schema="zhuoji-log/2"), ("schema",), "literal_error"),
        (
            lambda g: g["hands"][0]["events"][0].update(seat=4),
            ("hands", 0, "events", 0, "discard", "seat"),
            "less_than_equal",
        ),
        (
            lambda g: g["hands"][0]["events"][4].update(kind="big"),
            ("hands", 0, "events", 4, "kong", "kind"),
            "literal_error",
        ),
        (
            lambda g: g["hands"][0]["events"][0].update(seat="0"),
            ("hands", 0, "events", 0, "discard", "seat"),
            "int_type",
        ),
        (lambda g: g["players"].pop(), None, "seat_layout"),
        (lambda g: g.update(players=g["players"][:1]), ("players",), "too_short"),
    ],
)
def test_malformed_games_are_rejected(edit: Any, loc: Any, kind: str) -> None:
    with pytest.raises(ValidationError) as info:
        Game.model_validate(changed(game_dict(), edit))
    errors = _error_types(info.value)
    if loc is None:
        assert kind in [k for _, k in errors]
    else:
        assert (loc, kind) in errors


@pytest.mark.parametrize(
    ("n_players", "edit", "loc", "reason"),
    [
        (
            3,
            lambda g: g["hands"][0]["events"][1].update(seat=3),
            ("hands", 0, "events", 1, "seat"),
            "seat 3 out of range for 3 players",
        ),
        (
            3,
            lambda g: g["hands"][0]["events"][1].update({"from": 3}),
            ("hands", 0, "events", 1, "from"),
            "seat 3 out of range for 3 players",
        ),
        (
            2,
            lambda g: g["hands"][0].update(dealer=2),
            ("hands", 0, "dealer"),
            "seat 2 out of range for 2 players",
        ),
        (
            3,
            lambda g: g["hands"][0]["result"].update(next_dealer=3),
            ("hands", 0, "result", "next_dealer"),
            "seat 3 out of range for 3 players",
        ),
        (
            3,
            lambda g: g["hands"][0]["result"]["items"][0].update(payee=3),
            ("hands", 0, "result", "items", 0, "payee"),
            "seat 3 out of range for 3 players",
        ),
        (
            4,
            lambda g: g["hands"][0]["result"]["deltas"].pop(),
            ("hands", 0, "result", "deltas"),
            "3 deltas for 4 players",
        ),
        (
            3,
            lambda g: g["hands"][0]["result"]["deltas"].append(0),
            ("hands", 0, "result", "deltas"),
            "4 deltas for 3 players",
        ),
        (
            4,
            lambda g: g["hands"][0]["deal"].pop(),
            ("hands", 0, "deal"),
            "3 starting hands for 4 players",
        ),
        (
            3,
            lambda g: g["players"][2].update(seat=1),
            ("players", 2, "seat"),
            "seat 1 listed twice for 3 players",
        ),
        (
            3,
            lambda g: g["players"][2].update(seat=3),
            ("players", 2, "seat"),
            "seat 3 out of range for 3 players",
        ),
    ],
)
def test_seats_are_bounded_by_the_player_count(
    n_players: int, edit: Any, loc: Any, reason: str
) -> None:
    data = changed(game_dict(n_players), edit)
    with pytest.raises(ValidationError) as info:
        Game.model_validate(data)
    (error,) = info.value.errors()
    assert error["type"] == "seat_layout"
    assert error["ctx"]["loc"] == loc
    assert error["ctx"]["reason"] == reason


def test_generate_seat_faults_lists_every_fault() -> None:
    game = Game.model_validate(game_dict(3))
    assert list(generate_seat_faults(game)) == []
    bad = game.model_copy(update={"players": game.players[:2]})
    faults = list(generate_seat_faults(bad))
    assert (("hands", 0, "deal"), "3 starting hands for 2 players") in faults
    assert (("hands", 0, "events", 4, "seat"), "seat 1 out of range for 2 players") not in faults
    assert any(loc[-1] == "deltas" for loc, _ in faults)


_WAREHOUSE_BOUNDS: list[tuple[Any, Any, str]] = [
    (lambda g: g.update(base_stake=2**31), ("base_stake",), "less_than_equal"),
    (lambda g: g["hands"][0].update(hand_no=2**31), ("hands", 0, "hand_no"), "less_than_equal"),
    (
        lambda g: g["hands"][0].update(dealer_streak=2**31),
        ("hands", 0, "dealer_streak"),
        "less_than_equal",
    ),
    (
        lambda g: g["hands"][0].update(result={"deltas": [-(2**31) - 1, 2**31 + 1, 0, 0]}),
        ("hands", 0, "result", "deltas", 0),
        "greater_than_equal",
    ),
    (lambda g: g.update(started_at="0001-01-01T00:00:00+08:00"), ("started_at",), "value_error"),
    (lambda g: g.update(started_at="9999-12-31T23:00:00-08:00"), ("started_at",), "value_error"),
    (lambda g: g.update(started_at="0001-01-01T12:00:00"), ("started_at",), "value_error"),
]


@pytest.mark.parametrize(("edit", "loc", "kind"), _WAREHOUSE_BOUNDS)
def test_values_beyond_the_warehouse_columns_are_rejected_by_both_forms(
    edit: Any, loc: Any, kind: str
) -> None:
    game = changed(game_dict(), edit)
    with pytest.raises(ValidationError) as info:
        Game.model_validate(game)
    assert (loc, kind) in _error_types(info.value)
    assert fast.decode_game(orjson.dumps(game)) is None  # left to the models, which reject it


@pytest.mark.parametrize(
    "edit",
    [
        lambda g: g.update(base_stake=2**31 - 1),
        lambda g: g["hands"][0].update(hand_no=2**31 - 1, dealer_streak=2**31 - 1),
        lambda g: g.update(started_at="0001-01-02T00:00:00+14:00"),
        lambda g: g.update(started_at="9999-12-30T23:59:59-12:00"),
    ],
)
def test_the_largest_values_the_warehouse_holds_parse(edit: Any) -> None:
    Game.model_validate(changed(game_dict(), edit))
