"""The log format as msgspec structs: the same games as :mod:`zhuoji.parsers.models`, decoded fast.

The pydantic models of :mod:`zhuoji.parsers.models` define the format: what a log may contain,
the JSON Schema, and the error a bad log gets. Building one pydantic object per event
costs about four times the raw JSON decoding, and a log is mostly events; the bulk readers
(the ingest, the audit) take the games in this second form instead, decoded by msgspec
straight from the bytes, at about the cost of ``orjson.loads``.

Both forms accept exactly the same games and hold the same values, because this module
only ever *narrows*: :func:`decode_game` accepts a document when msgspec decodes it into
the structs below (the same fields, aliases, bounds and canonical tiles as the models)
and the checks the models run after decoding pass as well (seats against the player
count, 64-bit integers in ``rule_overrides``). Anything else (a tile spelled in Chinese,
a date pydantic reads but this module does not, any error at all) is handed to the
models, which either reject the document with their own error or accept it, and then
:func:`from_model` converts their game. ``tests/parsers/test_fast.py`` holds both forms
to this, field by field and on mutated logs.

The structs decode the 108-tile notation only (:data:`TileText`): a game holding an honour
or a flower is read by the models, held to its ruleset's tiles there, and converted. The
honours and flowers are then held in the same structs (the tile fields' values are any
canonical text of :data:`zhuoji.parsers.tiles.FULL_TILE_SET`), at the models' speed.
"""

from __future__ import annotations

import gc
from datetime import datetime
from typing import Annotated, Any, Final, Literal, Union, get_args

import msgspec
from msgspec import Meta, Struct
from pydantic import TypeAdapter, ValidationError

from zhuoji.parsers import models
from zhuoji.parsers.models import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    MAX_PLAYERS,
    MIN_PLAYERS,
)
from zhuoji.parsers.tiles import TileSetOf

TileText = Literal[
    "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m",
    "1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p",
    "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s",
    "W",
]  # fmt: skip
"""Canonical suited tile text only (what msgspec decodes); other spellings, and the honours
and flowers, go through the models."""

Seat = Annotated[int, Meta(ge=0, le=MAX_PLAYERS - 1)]
Int64 = Annotated[int, Meta(ge=INT64_MIN, le=INT64_MAX)]
Int32 = Annotated[int, Meta(ge=INT32_MIN, le=INT32_MAX)]
Count32 = Annotated[int, Meta(ge=0, le=INT32_MAX)]
Count = Annotated[int, Meta(ge=0, le=INT64_MAX)]
Die = Annotated[int, Meta(ge=1, le=6)]
KongKindText = Literal["exposed", "added", "concealed"]


# Structs hold only numbers, strings and tuples of them: they cannot be part of a
# reference cycle, so ``gc=False`` keeps them out of the cyclic collector.
class _Event(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    pass


class DrawEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="draw"):
    seat: Seat
    tile: TileText
    t: Count | None = None


class DiscardEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="discard"):
    seat: Seat
    tile: TileText
    t: Count | None = None


class PongEvent(
    _Event, frozen=True, kw_only=True, tag_field="type", tag="pong", rename={"from_seat": "from"}
):
    seat: Seat
    tile: TileText
    from_seat: Seat
    t: Count | None = None


class KongEvent(
    _Event, frozen=True, kw_only=True, tag_field="type", tag="kong", rename={"from_seat": "from"}
):
    seat: Seat
    tile: TileText
    kind: KongKindText
    from_seat: Seat | None = None
    t: Count | None = None


class ReadyEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="ready"):
    seat: Seat
    t: Count | None = None


class WinEvent(
    _Event, frozen=True, kw_only=True, tag_field="type", tag="win", rename={"from_seat": "from"}
):
    seat: Seat
    tile: TileText
    from_seat: Seat | None = None
    t: Count | None = None


class FlipEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="flip"):
    tile: TileText
    t: Count | None = None


class ExhaustiveDrawEvent(
    _Event, frozen=True, kw_only=True, tag_field="type", tag="exhaustive_draw"
):
    t: Count | None = None


