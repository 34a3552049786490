"""The Guizhou family's settings: every setting a table's legality and settlement read.

A :class:`Ruleset` is a frozen pydantic model derived from the core's
:class:`~zhuoji.rules.settings.RulesetBase` (presets are TOML data naming ``family = "guizhou"``).
Legality settings sit at the top level (``players``, ``pass_rule`` ...); settlement
settings are grouped in frozen sections
(``patterns``, ``bonuses``, ``ready``, ``hot_discard``, ``robbed_kong``, ``kongs``,
``chickens``, ``draw``, ``dealer``, ``penalties``). Every field's default is the family
default documented in ``docs/rules/README.md``; the shipped presets state every value
explicitly (``presets/*.toml`` of the family's folder).

Settings are named by dotted paths (``"chickens.scope"``) or by flat aliases that a log's
``rule_overrides`` may use (``"chicken_scope"``): ``Ruleset.parse_setting_key`` maps both to
the dotted path, :func:`zhuoji.rules.settings.apply_overrides` replaces single settings and
re-validates (the machinery every family shares is in :mod:`zhuoji.rules.settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)

from zhuoji.rules.events import KongKind
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.tiles import Tile

MAX_VALUE = 10_000
"""The largest value of each value setting (a pattern, a bonus, a kong, a chicken, a
penalty; the shipped presets' are at most 100)."""

MAX_MULTIPLIER = 16
"""The largest ``chickens.gold_multiplier``, ``hot_discard.multiplier`` and
``robbed_kong.multiplier`` (the shipped presets' are at most 3).

Why these bounds keep a hand within :data:`zhuoji.rules.settings.MAX_HAND_VALUE` (2**31 values
before the stake), counting every amount at its largest (``V`` = ``MAX_VALUE``, ``M`` =
``MAX_MULTIPLIER``, at most 4 players, 136 tiles with the wildcards):

- wins: at most 3 (winner, payer) pairs (a self-draw's 3 payers, 3 winners on one
  discard, 包三家 and 包牌 paying 3 shares), each paying at most ``M x`` (the best shape,
  the 报听 value, 自摸, 杠上开花, 天胡, 地胡, 热炮, 抢杠 bonus, 坐庄, 杀报: ``11 V``) plus
  the 连庄 term ``streak_bonus x dealer_streak``: ``3 x 16 x 11 V``;
- chickens: at most 136 tiles counted, each at most ``M x`` (its standing value, the flip
  value, 冲锋鸡, 责任鸡, 包鸡, 闷鸡, 万能鸡: ``7 V``) from each of 3 payers, once as
  chickens and once as 包鸡 or at the draw: ``2 x 136 x 3 x 16 x 7 V``;
- kongs: at most 16 (four a player), each ``V`` from 3 payers, paid or paid back twice:
  ``16 x 3 x 2 V``; 查叫 and 相公: 4 x 3 pairs of a waiting value, ``12 x 11 V``;
  开局跟: ``3 V``.

That is at most ``(528 + 91,392 + 96 + 132 + 3) V = 92,151 V < 2**30`` values: half the
bound, whatever the log. The 连庄 term alone grows with the log's ``dealer_streak`` (up to
2**31 - 1); the audit refuses a game whose recomputed amounts leave the bound anyway
(:func:`zhuoji.flows.audit.service.beyond_range`), so no setting needs to be 0 for that."""


# --- enumerated choices -------------------------------------------------------------------


class ChickenScope(StrEnum):
    """Which of a player's tiles count as chickens."""

    HAND = "hand"  # 手上鸡: the concealed hand and the player's melds
    HAND_AND_DISCARDS = "hand_and_discards"  # 内外鸡: also the player's own unclaimed discards


class DrawChickens(StrEnum):
    """How chickens settle at an exhaustive draw (黄庄), where no tile is flipped."""

    NONE = "none"  # chickens are not settled
    UNREADY_PAY_READY = "unready_pay_ready"  # each player not ready pays each ready player


class PenaltyCounts(StrEnum):
    """Which exposed standing chickens a not-ready player pays for under 包鸡."""

    DISCARDS_AND_MELDS = "discards_and_melds"  # its unclaimed discards and its melds
    DISCARDS = "discards"  # its unclaimed discards only (打出)


class ResponsibilityClaims(StrEnum):
    """Which claims of the first standing chicken discarded make a 责任鸡."""

    PONG_AND_KONG = "pong_and_kong"  # ponged or konged
    PONG = "pong"  # ponged only (碰走); a konged one makes no 责任鸡


class ChargingScope(StrEnum):
    """How many 冲锋鸡 a hand can have."""

    PER_TILE = "per_tile"  # the first discard of each standing tile
    PER_HAND = "per_hand"  # the first standing chicken discarded, whichever tile it is


class ChickenPayers(StrEnum):
    """Who pays a collecting player's chickens."""

    EVERY_OTHER = "every_other"  # every other player
    NOT_READY = "not_ready"  # only the players who neither won nor are ready


class PenaltyPayers(StrEnum):
    """Who pays for a not-ready player's exposed standing chickens under 包鸡."""

    DISCARDER = "discarder"  # the player who exposed them
    EVERY_NOT_READY = "every_not_ready"  # every player not ready, the discarder included


class ChargingClaimed(StrEnum):
    """What a claim (pong or kong) of the first standing chicken discarded does to 冲锋鸡."""

    ENDS = "ends"  # there is no charging chicken for that tile
    PASSES_TO_READY = "passes_to_ready"  # it passes to a claimer who won or is ready; a
    # claim by a player who neither won nor is ready leaves it with its discarder


class DealerRotation(StrEnum):
    """How the deal passes from hand to hand."""

    BY_RESULT = "by_result"  # the winner deals; several winners and draws by the rules below
    EVERY_HAND = "every_hand"  # 轮流坐庄: the seat after the dealer deals, whatever happened


class KongPayer(StrEnum):
    DISCARDER = "discarder"  # the player whose discard was konged pays alone
    EVERY_OTHER = "every_other"  # every other player pays


class Forfeit(StrEnum):
    """What a player loses when its kong turns into a hot discard or is robbed."""

    KONG = "kong"  # only that kong scores nothing
    ALL_KONGS = "all_kongs"  # none of the player's kongs score (烧豆)
    KONGS_AND_CHICKENS = "kongs_and_chickens"  # no kong and no chicken of the player (全烧)


class HandValuation(StrEnum):
    """Which shape value a special win is paid at."""

    PATTERN = "pattern"  # the hand's own best pattern
    PLAIN = "plain"  # the plain 平胡 value, whatever the shape
    FULL_FLUSH = "full_flush"  # the 清一色 value, whatever the shape


class ReadyValueMode(StrEnum):
    """How a declared-ready (报听) winner's declaration value meets its shape value."""

    ADD = "add"  # added to the shape value, like any pattern
    AT_LEAST = "at_least"  # the shape is paid at least the declaration value


class BonusMode(StrEnum):
    """How the situational values (杠上开花, 热炮, 天胡, 地胡) meet the shape value."""

    ADD = "add"  # each is added; a hot discard is its own transfer
    PATTERN = "pattern"  # each is a pattern of its own; the hand is paid its best pattern


class FirstTurnMode(StrEnum):
    """How 天胡 / 地胡 meet the shape value."""

    AS_MODE = "as_mode"  # as ``bonuses.mode`` says for every situational value
    ADD = "add"  # added to the shape value
    PATTERN = "pattern"  # competing with the shape patterns: the hand is paid its best


class MultiWinDealer(StrEnum):
    """Who deals next after several players won on one discard."""

    DISCARDER = "discarder"  # the player who discarded the winning tile
    FIRST_FROM_DEALER = "first_from_dealer"  # first winner in turn order from the dealer on
    FIRST_AFTER_DISCARDER = "first_after_discarder"  # first winner in turn order after it


class MissedWinRule(StrEnum):
    """What a win after letting a win pass (过水不胡) is."""

    PENALTY = "penalty"  # 包牌: the winner pays every other player its hand (true)
    FINDING = "finding"  # a non-fatal ``missed_win`` finding; the win is settled as usual
    NONE = "none"  # no such rule: nothing is reported, the win is settled as usual (false)


def _missed_win_choice(value: object) -> object:
    if value is True:
        return MissedWinRule.PENALTY
    if value is False:
        return MissedWinRule.NONE
    return value


class DrawDealer(StrEnum):
    """Who deals next after an exhaustive draw."""

    KEEP = "keep"  # the dealer deals again
    BY_READINESS = "by_readiness"  # see DealerSettings.exhaustive_draw


# --- sections -----------------------------------------------------------------------------

_SECTION = ConfigDict(frozen=True, extra="forbid")


def _tile_from_text(value: object) -> object:
    if isinstance(value, str):
        return Tile.parse(value)
    if isinstance(value, Tile):
        return value
    raise ValueError("a tile is written as text, e.g. '1s'")  # (not its number: 5 is no tile)


def _tile_to_text(tile: Tile) -> str:
    return tile.text


TileText = Annotated[Tile, BeforeValidator(_tile_from_text), PlainSerializer(_tile_to_text)]
"""A tile written in canonical text (``"1s"``) in TOML and JSON."""


class PatternValues(BaseModel):
    """Value of each shape pattern. A hand is paid its best matching pattern; 0 means the
    preset does not score that pattern, and the hand falls back to its next best one."""

    model_config = _SECTION

    plain: int = Field(1, ge=1, le=MAX_VALUE, description="平胡 plain: four sets and a pair")
    all_pungs: int = Field(5, ge=0, le=MAX_VALUE, description="大对子 all pungs (对对胡)")
    seven_pairs: int = Field(8, ge=0, le=MAX_VALUE, description="七对 seven pairs")
    dragon_seven_pairs: int = Field(
        10, ge=0, le=MAX_VALUE, description="龙七对 seven pairs holding a four-of-a-kind"
    )
    full_flush: int = Field(10, ge=0, le=MAX_VALUE, description="清一色 full flush: one suit")
    flush_all_pungs: int = Field(15, ge=0, le=MAX_VALUE, description="清大对 all pungs in one suit")
    flush_seven_pairs: int = Field(
        18, ge=0, le=MAX_VALUE, description="清七对 seven pairs in one suit"
    )
    flush_dragon_seven_pairs: int = Field(
        20, ge=0, le=MAX_VALUE, description="青龙背 dragon seven pairs in one suit"
    )
    single_wait: int = Field(0, ge=0, le=MAX_VALUE, description="单钓 single wait (0: not scored)")
    flush_single_wait: int = Field(
        0, ge=0, le=MAX_VALUE, description="清单钓 single wait in one suit (0: not scored)"
    )
    edge_wait: int = Field(
        0, ge=0, le=MAX_VALUE,
        description="边卡吊 a hand that waits on one tile only (0: not scored)"
    )
    wide_wait: int = Field(
        0, ge=0, le=MAX_VALUE,
        description="大宽张 waits on three tiles 1-4-7, 2-5-8 or 3-6-9 (0: not scored)"
    )

    def value_of(self, pattern: str) -> int:
        """The value of a pattern by its name (``"all_pungs"``); raises RulesetError."""
        if pattern not in PatternValues.model_fields:
            # a programming error, never a user's: not translated
            raise RulesetError(f"no shape pattern named {pattern!r}")
        value: int = getattr(self, pattern)
        return value


class BonusValues(BaseModel):
    """Situational values added to a winning hand (every payer of the hand pays them)."""

    model_config = _SECTION

    mode: BonusMode = Field(
        BonusMode.ADD,
        description="how 杠上开花 / 热炮 / 天胡 / 地胡 meet the shape value: add (each is "
        "added; a hot discard is its own transfer) or pattern (each competes with the shape "
        "patterns and the hand is paid its best; 自摸 is added either way)",
    )
    first_turn_mode: FirstTurnMode = Field(
        FirstTurnMode.AS_MODE,
        description="how 天胡 / 地胡 alone meet the shape value: as_mode (as mode says), add, "
        "or pattern (competing with the shape patterns while the others follow mode)",
    )
    self_draw: int = Field(
        1, ge=0, le=MAX_VALUE, description="自摸 self-draw: added to a self-drawn hand"
    )
    kong_bloom: int = Field(
        1, ge=0, le=MAX_VALUE,
        description="杠上开花 kong bloom: self-drawn on a kong's replacement draw"
    )
    heavenly: int = Field(
        0, ge=0, le=MAX_VALUE,
        description="天胡 heavenly: the dealer wins on its dealt hand (0: not scored)"
    )
    earthly: int = Field(
        0, ge=0, le=MAX_VALUE,
        description="地胡 earthly: a player wins in its first turn (0: not scored)"
    )
    follow_dealer: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="开局跟: when the other players' first discards, right after the dealer's "
        "first, are all its tile, the dealer pays each of them this (0: not scored)",
    )


