"""Each event kind declared once: its log name, its fields, its token, its snapshot, its text.

An :class:`EventKind` declares one kind of event of the log format: the name its events
carry in the log (``type``), the engine's value class (:mod:`zhuoji.rules.events`), its
fields (:class:`EventField`: the attribute, the log's key, what it holds: a seat, a tile,
tiles, dice, a flag or one of a few texts), its token in the compact notation of the tests
(``tests/support/builders.py``), its form in the replay's snapshots and its description in
the table's messages. Everything else that spells an event kind is built from these
declarations or checked against them:

* the engine's events from the log's and back (``flows/audit/bridge.py``) are converted
  field by field from the declarations;
* the replay's snapshots (:func:`zhuoji.rules.snapshot.event_data`) and the table's names and
  descriptions of events (:func:`zhuoji.rules.event_registry.event_name`,
  :func:`~zhuoji.rules.event_registry.describe_event`) read them;
* the log format's two readers (``parsers/models.py``, ``parsers/fast.py``), their JSON
  Schema and the engine's value classes are held to them by ``tests/rules/test_event_kinds.py``
  (the readers are written out, typed, for speed: the fast reader decodes with msgspec
  structs, which no declaration made at run time could replace at the same cost).

The kinds of the core and of its optional mechanics are declared here (:data:`CORE_KINDS`);
a family's own event kinds are declared in its folder and registered through its
:class:`~zhuoji.rules.families.Family` (``event_declarations``).
:mod:`zhuoji.rules.event_registry` looks them up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from zhuoji.rules.events import (
    Bird,
    Chow,
    DeclareSuit,
    Discard,
    Draw,
    Exchange,
    ExhaustiveDraw,
    Flower,
    Kong,
    KongKind,
    Pong,
    Ready,
    Roll,
    Seabed,
    Suit,
    Win,
)
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import TILE_BY_TEXT, TILE_TEXT, format_tiles

__all__ = [
    "CORE_KINDS",
    "Data",
    "EventField",
    "EventKind",
    "FieldKind",
    "from_log",
    "generic_snapshot",
    "to_log",
]

Data = dict[str, Any]


class FieldKind(StrEnum):
    """What a field of an event holds, in the log (JSON) and in the engine."""

    SEAT = "seat"  # a seat number: an integer 0-3 (the game's player count bounds it)
    TILE = "tile"  # one tile: canonical text in the log, a Tile in the engine
    TILES = "tiles"  # tiles: a list of texts in the log, a tuple of Tile in the engine
    DICE = "dice"  # two dice (each 1-6): a list in the log, a tuple in the engine
    FLAG = "bool"  # true or false
    CHOICE = "choice"  # one of a few texts (``choices``); in the engine its enum's member


@dataclass(frozen=True, slots=True)
class EventField:
    """One field of an event kind.

    ``name`` is the attribute of the engine's value and of both readers' events; ``key``
    the log's JSON key when it differs (``from`` for ``from_seat``). ``optional``: the log
    may leave it out (the value is then ``None``). ``choices``: the texts a ``CHOICE``
    field takes, and ``enum`` the engine's enum of them (``None``: the engine holds the
    text). ``min_length``: the fewest tiles a ``TILES`` field holds. ``description``: the
    field's description in the log format's JSON Schema (``None``: none)."""

    name: str
    kind: FieldKind
    key: str | None = None
    optional: bool = False
    choices: tuple[str, ...] = ()
    enum: type[StrEnum] | None = None
    min_length: int = 0
    description: str | None = None

    @property
    def log_key(self) -> str:
        """The field's key in the log."""
        return self.key if self.key is not None else self.name


Describe = Callable[[Any], str]
Snapshot = Callable[[Any], Data]