class ChowEvent(
    _Event, frozen=True, kw_only=True, tag_field="type", tag="chow", rename={"from_seat": "from"}
):
    seat: Seat
    tiles: Annotated[tuple[TileText, ...], Meta(min_length=1)]
    from_seat: Seat
    t: Count | None = None


# --- the wall mechanics' events: the end of the wall and kong draws
class RollEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="roll"):
    seat: Seat
    dice: Annotated[tuple[Die, ...], Meta(min_length=2, max_length=2)]
    t: Count | None = None


class SeabedEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="seabed"):
    seat: Seat
    take: bool
    t: Count | None = None


class BirdEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="bird"):
    tiles: tuple[TileText, ...]
    t: Count | None = None


# --- chow and flowers: the flower shown
class FlowerEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="flower"):
    seat: Seat
    tile: TileText
    t: Count | None = None


# --- the exchange and the declared suit (换三张, 定缺)
class ExchangeEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="exchange"):
    seat: Seat
    tiles: Annotated[tuple[TileText, ...], Meta(min_length=1)]
    to: Seat
    t: Count | None = None


class DeclareSuitEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="declare_suit"):
    seat: Seat
    suit: Literal["m", "p", "s"]
    t: Count | None = None


# --- the small win shown on the dealt hand (起手小胡)
class SmallWinEvent(_Event, frozen=True, kw_only=True, tag_field="type", tag="small_win"):
    seat: Seat
    kind: Literal["four_of_a_kind", "no_258", "missing_suit", "two_triplets"]
    tiles: Annotated[tuple[TileText, ...], Meta(min_length=1)]
    t: Count | None = None


Event = Union[  # noqa: UP007  (spelled like the models' union)
    DrawEvent,
    DiscardEvent,
    PongEvent,
    KongEvent,
    ReadyEvent,
    WinEvent,
    FlipEvent,
    ExhaustiveDrawEvent,
    ChowEvent,
    RollEvent,
    SeabedEvent,
    BirdEvent,
    FlowerEvent,
    ExchangeEvent,
    DeclareSuitEvent,
    SmallWinEvent,
]
EVENT_CLASSES: Final[tuple[type[Event], ...]] = get_args(Event)
"""Every event struct, in the union's order (their tags are the models' ``EVENT_TYPES``)."""