class ReadySettings(BaseModel):
    """报听 declared ready: what a declaration is worth (the top-level ``declared_ready``
    says whether one may be made)."""

    model_config = _SECTION

    hard_value: int = Field(
        10,
        ge=0, le=MAX_VALUE,
        description="硬报 value: ready declared before the player's first draw (the dealer: "
        "on its dealt hand)",
    )
    soft_value: int = Field(
        10, ge=0, le=MAX_VALUE,
        description="软听 value: ready declared right after the player's first draw"
    )
    value_mode: ReadyValueMode = Field(
        ReadyValueMode.AT_LEAST,
        description="how a declared-ready winner's value meets its shape value: add, or "
        "at_least (the shape is paid at least the declaration value)",
    )
    kill_ready: bool = Field(
        True,
        description="杀报: anyone may win on a declared-ready player's discard without a pass, "
        "and (with kill_ready_payment) that player pays the winner its declaration value on "
        "top of the hand",
    )
    kong_after_ready: bool = Field(
        True,
        description="a declared-ready player may still kong when the kong leaves its waits "
        "as they were (false: no kong at all after 报听)",
    )
    kill_ready_payment: bool = Field(
        True,
        description="杀报 payment: with kill_ready, the declared-ready discarder also pays its "
        "declaration value (false: the pass only)",
    )


