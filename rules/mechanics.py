"""The core's optional mechanics: what a family may switch on beyond the core's table.

Every mechanic is off by default, so a family that does not name them replays
exactly as before. A family that plays with some of them gives its settings model a
section ``mechanics: Mechanics`` (and, if it wants the flat names, ``"mechanics": ""`` in
its ``flat_prefixes``); the table reads the section once per ruleset through
:func:`mechanics_of`. The tiles a family plays with (108, 136 or 144, honours and
flowers) are its :class:`zhuoji.rules.families.Family` ``tile_set``, not a mechanic.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase


class Mechanics(BaseModel):
    """The core mechanics a family switches on (all off: the core's table alone)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- claims and tiles ---------------------------------------------------------------
    chow: bool = Field(False, description="吃: the discarder's next player may chow the "
                       "discard (a pong, a kong or a win on it takes precedence)")
    flowers: bool = Field(False, description="花牌: a flower is shown (a `flower` event), set "
                          "aside and replaced by a draw from the back of the wall")

    # --- the end of the wall and kong draws ---------------------------------------------
    kong_dice: bool = Field(False, description="开杠: after a kong the player throws the dice "
                            "(a `roll` event) and the replacement tile is counted from the back "
                            "by their total")
    kong_dice_needs_ready: bool = Field(False, description="the dice may be thrown after a kong "
                                        "only by a player whose hand is ready")
    kong_dice_locks_hand: bool = Field(False, description="after throwing the dice, every tile "
                                       "the player draws must be discarded until it wins")
    kong_dice_locks_claims: bool = Field(False, description="after throwing the dice, the "
                                         "player claims no discard (no pong, chow or kong) "
                                         "until it wins: only a win on one")
    seabed: bool = Field(False, description="海底漫游: the last tile of the wall is offered to "
                         "each player in turn (`seabed` events); a taker who cannot win shows "
                         "it and others may win on it")
    birds: int = Field(0, ge=0, le=8, description="扎鸟: tiles turned up after the win (a "
                       "`bird` event) to score")
    seabed_tile_is_bird: bool = Field(False, description="on a win with the last tile, that "
                                      "tile is the bird (no further tile is turned up)")

    # --- before the first discard -------------------------------------------------------
    exchange: Literal[0, 3] = Field(0, description="换三张: tiles each player passes on after "
                                    "the deal (`exchange` events), 0 for none")
    exchange_one_suit: bool = Field(False, description="the tiles exchanged are of one suit")
    exchange_to: Literal["any", "next", "previous", "across"] = Field(
        "any", description="换三张's direction: every seat passes to its next player in turn "
        "order (next), to the one before it (previous), to the one across (across), or any "
        "way the dice chose, the same for every seat (any)")
    declare_suit: bool = Field(False, description="定缺: every player declares a suit after the "
                               "deal (`declare_suit` events) and must discard it before any "
                               "other tile; a hand holding it cannot win")
    declare_any_suit: bool = Field(False, description="a hand lacking a suit may still "
                                   "declare one it holds (off: it declares a suit it lacks, "
                                   "as seed 003 has it)")

    # --- after a win, and from hand to hand ---------------------------------------------
    play_after_win: bool = Field(False, description="血战到底: play goes on after a win until "
                                 "one player is left without a win or the wall ends; a seat "
                                 "that has won takes no further turns")
    winners_stay: bool = Field(False, description="血流成河 (with play_after_win): a seat "
                               "that has won stays in the hand and may win again; a "
                               "self-drawn winning tile is set aside, and play goes on from "
                               "the seat after the last winner until the wall ends")
    carry: bool = Field(False, description="state carried from one hand to the next within a "
                        "game (荒番 multipliers, 连庄) is recomputed from the earlier hands and "
                        "compared with a hand's recorded `carry`")

    @model_validator(mode="after")
    def _check(self) -> Mechanics:
        if self.winners_stay and not self.play_after_win:
            raise ValueError(Message("mechanics.winners_stay (血流成河) needs "
                                     "mechanics.play_after_win: a winner stays only where play "
                                     "goes on after a win"))
        return self


NO_MECHANICS = Mechanics()
"""Every mechanic off: the table of a family that names none."""


def _mechanics(ruleset: RulesetBase) -> Mechanics:
    section = getattr(ruleset, "mechanics", None)
    return section if isinstance(section, Mechanics) else NO_MECHANICS


def mechanics_of(ruleset: RulesetBase) -> Mechanics:
    """The mechanics a ruleset's family switches on (computed once per ruleset)."""
    return ruleset.derived(_mechanics)
