"""A rule family kept in a test folder that plays the core's wall mechanics: dice after a
kong (开杠), the offer of the last tile (海底漫游) and birds (扎鸟), each switched on in its
``mechanics`` section (``tests/rules/test_wall_events.py``).

It plays on the Guizhou table: its settings model extends Guizhou's with its own family
name and the ``mechanics`` section (no 翻鸡 flip, no 通行证), and it takes Guizhou's table
rules (which pass a ruleset's mechanics to the core), settlement and audit, so that its
hands run through ``zhuoji audit --json`` like any Guizhou hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from zhuoji.rules.families import Family, register
from zhuoji.rules.families.guizhou.legality import table_rules
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import audit_result, settle
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.tiles import TileSet

WALL_MECHANICS = Mechanics(
    kong_dice=True, kong_dice_needs_ready=True, kong_dice_locks_hand=True, seabed=True,
    birds=1, seabed_tile_is_bird=True,
)
"""Every wall mechanic on, as the Changsha table plays them (seed 003, second game)."""


class WallRuleset(Ruleset):
    family: Literal["wall"] = Field("wall", description="the rule family")  # type: ignore[assignment]
    flip_chicken: bool = Field(False, description="翻鸡: a tile is flipped after a win")
    pass_rule: bool = Field(False, description="通行证 needed to win on a discard")
    mechanics: Mechanics = Field(WALL_MECHANICS, description="the core's mechanics played")


def wall_ruleset(**settings: object) -> WallRuleset:
    """A ruleset named ``wall-test`` with ``settings`` replaced (``mechanics`` as a table)."""
    return WallRuleset.model_validate({"name": "wall-test", **settings})


FAMILY = register(
    Family(
        name="wall",
        title="a test family: dice after a kong, the last tile offered, birds",
        settings=WallRuleset,
        settle=settle,
        audit_result=audit_result,
        patterns=("plain",),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"roll", "seabed", "bird"}),
        table_rules=table_rules,
    )
)