class HotDiscardSettings(BaseModel):
    """热炮 / 杠上炮: a win on the discard that follows the discarder's kong. The discarder
    pays the hand and this value, by the kind of the kong just made."""

    model_config = _SECTION

    exposed: int = Field(1, ge=0, le=MAX_VALUE, description="value after an exposed kong 点豆")
    added: int = Field(1, ge=0, le=MAX_VALUE, description="value after an added kong 转弯豆")
    concealed: int = Field(1, ge=0, le=MAX_VALUE, description="value after a concealed kong 闷豆")
    valued_as: HandValuation = Field(
        HandValuation.PATTERN,
        description="shape value the hand is paid at: pattern, plain or full_flush",
    )
    forfeit: Forfeit = Field(
        Forfeit.KONG,
        description="what the discarder loses: kong (the kong just made), all_kongs (烧豆), "
        "kongs_and_chickens (全杀)",
    )
    multiplier: int = Field(
        0,
        ge=0, le=MAX_MULTIPLIER,
        description="above 1: the win is paid this many times over in place of the added "
        "value by kong kind (0: the value is added)",
    )

    def value_after(self, kind: KongKind) -> int:
        """The hot-discard value after a kong of ``kind``."""
        value: int = getattr(self, kind.value)
        return value


class RobbedKongSettings(BaseModel):
    """抢杠: a win on the tile of another player's added kong (the kong does not stand)."""

    model_config = _SECTION

    valued_as: HandValuation = Field(
        HandValuation.FULL_FLUSH,
        description="shape value the robbing hand is paid at: pattern, plain or full_flush",
    )
    counts_as_self_draw: bool = Field(
        False, description="the robbing hand also gets the self-draw value (算自摸)"
    )
    bonus: int = Field(
        0, ge=0, le=MAX_VALUE, description="extra value the robbed player pays (抢杠 bonus)"
    )
    robbed_pays_for_all: bool = Field(
        False,
        description="包三家: the robbed player pays what every other player would pay on a "
        "self-draw, not a single discard's share",
    )
    forfeit: Forfeit = Field(
        Forfeit.KONG,
        description="what the robbed player loses: kong (the robbed kong only), all_kongs, "
        "kongs_and_chickens (全烧)",
    )
    multiplier: int = Field(
        0,
        ge=0, le=MAX_MULTIPLIER,
        description="above 1: the robbed player alone pays the win this many times over "
        "(not with robbed_pays_for_all; 0: no multiplier)",
    )

    @model_validator(mode="after")
    def _one_payer_rule(self) -> RobbedKongSettings:
        if self.multiplier > 1 and self.robbed_pays_for_all:
            raise ValueError("robbed_kong.multiplier and robbed_kong.robbed_pays_for_all "
                             "exclude each other (the multiplied win is paid by the robbed "
                             "player alone)")
        return self


