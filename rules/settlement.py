"""Settlement: a replayed hand's ledger of transfers, its deltas and the next dealer.

:func:`settle` reads what a replay found (:class:`~rules.replay.HandReplay`) and the
ruleset's settlement settings, and writes the hand's ledger: transfers
``(payer, payee, amount, reason, detail)`` whose reasons are the names of RULES.md
(:class:`Reason`). Each seat's delta is the sum of its transfers, so the deltas always sum
to zero; every amount is a value of the ruleset times ``base_stake``. The settlement also
says who deals next, what each seat's chickens were, and holds an explanation: lines a
referee can read out. :func:`audit_result` compares a settlement with what a server
recorded. The steps, one per reason, are described in ``docs/rules/settlement.md``.

Order is fixed: the wins in the order they happened (for each: the hand and its bonuses,
payers in turn order after the winner), then kongs by seat and event, then chickens by
seat, responsibility chickens and 包鸡; at an exhaustive draw 查叫 and then chickens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from rules.events import KongKind, RecordedResult
from rules.facts import ClaimKind, KongFact, Outcome, SeatFacts, WinFact
from rules.hand import generate_wins
from rules.melds import MeldKind
from rules.patterns import Pattern
from rules.replay import HandReplay
from rules.ruleset import (
    BonusMode,
    ChickenScope,
    DrawChickens,
    DrawDealer,
    Forfeit,
    HandValuation,
    KongPayer,
    MultiWinDealer,
    ReadyValueMode,
    Ruleset,
)
from rules.tiles import Tile, counts_of, format_tiles
from rules.violations import Violation, ViolationCode

__all__ = [
    "REASON_CHINESE",
    "ChickenCount",
    "ChickenKind",
    "LedgerItem",
    "Reason",
    "Settlement",
    "WinValue",
    "audit_result",
    "best_waiting_value",
    "format_amount",
    "generate_item_differences",
    "next_dealer_of",
    "settle",
    "with_names",
]


class Reason(StrEnum):
    """Why a transfer is made: exactly RULES.md's reason names."""

    HAND = "hand"
    SELF_DRAW = "self_draw"
    KONG_BLOOM = "kong_bloom"
    EXPOSED_KONG = "exposed_kong"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    CHICKEN = "chicken"
    CHARGING_CHICKEN = "charging_chicken"
    RESPONSIBILITY_CHICKEN = "responsibility_chicken"
    CHICKEN_PENALTY = "chicken_penalty"
    HOT_DISCARD = "hot_discard"
    ROBBED_KONG = "robbed_kong"
    READY_CHECK = "ready_check"
    DEALER = "dealer"
    DEALER_STREAK = "dealer_streak"
    DECLARED_READY = "declared_ready"
    KILL_READY = "kill_ready"
    FALSE_HAND = "false_hand"

    @property
    def chinese(self) -> str:
        return REASON_CHINESE[self]


REASON_CHINESE: Mapping[Reason, str] = MappingProxyType({
    Reason.HAND: "胡牌",
    Reason.SELF_DRAW: "自摸",
    Reason.KONG_BLOOM: "杠上开花",
    Reason.EXPOSED_KONG: "点豆",
    Reason.CONCEALED_KONG: "闷豆",
    Reason.ADDED_KONG: "转弯豆",
    Reason.CHICKEN: "鸡",
    Reason.CHARGING_CHICKEN: "冲锋鸡",
    Reason.RESPONSIBILITY_CHICKEN: "责任鸡",
    Reason.CHICKEN_PENALTY: "包鸡",
    Reason.HOT_DISCARD: "热炮",
    Reason.ROBBED_KONG: "抢杠",
    Reason.READY_CHECK: "查叫",
    Reason.DEALER: "坐庄",
    Reason.DEALER_STREAK: "连庄",
    Reason.DECLARED_READY: "报听",
    Reason.KILL_READY: "杀报",
    Reason.FALSE_HAND: "相公",
})
"""The Chinese term of each reason, shown beside the English name."""

_REASON_ORDER: Mapping[str, int] = MappingProxyType({r.value: i for i, r in enumerate(Reason)})

_KONG_REASON: Mapping[KongKind, Reason] = MappingProxyType({
    KongKind.EXPOSED: Reason.EXPOSED_KONG,
    KongKind.CONCEALED: Reason.CONCEALED_KONG,
    KongKind.ADDED: Reason.ADDED_KONG,
})
_KONG_CHINESE: Mapping[KongKind, str] = MappingProxyType({
    KongKind.EXPOSED: "点豆",
    KongKind.CONCEALED: "闷豆",
    KongKind.ADDED: "转弯豆",
})


@dataclass(frozen=True, slots=True)
class LedgerItem:
    """One transfer: ``payer`` pays ``payee`` ``amount`` points (a multiple of the stake)."""

    payer: int
    payee: int
    amount: int
    reason: Reason
    detail: str  # e.g. "flush_all_pungs 清大对 15", "3 x 1s gold"


class ChickenKind(StrEnum):
    """How a chicken was counted (the warehouse has one column per kind)."""

    STANDING = "standing"  # 常鸡 (and the 万能鸡 wildcard, tile W)
    FLIPPED = "flipped"  # 翻鸡
    GOLD = "gold"  # 金鸡: a standing chicken the flip also names
    CHARGING = "charging"  # 冲锋鸡
    RESPONSIBILITY = "responsibility"  # 责任鸡 (counted for the claimer who is paid)


