"""The log format ``zhuoji-log/1`` as frozen pydantic models.

Field names are the contract of ``docs/log-format.md``; the JSON key ``from`` is the
attribute ``from_seat``. Tiles are stored as canonical text (``"5m"``, ``"W"``, ``"1z"``):
canonical suited input is checked by pydantic-core alone, any other accepted spelling
(Chinese names, glyphs, the honours and flowers) is normalised by
:func:`zhuoji.parsers.tiles.parse_tile_text`. Which tiles a game may hold is given by the
validation's context (:class:`TileContext`): without one, the 108-tile notation, as before
the honours and flowers were read; the readers hold a game to the tiles of its ruleset
(:func:`validate_game_json`, ``tiles``). Only the format is checked
here (seats within the player count, lengths per seat); game rules such as deal sizes or a
fifth copy of a tile are left to the rules layer.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass as plain_dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    JsonValue,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from zhuoji.parsers.errors import excerpt
from zhuoji.parsers.tiles import (
    CANONICAL_TILES,
    FULL_TILE_SET,
    SUITED_TILE_SET,
    TileSetOf,
    describe_tile,
    parse_tile_text,
)
from zhuoji.rules.messages import Message

if TYPE_CHECKING:
    from zhuoji.parsers import fast

SCHEMA_ID = "zhuoji-log/1"
MIN_PLAYERS = 2
MAX_PLAYERS = 4


@plain_dataclass(slots=True)
class TileContext:
    """The validation context a reader passes: the tiles the game may hold (``allowed``);
    ``wide`` is set once a tile beyond the 108-tile notation has been read."""

    allowed: frozenset[str]
    wide: bool = False


def _read_tile(text: str, info: ValidationInfo) -> str:
    """A tile spelling other than canonical suited text, to canonical text; refused when
    the validation's :class:`TileContext` does not allow it (no context: the 108-tile
    notation)."""
    canonical = parse_tile_text(text, extended=True)
    if canonical in SUITED_TILE_SET:
        return canonical
    context = info.context
    if not isinstance(context, TileContext) or canonical not in context.allowed:
        raise ValueError(Message("unknown tile {q:quoted} ({note:any})", excerpt(text),
                                 describe_tile(canonical)))
    context.wide = True
    return canonical


class _TileNotation:
    """Marker whose core schema accepts any tile spelling and yields canonical text.

    The canonical suited literal is tried first inside pydantic-core (no Python call);
    only other spellings (the honours and flowers among them) reach :func:`_read_tile`.
    Failure is one error of type ``unknown_tile``.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.union_schema(
            [
                core_schema.literal_schema(list(CANONICAL_TILES)),
                core_schema.with_info_after_validator_function(
                    _read_tile, core_schema.str_schema(strict=True)
                ),
            ],
            mode="left_to_right",
            custom_error_type="unknown_tile",
            custom_error_message="unknown tile",
            serialization=core_schema.simple_ser_schema("str"),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "string",
            "title": "Tile",
            "description": (
                "A tile: canonical text (rank digit + suit letter m 万, p 筒, s 条; W for "
                "the wildcard; honours 1z-7z 东 南 西 北 白 发 中; flowers 1f-8f 春 夏 秋 冬 "
                "梅 兰 竹 菊), a Chinese name (五万, 9筒, 一条, 幺鸡, 东, 红中, 春) or a "
                "Unicode mahjong glyph; stored as canonical text. Which tiles a game may "
                "hold is its ruleset's family's: 108, 136 (the honours) or 144 (and the "
                "flowers)."
            ),
            "examples": ["5m", "1s", "8p", "W", "1z", "7z", "1f", "五万", "幺鸡", "东",
                         "\U0001f00b"],
        }


TileText = Annotated[str, _TileNotation]
"""A tile in any accepted spelling, validated to canonical text."""

