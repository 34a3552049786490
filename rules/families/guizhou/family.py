"""The Guizhou family's registration (:mod:`zhuoji.rules.families` imports this module)."""

from __future__ import annotations

from types import MappingProxyType

from zhuoji.rules.families import Family, register
from zhuoji.rules.families.guizhou.legality import table_rules
from zhuoji.rules.families.guizhou.patterns import Pattern
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import audit_result, settle
from zhuoji.rules.families.guizhou.warehouse import chicken_counts
from zhuoji.rules.tiles import TileSet

FAMILY: Family = register(
    Family(
        name="guizhou",
        title="Guizhou 捉鸡: chickens, kongs 豆, 报听, 翻鸡; no chow, the hand ends at a win",
        settings=Ruleset,
        settle=settle,
        audit_result=audit_result,
        patterns=tuple(p.value for p in Pattern),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"ready", "flip"}),
        table_rules=table_rules,
        chickens=True,
        extras=MappingProxyType({"simulate": "zhuoji.rules.families.guizhou.simulate"}),
        chicken_counts=chicken_counts,
    )
)
"""The family as registered."""
