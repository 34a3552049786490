"""The Guizhou family's registration (:mod:`zhuoji.rules.families` imports this module)."""

from __future__ import annotations

from types import MappingProxyType

from zhuoji.rules.families import Family, register
from zhuoji.rules.families.guizhou.events import EVENT_KINDS
from zhuoji.rules.families.guizhou.faults import FAULTS
from zhuoji.rules.families.guizhou.legality import table_rules
from zhuoji.rules.families.guizhou.panel import hand_marks, panel_marks
from zhuoji.rules.families.guizhou.patterns import Pattern
from zhuoji.rules.families.guizhou.referee import json_keys, text_lines
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import audit_result, settle
from zhuoji.rules.families.guizhou.warehouse import chicken_counts
from zhuoji.rules.tiles import TileSet

FAMILY: Family = register(
    Family(
        name="guizhou",
        settings=Ruleset,
        settle=settle,
        audit_result=audit_result,
        patterns=tuple(p.value for p in Pattern),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"ready", "flip"}),
        table_rules=table_rules,
        chickens=True,
        default=True,
        extras=MappingProxyType({"simulate": "zhuoji.rules.families.guizhou.simulate"}),
        panel_marks=panel_marks,
        hand_marks=hand_marks,
        event_declarations=EVENT_KINDS,
        faults=FAULTS,
        text_lines=text_lines,
        json_keys=json_keys,
        chicken_counts=chicken_counts,
    )
)
"""The family as registered."""
