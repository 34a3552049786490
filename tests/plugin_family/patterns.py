"""The patterns of the 平胡 test family, in their canonical order, and the patterns of a
winning hand (read from its tile counts and its melds)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.tiles import NUM_SUITED


class Pattern(StrEnum):
    PLAIN = "ping"  # 平和
    PONGS = "duidui"  # 对对和
    PAIRS = "qidui"  # 七对子
    ONE_SUIT = "qingyise"  # 清一色
    SELF_DRAW = "zimo"  # 自摸


PATTERNS: tuple[str, ...] = tuple(p.value for p in Pattern)


def _all_pongs(counts: Sequence[int]) -> bool:
    """Every concealed set a pong: one pair, the rest threes."""
    pairs = sum(1 for c in counts if c == 2)
    return pairs == 1 and all(c in (0, 2, 3) for c in counts)


def shape_patterns(counts: Sequence[int], melds: Sequence[Meld]) -> tuple[str, ...]:
    """The shape patterns of a complete hand: ``counts`` (the concealed tiles with the
    winning one, by kind) and its melds."""
    suited = counts[:NUM_SUITED]
    names: list[str] = []
    if not melds and sum(suited) == 14 and all(c in (0, 2, 4) for c in suited):
        names.append(Pattern.PAIRS)
    elif all(m.kind is not MeldKind.CHOW for m in melds) and _all_pongs(suited):
        names.append(Pattern.PONGS)
    else:
        names.append(Pattern.PLAIN)
    held = {t // 9 for t in range(NUM_SUITED) if suited[t]} | {int(m.tile) // 9 for m in melds}
    if len(held) == 1:
        names.append(Pattern.ONE_SUIT)
    return tuple(names)
