"""Settlement: a replayed hand's ledger of transfers, its deltas and the next dealer.

:func:`settle` reads what a replay found (:class:`~zhuoji.rules.replay.HandReplay`) and the
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

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from zhuoji.rules.events import KongKind, RecordedResult
from zhuoji.rules.facts import ChickenDiscard, ClaimKind, KongFact, Outcome, SeatFacts, WinFact
from zhuoji.rules.families.guizhou.patterns import Pattern, generate_wins
from zhuoji.rules.families.guizhou.settings import (
    BonusMode,
    ChargingClaimed,
    ChargingScope,
    ChickenPayers,
    ChickenScope,
    DealerRotation,
    DrawChickens,
    DrawDealer,
    FirstTurnMode,
    Forfeit,
    HandValuation,
    KongPayer,
    MissedWinRule,
    MultiWinDealer,
    PatternValues,
    PenaltyCounts,
    PenaltyPayers,
    ReadyValueMode,
    ResponsibilityClaims,
    Ruleset,
    StandingChicken,
)
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.glossary import zh
from zhuoji.rules.ledger import (
    LedgerItem,
    WinValue,
    audit_ledger,
    format_amount,
    generate_item_differences,
    item_nets,
    with_names,
)
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.memo import Memo
from zhuoji.rules.messages import Message, cached
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.tiles import TILE_TEXT, Tile, counts_of, format_tiles
from zhuoji.rules.violations import Violation, ViolationCode

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
    "item_nets",
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
    FOLLOW_DEALER = "follow_dealer"

    @property
    def chinese(self) -> str:
        return REASON_CHINESE[self]


REASON_CHINESE: Mapping[Reason, str] = MappingProxyType(
    {r: zh("reason", r.value) for r in Reason}
)
"""The Chinese term of each reason, shown beside the English name (from the glossary,
rules/glossary.toml, where each term is spelt once)."""


_KONG_REASON: Mapping[KongKind, Reason] = MappingProxyType({
    KongKind.EXPOSED: Reason.EXPOSED_KONG,
    KongKind.CONCEALED: Reason.CONCEALED_KONG,
    KongKind.ADDED: Reason.ADDED_KONG,
})
_KONG_CHINESE: Mapping[KongKind, str] = MappingProxyType(
    {k: zh("kong", k.value) for k in KongKind}
)


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

    def __init__(self, seat: int, kind: ChickenKind, tile: Tile, count: int) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.count = count  # type: ignore[misc]


quick_init(ChickenCount)


REASONS: tuple[str, ...] = tuple(r.value for r in Reason)
"""The reasons in their order (:attr:`Settlement.reasons`)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled hand (a :class:`zhuoji.rules.ledger.Ledger`)."""

    items: tuple[LedgerItem, ...]  # deterministic order
    deltas: tuple[int, ...]  # per seat, sums to zero, multiples of base_stake
    next_dealer: int
    chickens: tuple[ChickenCount, ...]  # what each seat's chickens were, for statistics
    explanation: tuple[str, ...]  # lines a referee can read out
    wins: tuple[WinValue, ...] = ()  # one per win, in win order

    @property
    def reasons(self) -> tuple[str, ...]:
        """The family's reasons in their order (the audit orders item differences by
        it): :data:`REASONS`."""
        return REASONS

    def __init__(
        self,
        items: tuple[LedgerItem, ...],
        deltas: tuple[int, ...],
        next_dealer: int,
        chickens: tuple[ChickenCount, ...],
        explanation: tuple[str, ...],
        wins: tuple[WinValue, ...] = (),
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.items = items  # type: ignore[misc]
        self.deltas = deltas  # type: ignore[misc]
        self.next_dealer = next_dealer  # type: ignore[misc]
        self.chickens = chickens  # type: ignore[misc]
        self.explanation = explanation  # type: ignore[misc]
        self.wins = wins  # type: ignore[misc]


quick_init(Settlement)


def _seats_text(seats: Sequence[int]) -> Message:
    if len(seats) == 1:
        return Message("seat {seat}", seats[0])
    return Message("seats {s:seat*, }", list(seats))


_KEPT_LIMIT = 4096
"""Entries each of the settler's memo tables keeps (zhuoji.rules.memo: emptied when full)."""

_EACH_OF: Memo[tuple[int, ...], Message] = Memo("settlement.each_of", 1024)
"""Texts of :func:`_each_of` already made (a few seat tuples recur in every hand)."""


def _each_of(seats: Sequence[int]) -> Message:
    """``seat 2`` or ``each of seats 1, 2, 3``."""
    key = tuple(seats)
    text = _EACH_OF.data.get(key)
    if text is None:
        text = _EACH_OF.put(
            key, _seats_text(key) if len(key) == 1
            else Message("each of seats {s:seat*, }", list(key))
        )
    return text


_OTHER_SEATS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + k) % n for k in range(1, n)) for seat in range(n)) for n in range(5)
)
"""``_OTHER_SEATS[n][seat]``: :func:`_others` for tables of up to four players."""


def _others(seat: int, n: int) -> tuple[int, ...]:
    """Every other seat in turn order after ``seat``."""
    if 0 <= seat < n <= 4:
        return _OTHER_SEATS[n][seat]
    return tuple((seat + k) % n for k in range(1, n))


_Pays = Callable[[int, int], bool]
"""Whether a responsibility chicken is paid: (claimer, discarder) -> paid."""

# --------------------------------------------------------------------------------------
# constants read once, not per hand
# --------------------------------------------------------------------------------------

_PATTERN_NAME: Mapping[Pattern, str] = MappingProxyType({p: p.value for p in Pattern})
_PATTERN_LABEL: Mapping[Pattern, Message] = MappingProxyType(
    {p: Message("{p:pattern} {c:cjk}", p.value, p.chinese) for p in Pattern}
)
"""``"flush_all_pungs 清大对"``: a pattern as the ledger names it."""
_PONGED = Message("ponged")
_KONGED = Message("konged")
_HOT_FORFEIT = Message("热炮: the discard after it dealt the win")
_ROBBED_FORFEIT = Message("its kong was robbed")
_CLAIMED_HOW: Mapping[ClaimKind, str] = MappingProxyType({
    ClaimKind.PONG: _PONGED, ClaimKind.EXPOSED_KONG: _KONGED,
    ClaimKind.WIN: "won on",  # (a clause the glossary has no Chinese for)
})
_CHICKEN_GROUP: Mapping[ChickenKind, str] = MappingProxyType({
    ChickenKind.STANDING: "{n} x {tile} ({v:n})",
    ChickenKind.FLIPPED: "{n} x {tile} flipped 翻鸡 ({v:n})",
    ChickenKind.GOLD: "{n} x {tile} gold 金鸡 ({v:n})",
})
"""A group of chickens of one tile, by kind (``2 x 1s gold 金鸡 (2)``)."""
_CHICKEN_KONG: Mapping[ChickenKind, str] = MappingProxyType({
    ChickenKind.STANDING: "concealed kong of {tile} (闷鸡) {v:n}",
    ChickenKind.FLIPPED: "concealed kong of {tile} flipped 翻鸡 (闷鸡) {v:n}",
    ChickenKind.GOLD: "concealed kong of {tile} gold 金鸡 (闷鸡) {v:n}",
})
"""A concealed kong of a chicken tile (闷鸡), by kind."""


def _kong_name(seat: int, kind: KongKind, tile: str) -> Message:
    """``seat 1's exposed kong 点豆 of 5m``."""
    return cached("seat {seat}'s {k:kongkind} kong {c:cjk} of {tile}", seat, kind.value,
                  _KONG_CHINESE[kind], tile)


def _kong_detail(kind: KongKind, tile: str) -> Message:
    """``exposed kong 点豆 5m``: a kong's ledger item."""
    return cached("{k:kongkind} kong {c:cjk} {tile}", kind.value, _KONG_CHINESE[kind], tile)


_SUM = "{f:part* + }"
"""A hand's part that adds up several (the shape and 天胡 / 地胡): it has no Chinese of its
own (an item's detail stays English); a formula shows each of its parts."""


def _plus(text: str, more: Message) -> Message:
    return Message(_SUM, [*_terms(text), more])


def _chickens(groups: Sequence[_Group]) -> Message:
    """``2 x 1s (1), charging 8p 冲锋鸡 (2)``: the texts of a seat's chicken groups."""
    return Message("{c:chickenpart*, }", [g[4] for g in groups])