@dataclass(frozen=True, slots=True)
class ChickenCount:
    """Chickens of one kind and tile a seat was paid for."""

    seat: int
    kind: ChickenKind
    tile: Tile
    count: int


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


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled hand."""

    items: tuple[LedgerItem, ...]  # deterministic order
    deltas: tuple[int, ...]  # per seat, sums to zero, multiples of base_stake
    next_dealer: int
    chickens: tuple[ChickenCount, ...]  # what each seat's chickens were, for statistics
    explanation: tuple[str, ...]  # lines a referee can read out
    wins: tuple[WinValue, ...] = ()  # one per win, in win order


def format_amount(amount: int) -> str:
    """A delta with its sign: ``+3``, ``-16``, ``0``."""
    return f"{amount:+d}" if amount else "0"


def _seats_text(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats)


def _each_of(seats: Sequence[int]) -> str:
    """``seat 2`` or ``each of seats 1, 2, 3``."""
    return _seats_text(seats) if len(seats) == 1 else "each of " + _seats_text(seats)


def _others(seat: int, n: int) -> tuple[int, ...]:
    """Every other seat in turn order after ``seat``."""
    return tuple((seat + k) % n for k in range(1, n))


_Pays = Callable[[int, int], bool]
"""Whether a responsibility chicken is paid: (claimer, discarder) -> paid."""

_SEAT_RE = re.compile(r"\bseat (\d+)\b")


def with_names(lines: Iterable[str], names: Sequence[str | None]) -> tuple[str, ...]:
    """``lines`` with each ``seat N`` followed by the player's name, when it has one."""

    def name(m: re.Match[str]) -> str:
        seat = int(m[1])
        if seat < len(names) and names[seat]:
            return f"seat {seat} ({names[seat]})"
        return m[0]

    return tuple(_SEAT_RE.sub(name, line) for line in lines)


# --------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------


def _pattern_text(pattern: Pattern, value: int) -> str:
    return f"{pattern.value} {pattern.chinese} {value}"


def _best_shape(shape: Iterable[Pattern], ruleset: Ruleset) -> tuple[Pattern, int]:
    """The highest-valued shape pattern (ties: the first in pattern order); plain at least."""
    values = ruleset.patterns
    best, best_value = Pattern.PLAIN, values.plain
    for pattern in shape:
        value = values.value_of(pattern.value)
        if value > best_value:
            best, best_value = pattern, value
    return best, best_value


def best_waiting_value(seat: SeatFacts, ruleset: Ruleset) -> tuple[Tile, Pattern, int] | None:
    """查叫: a ready seat's best waiting hand, ``(wait, pattern, value)``, without
    situational values; the first wait in tile order among equals. None if not ready."""
    if not seat.ready or seat.won:
        return None
    best: tuple[Tile, Pattern, int] | None = None
    for tile, shape in generate_wins(counts_of(seat.concealed), seat.melds):
        pattern, value = _best_shape(shape, ruleset)
        if best is None or value > best[2]:
            best = (tile, pattern, value)
    return best


@dataclass(frozen=True, slots=True)
class _Part:
    """One component of a win's value, paid by each payer."""

    reason: Reason
    value: int
    text: str  # "flush_all_pungs 清大对 15"
    pattern: str | None = None  # the pattern (or bonus) name that scored


def _declared_value(seat: SeatFacts, ruleset: Ruleset) -> int:
    ready = ruleset.ready
    return ready.hard_value if seat.hard_ready else ready.soft_value


def _hot_kong(replay: HandReplay, win: WinFact) -> KongFact | None:
    """The kong the discarder made just before a hot discard."""
    assert win.from_seat is not None
    kongs = [k for k in replay.seats[win.from_seat].kongs if k.event_index < win.event_index]
    return max(kongs, key=lambda k: k.event_index) if kongs else None


