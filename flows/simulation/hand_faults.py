"""Hand-level faults: one illegal move or one tampered result made in a simulated hand,
each checked by the audit when it is made (:func:`inject_hand_fault`; the kinds and what they
must give are :mod:`zhuoji.flows.simulation.faults`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from zhuoji.flows.simulation.faults import (
    _GUIZHOU,
    _RESULT_CODES,
    _RESULT_KINDS,
    Fault,
    FaultKind,
    expected_codes,
)
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
from zhuoji.rules.families.guizhou.settings import guizhou_ruleset
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import NUM_SUITED, Tile, format_tiles

__all__ = ["inject_hand_fault"]


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
        # a programming error, never a user's: not translated
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
        # a programming error, never a user's: not translated
        raise ValueError(f"{kind} is file damage, not a hand fault")
    for record, index, note in injector(_Context(hand, ruleset, rng)):
        findings = audit_hand(record, ruleset).findings
        codes = tuple(str(f.code) for f in findings)
        if _as_expected(kind, codes, ruleset) and findings[0].event_index == index:
            return record, Fault(kind, record.hand_no, index, codes, note)
    return None
