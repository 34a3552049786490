"""The Sichuan family's registration (:mod:`zhuoji.rules.families` imports this module)."""

from __future__ import annotations

from types import MappingProxyType

from zhuoji.rules.families import Family, register
from zhuoji.rules.families.sichuan.faults import FAULTS
from zhuoji.rules.families.sichuan.legality import table_rules
from zhuoji.rules.families.sichuan.patterns import Pattern
from zhuoji.rules.families.sichuan.referee import json_keys, text_lines
from zhuoji.rules.families.sichuan.settings import Ruleset
from zhuoji.rules.families.sichuan.settlement import audit_result, settle
from zhuoji.rules.tiles import TileSet

FAMILY: Family = register(
    Family(
        name="sichuan",
        settings=Ruleset,
        settle=settle,
        audit_result=audit_result,
        patterns=tuple(p.value for p in Pattern),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"exchange", "declare_suit"}),
        table_rules=table_rules,
        extras=MappingProxyType({"simulate": "zhuoji.rules.families.sichuan.simulate"}),
        faults=FAULTS,
        text_lines=text_lines,
        json_keys=json_keys,
        refuses_chow=True,  # no chow (吃): a chow is chow_not_allowed
    )
)
"""The family as registered."""
