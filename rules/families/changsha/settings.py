"""The Changsha settings model: the table's rules at the top level, the core mechanics it
plays in ``mechanics`` and the points in ``points`` (every value a setting, each with the
seed's words in ``presets/changsha.toml`` of this folder and ``docs/rules/changsha.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.settings import RulesetBase

__all__ = ["MAX_BIRD_FACTOR", "MAX_POINTS", "Points", "Ruleset", "changsha_mechanics"]

MAX_POINTS = 10_000
"""The largest value of each ``points`` setting (the seed's are 10 to 60)."""

MAX_BIRD_FACTOR = 256
"""The largest factor the birds can put on one payment: ``points.bird_multiplier`` raised
to ``mechanics.birds`` (2 with 8 birds, 4 with 4, 16 with 2, 256 with 1).

Why these bounds keep a hand within :data:`zhuoji.rules.settings.MAX_HAND_VALUE` (2**31 values
before the stake): a hand pays its 起手小胡 (at most 7 a seat: three 四喜, two 六六顺, one
板板胡, one 缺一色; each one payment of at most ``MAX_POINTS`` from each of 3 payers) and
its wins (at most 3 (winner, payer) pairs: a self-draw's 3 payers, or up to 3 winners on
one discard each paid by the discarder). One pair pays at most ``(points x the 大胡 it
counts + dealer_extra) x the bird factor``, and a win counts at most 11 大胡 (every big
pattern). So a hand moves at most ``4 x 7 x 3 x 10,000 + 3 x (11 + 1) x 10,000 x 256 =
93,000,000 < 2**27`` values: 2**4 below the bound."""


def changsha_mechanics() -> Mechanics:
    """The core mechanics of seed 003's Changsha game: chow, 开杠 dice only when ready and
    locking the hand (its draws discarded, no claim), 海底漫游, one bird (the last tile is
    the bird on a 海底 win)."""
    return Mechanics(chow=True, kong_dice=True, kong_dice_needs_ready=True,
                     kong_dice_locks_hand=True, kong_dice_locks_claims=True, seabed=True,
                     birds=1,
                     seabed_tile_is_bird=True)


class Points(BaseModel):
    """The points of a win (seed 003: 小胡自摸 20/10, 小胡捉炮 10, 大胡自摸 40/30, 大胡捉炮 60,
    the dealer's 10 more on a discard, 扎鸟 doubling)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    small_self_draw_dealer: int = Field(20, ge=0, le=MAX_POINTS,
                                        description="小胡自摸 by the dealer: each "
                                        "other player pays this")
    small_self_draw_dealer_pays: int = Field(20, ge=0, le=MAX_POINTS,
                                             description="小胡自摸 by a non-dealer: "
                                             "the dealer pays this")
    small_self_draw_other_pays: int = Field(10, ge=0, le=MAX_POINTS,
                                            description="小胡自摸 by a non-dealer: "
                                            "each other non-dealer pays this")
    small_discard: int = Field(10, ge=0, le=MAX_POINTS,
                               description="小胡捉炮: the discarder pays this")
    big_self_draw_dealer: int = Field(40, ge=0, le=MAX_POINTS,
                                      description="大胡自摸 by the dealer: each "
                                      "other player pays this (per 大胡)")
    big_self_draw_dealer_pays: int = Field(40, ge=0, le=MAX_POINTS,
                                           description="大胡自摸 by a non-dealer: "
                                           "the dealer pays this (per 大胡)")
    big_self_draw_other_pays: int = Field(30, ge=0, le=MAX_POINTS,
                                          description="大胡自摸 by a non-dealer: "
                                          "each other non-dealer pays this (per 大胡)")
    big_discard: int = Field(60, ge=0, le=MAX_POINTS,
                             description="大胡捉炮: the discarder pays this (per 大胡)")
    dealer_extra: int = Field(10, ge=0, le=MAX_POINTS,
                              description="on a win on a discard, the discarder "
                              "pays this more when it or the winner is the dealer")
    bird_multiplier: int = Field(2, ge=1, le=MAX_BIRD_FACTOR,
                                 description="扎鸟: a payment the bird hits (中乌) is "
                                 "multiplied by this")
    big_wins_add: bool = Field(True, description="大胡 add up (小七对 + 天胡 is two 大胡); off: "
                               "a hand counts one 大胡 however many it has")
    small_wins_add: bool = Field(True, description="起手小胡 add up (四喜 + 六六顺 is two)")


class Ruleset(RulesetBase):
    """A Changsha ruleset: the table's rules, ``mechanics`` and ``points``."""

    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType(
        {"points": "point_", "mechanics": ""})

    family: Literal["changsha"] = Field("changsha", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    multiple_winners: bool = Field(True, description="通炮/通胡: several players may win on "
                                   "one tile")
    robbing_kong: bool = Field(True, description="抢杠胡: an added (明) kong's tile may be "
                               "won on; a concealed kong never")
    pair_258: bool = Field(True, description="小胡 needs a pair of 2, 5 or 8 (二五八做将); the "
                           "big shapes (碰碰胡, 将将胡, 清一色, 七小对) take any pair")
    small_wins: bool = Field(True, description="起手小胡: 四喜, 板板胡, 缺一色, 六六顺 declared "
                             "on the dealt hand (`small_win` events) before the dealer's "
                             "first discard")
    missed_win: bool = Field(True, description="漏胡: after passing a win on a discard, the "
                             "player may not win on that tile from a discard until it draws")
    points: Points = Field(default_factory=Points, description="the points of a win")
    mechanics: Mechanics = Field(default_factory=changsha_mechanics,
                                 description="the core mechanics played")

    @model_validator(mode="after")
    def _bird_factor(self) -> Ruleset:
        factor = self.points.bird_multiplier ** self.mechanics.birds
        if factor > MAX_BIRD_FACTOR:
            raise ValueError(
                f"points.bird_multiplier {self.points.bird_multiplier} with mechanics.birds "
                f"{self.mechanics.birds} multiplies a payment by up to {factor:,}; "
                f"bird_multiplier ** birds must be at most {MAX_BIRD_FACTOR}"
            )
        return self
