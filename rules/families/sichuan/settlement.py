"""The Sichuan settlement: a replayed hand's itemised ledger in event order, its deltas and
the next dealer (``docs/rules/sichuan.md``).

:func:`settle` walks the hand's kongs and wins in the order they happened and writes
transfers ``(payer, payee, amount, reason, detail)`` (:class:`Reason`):

* ``kong`` (刮风下雨): each kong when it is made (a robbed added kong is not made): a
  concealed kong ``points.concealed_kong`` bases from each player still in, an added kong
  ``points.added_kong`` from each, an exposed kong ``points.exposed_kong`` from its
  discarder alone;
* ``win``: each win, worth ``base x 2 ** 番`` (its 番 itemised in the detail, capped), paid
  by the discarder (or the robbed player), or on a self-draw by each other player still in;
  ``self_draw``: 自摸加底's base (or the doubled part under ``self_draw = "double"``);
  点杠花 is a self-draw, or the kong's discarder's alone (``exposed_kong_bloom``);
* ``kong_transfer`` (呼叫转移) or ``kong_refund``: on 杠上炮, the discarder's kong's income
  goes to the winner nearest the discarder, or back to its payers;
* at the wall's end (the hand not over by a win, or a 血战/血流 hand reaching it with two or
  more players in): ``flower_pig`` (查花猪), ``not_ready`` (查大叫) and ``tax_refund`` (退税).

Each seat's delta is the sum of its transfers, so the deltas sum to zero; every amount is a
multiple of ``base_stake``. :func:`audit_result` compares a settlement with what a server
recorded (:func:`zhuoji.rules.ledger.audit_ledger`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.events import KongKind, RecordedResult
from zhuoji.rules.facts import KongFact, Outcome, WinFact
from zhuoji.rules.families.sichuan.patterns import WinFan, best_discard_fan, win_fan
from zhuoji.rules.families.sichuan.settings import Ruleset
from zhuoji.rules.ledger import LedgerItem, WinValue, audit_ledger
from zhuoji.rules.messages import Message
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.tiles import TILE_TEXT
from zhuoji.rules.violations import Violation

__all__ = ["Reason", "Settlement", "audit_result", "next_dealer_of", "settle"]

_SUITED = 27


class Reason(StrEnum):
    """Why a transfer is made (each has its Chinese in the glossary's ``[reason]``)."""

    KONG = "kong"  # 刮风下雨: a kong's payment when made
    WIN = "win"  # a win's value
    SELF_DRAW = "self_draw"  # 自摸加底 (or the doubled part)
    KONG_TRANSFER = "kong_transfer"  # 呼叫转移: 杠上炮 hands the kong's income to the winner
    KONG_REFUND = "kong_refund"  # 杠上炮: the kong's income back to its payers
    FLOWER_PIG = "flower_pig"  # 查花猪
    NOT_READY = "not_ready"  # 查大叫
    TAX_REFUND = "tax_refund"  # 退税


REASONS: tuple[str, ...] = tuple(r.value for r in Reason)
"""The reasons in their order (:attr:`Settlement.reasons`)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled Sichuan hand (a :class:`zhuoji.rules.ledger.Ledger`). ``item_events``
    holds, per item, the index of the event that moved it (a kong, a win; the hand's last
    event for the checks at the wall's end)."""

    items: tuple[LedgerItem, ...]  # event order
    deltas: tuple[int, ...]  # per seat, sums to zero, multiples of base_stake
    next_dealer: int
    explanation: tuple[str, ...]  # lines a referee can read out
    wins: tuple[WinValue, ...] = ()  # one per win, in win order
    item_events: tuple[int, ...] = ()
    fans: tuple[WinFan, ...] = ()  # each win's itemised 番, in win order

    @property
    def reasons(self) -> tuple[str, ...]:
        return REASONS


class _Book:
    """The transfers and the explanation of one hand, as they are written."""

    def __init__(self, n: int, stake: int, explain: bool) -> None:
        self.n = n
        self.stake = stake
        self.explain = explain
        self.items: list[LedgerItem] = []
        self.events: list[int] = []
        self.lines: list[str] = []
        self.at = 0  # the event the items being written belong to

    def say(self, template: str, *values: object) -> None:
        if self.explain:
            self.lines.append(Message(template, *values))

    def pay(self, payer: int, payee: int, value: int, reason: Reason, detail: str) -> int:
        """Write ``value`` x stake from ``payer`` to ``payee`` (nothing for 0); the amount."""
        amount = value * self.stake
        if amount and payer != payee:
            self.items.append(LedgerItem(payer, payee, amount, reason, detail))
            self.events.append(self.at)
            if self.explain:
                self.lines.append(Message("seat {seat} pays seat {p:seat} {n}: {r:reason} "
                                          "({d:scdetail})", payer, payee, amount,
                                          reason.value, detail))
        return amount

    def deltas(self) -> tuple[int, ...]:
        out = [0] * self.n
        for item in self.items:
            out[item.payer] -= item.amount
            out[item.payee] += item.amount
        return tuple(out)


def _after(seat: int, n: int) -> tuple[int, ...]:
    """Every other seat in turn order after ``seat``."""
    return tuple((seat + k) % n for k in range(1, n))


@dataclass
class _Kong:
    """A kong's income as written: who paid it how much (in values, before the stake)."""

    fact: KongFact
    paid: list[tuple[int, int]]  # (payer, value)
    settled: bool = False  # transferred or refunded already


class _Hand:
    def __init__(self, replay: HandReplay, ruleset: Ruleset, book: _Book) -> None:
        self.replay = replay
        self.ruleset = ruleset
        self.book = book
        self.n = replay.n_players
        mech = ruleset.mechanics
        self.leave = mech.play_after_win and not mech.winners_stay  # 血战: a winner leaves
        self.out: set[int] = set()
        self.kongs: list[_Kong] = []
        self.fans: list[WinFan] = []
        self.base = ruleset.points.base

    def still_in(self, seat: int) -> list[int]:
        """The other players still in, in turn order after ``seat``."""
        return [s for s in _after(seat, self.n) if s not in self.out]

    # --- kongs ------------------------------------------------------------------------
    def kong(self, k: KongFact) -> None:
        if k.robbed:
            self.book.say("seat {seat}'s added kong of {t:tile} is robbed: not made, no "
                          "payment", k.seat, TILE_TEXT[k.tile])
            return
        points = self.ruleset.points
        detail = Message("{k:kongkind} {t:tile}, event {e:n}", k.kind.value, TILE_TEXT[k.tile],
                         k.event_index)
        paid: list[tuple[int, int]] = []
        if k.kind is KongKind.EXPOSED:
            assert k.from_seat is not None
            payers = [(k.from_seat, points.exposed_kong)]
        elif k.kind is KongKind.ADDED:
            payers = [(s, points.added_kong) for s in self.still_in(k.seat)]
        else:
            payers = [(s, points.concealed_kong) for s in self.still_in(k.seat)]
        for payer, value in payers:
            if self.book.pay(payer, k.seat, value * self.base, Reason.KONG, detail):
                paid.append((payer, value * self.base))
        self.kongs.append(_Kong(k, paid))

    # --- wins -------------------------------------------------------------------------
    def win(self, w: WinFact, nearest: bool) -> WinValue:
        r = self.ruleset
        counts = [0] * _SUITED
        for tile in w.concealed:
            counts[tile] += 1
        counts[w.tile] += 1
        bloom_kong = self._bloom_kong(w)
        by_discarder = (bloom_kong is not None and bloom_kong.fact.kind is KongKind.EXPOSED
                        and r.exposed_kong_bloom == "discarder")
        self_draw = w.self_drawn and not by_discarder
        fan = win_fan(r, counts, w.melds, w.situational, self_draw, w.tile)
        self.fans.append(fan)
        value = self.base * 2 ** fan.counted
        if w.self_drawn and by_discarder:
            assert bloom_kong is not None and bloom_kong.fact.from_seat is not None
            payers = [bloom_kong.fact.from_seat]
        elif w.self_drawn:
            payers = self.still_in(w.seat)
        else:
            assert w.from_seat is not None
            payers = [w.from_seat]
        detail = _fan_detail(fan, r.fan_cap, w.event_index)
        self.book.say("seat {seat} wins {h:schow}: {f:scfan}", w.seat,
                      _how(w, by_discarder), detail)
        extra = 0
        if self_draw:
            if r.self_draw == "add_base":
                extra = self.base
            elif r.self_draw == "double":
                extra = value
        for payer in payers:
            self.book.pay(payer, w.seat, value, Reason.WIN, detail)
            if extra:
                self.book.pay(payer, w.seat, extra, Reason.SELF_DRAW,
                              Message("event {e:n}", w.event_index))
        if not w.self_drawn and "kong_discard" in w.situational and nearest:
            self._kong_discard(w)
        if self.leave:
            self.out.add(w.seat)
        return WinValue(w.seat, fan.names, value + extra, tuple(payers))

    def _bloom_kong(self, w: WinFact) -> _Kong | None:
        """The kong whose replacement tile the win (杠上花) was drawn on."""
        if not w.kong_bloom:
            return None
        mine = [k for k in self.kongs if k.fact.seat == w.seat]
        return mine[-1] if mine else None

    def _kong_discard(self, w: WinFact) -> None:
        """杠上炮: the discarder's last kong's income goes to the winner (呼叫转移) or back
        to its payers, as the ruleset says."""
        assert w.from_seat is not None
        mine = [k for k in self.kongs if k.fact.seat == w.from_seat]
        if not mine or mine[-1].settled:
            return
        kong = mine[-1]
        how = self.ruleset.kong_discard_income
        if how == "none":  # the income stays with the kong: 退税 may still return it
            return
        kong.settled = True
        detail = Message("{k:kongkind} {t:tile}, event {e:n}", kong.fact.kind.value,
                         TILE_TEXT[kong.fact.tile], kong.fact.event_index)
        if how == "transfer":
            total = sum(value for _, value in kong.paid)
            self.book.pay(w.from_seat, w.seat, total, Reason.KONG_TRANSFER, detail)
        elif how == "refund":
            for payer, value in kong.paid:
                self.book.pay(w.from_seat, payer, value, Reason.KONG_REFUND, detail)

    # --- the wall's end ---------------------------------------------------------------
    def wall_end(self) -> None:
        r = self.ruleset
        replay = self.replay
        voids = replay.declared_suits
        left = [s for s in range(self.n) if s not in self.out]
        pigs: set[int] = set()
        ready: dict[int, tuple[int, int]] = {}
        for s in left:
            facts = replay.seats[s]
            counts = [0] * _SUITED
            for tile in facts.concealed:
                counts[tile] += 1
            held = counts[:]
            for meld in facts.melds:
                for tile in meld.tiles:
                    held[tile] += 1
            suits = {t // 9 for t in range(_SUITED) if held[t]}
            if len(suits) == 3 and r.flower_pig:
                pigs.add(s)
                continue
            void = voids[s] if s < len(voids) else None
            if void is not None:
                v = "mps".index(void.value)
                if any(counts[9 * v:9 * v + 9]):
                    continue
            if len(suits) == 3:
                continue
            best = best_discard_fan(r, counts, facts.melds)
            if best is not None:
                ready[s] = best
        self.book.say("the wall's end: {p:scpig} flower pigs, ready: {r:scready}",
                      len(pigs), ", ".join(str(s) for s in sorted(ready)) or "-")
        if pigs:
            pig_fan = r.flower_pig_fan if r.flower_pig_fan is not None else r.fan_cap
            assert pig_fan is not None
            for pig in sorted(pigs):
                for s in _after(pig, self.n):
                    if s not in pigs and (s in left or r.flower_pig_pays_winners):
                        self.book.pay(pig, s, self.base * 2 ** pig_fan, Reason.FLOWER_PIG,
                                      Message("{f:n} 番", pig_fan))
        not_ready = [s for s in left if s not in pigs and s not in ready]
        if r.not_ready and ready:
            for s in not_ready:
                for t in _after(s, self.n):
                    if t in ready:
                        fan, wait = ready[t]
                        self.book.pay(s, t, self.base * 2 ** fan, Reason.NOT_READY,
                                      Message("{f:n} 番 on {t:tile}", fan, TILE_TEXT[wait]))
        if r.kong_refund:
            for s in not_ready:
                for kong in self.kongs:
                    if kong.fact.seat != s or kong.settled:
                        continue
                    detail = Message("{k:kongkind} {t:tile}, event {e:n}",
                                     kong.fact.kind.value, TILE_TEXT[kong.fact.tile],
                                     kong.fact.event_index)
                    for payer, value in kong.paid:
                        self.book.pay(s, payer, value, Reason.TAX_REFUND, detail)


def _how(w: WinFact, by_discarder: bool) -> Message:
    if w.self_drawn and by_discarder:
        return Message("on seat {seat}'s exposed kong's replacement tile", w.from_seat or 0)
    if w.self_drawn:
        return Message("by self-draw")
    if w.robbed_kong:
        return Message("robbing seat {seat}'s kong", w.from_seat)
    return Message("on seat {seat}'s discard", w.from_seat)


def _fan_detail(fan: WinFan, cap: int | None, event: int) -> Message:
    parts = [Message("{p:pattern} x{c:n} {f:n}", item.pattern.value, item.count, item.fan)
             if item.count > 1 else Message("{p:pattern} {f:n}", item.pattern.value, item.fan)
             for item in fan.items]
    if fan.counted != fan.total:
        return Message("{p:scpart* + } = {t:n} 番, counted {c:n} (cap {k:n}), event {e:n}",
                       parts, fan.total, fan.counted, cap if cap is not None else fan.counted,
                       event)
    return Message("{p:scpart* + } = {t:n} 番, event {e:n}", parts, fan.total, event)


def _tile_groups(wins: tuple[WinFact, ...], n: int) -> list[list[WinFact]]:
    """The wins grouped by the tile they were won on: a self-drawn win alone; the wins on
    one discard (or one robbed kong: 一炮多响), which follow each other in the log, together,
    the winner nearest the discarder in turn order first (a log may list them in any
    order)."""
    groups: list[list[WinFact]] = []
    for w in wins:
        last = groups[-1][-1] if groups else None
        if (last is not None and not w.self_drawn and not last.self_drawn
                and w.from_seat == last.from_seat and w.tile == last.tile
                and w.event_index == last.event_index + 1):
            groups[-1].append(w)
        else:
            groups.append([w])
    for group in groups:
        start = group[0].from_seat
        if start is not None and not group[0].self_drawn:
            group.sort(key=lambda w: (w.seat - start) % n)
    return groups


def next_dealer_of(replay: HandReplay, ruleset: Ruleset) -> tuple[int, str]:
    """The next dealer and why: the first winner; after 一炮多响 as the first win the
    discarder (or the winner nearest it); nobody won: the dealer stays (or the next seat)."""
    n = replay.n_players
    wins = replay.winners
    if not wins:
        if ruleset.dealer_after_draw == "stays":
            return replay.dealer, "nobody won: the dealer stays"
        return (replay.dealer + 1) % n, "nobody won: the next seat deals"
    together = _tile_groups(wins, n)[0]
    first = together[0]
    if len(together) > 1 and first.from_seat is not None:
        if ruleset.dealer_after_multiple == "discarder":
            return first.from_seat, "several players won on one discard: the discarder"
        return first.seat, "several players won on one discard: the winner nearest the discarder"
    return first.seat, "the first winner"


def settle(
    replay: HandReplay,
    ruleset: Ruleset,
    base_stake: int = 1,
    *,
    dealer_streak: int = 0,
    explain: bool = True,
) -> Settlement | None:
    """The settlement of a replayed hand; None when the replay stopped on a fatal violation
    (``Outcome.INCOMPLETE``). With ``explain=False`` the ``explanation`` is empty."""
    del dealer_streak
    if base_stake < 1:
        raise ValueError(f"the base stake must be at least 1, not {base_stake}")
    if replay.outcome is Outcome.INCOMPLETE:
        return None
    n = replay.n_players
    book = _Book(n, base_stake, explain)
    if base_stake != 1:
        book.say("amounts are points: values x base stake {n}", base_stake)
    hand = _Hand(replay, ruleset, book)
    kongs = sorted((k for seat in replay.seats for k in seat.kongs),
                   key=lambda k: k.event_index)
    steps: list[tuple[int, KongFact | WinFact]] = [(k.event_index, k) for k in kongs]
    steps.extend((w.event_index, w) for w in replay.winners)
    steps.sort(key=lambda step: step[0])
    nearest = {id(group[0]) for group in _tile_groups(replay.winners, n)}
    values: list[WinValue] = []
    for at, step in steps:
        book.at = at
        if isinstance(step, KongFact):
            hand.kong(step)
            continue
        values.append(hand.win(step, id(step) in nearest))
    if _wall_end(replay, ruleset, hand):
        book.at = max(replay.events_applied - 1, 0)
        hand.wall_end()
    nxt, why = next_dealer_of(replay, ruleset)
    book.say("next dealer: seat {seat} ({w:scwhy})", nxt, why)
    deltas = book.deltas()
    if explain:
        book.say("deltas: {d:deltapart*, }", [
            Message("seat {seat} {d:n}", seat, f"{d:+d}" if d else "0")
            for seat, d in enumerate(deltas)])
    return Settlement(tuple(book.items), deltas, nxt, tuple(book.lines), tuple(values),
                      tuple(book.events), tuple(hand.fans))


def _wall_end(replay: HandReplay, ruleset: Ruleset, hand: _Hand) -> bool:
    """The hand ran to the wall's end with two or more players in (the checks apply)."""
    if not replay.winners:
        return replay.outcome is Outcome.EXHAUSTIVE_DRAW
    mech = ruleset.mechanics
    if not mech.play_after_win:
        return False
    if replay.wall_left > 0:
        return False
    return len([s for s in range(replay.n_players) if s not in hand.out]) >= 2


def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The settlement checks of one hand against its recorded result (:func:`zhuoji.rules.
    ledger.audit_ledger`)."""
    return audit_ledger(settlement, recorded, hand_no)