def _hand_parts(
    replay: HandReplay, win: WinFact, ruleset: Ruleset, streak: int
) -> tuple[tuple[_Part, ...], tuple[str, ...]]:
    """The components of one win's value (before the stake), in ledger order, and the
    names of the patterns that scored."""
    bonuses = ruleset.bonuses
    pattern_mode = bonuses.mode is BonusMode.PATTERN
    values = ruleset.patterns
    if win.robbed_kong:
        valued_as = ruleset.robbed_kong.valued_as
        why = "抢杠"
    elif win.hot_discard:
        valued_as = ruleset.hot_discard.valued_as
        why = "热炮"
    else:
        valued_as = HandValuation.PATTERN
        why = ""
    if valued_as is HandValuation.PLAIN:
        pattern, value = Pattern.PLAIN, values.plain
    elif valued_as is HandValuation.FULL_FLUSH:
        pattern, value = Pattern.FULL_FLUSH, values.full_flush
    else:
        pattern, value = _best_shape(win.shape, ruleset)
    text = _pattern_text(pattern, value)
    if valued_as is not HandValuation.PATTERN:
        text += f" ({why} valued as {valued_as.value})"
    scored = [pattern.value]
    hot = _hot_kong(replay, win) if win.hot_discard else None
    hot_value = ruleset.hot_discard.value_after(hot.kind) if hot is not None else 0
    situational: list[tuple[Pattern, int]] = []
    if win.kong_bloom:
        situational.append((Pattern.KONG_BLOOM, bonuses.kong_bloom))
    if win.heavenly:
        situational.append((Pattern.HEAVENLY, bonuses.heavenly))
    if win.earthly:
        situational.append((Pattern.EARTHLY, bonuses.earthly))
    if win.hot_discard:
        situational.append((Pattern.HOT_DISCARD, hot_value))
    parts: list[_Part] = []
    extra: list[_Part] = []
    if pattern_mode:
        # 遵义: the situational values compete with the shape; the hand is paid its best.
        for sit, sit_value in situational:
            if sit_value > value:
                pattern, value, text = sit, sit_value, _pattern_text(sit, sit_value)
                scored = [sit.value]
    else:
        for sit, sit_value in situational:
            if not sit_value:
                continue
            if sit in (Pattern.HEAVENLY, Pattern.EARTHLY):
                value += sit_value
                text += " + " + _pattern_text(sit, sit_value)
                scored.append(sit.value)
            elif sit is Pattern.KONG_BLOOM:
                extra.append(_Part(Reason.KONG_BLOOM, sit_value,
                                   _pattern_text(sit, sit_value), sit.value))
            else:
                assert hot is not None
                extra.append(_Part(Reason.HOT_DISCARD, sit_value,
                                   f"{_pattern_text(sit, sit_value)} after a {hot.kind} kong "
                                   f"{_KONG_CHINESE[hot.kind]} of {hot.tile}", sit.value))
    declared: _Part | None = None
    if win.declared_ready:
        seat = replay.seats[win.seat]
        dv = _declared_value(seat, ruleset)
        kind = "硬报" if seat.hard_ready else "软听"
        if ruleset.ready.value_mode is ReadyValueMode.AT_LEAST:
            if dv > value:
                text += f", raised to declared_ready 报听 {dv} ({kind}: at least {dv})"
                value = dv
                scored.append(Pattern.DECLARED_READY.value)
        elif dv:
            declared = _Part(Reason.DECLARED_READY, dv, f"declared_ready 报听 {dv} ({kind})",
                             Pattern.DECLARED_READY.value)
    parts.append(_Part(Reason.HAND, value, text))
    as_self_draw = win.robbed_kong and ruleset.robbed_kong.counts_as_self_draw
    if (win.self_drawn or as_self_draw) and bonuses.self_draw:
        how = "self_draw 自摸" + (" (抢杠 counts as self-draw)" if as_self_draw else "")
        parts.append(_Part(Reason.SELF_DRAW, bonuses.self_draw, f"{how} {bonuses.self_draw}",
                           "self_draw"))
    parts.extend(extra)
    if win.robbed_kong and ruleset.robbed_kong.bonus:
        bonus = ruleset.robbed_kong.bonus
        parts.append(_Part(Reason.ROBBED_KONG, bonus, f"robbing_kong 抢杠 {bonus}",
                           Pattern.ROBBING_KONG.value))
    if declared is not None:
        parts.append(declared)
    if win.seat == replay.dealer:
        dealer = ruleset.dealer
        if dealer.bonus:
            parts.append(_Part(Reason.DEALER, dealer.bonus, f"dealer 坐庄 {dealer.bonus}"))
        if streak and dealer.streak_bonus:
            sv = streak * dealer.streak_bonus
            parts.append(_Part(Reason.DEALER_STREAK, sv,
                               f"dealer_streak 连庄 {streak} x {dealer.streak_bonus} = {sv}"))
    # The pattern names that scored, situational ones included, for the WinValue.
    for part in parts[1:]:
        if part.pattern is not None and part.pattern not in scored:
            scored.append(part.pattern)
    return tuple(parts), tuple(scored)


# --------------------------------------------------------------------------------------
# the settler
# --------------------------------------------------------------------------------------


class _Ledger:
    """Collects transfers (scaled by the stake, zero amounts dropped) and the explanation."""

    def __init__(self, n: int, stake: int) -> None:
        self.n = n
        self.stake = stake
        self.items: list[LedgerItem] = []
        self.lines: list[str] = []
        self.chickens: list[ChickenCount] = []

    def pay(self, payer: int, payee: int, value: int, reason: Reason, detail: str) -> int:
        """Add a transfer of ``value`` (before the stake); returns the points paid."""
        amount = value * self.stake
        if amount and payer != payee:
            self.items.append(LedgerItem(payer, payee, amount, reason, detail))
            return amount
        return 0

    def say(self, line: str) -> None:
        self.lines.append(line)

    def deltas(self) -> tuple[int, ...]:
        out = [0] * self.n
        for item in self.items:
            out[item.payer] -= item.amount
            out[item.payee] += item.amount
        return tuple(out)


def _win_headline(win: WinFact, replay: HandReplay) -> str:
    if win.self_drawn:
        how = " (杠上开花 on a kong replacement)" if win.kong_bloom else ""
        return f"seat {win.seat} won by self-draw on {win.tile}{how}"
    if win.robbed_kong:
        return f"seat {win.seat} robbed seat {win.from_seat}'s added kong of {win.tile} (抢杠)"
    hot = " (热炮: right after that player's kong)" if win.hot_discard else ""
    return f"seat {win.seat} won on seat {win.from_seat}'s discard {win.tile}{hot}"