class KongSettings(BaseModel):
    """豆 kongs: what each kind earns its owner at settlement (not at an exhaustive draw).
    An exposed kong is paid by ``exposed_payer``; the others by every other player."""

    model_config = _SECTION

    exposed: int = Field(1, ge=0, le=MAX_VALUE, description="点豆 / 明杠 exposed kong value")
    concealed: int = Field(2, ge=0, le=MAX_VALUE, description="闷豆 / 暗杠 concealed kong value")
    added: int = Field(3, ge=0, le=MAX_VALUE, description="转弯豆 / 爬坡豆 added kong value")
    uniform: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="见豆三-like: when above 0 every kind is worth this, in place of the "
        "per-kind values",
    )
    exposed_payer: KongPayer = Field(
        KongPayer.DISCARDER, description="who pays an exposed kong: discarder or every_other"
    )
    need_ready: bool = Field(
        True, description="双杀: a kong pays only if its owner won or is ready at the end"
    )
    delayed_scores: bool = Field(
        False,
        description="憨包豆: whether a kong not made on the turn it became possible scores "
        "(it is a pass either way)",
    )
    pong_then_kong_delayed: bool = Field(
        False,
        description="不可先碰后杠: a pong made while holding the fourth tile (an exposed kong "
        "was possible) makes every later kong of that tile delayed (憨包豆)",
    )
    unready_pays_back: bool = Field(
        False,
        description="倒赔: a kong whose owner neither won nor is ready at the end is paid back: "
        "the owner pays each player who won or is ready the kong's value",
    )

    def value_of(self, kind: KongKind) -> int:
        """The value of a kong of ``kind`` (``uniform`` when set)."""
        if self.uniform:
            return self.uniform
        value: int = getattr(self, kind.value)
        return value


