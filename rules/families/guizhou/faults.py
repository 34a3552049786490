"""The Guizhou family's faults: the illegal moves and tampered results of its own rules
(no chow, 过手, a hand frozen by 报听, the wildcard, 缺一门, the flipped tile, chickens,
kongs paid to ready hands only), their injectors, and the order in which a hand's kind is
drawn (:data:`FAULTS`, registered as the family's ``faults``; the machinery is
:mod:`zhuoji.rules.faults`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from types import MappingProxyType

from zhuoji.rules.events import (
    Chow,
    Discard,
    Flip,
    KongKind,
    Ready,
    RecordedItem,
    RecordedResult,
)
from zhuoji.rules.families.guizhou.settings import guizhou_ruleset
from zhuoji.rules.faults import (
    TRIES,
    Attempt,
    FamilyFaults,
    FaultContext,
    deviation,
    keep_the_draw,
    recorded_result,
    shifted,
)
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import NUM_SUITED, Tile, format_tiles
from zhuoji.rules.violations import ViolationCode

__all__ = ["FAULTS"]

CHOW_NOT_ALLOWED = "chow_not_allowed"
NO_PASS = "no_pass"
FROZEN_HAND = "frozen_hand"
FALSE_READY = "false_ready"
WILDCARD_DISCARD = "wildcard_discard"
MISSING_SUIT = "missing_suit"
BAD_FLIP = "bad_flip"
MISSING_CHICKEN = "missing_chicken"
KONG_TO_UNREADY = "kong_to_unready"
_OWN = (CHOW_NOT_ALLOWED, NO_PASS, FROZEN_HAND, FALSE_READY, WILDCARD_DISCARD, MISSING_SUIT,
        BAD_FLIP, MISSING_CHICKEN, KONG_TO_UNREADY)
"""The family's own kinds, in their canonical order."""

_DRAWN = (
    "bad_deal", "tile_overflow", "out_of_turn", "not_in_hand", "illegal_pong",
    "illegal_kong", CHOW_NOT_ALLOWED, "invalid_win", NO_PASS, "missed_win", FROZEN_HAND,
    FALSE_READY, "wall_mismatch", "wall_exhausted", "premature_end", "event_after_end",
    WILDCARD_DISCARD, MISSING_SUIT, BAD_FLIP, "wrong_delta", MISSING_CHICKEN,
    KONG_TO_UNREADY, "wrong_next_dealer", "unbalanced_deltas", "truncated_file",
    "broken_json_line", "bad_tile_text",
)
"""Every kind a hand of the family can take, the family-neutral ones among them, in the
order the simulator draws among them."""


def drawn(ruleset: RulesetBase, core: Collection[str]) -> Sequence[str]:
    """The kinds of :data:`_DRAWN` the ruleset takes: the family-neutral ones given (none of
    the optional mechanics': the family plays none), a missed win, and its own as its
    settings call for."""
    rs = guizhou_ruleset(ruleset)
    off = {
        WILDCARD_DISCARD: not rs.wildcards,
        MISSING_SUIT: not rs.missing_suit_required,
        NO_PASS: not rs.pass_rule,
        BAD_FLIP: not rs.flip_chicken,
        KONG_TO_UNREADY: not rs.kongs.need_ready,
    }
    own = {*_OWN, "missed_win"}
    return tuple(k for k in _DRAWN
                 if (k in core or k in own) and not off.get(k, False))


def _chow(c: FaultContext) -> list[Attempt]:
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


def _frozen_hand(c: FaultContext) -> list[Attempt]:
    ready = {e.seat for e in c.events if isinstance(e, Ready)}
    if not ready:
        return []

    def place(i: int) -> bool:
        e = c.events[i]
        return c.after_draw(i) and isinstance(e, Discard) and e.seat in ready

    out: list[Attempt] = []
    for i in c.places(place):
        e = c.events[i]
        assert isinstance(e, Discard)
        table = c.table_at(i)
        if not table.is_frozen(e.seat):
            continue
        attempt = keep_the_draw(c, i, table, f"seat {e.seat}, declared ready,")
        if attempt is not None:
            out.append(attempt)
    return out


def _false_ready(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    seen: set[int] = set()
    late = []
    for i, e in enumerate(c.events):
        if isinstance(e, Discard):
            if e.seat in seen and c.after_draw(i):
                late.append(i)
            seen.add(e.seat)
    c.rng.shuffle(late)
    for i in late[:TRIES]:
        e = c.events[i]
        assert isinstance(e, Discard)
        events = list(c.events)
        events.insert(i, Ready(e.seat))
        out.append((c.edited(events), i, f"seat {e.seat} declares ready too late"))
    return out


def _wildcard_discard(c: FaultContext) -> list[Attempt]:
    out: list[Attempt] = []
    for i in c.places(lambda i: isinstance(c.events[i], Discard)):
        e = c.events[i]
        assert isinstance(e, Discard)
        if not c.table_at(i).counts(e.seat)[Tile.W]:
            continue
        events = list(c.events)
        events[i] = Discard(e.seat, Tile.W)
        out.append((c.edited(events), i, f"seat {e.seat} discards the wildcard W"))
    return out


def _bad_flip(c: FaultContext) -> list[Attempt]:
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


def _missing_chicken(c: FaultContext) -> list[Attempt]:
    result = recorded_result(c)
    items = list(result.items or ())
    chickens = [i for i, item in enumerate(items) if item.reason == "chicken"]
    if not chickens:
        return []
    gone = items.pop(c.rng.choice(chickens))
    tampered = RecordedResult(
        deltas=shifted(result, [(gone.payer, gone.amount), (gone.payee, -gone.amount)]),
        next_dealer=result.next_dealer,
        items=tuple(items),
    )
    return [(replace(c.record, result=tampered), None,
             f"the chicken payment of {gone.amount} from seat {gone.payer} to seat "
             f"{gone.payee} is missing")]


def _kong_to_unready(c: FaultContext) -> list[Attempt]:
    result = recorded_result(c)
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
        deltas=shifted(result, moves),
        next_dealer=result.next_dealer,
        items=(*(result.items or ()), *added),
    )
    return [(replace(c.record, result=tampered), None,
             f"seat {seat.seat}'s {kong.kind.value} kong of {kong.tile} is paid although the "
             "seat is not ready")]


_C = ViolationCode
FAULTS = FamilyFaults(
    kinds=_OWN,
    drawn=drawn,
    injectors=MappingProxyType({
        CHOW_NOT_ALLOWED: _chow,
        NO_PASS: deviation(NO_PASS),
        FROZEN_HAND: _frozen_hand,
        FALSE_READY: _false_ready,
        WILDCARD_DISCARD: _wildcard_discard,
        MISSING_SUIT: deviation(MISSING_SUIT),
        BAD_FLIP: _bad_flip,
        MISSING_CHICKEN: _missing_chicken,
        KONG_TO_UNREADY: _kong_to_unready,
    }),
    codes=MappingProxyType({
        MISSING_CHICKEN: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
        KONG_TO_UNREADY: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
    }),
    results=frozenset({MISSING_CHICKEN, KONG_TO_UNREADY}),
    exact_results=True,
)
"""The family's faults, as it registers them."""
