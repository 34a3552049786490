"""The Sichuan settings model: the table's rules at the top level, the 番 of each pattern in
``fan``, the points (the base and the kong payments) in ``points`` and the core mechanics it
plays in ``mechanics`` (every value a setting; each preset in ``presets/`` of this folder
says where its value comes from: seed 003's words, the common published form, or the
tournament rules; ``docs/rules/sichuan.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.settings import RulesetBase

__all__ = ["MAX_BASE", "MAX_FAN", "Fan", "Points", "Ruleset", "sichuan_mechanics"]

MAX_BASE = 10_000
"""The largest base (底) and kong payment."""

MAX_FAN = 13
"""The largest 番 a pattern, a cap or a win counts: a capped win is worth at most
``2**13 x MAX_BASE`` (about 2**26.3) per payer, doubled or plus a base on a self-draw."""


def _none_word(value: object) -> object:
    """A whole number, or ``"none"`` for no limit (a preset file, TOML, has no null; the
    command line's ``--set`` may give JSON ``null`` too)."""
    if value == "none" or value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError('expected a whole number or "none"')


OrNone = Annotated[int | None, BeforeValidator(_none_word)]
"""A whole number or none (no cap, no limit): ``"none"`` in a preset file."""


def sichuan_mechanics() -> Mechanics:
    """The core mechanics of seed 003's Sichuan game: 定缺 (a hand lacking a suit declares
    one it lacks, 「若摸牌结束只有两门花色，则以第三门花色作为定缺花色」), no 换三张, no chow,
    the hand ends at the first win(s)."""
    return Mechanics(declare_suit=True, exchange=0, exchange_one_suit=True)


class Fan(BaseModel):
    """The 番 of each pattern (common Chengdu form; 0 turns a pattern off). A win is worth
    ``points.base x 2 ** 番``, the 番 capped at :attr:`Ruleset.fan_cap`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    all_pungs: int = Field(1, ge=0, le=MAX_FAN, description="对对胡: four pungs (or kongs) "
                           "and a pair")
    full_flush: int = Field(2, ge=0, le=MAX_FAN, description="清一色: every tile of one suit")
    seven_pairs: int = Field(2, ge=0, le=MAX_FAN, description="七对: seven pairs, concealed")
    dragon_seven_pairs: int = Field(3, ge=0, le=MAX_FAN, description="龙七对: seven pairs "
                                    "with a four of a kind among them (each further four "
                                    "is a 根); 0: no such name, each four is a 根")
    full_flush_pungs: int = Field(3, ge=0, le=MAX_FAN, description="清对: 清一色 and 对对胡")
    all_258_pungs: int = Field(3, ge=0, le=MAX_FAN, description="将对: 对对胡 with every "
                               "tile a 2, 5 or 8; 0: not played (the hand is a 对对胡)")
    full_flush_seven_pairs: int = Field(4, ge=0, le=MAX_FAN, description="清七对: 清一色 "
                                        "and 七对")
    full_flush_dragon_seven_pairs: int = Field(5, ge=0, le=MAX_FAN, description="清龙七对: "
                                               "清一色 and 龙七对")
    golden_hook: int = Field(1, ge=0, le=MAX_FAN, description="金钩钓: every set melded, "
                             "won on the pair's tile; this on top of the hand's pungs")
    root: int = Field(1, ge=0, le=MAX_FAN, description="根: each four of a kind in the hand")
    root_max: OrNone = Field(None, ge=0, le=MAX_FAN, description="the most 根 counted "
                                 "(none: every one)")
    kong_is_root: bool = Field(True, description="a kong is a 根 (off: a 根 is a four of a "
                               "kind not made a kong: held, or a pung with the fourth in hand)")
    kong: int = Field(0, ge=0, le=MAX_FAN, description="each kong the winner made (0: none)")
    kong_max: OrNone = Field(None, ge=0, le=MAX_FAN, description="the most 番 the "
                                 "kongs add (none: no limit)")
    kong_bloom: int = Field(1, ge=0, le=MAX_FAN, description="杠上花: self-drawn on a kong's "
                            "replacement tile")
    kong_discard: int = Field(1, ge=0, le=MAX_FAN, description="杠上炮: won on the discard "
                              "that follows the discarder's kong and replacement draw")
    robbed_kong: int = Field(1, ge=0, le=MAX_FAN, description="抢杠胡: won on an added kong's "
                             "tile")
    seabed_draw: int = Field(1, ge=0, le=MAX_FAN, description="海底捞月: self-drawn on the "
                             "wall's last tile")
    seabed_discard: int = Field(1, ge=0, le=MAX_FAN, description="海底炮: won on the discard "
                                "of the wall's last tile")
    concealed: int = Field(0, ge=0, le=MAX_FAN, description="门清: no pong and no exposed or "
                           "added kong (0: not played)")
    all_simples: int = Field(0, ge=0, le=MAX_FAN, description="中张: no 1 and no 9 (0: not "
                             "played)")
    terminals: int = Field(0, ge=0, le=MAX_FAN, description="带幺九: every set and the pair "
                           "hold a 1 or a 9 (0: not played)")
    heavenly_earthly: bool = Field(True, description="天胡 (the dealer wins on its dealt "
                                   "hand) and 地胡 (a non-dealer wins on its first draw, "
                                   "before any claim) are worth the cap")
    heavenly_earthly_fan: OrNone = Field(None, ge=0, le=MAX_FAN, description="the 番 of "
                                             "天胡 and 地胡 (none: the cap)")
    # --- the settlement's patterns
    golden_hook_melded: bool = Field(True, description="金钩钓 needs all four sets melded "
                                     "(off: any 对对胡 won on its pair's tile, a 单钓 wait: "
                                     "the tournament rules' 金钩)")


class Points(BaseModel):
    """The base (底) and the kong payments of 刮风下雨, in bases."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: int = Field(1, ge=1, le=MAX_BASE, description="底: a 0-番 win's value")
    concealed_kong: int = Field(2, ge=0, le=MAX_BASE, description="下雨: a concealed kong, "
                                "paid by each player still in (in bases)")
    added_kong: int = Field(1, ge=0, le=MAX_BASE, description="刮风: an added kong (巴杠), "
                            "paid by each player still in (in bases)")
    exposed_kong: int = Field(2, ge=0, le=MAX_BASE, description="刮风: an exposed kong of a "
                              "discard (直杠), paid by the discarder alone (in bases)")


class Ruleset(RulesetBase):
    """A Sichuan ruleset: the table's rules, ``fan``, ``points`` and ``mechanics``."""

    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType(
        {"fan": "fan_", "points": "point_", "mechanics": ""})

    family: Literal["sichuan"] = Field("sichuan", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    multiple_winners: bool = Field(True, description="一炮多响: several players may win on "
                                   "one discard")
    robbing_kong: bool = Field(True, description="抢杠胡: an added kong's tile may be won on")
    fan_cap: OrNone = Field(4, ge=1, le=MAX_FAN, description="封顶: the most 番 a win "
                                "counts (none: no cap)")
    self_draw: Literal["add_base", "add_fan", "double", "none"] = Field(
        "add_base", description="自摸: add_base (自摸加底, each payer pays one base more), "
        "add_fan (自摸加番, one 番 more), double (the value doubled), none")
    exposed_kong_bloom: Literal["self_draw", "discarder"] = Field(
        "self_draw", description="点杠花, a win on the replacement tile of an exposed kong of a "
        "discard: paid as a self-draw (self_draw), or by the kong's discarder alone as a "
        "win on its discard (discarder)")
    kong_discard_income: Literal["transfer", "refund", "none"] = Field(
        "transfer", description="杠上炮: the kong's income goes to the winner (transfer, "
        "呼叫转移; several winners: the one nearest the discarder), back to its payers "
        "(refund), or stays (none)")
    flower_pig: bool = Field(True, description="查花猪: at the wall's end a player holding "
                             "three suits pays each player who is not one the value of the "
                             "cap")
    flower_pig_pays_winners: bool = Field(True, description="a 花猪 also pays the players "
                                          "who have left the hand after winning (血战); "
                                          "off: only the players still in")
    flower_pig_fan: OrNone = Field(None, ge=0, le=MAX_FAN, description="the 番 a 花猪 "
                                       "pays (none: the cap)")
    not_ready: bool = Field(True, description="查大叫: at the wall's end a player who is not "
                            "ready pays each ready player still in that player's best value "
                            "of a discard win")
    kong_refund: bool = Field(True, description="退税: at the wall's end a player who is not "
                              "ready pays back the kong income it received this hand")
    dealer_after_multiple: Literal["discarder", "first_winner"] = Field(
        "discarder", description="the next dealer when the hand's first win is 一炮多响: the "
        "discarder, or the winner nearest it in turn order")
    dealer_after_draw: Literal["stays", "next"] = Field(
        "stays", description="the next dealer when nobody won: the dealer stays, or the next "
        "seat deals")
    fan: Fan = Field(default_factory=Fan, description="the 番 of each pattern")
    points: Points = Field(default_factory=Points, description="the base and the kongs")
    mechanics: Mechanics = Field(default_factory=sichuan_mechanics,
                                 description="the core mechanics played")

    @model_validator(mode="after")
    def _check(self) -> Ruleset:
        mech = self.mechanics
        if mech.chow or mech.flowers:
            raise ValueError("a Sichuan table plays no chow and no flowers")
        if not mech.declare_suit:
            raise ValueError("a Sichuan table plays 定缺: mechanics.declare_suit must be on")
        if self.fan_cap is None and (self.fan.heavenly_earthly_fan is None
                                     and self.fan.heavenly_earthly):
            raise ValueError("with no fan_cap, fan.heavenly_earthly_fan gives 天胡/地胡's 番")
        if self.fan_cap is None and self.flower_pig and self.flower_pig_fan is None:
            raise ValueError("with no fan_cap, flower_pig_fan gives what a 花猪 pays")
        return self
