"""The Changsha family's registration (:mod:`zhuoji.rules.families` imports this module)."""

from __future__ import annotations

from types import MappingProxyType

from zhuoji.rules.families import Family, register
from zhuoji.rules.families.changsha.events import EVENT_KINDS
from zhuoji.rules.families.changsha.faults import FAULTS
from zhuoji.rules.families.changsha.legality import table_rules
from zhuoji.rules.families.changsha.patterns import Pattern
from zhuoji.rules.families.changsha.referee import json_keys, text_lines
from zhuoji.rules.families.changsha.settings import Ruleset
from zhuoji.rules.families.changsha.settlement import audit_result, settle
from zhuoji.rules.tiles import TileSet

FAMILY: Family = register(
    Family(
        name="changsha",
        settings=Ruleset,
        settle=settle,
        audit_result=audit_result,
        patterns=tuple(p.value for p in Pattern),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"chow", "roll", "seabed", "bird", "small_win"}),
        table_rules=table_rules,
        extras=MappingProxyType({"simulate": "zhuoji.rules.families.changsha.simulate"}),
        event_declarations=EVENT_KINDS,
        faults=FAULTS,
        text_lines=text_lines,
        json_keys=json_keys,
    )
)
"""The family as registered."""
