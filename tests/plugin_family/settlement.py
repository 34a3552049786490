"""The settlement of the 平胡 test family: each win is worth the sum of its patterns'
points, paid by the discarder (or the robbed player), or by every other seat when it is
self-drawn; the next dealer is the first winner (the dealer again after a hand nobody
won)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.events import RecordedResult
from zhuoji.rules.facts import Outcome
from zhuoji.rules.ledger import LedgerItem, WinValue, audit_ledger
from zhuoji.rules.messages import Message
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.violations import Violation

from .patterns import Pattern
from .settings import Ruleset


class Reason(StrEnum):
    WIN = "hu"  # 和牌: a win on a discard or a robbed kong
    SELF_DRAWN = "zimo_hu"  # 自摸和: a self-drawn win, paid by every other seat


REASONS: tuple[str, ...] = tuple(r.value for r in Reason)


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled hand (a :class:`zhuoji.rules.ledger.Ledger`)."""

    items: tuple[LedgerItem, ...]
    deltas: tuple[int, ...]
    next_dealer: int
    explanation: tuple[str, ...]
    wins: tuple[WinValue, ...] = ()

    @property
    def reasons(self) -> tuple[str, ...]:
        return REASONS


def _points(patterns: tuple[str, ...], ruleset: Ruleset) -> int:
    p = ruleset.points
    value = {Pattern.PLAIN: p.plain, Pattern.PONGS: p.pongs, Pattern.PAIRS: p.pairs,
             Pattern.ONE_SUIT: p.one_suit, Pattern.SELF_DRAW: p.self_draw}
    return sum(value[Pattern(name)] for name in patterns)


def settle(
    replay: HandReplay, ruleset: Ruleset, base_stake: int = 1, *, dealer_streak: int = 0,
    explain: bool = True,
) -> Settlement | None:
    """The ledger of a replayed hand; None when the replay stopped on a fatal violation."""
    del dealer_streak
    if replay.outcome is Outcome.INCOMPLETE:
        return None
    n = replay.n_players
    deltas = [0] * n
    items: list[LedgerItem] = []
    lines: list[str] = []
    wins: list[WinValue] = []
    for win in replay.winners:
        value = _points(win.patterns, ruleset) * base_stake
        if win.self_drawn:
            payers = tuple(s for s in range(n) if s != win.seat)
            reason = Reason.SELF_DRAWN
        else:
            assert win.from_seat is not None
            payers = (win.from_seat,)
            reason = Reason.WIN
        detail = Message("{p:pattern* + } {n}", list(win.patterns), value)
        for payer in payers:
            items.append(LedgerItem(payer, win.seat, value, reason, detail))
            deltas[payer] -= value
            deltas[win.seat] += value
        if explain:
            lines.append(Message("seat {seat} wins {p:pattern* + }: {n} from each payer",
                                 win.seat, list(win.patterns), value))
        wins.append(WinValue(win.seat, win.patterns, value, payers))
    next_dealer = replay.winners[0].seat if replay.winners else replay.dealer
    return Settlement(tuple(items), tuple(deltas), next_dealer, tuple(lines), tuple(wins))


def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The checks of a recorded result every family shares."""
    return audit_ledger(settlement, recorded, hand_no)
