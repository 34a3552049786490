"""Changsha settlement: a hand's itemised ledger, its deltas and the next dealer.

The settlement reads a hand's facts (:class:`HandFacts`: the dealer, the wins with their
小胡 or 大胡 patterns, the 起手小胡 declared on the dealt hands, the bird tiles and the
海底) and the ruleset's ``points`` section (:class:`Points`), and writes transfers
``(payer, payee, amount, reason, detail)``. Each seat's delta is the sum of its transfers,
so the deltas always sum to zero. :func:`audit_result` compares a settlement with what a
server recorded. The rules and the choices made where the seed is silent are in
``docs/rules/changsha_settlement.md``.

Order is fixed: the 起手小胡 by seat (payers in turn order after the declarer), then the
wins in the order they happened (for each: the win, the dealer extra, the birds).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rules.events import RecordedResult
from rules.violations import Violation, ViolationCode

__all__ = [
    "BIG_PATTERNS",
    "OPENING_KINDS",
    "HandFacts",
    "LedgerItem",
    "OpeningWin",
    "Points",
    "Reason",
    "Settlement",
    "Win",
    "audit_result",
    "bird_seat",
    "next_dealer_of",
    "settle_facts",
]

BIG_PATTERNS: tuple[str, ...] = (
    "heavenly", "earthly", "all_pongs", "all_258", "pure_suit", "seabed_draw",
    "seabed_discard", "seven_pairs", "kong_bloom", "robbing_kong", "kong_discard",
)
"""The 大胡 names (the contract's pattern strings)."""

SMALL = "small"
OPENING_KINDS: tuple[str, ...] = ("four_of_a_kind", "no_258", "missing_suit", "two_triplets")
"""The 起手小胡 kinds: 四喜, 板板胡, 缺一色, 六六顺."""


class Points(BaseModel):
    """The ``points`` section: every amount of seed 003's points rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    small_self_draw: int = Field(10, ge=0, description="小胡自摸: each payer pays")
    small_discard: int = Field(10, ge=0, description="小胡捉炮: the discarder pays")
    big_self_draw: int = Field(30, ge=0, description="大胡自摸: each payer pays, per 大胡")
    big_discard: int = Field(60, ge=0, description="大胡捉炮: the discarder pays, per 大胡")
    dealer_extra: int = Field(
        10, ge=0, description="庄家: more, once per win and payer, when either side deals")
    birds: Literal[1, 2, 4] = Field(1, description="扎鸟: bird tiles after a win")
    bird_doubling: Literal["add", "multiply"] = Field(
        "add", description="each bird hit adds the payment once (add) or doubles it (multiply)")
    seabed_tile_is_bird: bool = Field(True, description="海底 win: the 海底 tile is the bird")


class Reason(StrEnum):
    SMALL_WIN = "small_win"
    BIG_WIN = "big_win"
    OPENING_WIN = "opening_win"
    DEALER_EXTRA = "dealer_extra"
    BIRD = "bird"


_REASON_ORDER = {r.value: i for i, r in enumerate(Reason)}


class LedgerItem(NamedTuple):
    payer: int
    payee: int
    amount: int
    reason: Reason
    detail: str


@dataclass(frozen=True, slots=True)
class Win:
    """One win: ``patterns`` are 大胡 names, or ``("small",)`` for a 小胡 (a 小胡 with a
    大胡 counts as the 大胡: ``small`` beside a 大胡 is ignored). ``discarder`` is None
    for a self-draw."""

    seat: int
    patterns: tuple[str, ...]
    discarder: int | None = None


@dataclass(frozen=True, slots=True)
class OpeningWin:
    """起手小胡 declared by ``seat`` on its dealt hand: one entry per kind shown."""

    seat: int
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandFacts:
    n_seats: int
    dealer: int
    wins: tuple[Win, ...] = ()
    openings: tuple[OpeningWin, ...] = ()
    bird_ranks: tuple[int, ...] = ()  # ranks 1-9 of the bird tiles, in draw order
    seabed_rank: int | None = None  # rank of the 海底 tile when the win was on it
    seabed_taker: int | None = None  # who took the 海底 (nobody won on a draw)
    seabed_first_offered: int | None = None  # first player offered the 海底
    seabed_replacement_drawer: int | None = None  # the 海底 used as a replacement draw


@dataclass(frozen=True, slots=True)
class Settlement:
    items: tuple[LedgerItem, ...]
    deltas: tuple[int, ...]
    next_dealer: int
    explanation: tuple[str, ...]
    bird_seats: tuple[int, ...] = ()


def bird_seat(rank: int, dealer: int, n_seats: int) -> int:
    """扎鸟: count from the dealer by the tile's rank (1 the dealer, 2 the next ...)."""
    if not 1 <= rank <= 9:
        raise ValueError(f"a bird tile's rank is 1-9, not {rank}")
    return (dealer + rank - 1) % n_seats


class _Book:
    def __init__(self, n: int) -> None:
        self.n = n
        self.items: list[LedgerItem] = []
        self.lines: list[str] = []

    def pay(self, payer: int, payee: int, amount: int, reason: Reason, detail: str) -> None:
        if amount:
            self.items.append(LedgerItem(payer, payee, amount, reason, detail))
            self.lines.append(f"seat {payer} pays seat {payee} {amount}: {reason.value} ({detail})")

    def deltas(self) -> tuple[int, ...]:
        d = [0] * self.n
        for it in self.items:
            d[it.payer] -= it.amount
            d[it.payee] += it.amount
        return tuple(d)


def _others(seat: int, n: int) -> tuple[int, ...]:
    return tuple((seat + k) % n for k in range(1, n))


def _bird_factor(hits: int, points: Points) -> int:
    """How many extra copies of a payment the bird hits add."""
    if points.bird_doubling == "add":
        return hits
    return int(2**hits) - 1


def _win_value(win: Win, points: Points) -> tuple[Reason, int, str]:
    big = tuple(p for p in win.patterns if p != SMALL)
    for p in big:
        if p not in BIG_PATTERNS:
            raise ValueError(f"seat {win.seat}: unknown pattern {p!r}")
    self_draw = win.discarder is None
    if big:
        each = points.big_self_draw if self_draw else points.big_discard
        return Reason.BIG_WIN, each * len(big), " + ".join(big)
    if SMALL not in win.patterns:
        raise ValueError(f"seat {win.seat}: a win needs a pattern")
    return Reason.SMALL_WIN, points.small_self_draw if self_draw else points.small_discard, SMALL


def settle_facts(facts: HandFacts, points: Points) -> Settlement:
    """The settlement of one hand's facts."""
    n, dealer = facts.n_seats, facts.dealer
    book = _Book(n)
    for op in sorted(facts.openings, key=lambda o: (o.seat - dealer) % n):
        for kind in op.kinds:
            if kind not in OPENING_KINDS:
                raise ValueError(f"seat {op.seat}: unknown 起手小胡 kind {kind!r}")
            for payer in _others(op.seat, n):
                book.pay(payer, op.seat, points.small_self_draw, Reason.OPENING_WIN, kind)
                if dealer in (payer, op.seat):
                    book.pay(payer, op.seat, points.dealer_extra, Reason.DEALER_EXTRA, kind)
    if len(facts.bird_ranks) > points.birds:
        raise ValueError(f"{len(facts.bird_ranks)} bird tiles, the ruleset draws {points.birds}")
    birds: tuple[int, ...] = ()
    if facts.wins:
        ranks = facts.bird_ranks
        if facts.seabed_rank is not None and points.seabed_tile_is_bird:
            ranks = (facts.seabed_rank,)
        birds = tuple(bird_seat(r, dealer, n) for r in ranks)
        if birds:
            book.lines.append("birds on seats " + ", ".join(str(b) for b in birds))
    for win in facts.wins:
        reason, value, detail = _win_value(win, points)
        payers = _others(win.seat, n) if win.discarder is None else (win.discarder,)
        for payer in payers:
            base = value
            book.pay(payer, win.seat, value, reason, detail)
            if dealer in (payer, win.seat):
                base += points.dealer_extra
                book.pay(payer, win.seat, points.dealer_extra, Reason.DEALER_EXTRA, detail)
            # discard win: a bird on the winner or the discarder; self-draw: a bird on
            # the winner (every payer) or on this payer alone
            hits = sum(1 for b in birds if b in (win.seat, payer))
            extra = base * _bird_factor(hits, points)
            hit_text = f"{hits} bird hit{'s' if hits != 1 else ''}"
            book.pay(payer, win.seat, extra, Reason.BIRD, hit_text)
    nxt = next_dealer_of(facts, birds)
    deltas = book.deltas()
    book.lines.append(f"next dealer: seat {nxt}")
    book.lines.append("deltas: " + ", ".join(f"seat {s} {d:+d}" if d else f"seat {s} 0"
                                             for s, d in enumerate(deltas)))
    return Settlement(tuple(book.items), deltas, nxt, tuple(book.lines), birds)


def next_dealer_of(facts: HandFacts, birds: Sequence[int] = ()) -> int:
    """The winner deals; after 通炮 the discarder; with no win: two or more 起手小胡
    declarers -> the one a bird hits (the first bird on a declarer), the 海底 used as a
    replacement -> its drawer, the 海底 taken -> its taker, else the first offered it."""
    wins = facts.wins
    if len(wins) == 1:
        return wins[0].seat
    if len(wins) > 1:
        discarder = wins[0].discarder
        return discarder if discarder is not None else wins[0].seat
    declarers = {o.seat for o in facts.openings}
    if len(declarers) >= 2:
        hit = next((b for b in birds if b in declarers), None)
        if hit is None and facts.bird_ranks:
            hit = next((s for s in (bird_seat(r, facts.dealer, facts.n_seats)
                                    for r in facts.bird_ranks) if s in declarers), None)
        if hit is not None:
            return hit
    for seat in (facts.seabed_replacement_drawer, facts.seabed_taker,
                 facts.seabed_first_offered):
        if seat is not None:
            return seat
    return facts.dealer


def _grouped(items: Iterable[tuple[int, int, str, int]]) -> dict[tuple[int, int, str], int]:
    out: dict[tuple[int, int, str], int] = {}
    for payer, payee, reason, amount in items:
        out[(payer, payee, reason)] = out.get((payer, payee, reason), 0) + amount
    return out


def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The recorded result against the settlement: ``not_zero_sum``, ``score_mismatch``,
    ``item_mismatch`` (items grouped by payer, payee and reason), ``dealer_mismatch``."""
    if recorded is None:
        return ()
    out: list[Violation] = []
    total = sum(recorded.deltas)
    if total:
        out.append(Violation(ViolationCode.NOT_ZERO_SUM, hand_no, None, None,
                             f"the recorded deltas {list(recorded.deltas)} sum to {total}, not 0",
                             fatal=False))
    if settlement is None:
        return tuple(out)
    if tuple(recorded.deltas) != settlement.deltas:
        out.append(Violation(ViolationCode.SCORE_MISMATCH, hand_no, None, None,
                             f"recorded deltas {list(recorded.deltas)}, recomputed "
                             f"{list(settlement.deltas)}", fatal=False))
    if recorded.items is not None:
        ours = _grouped((i.payer, i.payee, i.reason.value, i.amount) for i in settlement.items)
        theirs = _grouped((i.payer, i.payee, i.reason, i.amount) for i in recorded.items)
        keys = sorted(set(ours) | set(theirs),
                      key=lambda k: (k[0], k[1], _REASON_ORDER.get(k[2], 99), k[2]))
        diffs = [f"seat {k[0]} -> seat {k[1]} {k[2]}: recorded {theirs.get(k)}, "
                 f"recomputed {ours.get(k)}" for k in keys if ours.get(k) != theirs.get(k)]
        if diffs:
            out.append(Violation(ViolationCode.ITEM_MISMATCH, hand_no, None, None,
                                 f"{len(diffs)} recorded item group(s) differ from the "
                                 "recomputed ledger: " + "; ".join(diffs), fatal=False))
    if recorded.next_dealer is not None and recorded.next_dealer != settlement.next_dealer:
        out.append(Violation(ViolationCode.DEALER_MISMATCH, hand_no, None, None,
                             f"the record says seat {recorded.next_dealer} deals next; by the "
                             f"rules it is seat {settlement.next_dealer}", fatal=False))
    return tuple(out)
