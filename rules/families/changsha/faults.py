"""The Changsha family's faults: the illegal moves of its own rules (a 小胡 without a 2-5-8
pair, a false 起手小胡), their injectors, and the order in which a hand's kind is drawn
(:data:`FAULTS`, registered as the family's ``faults``; the machinery is
:mod:`zhuoji.rules.faults`). The faults of the optional mechanics it plays (chow, 海底,
开杠 dice, birds) are family-neutral: the simulator's."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from types import MappingProxyType

from zhuoji.rules.events import SmallWin
from zhuoji.rules.families.changsha.settings import Ruleset
from zhuoji.rules.faults import Attempt, FamilyFaults, FaultContext, deviation
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import NUM_SUITED

__all__ = ["FAULTS"]

NO_258_PAIR = "no_258_pair"
BAD_SMALL_WIN = "bad_small_win"
_OWN = (NO_258_PAIR, BAD_SMALL_WIN)
"""The family's own kinds, in their canonical order."""

_DRAWN = (
    "bad_deal", "tile_overflow", "out_of_turn", "not_in_hand", "illegal_pong",
    "illegal_kong", "invalid_win", "missed_win", "wall_mismatch", "wall_exhausted",
    "premature_end", "event_after_end", "wrong_delta", "wrong_next_dealer",
    "unbalanced_deltas", "truncated_file", "broken_json_line", "bad_tile_text",
    "illegal_chow", NO_258_PAIR, BAD_SMALL_WIN, "bad_seabed", "locked_hand", "bad_roll",
    "bad_bird",
)
"""Every kind a hand of the family can take, the family-neutral ones among them, in the
order the simulator draws among them."""


def drawn(ruleset: RulesetBase, core: Collection[str]) -> Sequence[str]:
    """The kinds of :data:`_DRAWN` the ruleset takes: the family-neutral ones given, and its
    own as its settings call for (a 2-5-8 pair, 起手小胡)."""
    on = {
        NO_258_PAIR: isinstance(ruleset, Ruleset) and ruleset.pair_258,
        BAD_SMALL_WIN: isinstance(ruleset, Ruleset) and ruleset.small_wins,
    }
    return tuple(k for k in _DRAWN if k in core or on.get(k, False))


def _bad_small_win(c: FaultContext) -> list[Attempt]:
    """A 起手小胡 the dealt hand does not show: 板板胡 holding a 2, 5 or 8, or 缺一色
    holding every suit (the whole hand shown), declared first in the hand."""
    out: list[Attempt] = []
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


FAULTS = FamilyFaults(
    kinds=_OWN,
    drawn=drawn,
    injectors=MappingProxyType({
        NO_258_PAIR: deviation(NO_258_PAIR),
        BAD_SMALL_WIN: _bad_small_win,
    }),
)
"""The family's faults, as it registers them."""