def _terms(text: str) -> list[str]:
    """The parts a part's text adds up (itself, or each of a :data:`_SUM`)."""
    if isinstance(text, Message) and text.template == _SUM:
        terms: list[str] = text.values[0]  # type: ignore[assignment]  # (see _plus)
        return terms
    return [text]
_NEXT_IN_SUIT: tuple[Tile, ...] = tuple(t.next_in_suit() for t in Tile if t.is_suited)
"""The 翻鸡 successor of each suited tile, by tile."""

# Enum members the settler reads for every hand, as module names (a global is read
# several times faster than an enum class attribute).
_PONG = MeldKind.PONG
_CONCEALED_KONG = MeldKind.CONCEALED_KONG
_STANDING = ChickenKind.STANDING
_FLIPPED = ChickenKind.FLIPPED
_GOLD = ChickenKind.GOLD
_CHARGING = ChickenKind.CHARGING
_RESPONSIBILITY = ChickenKind.RESPONSIBILITY
_HAND_VALUED = HandValuation.PATTERN
_VALUED_PLAIN = HandValuation.PLAIN
_VALUED_FULL_FLUSH = HandValuation.FULL_FLUSH
_WIN = Outcome.WIN
_INCOMPLETE = Outcome.INCOMPLETE
_R_HAND = Reason.HAND
_R_SELF_DRAW = Reason.SELF_DRAW
_R_CHICKEN = Reason.CHICKEN
_R_CHARGING_CHICKEN = Reason.CHARGING_CHICKEN
_CLAIM_PONG = ClaimKind.PONG
_CLAIM_EXPOSED_KONG = ClaimKind.EXPOSED_KONG
_EXPOSED = KongKind.EXPOSED
_WILD = Tile.W

_Group = tuple[ChickenKind, Tile, int, int, str]
"""A seat's chickens of one kind and tile: (kind, tile, count, value in all, text)."""
_Part = tuple[Reason, int, str, "str | None"]
"""One component of a win's value, paid by each payer: (reason, value, text, the pattern
or bonus name that scored, if any), e.g. ``(HAND, 15, "flush_all_pungs 清大对 15", None)``."""


class _Plan:
    """The settlement settings of one ruleset as plain values, read once per ruleset: the
    settler runs for every hand and reads these instead of walking the pydantic sections."""

    __slots__ = (
        "best_shapes", "bonus_mode_pattern", "charging_passes", "charging_per_hand",
        "chicken_groups", "chickens_from_unready", "ckv", "dealer_bonus", "dealer_streak_bonus",
        "earthly", "exposed_by_discarder", "false_hand", "first_turn_pattern", "flip_chicken",
        "flip_value", "follow_dealer", "gold_labels", "gold_multiplier", "heavenly", "hot_after",
        "hot_multiplier", "hot_valued_as", "kong_bloom", "kong_values", "kongs_delayed_score",
        "kongs_need_ready", "kongs_pay_back", "missed_win", "need_ready", "penalty",
        "penalty_every_unready", "ready_at_least", "ready_hard", "ready_kill", "ready_soft",
        "responsibility_on_kong", "responsibility_unready", "robbed_bonus", "robbed_forfeit",
        "robbed_multiplier", "robbed_pays_for_all", "robbed_self_draw", "robbed_valued_as",
        "rotate_dealer", "ruleset", "scope_discards", "self_draw", "shape_values",
        "standing_by_tile", "standing_tiles", "wildcard_value", "win_parts",
    )

    def __init__(self, rs: Ruleset) -> None:
        self.ruleset = rs
        values = rs.patterns
        self.shape_values: dict[Pattern, int] = {
            p: values.value_of(p.value) for p in Pattern if p.value in PatternValues.model_fields
        }
        self.best_shapes: Memo[tuple[str, ...], tuple[Pattern, int]] = Memo(
            "settlement.best_shapes", _KEPT_LIMIT, register=False)
        b = rs.bonuses
        self.bonus_mode_pattern = b.mode is BonusMode.PATTERN
        self.first_turn_pattern = (
            self.bonus_mode_pattern if b.first_turn_mode is FirstTurnMode.AS_MODE
            else b.first_turn_mode is FirstTurnMode.PATTERN)
        self.self_draw = b.self_draw
        self.kong_bloom = b.kong_bloom
        self.heavenly = b.heavenly
        self.earthly = b.earthly
        self.ready_hard = rs.ready.hard_value
        self.ready_soft = rs.ready.soft_value
        self.ready_at_least = rs.ready.value_mode is ReadyValueMode.AT_LEAST
        self.ready_kill = rs.ready.kill_ready and rs.ready.kill_ready_payment
        hot = rs.hot_discard
        self.hot_valued_as = hot.valued_as
        self.hot_multiplier = hot.multiplier if hot.multiplier > 1 else 0
        self.robbed_multiplier = (
            rs.robbed_kong.multiplier if rs.robbed_kong.multiplier > 1 else 0)
        self.hot_after: dict[KongKind, int] = {k: hot.value_after(k) for k in KongKind}
        robbed = rs.robbed_kong
        self.robbed_valued_as = robbed.valued_as
        self.robbed_self_draw = robbed.counts_as_self_draw
        self.robbed_bonus = robbed.bonus
        self.robbed_pays_for_all = robbed.robbed_pays_for_all
        self.robbed_forfeit = robbed.forfeit
        self.dealer_bonus = rs.dealer.bonus
        self.dealer_streak_bonus = rs.dealer.streak_bonus
        self.missed_win = rs.penalties.missed_win is MissedWinRule.PENALTY
        kongs = rs.kongs
        self.kong_values: dict[KongKind, int] = {k: kongs.value_of(k) for k in KongKind}
        self.exposed_by_discarder = kongs.exposed_payer is KongPayer.DISCARDER
        self.kongs_need_ready = kongs.need_ready
        self.kongs_delayed_score = kongs.delayed_scores
        self.kongs_pay_back = kongs.unready_pays_back
        self.follow_dealer = rs.bonuses.follow_dealer
        self.rotate_dealer = rs.dealer.rotation is DealerRotation.EVERY_HAND
        self.penalty_every_unready = _penalty_by_every_unready(rs)
        self.false_hand = rs.penalties.false_hand
        ch = rs.chickens
        self.flip_chicken = rs.flip_chicken
        self.standing_tiles: tuple[Tile, ...] = ch.standing_tiles
        self.standing_by_tile: tuple[StandingChicken | None, ...] = tuple(
            ch.standing_of(t) for t in Tile
        )
        self.flip_value = ch.flip_value
        self.gold_multiplier = ch.gold_multiplier
        self.scope_discards = ch.scope is ChickenScope.HAND_AND_DISCARDS
        self.need_ready = ch.need_ready
        self.penalty = ch.penalty
        self.ckv = ch.concealed_kong_value
        self.chickens_from_unready = ch.payers is ChickenPayers.NOT_READY
        self.charging_per_hand = ch.charging_scope is ChargingScope.PER_HAND
        self.charging_passes = ch.charging_claimed is ChargingClaimed.PASSES_TO_READY
        self.responsibility_unready = ch.responsibility_unready_discarder
        self.responsibility_on_kong = (
            ch.responsibility_claims is ResponsibilityClaims.PONG_AND_KONG)
        self.wildcard_value = ch.wildcard_value
        self.chicken_groups: Memo[tuple[Tile, bool, int], _Group] = Memo(
            "settlement.chicken_groups", _KEPT_LIMIT, register=False)
        self.win_parts: Memo[tuple[object, ...], _WinParts] = Memo(
            "settlement.win_parts", _KEPT_LIMIT, register=False)

    def chicken_kind(self, tile: Tile, is_gold: bool) -> tuple[ChickenKind, int]:
        """How a chicken tile counts: its kind and its value each."""
        standing = self.standing_by_tile[tile]
        if standing is None:
            return _FLIPPED, self.flip_value
        if is_gold:
            return _GOLD, standing.value * self.gold_multiplier
        return _STANDING, standing.value

    def chicken_group(self, tile: Tile, is_gold: bool, count: int) -> _Group:
        """``count`` chickens of ``tile`` as a group, ``"2 x 1s (1)"`` (kept in
        :attr:`chicken_groups`: the same few recur hand after hand)."""
        kind, unit = self.chicken_kind(tile, is_gold)
        text = Message(_CHICKEN_GROUP[kind], count, TILE_TEXT[tile], unit)
        group = (kind, tile, count, unit * count, text)
        return self.chicken_groups.put((tile, is_gold, count), group)

    def best_shape(self, shape: tuple[str, ...]) -> tuple[Pattern, int]:
        """The highest-valued shape pattern (ties: the first in pattern order); plain at
        least. Raises RulesetError for a name that is not a shape pattern."""
        best = self.best_shapes.data.get(shape)
        if best is None:
            pattern, value = Pattern.PLAIN, self.shape_values[Pattern.PLAIN]
            for candidate in shape:
                candidate_value = self.shape_values.get(Pattern(candidate))
                if candidate_value is None:
                    candidate_value = self.ruleset.patterns.value_of(str(candidate))
                if candidate_value > value:
                    pattern, value = Pattern(candidate), candidate_value
            best = (pattern, value)
            self.best_shapes.put(shape, best)
        return best


