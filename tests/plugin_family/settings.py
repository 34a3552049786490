"""The settings model of the 平胡 test family: one top-level setting and a ``points``
section (flat alias prefix ``point_``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from zhuoji.rules.settings import RulesetBase


class Points(BaseModel):
    """What each pattern of a win is worth (points x the hand's base stake)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plain: int = Field(1, ge=1, description="平和: a standard hand of sets and a pair")
    pongs: int = Field(2, ge=1, description="对对和: every set a pong or kong")
    pairs: int = Field(3, ge=1, description="七对子: seven pairs")
    one_suit: int = Field(4, ge=0, description="清一色: one suit, added to the shape")
    self_draw: int = Field(1, ge=0, description="自摸: added to a self-drawn win")


class Ruleset(RulesetBase):
    """A ruleset of the 平胡 family."""

    flat_prefixes: ClassVar[Mapping[str, str]] = MappingProxyType({"points": "point_"})

    family: Literal["pinghu"] = Field("pinghu", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    multiple_winners: bool = Field(True, description="一炮多响: several winners on a discard")
    points: Points = Field(default_factory=Points, description="the points of each pattern")
