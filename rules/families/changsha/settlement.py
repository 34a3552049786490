"""The Changsha settlement: a replayed hand's itemised ledger, its deltas and the next dealer.

:func:`settle` reads what the replay found (:class:`~zhuoji.rules.replay.HandReplay`: the wins and
their patterns, the 起手小胡 declared on the dealt hands, the birds and the 海底 in its
:class:`~zhuoji.rules.facts.WallFacts`) and the ruleset's ``points`` section
(:class:`~zhuoji.rules.families.changsha.settings.Points`), and writes transfers ``(payer, payee,
amount, reason, detail)`` (:class:`Reason`: ``opening_win``, ``small_win``, ``big_win``,
``dealer_extra``, ``bird``). Each seat's delta is the sum of its transfers, so the deltas
sum to zero; every amount is a ``points`` value times ``base_stake``. :func:`audit_result`
compares a settlement with what a server recorded (:func:`zhuoji.rules.ledger.audit_ledger`).

Order is fixed: the 起手小胡 in the order declared (payers in turn order after the
declarer), then the wins in the order they happened (for each payer in turn order after
the winner: the win, the dealer's extra, the birds). ``docs/rules/changsha.md`` gives each
rule with the seed's words and the choices made where the seed is silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.events import RecordedResult, SmallWin
from zhuoji.rules.facts import Outcome, WallFacts, WinFact
from zhuoji.rules.families.changsha.patterns import BIG_PATTERNS, Pattern
from zhuoji.rules.families.changsha.settings import Points, Ruleset
from zhuoji.rules.ledger import LedgerItem, WinValue, audit_ledger
from zhuoji.rules.messages import Message, cached
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.tiles import TILE_TEXT
from zhuoji.rules.violations import Violation

__all__ = ["Reason", "Settlement", "audit_result", "next_dealer_of", "settle"]

_BIG = frozenset(p.value for p in BIG_PATTERNS)
_SMALL = Pattern.SMALL.value
_HEAVENLY = Pattern.HEAVENLY.value


class Reason(StrEnum):
    """Why a transfer is made (each has its Chinese in the glossary's ``[reason]``)."""

    OPENING_WIN = "opening_win"  # 起手小胡, paid as a 小胡 self-draw
    SMALL_WIN = "small_win"  # 小胡
    BIG_WIN = "big_win"  # 大胡 (per 大胡 when they add up)
    DEALER_EXTRA = "dealer_extra"  # the 10 more on a discard when either side deals
    BIRD = "bird"  # 扎鸟: what the hits add, the payment x (bird_multiplier ** hits - 1)


REASONS: tuple[str, ...] = tuple(r.value for r in Reason)
"""The reasons in their order (:attr:`Settlement.reasons`)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled Changsha hand (a :class:`zhuoji.rules.ledger.Ledger`)."""

    items: tuple[LedgerItem, ...]  # deterministic order
    deltas: tuple[int, ...]  # per seat, sums to zero, multiples of base_stake
    next_dealer: int
    explanation: tuple[str, ...]  # lines a referee can read out
    wins: tuple[WinValue, ...] = ()  # one per win, in win order

    @property
    def reasons(self) -> tuple[str, ...]:
        """The family's reasons in their order (the audit orders item differences by
        it): :data:`REASONS`."""
        return REASONS


class _Book:
    """The transfers and the explanation of one hand, as they are written."""

    def __init__(self, n: int, stake: int, explain: bool) -> None:
        self.n = n
        self.stake = stake
        self.explain = explain
        self.items: list[LedgerItem] = []
        self.lines: list[str] = []

    def say(self, template: str, *values: object) -> None:
        """Add a line to the explanation: the message of a glossary template and its
        values (made only when the explanation is written)."""
        if self.explain:
            self.lines.append(Message(template, *values))

    def pay(self, payer: int, payee: int, value: int, reason: Reason, detail: str) -> int:
        """Write ``value`` x stake from ``payer`` to ``payee`` (nothing for 0); the amount."""
        amount = value * self.stake
        if amount:
            self.items.append(LedgerItem(payer, payee, amount, reason, detail))
            if self.explain:
                self.lines.append(Message("seat {seat} pays seat {p:seat} {n}: {r:reason} "
                                          "({d:csdetail})", payer, payee, amount, reason.value,
                                          detail))
        return amount

    def deltas(self) -> tuple[int, ...]:
        out = [0] * self.n
        for item in self.items:
            out[item.payer] -= item.amount
            out[item.payee] += item.amount
        return tuple(out)


def _others(seat: int, n: int) -> tuple[int, ...]:
    """Every other seat in turn order after ``seat``."""
    return tuple((seat + k) % n for k in range(1, n))


def _self_draw_value(points: Points, big: bool, winner: int, payer: int, dealer: int) -> int:
    """What one payer pays for a self-drawn win (or a 起手小胡): 小胡 20 each from a
    dealer's win, else the dealer 20 and the others 10; 大胡 40, else 40 and 30."""
    if big:
        if winner == dealer:
            return points.big_self_draw_dealer
        return (points.big_self_draw_dealer_pays if payer == dealer
                else points.big_self_draw_other_pays)
    if winner == dealer:
        return points.small_self_draw_dealer
    return (points.small_self_draw_dealer_pays if payer == dealer
            else points.small_self_draw_other_pays)


def _scored(win: WinFact, points: Points) -> tuple[tuple[str, ...], int]:
    """The patterns a win scores and how many 大胡 they count: the 大胡 (a 小胡 beside
    one counts as the 大胡), all of them when ``big_wins_add``, else the first; else
    ``small``."""
    bigs = tuple(p for p in win.patterns if p in _BIG)
    if bigs:
        return (bigs, len(bigs)) if points.big_wins_add else (bigs[:1], 1)
    return (_SMALL,), 0


def _openings(replay: HandReplay, points: Points) -> list[SmallWin]:
    """The 起手小胡 paid, in the order declared: every one when ``small_wins_add``, else
    each declarer's first."""
    out: list[SmallWin] = []
    seen: set[int] = set()
    for ev in replay.noted:
        if isinstance(ev, SmallWin) and (points.small_wins_add or ev.seat not in seen):
            seen.add(ev.seat)
            out.append(ev)
    return out


def _bird_detail(hits: int, factor: int) -> Message:
    if hits == 1:
        return cached("1 bird hit: x {m:n}", factor)
    return cached("{h:n} bird hits: x {m:n}", hits, factor)


def _how(win: WinFact) -> Message:
    if win.from_seat is None:
        return cached("by self-draw")
    if win.robbed_kong:
        return cached("robbing seat {seat}'s kong", win.from_seat)
    return cached("on seat {seat}'s discard", win.from_seat)


def _settle_win(book: _Book, win: WinFact, points: Points, dealer: int,
                birds: Sequence[int]) -> WinValue:
    n = book.n
    scored, bigs = _scored(win, points)
    reason = Reason.BIG_WIN if bigs else Reason.SMALL_WIN
    names = list(scored)
    seat = win.seat
    discarder = win.from_seat
    how = _how(win)
    detail = Message("{p:pattern* + } {h:cshow}", names, how)  # (a list: not cached)
    if bigs > 1:
        book.say("seat {seat} wins {h:cshow}: {p:pattern* + } ({n} big wins)", seat, how,
                 names, bigs)
    else:
        book.say("seat {seat} wins {h:cshow}: {p:pattern* + }", seat, how, names)
    payers = _others(seat, n) if discarder is None else (discarder,)
    total = 0
    for payer in payers:
        if discarder is None:
            value = _self_draw_value(points, bigs > 0, seat, payer, dealer) * max(bigs, 1)
            extra = 0
        else:
            value = points.big_discard * bigs if bigs else points.small_discard
            extra = points.dealer_extra if dealer in (seat, payer) else 0
        paid = book.pay(payer, seat, value, reason, detail)
        paid += book.pay(payer, seat, extra, Reason.DEALER_EXTRA,
                         cached("seat {seat} deals", dealer))
        total += paid
        # a discard win: a bird on the winner or the discarder; a self-draw: a bird on the
        # winner (every payer) or on this payer (this one alone)
        hits = sum(1 for b in birds if b in (seat, payer))
        if hits:
            factor = points.bird_multiplier ** hits
            book.pay(payer, seat, (value + extra) * (factor - 1), Reason.BIRD,
                     _bird_detail(hits, factor))
    return WinValue(seat, scored, total, payers)


def _pay_opening(book: _Book, ev: SmallWin, points: Points, dealer: int) -> None:
    book.say("seat {seat} declares {k:pattern} on its dealt hand, paid as a small "
             "self-draw", ev.seat, ev.kind)
    for payer in _others(ev.seat, book.n):
        value = _self_draw_value(points, False, ev.seat, payer, dealer)
        book.pay(payer, ev.seat, value, Reason.OPENING_WIN,
                 cached("{k:pattern} on the dealt hand", ev.kind))


def next_dealer_of(replay: HandReplay,
                   openings: Sequence[SmallWin] = ()) -> tuple[int, Message]:
    """Who deals next, and why (seed 003's 庄家 rules, in this order): two or more players
    won at the start (起手小胡 declared, 天胡) -> the seat the (first) bird counts to;
    通炮 -> the discarder; a win -> the winner; no win: the 海底 drawn as a kong
    replacement -> its drawer, the 海底 taken -> its taker, nobody took it -> the first
    player offered it; else the dealer stays."""
    wall: WallFacts | None = replay.wall_facts
    winners = replay.winners
    started = {ev.seat for ev in openings} | {w.seat for w in winners if _HEAVENLY in w.patterns}
    if len(started) >= 2 and wall is not None and wall.bird_seats:
        return wall.bird_seats[0], Message("two or more players won on the dealt hands: the "
                                           "bird's seat")
    if len(winners) > 1 and winners[0].from_seat is not None:
        return (winners[0].from_seat,
                Message("several players won on one tile: the discarder"))
    if winners:
        return winners[0].seat, cached("the winner")
    if wall is not None:
        if wall.seabed_replaced_by is not None:
            return wall.seabed_replaced_by, Message("the last tile was drawn as a kong replacement")
        if wall.seabed_taker is not None:
            return wall.seabed_taker, Message("nobody won: the player who took the last tile")
        if wall.offers:
            return wall.offers[0].seat, Message("nobody took the last tile: the first offered it")
    return replay.dealer, Message("nobody won: the dealer stays")


def settle(
    replay: HandReplay,
    ruleset: Ruleset,
    base_stake: int = 1,
    *,
    dealer_streak: int = 0,
    explain: bool = True,
) -> Settlement | None:
    """The settlement of a replayed hand; None when the replay stopped on a fatal violation
    (``Outcome.INCOMPLETE``). ``dealer_streak`` is taken for the family's signature: no
    Changsha points depend on it. With ``explain=False`` the ``explanation`` is empty."""
    del dealer_streak
    if base_stake < 1:
        raise ValueError(f"the base stake must be at least 1, not {base_stake}")
    if replay.outcome is Outcome.INCOMPLETE:
        return None
    points = ruleset.points
    dealer = replay.dealer
    book = _Book(replay.n_players, base_stake, explain)
    if base_stake != 1:
        book.say("amounts are points: values x base stake {n}", base_stake)
    openings = _openings(replay, points) if ruleset.small_wins else []
    for ev in openings:
        _pay_opening(book, ev, points, dealer)
    wall = replay.wall_facts
    birds = () if wall is None else wall.bird_seats
    if wall is not None and wall.birds and book.explain:
        book.say("birds: {b:csbird*, }", [
            Message("{t:tile} to seat {seat}", TILE_TEXT[tile], seat)
            for tile, seat in zip(wall.birds, wall.bird_seats, strict=True)])
    wins = tuple(_settle_win(book, win, points, dealer, birds) for win in replay.winners)
    nxt, why = next_dealer_of(replay, openings)
    book.say("next dealer: seat {seat} ({w:cswhy})", nxt, why)
    deltas = book.deltas()
    if explain:
        book.say("deltas: {d:deltapart*, }", [
            Message("seat {seat} {d:n}", seat, f"{d:+d}" if d else "0")
            for seat, d in enumerate(deltas)])
    return Settlement(tuple(book.items), deltas, nxt, tuple(book.lines), wins)


def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The settlement checks of one hand against its recorded result: ``not_zero_sum``,
    ``score_mismatch``, ``item_mismatch``, ``item_sum_mismatch``, ``dealer_mismatch``
    (:func:`zhuoji.rules.ledger.audit_ledger`)."""
    return audit_ledger(settlement, recorded, hand_no)