def _penalty_by_every_unready(rs: Ruleset) -> bool:
    """Whether 包鸡 is paid by every player not ready (``chickens.penalty_payers``)."""
    return rs.chickens.penalty_payers is PenaltyPayers.EVERY_NOT_READY


def _plan_of(ruleset: Ruleset) -> _Plan:
    """The ruleset's plan, made once per ruleset and kept on it."""
    return ruleset.derived(_Plan)


# --------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------


def _pattern_text(pattern: Pattern, value: int) -> Message:
    return cached("{p:patlabel} {v:n}", _PATTERN_LABEL[pattern], value)


def best_waiting_value(seat: SeatFacts, ruleset: Ruleset) -> tuple[Tile, Pattern, int] | None:
    """查叫: a ready seat's best waiting hand, ``(wait, pattern, value)``, without
    situational values; the first wait in tile order among equals. None if not ready."""
    if not seat.ready or seat.won:
        return None
    plan = _plan_of(ruleset)
    best: tuple[Tile, Pattern, int] | None = None
    for tile, shape in generate_wins(counts_of(seat.concealed), seat.melds):
        pattern, value = plan.best_shape(tuple(shape))
        if best is None or value > best[2]:
            best = (tile, pattern, value)
    return best


def _declared_value(seat: SeatFacts, plan: _Plan) -> int:
    return plan.ready_hard if seat.hard_ready else plan.ready_soft


def _hot_kong(replay: HandReplay, win: WinFact) -> KongFact | None:
    """The kong the discarder made just before a hot discard."""
    assert win.from_seat is not None
    kongs = [k for k in replay.seats[win.from_seat].kongs if k.event_index < win.event_index]
    return max(kongs, key=lambda k: k.event_index) if kongs else None


_WinParts = tuple[tuple[_Part, ...], tuple[str, ...], int, tuple[str, ...]]
"""A win's value: its parts, the names that scored, the value each payer pays (the sum
of the parts) and the formula (the texts of the parts worth something, to be joined by
+)."""


def _win_parts(replay: HandReplay, win: WinFact, plan: _Plan, streak: int) -> _WinParts:
    """:func:`_hand_parts` with its sum and formula. Without a hot discard (whose value
    depends on the discarder's kong) they depend only on the facts in the key, so the
    plan keeps them: the same few recur hand after hand."""
    if win.hot_discard:
        return _sum_parts(*_hand_parts(replay, win, plan, streak))
    declared = 0
    if win.declared_ready:
        declared = 1 if replay.seats[win.seat].hard_ready else 2
    key = (win.shape, win.robbed_kong, win.kong_bloom, win.heavenly, win.earthly, declared,
           win.self_drawn, win.seat == replay.dealer, streak)
    value = plan.win_parts.data.get(key)
    if value is None:
        value = plan.win_parts.put(key, _sum_parts(*_hand_parts(replay, win, plan, streak)))
    return value


def _sum_parts(parts: list[_Part], scored: tuple[str, ...]) -> _WinParts:
    per_payer = 0
    for part in parts:
        per_payer += part[1]
    formula = tuple([term for part in parts if part[1] for term in _terms(part[2])])
    return tuple(parts), scored, per_payer, formula


def _hand_parts(
    replay: HandReplay, win: WinFact, plan: _Plan, streak: int
) -> tuple[list[_Part], tuple[str, ...]]:
    """The components of one win's value (before the stake), in ledger order, and the
    names of the patterns that scored."""
    if win.robbed_kong:
        valued_as = plan.robbed_valued_as
        why = "抢杠 valued as {p:pattern}"
    elif win.hot_discard:
        valued_as = plan.hot_valued_as
        why = "热炮 valued as {p:pattern}"
    else:
        valued_as = _HAND_VALUED
        why = ""
    if valued_as is _VALUED_PLAIN:
        pattern, value = Pattern.PLAIN, plan.shape_values[Pattern.PLAIN]
    elif valued_as is _VALUED_FULL_FLUSH:
        pattern, value = Pattern.FULL_FLUSH, plan.shape_values[Pattern.FULL_FLUSH]
    else:
        pattern, value = plan.best_shape(win.shape)
    text: str = _pattern_text(pattern, value)
    if valued_as is not _HAND_VALUED:
        text = Message("{p:patlabel} {v:n} ({why:valued})", _PATTERN_LABEL[pattern], value,
                       Message(why, valued_as.value))
    scored = [_PATTERN_NAME[pattern]]
    extra: list[_Part] = []
    if win.kong_bloom or win.heavenly or win.earthly or win.hot_discard:
        hot = _hot_kong(replay, win) if win.hot_discard else None
        hot_value = plan.hot_after[hot.kind] if hot is not None else 0
        situational: list[tuple[Pattern, int]] = []
        if win.kong_bloom:
            situational.append((Pattern.KONG_BLOOM, plan.kong_bloom))
        if win.heavenly:
            situational.append((Pattern.HEAVENLY, plan.heavenly))
        if win.earthly:
            situational.append((Pattern.EARTHLY, plan.earthly))
        if win.hot_discard and not plan.hot_multiplier:
            situational.append((Pattern.HOT_DISCARD, hot_value))
        # 遵义: the situational values compete with the shape and the hand is paid its best
        # (bonuses.mode = pattern; bonuses.first_turn_mode for 天胡 / 地胡 alone); those
        # that compete are looked at first, then the others are added.
        competing = [(sit, sit_value) for sit, sit_value in situational
                     if (plan.first_turn_pattern if sit is Pattern.HEAVENLY
                         or sit is Pattern.EARTHLY else plan.bonus_mode_pattern)]
        for sit, sit_value in competing:
            if sit_value > value:
                pattern, value, text = sit, sit_value, _pattern_text(sit, sit_value)
                scored = [_PATTERN_NAME[sit]]
        if len(competing) < len(situational):
            for sit, sit_value in situational:
                if not sit_value or (sit, sit_value) in competing:
                    continue
                if sit is Pattern.HEAVENLY or sit is Pattern.EARTHLY:
                    value += sit_value
                    text = _plus(text, _pattern_text(sit, sit_value))
                    scored.append(_PATTERN_NAME[sit])
                elif sit is Pattern.KONG_BLOOM:
                    extra.append((Reason.KONG_BLOOM, sit_value, _pattern_text(sit, sit_value),
                                  _PATTERN_NAME[sit]))
                else:
                    assert hot is not None
                    extra.append((Reason.HOT_DISCARD, sit_value,
                                  Message("{p:patlabel} {v:n} after a {k:kongkind} kong {c:cjk} "
                                          "of {tile}", _PATTERN_LABEL[sit], sit_value,
                                          hot.kind, _KONG_CHINESE[hot.kind],
                                          TILE_TEXT[hot.tile]),
                                  _PATTERN_NAME[sit]))
    declared: _Part | None = None
    if win.declared_ready:
        seat = replay.seats[win.seat]
        dv = _declared_value(seat, plan)
        kind = Message("硬报" if seat.hard_ready else "软听")
        if plan.ready_at_least:
            if dv > value:
                if isinstance(text, Message) and text.template == "{p:patlabel} {v:n}":
                    text = Message("{p:patlabel} {v:n}, raised to declared_ready 报听 {d:n} "
                                   "({kind:readykind}: at least {m:n})", *text.values, dv, kind,
                                   dv)
                else:  # (a sentence the glossary has no Chinese for)
                    text = f"{text}, raised to declared_ready 报听 {dv} ({kind}: at least {dv})"
                value = dv
                scored.append(_PATTERN_NAME[Pattern.DECLARED_READY])
        elif dv:
            declared = (Reason.DECLARED_READY, dv,
                        Message("declared_ready 报听 {v:n} ({kind:readykind})", dv, kind),
                        _PATTERN_NAME[Pattern.DECLARED_READY])
    parts: list[_Part] = [(_R_HAND, value, text, None)]
    as_self_draw = win.robbed_kong and plan.robbed_self_draw
    self_draw = plan.self_draw
    if (win.self_drawn or as_self_draw) and self_draw:
        how = ("self_draw 自摸 (抢杠 counts as self-draw) {v:n}" if as_self_draw
               else "self_draw 自摸 {v:n}")
        parts.append((_R_SELF_DRAW, self_draw, Message(how, self_draw), "self_draw"))
    if extra:
        parts.extend(extra)
    if win.robbed_kong and plan.robbed_bonus:
        bonus = plan.robbed_bonus
        parts.append((Reason.ROBBED_KONG, bonus, Message("robbing_kong 抢杠 {v:n}", bonus),
                      _PATTERN_NAME[Pattern.ROBBING_KONG]))
    if declared is not None:
        parts.append(declared)
    times = plan.hot_multiplier if win.hot_discard else (
        plan.robbed_multiplier if win.robbed_kong else 0)
    if times:
        # 热炮 / 抢杠 as a multiplier: the win so far is paid ``times`` over, the extra as
        # the situation's own transfer
        so_far = 0
        for part in parts:
            so_far += part[1]
        if win.hot_discard:
            hot_kong = _hot_kong(replay, win)
            if hot_kong is not None:
                times_text = Message("hot_discard 热炮 x {t:n} after a {k:kongkind} kong {c:cjk} "
                                     "of {tile}: {s:n} x {m:n} more", times, hot_kong.kind,
                                     _KONG_CHINESE[hot_kong.kind], TILE_TEXT[hot_kong.tile],
                                     so_far, times - 1)
            else:
                times_text = Message("hot_discard 热炮 x {t:n}: {s:n} x {m:n} more", times,
                                     so_far, times - 1)
            parts.append((Reason.HOT_DISCARD, so_far * (times - 1), times_text,
                          _PATTERN_NAME[Pattern.HOT_DISCARD]))
        else:
            parts.append((Reason.ROBBED_KONG, so_far * (times - 1),
                          Message("robbing_kong 抢杠 x {t:n}: {s:n} x {m:n} more", times, so_far,
                                  times - 1),
                          _PATTERN_NAME[Pattern.ROBBING_KONG]))
    if win.seat == replay.dealer:
        bonus = plan.dealer_bonus
        if bonus:
            parts.append((Reason.DEALER, bonus, Message("dealer 坐庄 {v:n}", bonus), None))
        streak_bonus = plan.dealer_streak_bonus
        if streak and streak_bonus:
            sv = streak * streak_bonus
            parts.append((Reason.DEALER_STREAK, sv,
                          Message("dealer_streak 连庄 {s:n} x {b:n} = {v:n}", streak,
                                  streak_bonus, sv), None))
    # The pattern names that scored, situational ones included, for the WinValue.
    for part in parts[1:]:
        name = part[3]
        if name is not None and name not in scored:
            scored.append(name)
    return parts, tuple(scored)