class StandingChicken(BaseModel):
    """A 常鸡 standing chicken tile (幺鸡 1s, 乌骨鸡 8p, 挖挖鸡 7p) and its values."""

    model_config = _SECTION

    tile: TileText = Field(description="the tile, e.g. 1s")
    value: int = Field(1, ge=1, le=MAX_VALUE, description="value of each one counted")
    charging: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="冲锋鸡: value of the first one discarded and left unclaimed, for its "
        "discarder (0: no charging chicken for this tile)",
    )
    responsibility: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="责任鸡: extra the discarder of the first one pays its ponger/konger",
    )

    @field_validator("tile")
    @classmethod
    def _suited(cls, tile: Tile) -> Tile:
        if not tile.is_suited:
            raise ValueError("a standing chicken is a suited tile")
        return tile

    def setting_text(self) -> str:
        """The entry as ``zhuoji rules show`` prints it."""
        return (
            f"{self.tile.text} value {self.value}, charging {self.charging}, "
            f"responsibility {self.responsibility}"
        )


class ChickenSettings(BaseModel):
    """鸡 chickens (the top-level ``flip_chicken`` says whether a tile is flipped)."""

    model_config = _SECTION

    standing: tuple[StandingChicken, ...] = Field(
        (StandingChicken(tile=Tile.S1, value=1, charging=2, responsibility=1),),
        description="常鸡 standing chickens with their values",
    )
    flip_value: int = Field(1, ge=0, le=MAX_VALUE, description="翻鸡 value of each flipped chicken")
    gold_multiplier: int = Field(
        2,
        ge=1, le=MAX_MULTIPLIER,
        description="金鸡: when the flip makes a standing chicken the chicken, its amounts "
        "(value, charging, responsibility, penalty) are multiplied by this",
    )
    scope: ChickenScope = Field(
        ChickenScope.HAND,
        description="which tiles count: hand (手上鸡: hand and melds) or hand_and_discards "
        "(内外鸡: also own unclaimed discards); a charging chicken always counts",
    )
    need_ready: bool = Field(
        True, description="双杀: chickens pay only to players who won or are ready"
    )
    penalty: bool = Field(
        False,
        description="包鸡: a player not ready pays each ready player for the standing chickens "
        "it exposed (unclaimed discards and melds)",
    )
    payers: ChickenPayers = Field(
        ChickenPayers.EVERY_OTHER,
        description="who pays a player's chickens: every_other, or not_ready (only players "
        "who neither won nor are ready: four ready players move nothing)",
    )
    charging_scope: ChargingScope = Field(
        ChargingScope.PER_TILE,
        description="冲锋鸡 per_tile (the first discard of each standing tile) or per_hand "
        "(only the first standing chicken discarded, whichever tile)",
    )
    responsibility_unready_discarder: bool = Field(
        False,
        description="责任鸡 only when the discarder of the first one is not ready at the end "
        "and its claimer won or is ready",
    )
    penalty_counts: PenaltyCounts = Field(
        PenaltyCounts.DISCARDS_AND_MELDS,
        description="what 包鸡 charges: discards_and_melds (its unclaimed discards and its "
        "melds) or discards (its unclaimed discards only)",
    )
    responsibility_claims: ResponsibilityClaims = Field(
        ResponsibilityClaims.PONG_AND_KONG,
        description="which claims of the first standing chicken make a 责任鸡: pong_and_kong, "
        "or pong (a konged one makes none)",
    )
    penalty_payers: PenaltyPayers = Field(
        PenaltyPayers.DISCARDER,
        description="who pays 包鸡 for a not-ready player's exposed chickens: discarder, or "
        "every_not_ready (each player not ready pays for them)",
    )
    charging_claimed: ChargingClaimed = Field(
        ChargingClaimed.ENDS,
        description="a claimed first standing chicken: ends (no 冲锋鸡 for the tile), or "
        "passes_to_ready (the claimer's 冲锋鸡 when it won or is ready; the discarder's "
        "still when the claimer is not)",
    )
    concealed_kong_value: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="闷鸡: value of a concealed kong of a chicken tile, in place of four "
        "chickens (0: counted tile by tile)",
    )
    wildcard_value: int = Field(
        0, ge=0, le=MAX_VALUE, description="万能鸡: value of each wildcard held (0: not a chicken)"
    )
    at_exhaustive_draw: DrawChickens = Field(
        DrawChickens.NONE,
        description="chickens at an exhaustive draw: none, or unready_pay_ready",
    )

    @field_validator("standing")
    @classmethod
    def _distinct(cls, standing: tuple[StandingChicken, ...]) -> tuple[StandingChicken, ...]:
        tiles = [s.tile for s in standing]
        if len(set(tiles)) != len(tiles):
            raise ValueError("a standing chicken tile is listed twice")
        return standing

    @property
    def standing_tiles(self) -> tuple[Tile, ...]:
        return tuple(s.tile for s in self.standing)

    def standing_of(self, tile: Tile) -> StandingChicken | None:
        """The standing-chicken entry of ``tile``, if it is one."""
        for s in self.standing:
            if s.tile is tile:
                return s
        return None


