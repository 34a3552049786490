"""The Sichuan family's faults: the illegal moves of its own rules (定缺's order and holding,
no chow, no meld of the declared suit, a 血战 winner acting again, a bad 换三张 or
declaration), their injectors, and the order in which a hand's kind is drawn
(:data:`FAULTS`, registered as the family's ``faults``; the machinery is
:mod:`zhuoji.rules.faults`). Each kind gives the core's finding for the rule it breaks
(:data:`FAULTS` ``codes``; ``docs/simulator.md``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from types import MappingProxyType

from zhuoji.rules.events import (
    Chow,
    DeclareSuit,
    Discard,
    Draw,
    Event,
    Exchange,
    Kong,
    Pong,
    Suit,
    Win,
)
from zhuoji.rules.faults import Attempt, FamilyFaults, FaultContext
from zhuoji.rules.hand import is_complete
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import NUM_SUITED, Tile, format_tiles
from zhuoji.rules.violations import ViolationCode

__all__ = ["FAULTS"]

_C = ViolationCode
DECLARED_SUIT_FIRST = "declared_suit_first"
WIN_IN_DECLARED_SUIT = "win_in_declared_suit"
MELD_OF_DECLARED_SUIT = "meld_of_declared_suit"
CHOW_NOT_PLAYED = "chow_not_played"
ACTED_AFTER_WIN = "acted_after_win"
BAD_EXCHANGE = "bad_exchange"
BAD_DECLARATION = "bad_declaration"
_OWN = (DECLARED_SUIT_FIRST, WIN_IN_DECLARED_SUIT, MELD_OF_DECLARED_SUIT, CHOW_NOT_PLAYED,
        ACTED_AFTER_WIN, BAD_EXCHANGE, BAD_DECLARATION)
"""The family's own kinds, in their canonical order."""

_DRAWN = (
    "bad_deal", "tile_overflow", BAD_EXCHANGE, BAD_DECLARATION, "out_of_turn",
    "not_in_hand", DECLARED_SUIT_FIRST, "illegal_pong", MELD_OF_DECLARED_SUIT,
    "illegal_kong", CHOW_NOT_PLAYED, "invalid_win", WIN_IN_DECLARED_SUIT, ACTED_AFTER_WIN,
    "wall_mismatch", "wall_exhausted", "premature_end", "event_after_end", "wrong_delta",
    "wrong_next_dealer", "unbalanced_deltas", "truncated_file", "broken_json_line",
    "bad_tile_text",
)
"""Every kind a hand of the family can take, the family-neutral ones among them, in the
order the simulator draws among them."""

_SUITS = (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)


def drawn(ruleset: RulesetBase, core: Collection[str]) -> Sequence[str]:
    """The kinds of :data:`_DRAWN` the ruleset takes: the family-neutral ones given, and its
    own as its mechanics call for (换三张 when played, a 血战 winner's further turn where
    winners leave)."""
    mech = mechanics_of(ruleset)
    off = {
        BAD_EXCHANGE: not mech.exchange,
        ACTED_AFTER_WIN: not mech.play_after_win or mech.winners_stay,
    }
    return tuple(k for k in _DRAWN if (k in core or k in _OWN) and not off.get(k, False))


def _declared(c: FaultContext) -> dict[int, int]:
    """Each seat's declared suit (0 m, 1 p, 2 s), as the log declares it."""
    return {e.seat: "mps".index(e.suit.value) for e in c.events if isinstance(e, DeclareSuit)}