def _is_missed_win(replay: HandReplay, win: WinFact) -> bool:
    """The win came after the winner let a win pass (the replay's ``missed_win``)."""
    return any(
        v.code is ViolationCode.MISSED_WIN and v.event_index == win.event_index
        and v.seat == win.seat
        for v in replay.violations
    )


class _Settler:
    def __init__(self, replay: HandReplay, ruleset: Ruleset, stake: int, streak: int) -> None:
        self.replay = replay
        self.rs = ruleset
        self.n = replay.n_players
        self.streak = streak
        self.book = _Ledger(self.n, stake)
        self.pts = stake  # points per value unit
        self.no_kongs: set[int] = set()  # seats whose every kong is forfeited
        self.no_kong_at: set[int] = set()  # event indexes of single forfeited kongs
        self.no_chickens: set[int] = set()  # seats whose chickens are forfeited (全烧)
        self.wins: list[WinValue] = []

    # ----------------------------------------------------------------- helpers
    def collects(self, seat: SeatFacts) -> bool:
        """Kongs' and chickens' 双杀 test: the seat won or is ready at the end."""
        return seat.won or seat.ready

    def _forfeit(self, seat: int, forfeit: Forfeit, kong: KongFact | None, why: str) -> None:
        if seat in self.no_chickens or (seat in self.no_kongs
                                        and forfeit is not Forfeit.KONGS_AND_CHICKENS):
            return  # already forfeited (another winner on the same tile)
        if forfeit is Forfeit.KONG:
            if kong is not None and kong.event_index not in self.no_kong_at:
                self.no_kong_at.add(kong.event_index)
                self.book.say(f"seat {seat}'s {kong.kind} kong {_KONG_CHINESE[kong.kind]} of "
                              f"{kong.tile} does not score ({why})")
            return
        self.no_kongs.add(seat)
        if forfeit is Forfeit.ALL_KONGS:
            self.book.say(f"none of seat {seat}'s kongs score ({why}: 烧豆)")
        else:
            self.no_chickens.add(seat)
            self.book.say(f"none of seat {seat}'s kongs or chickens score ({why}: 全烧)")

    # ----------------------------------------------------------------- wins
    def settle_win(self, win: WinFact) -> None:
        replay, rs, book = self.replay, self.rs, self.book
        parts, scored = _hand_parts(replay, win, rs, self.streak)
        per_payer = sum(p.value for p in parts)
        headline = _win_headline(win, replay)
        if rs.penalties.missed_win and not win.self_drawn and _is_missed_win(replay, win):
            # 包牌: the winner let a win pass and won before drawing again: it pays its
            # hand value to every other player instead of being paid.
            hand = parts[0]
            payees = _others(win.seat, self.n)
            for payee in payees:
                book.pay(win.seat, payee, hand.value, Reason.HAND,
                         f"包牌: {hand.text}, paid by the winner")
            book.say(f"{headline}, but it had let a win pass since its last discard (包牌): "
                     f"it pays its hand {hand.text} to {_each_of(payees)} "
                     f"({hand.value * self.pts * len(payees)} in all)")
            self.wins.append(WinValue(win.seat, scored, hand.value * self.pts, payees,
                                      penalty=True))
            return
        if win.self_drawn:
            payers: tuple[int, ...] = _others(win.seat, self.n)
            shares = 1
        else:
            assert win.from_seat is not None
            payers = (win.from_seat,)
            shares = self.n - 1 if win.robbed_kong and rs.robbed_kong.robbed_pays_for_all else 1
        for payer in payers:
            for part in parts:
                detail = part.text
                if shares > 1:
                    detail += f" x {shares} (包三家: for every other player)"
                book.pay(payer, win.seat, part.value * shares, part.reason, detail)
        formula = " + ".join(p.text for p in parts if p.value)
        total = per_payer * self.pts
        if win.self_drawn:
            paid = f"paid by {_each_of(payers)} ({total * len(payers)} in all)"
        elif shares > 1:
            paid = (f"paid by seat {payers[0]} for all {shares} other players (包三家): "
                    f"{total * shares}")
        else:
            paid = f"paid by seat {payers[0]}"
        stake = f" x stake {self.pts}" if self.pts != 1 else ""
        book.say(f"{headline}: {formula} = {per_payer}{stake}, {paid}")
        self.wins.append(WinValue(win.seat, scored, total, payers))
        if win.kill_ready and rs.ready.kill_ready and not win.self_drawn:
            assert win.from_seat is not None
            declarer = replay.seats[win.from_seat]
            dv = _declared_value(declarer, rs)
            kind = "硬报" if declarer.hard_ready else "软听"
            if book.pay(win.from_seat, win.seat, dv, Reason.KILL_READY,
                        f"kill_ready 杀报 {dv}: seat {win.from_seat} had declared ready ({kind})"):
                book.say(f"seat {win.from_seat} had declared ready ({kind}) and dealt the win "
                         f"(杀报): it also pays seat {win.seat} {dv * self.pts}")
        if win.hot_discard:
            assert win.from_seat is not None
            self._forfeit(win.from_seat, rs.hot_discard.forfeit, _hot_kong(replay, win),
                          "热炮: the discard after it dealt the win")
        if win.robbed_kong:
            assert win.from_seat is not None
            if rs.robbed_kong.forfeit is not Forfeit.KONG:
                self._forfeit(win.from_seat, rs.robbed_kong.forfeit, None, "its kong was robbed")

    # ----------------------------------------------------------------- kongs
    def settle_kongs(self) -> None:
        rs, book = self.rs, self.book
        for seat in self.replay.seats:
            for kong in seat.kongs:
                name = (f"seat {seat.seat}'s {kong.kind} kong {_KONG_CHINESE[kong.kind]} of "
                        f"{kong.tile}")
                if kong.robbed:
                    book.say(f"{name} was robbed (抢杠) and does not stand")
                    continue
                if seat.seat in self.no_kongs or kong.event_index in self.no_kong_at:
                    continue  # said when forfeited
                if kong.delayed and not rs.kongs.delayed_scores:
                    book.say(f"{name} was made late (憨包豆): a pass only, it scores nothing")
                    continue
                if rs.kongs.need_ready and not self.collects(seat):
                    book.say(f"{name} does not score: seat {seat.seat} neither won nor is "
                             f"ready (双杀)")
                    continue
                value = rs.kongs.value_of(kong.kind)
                if kong.kind is KongKind.EXPOSED and rs.kongs.exposed_payer is KongPayer.DISCARDER:
                    assert kong.from_seat is not None
                    payers: tuple[int, ...] = (kong.from_seat,)
                else:
                    payers = _others(seat.seat, self.n)
                reason = _KONG_REASON[kong.kind]
                for payer in payers:
                    book.pay(payer, seat.seat, value, reason,
                             f"{kong.kind} kong {_KONG_CHINESE[kong.kind]} {kong.tile}")
                if value:
                    book.say(f"{name}: {value * self.pts} from {_each_of(payers)}")

    # ----------------------------------------------------------------- chickens
    def _held(self, seat: SeatFacts) -> list[Tile]:
        """The tiles a seat holds at the end: concealed, a won discard, melds."""
        tiles = list(seat.concealed)
        for win in self.replay.winners:
            if win.seat == seat.seat and not win.self_drawn:
                tiles.append(win.tile)
        return tiles

    def _chicken_groups(
        self, seat: SeatFacts, flipped: Tile | None, gold: Tile | None
    ) -> list[tuple[ChickenKind, Tile, int, int, str]]:
        """A collecting seat's chickens: (kind, tile, count, value each, text) groups."""
        ch = self.rs.chickens
        charging = self.charging_of(seat.seat)
        held = counts_of(self._held(seat))
        for meld in seat.melds:
            held[meld.tile] += 4 if meld.is_kong else 3
        if ch.scope is ChickenScope.HAND_AND_DISCARDS:
            for d in seat.discards:
                if d.claimed_by is None and (d.event_index, d.tile) not in charging:
                    held[d.tile] += 1
        concealed_kongs = {m.tile for m in seat.melds if m.kind is MeldKind.CONCEALED_KONG}
        groups: list[tuple[ChickenKind, Tile, int, int, str]] = []
        tiles: list[Tile] = list(ch.standing_tiles)
        if flipped is not None and flipped not in tiles:
            tiles.append(flipped)
        for tile in tiles:
            standing = ch.standing_of(tile)
            count = held[tile]
            if not count:
                continue
            mult = ch.gold_multiplier if tile is gold else 1
            if standing is not None:
                kind = ChickenKind.GOLD if tile is gold else ChickenKind.STANDING
                unit = standing.value * mult
                label = f"{tile} gold 金鸡" if tile is gold else f"{tile}"
            else:
                kind, unit, label = ChickenKind.FLIPPED, ch.flip_value, f"{tile} flipped 翻鸡"
            if ch.concealed_kong_value and tile in concealed_kongs:
                value = ch.concealed_kong_value * mult
                groups.append((kind, tile, 4, value,
                               f"concealed kong of {label} (闷鸡) {value}"))
                count -= 4
            if count:
                groups.append((kind, tile, count, unit * count, f"{count} x {label} ({unit})"))
        wild = held[Tile.W]
        if wild and ch.wildcard_value:
            groups.append((ChickenKind.STANDING, Tile.W, wild, wild * ch.wildcard_value,
                           f"{wild} x W wildcard 万能鸡 ({ch.wildcard_value})"))
        for _index, tile in sorted(charging):
            standing = ch.standing_of(tile)
            assert standing is not None
            value = standing.charging * (ch.gold_multiplier if tile is gold else 1)
            gold_text = " gold" if tile is gold else ""
            groups.append((ChickenKind.CHARGING, tile, 1, value,
                           f"charging{gold_text} {tile} 冲锋鸡 ({value})"))
        return groups

    def charging_of(self, seat: int) -> set[tuple[int, Tile]]:
        """(event index, tile) of the seat's charging chickens: first discards of a
        standing tile with a charging value, left unclaimed."""
        out: set[tuple[int, Tile]] = set()
        for cd in self.replay.chicken_discards:
            standing = self.rs.chickens.standing_of(cd.tile)
            if (cd.seat == seat and cd.claimed_by is None and standing is not None
                    and standing.charging):
                out.add((cd.event_index, cd.tile))
        return out

    def flip_chicken(self) -> tuple[Tile | None, Tile | None]:
        """The flipped chicken tile and the gold one (a standing tile the flip names)."""
        flip = self.replay.flip
        if flip is None:
            if self.rs.flip_chicken:
                self.book.say("no tile was flipped (the wall is empty): standing chickens only")
            return None, None
        if flip.is_wild:
            self.book.say("the flip is a wildcard W: no flipped chicken")
            return None, None
        tile = flip.next_in_suit()
        if self.rs.chickens.standing_of(tile) is not None:
            mult = self.rs.chickens.gold_multiplier
            self.book.say(f"flip {flip}: {tile} is the chicken, a standing one: gold 金鸡, "
                          f"its amounts x {mult}")
            return tile, tile
        self.book.say(f"flip {flip}: {tile} is the flipped chicken 翻鸡 "
                      f"({self.rs.chickens.flip_value * self.pts} each)")
        return tile, None

    def settle_chickens(self) -> None:
        rs, book = self.rs, self.book
        ch = rs.chickens
        flipped, gold = self.flip_chicken()
        self.explain_charging()
        seats = self.replay.seats
        for seat in seats:
            if seat.seat in self.no_chickens:
                continue
            groups = self._chicken_groups(seat, flipped, gold)
            if not groups:
                continue
            if ch.need_ready and not self.collects(seat):
                text = ", ".join(g[4] for g in groups)
                book.say(f"seat {seat.seat}'s chickens ({text}) do not score: it neither won "
                         f"nor is ready (双杀)")
                continue
            self._pay_groups(seat.seat, groups, _others(seat.seat, self.n))
        self.settle_responsibility(gold, lambda claimer, discarder: (
            claimer not in self.no_chickens
            and (not ch.need_ready or self.collects(seats[claimer]))))
        if ch.penalty:
            self.settle_penalty(gold)

    def _pay_groups(self, seat: int, groups: list[tuple[ChickenKind, Tile, int, int, str]],
                    payers: Sequence[int]) -> None:
        book = self.book
        total = 0
        for kind, tile, count, value, text in groups:
            reason = Reason.CHARGING_CHICKEN if kind is ChickenKind.CHARGING else Reason.CHICKEN
            for payer in payers:
                total += book.pay(payer, seat, value, reason, text)
            book.chickens.append(ChickenCount(seat, kind, tile, count))
        each = sum(g[3] for g in groups) * self.pts
        text = ", ".join(g[4] for g in groups)
        book.say(f"seat {seat}'s chickens: {text} = {each} from {_each_of(payers)}")

    def settle_responsibility(self, gold: Tile | None, pays: _Pays) -> None:
        ch = self.rs.chickens
        for cd in self.replay.chicken_discards:
            standing = ch.standing_of(cd.tile)
            if standing is None or not standing.responsibility or cd.claimed_by is None:
                continue
            if cd.claim not in (ClaimKind.PONG, ClaimKind.EXPOSED_KONG):
                continue
            claimed = "ponged" if cd.claim is ClaimKind.PONG else "konged"
            value = standing.responsibility * (ch.gold_multiplier if cd.tile is gold else 1)
            head = (f"the first {cd.tile} was discarded by seat {cd.seat} (event "
                    f"{cd.event_index}) and {claimed} by seat {cd.claimed_by}")
            if pays(cd.claimed_by, cd.seat):
                self.book.pay(cd.seat, cd.claimed_by, value, Reason.RESPONSIBILITY_CHICKEN,
                              f"responsibility 责任鸡 {cd.tile} {claimed} at event "
                              f"{cd.event_index} ({value})")
                self.book.chickens.append(
                    ChickenCount(cd.claimed_by, ChickenKind.RESPONSIBILITY, cd.tile, 1))
                self.book.say(f"{head}: responsibility chicken 责任鸡, seat {cd.seat} pays "
                              f"seat {cd.claimed_by} {value * self.pts}")
            else:
                self.book.say(f"{head}: no responsibility chicken 责任鸡 is paid (seat "
                              f"{cd.claimed_by} does not collect chickens)")

    def explain_charging(self) -> None:
        """Say why a standing tile has no charging chicken (the ones paid are said above)."""
        ch = self.rs.chickens
        for cd in self.replay.chicken_discards:
            standing = ch.standing_of(cd.tile)
            if standing is None or not standing.charging:
                continue
            if cd.claimed_by is not None:
                how = {ClaimKind.PONG: "ponged", ClaimKind.EXPOSED_KONG: "konged",
                       ClaimKind.WIN: "won on"}[cd.claim or ClaimKind.PONG]
                self.book.say(f"no charging chicken 冲锋鸡 for {cd.tile}: the first one (seat "
                              f"{cd.seat}, event {cd.event_index}) was {how} by seat "
                              f"{cd.claimed_by}")
            else:
                self.book.say(f"the first {cd.tile} discarded (seat {cd.seat}, event "
                              f"{cd.event_index}) was left unclaimed: seat {cd.seat}'s "
                              f"charging chicken 冲锋鸡")

    def settle_penalty(self, gold: Tile | None) -> None:
        """包鸡: a player not ready pays each collecting player for its exposed standing
        chickens (unclaimed discards, the charging one at its charging value, and melds)."""
        ch = self.rs.chickens
        seats = self.replay.seats
        payees = [s.seat for s in seats if self.collects(s) and s.seat not in self.no_chickens]
        for seat in seats:
            if self.collects(seat):
                continue
            charging = self.charging_of(seat.seat)
            unclaimed = [d.tile for d in seat.discards
                         if d.claimed_by is None and (d.event_index, d.tile) not in charging]
            parts: list[str] = []
            value = 0
            for standing in ch.standing:
                tile = standing.tile
                mult = ch.gold_multiplier if tile is gold else 1
                count = unclaimed.count(tile)
                count += sum(m.size for m in seat.melds if m.tile is tile)
                if count:
                    value += count * standing.value * mult
                    parts.append(f"{count} x {tile} ({standing.value * mult})")
                if any(t is tile for _i, t in charging):
                    value += standing.charging * mult
                    parts.append(f"charging {tile} ({standing.charging * mult})")
            if not value:
                continue
            targets = [p for p in payees if p != seat.seat]
            text = ", ".join(parts)
            for payee in targets:
                self.book.pay(seat.seat, payee, value, Reason.CHICKEN_PENALTY,
                              f"包鸡: exposed {text}")
            if targets:
                self.book.say(f"seat {seat.seat} is not ready and exposed {text} (包鸡): it "
                              f"pays {value * self.pts} to {_each_of(targets)}")

    # ----------------------------------------------------------------- exhaustive draw
    def settle_draw(self) -> None:
        rs, book = self.rs, self.book
        seats = self.replay.seats
        ready = [s.seat for s in seats if s.ready]
        unready = [s.seat for s in seats if not s.ready]
        book.say("exhaustive draw 黄庄: " + (
            f"ready {_seats_text(ready)}" if ready else "nobody is ready") + (
            f"; not ready {_seats_text(unready)}" if unready else "; everybody is ready"))
        book.say("no kong is paid at an exhaustive draw")
        if rs.draw.ready_check and ready and unready:
            for r in ready:
                best = best_waiting_value(seats[r], rs)
                if best is None:
                    continue
                tile, pattern, value = best
                for u in unready:
                    book.pay(u, r, value, Reason.READY_CHECK,
                             f"查叫: best wait {tile} {_pattern_text(pattern, value)}")
                waits = format_tiles(seats[r].waits)
                book.say(f"查叫: seat {r} waits on {waits}, best {tile} "
                         f"{_pattern_text(pattern, value)}: {value * self.pts} from "
                         f"{_each_of(unready)}")
        if rs.chickens.at_exhaustive_draw is DrawChickens.UNREADY_PAY_READY and ready and unready:
            for r in ready:
                groups = self._chicken_groups(seats[r], None, None)
                if groups:
                    self._pay_groups(r, groups, unready)
            self.settle_responsibility(
                None, lambda claimer, discarder: claimer in ready and discarder in unready)

    # ----------------------------------------------------------------- dealer
    def next_dealer(self) -> int:
        nxt = next_dealer_of(self.replay, self.rs)
        self.book.say(f"next dealer: seat {nxt} ({self._dealer_why(nxt)})")
        return nxt

    def _dealer_why(self, nxt: int) -> str:
        replay = self.replay
        seats = sorted({w.seat for w in replay.winners})
        if replay.outcome is Outcome.WIN:
            if len(seats) == 1:
                return "the winner"
            rule = self.rs.dealer.two_winners if len(seats) == 2 else self.rs.dealer.three_winners
            return f"{len(seats)} winners on one tile: {rule.value}"
        rule_d = self.rs.dealer.exhaustive_draw
        return f"exhaustive draw: {rule_d.value}"


