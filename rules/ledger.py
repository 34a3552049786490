"""The ledger types every family's settlement shares, and the checks of a recorded result.

A family's settlement (``Family.settle``) gives a hand's :class:`Ledger`: transfers
(:class:`LedgerItem`: payer, payee, amount, reason, detail) whose sum per seat is the
seat's delta, the next dealer, lines a referee reads (``explanation``) and one
:class:`WinValue` per win. The reasons are the family's (a ``StrEnum`` of its names, each
with its Chinese in ``rules/glossary.toml`` under ``[reason]``). :func:`audit_ledger` is
the comparison of a ledger with what a server recorded, the same for every family:
``not_zero_sum``, ``score_mismatch``, ``item_mismatch``, ``item_sum_mismatch``,
``dealer_mismatch``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Protocol

from zhuoji.rules.events import RecordedItem, RecordedResult
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.glossary import zh
from zhuoji.rules.messages import Message
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = [
    "ItemKey",
    "Ledger",
    "LedgerItem",
    "WinValue",
    "audit_ledger",
    "format_amount",
    "generate_item_differences",
    "item_nets",
    "reason_order",
    "with_names",
]


class LedgerItem(NamedTuple):
    """One transfer: ``payer`` pays ``payee`` ``amount`` points (a multiple of the stake).

    A named tuple rather than a frozen dataclass: a hand makes about ten, and a tuple is
    several times cheaper to build (just as immutable, and slot-free). ``reason`` is a
    member of the family's reason enum (a ``StrEnum``: its text is its value)."""

    payer: int
    payee: int
    amount: int
    reason: str
    detail: str  # e.g. "flush_all_pungs 清大对 15", "3 x 1s gold"


