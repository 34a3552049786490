"""The 换三张 / 定缺 events and a hand's ``carry`` in the log format: both parser forms read
them the same, in both encodings, the bridge gives the engine's values and back, and a bad
field is named."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.factories import changed, doc_bytes, game_dict, stream_bytes
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.parsers import fast, models
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.read import (
    Encoding,
    generate_fast_games_from_bytes,
    generate_games_from_bytes,
)
from zhuoji.rules.events import DeclareSuit, Exchange, Suit
from zhuoji.rules.tiles import parse_tiles

PAIRS = (
    (models.ExchangeEvent, fast.ExchangeEvent),
    (models.DeclareSuitEvent, fast.DeclareSuitEvent),
)


def _game() -> dict[str, Any]:
    game = game_dict(hands=2)
    hand = game["hands"][0]
    hand["events"][:0] = [
        {"type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"], "to": 1, "t": 10},
        {"type": "declare_suit", "seat": 2, "suit": "p"},
    ]
    hand["carry"] = {"draw_multiplier": 2, "dealer_streak": 1}
    return game


def _read(data: bytes, *, fast_form: bool) -> list[Any]:
    reader = generate_fast_games_from_bytes if fast_form else generate_games_from_bytes
    stream = data.startswith(b'{"type":"start_game"')
    encoding = Encoding.STREAM if stream else Encoding.DOCUMENT
    return list(reader(data, encoding, path="x.json"))


@pytest.mark.parametrize("encode", [doc_bytes, stream_bytes])
def test_both_forms_read_the_events_and_the_carry_the_same(encode: Any) -> None:
    data = encode(_game())
    model, = _read(data, fast_form=False)
    quick, = _read(data, fast_form=True)
    assert isinstance(model, models.Game) and isinstance(quick, fast.Game)
    assert quick == fast.from_model(model)
    assert model.hands[0].carry == {"draw_multiplier": 2, "dealer_streak": 1}
    assert model.hands[1].carry is None
    records = hand_records(quick)
    assert records == hand_records(model)
    first = records[0]
    assert first.events[:2] == (Exchange(0, tuple(parse_tiles("123m")), 1),
                                DeclareSuit(2, Suit.DOTS))
    assert first.carry == (("dealer_streak", 1), ("draw_multiplier", 2))
    # and back: the records written as a log read as the same records
    again = game_from_records(records, game_id="g-1")
    assert hand_records(again) == records


@pytest.mark.parametrize(("edit", "shown"), [
    (lambda g: g["hands"][0]["events"][1].update(suit="z"), "events[1].suit"),
    (lambda g: g["hands"][0]["events"][0].update(to=7), "seat 7 out of range"),
    (lambda g: g["hands"][0]["events"][0].update(tiles=[]), "events[0].tiles"),
    (lambda g: g["hands"][0]["events"][0].pop("to"), "events[0].to"),
    (lambda g: g["hands"][0].update(carry={"draw_multiplier": "2"}), "carry.draw_multiplier"),
    (lambda g: g["hands"][0].update(carry=[1]), "hands[0].carry"),
])
@pytest.mark.parametrize("fast_form", [False, True])
def test_a_bad_field_is_named(edit: Any, shown: str, fast_form: bool) -> None:
    item, = _read(doc_bytes(changed(_game(), edit)), fast_form=fast_form)
    assert isinstance(item, MalformedLogError)
    assert shown in str(item), str(item)


def test_a_seat_beyond_a_three_player_table_is_named() -> None:
    game = game_dict(3)
    game["hands"][0]["events"].insert(
        0, {"type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"], "to": 3})
    item, = _read(doc_bytes(game), fast_form=True)
    assert isinstance(item, MalformedLogError)
    assert "hands[0].events[0].to" in str(item) and "out of range for 3 players" in str(item)