def next_dealer_of(replay: HandReplay, ruleset: Ruleset) -> int:
    """Who deals next, by the preset's hand-over rules (see ``DealerSettings``)."""
    n = replay.n_players
    dealer = replay.dealer
    if replay.outcome is Outcome.WIN:
        winners = {w.seat for w in replay.winners}
        if len(winners) == 1:
            return replay.winners[0].seat
        rule = ruleset.dealer.two_winners if len(winners) == 2 else ruleset.dealer.three_winners
        discarder = replay.winners[0].from_seat
        assert discarder is not None  # several winners always share one discarded tile
        if rule is MultiWinDealer.DISCARDER:
            return discarder
        start = dealer if rule is MultiWinDealer.FIRST_FROM_DEALER else (discarder + 1) % n
        return next((start + k) % n for k in range(n) if (start + k) % n in winners)
    if ruleset.dealer.exhaustive_draw is DrawDealer.KEEP:
        return dealer
    ready = [s.ready for s in replay.seats]
    unready = [s for s in range(n) if not ready[s]]
    if len(unready) in (0, n):
        return dealer
    if len(unready) == 1:
        return unready[0]
    if ready[dealer]:
        return dealer
    return next((dealer + k) % n for k in range(1, n) if ready[(dealer + k) % n])


def settle(
    replay: HandReplay, ruleset: Ruleset, base_stake: int = 1, *, dealer_streak: int = 0
) -> Settlement | None:
    """The settlement of a replayed hand; None when the replay stopped on a fatal violation
    (``Outcome.INCOMPLETE``). ``dealer_streak`` is the hand's 连庄 count (the record's)."""
    if base_stake < 1:
        raise ValueError(f"the base stake must be at least 1, not {base_stake}")
    if replay.outcome is Outcome.INCOMPLETE:
        return None
    s = _Settler(replay, ruleset, base_stake, dealer_streak)
    if base_stake != 1:
        s.book.say(f"amounts are points: values x base stake {base_stake}")
    if replay.outcome is Outcome.WIN:
        for win in replay.winners:
            s.settle_win(win)
        s.settle_kongs()
        s.settle_chickens()
    else:
        s.settle_draw()
    nxt = s.next_dealer()
    deltas = s.book.deltas()
    s.book.say("deltas: " + ", ".join(
        f"seat {seat} {format_amount(d)}" for seat, d in enumerate(deltas)))
    return Settlement(
        items=tuple(s.book.items),
        deltas=deltas,
        next_dealer=nxt,
        chickens=tuple(s.book.chickens),
        explanation=tuple(s.book.lines),
        wins=tuple(s.wins),
    )