@dataclass(frozen=True, slots=True)
class WinValue:
    """What one win was worth: the patterns that scored and what each payer paid for it
    (the hand and its bonuses, 杀报 excluded); ``penalty`` marks a 包牌 win, where the
    winner paid ``value`` to each of ``payers`` instead."""

    seat: int
    patterns: tuple[str, ...]
    value: int
    payers: tuple[int, ...]
    penalty: bool = False

    def __init__(
        self,
        seat: int,
        patterns: tuple[str, ...],
        value: int,
        payers: tuple[int, ...],
        penalty: bool = False,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.patterns = patterns  # type: ignore[misc]
        self.value = value  # type: ignore[misc]
        self.payers = payers  # type: ignore[misc]
        self.penalty = penalty  # type: ignore[misc]


quick_init(WinValue)


class Ledger(Protocol):
    """What a family's settlement gives and the flows read (``deltas`` per seat, summing
    to zero; ``items`` in a fixed order; the next dealer; the explanation; the wins) and
    the family's reasons in their order (``reasons``, the same for every settlement of
    the family; each has its Chinese name in the glossary)."""

    @property
    def reasons(self) -> tuple[str, ...]: ...

    @property
    def items(self) -> tuple[LedgerItem, ...]: ...

    @property
    def deltas(self) -> tuple[int, ...]: ...

    @property
    def next_dealer(self) -> int: ...

    @property
    def explanation(self) -> tuple[str, ...]: ...

    @property
    def wins(self) -> tuple[WinValue, ...]: ...


def format_amount(amount: int) -> str:
    """A delta with its sign: ``+3``, ``-16``, ``0``."""
    return f"{amount:+d}" if amount else "0"


_SEAT_RE = re.compile(r"\bseat (\d+)\b")


def with_names(lines: Iterable[str], names: Sequence[str | None]) -> tuple[str, ...]:
    """``lines`` with each ``seat N`` followed by the player's name, when it has one."""

    def name(m: re.Match[str]) -> str:
        seat = int(m[1])
        if seat < len(names) and names[seat]:
            return f"seat {seat} ({names[seat]})"
        return m[0]

    return tuple(_SEAT_RE.sub(name, line) for line in lines)


ItemKey = tuple[int, int, str]
"""(payer, payee, reason) of ledger items compared as one group."""


def _grouped(items: Iterable[tuple[int, int, str, int]]) -> dict[ItemKey, int]:
    out: dict[ItemKey, int] = {}
    for payer, payee, reason, amount in items:
        key = (payer, payee, reason)
        out[key] = out.get(key, 0) + amount
    return out


@lru_cache(maxsize=16)
def reason_order(reasons: tuple[str, ...]) -> Mapping[str, int]:
    """Each of a family's reasons (:attr:`Ledger.reasons`) by its place."""
    return {r: i for i, r in enumerate(reasons)}


def generate_item_differences(
    ledger: Ledger, recorded: RecordedResult
) -> Iterator[tuple[ItemKey, int | None, int | None]]:
    """Ledger items grouped by (payer, payee, reason) whose sums differ between the
    recomputed ledger and the record: ``(key, recomputed, recorded)``, None where a side
    has no such item; in (payer, payee, reason) order (the family's reasons in their
    order, unknown reasons last by name). Nothing if the record is not itemised."""
    if recorded.items is None:
        return
    order_of = reason_order(ledger.reasons)
    last = len(order_of)

    def order(key: ItemKey) -> tuple[int, int, int, str]:
        payer, payee, reason = key
        return (payer, payee, order_of.get(reason, last), reason)

    ours = _grouped((i.payer, i.payee, str(i.reason), i.amount) for i in ledger.items)
    theirs = _grouped((i.payer, i.payee, i.reason, i.amount) for i in recorded.items)
    for key in sorted(set(ours) | set(theirs), key=order):
        a, b = ours.get(key), theirs.get(key)
        if a != b:
            yield key, a, b


def _difference_text(key: ItemKey, ours: int | None, theirs: int | None,
                     known: Mapping[str, int]) -> Message:
    payer, payee, reason = key
    chinese = zh("reason", reason) if reason in known else None
    head = ("seat {payer:seat} -> seat {payee:seat} {r:reason} {c:cjk}" if chinese
            else "seat {payer:seat} -> seat {payee:seat} {r:reason}")
    named: tuple[object, ...] = (payer, payee, reason, chinese) if chinese else (
        payer, payee, reason)
    if theirs is None:
        return Message(head + _MISSING, *named, ours)
    if ours is None:
        return Message(head + _EXTRA, *named, theirs)
    return Message(head + _DIFFERS, *named, theirs, ours)


_MISSING = ": recomputed {a:n}, missing from the record"
_EXTRA = ": recorded {a:n}, not due (extra in the record)"
_DIFFERS = ": recorded {a:n}, recomputed {b:n}"
"""How a recorded item differs from the recomputed ledger, after the item (its payer,
payee and reason: ``[message.itemdiff]``)."""


def audit_ledger(
    ledger: Ledger | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The settlement checks of one hand against its recorded result (non-fatal findings),
    in this order:

    - ``not_zero_sum``: the record's deltas do not sum to zero;
    - ``score_mismatch``: its per-seat deltas differ from the recomputed ones (the message
      names the seats and the differences);
    - ``item_mismatch``: its itemised breakdown (``items``), summed per payer, payee and
      reason, differs from the recomputed ledger (the message names the items that
      differ), whether or not the deltas agree;
    - ``item_sum_mismatch``: its items do not add up to its own deltas (the message names
      each seat's net of the items against its delta);
    - ``dealer_mismatch``: it names another next dealer.

    ``not_zero_sum`` and ``item_sum_mismatch`` look at the record alone, so they are
    reported for a hand that could not be settled too; the others need the ledger.
    A record without ``items`` is compared on its deltas and next dealer only."""
    if recorded is None:
        return ()
    out: list[Violation] = []
    total = sum(recorded.deltas)
    if total:
        out.append(Violation(
            ViolationCode.NOT_ZERO_SUM, hand_no, None, None,
            Message("the recorded deltas {l:list} sum to {n}, not 0", list(recorded.deltas),
                    total), fatal=False,
        ))
    if ledger is not None:
        score = _score_mismatch(ledger, recorded, hand_no)
        if score is not None:
            out.append(score)
        known = reason_order(ledger.reasons)
        items = [_difference_text(*d, known) for d in generate_item_differences(ledger, recorded)]
        if items:
            n = len(items)
            out.append(Violation(
                ViolationCode.ITEM_MISMATCH, hand_no, None, None,
                Message("1 recorded item differs from the recomputed ledger: {d:itemdiff*; }",
                        items) if n == 1 else
                Message("{n} recorded items differ from the recomputed ledger: "
                        "{d:itemdiff*; }", n, items), fatal=False,
            ))
    unbalanced = _item_sum_mismatch(recorded, hand_no)
    if unbalanced is not None:
        out.append(unbalanced)
    if (ledger is not None and recorded.next_dealer is not None
            and recorded.next_dealer != ledger.next_dealer):
        out.append(Violation(
            ViolationCode.DEALER_MISMATCH, hand_no, None, None,
            Message("the record says seat {seat} deals next; by the rules it is seat "
                    "{other:seat}", recorded.next_dealer, ledger.next_dealer), fatal=False,
        ))
    return tuple(out)


def _score_mismatch(ledger: Ledger, recorded: RecordedResult, hand_no: int) -> Violation | None:
    ours, theirs = ledger.deltas, recorded.deltas
    if tuple(theirs) == ours:
        return None
    if len(theirs) != len(ours):
        text = Message("the record has {n} deltas {l:list} for {m:n} seats; recomputed "
                       "{l2:list}", len(theirs), list(theirs), len(ours), list(ours))
    else:
        diffs = [
            Message("seat {seat}: recorded {a:n}, recomputed {b:n} (off by {d:n})", s,
                    format_amount(theirs[s]), format_amount(ours[s]),
                    format_amount(theirs[s] - ours[s]))
            for s in range(len(ours)) if theirs[s] != ours[s]
        ]
        text = Message("recorded deltas differ: {d:seatdiff*; }", diffs)
    seats = [s for s in range(min(len(ours), len(theirs))) if ours[s] != theirs[s]]
    seat = seats[0] if len(seats) == 1 else None
    return Violation(ViolationCode.SCORE_MISMATCH, hand_no, None, seat, text, fatal=False)


def item_nets(items: Iterable[RecordedItem], n_seats: int) -> list[int]:
    """What the items give each of ``n_seats`` seats on balance (received minus paid);
    raises ``ValueError`` for an item naming a seat outside ``range(n_seats)``."""
    nets = [0] * n_seats
    for item in items:
        for seat in (item.payer, item.payee):
            if not 0 <= seat < n_seats:
                raise ValueError(Message(
                    "the recorded item {payer:seat} -> {payee:seat} {r:reason} {a:n} names "
                    "seat {seat}, the record has {m:n} deltas", item.payer, item.payee,
                    item.reason, item.amount, seat, n_seats))
        nets[item.payer] -= item.amount
        nets[item.payee] += item.amount
    return nets


def _item_sum_mismatch(recorded: RecordedResult, hand_no: int) -> Violation | None:
    if recorded.items is None:
        return None
    deltas = recorded.deltas
    try:
        nets = item_nets(recorded.items, len(deltas))
    except ValueError as exc:
        reason = exc.args[0] if len(exc.args) == 1 else None  # a Message
        return Violation(ViolationCode.ITEM_SUM_MISMATCH, hand_no, None, None,
                         reason if isinstance(reason, Message) else str(exc), fatal=False)
    seats = [s for s in range(len(deltas)) if nets[s] != deltas[s]]
    if not seats:
        return None
    diffs = [
        Message("seat {seat}: items {a:n}, delta {b:n}", s, format_amount(nets[s]),
                format_amount(deltas[s]))
        for s in seats
    ]
    return Violation(
        ViolationCode.ITEM_SUM_MISMATCH, hand_no, None, seats[0] if len(seats) == 1 else None,
        Message("the recorded items do not add up to the recorded deltas: {d:sumdiff*; }",
                diffs),
        fatal=False,
    )
