"""A rule family kept in a test folder for the core's 换三张, 定缺, 血战到底 and carry
mechanics (``tests/rules/test_xuezhan.py``), used through the public API only.

It plays the 108 suited tiles without chow, switches on the four mechanics in its
``mechanics`` section, and settles each win with a tiny ledger: a self-drawn win is paid
``points.win`` by every seat still in the hand, a win on a discard (or a robbed kong) by
the discarder, each times the 荒番 multiplier the hand carries. Its ``carry`` hook keeps
``draw_multiplier`` (doubled after a hand nobody won, up to ``points.draw_cap``, back to 1
after a won hand) and ``dealer_streak`` (连庄: one more when the dealer won first or
nobody won, else 0). Its settings model extends the Guizhou one (the table reads the
legality settings by those names) with Guizhou's 报听, 通行证 and 翻鸡 off; it uses nothing
else of that family.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.continuing import Carry, carry_of
from rules.facts import Outcome
from rules.families import Family, register
from rules.families.guizhou.settings import Ruleset
from rules.mechanics import Mechanics
from rules.replay import HandReplay
from rules.tiles import TileSet


class XuezhanPoints(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    win: int = Field(1, ge=1, description="paid for a win by each seat that pays")
    draw_cap: int = Field(4, ge=1, description="the largest 荒番 multiplier")


def _xuezhan_mechanics() -> Mechanics:
    return Mechanics(exchange=3, exchange_one_suit=True, declare_suit=True,
                     play_after_win=True, carry=True)


class XuezhanRuleset(Ruleset):
    """The test family's settings: its own section ``points``, its ``mechanics``."""

    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType(
        {**Ruleset.flat_prefixes, "points": "point_", "mechanics": ""})

    family: Literal["xuezhan"] = Field(  # type: ignore[assignment]
        "xuezhan", description="the rule family")
    pass_rule: bool = Field(False, description="通行证 needed to win on a discard")
    declared_ready: bool = Field(False, description="报听 may be declared")
    flip_chicken: bool = Field(False, description="翻鸡: a tile is flipped after a win")
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


def settle(replay: HandReplay, ruleset: XuezhanRuleset) -> tuple[int, ...]:
    """The hand's deltas: each win in order, paid as the module says."""
    n = replay.n_players
    deltas = [0] * n
    multiplier = 1 if replay.carry is None else replay.carry.get("draw_multiplier", 1)
    amount = ruleset.points.win * multiplier
    out: set[int] = set()
    for win in replay.winners:
        if win.from_seat is None:
            payers = [s for s in range(n) if s != win.seat and s not in out]
        else:
            payers = [win.from_seat]
        for payer in payers:
            deltas[payer] -= amount
            deltas[win.seat] += amount
        out.add(win.seat)
    return tuple(deltas)


def audit_result(ours: tuple[int, ...], recorded: tuple[int, ...]) -> list[str]:
    return [] if ours == recorded else [f"score_mismatch: {ours} != {recorded}"]


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
        carry=carry,
    )
)
