"""The bridge between the log format (``parsers``) and the rules engine (``rules``).

:func:`hand_records` turns a parsed :class:`~zhuoji.parsers.models.Game` into the engine's
:class:`~zhuoji.rules.events.HandRecord` values, one per hand; :func:`hand_from_record` and
:func:`game_from_records` go the other way, for code that produces hands (a simulator)
and wants to write them as logs. The forward direction runs once per hand in the replay
hot path, so it is plain loops and dictionary look-ups. Each event kind is converted as
its declaration says (:mod:`zhuoji.rules.event_kinds`, a family's ``events`` module): one
function per kind written from it, and back to the log by its fields; no kind is spelled
here.

:func:`zhuoji.flows.audit.rulesets.ruleset_tiles` (where every ruleset is resolved)
is what the readers of :mod:`zhuoji.parsers.read` take as ``tiles``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, get_args

import msgspec

from zhuoji.parsers import fast
from zhuoji.parsers.models import (
    DiscardEvent,
    DrawEvent,
    Game,
    Hand,
    Player,
    PongEvent,
    Result,
    ResultItem,
    TileContext,
)
from zhuoji.parsers.models import Event as LogEvent
from zhuoji.parsers.tiles import FULL_TILE_SET
from zhuoji.rules.event_kinds import from_log, to_log
from zhuoji.rules.event_registry import kind_named, kind_of
from zhuoji.rules.events import (
    Discard,
    Draw,
    Event,
    HandRecord,
    Pong,
    RecordedItem,
    RecordedResult,
)
from zhuoji.rules.tiles import TILE_BY_TEXT, TILE_TEXT

_CONVERTERS: dict[type, Callable[[Any], Event]] = {}


def _converters() -> dict[type, Callable[[Any], Event]]:
    """The converter of each event class of both readers to the engine's value, built from
    the kinds' declarations (:mod:`zhuoji.rules.event_kinds`) on first use."""
    table = _CONVERTERS
    if not table:
        built: dict[type, Callable[[Any], Event]] = {}
        for cls in (*get_args(get_args(LogEvent)[0]), *fast.EVENT_CLASSES):
            name = (cls.__struct_config__.tag if issubclass(cls, msgspec.Struct)
                    else cls.__dataclass_fields__["type"].default)
            built[cls] = from_log(kind_named(name))
        table.update(built)  # at once: another thread never sees it half built
    return table


def hand_records(game: Game | fast.Game) -> list[HandRecord]:
    """Every hand of ``game`` (either form of :mod:`parsers`) as the replayer takes it, in
    log order."""
    n_players = len(game.players)
    base_stake = game.base_stake
    hands: Sequence[Hand | fast.Hand] = game.hands
    return [hand_record(hand, n_players=n_players, base_stake=base_stake) for hand in hands]


def hand_record(hand: Hand | fast.Hand, *, n_players: int, base_stake: int = 1) -> HandRecord:
    """One parsed hand as a :class:`HandRecord` (tiles as :class:`Tile`)."""
    tile_of = TILE_BY_TEXT.__getitem__
    events = _fast_events(hand.events) if isinstance(hand, fast.Hand) else _generate_events(
        hand.events
    )
    return HandRecord(
        hand_no=hand.hand_no,
        n_players=n_players,
        dealer=hand.dealer,
        dealer_streak=hand.dealer_streak,
        deal=tuple([tuple(map(tile_of, seat_tiles)) for seat_tiles in hand.deal]),
        events=tuple(events),
        wall=None if hand.wall is None else tuple(map(tile_of, hand.wall)),
        result=None if hand.result is None else _recorded_result(hand.result),
        base_stake=base_stake,
        set_aside=None if hand.set_aside is None else tuple(map(tile_of, hand.set_aside)),
        carry=None if hand.carry is None else tuple(sorted(hand.carry.items())),
    )