# --------------------------------------------------------------------------------------
# the audit of a recorded result
# --------------------------------------------------------------------------------------

ItemKey = tuple[int, int, str]
"""(payer, payee, reason) of ledger items compared as one group."""


def _grouped(items: Iterable[tuple[int, int, str, int]]) -> dict[ItemKey, int]:
    out: dict[ItemKey, int] = {}
    for payer, payee, reason, amount in items:
        key = (payer, payee, reason)
        out[key] = out.get(key, 0) + amount
    return out


def _key_order(key: ItemKey) -> tuple[int, int, int, str]:
    payer, payee, reason = key
    return (payer, payee, _REASON_ORDER.get(reason, len(_REASON_ORDER)), reason)


def generate_item_differences(
    settlement: Settlement, recorded: RecordedResult
) -> Iterable[tuple[ItemKey, int | None, int | None]]:
    """Ledger items grouped by (payer, payee, reason) whose sums differ between the
    recomputed settlement and the record: ``(key, recomputed, recorded)``, None where a
    side has no such item; in (payer, payee, reason) order. Nothing if the record is not
    itemised."""
    if recorded.items is None:
        return
    ours = _grouped((i.payer, i.payee, i.reason.value, i.amount) for i in settlement.items)
    theirs = _grouped((i.payer, i.payee, i.reason, i.amount) for i in recorded.items)
    for key in sorted(set(ours) | set(theirs), key=_key_order):
        a, b = ours.get(key), theirs.get(key)
        if a != b:
            yield key, a, b