Seat = Annotated[StrictInt, Field(ge=0, le=MAX_PLAYERS - 1)]
"""A seat number; bounded by the game's player count in :class:`Game`."""

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
Int64 = Annotated[StrictInt, Field(ge=INT64_MIN, le=INT64_MAX)]
"""Every count and amount of a log fits a signed 64-bit integer (what JSON tools keep exact)."""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
Int32 = Annotated[StrictInt, Field(ge=INT32_MIN, le=INT32_MAX)]
"""The values the warehouse stores in 32-bit columns (``base_stake``, ``hand_no``,
``dealer_streak``, the recorded ``deltas``) are bounded at parse to what those columns hold."""

STARTED_AT_MIN = datetime(1, 1, 2)
STARTED_AT_MAX = datetime(9999, 12, 31)
"""``started_at`` lies between these (naive, or as its own clock shows): far enough inside
Python's years 1 to 9999 that the warehouse's conversion to UTC cannot leave them."""

Millis = Annotated[
    StrictInt, Field(ge=0, le=INT64_MAX, description="milliseconds since the hand started")
]
KongKindText = Literal["exposed", "added", "concealed"]


def _require_type(schema: dict[str, Any]) -> None:
    required = schema.setdefault("required", [])
    if "type" not in required:
        required.insert(0, "type")


class _Frozen(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
    )


# Events are frozen, slotted pydantic dataclasses rather than BaseModel subclasses: a log
# holds ~100 of them per hand and pydantic-core builds a slotted dataclass markedly faster
# than a model instance (see bench/parse.py). Validation, aliases, extra="forbid" and the
# JSON Schema are the same. ``type`` has a default so code can build events without it; in
# a log it is always present (the schema marks it required).
_EVENT_CONFIG = ConfigDict(
    extra="forbid",
    validate_by_alias=True,
    validate_by_name=True,
    serialize_by_alias=True,
    json_schema_extra=_require_type,
)


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class DrawEvent:
    type: Literal["draw"] = "draw"
    seat: Seat
    tile: TileText
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class DiscardEvent:
    type: Literal["discard"] = "discard"
    seat: Seat
    tile: TileText
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class PongEvent:
    type: Literal["pong"] = "pong"
    seat: Seat
    tile: TileText
    from_seat: Seat = Field(validation_alias="from", serialization_alias="from")
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class KongEvent:
    type: Literal["kong"] = "kong"
    seat: Seat
    tile: TileText
    kind: KongKindText
    from_seat: Seat | None = Field(
        None, validation_alias="from", serialization_alias="from", description="exposed kongs only"
    )
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class ReadyEvent:
    type: Literal["ready"] = "ready"
    seat: Seat
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class WinEvent:
    type: Literal["win"] = "win"
    seat: Seat
    tile: TileText
    from_seat: Seat | None = Field(
        None, validation_alias="from", serialization_alias="from", description="absent on self-draw"
    )
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class FlipEvent:
    type: Literal["flip"] = "flip"
    tile: TileText
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class ExhaustiveDrawEvent:
    type: Literal["exhaustive_draw"] = "exhaustive_draw"
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class ChowEvent:
    type: Literal["chow"] = "chow"
    seat: Seat
    tiles: tuple[TileText, ...] = Field(min_length=1)
    from_seat: Seat = Field(validation_alias="from", serialization_alias="from")
    t: Millis | None = None


# --- the wall mechanics' events: the end of the wall and kong draws
@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class RollEvent:
    type: Literal["roll"] = "roll"
    seat: Seat
    dice: tuple[Annotated[StrictInt, Field(ge=1, le=6)], ...] = Field(
        min_length=2, max_length=2, description="the two dice thrown (each 1-6)"
    )
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class SeabedEvent:
    type: Literal["seabed"] = "seabed"
    seat: Seat
    take: StrictBool = Field(description="the seat takes the last tile (its draw follows)")
    t: Millis | None = None


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class BirdEvent:
    type: Literal["bird"] = "bird"
    tiles: tuple[TileText, ...] = Field(description="the tiles turned up after the win(s)")
    t: Millis | None = None