class DrawSettings(BaseModel):
    """黄庄 exhaustive draw. No kong is paid at a draw."""

    model_config = _SECTION

    ready_check: bool = Field(
        True,
        description="查叫: each player not ready pays each ready player that player's best "
        "waiting pattern value",
    )


class DealerSettings(BaseModel):
    """庄 dealer: its bonus and who deals next (a single winner deals next unless the deal
    rotates every hand)."""

    model_config = _SECTION


    bonus: int = Field(
        0, ge=0, le=MAX_VALUE, description="坐庄: added to the dealer's winning hand"
    )
    streak_bonus: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="连庄: added to the dealer's winning hand per hand of its streak "
        "(dealer_streak x this)",
    )
    two_winners: MultiWinDealer = Field(
        MultiWinDealer.FIRST_FROM_DEALER,
        description="next dealer after 一炮双响: discarder, first_from_dealer or "
        "first_after_discarder",
    )
    three_winners: MultiWinDealer = Field(
        MultiWinDealer.DISCARDER, description="next dealer after 一炮三响 (same choices)"
    )
    exhaustive_draw: DrawDealer = Field(
        DrawDealer.KEEP,
        description="next dealer after 黄庄: keep, or by_readiness (all or none ready: keep; "
        "exactly one not ready: that player; else the dealer if ready, otherwise the first "
        "ready player after the dealer)",
    )
    rotation: DealerRotation = Field(
        DealerRotation.BY_RESULT,
        description="how the deal passes: by_result (the winner deals; the rules below for "
        "several winners and draws) or every_hand (轮流坐庄: the seat after the dealer)",
    )


