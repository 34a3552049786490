"""A rule family kept in a test folder: what the registry offers a family that is not
Guizhou, used through the public API only (``tests/rules/test_families.py``).

Its settings hold one top-level setting and one section; its settlement pays the winner
``points.win`` from every other seat; it plays with the 136 tiles (honours included) and
adds the ``chow`` event. Its table rules (:func:`table_rules`) map its own settings to the
core's and name every win ``win``: no pass rule, no 报听, no flip, several winners on one
tile, no robbing a kong (``tests/rules/test_core_boundary.py`` replays hands with them).
It imports no other family.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from zhuoji.rules.facts import PassKind
from zhuoji.rules.families import Family, register
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import TableRules, WinPlan
from zhuoji.rules.tiles import TileSet
from zhuoji.rules.view import TableView


class ToyPoints(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    win: int = Field(2, ge=1, description="paid to the winner by every other seat")
    honour_pair: int = Field(0, ge=0, description="added when the pair is an honour")


class ToyRuleset(RulesetBase):
    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType({"points": "point_"})

    family: Literal["toy"] = Field("toy", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    chow: bool = Field(True, description="吃 allowed")
    points: ToyPoints = Field(default_factory=ToyPoints, description="points")


def settle(winner: int, ruleset: ToyRuleset) -> tuple[int, ...]:
    """The deltas of a hand ``winner`` won: every other seat pays ``points.win``."""
    win = ruleset.points.win
    return tuple(
        win * (ruleset.players - 1) if seat == winner else -win for seat in range(ruleset.players)
    )


def audit_result(ours: tuple[int, ...], recorded: tuple[int, ...]) -> list[str]:
    return [] if ours == recorded else [f"score_mismatch: {ours} != {recorded}"]


def _win_names(
    table: TableView, plan: WinPlan, heavenly: bool, earthly: bool, kong_bloom: bool,
    declared: bool,
) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
    """Every win is the toy's one pattern; heavenly is its one situation."""
    return (), ("win",), ("heavenly",) if heavenly else ()


def table_rules(ruleset: RulesetBase) -> TableRules:
    """The toy's table: its own settings in the core's names, its pattern names."""
    assert isinstance(ruleset, ToyRuleset)
    return TableRules(
        "toy", ruleset.name, players=ruleset.players,
        multiple_winners=True, win_patterns=_win_names,
    )


FAMILY = register(
    Family(
        name="toy",
        title="a test family: 136 tiles, chow, one payment per win",
        settings=ToyRuleset,
        settle=settle,
        audit_result=audit_result,
        patterns=("win",),
        tile_set=TileSet.HONOURS,
        event_kinds=frozenset({"chow"}),
        table_rules=table_rules,
    )
)