# --- chow and flowers: the flower shown
@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class FlowerEvent:
    type: Literal["flower"] = "flower"
    seat: Seat
    tile: TileText = Field(description="the flower shown; the seat's replacement draw follows")
    t: Millis | None = None


# --- the exchange and the declared suit (换三张, 定缺)
@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class ExchangeEvent:
    type: Literal["exchange"] = "exchange"
    seat: Seat
    tiles: tuple[TileText, ...] = Field(
        min_length=1, description="换三张: the tiles passed (as many as the ruleset passes)"
    )
    to: Seat = Field(description="the seat receiving them")
    t: Millis | None = None


SuitText = Literal["m", "p", "s"]


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class DeclareSuitEvent:
    type: Literal["declare_suit"] = "declare_suit"
    seat: Seat
    suit: SuitText = Field(description="定缺: the suit the seat plays without")
    t: Millis | None = None


# --- the small win shown on the dealt hand (起手小胡)
SmallWinKindText = Literal["four_of_a_kind", "no_258", "missing_suit", "two_triplets"]


@dataclass(frozen=True, slots=True, kw_only=True, config=_EVENT_CONFIG)
class SmallWinEvent:
    type: Literal["small_win"] = "small_win"
    seat: Seat
    kind: SmallWinKindText = Field(
        description="起手小胡 declared on the dealt hand: four_of_a_kind 四喜, no_258 板板胡, "
        "missing_suit 缺一色, two_triplets 六六顺"
    )
    tiles: tuple[TileText, ...] = Field(min_length=1, description="the tiles shown")
    t: Millis | None = None


Event = Annotated[
    Union[  # noqa: UP007  (the discriminated union reads best spelled out)
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
    ],
    Field(discriminator="type"),
]
EVENT_TYPES: tuple[str, ...] = tuple(
    cls.__dataclass_fields__["type"].default for cls in get_args(get_args(Event)[0])
)
"""Every event's ``type``, in the union's order."""


class Player(_Frozen):
    seat: Seat
    id: StrictStr
    name: StrictStr | None = None


class ResultItem(_Frozen):
    payer: Seat
    payee: Seat
    amount: Int64
    reason: StrictStr


class Result(_Frozen):
    deltas: tuple[Int32, ...] = Field(description="per seat; they sum to zero")
    next_dealer: Seat | None = None
    items: tuple[ResultItem, ...] | None = None


class Hand(_Frozen):
    hand_no: StrictInt = Field(ge=0, le=INT32_MAX)
    dealer: Seat
    dealer_streak: StrictInt = Field(
        0, ge=0, le=INT32_MAX, description="连庄 count, 0 for a fresh dealer"
    )
    dice: Annotated[
        tuple[Annotated[StrictInt, Field(ge=1, le=6)], ...], Field(min_length=2, max_length=2)
    ] | None = Field(None, description="the two dice thrown before the deal (each 1-6)")
    wall: tuple[TileText, ...] | None = Field(
        None, description="the live wall after dealing, in draw order (front first)"
    )
    set_aside: tuple[TileText, ...] | None = Field(
        None,
        description="ordinary tiles taken out before the deal and kept out of play (暗麻将: "
        "the two the wildcards replaced); the flip is chosen among them",
    )
    deal: tuple[tuple[TileText, ...], ...] = Field(description="starting hands by seat")
    events: tuple[Event, ...]
    result: Result | None = None
    carry: dict[StrictStr, Int64] | None = Field(
        None,
        description="state carried into the hand from the earlier hands of its game, by name "
        "(荒番 multipliers, 连庄), as the server recorded it; the audit recomputes it",
    )


_NUMBER_TEXT = re.compile(r"\s*[-+]?\d+(?:\.\d*)?\s*")


