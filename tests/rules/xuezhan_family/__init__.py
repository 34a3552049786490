"""A rule family kept in a test folder for the core's 换三张, 定缺, 血战到底 (血流成河 with
``mechanics.winners_stay``) and carry mechanics (``tests/rules/test_xuezhan.py``), used
through the public API only.

It plays the 108 suited tiles without chow, switches on the four mechanics in its
``mechanics`` section, and settles each win with a tiny ledger: a self-drawn win is paid
``points.win`` by every seat still in the hand, a win on a discard (or a robbed kong) by
the discarder, each times the 荒番 multiplier the hand carries (a winner leaves the hand,
unless ``mechanics.winners_stay`` is on: 血流成河, where it stays and pays). Its ``carry``
hook keeps ``draw_multiplier`` (doubled after a hand nobody won, up to
``points.draw_cap``, back to 1 after a won hand) and ``dealer_streak`` (连庄: one more
when the dealer won first or nobody won, else 0). Its table rules give the core its
settings (several winners on one tile, robbing a kong) and name every win ``win``. It
imports no other family."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from zhuoji.rules.events import RecordedResult
from zhuoji.rules.facts import Outcome, PassKind
from zhuoji.rules.families import Family, register
from zhuoji.rules.mechanics import Mechanics, mechanics_of
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Carry, TableRules, WinPlan, carry_of
from zhuoji.rules.tiles import TileSet
from zhuoji.rules.view import TableView
from zhuoji.rules.violations import Violation, ViolationCode


class XuezhanPoints(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    win: int = Field(1, ge=1, description="paid for a win by each seat that pays")
    draw_cap: int = Field(4, ge=1, description="the largest 荒番 multiplier")


def _xuezhan_mechanics() -> Mechanics:
    return Mechanics(exchange=3, exchange_one_suit=True, declare_suit=True,
                     play_after_win=True, carry=True)


class XuezhanRuleset(RulesetBase):
    """The test family's settings: a few of its own, its ``points``, its ``mechanics``."""

    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType(
        {"points": "point_", "mechanics": ""})

    family: Literal["xuezhan"] = Field("xuezhan", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    several_winners: bool = Field(True, description="一炮多响: several win on one discard")
    rob_kong: bool = Field(True, description="抢杠: an added kong can be robbed")
    points: XuezhanPoints = Field(default_factory=XuezhanPoints, description="points")
    mechanics: Mechanics = Field(default_factory=_xuezhan_mechanics,
                                 description="the core mechanics played")


def xuezhan_ruleset(**settings: Any) -> XuezhanRuleset:
    """A ruleset named ``xuezhan-test`` with ``settings`` replaced (``mechanics`` a dict of
    the fields that differ from the family's)."""
    mech = settings.pop("mechanics", {})
    base = _xuezhan_mechanics().model_dump()
    return XuezhanRuleset.model_validate(
        {"name": "xuezhan-test", **settings, "mechanics": {**base, **mech}})


@dataclass(frozen=True)
class XuezhanSettlement:
    deltas: tuple[int, ...]


def settle(replay: HandReplay, ruleset: XuezhanRuleset, base_stake: int = 1,
           **_: Any) -> XuezhanSettlement:
    """The hand's deltas: each win in order, paid as the module says."""
    n = replay.n_players
    deltas = [0] * n
    multiplier = 1 if replay.carry is None else replay.carry.get("draw_multiplier", 1)
    amount = ruleset.points.win * multiplier * base_stake
    out: set[int] = set()
    for win in replay.winners:
        if win.from_seat is None:
            payers = [s for s in range(n) if s != win.seat and s not in out]
        else:
            payers = [win.from_seat]
        for payer in payers:
            deltas[payer] -= amount
            deltas[win.seat] += amount
        if not ruleset.mechanics.winners_stay:  # 血流成河: a winner stays in the hand
            out.add(win.seat)
    return XuezhanSettlement(tuple(deltas))


def audit_result(settlement: XuezhanSettlement, recorded: RecordedResult | None,
                 hand_no: int) -> list[Violation]:
    if recorded is None or tuple(recorded.deltas) == settlement.deltas:
        return []
    return [Violation(ViolationCode.SCORE_MISMATCH, hand_no, None, None,
                      f"recorded {recorded.deltas}, recomputed {settlement.deltas}", False)]


def carry(previous: HandReplay | None, before: Carry | None,
          ruleset: XuezhanRuleset) -> Carry:
    """The state a hand starts with, from the game's previous hand."""
    if previous is None or before is None:
        return carry_of({"dealer_streak": 0, "draw_multiplier": 1})
    if previous.outcome is Outcome.INCOMPLETE:
        return before  # a hand stopped by a violation changes nothing
    streak = before.get("dealer_streak")
    if not previous.winners:
        multiplier = min(2 * before.get("draw_multiplier", 1), ruleset.points.draw_cap)
        return carry_of({"dealer_streak": streak + 1, "draw_multiplier": multiplier})
    first = previous.winners[0].seat
    return carry_of({"dealer_streak": streak + 1 if first == previous.dealer else 0,
                     "draw_multiplier": 1})


def _win_names(
    table: TableView, plan: WinPlan, heavenly: bool, earthly: bool, kong_bloom: bool,
    declared: bool,
) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
    return (), ("win",), ()


def table_rules(ruleset: RulesetBase) -> TableRules:
    """The family's table: its settings in the core's names, its mechanics."""
    assert isinstance(ruleset, XuezhanRuleset)
    return TableRules(
        "xuezhan", ruleset.name, players=ruleset.players,
        multiple_winners=ruleset.several_winners, robbing_kong=ruleset.rob_kong,
        mechanics=mechanics_of(ruleset), win_patterns=_win_names,
    )


FAMILY = register(
    Family(
        name="xuezhan",
        title="a test family: 换三张, 定缺, 血战到底, state carried from hand to hand",
        settings=XuezhanRuleset,
        settle=settle,
        audit_result=audit_result,
        patterns=("win",),
        tile_set=TileSet.SUITED,
        event_kinds=frozenset({"exchange", "declare_suit"}),
        table_rules=table_rules,
        carry=carry,
    )
)