def _generate_events(events: Sequence[LogEvent]) -> list[Event]:
    out: list[Event] = []
    append = out.append
    draws, discards, pongs = _DRAWS, _DISCARDS, _PONGS
    convert = _converters()
    for ev in events:
        # The draws, discards and pongs (nine in ten events) from the tables below; any
        # other kind as its declaration converts it.
        if isinstance(ev, DrawEvent):
            append(draws[ev.seat][ev.tile])
        elif isinstance(ev, DiscardEvent):
            append(discards[ev.seat][ev.tile])
        elif isinstance(ev, PongEvent):
            append(pongs[ev.seat][ev.from_seat][ev.tile])
        else:
            append(convert[ev.__class__](ev))
    return out


# Engine events are frozen values, so equal ones can be one object: the draws, discards
# and pongs of every hand (nine in ten events) come from these tables, built once.
_SEATS = range(4)
_DRAWS: tuple[dict[str, Draw], ...] = tuple(
    {text: Draw(seat, tile) for text, tile in TILE_BY_TEXT.items()} for seat in _SEATS
)
_DISCARDS: tuple[dict[str, Discard], ...] = tuple(
    {text: Discard(seat, tile) for text, tile in TILE_BY_TEXT.items()} for seat in _SEATS
)
_PONGS: tuple[tuple[dict[str, Pong], ...], ...] = tuple(
    tuple({text: Pong(seat, tile, frm) for text, tile in TILE_BY_TEXT.items()} for frm in _SEATS)
    for seat in _SEATS
)


def _generate_fast_events(events: Sequence[fast.Event]) -> list[Event]:
    out: list[Event] = []
    append = out.append
    draw, discard, pong = fast.DrawEvent, fast.DiscardEvent, fast.PongEvent
    draws, discards, pongs = _DRAWS, _DISCARDS, _PONGS
    convert = _converters()
    for ev in events:
        # The draws, discards and pongs by exact class tests (the structs are final),
        # cheaper than isinstance; any other kind as its declaration converts it. Seats
        # are 0-3 (checked by the parser).
        kind = ev.__class__
        if kind is draw:
            append(draws[ev.seat][ev.tile])  # type: ignore[union-attr]
        elif kind is discard:
            append(discards[ev.seat][ev.tile])  # type: ignore[union-attr]
        elif kind is pong:
            append(pongs[ev.seat][ev.from_seat][ev.tile])  # type: ignore[union-attr,index]
        else:
            append(convert[kind](ev))
    return out


# Fast-form values are frozen, hashable structs, and a log repeats a few thousand distinct
# events and result items millions of times: each distinct one is converted once and looked
# up afterwards (in C, by ``map``). Events stamped with a time ``t`` are all distinct and
# are converted one by one. Bounded: past the limit nothing more is remembered.
_CACHE_LIMIT = 1 << 15
_ENGINE_EVENTS: dict[fast.Event, Event] = {}
_RECORDED_ITEMS: dict[fast.ResultItem, RecordedItem] = {}


def _fast_events(events: Sequence[fast.Event]) -> Sequence[Event]:
    """The engine events of a fast-form hand's events."""
    try:
        return tuple(map(_ENGINE_EVENTS.__getitem__, events))
    except KeyError:
        pass
    out = _generate_fast_events(events)
    cache = _ENGINE_EVENTS
    if len(cache) < _CACHE_LIMIT:
        for ev, engine in zip(events, out, strict=True):
            if getattr(ev, "t", None) is None:
                cache[ev] = engine
    return out


def _recorded_item(item: ResultItem | fast.ResultItem) -> RecordedItem:
    return RecordedItem(item.payer, item.payee, item.amount, item.reason)


def _fast_recorded_items(items: Sequence[fast.ResultItem]) -> tuple[RecordedItem, ...]:
    try:
        return tuple(map(_RECORDED_ITEMS.__getitem__, items))
    except KeyError:
        out = tuple(map(_recorded_item, items))
        if len(_RECORDED_ITEMS) < _CACHE_LIMIT:
            _RECORDED_ITEMS.update(zip(items, out, strict=True))
        return out