# --------------------------------------------------------------------------------------
# the settler
# --------------------------------------------------------------------------------------


class _Ledger:
    """Collects transfers (scaled by the stake, zero amounts dropped) and the explanation."""

    def __init__(self, n: int, stake: int, explain: bool = True) -> None:
        self.n = n
        self.stake = stake
        self.items: list[LedgerItem] = []
        self.lines: list[str] = []
        self.chickens: list[ChickenCount] = []
        self.explain = explain
        """Whether the explanation is written (its lines are not even built otherwise)."""

    def say(self, template: str, *values: object) -> None:
        """Add a line to the explanation: the message of a glossary template and its
        values (made only when the explanation is written)."""
        if self.explain:
            self.lines.append(Message(template, *values))

    def pay(self, payer: int, payee: int, value: int, reason: Reason, detail: str) -> int:
        """Add a transfer of ``value`` (before the stake); returns the points paid."""
        amount = value * self.stake
        if amount and payer != payee:
            self.items.append(LedgerItem(payer, payee, amount, reason, detail))
            return amount
        return 0

    def pay_each(
        self, payers: Iterable[int], payee: int, value: int, reason: Reason, detail: str
    ) -> None:
        """:meth:`pay` by each of ``payers`` in turn."""
        amount = value * self.stake
        if amount:
            append = self.items.append
            for payer in payers:
                if payer != payee:
                    append(_new(LedgerItem, (payer, payee, amount, reason, detail)))

    def deltas(self) -> tuple[int, ...]:
        out = [0] * self.n
        for payer, payee, amount, _reason, _detail in self.items:
            out[payer] -= amount
            out[payee] += amount
        return tuple(out)


def _win_headline(win: WinFact, replay: HandReplay) -> Message:
    tile = TILE_TEXT[win.tile]
    if win.self_drawn:
        if win.kong_bloom:
            return Message("seat {seat} won by self-draw on {tile}{h:hot}", win.seat, tile,
                           Message(" (杠上开花 on a kong replacement)"))
        return Message("seat {seat} won by self-draw on {tile}", win.seat, tile)
    if win.robbed_kong:
        return Message("seat {seat} robbed seat {from:seat}'s added kong of {tile} (抢杠)",
                       win.seat, win.from_seat, tile)
    if win.hot_discard:
        return Message("seat {seat} won on seat {from:seat}'s discard {tile}{h:hot}", win.seat,
                       win.from_seat, tile, Message(" (热炮: right after that player's kong)"))
    return Message("seat {seat} won on seat {from:seat}'s discard {tile}", win.seat,
                   win.from_seat, tile)


def _is_missed_win(replay: HandReplay, win: WinFact) -> bool:
    """The win came after the winner let a win pass (the replay's ``missed_win``)."""
    return any(
        v.code is ViolationCode.MISSED_WIN and v.event_index == win.event_index
        and v.seat == win.seat
        for v in replay.violations
    )


_new = tuple.__new__
"""Builds a named tuple from its fields in order, without the per-call checks."""

_CHICKEN_COUNTS: Memo[tuple[int, ChickenKind, Tile, int], ChickenCount] = Memo(
    "settlement.chicken_counts", _KEPT_LIMIT)
"""Chicken counts already made: the values are immutable and few (seat, kind, tile,
count) recur hand after hand, so one value serves every hand that needs it."""
_WIN_VALUES: Memo[tuple[int, tuple[str, ...], int, tuple[int, ...]], WinValue] = Memo(
    "settlement.win_values", _KEPT_LIMIT)
"""Win values already made (not 包牌 ones), as :data:`_CHICKEN_COUNTS`."""

_NO_CHARGING: frozenset[tuple[int, Tile]] = frozenset()
_NOTHING_WON: list[Tile] = []  # read only


