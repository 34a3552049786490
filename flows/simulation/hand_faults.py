"""Hand-level faults: one illegal move or one tampered result made in a simulated hand,
each checked by the audit when it is made (:func:`inject_hand_fault`; the kinds and what they
must give are :mod:`zhuoji.flows.simulation.faults`). Here the family-neutral kinds'
injectors; a family's own are in its folder, registered as its ``faults``
(:class:`zhuoji.rules.faults.FamilyFaults`, over the machinery of :mod:`zhuoji.rules.faults`)."""

from __future__ import annotations

import random
from dataclasses import replace

from zhuoji.flows.simulation.faults import (
    RESULT_CODES,
    CoreFault,
    Fault,
    expected_codes,
    injector_of,
    is_result_fault,
)
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedHand
from zhuoji.rules.events import (
    Bird,
    Chow,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Roll,
    Seabed,
    Win,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.faults import (
    Attempt,
    FaultContext,
    Injector,
    deviation,
    keep_the_draw,
    recorded_result,
    shifted,
)
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import NUM_SUITED, Tile, format_tiles

__all__ = ["inject_hand_fault"]


# --------------------------------------------------------------------------------------
# hand-level faults
# --------------------------------------------------------------------------------------


def _out_of_turn(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(c.unclaimed):
        e = c.events[i]
        assert isinstance(e, Draw)
        wrong = (e.seat + 1 + c.rng.randrange(c.n - 1)) % c.n
        events = list(c.events)
        events[i] = Draw(wrong, e.tile)
        out.append((c.edited(events), i, f"seat {wrong} draws {e.tile} when seat {e.seat} "
                                          "is due"))
    return out


def _not_in_hand(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Discard)):
        e = c.events[i]
        assert isinstance(e, Discard)
        tile = c.other_tile(e.tile, held=c.table_at(i).counts(e.seat))
        events = list(c.events)
        events[i] = Discard(e.seat, tile)
        out.append((c.edited(events), i, f"seat {e.seat} discards {tile}, not in its hand"))
    return out


def _illegal_pong(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
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


def _illegal_kong(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
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


def _invalid_win(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(c.after_draw):
        drawn = c.events[i - 1]
        assert isinstance(drawn, Draw)
        events = [*c.events[:i], Win(drawn.seat, drawn.tile)]
        out.append((c.edited(events), i,
                    f"seat {drawn.seat} claims a self-drawn win on {drawn.tile} with an "
                    "incomplete hand"))
    return out


def _wall_mismatch(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Draw)):
        e = c.events[i]
        assert isinstance(e, Draw)
        tile = c.other_tile(e.tile)
        events = list(c.events)
        events[i] = Draw(e.seat, tile)
        out.append((c.edited(events), i, f"seat {e.seat} draws {tile}; the wall gives {e.tile}"))
    return out


def _wall_exhausted(c: FaultContext) -> list[Attempt]:
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


def _premature_end(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(c.unclaimed):
        events = [*c.events[:i], ExhaustiveDraw()]
        out.append((c.edited(events), i, "an exhaustive draw with tiles left in the wall"))
    return out


def _event_after_end(c: FaultContext) -> list[Attempt]:
    last = c.events[-1]
    seat = next((e.seat for e in reversed(c.events) if isinstance(e, Win | Discard)), 0)
    extra: Event = Discard(seat, c.other_tile(-1)) if isinstance(last, Win) else Draw(
        (seat + 1) % c.n, c.other_tile(-1))
    return [(c.edited([*c.events, extra]), len(c.events), "an event after the hand ended")]


def _tile_overflow(c: FaultContext) -> list[Attempt]:
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


def _bad_deal(c: FaultContext) -> list[Attempt]:
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


# --- illegal moves of the optional mechanics: chow, 海底, 开杠 dice, birds ----------------


def _illegal_chow(c: FaultContext) -> list[Attempt]:
    """A chow of a discard by a seat other than the discarder's next player (where the
    ruleset plays chow)."""
    out: list[Attempt] = []
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


def _bad_seabed(c: FaultContext) -> list[Attempt]:
    """The 海底 offered out of order: the first offer made by another seat than the one
    due, or an offer while more than one tile is left (in place of a draw)."""
    out: list[Attempt] = []
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


def _locked_hand(c: FaultContext) -> list[Attempt]:
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

    out: list[Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Discard)
        attempt = keep_the_draw(
            c, i, c.table_at(i), f"seat {e.seat} threw the dice after a kong, then")
        if attempt is not None:
            out.append(attempt)
    return out


def _bad_roll(c: FaultContext) -> list[Attempt]:
    """The dice thrown after a kong by its player, whose hand is not ready (only a ready
    hand may throw, ``kong_dice_needs_ready``): a roll inserted before the replacement."""
    events = c.events

    def place(i: int) -> bool:
        return isinstance(events[i], Kong) and not (
            i + 1 < len(events) and isinstance(events[i + 1], Roll))

    out: list[Attempt] = []
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


def _bad_bird(c: FaultContext) -> list[Attempt]:
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
    out: list[Attempt] = []
    for tiles, why in edits:
        events = list(c.events)
        events[at] = Bird(tuple(tiles))
        out.append((c.edited(events), at,
                    f"the birds show {format_tiles(tiles)} ({why}; {format_tiles(shown)} "
                    "due)"))
    return out


# --- tampered results ------------------------------------------------------------------



def _wrong_delta(c: FaultContext) -> list[Attempt]:
    result = recorded_result(c)
    a, b = c.rng.sample(range(c.n), 2)
    k = c.rng.randint(1, 3) * c.record.base_stake
    tampered = replace(result, deltas=shifted(result, [(a, k), (b, -k)]))
    return [(replace(c.record, result=tampered), None,
             f"seat {a} recorded {k} too much, seat {b} {k} too little")]


def _wrong_next_dealer(c: FaultContext) -> list[Attempt]:
    result = recorded_result(c)
    right = result.next_dealer if result.next_dealer is not None else c.record.dealer
    wrong = (right + 1 + c.rng.randrange(c.n - 1)) % c.n
    tampered = replace(result, next_dealer=wrong)
    return [(replace(c.record, result=tampered), None,
             f"the record names seat {wrong} as next dealer, not seat {right}")]


def _unbalanced(c: FaultContext) -> list[Attempt]:
    result = recorded_result(c)
    seat = c.rng.randrange(c.n)
    k = c.record.base_stake
    tampered = replace(result, deltas=shifted(result, [(seat, k)]))
    return [(replace(c.record, result=tampered), None,
             f"seat {seat}'s delta is {k} too high: the deltas do not sum to zero")]


_INJECTORS: dict[str, Injector] = {
    CoreFault.BAD_DEAL: _bad_deal,
    CoreFault.TILE_OVERFLOW: _tile_overflow,
    CoreFault.OUT_OF_TURN: _out_of_turn,
    CoreFault.NOT_IN_HAND: _not_in_hand,
    CoreFault.ILLEGAL_PONG: _illegal_pong,
    CoreFault.ILLEGAL_KONG: _illegal_kong,
    CoreFault.INVALID_WIN: _invalid_win,
    CoreFault.MISSED_WIN: deviation(CoreFault.MISSED_WIN, settled=True),
    CoreFault.WALL_MISMATCH: _wall_mismatch,
    CoreFault.WALL_EXHAUSTED: _wall_exhausted,
    CoreFault.PREMATURE_END: _premature_end,
    CoreFault.EVENT_AFTER_END: _event_after_end,
    CoreFault.WRONG_DELTA: _wrong_delta,
    CoreFault.WRONG_NEXT_DEALER: _wrong_next_dealer,
    CoreFault.UNBALANCED_DELTAS: _unbalanced,
    CoreFault.ILLEGAL_CHOW: _illegal_chow,
    CoreFault.BAD_SEABED: _bad_seabed,
    CoreFault.LOCKED_HAND: _locked_hand,
    CoreFault.BAD_ROLL: _bad_roll,
    CoreFault.BAD_BIRD: _bad_bird,
}
"""The family-neutral kinds' injectors (a family's own are its ``faults.injectors``)."""


def _as_expected(kind: str, codes: tuple[str, ...], ruleset: RulesetBase) -> bool:
    """The findings are the kind's: exactly its codes; for a tampered result of a family
    whose settlement compares only what it keeps (``FamilyFaults.exact_results`` off), its
    first code and then only the checks of a recorded result (items, their sums, the next
    dealer)."""
    want = expected_codes(kind)
    if codes == want:
        return True
    faults = family_of(ruleset).faults
    exact = faults is not None and faults.exact_results
    return (not exact and is_result_fault(kind) and bool(codes)
            and codes[0] == want[0] and set(codes) <= RESULT_CODES)


def inject_hand_fault(
    hand: SimulatedHand, kind: str, ruleset: RulesetBase, rng: random.Random
) -> tuple[HandRecord, Fault] | None:
    """The hand with one fault of ``kind``, and its manifest entry; None when the hand
    offers no place for that kind (e.g. no declared-ready player for ``frozen_hand``)."""
    injector = _INJECTORS.get(kind) or injector_of(kind)
    if injector is None:
        # a programming error, never a user's: not translated
        raise ValueError(f"{kind} is file damage, not a hand fault")
    for record, index, note in injector(FaultContext(hand, ruleset, rng)):
        findings = audit_hand(record, ruleset).findings
        codes = tuple(str(f.code) for f in findings)
        if _as_expected(kind, codes, ruleset) and findings[0].event_index == index:
            return record, Fault(kind, record.hand_no, index, codes, note)
    return None
