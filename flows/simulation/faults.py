"""Fault injection: one realistic defect in a simulated hand, and the manifest row for it.

Three families of defect:

- **illegal moves**: an edit of a legal hand (a tile changed, an event inserted, replaced
  or appended, the deal or the wall altered) or, for the faults only another course of
  play can show (no_pass, missing_suit, missed_win, no_258_pair), the hand played again
  with one player breaking that rule (the ``Deviation`` of the family's bots, reached
  through the registry: :func:`zhuoji.rules.bots.bots_of`). The edit point is the hand's first
  deviation from a legal log, so the audit's first finding is the fault.
- **tampered results**: a wrong delta, a chicken payment left out, a kong paid to a
  player who was not ready, a wrong next dealer, deltas that do not sum to zero.
- **file damage**: a truncated file, a broken JSON line in a stream, a tile written as
  text no parser accepts. The game (or file) becomes malformed and is quarantined.

Every hand-level fault is checked when it is made: :func:`zhuoji.rules.audit.audit_hand` must
report exactly the fault's codes, in order, the first at the fault's event. An edit that
does not give exactly that is discarded, and the injector tries another place or kind.
(A tampered result of a family other than Guizhou gives the checks its own settlement
makes: the kind's first code, then only result codes.)

Which kinds a preset can take follows its family and settings (:func:`fault_kinds`): the
Changsha family adds a chow by a seat other than the discarder's next player
(``illegal_chow``), a 小胡 without a 2-5-8 pair (``no_258_pair``), a false 起手小胡
(``bad_small_win``), a 海底 offer out of order (``bad_seabed``), a draw kept after the
dice (``locked_hand``), 漏胡 (``missed_win``), the dice thrown after a kong by a hand that
is not ready (``bad_roll``) and wrong birds (``bad_bird``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import orjson

from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedHand, bots_of
from zhuoji.rules.events import (
    Bird,
    Chow,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Flip,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Ready,
    RecordedItem,
    RecordedResult,
    Roll,
    Seabed,
    SmallWin,
    Win,
)
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.families.guizhou.settings import Ruleset as GuizhouRuleset
from zhuoji.rules.families.guizhou.settings import guizhou_ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import NUM_SUITED, Tile, format_tiles
from zhuoji.rules.violations import ViolationCode

__all__ = [
    "MALFORMED",
    "Fault",
    "FaultKind",
    "damage_document",
    "damage_stream_lines",
    "fault_kinds",
    "fault_rng",
    "inject_hand_fault",
    "is_file_fault",
]

MALFORMED = "malformed"
"""The expected finding of file damage: the game does not parse and is quarantined."""


class FaultKind(StrEnum):
    # illegal moves: the finding has the same name
    BAD_DEAL = "bad_deal"
    TILE_OVERFLOW = "tile_overflow"
    OUT_OF_TURN = "out_of_turn"
    NOT_IN_HAND = "not_in_hand"
    ILLEGAL_PONG = "illegal_pong"
    ILLEGAL_KONG = "illegal_kong"
    CHOW_NOT_ALLOWED = "chow_not_allowed"
    INVALID_WIN = "invalid_win"
    NO_PASS = "no_pass"
    MISSED_WIN = "missed_win"
    FROZEN_HAND = "frozen_hand"
    FALSE_READY = "false_ready"
    WALL_MISMATCH = "wall_mismatch"
    WALL_EXHAUSTED = "wall_exhausted"
    PREMATURE_END = "premature_end"
    EVENT_AFTER_END = "event_after_end"
    WILDCARD_DISCARD = "wildcard_discard"
    MISSING_SUIT = "missing_suit"
    BAD_FLIP = "bad_flip"
    # tampered results
    WRONG_DELTA = "wrong_delta"
    MISSING_CHICKEN = "missing_chicken"
    KONG_TO_UNREADY = "kong_to_unready"
    WRONG_NEXT_DEALER = "wrong_next_dealer"
    UNBALANCED_DELTAS = "unbalanced_deltas"
    # file damage
    TRUNCATED_FILE = "truncated_file"
    BROKEN_JSON_LINE = "broken_json_line"
    BAD_TILE_TEXT = "bad_tile_text"
    # illegal moves of the families with chow, 起手小胡, 海底 and 开杠 dice (Changsha)
    ILLEGAL_CHOW = "illegal_chow"
    NO_258_PAIR = "no_258_pair"
    BAD_SMALL_WIN = "bad_small_win"
    BAD_SEABED = "bad_seabed"
    LOCKED_HAND = "locked_hand"
    BAD_ROLL = "bad_roll"
    BAD_BIRD = "bad_bird"


_C = ViolationCode
_CODES: dict[FaultKind, tuple[str, ...]] = {
    # a delta changed alone no longer matches the record's own items
    FaultKind.WRONG_DELTA: (_C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    FaultKind.MISSING_CHICKEN: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
    FaultKind.KONG_TO_UNREADY: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
    FaultKind.WRONG_NEXT_DEALER: (_C.DEALER_MISMATCH,),
    FaultKind.UNBALANCED_DELTAS: (_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    FaultKind.TRUNCATED_FILE: (MALFORMED,),
    FaultKind.BROKEN_JSON_LINE: (MALFORMED,),
    FaultKind.BAD_TILE_TEXT: (MALFORMED,),
}
_FILE_KINDS = frozenset({FaultKind.TRUNCATED_FILE, FaultKind.BROKEN_JSON_LINE,
                         FaultKind.BAD_TILE_TEXT})
_RESULT_KINDS = frozenset({FaultKind.WRONG_DELTA, FaultKind.MISSING_CHICKEN,
                           FaultKind.KONG_TO_UNREADY, FaultKind.WRONG_NEXT_DEALER,
                           FaultKind.UNBALANCED_DELTAS})
_RESULT_CODES = frozenset({_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_MISMATCH,
                           _C.ITEM_SUM_MISMATCH, _C.DEALER_MISMATCH})
_GUIZHOU = "guizhou"
_ANY_FAMILY = (
    FaultKind.BAD_DEAL, FaultKind.TILE_OVERFLOW, FaultKind.OUT_OF_TURN,
    FaultKind.NOT_IN_HAND, FaultKind.ILLEGAL_PONG, FaultKind.ILLEGAL_KONG,
    FaultKind.INVALID_WIN, FaultKind.WALL_MISMATCH, FaultKind.WALL_EXHAUSTED,
    FaultKind.PREMATURE_END, FaultKind.EVENT_AFTER_END, FaultKind.WRONG_DELTA,
    FaultKind.WRONG_NEXT_DEALER, FaultKind.UNBALANCED_DELTAS,
)
"""The kinds any family's hands can take (the rest follow a family's rules)."""
_GUIZHOU_ONLY = frozenset({
    FaultKind.CHOW_NOT_ALLOWED, FaultKind.NO_PASS, FaultKind.FROZEN_HAND,
    FaultKind.FALSE_READY, FaultKind.WILDCARD_DISCARD, FaultKind.MISSING_SUIT,
    FaultKind.BAD_FLIP, FaultKind.MISSING_CHICKEN, FaultKind.KONG_TO_UNREADY,
})
_NEW_KINDS = frozenset({FaultKind.ILLEGAL_CHOW, FaultKind.NO_258_PAIR,
                        FaultKind.BAD_SMALL_WIN, FaultKind.BAD_SEABED, FaultKind.LOCKED_HAND,
                        FaultKind.BAD_ROLL, FaultKind.BAD_BIRD})


def expected_codes(kind: FaultKind) -> tuple[str, ...]:
    """The findings a fault of ``kind`` gives, in order (the first is the fault's own)."""
    return _CODES.get(kind) or (str(ViolationCode(kind.value)),)


def is_file_fault(kind: FaultKind) -> bool:
    return kind in _FILE_KINDS


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: where it is and what the audit must find.

    ``event_index`` is the index (in the faulted hand's events) of the first finding, or
    of the damaged event for file damage; None for faults in the deal or the result.
    ``codes`` are the hand's findings in order; file damage has ``("malformed",)``.
    """

    kind: FaultKind
    hand_no: int
    event_index: int | None
    codes: tuple[str, ...]
    note: str

    @property
    def expected(self) -> str:
        return self.codes[0]


def fault_kinds(
    ruleset: RulesetBase, *, stream: bool, file_damage: bool = True
) -> tuple[FaultKind, ...]:
    """The kinds that can occur under ``ruleset`` in files of the given encoding
    (without the file-level damage kinds when ``file_damage`` is off)."""
    if ruleset.family != _GUIZHOU:
        return _other_family_kinds(ruleset, stream=stream, file_damage=file_damage)
    return _guizhou_kinds(guizhou_ruleset(ruleset), stream=stream, file_damage=file_damage)


def _guizhou_kinds(
    ruleset: GuizhouRuleset, *, stream: bool, file_damage: bool
) -> tuple[FaultKind, ...]:
    out: list[FaultKind] = []
    for kind in FaultKind:
        if kind in _NEW_KINDS or (not file_damage and kind in _FILE_KINDS):
            continue
        if kind is FaultKind.WILDCARD_DISCARD and not ruleset.wildcards:
            continue
        if kind is FaultKind.MISSING_SUIT and not ruleset.missing_suit_required:
            continue
        if kind is FaultKind.NO_PASS and not ruleset.pass_rule:
            continue
        if kind is FaultKind.BAD_FLIP and not ruleset.flip_chicken:
            continue
        if kind is FaultKind.KONG_TO_UNREADY and not ruleset.kongs.need_ready:
            continue
        if kind is FaultKind.BROKEN_JSON_LINE and not stream:
            continue
        out.append(kind)
    return tuple(out)


def _other_family_kinds(
    ruleset: RulesetBase, *, stream: bool, file_damage: bool
) -> tuple[FaultKind, ...]:
    """The kinds of a family other than Guizhou: those of any family, and those its
    settings and mechanics give rules for."""
    mech = mechanics_of(ruleset)
    wanted = set(_ANY_FAMILY)
    for kind, on in (
        (FaultKind.ILLEGAL_CHOW, mech.chow),
        (FaultKind.NO_258_PAIR, getattr(ruleset, "pair_258", False)),
        (FaultKind.BAD_SMALL_WIN, getattr(ruleset, "small_wins", False)),
        (FaultKind.BAD_SEABED, mech.seabed),
        (FaultKind.LOCKED_HAND, mech.kong_dice and mech.kong_dice_locks_hand),
        (FaultKind.MISSED_WIN, getattr(ruleset, "missed_win", False)),
        (FaultKind.BAD_ROLL, mech.kong_dice and mech.kong_dice_needs_ready),
        (FaultKind.BAD_BIRD, mech.birds > 0),
        (FaultKind.TRUNCATED_FILE, file_damage),
        (FaultKind.BAD_TILE_TEXT, file_damage),
        (FaultKind.BROKEN_JSON_LINE, file_damage and stream),
    ):
        if on:
            wanted.add(kind)
    return tuple(k for k in FaultKind if k in wanted and k not in _GUIZHOU_ONLY)


def fault_rng(seed: int, ruleset: str, game_no: int, hand_no: int) -> random.Random:
    """The generator deciding whether, and how, one hand is faulted."""
    return random.Random(f"zhuoji-faults/{seed}/{ruleset}/{game_no}/{hand_no}")


# --------------------------------------------------------------------------------------
# hand-level faults
# --------------------------------------------------------------------------------------

_TRIES = 6  # places tried per kind before the kind is given up for the hand


class _Context:
    """A simulated hand being faulted: its record, ruleset and a generator."""

    def __init__(self, hand: SimulatedHand, ruleset: RulesetBase, rng: random.Random) -> None:
        self.hand = hand
        self.record = hand.record
        self.events = hand.record.events
        self.ruleset = ruleset
        self.rng = rng
        self.n = hand.record.n_players

    def table_at(self, index: int) -> Table:
        """The table after the hand's first ``index`` events."""
        table = Table.from_record(replace(self.record, events=()), self.ruleset)
        for event in self.events[:index]:
            table.apply(event)
        return table

    def places(self, test: Callable[[int], bool]) -> list[int]:
        """Up to ``_TRIES`` event indexes passing ``test``, in a seeded order."""
        found = [i for i in range(len(self.events)) if test(i)]
        self.rng.shuffle(found)
        return found[:_TRIES]

    def after_draw(self, i: int) -> bool:
        """Event ``i`` is a discard right after the same seat's draw."""
        e, prev = self.events[i], self.events[i - 1] if i else None
        return isinstance(e, Discard) and isinstance(prev, Draw) and prev.seat == e.seat

    def unclaimed(self, i: int) -> bool:
        """Event ``i`` is an ordinary draw after a discard nobody claimed."""
        return (i > 0 and isinstance(self.events[i], Draw)
                and isinstance(self.events[i - 1], Discard))

    def edited(self, events: Sequence[Event]) -> HandRecord:
        return replace(self.record, events=tuple(events))

    def other_tile(self, not_this: int, *, held: Sequence[int] | None = None) -> Tile:
        """A suited tile other than ``not_this`` (and, given ``held``, one not held)."""
        pool = [t for t in range(NUM_SUITED) if t != not_this and (held is None or not held[t])]
        return Tile(self.rng.choice(pool))


_Attempt = tuple[HandRecord, int | None, str]
"""An edited record, the event index of the fault, and a note."""


def _out_of_turn(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.unclaimed):
        e = c.events[i]
        assert isinstance(e, Draw)
        wrong = (e.seat + 1 + c.rng.randrange(c.n - 1)) % c.n
        events = list(c.events)
        events[i] = Draw(wrong, e.tile)
        out.append((c.edited(events), i, f"seat {wrong} draws {e.tile} when seat {e.seat} "
                                          "is due"))
    return out


def _not_in_hand(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Discard)):
        e = c.events[i]
        assert isinstance(e, Discard)
        tile = c.other_tile(e.tile, held=c.table_at(i).counts(e.seat))
        events = list(c.events)
        events[i] = Discard(e.seat, tile)
        out.append((c.edited(events), i, f"seat {e.seat} discards {tile}, not in its hand"))
    return out


def _illegal_pong(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.unclaimed):
        d = c.events[i - 1]
        assert isinstance(d, Discard)
        table = c.table_at(i)
        seats = [s for s in range(c.n) if s != d.seat and table.counts(s)[d.tile] < 2]
        if not seats:
            continue
        seat = c.rng.choice(seats)
        events = list(c.events)
        events.insert(i, Pong(seat, d.tile, d.seat))
        out.append((c.edited(events), i, f"seat {seat} pongs {d.tile} holding fewer than two"))
    return out


def _illegal_kong(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.after_draw):
        e = c.events[i]
        assert isinstance(e, Discard)
        counts = c.table_at(i).counts(e.seat)
        tiles = [t for t in range(NUM_SUITED) if 1 <= counts[t] <= 3]
        if not tiles:
            continue
        tile = Tile(c.rng.choice(tiles))
        events = list(c.events)
        events.insert(i, Kong(e.seat, tile, KongKind.CONCEALED))
        out.append((c.edited(events), i,
                    f"seat {e.seat} declares a concealed kong of {tile} holding "
                    f"{counts[tile]}"))
    return out


def _chow(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.unclaimed):
        d = c.events[i - 1]
        assert isinstance(d, Discard)
        seat = (d.seat + 1) % c.n
        counts = c.table_at(i).counts(seat)
        rank = d.tile % 9
        runs = [[d.tile - k + j for j in range(3)] for k in range(3) if 0 <= rank - k <= 6]
        runs.sort(key=lambda run: -sum(1 for t in run if t != d.tile and counts[t]))
        tiles = tuple(Tile(t) for t in runs[0])
        events = list(c.events)
        events.insert(i, Chow(seat, tiles, d.seat))
        out.append((c.edited(events), i, f"seat {seat} chows {d.tile} from seat {d.seat}"))
    return out


def _invalid_win(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.after_draw):
        drawn = c.events[i - 1]
        assert isinstance(drawn, Draw)
        events = [*c.events[:i], Win(drawn.seat, drawn.tile)]
        out.append((c.edited(events), i,
                    f"seat {drawn.seat} claims a self-drawn win on {drawn.tile} with an "
                    "incomplete hand"))
    return out


def _frozen_hand(c: _Context) -> list[_Attempt]:
    ready = {e.seat for e in c.events if isinstance(e, Ready)}
    if not ready:
        return []

    def place(i: int) -> bool:
        e = c.events[i]
        return c.after_draw(i) and isinstance(e, Discard) and e.seat in ready

    out: list[_Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Discard)
        table = c.table_at(i)
        if not table.is_frozen(e.seat):
            continue
        attempt = _keep_the_draw(c, i, table, f"seat {e.seat}, declared ready,")
        if attempt is not None:
            out.append(attempt)
    return out


def _keep_the_draw(c: _Context, i: int, table: Table, who: str) -> _Attempt | None:
    """The discard at ``i`` (of the tile just drawn) made of another tile the seat holds
    (chosen by the fault's generator), or None when it holds no other."""
    e = c.events[i]
    assert isinstance(e, Discard)
    counts = table.counts(e.seat)
    tiles = [t for t in range(NUM_SUITED) if counts[t] and t != e.tile]
    if not tiles:
        return None
    tile = Tile(c.rng.choice(tiles))
    events = list(c.events)
    events[i] = Discard(e.seat, tile)
    return c.edited(events), i, f"{who} keeps its draw {e.tile} and discards {tile}"


def _false_ready(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    seen: set[int] = set()
    late = []
    for i, e in enumerate(c.events):
        if isinstance(e, Discard):
            if e.seat in seen and c.after_draw(i):
                late.append(i)
            seen.add(e.seat)
    c.rng.shuffle(late)
    for i in late[:_TRIES]:
        e = c.events[i]
        assert isinstance(e, Discard)
        events = list(c.events)
        events.insert(i, Ready(e.seat))
        out.append((c.edited(events), i, f"seat {e.seat} declares ready too late"))
    return out


def _wall_mismatch(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Draw)):
        e = c.events[i]
        assert isinstance(e, Draw)
        tile = c.other_tile(e.tile)
        events = list(c.events)
        events[i] = Draw(e.seat, tile)
        out.append((c.edited(events), i, f"seat {e.seat} draws {tile}; the wall gives {e.tile}"))
    return out


def _wall_exhausted(c: _Context) -> list[_Attempt]:
    if not c.events or not isinstance(c.events[-1], ExhaustiveDraw):
        return []
    i = len(c.events) - 1
    prev = c.events[i - 1]
    if isinstance(prev, Discard):
        seat = (prev.seat + 1) % c.n
    elif isinstance(prev, Kong):
        seat = prev.seat
    else:
        return []
    tile = c.other_tile(-1)
    events = [*c.events[:i], Draw(seat, tile)]
    return [(c.edited(events), i, f"seat {seat} draws {tile} from an empty wall")]


def _premature_end(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(c.unclaimed):
        events = [*c.events[:i], ExhaustiveDraw()]
        out.append((c.edited(events), i, "an exhaustive draw with tiles left in the wall"))
    return out


def _event_after_end(c: _Context) -> list[_Attempt]:
    last = c.events[-1]
    seat = next((e.seat for e in reversed(c.events) if isinstance(e, Win | Discard)), 0)
    extra: Event = Discard(seat, c.other_tile(-1)) if isinstance(last, Win) else Draw(
        (seat + 1) % c.n, c.other_tile(-1))
    return [(c.edited([*c.events, extra]), len(c.events), "an event after the hand ended")]


def _wildcard_discard(c: _Context) -> list[_Attempt]:
    out: list[_Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Discard)):
        e = c.events[i]
        assert isinstance(e, Discard)
        if not c.table_at(i).counts(e.seat)[Tile.W]:
            continue
        events = list(c.events)
        events[i] = Discard(e.seat, Tile.W)
        out.append((c.edited(events), i, f"seat {e.seat} discards the wildcard W"))
    return out


def _bad_flip(c: _Context) -> list[_Attempt]:
    if not c.events or not isinstance(c.events[-1], Flip):
        return []
    i = len(c.events) - 1
    e = c.events[i]
    assert isinstance(e, Flip)
    aside = c.record.set_aside
    if aside:  # the winner chose among the set-aside tiles: show one of neither
        held = [1 if t in aside else 0 for t in range(NUM_SUITED)]
        tile = c.other_tile(e.tile, held=held)
        return [(c.edited([*c.events[:i], Flip(tile)]), i,
                 f"the flip shows {tile}; the set-aside tiles are {format_tiles(aside)}")]
    tile = c.other_tile(e.tile)
    return [(c.edited([*c.events[:i], Flip(tile)]), i,
             f"the flip shows {tile}; the wall's next tile is {e.tile}")]


def _tile_overflow(c: _Context) -> list[_Attempt]:
    deal = [list(d) for d in c.record.deal]
    in_deal = [0] * (NUM_SUITED + 1)
    for d in deal:
        for t in d:
            in_deal[t] += 1
    seat = c.rng.randrange(c.n)
    spot = c.rng.randrange(len(deal[seat]))
    old = deal[seat][spot]
    pool = [t for t in range(NUM_SUITED) if t != old and in_deal[t] <= 3]
    tile = Tile(c.rng.choice(pool))
    deal[seat][spot] = tile
    record = replace(c.record, deal=tuple(tuple(sorted(d)) for d in deal))
    return [(record, None, f"seat {seat} is dealt {tile} in place of {old}: a fifth {tile}")]


def _bad_deal(c: _Context) -> list[_Attempt]:
    dealer = c.record.dealer
    hand = list(c.record.deal[dealer])
    # a ruleset with 相公 takes a tile or two off as a false hand: three make a bad deal
    penalties = getattr(c.ruleset, "penalties", None)
    moved = [hand.pop(c.rng.randrange(len(hand)))
             for _ in range(3 if getattr(penalties, "false_hand", False) else 1)]
    deal = tuple(tuple(hand) if s == dealer else d for s, d in enumerate(c.record.deal))
    wall = (*moved, *(c.record.wall or ()))
    record = replace(c.record, deal=deal, wall=wall)
    return [(record, None, f"the dealer (seat {dealer}) is dealt {len(hand)} tiles")]


def _deviation(kind: FaultKind) -> Callable[[_Context], list[_Attempt]]:
    """The hand played again by the family's bots with one player breaking the rule of
    ``kind`` (their ``Deviation`` of the same name)."""
    def attempts(c: _Context) -> list[_Attempt]:
        out = []
        seats = list(range(c.n))
        c.rng.shuffle(seats)
        dealt = replace(c.record, events=(), result=None)
        bots = bots_of(c.ruleset)
        deviation = bots.Deviation(kind.value)
        for seat in seats:
            played = bots.play_record(c.ruleset, dealt, deviant=seat, deviation=deviation)
            found = [v for v in played.replay.violations if v.code == kind.value]
            if not found:
                continue
            record = played.record
            if kind is FaultKind.MISSED_WIN and not found[0].fatal:
                # the hand goes on after the missed win: its result is the engine's
                if played.replay.outcome is Outcome.INCOMPLETE:
                    continue
                settlement = family_of(c.ruleset).settle(
                    played.replay, c.ruleset, record.base_stake,
                    dealer_streak=record.dealer_streak)
                if settlement is None:
                    continue
                record = replace(record, result=bots.recorded_result(settlement))
            else:
                record = replace(record, result=c.record.result)
            out.append((record, found[0].event_index, f"seat {seat}: {found[0].message}"))
            break
        return out

    return attempts


# --- the Changsha family's illegal moves ----------------------------------------------


def _illegal_chow(c: _Context) -> list[_Attempt]:
    """A chow of a discard by a seat other than the discarder's next player."""
    out: list[_Attempt] = []
    if c.n < 3:
        return out
    for i in c.places(c.unclaimed):
        d = c.events[i - 1]
        assert isinstance(d, Discard)
        if d.tile >= NUM_SUITED:
            continue
        seat = (d.seat + 2 + c.rng.randrange(c.n - 2)) % c.n
        counts = c.table_at(i).counts(seat)
        rank = d.tile % 9
        runs = [[d.tile - k + j for j in range(3)] for k in range(3) if 0 <= rank - k <= 6]
        runs.sort(key=lambda run: -sum(1 for t in run if t != d.tile and counts[t]))
        tiles = tuple(Tile(t) for t in runs[0])
        events = list(c.events)
        events.insert(i, Chow(seat, tiles, d.seat))
        out.append((c.edited(events), i,
                    f"seat {seat} chows {d.tile} from seat {d.seat}, not its next player"))
    return out


def _bad_small_win(c: _Context) -> list[_Attempt]:
    """A 起手小胡 the dealt hand does not show: 板板胡 holding a 2, 5 or 8, or 缺一色
    holding every suit (the whole hand shown), declared first in the hand."""
    out: list[_Attempt] = []
    seats = list(range(c.n))
    c.rng.shuffle(seats)
    for seat in seats:
        deal = c.record.deal[seat]
        kinds = []
        if any(t < NUM_SUITED and t % 9 in (1, 4, 7) for t in deal):
            kinds.append("no_258")
        if len({t // 9 for t in deal if t < NUM_SUITED}) == 3:
            kinds.append("missing_suit")
        if not kinds:
            continue
        kind = c.rng.choice(kinds)
        events = [SmallWin(seat, kind, tuple(sorted(deal))), *c.events]
        name = "板板胡" if kind == "no_258" else "缺一色"
        out.append((c.edited(events), 0, f"seat {seat} declares {name} ({kind}) on a dealt "
                                         "hand that does not show it"))
        if len(out) >= 2:
            break
    return out


def _bad_seabed(c: _Context) -> list[_Attempt]:
    """The 海底 offered out of order: the first offer made by another seat than the one
    due, or an offer while more than one tile is left (in place of a draw)."""
    out: list[_Attempt] = []
    first = next((i for i, e in enumerate(c.events) if isinstance(e, Seabed)), None)
    if first is not None:
        e = c.events[first]
        assert isinstance(e, Seabed)
        wrong = (e.seat + 1 + c.rng.randrange(c.n - 1)) % c.n
        events = list(c.events)
        events[first] = Seabed(wrong, e.take)
        out.append((c.edited(events), first,
                    f"seat {wrong} is offered the last tile before seat {e.seat}"))
    for i in c.places(c.unclaimed):
        e = c.events[i]
        assert isinstance(e, Draw)
        events = list(c.events)
        events[i] = Seabed(e.seat, True)
        out.append((c.edited(events), i,
                    f"seat {e.seat} takes the last tile (海底) with more tiles in the wall"))
        if len(out) >= 3:
            break
    return out


def _locked_hand(c: _Context) -> list[_Attempt]:
    """After throwing the dice for a kong, a player keeps a drawn tile and discards
    another (the hand is locked: every draw is discarded until it wins)."""
    rolled_at: dict[int, int] = {}
    for i, e in enumerate(c.events):
        if isinstance(e, Roll) and e.seat not in rolled_at:
            rolled_at[e.seat] = i
    if not rolled_at:
        return []

    def place(i: int) -> bool:
        e = c.events[i]
        return (c.after_draw(i) and isinstance(e, Discard) and e.seat in rolled_at
                and rolled_at[e.seat] < i)

    out: list[_Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Discard)
        attempt = _keep_the_draw(
            c, i, c.table_at(i), f"seat {e.seat} threw the dice after a kong, then")
        if attempt is not None:
            out.append(attempt)
    return out


def _bad_roll(c: _Context) -> list[_Attempt]:
    """The dice thrown after a kong by its player, whose hand is not ready (only a ready
    hand may throw, ``kong_dice_needs_ready``): a roll inserted before the replacement."""
    events = c.events

    def place(i: int) -> bool:
        return isinstance(events[i], Kong) and not (
            i + 1 < len(events) and isinstance(events[i + 1], Roll))

    out: list[_Attempt] = []
    for i in c.places(place):
        e = events[i]
        assert isinstance(e, Kong)
        at = i + 1
        if c.table_at(at).is_ready(e.seat):
            continue
        roll = Roll(e.seat, (c.rng.randint(1, 6), c.rng.randint(1, 6)))
        edited = list(events)
        edited.insert(at, roll)
        out.append((c.edited(edited), at,
                    f"seat {e.seat} throws the dice ({roll.dice[0]}, {roll.dice[1]}) after its "
                    f"kong of {e.tile}, its hand not ready"))
    return out


def _bad_bird(c: _Context) -> list[_Attempt]:
    """The birds shown wrong: one tile that is not the wall's in its place, one bird too
    many (the wall's next tile after them) or one too few, in a seeded order."""
    at = next((i for i, e in enumerate(c.events) if isinstance(e, Bird)), None)
    if at is None:
        return []
    e = c.events[at]
    assert isinstance(e, Bird)
    shown = list(e.tiles)
    if not shown:
        return []
    k = c.rng.randrange(len(shown))
    other = c.other_tile(shown[k])
    edits = [([*shown[:k], other, *shown[k + 1:]],
              f"a bird shows {other}, not the wall's {shown[k]}")]
    wall = c.table_at(at).wall or ()
    if wall[:len(shown)] == tuple(shown) and len(wall) > len(shown):
        edits.append(([*shown, wall[len(shown)]], "one bird too many"))
    if len(shown) > 1:
        edits.append((shown[:-1], "one bird too few"))
    c.rng.shuffle(edits)
    out: list[_Attempt] = []
    for tiles, why in edits:
        events = list(c.events)
        events[at] = Bird(tuple(tiles))
        out.append((c.edited(events), at,
                    f"the birds show {format_tiles(tiles)} ({why}; {format_tiles(shown)} "
                    "due)"))
    return out


# --- tampered results ------------------------------------------------------------------


def _result(c: _Context) -> RecordedResult:
    result = c.record.result
    if result is None:
        raise ValueError(f"hand {c.record.hand_no} has no recorded result to tamper with")
    return result


def _shifted(result: RecordedResult, moves: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    deltas = list(result.deltas)
    for seat, amount in moves:
        deltas[seat] += amount
    return tuple(deltas)


def _wrong_delta(c: _Context) -> list[_Attempt]:
    result = _result(c)
    a, b = c.rng.sample(range(c.n), 2)
    k = c.rng.randint(1, 3) * c.record.base_stake
    tampered = replace(result, deltas=_shifted(result, [(a, k), (b, -k)]))
    return [(replace(c.record, result=tampered), None,
             f"seat {a} recorded {k} too much, seat {b} {k} too little")]


def _missing_chicken(c: _Context) -> list[_Attempt]:
    result = _result(c)
    items = list(result.items or ())
    chickens = [i for i, item in enumerate(items) if item.reason == "chicken"]
    if not chickens:
        return []
    gone = items.pop(c.rng.choice(chickens))
    tampered = RecordedResult(
        deltas=_shifted(result, [(gone.payer, gone.amount), (gone.payee, -gone.amount)]),
        next_dealer=result.next_dealer,
        items=tuple(items),
    )
    return [(replace(c.record, result=tampered), None,
             f"the chicken payment of {gone.amount} from seat {gone.payer} to seat "
             f"{gone.payee} is missing")]


def _kong_to_unready(c: _Context) -> list[_Attempt]:
    result = _result(c)
    seats = c.hand.replay.seats
    owners = [(s, k) for s in seats if not s.ready and not s.won for k in s.kongs
              if not k.robbed]
    if not owners:
        return []
    seat, kong = c.rng.choice(owners)
    value = guizhou_ruleset(c.ruleset).kongs.value_of(kong.kind) * c.record.base_stake
    if value <= 0:
        return []
    payers = [kong.from_seat] if kong.kind is KongKind.EXPOSED and kong.from_seat is not None \
        else [s for s in range(c.n) if s != seat.seat]
    reason = f"{kong.kind.value}_kong"
    added = [RecordedItem(p, seat.seat, value, reason) for p in payers]
    moves = [(p, -value) for p in payers] + [(seat.seat, value * len(payers))]
    tampered = RecordedResult(
        deltas=_shifted(result, moves),
        next_dealer=result.next_dealer,
        items=(*(result.items or ()), *added),
    )
    return [(replace(c.record, result=tampered), None,
             f"seat {seat.seat}'s {kong.kind.value} kong of {kong.tile} is paid although the "
             "seat is not ready")]


def _wrong_next_dealer(c: _Context) -> list[_Attempt]:
    result = _result(c)
    right = result.next_dealer if result.next_dealer is not None else c.record.dealer
    wrong = (right + 1 + c.rng.randrange(c.n - 1)) % c.n
    tampered = replace(result, next_dealer=wrong)
    return [(replace(c.record, result=tampered), None,
             f"the record names seat {wrong} as next dealer, not seat {right}")]


def _unbalanced(c: _Context) -> list[_Attempt]:
    result = _result(c)
    seat = c.rng.randrange(c.n)
    k = c.record.base_stake
    tampered = replace(result, deltas=_shifted(result, [(seat, k)]))
    return [(replace(c.record, result=tampered), None,
             f"seat {seat}'s delta is {k} too high: the deltas do not sum to zero")]


_INJECTORS: dict[FaultKind, Callable[[_Context], list[_Attempt]]] = {
    FaultKind.BAD_DEAL: _bad_deal,
    FaultKind.TILE_OVERFLOW: _tile_overflow,
    FaultKind.OUT_OF_TURN: _out_of_turn,
    FaultKind.NOT_IN_HAND: _not_in_hand,
    FaultKind.ILLEGAL_PONG: _illegal_pong,
    FaultKind.ILLEGAL_KONG: _illegal_kong,
    FaultKind.CHOW_NOT_ALLOWED: _chow,
    FaultKind.INVALID_WIN: _invalid_win,
    FaultKind.NO_PASS: _deviation(FaultKind.NO_PASS),
    FaultKind.MISSED_WIN: _deviation(FaultKind.MISSED_WIN),
    FaultKind.FROZEN_HAND: _frozen_hand,
    FaultKind.FALSE_READY: _false_ready,
    FaultKind.WALL_MISMATCH: _wall_mismatch,
    FaultKind.WALL_EXHAUSTED: _wall_exhausted,
    FaultKind.PREMATURE_END: _premature_end,
    FaultKind.EVENT_AFTER_END: _event_after_end,
    FaultKind.WILDCARD_DISCARD: _wildcard_discard,
    FaultKind.MISSING_SUIT: _deviation(FaultKind.MISSING_SUIT),
    FaultKind.BAD_FLIP: _bad_flip,
    FaultKind.WRONG_DELTA: _wrong_delta,
    FaultKind.MISSING_CHICKEN: _missing_chicken,
    FaultKind.KONG_TO_UNREADY: _kong_to_unready,
    FaultKind.WRONG_NEXT_DEALER: _wrong_next_dealer,
    FaultKind.UNBALANCED_DELTAS: _unbalanced,
    FaultKind.ILLEGAL_CHOW: _illegal_chow,
    FaultKind.NO_258_PAIR: _deviation(FaultKind.NO_258_PAIR),
    FaultKind.BAD_SMALL_WIN: _bad_small_win,
    FaultKind.BAD_SEABED: _bad_seabed,
    FaultKind.LOCKED_HAND: _locked_hand,
    FaultKind.BAD_ROLL: _bad_roll,
    FaultKind.BAD_BIRD: _bad_bird,
}


def _as_expected(kind: FaultKind, codes: tuple[str, ...], ruleset: RulesetBase) -> bool:
    """The findings are the kind's: exactly its codes; for a tampered result of a family
    other than Guizhou, its first code and then only the checks of a recorded result (each
    family's settlement compares what it keeps: items, their sums, the next dealer)."""
    want = expected_codes(kind)
    if codes == want:
        return True
    return (ruleset.family != _GUIZHOU and kind in _RESULT_KINDS and bool(codes)
            and codes[0] == want[0] and set(codes) <= _RESULT_CODES)


def inject_hand_fault(
    hand: SimulatedHand, kind: FaultKind, ruleset: RulesetBase, rng: random.Random
) -> tuple[HandRecord, Fault] | None:
    """The hand with one fault of ``kind``, and its manifest entry; None when the hand
    offers no place for that kind (e.g. no declared-ready player for ``frozen_hand``)."""
    injector = _INJECTORS.get(kind)
    if injector is None:
        raise ValueError(f"{kind} is file damage, not a hand fault")
    for record, index, note in injector(_Context(hand, ruleset, rng)):
        findings = audit_hand(record, ruleset).findings
        codes = tuple(str(f.code) for f in findings)
        if _as_expected(kind, codes, ruleset) and findings[0].event_index == index:
            return record, Fault(kind, record.hand_no, index, codes, note)
    return None


# --------------------------------------------------------------------------------------
# file damage
# --------------------------------------------------------------------------------------


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _event_offset(data: dict[str, Any], full: bytes, hand: int, event: int) -> tuple[int, int]:
    """Byte offset and length of ``hands[hand].events[event]`` in the compact document."""
    events = data["hands"][hand]["events"]
    head = dict(data)
    hands = [dict(h) for h in data["hands"][: hand + 1]]
    hands[-1]["events"] = events[:event]
    head["hands"] = hands
    start = _common_prefix(orjson.dumps(head), full)
    if event:
        start += 1  # the comma before the event
    return start, len(orjson.dumps(events[event]))


def damage_document(data: bytes, fault: Fault, rng: random.Random) -> bytes:
    """A compact document (as :func:`zhuoji.parsers.write.format_document` writes it) with the
    file damage of ``fault`` at its hand and event."""
    game = orjson.loads(data)
    hand = next(i for i, h in enumerate(game["hands"]) if h["hand_no"] == fault.hand_no)
    event = fault.event_index if fault.event_index is not None else 0
    if fault.kind is FaultKind.BAD_TILE_TEXT:
        _spoil_tile(game["hands"][hand]["events"][event], rng)
        return orjson.dumps(game) + b"\n"
    if fault.kind is FaultKind.TRUNCATED_FILE:
        start, length = _event_offset(game, data.rstrip(b"\n"), hand, event)
        return data[: start + max(1, length // 2)]
    raise ValueError(f"{fault.kind} is not damage a document can have")


def damage_stream_lines(
    lines: list[bytes], fault: Fault, rng: random.Random, *, last: bool
) -> list[bytes]:
    """One game's stream lines with the file damage of ``fault``. ``last`` says whether
    the game ends the file (a truncated game elsewhere is followed by a line break, as
    when a server restarts and appends the next game)."""
    at = _stream_line(lines, fault)
    out = list(lines)
    if fault.kind is FaultKind.BAD_TILE_TEXT:
        event = orjson.loads(out[at])
        _spoil_tile(event, rng)
        out[at] = orjson.dumps(event) + b"\n"
        return out
    if fault.kind is FaultKind.BROKEN_JSON_LINE:
        text = out[at].rstrip(b"\n")
        out[at] = text[:-1] + b"\n"  # the closing brace is lost
        return out
    if fault.kind is FaultKind.TRUNCATED_FILE:
        text = out[at]
        cut = text[: max(1, len(text) // 2)]
        return [*out[:at], cut if last else cut + b"\n"]
    raise ValueError(f"{fault.kind} is not damage a stream can have")


def _stream_line(lines: list[bytes], fault: Fault) -> int:
    """The line of the fault's event among a game's stream lines."""
    hand_no = -1
    event = 0
    for i, line in enumerate(lines):
        if line.startswith(b'{"type":"start_hand"'):
            hand_no = orjson.loads(line)["hand_no"]
            event = 0
            continue
        if hand_no == fault.hand_no and not line.startswith(b'{"type":"end_hand"'):
            if event == (fault.event_index or 0):
                return i
            event += 1
    raise ValueError(f"hand {fault.hand_no} event {fault.event_index} is not in the game")


def _spoil_tile(event: dict[str, Any], rng: random.Random) -> None:
    """Write the event's tile as text no parser accepts (the event must carry a tile)."""
    if "tile" not in event:
        raise ValueError(f"a {event.get('type')} event carries no tile to spoil")
    event["tile"] = rng.choice(("10m", "0p", "5x", "Z", "十条"))