def _recorded_result(result: Result | fast.Result) -> RecordedResult:
    items: tuple[RecordedItem, ...] | None
    if result.items is None:
        items = None
    elif isinstance(result, fast.Result):
        items = _fast_recorded_items(result.items)
    else:
        items = tuple(map(_recorded_item, result.items))
    return RecordedResult(tuple(result.deltas), result.next_dealer, items)


# --- the reverse: engine values to the log format -------------------------------------------


def _event_dict(event: Event) -> dict[str, Any]:
    """An engine event as the log writes it, by its kind's declaration."""
    return to_log(kind_of(event), event)


def _hand_dict(record: HandRecord, dice: Sequence[int] | None) -> dict[str, Any]:
    hand: dict[str, Any] = {
        "hand_no": record.hand_no,
        "dealer": record.dealer,
        "dealer_streak": record.dealer_streak,
        "deal": [[TILE_TEXT[t] for t in seat_tiles] for seat_tiles in record.deal],
        "events": [_event_dict(e) for e in record.events],
    }
    if dice is not None:
        hand["dice"] = list(dice)
    if record.wall is not None:
        hand["wall"] = [TILE_TEXT[t] for t in record.wall]
    if record.set_aside is not None:
        hand["set_aside"] = [TILE_TEXT[t] for t in record.set_aside]
    if record.result is not None:
        result: dict[str, Any] = {"deltas": list(record.result.deltas)}
        if record.result.next_dealer is not None:
            result["next_dealer"] = record.result.next_dealer
        if record.result.items is not None:
            result["items"] = [
                {"payer": i.payer, "payee": i.payee, "amount": i.amount, "reason": i.reason}
                for i in record.result.items
            ]
        hand["result"] = result
    if record.carry is not None:
        hand["carry"] = dict(record.carry)
    return hand


def _any_tile() -> TileContext:
    """The engine's records hold the tiles of their family: any tile of the format is
    written."""
    return TileContext(FULL_TILE_SET)


def hand_from_record(record: HandRecord, *, dice: Sequence[int] | None = None) -> Hand:
    """A :class:`HandRecord` as a log hand (validated; raises ``pydantic.ValidationError``).

    ``n_players`` and ``base_stake`` belong to the game: see :func:`game_from_records`.
    """
    return Hand.model_validate(
        _hand_dict(record, dice), by_alias=True, by_name=False, context=_any_tile()
    )


def game_from_records(
    records: Iterable[HandRecord],
    *,
    game_id: str,
    players: Sequence[Player] | None = None,
    ruleset: str = "guiyang",
    rule_overrides: dict[str, Any] | None = None,
    started_at: str | None = None,
) -> Game:
    """A whole log game from hand records that share one player count and stake.

    ``players`` defaults to ids ``p0``, ``p1``, ... by seat. Raises ``ValueError`` when
    the records disagree on the player count or the stake, or there are none.
    """
    hands = list(records)
    if not hands:
        # a programming error, never a user's: not translated
        raise ValueError("a game needs at least one hand record")
    n_players = hands[0].n_players
    base_stake = hands[0].base_stake
    for record in hands:
        if record.n_players != n_players or record.base_stake != base_stake:
            # a programming error, never a user's: not translated
            raise ValueError(
                f"hand {record.hand_no}: {record.n_players} players and stake "
                f"{record.base_stake}, the first hand has {n_players} and {base_stake}"
            )
    if players is None:
        players = [Player(seat=s, id=f"p{s}") for s in range(n_players)]
    data: dict[str, Any] = {
        "schema": "zhuoji-log/1",
        "game_id": game_id,
        "ruleset": ruleset,
        "base_stake": base_stake,
        "players": [p.model_dump(exclude_none=True) for p in players],
        "hands": [_hand_dict(record, None) for record in hands],
    }
    if rule_overrides is not None:
        data["rule_overrides"] = rule_overrides
    if started_at is not None:
        data["started_at"] = started_at
    return Game.model_validate(data, by_alias=True, by_name=False, context=_any_tile())