def _difference_text(key: ItemKey, ours: int | None, theirs: int | None) -> str:
    payer, payee, reason = key
    chinese = REASON_CHINESE.get(Reason(reason)) if reason in _REASON_ORDER else None
    name = f"{reason} {chinese}" if chinese else reason
    head = f"seat {payer} -> seat {payee} {name}"
    if theirs is None:
        return f"{head}: recomputed {ours}, missing from the record"
    if ours is None:
        return f"{head}: recorded {theirs}, not due (extra in the record)"
    return f"{head}: recorded {theirs}, recomputed {ours}"


def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The settlement checks of one hand against its recorded result (non-fatal findings):
    ``not_zero_sum`` (the record's deltas do not sum to zero), ``score_mismatch`` (per-seat
    deltas differ; the message names the seats, the differences and, for an itemised
    record, the ledger items that differ) and ``dealer_mismatch``."""
    if recorded is None:
        return ()
    out: list[Violation] = []
    total = sum(recorded.deltas)
    if total:
        out.append(Violation(
            ViolationCode.NOT_ZERO_SUM, hand_no, None, None,
            f"the recorded deltas {list(recorded.deltas)} sum to {total}, not 0", fatal=False,
        ))
    if settlement is None:
        return tuple(out)
    ours, theirs = settlement.deltas, recorded.deltas
    if tuple(theirs) != ours:
        if len(theirs) != len(ours):
            text = (f"the record has {len(theirs)} deltas {list(theirs)} for "
                    f"{len(ours)} seats; recomputed {list(ours)}")
        else:
            diffs = [
                f"seat {s}: recorded {format_amount(theirs[s])}, recomputed "
                f"{format_amount(ours[s])} (off by {format_amount(theirs[s] - ours[s])})"
                for s in range(len(ours)) if theirs[s] != ours[s]
            ]
            text = "recorded deltas differ: " + "; ".join(diffs)
        items = [_difference_text(*d) for d in generate_item_differences(settlement, recorded)]
        if items:
            text += ". Items that differ: " + "; ".join(items)
        seats = [s for s in range(min(len(ours), len(theirs))) if ours[s] != theirs[s]]
        seat = seats[0] if len(seats) == 1 else None
        out.append(Violation(ViolationCode.SCORE_MISMATCH, hand_no, None, seat, text,
                             fatal=False))
    if recorded.next_dealer is not None and recorded.next_dealer != settlement.next_dealer:
        out.append(Violation(
            ViolationCode.DEALER_MISMATCH, hand_no, None, None,
            f"the record says seat {recorded.next_dealer} deals next; by the rules it is "
            f"seat {settlement.next_dealer}", fatal=False,
        ))
    return tuple(out)