class _Value(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    pass


class Player(_Value, frozen=True, kw_only=True):
    seat: Seat
    id: str
    name: str | None = None


class ResultItem(_Value, frozen=True, kw_only=True):
    payer: Seat
    payee: Seat
    amount: Int64
    reason: str


class Result(_Value, frozen=True, kw_only=True):
    deltas: tuple[Int32, ...]
    next_dealer: Seat | None = None
    items: tuple[ResultItem, ...] | None = None


class Hand(_Value, frozen=True, kw_only=True):
    hand_no: Count32
    dealer: Seat
    dealer_streak: Count32 = 0
    dice: Annotated[tuple[Die, ...], Meta(min_length=2, max_length=2)] | None = None
    wall: tuple[TileText, ...] | None = None
    set_aside: tuple[TileText, ...] | None = None
    deal: tuple[tuple[TileText, ...], ...]
    events: tuple[Event, ...]
    result: Result | None = None
    carry: dict[str, Int64] | None = None


class Game(
    Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename={"schema_": "schema"}
):
    """One game; the attributes are those of :class:`zhuoji.parsers.models.Game`."""

    schema_: Literal["zhuoji-log/1"] = "zhuoji-log/1"
    game_id: Annotated[str, Meta(min_length=1)]
    ruleset: Annotated[str, Meta(min_length=1)] = "guiyang"
    rule_overrides: dict[str, Any] | None = None
    base_stake: Annotated[int, Meta(ge=1, le=INT32_MAX)] = 1
    started_at: datetime | None = None
    players: Annotated[tuple[Player, ...], Meta(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)]
    hands: tuple[Hand, ...]


class _WireGame(
    Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename={"schema_": "schema"}
):
    """:class:`Game` as decoded: ``started_at`` still text, read afterwards as pydantic does."""

    schema_: Literal["zhuoji-log/1"] = "zhuoji-log/1"
    game_id: Annotated[str, Meta(min_length=1)]
    ruleset: Annotated[str, Meta(min_length=1)] = "guiyang"
    rule_overrides: dict[str, Any] | None = None
    base_stake: Annotated[int, Meta(ge=1, le=INT32_MAX)] = 1
    started_at: str | None = None
    players: Annotated[tuple[Player, ...], Meta(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)]
    hands: tuple[Hand, ...]


_DECODER: Final = msgspec.json.Decoder(_WireGame)
_DATETIME: Final = TypeAdapter(models.StartedAt)


def _plain_json(value: Any) -> bool:
    """Whether ``value`` holds only strings, booleans, null and 64-bit integers.

    Floats are left to the models (how a decimal rounds is theirs to decide), as are
    integers beyond 64 bits (which they reject).
    """
    if isinstance(value, dict):
        return all(_plain_json(item) for item in value.values())
    if isinstance(value, list):
        return all(_plain_json(item) for item in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return INT64_MIN <= value <= INT64_MAX
    return value is None or isinstance(value, str | bool)


def decode_game(document: bytes | str) -> Game | None:
    """The game in ``document`` when this module alone can accept it, else ``None``.

    ``None`` says nothing about the document: :func:`parse_game` then asks the models.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        wire = _DECODER.decode(document)
    # RecursionError: nested too deeply for msgspec. UnicodeDecodeError: invalid UTF-8
    # inside a string, which msgspec 0.19 raises as such (later releases as a DecodeError).
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return None
    finally:
        if enabled:
            gc.enable()
    if wire.rule_overrides is not None and not _plain_json(wire.rule_overrides):
        return None
    started_at: datetime | None = None
    if wire.started_at is not None:
        try:
            started_at = _DATETIME.validate_python(wire.started_at)
            models.check_started_at(started_at)
        except (ValidationError, ValueError):
            return None
    game = Game(
        game_id=wire.game_id,
        ruleset=wire.ruleset,
        rule_overrides=wire.rule_overrides,
        base_stake=wire.base_stake,
        started_at=started_at,
        players=wire.players,
        hands=wire.hands,
    )
    for _ in models.generate_seat_faults(game):
        return None
    return game


def parse_game(document: bytes | str, *, tiles: TileSetOf | None = None) -> Game:
    """One game document in this form; a bad document raises the models' ``ValidationError``.

    The same games are accepted as by :func:`zhuoji.parsers.models.validate_game_json` with the
    same ``tiles``.
    """
    game = decode_game(document)
    if game is not None:
        return game
    return from_model(models.validate_game_json(document, tiles=tiles))


# --- from the models ---------------------------------------------------------------------


_BY_TYPE: Final[dict[str, type[Event]]] = {
    str(cls.__struct_config__.tag): cls for cls in EVENT_CLASSES
}


def _event_from_model(event: models.Event) -> Event:
    """The same event in this form: the struct of its ``type``, field by field (the
    models' tiles are canonical text already)."""
    cls = _BY_TYPE[event.type]
    return cls(**{name: getattr(event, name) for name in cls.__struct_fields__})


def _result_from_model(result: models.Result) -> Result:
    items = None
    if result.items is not None:
        items = tuple(
            ResultItem(payer=i.payer, payee=i.payee, amount=i.amount, reason=i.reason)
            for i in result.items
        )
    return Result(deltas=result.deltas, next_dealer=result.next_dealer, items=items)


def from_model(game: models.Game) -> Game:
    """The same game in this form (tiles in the models are canonical already)."""
    return Game(
        game_id=game.game_id,
        ruleset=game.ruleset,
        rule_overrides=game.rule_overrides,
        base_stake=game.base_stake,
        started_at=game.started_at,
        players=tuple(Player(seat=p.seat, id=p.id, name=p.name) for p in game.players),
        hands=tuple(
            Hand(
                hand_no=h.hand_no,
                dealer=h.dealer,
                dealer_streak=h.dealer_streak,
                dice=h.dice,
                wall=h.wall,  # type: ignore[arg-type]
                set_aside=h.set_aside,  # type: ignore[arg-type]
                deal=h.deal,  # type: ignore[arg-type]
                events=tuple(_event_from_model(e) for e in h.events),
                result=None if h.result is None else _result_from_model(h.result),
                carry=h.carry,
            )
            for h in game.hands
        ),
    )
