"""Sichuan's rules at the table: what the family adds to the core's table.

A Sichuan ruleset gives the core's table, once per ruleset (:func:`table_rules`), a
:class:`~zhuoji.rules.table.TableRules` holding its settings in the core's names (players,
一炮多响, 抢杠胡), the core mechanics it plays (定缺, 换三张 when on, play after a win for
血战到底 and 血流成河; no chow) and the names of a legal win (:meth:`SichuanTable.win_patterns`:
the hand's name and extras, then how it came). The core checks the declared suit (a seat
discards it first, melds none of it, cannot win holding it), a seat that has left after
its win (血战), the exchange. ``docs/rules/sichuan.md`` gives each rule and its source.
"""

from __future__ import annotations

from zhuoji.rules.facts import PassKind
from zhuoji.rules.families.sichuan.patterns import Pattern, hand_fan
from zhuoji.rules.families.sichuan.settings import Ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import TableRules, WinPlan, WinSource
from zhuoji.rules.view import TableView

__all__ = ["SichuanTable", "table_rules"]

_WIN_SELF = WinSource.SELF_DRAW
_WIN_ROB = WinSource.ROBBED_KONG


class SichuanTable:
    """The hooks of one Sichuan ruleset."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def win_patterns(self, t: TableView, plan: WinPlan, heavenly: bool, earthly: bool,
                     kong_bloom: bool, declared: bool
                     ) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
        """The hand's patterns (its name and extras, the reading worth most) and how the
        win came: 杠上花, 杠上炮, 抢杠胡, 海底捞月, 海底炮, 天胡, 地胡."""
        seat = plan.event.seat
        shape = tuple(item.pattern.value
                      for item in hand_fan(self.ruleset.fan, plan.counts, t.seat_melds[seat],
                                           plan.event.tile))
        source = plan.source
        last = t.wall_left == 0
        situational: list[str] = []
        if source is _WIN_SELF:
            if kong_bloom:
                situational.append(Pattern.KONG_BLOOM.value)
            if last:
                situational.append(Pattern.SEABED_DRAW.value)
        elif source is _WIN_ROB:
            situational.append(Pattern.ROBBED_KONG.value)
        else:
            if plan.hot:
                situational.append(Pattern.KONG_DISCARD.value)
            if last:
                situational.append(Pattern.SEABED_DISCARD.value)
        if heavenly:
            situational.append(Pattern.HEAVENLY.value)
        if earthly:
            situational.append(Pattern.EARTHLY.value)
        return (), shape, tuple(situational)


def table_rules(ruleset: RulesetBase) -> TableRules:
    """The :class:`~zhuoji.rules.table.TableRules` of a Sichuan ruleset (called once per
    ruleset)."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"ruleset {ruleset.name!r} is not a Sichuan ruleset")
    c = SichuanTable(ruleset)
    return TableRules(
        "sichuan",
        ruleset.name,
        players=ruleset.players,
        multiple_winners=ruleset.multiple_winners,
        robbing_kong=ruleset.robbing_kong,
        mechanics=mechanics_of(ruleset),
        win_patterns=c.win_patterns,
    )