def _check_started_at(value: object) -> object:
    """``started_at`` is a date-time in text: a JSON number, or a text holding only one,
    is refused, not read as a Unix time (seconds or milliseconds would be a guess)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number and not (isinstance(value, str) and _NUMBER_TEXT.fullmatch(value)):
        return value  # a date-time text, or what pydantic's own check refuses
    raise PydanticCustomError(
        "started_at_text",
        "a date-time text such as '2026-11-01T20:00:00+08:00' is expected, "
        "not a number (no Unix time is read)",
    )


StartedAt = Annotated[datetime, BeforeValidator(_check_started_at)]
"""The game's start: ISO 8601 text (as pydantic reads a ``datetime``), never a number."""


class Game(_Frozen):
    model_config = ConfigDict(title="zhuoji-log/1 game")

    schema_: Literal["zhuoji-log/1"] = Field("zhuoji-log/1", alias="schema")
    game_id: StrictStr = Field(min_length=1)
    ruleset: StrictStr = Field("guiyang", min_length=1, description="a preset name")
    rule_overrides: dict[str, JsonValue] | None = Field(
        None, description="single settings replacing the preset's"
    )
    base_stake: StrictInt = Field(1, ge=1, le=INT32_MAX)
    started_at: StartedAt | None = None
    players: tuple[Player, ...] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    hands: tuple[Hand, ...]

    @field_validator("started_at")
    @classmethod
    def _check_started_at_range(cls, value: datetime | None) -> datetime | None:
        if value is not None:
            check_started_at(value)
        return value

    @field_validator("rule_overrides")
    @classmethod
    def _check_override_integers(
        cls, value: dict[str, JsonValue] | None
    ) -> dict[str, JsonValue] | None:
        if value is not None:
            _check_json_integers(value)
        return value

    @model_validator(mode="after")
    def _check_seats(self) -> Game:
        for loc, reason in generate_seat_faults(self):
            raise PydanticCustomError("seat_layout", "{reason}", {"reason": reason, "loc": loc})
        return self


Loc = tuple[int | str, ...]


def validate_game_json(document: bytes | str, *, tiles: TileSetOf | None = None) -> Game:
    """One game document validated in pydantic-core, with the cyclic GC paused.

    JSON keys only (``from``, ``schema``), never the attribute names. Validation builds
    many small objects and no reference cycles; pausing the collector for the call saves
    the collections it would trigger (about a fifth of the time on a large game). The
    previous state is restored. A bad document raises ``pydantic.ValidationError``.

    ``tiles`` gives the tiles a game of a ruleset may hold; without it every game is held
    to the 108-tile notation (:data:`~zhuoji.parsers.tiles.SUITED_TILE_SET`). With it, a game
    holding an honour or a flower is read once more, held to its ruleset's tiles, when
    one of its tiles is not among them: the error is then the one any other unknown tile
    gets, at the same field.
    """
    if tiles is None:
        return _validate_json(document, TileContext(SUITED_TILE_SET))
    context = TileContext(FULL_TILE_SET)
    game = _validate_json(document, context)
    if context.wide:
        allowed = tiles(game.ruleset)
        if not allowed >= FULL_TILE_SET and not holds_only(game, allowed):
            return _validate_json(document, TileContext(allowed))
    return game


def _validate_json(document: bytes | str, context: TileContext) -> Game:
    enabled = gc.isenabled()
    gc.disable()
    try:
        return Game.model_validate_json(document, by_alias=True, by_name=False, context=context)
    finally:
        if enabled:
            gc.enable()


def holds_only(game: Game | fast.Game, allowed: frozenset[str]) -> bool:
    """Whether every tile of ``game`` (deals, walls, tiles set aside, events) is one of
    ``allowed`` (canonical texts)."""
    hands: Sequence[Hand | fast.Hand] = game.hands
    for hand in hands:
        if hand.wall is not None and not allowed.issuperset(hand.wall):
            return False
        if hand.set_aside is not None and not allowed.issuperset(hand.set_aside):
            return False
        if not all(map(allowed.issuperset, hand.deal)):
            return False
        for event in hand.events:
            tile = getattr(event, "tile", None)
            if tile is not None and tile not in allowed:
                return False
            many = getattr(event, "tiles", None)
            if many is not None and not allowed.issuperset(many):
                return False
    return True