class _Settler:
    def __init__(
        self, replay: HandReplay, ruleset: Ruleset, stake: int, streak: int, explain: bool = True
    ) -> None:
        self.replay = replay
        self.rs = ruleset
        self.plan = _plan_of(ruleset)
        self.n = replay.n_players
        self.streak = streak
        self.book = _Ledger(self.n, stake, explain)
        self.pts = stake  # points per value unit
        self.no_kongs: set[int] = set()  # seats whose every kong is forfeited
        self.no_kong_at: set[int] = set()  # event indexes of single forfeited kongs
        self.no_chickens: set[int] = set()  # seats whose chickens are forfeited (全烧)
        self.wins: list[WinValue] = []
        self._charging: dict[int, set[tuple[int, Tile]]] | None = None
        # seat -> the charging chickens it took over by claiming them (charging_claimed)
        self._passed: dict[int, set[tuple[int, Tile]]] = {}
        self._won_on: dict[int, list[Tile]] | None = None  # seat -> discards it won on

    # ----------------------------------------------------------------- helpers
    def collects(self, seat: SeatFacts) -> bool:
        """Kongs' and chickens' 双杀 test: the seat won or is ready at the end."""
        return seat.won or seat.ready

    def _forfeit(self, seat: int, forfeit: Forfeit, kong: KongFact | None,
                 why: Message) -> None:
        if seat in self.no_chickens or (seat in self.no_kongs
                                        and forfeit is not Forfeit.KONGS_AND_CHICKENS):
            return  # already forfeited (another winner on the same tile)
        if forfeit is Forfeit.KONG:
            if kong is not None and kong.event_index not in self.no_kong_at:
                self.no_kong_at.add(kong.event_index)
                self.book.say("{k:kongname} does not score ({why:whykong})",
                              _kong_name(seat, kong.kind, TILE_TEXT[kong.tile]), why)
            return
        self.no_kongs.add(seat)
        if forfeit is Forfeit.ALL_KONGS:
            self.book.say("none of seat {seat}'s kongs score ({why:whykong}: 烧豆)", seat,
                          why)
        else:
            self.no_chickens.add(seat)
            self.book.say("none of seat {seat}'s kongs or chickens score "
                          "({why:whykong}: 全烧)", seat, why)

    # ----------------------------------------------------------------- wins
    def settle_win(self, win: WinFact) -> None:
        replay, plan, book = self.replay, self.plan, self.book
        parts, scored, per_payer, formula = _win_parts(replay, win, plan, self.streak)
        seat = win.seat
        if plan.missed_win and not win.self_drawn and _is_missed_win(replay, win):
            headline = _win_headline(win, replay)
            # 包牌: the winner let a win pass and won before drawing again: it pays its
            # hand value to every other player instead of being paid.
            _reason, hand_value, hand_text, _name = parts[0]
            payees = _others(seat, self.n)
            for payee in payees:
                book.pay(seat, payee, hand_value, _R_HAND,
                         Message("包牌: {t:part* + }, paid by the winner", _terms(hand_text)))
            book.say("{h:headline}, but it had let a win pass since its last discard "
                     "(包牌): it pays its hand {t:part* + } to {p:payers} ({n} in all)",
                     headline, _terms(hand_text), _each_of(payees),
                     hand_value * self.pts * len(payees))
            self.wins.append(WinValue(seat, scored, hand_value * self.pts, payees,
                                      penalty=True))
            return
        if win.self_drawn:
            payers: tuple[int, ...] = _others(seat, self.n)
            shares = 1
        else:
            assert win.from_seat is not None
            payers = (win.from_seat,)
            shares = (self.n - 1 if win.robbed_kong and plan.robbed_pays_for_all
                      and not plan.robbed_multiplier else 1)
        stake = book.stake
        append = book.items.append
        if shares > 1:
            for payer in payers:
                for reason, value, text, _name in parts:
                    book.pay(payer, seat, value * shares, reason,
                             Message("{p:part} x {n} (包三家: for every other player)", text,
                                     shares))
        else:
            for payer in payers:
                if payer == seat:
                    continue
                for reason, value, text, _name in parts:
                    if value:
                        append(_new(LedgerItem, (payer, seat, value * stake, reason, text)))
        total = per_payer * self.pts
        if book.explain:
            if win.self_drawn:
                paid = Message("paid by {p:payers} ({n} in all)", _each_of(payers),
                               total * len(payers))
            elif shares > 1:
                paid = Message("paid by seat {seat} for all {n} other players (包三家): {t:n}",
                               payers[0], shares, total * shares)
            else:
                paid = Message("paid by seat {seat}", payers[0])
            if self.pts != 1:
                book.say("{h:headline}: {f:part* + } = {v:n} x stake {s:n}, {p:paid}",
                         _win_headline(win, replay), formula, per_payer, self.pts,
                         paid)
            else:
                book.say("{h:headline}: {f:part* + } = {v:n}, {p:paid}",
                         _win_headline(win, replay), formula, per_payer, paid)
        key = (seat, scored, total, payers)
        win_value = _WIN_VALUES.data.get(key)
        if win_value is None:
            win_value = _WIN_VALUES.put(key, WinValue(seat, scored, total, payers))
        self.wins.append(win_value)
        if win.kill_ready and plan.ready_kill and not win.self_drawn:
            assert win.from_seat is not None
            declarer = replay.seats[win.from_seat]
            dv = _declared_value(declarer, plan)
            kind = Message("硬报" if declarer.hard_ready else "软听")
            if book.pay(win.from_seat, seat, dv, Reason.KILL_READY,
                        Message("kill_ready 杀报 {n}: seat {seat} had declared ready "
                                "({kind:readykind})", dv, win.from_seat, kind)):
                book.say("seat {seat} had declared ready ({kind:readykind}) and dealt "
                         "the win (杀报): it also pays seat {w:seat} {n}", win.from_seat,
                         kind, seat, dv * self.pts)
        if win.hot_discard:
            assert win.from_seat is not None
            self._forfeit(win.from_seat, self.rs.hot_discard.forfeit, _hot_kong(replay, win),
                          _HOT_FORFEIT)
        if win.robbed_kong:
            assert win.from_seat is not None
            if plan.robbed_forfeit is not Forfeit.KONG:
                self._forfeit(win.from_seat, plan.robbed_forfeit, None,
                              _ROBBED_FORFEIT)

    # ----------------------------------------------------------------- kongs
    def settle_kongs(self) -> None:
        plan, book = self.plan, self.book
        n = self.n
        for seat in self.replay.seats:
            if not seat.kongs:
                continue
            s = seat.seat
            for kong in seat.kongs:
                kind = kong.kind
                tile = TILE_TEXT[kong.tile]
                name = _kong_name(s, kind, tile)
                if kong.robbed:
                    book.say("{k:kongname} was robbed (抢杠) and does not stand", name)
                    continue
                if s in self.no_kongs or kong.event_index in self.no_kong_at:
                    continue  # said when forfeited
                if kong.delayed and not plan.kongs_delayed_score:
                    book.say("{k:kongname} was made late (憨包豆): a pass only, it scores "
                             "nothing", name)
                    continue
                if plan.kongs_need_ready and not (seat.won or seat.ready):
                    if plan.kongs_pay_back:
                        self.pay_back(seat, kong, name)
                    else:
                        book.say("{k:kongname} does not score: seat {seat} neither won "
                                 "nor is ready (双杀)", name, s)
                    continue
                value = plan.kong_values[kind]
                if kind is _EXPOSED and plan.exposed_by_discarder:
                    assert kong.from_seat is not None
                    payers: tuple[int, ...] = (kong.from_seat,)
                else:
                    payers = _others(s, n)
                book.pay_each(payers, s, value, _KONG_REASON[kind], _kong_detail(kind, tile))
                if value:
                    book.say("{k:kongname}: {n} from {p:payers}", name,
                             value * self.pts, _each_of(payers))

    def pay_back(self, seat: SeatFacts, kong: KongFact, name: Message) -> None:
        """倒赔: the kong of a seat that neither won nor is ready is paid back, by its owner
        to each player who won or is ready."""
        value = self.plan.kong_values[kong.kind]
        payees = [p for p in _others(seat.seat, self.n)
                  if self.collects(self.replay.seats[p])]
        if not value or not payees:
            self.book.say("{k:kongname} does not score: seat {seat} neither won nor is "
                          "ready (双杀), and nobody who won or is ready is paid back",
                          name, seat.seat)
            return
        for payee in payees:
            self.book.pay(seat.seat, payee, value, _KONG_REASON[kong.kind],
                          Message("倒赔: {k:kongkind} kong {c:cjk} {tile} paid back",
                                  kong.kind.value, _KONG_CHINESE[kong.kind],
                                  TILE_TEXT[kong.tile]))
        self.book.say("{k:kongname} does not score: seat {seat} neither won nor is "
                      "ready, and pays it back (倒赔): {n} to {p:payers}", name,
                      seat.seat, value * self.pts, _each_of(payees))

    # ----------------------------------------------------------------- chickens
    def _chicken_tiles(self, flipped: Tile | None) -> tuple[Tile, ...]:
        """The chicken tiles of the hand: the standing ones, then the flipped one."""
        tiles = self.plan.standing_tiles
        if flipped is not None and flipped not in tiles:
            tiles = (*tiles, flipped)
        return tiles

    def _won_on_discard(self) -> dict[int, list[Tile]]:
        """The discards each seat won on (a winner by self-draw holds its tile)."""
        won_on = self._won_on
        if won_on is None:
            won_on = {}
            for w in self.replay.winners:
                if not w.self_drawn:
                    won_on.setdefault(w.seat, []).append(w.tile)
            self._won_on = won_on
        return won_on

    def _chicken_groups(
        self, seat: SeatFacts, tiles: tuple[Tile, ...], gold: Tile | None
    ) -> list[_Group]:
        """A collecting seat's chickens of ``tiles`` (:meth:`_chicken_tiles`), the wildcard
        and its charging ones: (kind, tile, count, value in all, text) groups.

        Counted among the tiles a seat holds at the end (concealed, a discard it won on,
        melds) and, with the ``hand_and_discards`` scope, its unclaimed discards that are
        not charging chickens."""
        plan = self.plan
        charging_by_seat = self._charging_by_seat()
        charging = charging_by_seat.get(seat.seat, _NO_CHARGING) if charging_by_seat else ()
        concealed = seat.concealed
        melds = seat.melds
        won_on = self._won_on_discard()
        won = won_on.get(seat.seat, _NOTHING_WON) if won_on else _NOTHING_WON
        unclaimed: list[Tile] = _NOTHING_WON
        if plan.scope_discards:
            if charging:
                unclaimed = [row[0] for row in seat.river
                             if row[3] is None and (row[1], row[0]) not in charging]
            else:
                unclaimed = [row[0] for row in seat.river if row[3] is None]
        groups: list[_Group] = []
        passed = self._passed.get(seat.seat) if self._passed else None
        for tile in tiles:
            count = concealed.count(tile)
            if passed:  # a charging chicken taken over is counted as charging only
                count -= sum(1 for _i, t in passed if t is tile)
            if won:
                count += won.count(tile)
            if melds:
                for meld in melds:
                    if meld.tile == tile:
                        count += 3 if meld.kind is _PONG else 4
            if unclaimed:
                count += unclaimed.count(tile)
            if not count:
                continue
            is_gold = tile == gold
            if plan.ckv and any(m.tile == tile and m.kind is _CONCEALED_KONG for m in melds):
                kind, _unit = plan.chicken_kind(tile, is_gold)
                value = plan.ckv * (plan.gold_multiplier if is_gold else 1)
                groups.append((kind, tile, 4, value,
                               Message(_CHICKEN_KONG[kind], TILE_TEXT[tile], value)))
                count -= 4
            if count:
                group = plan.chicken_groups.data.get((tile, is_gold, count))
                if group is None:
                    group = plan.chicken_group(tile, is_gold, count)
                groups.append(group)
        wildcard_value = plan.wildcard_value
        if wildcard_value:
            wild = concealed.count(_WILD) + won.count(_WILD) + unclaimed.count(_WILD)
            for meld in melds:
                if meld.tile == _WILD:
                    wild += 3 if meld.kind is _PONG else 4
            if wild:
                groups.append((_STANDING, _WILD, wild, wild * wildcard_value,
                               cached("{n} x W wildcard 万能鸡 ({v:n})", wild, wildcard_value)))
        if charging:
            by_tile = plan.standing_by_tile
            for _index, tile in sorted(charging):
                standing = by_tile[tile]
                assert standing is not None
                value = standing.charging * (plan.gold_multiplier if tile == gold else 1)
                groups.append((_CHARGING, tile, 1, value,
                               cached("charging gold {tile} 冲锋鸡 ({v:n})" if tile == gold
                                      else "charging {tile} 冲锋鸡 ({v:n})", TILE_TEXT[tile],
                                      value)))
        return groups

    def charging_of(self, seat: int) -> AbstractSet[tuple[int, Tile]]:
        """(event index, tile) of the seat's charging chickens: first discards of a
        standing tile with a charging value, left unclaimed."""
        return self._charging_by_seat().get(seat, _NO_CHARGING)

    def _charging_by_seat(self) -> dict[int, set[tuple[int, Tile]]]:
        """:meth:`charging_of` every seat that has charging chickens."""
        by_seat = self._charging
        if by_seat is None:
            by_seat = {}
            standing_by_tile = self.plan.standing_by_tile
            passes = self.plan.charging_passes
            for cd in self._charging_candidates():
                owner = cd.seat
                if cd.claimed_by is not None:
                    if not passes:
                        continue
                    if self.collects(self.replay.seats[cd.claimed_by]):
                        owner = cd.claimed_by  # passes to a claimer who won or is ready
                        self._passed.setdefault(owner, set()).add((cd.event_index, cd.tile))
                standing = standing_by_tile[cd.tile]
                if standing is not None and standing.charging:
                    by_seat.setdefault(owner, set()).add((cd.event_index, cd.tile))
            self._charging = by_seat
        return by_seat

    def _charging_candidates(self) -> Sequence[ChickenDiscard]:
        """The first discards that may be charging chickens: one per standing tile, or with
        ``charging_scope = "per_hand"`` only the first of them (claimed or not)."""
        discards = self.replay.chicken_discards
        if not self.plan.charging_per_hand or len(discards) < 2:
            return discards
        standing_by_tile = self.plan.standing_by_tile
        charging = [cd for cd in discards
                    if (st := standing_by_tile[cd.tile]) is not None and st.charging]
        return [min(charging, key=lambda cd: cd.event_index)] if charging else []

    def flip_chicken(self) -> tuple[Tile | None, Tile | None]:
        """The flipped chicken tile and the gold one (a standing tile the flip names)."""
        flip = self.replay.flip
        if flip is None:
            if self.plan.flip_chicken:
                self.book.say("no tile was flipped (the wall is empty): standing chickens "
                              "only")
            return None, None
        if flip == _WILD:
            self.book.say("the flip is a wildcard W: no flipped chicken")
            return None, None
        tile = _NEXT_IN_SUIT[flip]
        explain = self.book.explain
        if self.plan.standing_by_tile[tile] is not None:
            mult = self.plan.gold_multiplier
            if explain:
                self.book.say("flip {f:tile}: {tile} is the chicken, a standing one: "
                              "gold 金鸡, its amounts x {n}", TILE_TEXT[flip],
                              TILE_TEXT[tile], mult)
            return tile, tile
        if explain:
            self.book.say("flip {f:tile}: {tile} is the flipped chicken 翻鸡 ({n} each)",
                          TILE_TEXT[flip], TILE_TEXT[tile],
                          self.plan.flip_value * self.pts)
        return tile, None

    def settle_chickens(self) -> None:
        plan, book = self.plan, self.book
        flipped, gold = self.flip_chicken()
        if self.replay.chicken_discards and book.explain:
            self.explain_charging()
        tiles = self._chicken_tiles(flipped)
        # Counting only what it holds, a seat with no charging chicken and no discard won
        # on has no chickens when neither its hand nor its melds hold a chicken tile.
        held_only = not plan.scope_discards
        tile_set = frozenset((*tiles, _WILD) if plan.wildcard_value else tiles)
        charging = self._charging_by_seat()
        won_on = self._won_on_discard()
        n = self.n
        for seat in self.replay.seats:
            s = seat.seat
            if s in self.no_chickens:
                continue
            if (held_only and s not in charging and s not in won_on
                    and tile_set.isdisjoint(seat.concealed)):
                for meld in seat.melds:
                    if meld.tile in tile_set:
                        break
                else:
                    continue
            groups = self._chicken_groups(seat, tiles, gold)
            if not groups:
                continue
            if plan.need_ready and not (seat.won or seat.ready):
                if book.explain:
                    book.say("seat {seat}'s chickens ({c:chickens}) do not score: it neither "
                             "won nor is ready (双杀)", s, _chickens(groups))
                continue
            payers = _others(s, n)
            if plan.chickens_from_unready:
                seats_ = self.replay.seats
                payers = tuple([p for p in payers if not self.collects(seats_[p])])
                if not payers:
                    if book.explain:
                        book.say("seat {seat}'s chickens ({c:chickens}): nobody pays, every "
                                 "other player won or is ready (chickens are paid by players "
                                 "not ready)", s, _chickens(groups))
                    continue
            self._pay_groups(s, groups, payers)
        seats = self.replay.seats
        self.settle_responsibility(gold, lambda claimer, discarder: (
            claimer not in self.no_chickens
            and (not plan.need_ready or self.collects(seats[claimer]))
            and (not plan.responsibility_unready or (
                self.collects(seats[claimer]) and not self.collects(seats[discarder])))))
        if plan.penalty:
            self.settle_penalty(gold)

    def _pay_groups(self, seat: int, groups: list[_Group], payers: Sequence[int]) -> None:
        book = self.book
        stake = book.stake
        append = book.items.append
        count_chickens = book.chickens.append
        each = 0
        for kind, tile, count, value, text in groups:
            reason = _R_CHARGING_CHICKEN if kind is _CHARGING else _R_CHICKEN
            amount = value * stake
            if amount:
                for payer in payers:
                    if payer != seat:
                        append(_new(LedgerItem, (payer, seat, amount, reason, text)))
            key = (seat, kind, tile, count)
            counted = _CHICKEN_COUNTS.data.get(key)
            if counted is None:
                counted = _CHICKEN_COUNTS.put(key, ChickenCount(seat, kind, tile, count))
            count_chickens(counted)
            each += value
        if book.explain:
            book.say("seat {seat}'s chickens: {c:chickens} = {n} from {p:payers}", seat,
                     _chickens(groups), each * self.pts, _each_of(payers))

    def settle_responsibility(self, gold: Tile | None, pays: _Pays) -> None:
        plan = self.plan
        for cd in self.replay.chicken_discards:
            standing = plan.standing_by_tile[cd.tile]
            if standing is None or not standing.responsibility or cd.claimed_by is None:
                continue
            if cd.claim is not _CLAIM_PONG and cd.claim is not _CLAIM_EXPOSED_KONG:
                continue
            claimed = _PONGED if cd.claim is _CLAIM_PONG else _KONGED
            if cd.claim is _CLAIM_EXPOSED_KONG and not plan.responsibility_on_kong:
                self.book.say("the first {tile} was discarded by seat {seat} (event "
                              "{e:n}) and konged by seat {by:seat}: no responsibility "
                              "chicken 责任鸡 (only a pong makes one)",
                              TILE_TEXT[cd.tile], cd.seat, cd.event_index,
                              cd.claimed_by)
                continue
            value = standing.responsibility * (plan.gold_multiplier if cd.tile == gold else 1)
            tile = TILE_TEXT[cd.tile]
            if pays(cd.claimed_by, cd.seat):
                self.book.pay(cd.seat, cd.claimed_by, value, Reason.RESPONSIBILITY_CHICKEN,
                              Message("responsibility 责任鸡 {tile} {how:claimed} at event {e:n} "
                                      "({v:n})", tile, claimed, cd.event_index, value))
                self.book.chickens.append(
                    ChickenCount(cd.claimed_by, _RESPONSIBILITY, cd.tile, 1))
                self.book.say("the first {tile} was discarded by seat {seat} (event "
                              "{e:n}) and {how:claimed} by seat {by:seat}: "
                              "responsibility chicken 责任鸡, seat {p:seat} pays seat "
                              "{q:seat} {n}", tile, cd.seat, cd.event_index, claimed,
                              cd.claimed_by, cd.seat, cd.claimed_by, value * self.pts)
            else:
                self.book.say("the first {tile} was discarded by seat {seat} (event "
                              "{e:n}) and {how:claimed} by seat {by:seat}: no "
                              "responsibility chicken 责任鸡 is paid (seat {c:seat} does "
                              "not collect chickens)", tile, cd.seat, cd.event_index,
                              claimed, cd.claimed_by, cd.claimed_by)

    def explain_charging(self) -> None:
        """Say why a standing tile has no charging chicken (the ones paid are said above)."""
        standing_by_tile = self.plan.standing_by_tile
        candidates = self._charging_candidates()
        for cd in self.replay.chicken_discards:
            standing = standing_by_tile[cd.tile]
            if standing is None or not standing.charging:
                continue
            tile = TILE_TEXT[cd.tile]
            if cd not in candidates:
                first = candidates[0]
                self.book.say("no charging chicken 冲锋鸡 for {tile}: one per hand, and "
                              "the first standing chicken discarded was {f:tile} (seat "
                              "{seat}, event {e:n})", tile, TILE_TEXT[first.tile],
                              first.seat, first.event_index)
            elif cd.claimed_by is not None and self.plan.charging_passes:
                how = _CLAIMED_HOW[cd.claim or _CLAIM_PONG]
                owner = next(seat for seat, got in self._charging_by_seat().items()
                             if (cd.event_index, cd.tile) in got)
                whose = ("the first {tile} discarded (seat {seat}, event {e:n}) was "
                         "{how:claimed} by seat {by:seat}: it passes to the claimer, who won "
                         "or is ready, seat {o:seat}'s charging chicken 冲锋鸡"
                         if owner == cd.claimed_by else
                         "the first {tile} discarded (seat {seat}, event {e:n}) was "
                         "{how:claimed} by seat {by:seat}: the claimer neither won nor is "
                         "ready, so it stays with its discarder, seat {o:seat}'s charging "
                         "chicken 冲锋鸡")
                self.book.say(whose, tile, cd.seat, cd.event_index, how, cd.claimed_by,
                                      owner)
            elif cd.claimed_by is not None:
                how = _CLAIMED_HOW[cd.claim or _CLAIM_PONG]
                self.book.say("no charging chicken 冲锋鸡 for {tile}: the first one (seat "
                              "{seat}, event {e:n}) was {how:claimed} by seat "
                              "{by:seat}", tile, cd.seat, cd.event_index, how,
                              cd.claimed_by)
            else:
                self.book.say("the first {tile} discarded (seat {seat}, event {e:n}) was "
                              "left unclaimed: seat {o:seat}'s charging chicken 冲锋鸡",
                              tile, cd.seat, cd.event_index, cd.seat)

    def settle_penalty(self, gold: Tile | None) -> None:
        """包鸡: a player not ready pays each collecting player for its exposed standing
        chickens (unclaimed discards, the charging one at its charging value, and melds)."""
        ch = self.rs.chickens
        melds_count = ch.penalty_counts is PenaltyCounts.DISCARDS_AND_MELDS
        seats = self.replay.seats
        payees = [s.seat for s in seats if self.collects(s) and s.seat not in self.no_chickens]
        unready = [s.seat for s in seats if not self.collects(s)]
        for seat in seats:
            if self.collects(seat):
                continue
            charging = self.charging_of(seat.seat)
            unclaimed = [d.tile for d in seat.discards
                         if d.claimed_by is None and (d.event_index, d.tile) not in charging]
            parts: list[Message] = []
            value = 0
            for standing in ch.standing:
                tile = standing.tile
                mult = ch.gold_multiplier if tile is gold else 1
                count = unclaimed.count(tile)
                if melds_count:
                    count += sum(m.size for m in seat.melds if m.tile is tile)
                if count:
                    value += count * standing.value * mult
                    parts.append(Message("{n} x {tile} ({v:n})", count, tile,
                                         standing.value * mult))
                if any(t is tile for _i, t in charging):
                    value += standing.charging * mult
                    parts.append(Message("charging {tile} ({v:n})", tile,
                                         standing.charging * mult))
            if not value:
                continue
            targets = [p for p in payees if p != seat.seat]
            text = Message("{c:chickenpart*, }", parts)
            if not self.plan.penalty_every_unready:
                for payee in targets:
                    self.book.pay(seat.seat, payee, value, Reason.CHICKEN_PENALTY,
                                  Message("包鸡: exposed {c:chickens}", text))
                if targets:
                    self.book.say("seat {seat} is not ready and exposed {c:chickens} "
                                  "(包鸡): it pays {n} to {p:payers}", seat.seat, text,
                                  value * self.pts, _each_of(targets))
                continue
            for payer in unready:
                for payee in targets:
                    self.book.pay(payer, payee, value, Reason.CHICKEN_PENALTY,
                                  Message("包鸡: seat {seat} exposed {c:chickens}", seat.seat,
                                          text))
            if targets:
                self.book.say("seat {seat} is not ready and exposed {c:chickens} "
                              "(包鸡): {u:payers} pays {n} to {p2:payers}", seat.seat,
                              text, Message("{s:seats} (every player not ready)",
                                                    _each_of(unready)),
                              value * self.pts, _each_of(targets))

    # ----------------------------------------------------------------- 相公
    def settle_false_hands(self) -> None:
        """相公: a seat dealt a wrong tile count (the deal's ``false_hand`` findings) pays each
        other seat ``false_hand``, a ready one (that did not win) its best waiting value."""
        replay, book = self.replay, self.book
        false_seats = sorted({v.seat for v in replay.violations
                              if v.code is ViolationCode.FALSE_HAND and v.seat is not None})
        for seat in false_seats:
            parts: list[str] = []
            for other in _others(seat, self.n):
                facts = replay.seats[other]
                best = best_waiting_value(facts, self.rs)
                if best is None:
                    value = self.plan.false_hand
                    detail = Message("相公: seat {seat} has a false hand, seat {o:seat} won"
                                     if facts.won else
                                     "相公: seat {seat} has a false hand, seat {o:seat} not ready",
                                     seat, other)
                else:
                    tile, pattern, value = best
                    detail = Message("相公: seat {seat} has a false hand, seat {o:seat} ready, "
                                     "best wait {tile} {p:patlabel} {v:n}", seat, other,
                                     TILE_TEXT[tile], _PATTERN_LABEL[pattern], value)
                if book.pay(seat, other, value, Reason.FALSE_HAND, detail):
                    parts.append(f"seat {other} {value * self.pts}")
            if parts and book.explain:  # (a sentence the glossary has no Chinese for)
                book.lines.append(f"seat {seat} has a false hand (相公, 多牌少牌): it pays "
                                  + ", ".join(parts) + " (a ready player its waiting value)")

    # ----------------------------------------------------------------- 开局跟
    def settle_follow_dealer(self) -> None:
        """开局跟: the first discard of every seat, in turn from the dealer with nothing
        claimed, is the same tile: the dealer pays each other seat ``follow_dealer``."""
        value = self.plan.follow_dealer
        replay = self.replay
        n, dealer = self.n, replay.dealer
        firsts: list[tuple[Tile, int, int | None]] = []
        for k in range(n):
            river = replay.seats[(dealer + k) % n].river
            if not river:
                return
            firsts.append((river[0][0], river[0][1], river[0][3]))
        tile = firsts[0][0]
        if any(t is not tile or claimed is not None for t, _i, claimed in firsts):
            return
        order = sorted(row[1] for seat in replay.seats for row in seat.river)[:n]
        if [index for _t, index, _c in firsts] != order:
            return  # not the hand's first discards one after another
        payees = _others(dealer, n)
        for payee in payees:
            self.book.pay(dealer, payee, value, Reason.FOLLOW_DEALER,
                          Message("开局跟: followed the dealer's first discard {tile}",
                                  TILE_TEXT[tile]))
        self.book.say("the first discards of every seat from the dealer on were {tile} "
                      "(开局跟): the dealer, seat {seat}, pays {n} to {p:payers}",
                      TILE_TEXT[tile], dealer, value * self.pts, _each_of(payees))

    # ----------------------------------------------------------------- exhaustive draw
    def settle_draw(self) -> None:
        rs, book = self.rs, self.book
        seats = self.replay.seats
        ready = [s.seat for s in seats if s.ready]
        unready = [s.seat for s in seats if not s.ready]
        book.say(
            "exhaustive draw 黄庄: {r:ready_list}{u:unready_list}",
            Message("ready {s:seats}", _seats_text(ready)) if ready
            else Message("nobody is ready"),
            Message("; not ready {s:seats}", _seats_text(unready)) if unready
            else Message("; everybody is ready"))
        book.say("no kong is paid at an exhaustive draw")
        if rs.draw.ready_check and ready and unready:
            for r in ready:
                best = best_waiting_value(seats[r], rs)
                if best is None:
                    continue
                tile, pattern, value = best
                for u in unready:
                    book.pay(u, r, value, Reason.READY_CHECK,
                             Message("查叫: best wait {tile} {p:patlabel} {v:n}", tile,
                                     _PATTERN_LABEL[pattern], value))
                waits = format_tiles(seats[r].waits)
                book.say("查叫: seat {seat} waits on {t:tiles}, best {tile} {p:patlabel} "
                         "{v:n}: {n} from {q:payers}", r, waits, tile,
                         _PATTERN_LABEL[pattern], value, value * self.pts,
                         _each_of(unready))
        if rs.chickens.at_exhaustive_draw is DrawChickens.UNREADY_PAY_READY and ready and unready:
            for r in ready:
                groups = self._chicken_groups(seats[r], self.plan.standing_tiles, None)
                if groups:
                    self._pay_groups(r, groups, unready)
            self.settle_responsibility(
                None, lambda claimer, discarder: claimer in ready and discarder in unready)

    # ----------------------------------------------------------------- dealer
    def next_dealer(self) -> int:
        replay = self.replay
        if self.plan.rotate_dealer:
            nxt = (replay.dealer + 1) % self.n
            if self.book.explain:
                self.book.say("next dealer: seat {seat} (the deal passes every hand: "
                              "轮流坐庄)", nxt)
            return nxt
        if replay.outcome is _WIN and len(replay.winners) == 1:
            nxt = replay.winners[0].seat  # a single winner deals next
            if self.book.explain:
                self.book.say("next dealer: seat {seat} ({why:dealer_why})", nxt,
                              Message("the winner"))
            return nxt
        nxt = next_dealer_of(replay, self.rs)
        if self.book.explain:
            self.book.say("next dealer: seat {seat} ({why:dealer_why})", nxt,
                          self._dealer_why(nxt))
        return nxt

    def _dealer_why(self, nxt: int) -> Message:
        replay = self.replay
        seats = {w.seat for w in replay.winners}
        if replay.outcome is _WIN:
            if len(seats) == 1:
                return Message("the winner")
            rule = self.rs.dealer.two_winners if len(seats) == 2 else self.rs.dealer.three_winners
            return Message("{n} winners on one tile: {rule:word}", len(seats), rule.value)
        rule_d = self.rs.dealer.exhaustive_draw
        return Message("exhaustive draw: {rule:word}", rule_d.value)