class PenaltySettings(BaseModel):
    """Penalties settled as transfers."""

    model_config = _SECTION

    missed_win: Annotated[MissedWinRule, BeforeValidator(_missed_win_choice)] = Field(
        MissedWinRule.FINDING,
        description="过水不胡: a ready player who let a winning tile pass and wins on another "
        "player's tile before drawing again: penalty (true; 包牌: it pays every other player "
        "its hand value instead), finding (a missed_win finding, the win settled as usual) "
        "or none (false: no such rule, nothing reported)",
    )
    false_hand: int = Field(
        0,
        ge=0, le=MAX_VALUE,
        description="相公 (多牌少牌): paid by a player with a wrong tile count to every other "
        "player, a ready one being paid its best waiting value (0: not scored)",
    )


# --- the ruleset --------------------------------------------------------------------------


FLAT_PREFIXES: Mapping[str, str] = MappingProxyType({
    "patterns": "pattern_",
    "bonuses": "bonus_",
    "ready": "ready_",
    "hot_discard": "hot_discard_",
    "robbed_kong": "robbed_kong_",
    "kongs": "kong_",
    "chickens": "chicken_",
    "draw": "draw_",
    "dealer": "dealer_",
    "penalties": "penalty_",
})
"""Flat alias of a section's settings: ``chickens.scope`` is also ``chicken_scope``."""


class Ruleset(RulesetBase):
    """Every setting of one Guizhou table. Nothing in the engine branches on ``name``."""

    flat_prefixes: ClassVar[Mapping[str, str]] = FLAT_PREFIXES

    family: Literal["guizhou"] = Field(
        "guizhou", description="the rule family (a folder of rules/families/)"
    )

    # --- table and legality -------------------------------------------------------------
    players: int = Field(4, ge=2, le=4, description="player count (三丁拐 3, 二丁拐 2)")
    wildcards: int = Field(0, ge=0, le=4, description="wildcard tiles W (暗麻将: 2)")
    set_aside: int = Field(
        0,
        ge=0,
        le=4,
        description="ordinary tiles a hand may record as set aside before the deal (暗麻将: "
        "2, the tiles the wildcards replace); the flip is then chosen among them (0: a hand "
        "records none)",
    )
    multiple_winners: bool = Field(True, description="一炮多响: several may win on one discard")
    pass_rule: bool = Field(True, description="通行证 needed to win on a discard")
    declared_ready: bool = Field(True, description="报听 may be declared")
    missing_suit_required: bool = Field(False, description="缺一门: a win lacks a suit")
    robbing_kong: bool = Field(True, description="抢杠: an added kong can be robbed")
    flip_chicken: bool = Field(True, description="翻鸡: a tile is flipped after a win")

    # --- settlement ---------------------------------------------------------------------
    patterns: PatternValues = Field(default_factory=PatternValues, description="番型 values")
    bonuses: BonusValues = Field(default_factory=BonusValues, description="situational values")
    ready: ReadySettings = Field(default_factory=ReadySettings, description="报听 / 杀报")
    hot_discard: HotDiscardSettings = Field(
        default_factory=HotDiscardSettings, description="热炮 / 杠上炮"
    )
    robbed_kong: RobbedKongSettings = Field(
        default_factory=RobbedKongSettings, description="抢杠胡"
    )
    kongs: KongSettings = Field(default_factory=KongSettings, description="豆 kongs")
    chickens: ChickenSettings = Field(default_factory=ChickenSettings, description="鸡")
    draw: DrawSettings = Field(default_factory=DrawSettings, description="黄庄")
    dealer: DealerSettings = Field(default_factory=DealerSettings, description="庄")
    penalties: PenaltySettings = Field(default_factory=PenaltySettings, description="包牌 / 相公")


# --- setting names ------------------------------------------------------------------------

SETTING_PATHS: tuple[str, ...] = Ruleset.setting_paths()
"""Every Guizhou setting's dotted path, in declaration order (``players`` first)."""


def guizhou_ruleset(ruleset: RulesetBase) -> Ruleset:
    """``ruleset`` as a Guizhou ruleset, for the code that replays and settles the Guizhou
    family; a ruleset of another family raises :class:`RulesetError` naming it."""
    if not isinstance(ruleset, Ruleset):
        raise RulesetError(Message(
            "ruleset {r:any} is of the {f:any} family; this command replays the guizhou "
            "family only", repr(ruleset.name), repr(ruleset.family)))
    return ruleset