def generate_seat_faults(game: Game | fast.Game) -> Iterator[tuple[Loc, str]]:
    """Yield ``(location, reason)`` for every fault of seats against the player count.

    Seats must be ``0 .. n-1`` for ``n`` players, each player once; per-seat lists
    (``deal``, ``result.deltas``) have ``n`` entries. The location is a pydantic-style
    tuple such as ``("hands", 0, "events", 3, "seat")``.
    """
    n = len(game.players)
    seats = [p.seat for p in game.players]
    if sorted(seats) != list(range(n)):
        for i, s in enumerate(seats):
            if s >= n or seats.index(s) != i:
                yield ("players", i, "seat"), (
                    Message("seat {seat} out of range for {n} players", s, n) if s >= n
                    else Message("seat {seat} listed twice for {n} players", s, n))
        return
    hands: Sequence[Hand | fast.Hand] = game.hands
    for h, hand in enumerate(hands):
        if len(hand.deal) != n:
            yield ("hands", h, "deal"), Message("{k:n} starting hands for {n} players",
                                                len(hand.deal), n)
        result = hand.result
        if result is not None and len(result.deltas) != n:
            yield ("hands", h, "result", "deltas"), Message("{k:n} deltas for {n} players",
                                                            len(result.deltas), n)
        if n == MAX_PLAYERS:
            continue  # the field bounds already keep every seat below 4
        if hand.dealer >= n:
            yield ("hands", h, "dealer"), _out_of_range(hand.dealer, n)
        for e, event in enumerate(hand.events):
            seat = getattr(event, "seat", None)
            if seat is not None and seat >= n:
                yield ("hands", h, "events", e, "seat"), _out_of_range(seat, n)
            frm = getattr(event, "from_seat", None)
            if frm is not None and frm >= n:
                yield ("hands", h, "events", e, "from"), _out_of_range(frm, n)
            to = getattr(event, "to", None)
            if to is not None and to >= n:
                yield ("hands", h, "events", e, "to"), _out_of_range(to, n)
        if result is None:
            continue
        if result.next_dealer is not None and result.next_dealer >= n:
            where: Loc = ("hands", h, "result", "next_dealer")
            yield where, _out_of_range(result.next_dealer, n)
        items: Sequence[ResultItem | fast.ResultItem] = result.items or ()
        for i, item in enumerate(items):
            if item.payer >= n:
                yield ("hands", h, "result", "items", i, "payer"), _out_of_range(item.payer, n)
            if item.payee >= n:
                yield ("hands", h, "result", "items", i, "payee"), _out_of_range(item.payee, n)


def check_started_at(value: datetime) -> None:
    """Raise ``ValueError`` unless ``value`` lies within the format's dates
    (:data:`STARTED_AT_MIN` to :data:`STARTED_AT_MAX`, read on its own clock)."""
    if not STARTED_AT_MIN <= value.replace(tzinfo=None) <= STARTED_AT_MAX:
        raise ValueError(Message(
            "{t:any} is not between {a:any} and {b:any}", value.isoformat(),
            STARTED_AT_MIN.isoformat(), STARTED_AT_MAX.isoformat(),
        ))


def _check_json_integers(value: JsonValue) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _check_json_integers(item)
    elif isinstance(value, list):
        for item in value:
            _check_json_integers(item)
    elif (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not INT64_MIN <= value <= INT64_MAX
    ):
        raise ValueError(Message("integer {v:any} is outside the 64-bit range", value))


def _out_of_range(seat: int, n: int) -> str:
    return Message("seat {seat} out of range for {n} players", seat, n)