@dataclass(frozen=True, slots=True)
class EventKind:
    """One event kind of the log format, declared once (see the module's docstring).

    ``cls``: the engine's value class, built with the fields' values in ``fields`` order.
    ``token``: its letter in the tests' compact notation (after the seat digit for a
    seated kind, ``1+5m``; leading for the others, ``F5m``, ``X``); a kind with a
    ``CHOICE`` field has one letter per choice, in order (the kong's ``EAC``); ``None``:
    no token. ``snapshot``: the event as the replay's snapshots show it (``None``: its
    kind and its fields by key, tiles as text: :func:`generic_snapshot`). ``describe``:
    the event in the table's messages (``None``: ``seat N: name``, or the name)."""

    name: str
    cls: type
    fields: tuple[EventField, ...] = ()
    token: str | None = None
    snapshot: Snapshot | None = None
    describe: Describe | None = None

    @property
    def seated(self) -> bool:
        """The kind's events name a seat (a field ``seat``)."""
        return any(f.name == "seat" for f in self.fields)

    def field(self, name: str) -> EventField:
        """The field called ``name``; ``KeyError`` when it has none."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


# --- converting values: the log's (JSON) and the engine's


def _log_value(f: EventField, value: Any) -> Any:
    kind = f.kind
    if value is None:
        return None
    if kind is FieldKind.TILE:
        return TILE_TEXT[value]
    if kind is FieldKind.TILES:
        return [TILE_TEXT[t] for t in value]
    if kind is FieldKind.DICE:
        return list(value)
    if kind is FieldKind.CHOICE and f.enum is not None:
        return value.value
    return value


def to_log(kind: EventKind, event: Any) -> Data:
    """An engine event as the log writes it: ``type``, then each field by its key (an
    optional field left out when ``None``)."""
    out: Data = {"type": kind.name}
    for f in kind.fields:
        value = getattr(event, f.name)
        if value is None and f.optional:
            continue
        out[f.log_key] = _log_value(f, value)
    return out


def from_log(kind: EventKind) -> Callable[[Any], Any]:
    """The converter of a read event of ``kind`` (either reader's form: attributes by the
    fields' names, tiles as canonical text) to the engine's value.

    Written from the declaration as one function (``Kong(ev.seat, tiles[ev.tile], ...)``),
    as fast as one written out by hand: the bridge converts every event of a log with it.
    """
    env: dict[str, Any] = {"cls": kind.cls, "tiles": TILE_BY_TEXT}
    args = []
    for i, f in enumerate(kind.fields):
        if not f.name.isidentifier():
            # a programming error, never a user's: not translated
            raise ValueError(f"event kind {kind.name!r}: field name {f.name!r}")
        value = f"ev.{f.name}"
        if f.kind is FieldKind.TILE:
            expr = f"tiles[{value}]"
        elif f.kind is FieldKind.TILES:
            expr = f"tuple([tiles[t] for t in {value}])"
        elif f.kind is FieldKind.DICE:
            expr = f"tuple({value})"
        elif f.kind is FieldKind.CHOICE and f.enum is not None:
            env[f"choice{i}"] = {c: f.enum(c) for c in f.choices}
            expr = f"choice{i}[{value}]"
        else:
            expr = value
        if f.optional and expr != value:
            expr = f"(None if {value} is None else {expr})"
        args.append(expr)
    exec(f"def convert(ev):\n    return cls({', '.join(args)})\n", env)
    convert: Callable[[Any], Any] = env["convert"]
    return convert


def generic_snapshot(kind: EventKind, event: Any) -> Data:
    """``kind`` and every field by its log key (tiles as text, dice as a list)."""
    data: Data = {"kind": kind.name}
    for f in kind.fields:
        data[f.log_key] = _log_value(f, getattr(event, f.name))
    return data


# --- the core's kinds

SEAT = EventField("seat", FieldKind.SEAT)
TILE = EventField("tile", FieldKind.TILE)
FROM = EventField("from_seat", FieldKind.SEAT, key="from")


def _kong_snapshot(ev: Kong) -> Data:
    return {"kind": f"kong_{ev.kind.value}", "seat": ev.seat, "tile": ev.tile.text,
            "from": ev.from_seat}


def _win_snapshot(ev: Win) -> Data:
    return {"kind": "win" if ev.from_seat is not None else "self_draw_win",
            "seat": ev.seat, "tile": ev.tile.text, "from": ev.from_seat}


def _seabed_snapshot(ev: Seabed) -> Data:
    return {"kind": "seabed_take" if ev.take else "seabed_decline", "seat": ev.seat}


def _describe_kong(ev: Kong) -> str:
    if ev.from_seat is not None:
        return Message("seat {seat} makes a {k:kongkind} kong of {tile} from seat {from}",
                       ev.seat, ev.kind, ev.tile, ev.from_seat)
    return Message("seat {seat} makes a {k:kongkind} kong of {tile}", ev.seat, ev.kind,
                   ev.tile)


def _describe_win(ev: Win) -> str:
    if ev.from_seat is None:
        return Message("seat {seat} wins on {tile} by self-draw", ev.seat, ev.tile)
    return Message("seat {seat} wins on {tile} from seat {from}", ev.seat, ev.tile,
                   ev.from_seat)


def _describe_seabed(ev: Seabed) -> str:
    if ev.take:
        return Message("seat {seat} takes the last tile (海底)", ev.seat)
    return Message("seat {seat} declines the last tile (海底)", ev.seat)


def _describe_bird(ev: Bird) -> str:
    if not ev.tiles:
        return Message("birds none")
    return Message("birds {t:tiles}", format_tiles(ev.tiles))


_SUIT_NAMES = {Suit.CHARACTERS: "characters (m)", Suit.DOTS: "dots (p)",
               Suit.BAMBOO: "bamboo (s)"}


CORE_KINDS: tuple[EventKind, ...] = (
    # --- the core: draw, discard, pong, kong, win, exhaustive draw
    EventKind(
        "draw", Draw, (SEAT, TILE), token="+",
        describe=lambda ev: Message("seat {seat} draws {tile}", ev.seat, ev.tile),
    ),
    EventKind(
        "discard", Discard, (SEAT, TILE), token="-",
        describe=lambda ev: Message("seat {seat} discards {tile}", ev.seat, ev.tile),
    ),
    EventKind(
        "pong", Pong, (SEAT, TILE, FROM), token="P",
        describe=lambda ev: Message("seat {seat} pongs {tile} from seat {from}", ev.seat,
                                    ev.tile, ev.from_seat),
    ),
    EventKind(
        "kong", Kong,
        (SEAT, TILE,
         EventField("kind", FieldKind.CHOICE, choices=tuple(k.value for k in KongKind),
                    enum=KongKind),
         EventField("from_seat", FieldKind.SEAT, key="from", optional=True,
                    description="exposed kongs only")),
        token="EAC", snapshot=_kong_snapshot, describe=_describe_kong,
    ),
    EventKind(
        "win", Win,
        (SEAT, TILE,
         EventField("from_seat", FieldKind.SEAT, key="from", optional=True,
                    description="absent on self-draw")),
        token="H", snapshot=_win_snapshot, describe=_describe_win,
    ),
    EventKind(
        "exhaustive_draw", ExhaustiveDraw, token="X",
        describe=lambda _ev: Message("exhaustive draw"),
    ),
    # --- a hand frozen by a declaration (报听)
    EventKind(
        "ready", Ready, (SEAT,), token="R",
        describe=lambda ev: Message("seat {seat} declares ready", ev.seat),
    ),
    # --- chow and flowers
    EventKind(
        "chow", Chow,
        (SEAT, EventField("tiles", FieldKind.TILES, min_length=1), FROM),
        token="Y",
        describe=lambda ev: Message("seat {seat} chows {t:tiles} from seat {from}", ev.seat,
                                    format_tiles(ev.tiles), ev.from_seat),
    ),
    EventKind(
        "flower", Flower,
        (SEAT, EventField("tile", FieldKind.TILE,
                          description="the flower shown; the seat's replacement draw follows")),
        token="*",
        describe=lambda ev: Message("seat {seat} shows {tile}", ev.seat, ev.tile),
    ),
    # --- the wall mechanics: the end of the wall and kong draws
    EventKind(
        "roll", Roll,
        (SEAT, EventField("dice", FieldKind.DICE,
                          description="the two dice thrown (each 1-6)")),
        describe=lambda ev: Message("seat {seat} throws the dice {d:list}", ev.seat,
                                    list(ev.dice)),
    ),
    EventKind(
        "seabed", Seabed,
        (SEAT, EventField("take", FieldKind.FLAG,
                          description="the seat takes the last tile (its draw follows)")),
        snapshot=_seabed_snapshot, describe=_describe_seabed,
    ),
    EventKind(
        "bird", Bird,
        (EventField("tiles", FieldKind.TILES,
                    description="the tiles turned up after the win(s)"),),
        describe=_describe_bird,
    ),
    # --- the exchange and the declared suit (换三张, 定缺)
    EventKind(
        "exchange", Exchange,
        (SEAT,
         EventField("tiles", FieldKind.TILES, min_length=1,
                    description="换三张: the tiles passed (as many as the ruleset passes)"),
         EventField("to", FieldKind.SEAT, description="the seat receiving them")),
        describe=lambda ev: Message("seat {seat} passes {t:tiles} to seat {to:seat}", ev.seat,
                                    format_tiles(ev.tiles), ev.to),
    ),
    EventKind(
        "declare_suit", DeclareSuit,
        (SEAT,
         EventField("suit", FieldKind.CHOICE, choices=tuple(s.value for s in Suit),
                    enum=Suit, description="定缺: the suit the seat plays without")),
        describe=lambda ev: Message("seat {seat} declares {s:suit}", ev.seat,
                                    Message(_SUIT_NAMES[ev.suit])),
    ),
)
"""The event kinds of the core and of its optional mechanics."""
