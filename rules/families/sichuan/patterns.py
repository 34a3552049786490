"""The Sichuan patterns (番) of a win, and what a win is worth (``docs/rules/sichuan.md``).

A win counts the 番 of one hand name (:data:`HAND_NAMES`: 平胡 0, 对对胡 1, 清一色 2, 七对 2,
龙七对 3, 清对 3, 将对 3, 清七对 4, 清龙七对 5; when a hand reads two ways, the way worth
more), plus its extras (金钩钓, each 根, each kong where the table counts them, 门清, 中张,
带幺九), plus its situation (杠上花, 杠上炮, 抢杠胡, 海底捞月, 海底炮, 自摸加番); 天胡 and 地胡
are worth the cap. The value is ``base x 2 ** 番``, the 番 capped at ``fan_cap``.
:func:`win_fan` gives the itemised 番 (:class:`FanItem`) the settlement writes out, and
:func:`best_discard_fan` the best a ready hand could win on a discard (查大叫).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.families.sichuan.settings import Fan, Ruleset
from zhuoji.rules.hand import is_seven_pairs, is_standard_complete, waiting_tiles
from zhuoji.rules.melds import Meld, MeldKind

__all__ = [
    "HAND_NAMES",
    "SITUATIONS",
    "FanItem",
    "Pattern",
    "WinFan",
    "best_discard_fan",
    "capped",
    "hand_fan",
    "win_fan",
]

_SUITED = 27


class Pattern(StrEnum):
    """Every pattern a Sichuan win may count (each with its Chinese in the glossary)."""

    PLAIN = "plain"  # 平胡
    ALL_PUNGS = "all_pungs"  # 对对胡
    FULL_FLUSH = "full_flush"  # 清一色
    SEVEN_PAIRS = "seven_pairs"  # 七对
    DRAGON_SEVEN_PAIRS = "dragon_seven_pairs"  # 龙七对
    FULL_FLUSH_PUNGS = "full_flush_pungs"  # 清对
    ALL_258_PUNGS = "all_258_pungs"  # 将对
    FULL_FLUSH_SEVEN_PAIRS = "full_flush_seven_pairs"  # 清七对
    FULL_FLUSH_DRAGON_SEVEN_PAIRS = "full_flush_dragon_seven_pairs"  # 清龙七对
    GOLDEN_HOOK = "golden_hook"  # 金钩钓
    ROOT = "root"  # 根
    KONG = "kong"  # 杠 (a 番 per kong, the tournament rules)
    CONCEALED = "concealed"  # 门清
    ALL_SIMPLES = "all_simples"  # 中张
    TERMINALS = "terminals"  # 带幺九
    KONG_BLOOM = "kong_bloom"  # 杠上花
    KONG_DISCARD = "kong_discard"  # 杠上炮
    ROBBED_KONG = "robbed_kong"  # 抢杠胡
    SEABED_DRAW = "seabed_draw"  # 海底捞月
    SEABED_DISCARD = "seabed_discard"  # 海底炮
    HEAVENLY = "heavenly"  # 天胡
    EARTHLY = "earthly"  # 地胡
    SELF_DRAW = "self_draw"  # 自摸加番


HAND_NAMES: tuple[Pattern, ...] = (
    Pattern.PLAIN, Pattern.ALL_PUNGS, Pattern.FULL_FLUSH, Pattern.SEVEN_PAIRS,
    Pattern.DRAGON_SEVEN_PAIRS, Pattern.FULL_FLUSH_PUNGS, Pattern.ALL_258_PUNGS,
    Pattern.FULL_FLUSH_SEVEN_PAIRS, Pattern.FULL_FLUSH_DRAGON_SEVEN_PAIRS,
)
"""The names of a whole hand: a win counts exactly one."""

SITUATIONS: tuple[Pattern, ...] = (
    Pattern.KONG_BLOOM, Pattern.KONG_DISCARD, Pattern.ROBBED_KONG, Pattern.SEABED_DRAW,
    Pattern.SEABED_DISCARD, Pattern.HEAVENLY, Pattern.EARTHLY,
)
"""The patterns of how a win came (the table's situational names, in this order)."""


@dataclass(frozen=True, slots=True)
class FanItem:
    """One line of a win's 番: the pattern, how many times it counts, and its 番 in all."""

    pattern: Pattern
    count: int
    fan: int


@dataclass(frozen=True, slots=True)
class WinFan:
    """A win's itemised 番: its items in order, their sum, the 番 counted (capped, or the
    cap for 天胡/地胡) and whether the cap cut it."""

    items: tuple[FanItem, ...]
    total: int
    counted: int
    capped: bool
    cap: int | None = None  # the ruleset's cap (None: no cap)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(item.pattern.value for item in self.items)


def capped(fan: int, ruleset: Ruleset) -> tuple[int, bool]:
    """The 番 counted under the ruleset's cap, and whether the cap cut it."""
    cap = ruleset.fan_cap
    if cap is not None and fan > cap:
        return cap, True
    return fan, False


def _held(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    held = list(counts[:_SUITED])
    for meld in melds:
        for tile in meld.tiles:
            held[tile] += 1
    return held


def _all_pungs(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    if any(m.kind is MeldKind.CHOW for m in melds):
        return False
    pairs = 0
    for c in counts[:_SUITED]:
        if c == 2:
            pairs += 1
        elif c not in (0, 3):
            return False
    return pairs == 1


def _terminal_sets(counts: list[int], pair: bool) -> bool:
    """The concealed tiles split into sets and (``pair``) one pair, each holding a 1 or 9."""
    i = next((k for k in range(_SUITED) if counts[k]), -1)
    if i < 0:
        return not pair
    rank = i % 9
    if counts[i] >= 3 and rank in (0, 8):
        counts[i] -= 3
        ok = _terminal_sets(counts, pair)
        counts[i] += 3
        if ok:
            return True
    if pair and counts[i] >= 2 and rank in (0, 8):
        counts[i] -= 2
        ok = _terminal_sets(counts, False)
        counts[i] += 2
        if ok:
            return True
    if rank in (0, 6) and counts[i + 1] and counts[i + 2]:  # 123 or 789
        for k in range(3):
            counts[i + k] -= 1
        ok = _terminal_sets(counts, pair)
        for k in range(3):
            counts[i + k] += 1
        if ok:
            return True
    return False


def _hand_items(fan: Fan, counts: Sequence[int], melds: Sequence[Meld],
                tile: int | None) -> list[list[FanItem]]:
    """Each way the complete hand (``counts``: its concealed tiles with the winning tile
    ``tile``, when known) reads: its name and its extras (金钩钓, 根, kongs, 门清, 中张,
    带幺九)."""
    held = _held(counts, melds)
    suits = {t // 9 for t in range(_SUITED) if held[t]}
    flush = len(suits) == 1
    fours = sum(1 for t in range(_SUITED) if held[t] == 4)
    kongs = sum(1 for m in melds if m.is_kong)
    ways: list[list[FanItem]] = []
    common: list[FanItem] = []
    if fan.kong and kongs:
        counted = kongs * fan.kong
        if fan.kong_max is not None:
            counted = min(counted, fan.kong_max)
        common.append(FanItem(Pattern.KONG, kongs, counted))
    if fan.concealed and all(m.kind is MeldKind.CONCEALED_KONG for m in melds):
        common.append(FanItem(Pattern.CONCEALED, 1, fan.concealed))
    if fan.all_simples and not any(held[t] for t in range(_SUITED) if t % 9 in (0, 8)):
        common.append(FanItem(Pattern.ALL_SIMPLES, 1, fan.all_simples))
    roots = fours if fan.kong_is_root else fours - kongs
    if is_seven_pairs(list(counts) + [0] * (28 - len(counts)), len(melds)):
        # a pattern worth 0 is not played: 七对 with a four is then 七对 (清七对) and a 根
        dragon = fours > 0 and (fan.full_flush_dragon_seven_pairs if flush
                                else fan.dragon_seven_pairs) > 0
        if dragon:
            name = (Pattern.FULL_FLUSH_DRAGON_SEVEN_PAIRS if flush
                    else Pattern.DRAGON_SEVEN_PAIRS)
            value = (fan.full_flush_dragon_seven_pairs if flush else fan.dragon_seven_pairs)
        else:
            name = Pattern.FULL_FLUSH_SEVEN_PAIRS if flush else Pattern.SEVEN_PAIRS
            value = fan.full_flush_seven_pairs if flush else fan.seven_pairs
        items = [FanItem(name, 1, value), *common]
        _add_roots(items, fan, roots - (1 if dragon else 0))
        ways.append(items)
    if is_standard_complete(list(counts) + [0] * (28 - len(counts)), len(melds)):
        pungs = _all_pungs(counts, melds)
        if pungs:
            only_258 = all(t % 9 in (1, 4, 7) for t in range(_SUITED) if held[t])
            if flush:
                name, value = Pattern.FULL_FLUSH_PUNGS, fan.full_flush_pungs
            elif only_258 and fan.all_258_pungs:
                name, value = Pattern.ALL_258_PUNGS, fan.all_258_pungs
            else:
                name, value = Pattern.ALL_PUNGS, fan.all_pungs
        elif flush:
            name, value = Pattern.FULL_FLUSH, fan.full_flush
        else:
            name, value = Pattern.PLAIN, 0
        items = [FanItem(name, 1, value)]
        if fan.golden_hook and _golden_hook(fan, counts, melds, tile, pungs):
            items.append(FanItem(Pattern.GOLDEN_HOOK, 1, fan.golden_hook))
        items.extend(common)
        if fan.terminals and all(m.tile % 9 in (0, 8) for m in melds) and _terminal_sets(
                list(counts[:_SUITED]), True):
            items.append(FanItem(Pattern.TERMINALS, 1, fan.terminals))
        _add_roots(items, fan, roots)
        ways.append(items)
    return ways


def _golden_hook(fan: Fan, counts: Sequence[int], melds: Sequence[Meld], tile: int | None,
                 pungs: bool) -> bool:
    """金钩钓: all four sets melded (the one concealed tile waited on, and won on, for the
    pair); with ``fan.golden_hook_melded`` off, the tournament rules' 金钩: any 对对胡 won on
    its pair's tile (a 单钓 wait: the winning tile makes the pair, not a pung)."""
    if len(melds) == 4:
        return True
    if fan.golden_hook_melded or not pungs or tile is None:
        return False
    return counts[tile] == 2


def _add_roots(items: list[FanItem], fan: Fan, roots: int) -> None:
    if roots > 0 and fan.root:
        if fan.root_max is not None:
            roots = min(roots, fan.root_max)
        if roots:
            items.append(FanItem(Pattern.ROOT, roots, roots * fan.root))


def _total(items: Iterable[FanItem]) -> int:
    return sum(item.fan for item in items)


def hand_fan(fan: Fan, counts: Sequence[int], melds: Sequence[Meld],
             tile: int | None = None) -> list[FanItem]:
    """The hand's name and extras, the way worth most (the first of equal ways: seven
    pairs before the standard reading); empty when the hand is not complete. ``tile`` is
    the winning tile (the tournament's 金钩 needs it)."""
    ways = _hand_items(fan, counts, melds, tile)
    if not ways:
        return []
    return max(ways, key=_total)


def win_fan(ruleset: Ruleset, counts: Sequence[int], melds: Sequence[Meld],
            situations: Iterable[str], self_draw: bool, tile: int | None = None) -> WinFan:
    """A win's itemised 番: the hand (:func:`hand_fan`; ``tile`` the winning tile), then its
    situations (names of :data:`SITUATIONS`), then 自摸加番 when the ruleset plays it;
    capped."""
    fan = ruleset.fan
    items = hand_fan(fan, counts, melds, tile)
    values = {
        Pattern.KONG_BLOOM: fan.kong_bloom, Pattern.KONG_DISCARD: fan.kong_discard,
        Pattern.ROBBED_KONG: fan.robbed_kong, Pattern.SEABED_DRAW: fan.seabed_draw,
        Pattern.SEABED_DISCARD: fan.seabed_discard,
    }
    heavenly = False
    for name in situations:
        pattern = Pattern(name)
        if pattern in values:
            if values[pattern]:
                items.append(FanItem(pattern, 1, values[pattern]))
        elif pattern in (Pattern.HEAVENLY, Pattern.EARTHLY) and fan.heavenly_earthly:
            items.append(FanItem(pattern, 1, 0))
            heavenly = True
    if self_draw and ruleset.self_draw == "add_fan":
        items.append(FanItem(Pattern.SELF_DRAW, 1, 1))
    total = _total(items)
    counted, cut = capped(total, ruleset)
    if heavenly:  # 天胡 / 地胡: worth the cap (or their own 番), more if the hand is
        at = fan.heavenly_earthly_fan
        top = at if at is not None else ruleset.fan_cap
        assert top is not None  # the settings model requires one
        counted = max(top, counted)
        return WinFan(tuple(items), total, counted, total > counted, ruleset.fan_cap)
    return WinFan(tuple(items), total, counted, cut, ruleset.fan_cap)


def best_discard_fan(ruleset: Ruleset, counts: Sequence[int],
                     melds: Sequence[Meld]) -> tuple[int, int] | None:
    """查大叫: the most a ready hand (13 - 3 x melds concealed tiles) could count on a win on
    a discard (its hand's 番 alone, no 杠/海底 番), capped, and the wait that gives it;
    ``None`` when the hand is not ready."""
    best: tuple[int, int] | None = None
    padded = [*counts[:_SUITED], 0]
    for wait in waiting_tiles(padded, len(melds)):
        padded[wait] += 1
        counted = capped(_total(hand_fan(ruleset.fan, padded, melds, wait)), ruleset)[0]
        padded[wait] -= 1
        if best is None or counted > best[0]:
            best = (counted, int(wait))
    return best