def next_dealer_of(replay: HandReplay, ruleset: Ruleset) -> int:
    """Who deals next, by the preset's hand-over rules (see ``DealerSettings``)."""
    n = replay.n_players
    dealer = replay.dealer
    if ruleset.dealer.rotation is DealerRotation.EVERY_HAND:
        return (dealer + 1) % n
    if replay.outcome is _WIN:
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
    replay: HandReplay,
    ruleset: Ruleset,
    base_stake: int = 1,
    *,
    dealer_streak: int = 0,
    explain: bool = True,
) -> Settlement | None:
    """The settlement of a replayed hand; None when the replay stopped on a fatal violation
    (``Outcome.INCOMPLETE``). ``dealer_streak`` is the hand's 连庄 count (the record's).

    With ``explain=False`` the settlement is the same but its ``explanation`` is empty,
    and the text is never built (for bulk work that stores no explanation)."""
    if base_stake < 1:
        raise ValueError(f"the base stake must be at least 1, not {base_stake}")
    if replay.outcome is _INCOMPLETE:
        return None
    s = _Settler(replay, ruleset, base_stake, dealer_streak, explain)
    if base_stake != 1:
        s.book.say("amounts are points: values x base stake {n}", base_stake)
    if replay.outcome is _WIN:
        for win in replay.winners:
            s.settle_win(win)
        s.settle_kongs()
        s.settle_chickens()
    else:
        s.settle_draw()
    if s.plan.false_hand:
        s.settle_false_hands()
    if s.plan.follow_dealer:
        s.settle_follow_dealer()
    nxt = s.next_dealer()
    book = s.book
    deltas = book.deltas()
    if explain:
        book.say("deltas: {d:deltapart*, }", [
            Message("seat {seat} {d:n}", seat, f"{d:+d}" if d else "0")
            for seat, d in enumerate(deltas)])
    return Settlement(  # items, deltas, next_dealer, chickens, explanation, wins
        tuple(book.items), deltas, nxt, tuple(book.chickens), tuple(book.lines), tuple(s.wins)
    )


# --------------------------------------------------------------------------------------
# the audit of a recorded result
# --------------------------------------------------------------------------------------

def audit_result(
    settlement: Settlement | None, recorded: RecordedResult | None, hand_no: int
) -> tuple[Violation, ...]:
    """The settlement checks of one hand against its recorded result (non-fatal findings):
    ``not_zero_sum``, ``score_mismatch``, ``item_mismatch``, ``item_sum_mismatch``,
    ``dealer_mismatch``, as :func:`zhuoji.rules.ledger.audit_ledger` gives them."""
    return audit_ledger(settlement, recorded, hand_no)
