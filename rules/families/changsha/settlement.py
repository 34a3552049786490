"""The Changsha settlement: a first version that pays each win by the ``points`` section
(小胡 and 大胡, self-draw or discard, the dealer's 10 more on a discard); birds and the
next dealer are not settled yet. ``settle`` and ``audit_result`` have the signatures of
the Guizhou family's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.events import RecordedResult
from rules.facts import Outcome
from rules.families.changsha.patterns import BIG_PATTERNS
from rules.families.changsha.settings import Ruleset
from rules.replay import HandReplay
from rules.violations import Violation, ViolationCode

__all__ = ["Settlement", "audit_result", "settle"]

_BIG = frozenset(p.value for p in BIG_PATTERNS)


@dataclass(frozen=True)
class Settlement:
    """The deltas of a hand, per seat, and a line per payment."""

    deltas: tuple[int, ...]
    explanation: str = ""


def _bigs(patterns: tuple[str, ...]) -> int:
    return sum(1 for p in patterns if p in _BIG)


def settle(replay: HandReplay, ruleset: Ruleset, base_stake: int = 1, *,
           dealer_streak: int = 0, explain: bool = True, **_: Any) -> Settlement | None:
    """The hand's deltas; None when the replay stopped on a fatal violation."""
    if replay.outcome is Outcome.INCOMPLETE:
        return None
    n = replay.n_players
    dealer = replay.dealer
    pts = ruleset.points
    deltas = [0] * n
    lines: list[str] = []
    for win in replay.winners:
        names = win.patterns
        bigs = _bigs(names) if pts.big_wins_add else min(1, _bigs(names))
        pay: list[tuple[int, int]] = []
        if win.from_seat is None:
            for s in range(n):
                if s == win.seat:
                    continue
                if bigs:
                    each = (pts.big_self_draw_dealer if win.seat == dealer
                            else pts.big_self_draw_dealer_pays if s == dealer
                            else pts.big_self_draw_other_pays) * bigs
                else:
                    each = (pts.small_self_draw_dealer if win.seat == dealer
                            else pts.small_self_draw_dealer_pays if s == dealer
                            else pts.small_self_draw_other_pays)
                pay.append((s, each))
        else:
            amount = pts.big_discard * bigs if bigs else pts.small_discard
            if dealer in (win.seat, win.from_seat):
                amount += pts.dealer_extra
            pay.append((win.from_seat, amount))
        for payer, amount in pay:
            amount *= base_stake
            deltas[payer] -= amount
            deltas[win.seat] += amount
            if explain:
                lines.append(f"seat {payer} pays seat {win.seat} {amount} "
                             f"({'big_win' if bigs else 'small_win'})")
    return Settlement(tuple(deltas), "\n".join(lines))


def audit_result(settlement: Settlement | None, recorded: RecordedResult | None,
                 hand_no: int) -> tuple[Violation, ...]:
    """``score_mismatch`` when the recorded deltas differ from the settlement's."""
    if settlement is None or recorded is None or tuple(recorded.deltas) == settlement.deltas:
        return ()
    return (Violation(ViolationCode.SCORE_MISMATCH, hand_no, None, None,
                      f"recorded {list(recorded.deltas)}, recomputed "
                      f"{list(settlement.deltas)}", False),)