def _declared_suit_first(c: FaultContext) -> list[Attempt]:
    """A discard of another tile while the seat still holds its declared suit: a discard of
    the declared suit made of a tile of another suit the seat holds."""
    voids = _declared(c)

    def place(i: int) -> bool:
        e = c.events[i]
        return isinstance(e, Discard) and e.tile // 9 == voids.get(e.seat, -1)

    out: list[Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Discard)
        counts = c.table_at(i).counts(e.seat)
        void = voids[e.seat]
        others = [t for t in range(NUM_SUITED) if counts[t] and t // 9 != void]
        if not others:
            continue
        tile = Tile(c.rng.choice(others))
        events = list(c.events)
        events[i] = Discard(e.seat, tile)
        out.append((c.edited(events), i,
                    f"seat {e.seat} discards {tile} still holding its declared suit "
                    f"({e.tile} due first)"))
    return out


def _meld_of_declared_suit(c: FaultContext) -> list[Attempt]:
    """A pong of a discard of the seat's declared suit, the seat holding two of it."""
    voids = _declared(c)
    out: list[Attempt] = []
    for i in c.places(c.unclaimed):
        d = c.events[i - 1]
        assert isinstance(d, Discard)
        table = c.table_at(i)
        seats = [s for s in range(c.n) if s != d.seat and voids.get(s, -1) == d.tile // 9
                 and table.counts(s)[d.tile] >= 2]
        if not seats:
            continue
        seat = c.rng.choice(seats)
        events = list(c.events)
        events.insert(i, Pong(seat, d.tile, d.seat))
        out.append((c.edited(events), i,
                    f"seat {seat} pongs {d.tile} of its declared suit from seat {d.seat}"))
    return out


def _chow(c: FaultContext) -> list[Attempt]:
    """A chow of a discard by the discarder's next player (the family plays no chow)."""
    out: list[Attempt] = []
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


def _win_in_declared_suit(c: FaultContext) -> list[Attempt]:
    """A self-drawn win holding the declared suit: at a draw of a seat that still holds its
    declared suit and whose hand, those tiles counted, waits on a tile left in the wall,
    that tile is drawn (swapped into the drawn place of the wall) and the seat wins on it."""
    voids = _declared(c)
    wall = list(c.record.wall or ())
    places: list[tuple[int, int, int]] = []  # (event index, front draws, back draws) before
    front = back = 0
    for i, e in enumerate(c.events):
        if not isinstance(e, Draw):
            continue
        from_back = i > 0 and isinstance(c.events[i - 1], Kong)
        if e.seat in voids:
            places.append((i, front, -1 - back if from_back else front))
        if from_back:
            back += 1
        else:
            front += 1
    c.rng.shuffle(places)
    out: list[Attempt] = []
    for i, first, position in places:
        e = c.events[i]
        assert isinstance(e, Draw)
        position %= len(wall)
        table = c.table_at(i)
        counts = list(table.counts(e.seat))
        void = voids[e.seat]
        if wall[position] != e.tile or not any(counts[9 * void:9 * void + 9]):
            continue
        melds = len(table.melds(e.seat))
        live = range(first, first + len(table.wall or ()))
        for y in range(NUM_SUITED):
            counts[y] += 1
            complete = is_complete(counts, melds)
            counts[y] -= 1
            spots = [p for p in live if wall[p] == y]
            if not complete or not spots:
                continue
            edited = list(wall)
            q = position if y == e.tile else spots[0]
            edited[position], edited[q] = edited[q], edited[position]
            tile = Tile(y)
            events = [*c.events[:i], Draw(e.seat, tile), Win(e.seat, tile)]
            record = replace(c.record, events=tuple(events), wall=tuple(edited))
            out.append((record, i + 1, f"seat {e.seat} draws {tile} and wins holding its "
                                       f"declared suit {_SUITS[void].value}"))
            break
        if len(out) >= 2:
            break
    return out


def _acted_after_win(c: FaultContext) -> list[Attempt]:
    """A seat that has won (and left the hand, 血战到底) draws in place of the seat due."""
    won: dict[int, int] = {}
    for i, e in enumerate(c.events):
        if isinstance(e, Win) and e.seat not in won:
            won[e.seat] = i

    def place(i: int) -> bool:
        e = c.events[i]
        return isinstance(e, Draw) and any(at < i for at in won.values())

    out: list[Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Draw)
        gone = [s for s, at in won.items() if at < i]
        seat = c.rng.choice(gone)
        events = list(c.events)
        events[i] = Draw(seat, e.tile)
        out.append((c.edited(events), i,
                    f"seat {seat} draws {e.tile} after it won at event {won[seat]}"))
    return out


def _bad_exchange(c: FaultContext) -> list[Attempt]:
    """换三张 made wrong: tiles of two suits, a pass to the seat itself, a seat receiving
    twice, or a seat passing twice, in a seeded order."""
    at = [i for i, e in enumerate(c.events) if isinstance(e, Exchange)]
    if len(at) < 2:
        return []
    table = c.table_at(at[0])
    edits: list[tuple[int, Event, bool, str]] = []
    first = c.events[at[0]]
    assert isinstance(first, Exchange)
    counts = table.counts(first.seat)
    held = [t for t in range(NUM_SUITED) if counts[t]]
    suits = sorted({t // 9 for t in held})
    if mechanics_of(c.ruleset).exchange_one_suit and len(suits) > 1:
        one = [t for t in held if t // 9 == suits[0]][:2]
        other = next(t for t in held if t // 9 == suits[1])
        tiles = tuple(sorted(Tile(t) for t in (*one, other)))
        if len(tiles) == 3:
            edits.append((at[0], Exchange(first.seat, tiles, first.to), True,
                          f"seat {first.seat} passes {format_tiles(tiles)}, of two suits"))
    edits.append((at[0], Exchange(first.seat, first.tiles, first.seat), True,
                  f"seat {first.seat} passes its tiles to itself"))
    second = c.events[at[1]]
    assert isinstance(second, Exchange)
    edits.append((at[1], Exchange(second.seat, second.tiles, first.to), True,
                  f"seat {second.seat} passes to seat {first.to}, who already receives"))
    edits.append((at[1], first, False, f"seat {first.seat} passes a second time"))
    c.rng.shuffle(edits)
    out: list[Attempt] = []
    for i, event, in_place, note in edits:
        events = list(c.events)
        if in_place:
            events[i] = event
        else:
            events.insert(i, event)
        out.append((c.edited(events), i, note))
    return out


def _bad_declaration(c: FaultContext) -> list[Attempt]:
    """定缺 made wrong: a seat lacking a suit declaring one it holds, a seat declaring
    twice, or a declaration after play began, in a seeded order."""
    at = {e.seat: i for i, e in enumerate(c.events) if isinstance(e, DeclareSuit)}
    if not at:
        return []
    edits: list[Attempt] = []
    for seat, i in sorted(at.items()):
        e = c.events[i]
        assert isinstance(e, DeclareSuit)
        counts = c.table_at(i).counts(seat)
        lengths = [sum(counts[9 * s:9 * s + 9]) for s in range(3)]
        if 0 in lengths:
            held = [s for s in range(3) if lengths[s]]
            suit = _SUITS[c.rng.choice(held)]
            events = list(c.events)
            events[i] = DeclareSuit(seat, suit)
            edits.append((c.edited(events), i,
                          f"seat {seat} declares {suit.value}, a suit it holds, lacking "
                          f"{_SUITS[lengths.index(0)].value}"))
    seat = c.rng.choice(sorted(at))
    i = at[seat]
    e = c.events[i]
    assert isinstance(e, DeclareSuit)
    again = DeclareSuit(seat, _SUITS[("mps".index(e.suit.value) + 1) % 3])
    events = list(c.events)
    events.insert(i + 1, again)
    edits.append((c.edited(events), i + 1, f"seat {seat} declares a second time"))
    late = [j for j, ev in enumerate(c.events) if isinstance(ev, Draw)]
    if late:
        j = c.rng.choice(late[:8])
        d = c.events[j]
        assert isinstance(d, Draw)
        events = list(c.events)
        events.insert(j, DeclareSuit(d.seat, e.suit))
        edits.append((c.edited(events), j, f"seat {d.seat} declares after play began"))
    c.rng.shuffle(edits)
    return edits


FAULTS = FamilyFaults(
    kinds=_OWN,
    drawn=drawn,
    injectors=MappingProxyType({
        DECLARED_SUIT_FIRST: _declared_suit_first,
        WIN_IN_DECLARED_SUIT: _win_in_declared_suit,
        MELD_OF_DECLARED_SUIT: _meld_of_declared_suit,
        CHOW_NOT_PLAYED: _chow,
        ACTED_AFTER_WIN: _acted_after_win,
        BAD_EXCHANGE: _bad_exchange,
        BAD_DECLARATION: _bad_declaration,
    }),
    codes=MappingProxyType({
        WIN_IN_DECLARED_SUIT: (_C.MISSING_SUIT.value,),
        MELD_OF_DECLARED_SUIT: (_C.ILLEGAL_PONG.value,),
        CHOW_NOT_PLAYED: (_C.CHOW_NOT_ALLOWED.value,),
    }),
)
"""The family's faults, as it registers them."""
