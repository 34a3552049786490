"""The 平胡 test family's registration: imported by the registry's lookup when
``ZHUOJI_FAMILIES`` names this folder (or an entry point of ``zhuoji.families`` names this
module)."""

from __future__ import annotations

from types import MappingProxyType

from zhuoji.rules.families import Family, register
from zhuoji.rules.tiles import TileSet

from .legality import table_rules
from .panel import panel_marks
from .patterns import PATTERNS
from .settings import Ruleset
from .settlement import audit_result, settle

FAMILY: Family = register(
    Family(
        name="pinghu",
        settings=Ruleset,
        settle=settle,
        audit_result=audit_result,
        patterns=PATTERNS,
        tile_set=TileSet.SUITED,
        table_rules=table_rules,
        extras=MappingProxyType({"simulate": f"{__package__}.simulate"}),
        panel_marks=panel_marks,
    )
)
