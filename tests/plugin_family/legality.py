"""The table rules of the 平胡 test family: its settings in the core's names and the
patterns of a win. No pass rule, no declaration, no event kind of its own."""

from __future__ import annotations

from typing import Any

from zhuoji.rules.facts import PassKind
from zhuoji.rules.table import TableRules, WinPlan, WinSource

from .patterns import Pattern, shape_patterns
from .settings import Ruleset


def _win_patterns(
    table: Any, plan: WinPlan, heavenly: bool, earthly: bool, kong_bloom: bool,
    declared: bool,
) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
    """The shape patterns of the winning hand, and 自摸 when it is self-drawn."""
    shape = shape_patterns(plan.counts, table.melds(plan.event.seat))
    situational = (Pattern.SELF_DRAW.value,) if plan.source is WinSource.SELF_DRAW else ()
    return (), shape, situational


def table_rules(ruleset: Any) -> TableRules:
    """The table a 平胡 ruleset is played at."""
    assert isinstance(ruleset, Ruleset)
    return TableRules(
        "pinghu", ruleset.name, players=ruleset.players,
        multiple_winners=ruleset.multiple_winners, robbing_kong=True,
        win_patterns=_win_patterns,
    )
