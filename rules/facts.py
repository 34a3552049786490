"""Facts of one replayed hand: what settlement and the warehouse read (frozen, slotted).

The table (:mod:`zhuoji.rules.table`) produces these values; nothing here computes game logic.
Tiles are :class:`~zhuoji.rules.tiles.Tile` values, tuples are in a fixed order (seat order,
event order or tile order), never in set order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from zhuoji.rules.events import KongKind
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.melds import Meld
from zhuoji.rules.tiles import Tile


class Outcome(StrEnum):
    WIN = "win"  # one or more players won
    EXHAUSTIVE_DRAW = "exhaustive_draw"  # 黄庄
    INCOMPLETE = "incomplete"  # stopped by a fatal violation, or the log ends mid-hand


class PassKind(StrEnum):
    """Why a win was allowed under the 通行证 rule (every reason that applies is listed)."""

    NO_PASS_RULE = "no_pass_rule"  # the ruleset has no pass rule
    SELF_DRAW = "self_draw"  # 自摸 needs no pass
    ROBBING_KONG = "robbing_kong"  # 抢杠 needs no pass
    HOT_DISCARD = "hot_discard"  # 热炮: the discard followed the discarder's kong
    KILL_READY = "kill_ready"  # 杀报: the discarder had declared ready
    KONG = "kong"  # the winner holds a kong (any kind, delayed ones included)
    DECLARED_READY = "declared_ready"  # the winner declared ready (报听)
    BIG_HAND = "big_hand"  # the hand is bigger than plain 平胡


class ClaimKind(StrEnum):
    """How a discard was taken by another player."""

    PONG = "pong"
    EXPOSED_KONG = "exposed_kong"
    WIN = "win"
    CHOW = "chow"


class DiscardFact(NamedTuple):
    """One discard. A named tuple rather than a dataclass: one is made per discard, and
    a tuple is several times cheaper to build (it is just as immutable and slot-free)."""

    tile: Tile
    event_index: int
    seat: int  # the discarder
    claimed_by: int | None = None  # the claimer (the first winner of a multiple win)
    claim: ClaimKind | None = None
    hot: bool = False  # 热炮 position: discarded in the same turn after the discarder's kong


RiverRow = DiscardFact
"""A discard in a seat's river: the :class:`DiscardFact` the table keeps (a claim replaces
it); a tuple too, so its fields read by name or by position."""


@dataclass(frozen=True, slots=True)
class KongFact:
    seat: int
    tile: Tile
    kind: KongKind
    event_index: int
    from_seat: int | None = None  # exposed kongs: the discarder
    delayed: bool = False  # 憨包豆: the player could have declared it on an earlier turn
    robbed: bool = False  # 抢杠: an added kong robbed by a win (the kong does not stand)
    replacement: Tile | None = None  # the replacement draw from the back, once drawn

    def __init__(
        self,
        seat: int,
        tile: Tile,
        kind: KongKind,
        event_index: int,
        from_seat: int | None = None,
        delayed: bool = False,
        robbed: bool = False,
        replacement: Tile | None = None,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.event_index = event_index  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]
        self.delayed = delayed  # type: ignore[misc]
        self.robbed = robbed  # type: ignore[misc]
        self.replacement = replacement  # type: ignore[misc]


quick_init(KongFact)


@dataclass(frozen=True, slots=True)
class ChickenDiscard:
    """The first discard of a standing-chicken tile (1s, 8p, 7p): 冲锋鸡 or 责任鸡."""

    tile: Tile
    seat: int
    event_index: int
    claimed_by: int | None = None
    claim: ClaimKind | None = None

    def __init__(
        self,
        tile: Tile,
        seat: int,
        event_index: int,
        claimed_by: int | None = None,
        claim: ClaimKind | None = None,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.tile = tile  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.event_index = event_index  # type: ignore[misc]
        self.claimed_by = claimed_by  # type: ignore[misc]
        self.claim = claim  # type: ignore[misc]


quick_init(ChickenDiscard)


@dataclass(frozen=True, slots=True)
class WinFact:
    seat: int
    tile: Tile
    event_index: int
    from_seat: int | None  # the discarder, the robbed player, or None on self-draw
    self_drawn: bool
    robbed_kong: bool  # 抢杠胡
    kong_bloom: bool  # 杠上开花: self-drawn on a replacement draw
    hot_discard: bool  # 热炮: won on a discard that followed the discarder's kong
    heavenly: bool  # 天胡
    earthly: bool  # 地胡
    declared_ready: bool  # the winner had declared ready (报听)
    kill_ready: bool  # 杀报: won on a declared-ready player's discard or kong
    passes: tuple[PassKind, ...]  # every reason the win needed no further pass
    shape: tuple[str, ...]  # the family's shape patterns of the winning hand (its order)
    situational: tuple[str, ...]  # the family's situational patterns (its order)
    concealed: tuple[Tile, ...]  # the concealed hand without the winning tile
    melds: tuple[Meld, ...]
    waits: tuple[Tile, ...]  # the waits before the winning tile

    @property
    def patterns(self) -> tuple[str, ...]:
        return self.shape + self.situational

    def __init__(
        self,
        seat: int,
        tile: Tile,
        event_index: int,
        from_seat: int | None,
        self_drawn: bool,
        robbed_kong: bool,
        kong_bloom: bool,
        hot_discard: bool,
        heavenly: bool,
        earthly: bool,
        declared_ready: bool,
        kill_ready: bool,
        passes: tuple[PassKind, ...],
        shape: tuple[str, ...],
        situational: tuple[str, ...],
        concealed: tuple[Tile, ...],
        melds: tuple[Meld, ...],
        waits: tuple[Tile, ...],
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.tile = tile  # type: ignore[misc]
        self.event_index = event_index  # type: ignore[misc]
        self.from_seat = from_seat  # type: ignore[misc]
        self.self_drawn = self_drawn  # type: ignore[misc]
        self.robbed_kong = robbed_kong  # type: ignore[misc]
        self.kong_bloom = kong_bloom  # type: ignore[misc]
        self.hot_discard = hot_discard  # type: ignore[misc]
        self.heavenly = heavenly  # type: ignore[misc]
        self.earthly = earthly  # type: ignore[misc]
        self.declared_ready = declared_ready  # type: ignore[misc]
        self.kill_ready = kill_ready  # type: ignore[misc]
        self.passes = passes  # type: ignore[misc]
        self.shape = shape  # type: ignore[misc]
        self.situational = situational  # type: ignore[misc]
        self.concealed = concealed  # type: ignore[misc]
        self.melds = melds  # type: ignore[misc]
        self.waits = waits  # type: ignore[misc]


quick_init(WinFact)


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """One seat at the end of the replay (or where a fatal violation stopped it).

    ``concealed`` is the hand as held: a self-drawn winner holds its winning tile, a
    player who won on a discard or a robbed kong does not (that tile is ``WinFact.tile``).
    ``ready``/``waits`` describe a hand one tile from complete (a winner's are the waits
    before its winning tile); a seat stopped holding a full turn's tiles has no waits.
    Where winners stay in the hand (``mechanics.winners_stay``, 血流成河) a winner's facts
    are those of its hand as it stands: its self-drawn winning tiles were set aside (not
    in ``concealed``), and ``ready``/``waits`` are its hand's now.
    ``river`` holds the seat's discards in order as plain rows; :attr:`discards` gives
    them as :class:`DiscardFact` values.
    """

    seat: int
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    river: tuple[RiverRow, ...]
    declared_ready_at: int | None  # event index of the seat's ``ready``
    hard_ready: bool  # 硬报 (on the dealt hand) rather than 软听 (after the first draw)
    ready: bool
    waits: tuple[Tile, ...]
    kongs: tuple[KongFact, ...]
    won: bool
    flowers: tuple[Tile, ...] = ()  # flowers shown and set aside, in the order shown

    @property
    def discards(self) -> tuple[DiscardFact, ...]:
        """The seat's discards in order (:attr:`river`)."""
        return self.river

    def kong_count(self, kind: KongKind) -> int:
        return sum(1 for k in self.kongs if k.kind is kind and not k.robbed)

    def __init__(
        self,
        seat: int,
        concealed: tuple[Tile, ...],
        melds: tuple[Meld, ...],
        river: tuple[RiverRow, ...],
        declared_ready_at: int | None,
        hard_ready: bool,
        ready: bool,
        waits: tuple[Tile, ...],
        kongs: tuple[KongFact, ...],
        won: bool,
        flowers: tuple[Tile, ...] = (),
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.seat = seat  # type: ignore[misc]
        self.concealed = concealed  # type: ignore[misc]
        self.melds = melds  # type: ignore[misc]
        self.river = river  # type: ignore[misc]
        self.declared_ready_at = declared_ready_at  # type: ignore[misc]
        self.hard_ready = hard_ready  # type: ignore[misc]
        self.ready = ready  # type: ignore[misc]
        self.waits = waits  # type: ignore[misc]
        self.kongs = kongs  # type: ignore[misc]
        self.won = won  # type: ignore[misc]
        self.flowers = flowers  # type: ignore[misc]


quick_init(SeatFacts)


# --- wallend facts: the end of the wall and kong draws (rules/core/wall.py)
class RollFact(NamedTuple):
    """Dice thrown after a kong (开杠) and the replacement they counted."""

    seat: int
    dice: tuple[int, ...]
    event_index: int  # the ``roll`` event
    kong_index: int  # the kong it follows
    stack: int  # the stack counted from the back of the wall (1: the last one)
    tile: Tile | None = None  # the replacement drawn (None until it is)


class SeabedOffer(NamedTuple):
    """The last tile offered to one seat (海底漫游)."""

    seat: int
    take: bool
    event_index: int


@dataclass(frozen=True, slots=True)
class WallFacts:
    """What the wall mechanics recorded in a hand: the dice thrown after kongs, the offers
    of the last tile, the birds and the seat each bird counts to (from the dealer: rank 1
    the dealer, 2 the next seat, 3 the one after, 4 the one before, 5 the dealer again ...).
    ``None`` on a :class:`~zhuoji.rules.replay.HandReplay` of a family that plays none of them."""

    rolls: tuple[RollFact, ...]
    offers: tuple[SeabedOffer, ...]
    seabed_taker: int | None  # the seat that took the last tile
    seabed_tile: Tile | None  # the last tile, once drawn (by a taker or a replacement)
    seabed_replaced_by: int | None  # the seat whose kong replacement was the last tile
    seabed_win: bool  # a win on the last tile (海底捞月 self-drawn, 海底炮 on the shown tile)
    birds: tuple[Tile, ...]
    bird_seats: tuple[int, ...]  # the seat each bird counts to, in the birds' order
    locked: tuple[int, ...]  # seats whose drawn tiles must be discarded (after their roll)

    def birds_on(self, seat: int) -> int:
        """How many birds count to ``seat``."""
        return sum(1 for s in self.bird_seats if s == seat)

    def __init__(
        self,
        rolls: tuple[RollFact, ...],
        offers: tuple[SeabedOffer, ...],
        seabed_taker: int | None,
        seabed_tile: Tile | None,
        seabed_replaced_by: int | None,
        seabed_win: bool,
        birds: tuple[Tile, ...],
        bird_seats: tuple[int, ...],
        locked: tuple[int, ...],
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.rolls = rolls  # type: ignore[misc]
        self.offers = offers  # type: ignore[misc]
        self.seabed_taker = seabed_taker  # type: ignore[misc]
        self.seabed_tile = seabed_tile  # type: ignore[misc]
        self.seabed_replaced_by = seabed_replaced_by  # type: ignore[misc]
        self.seabed_win = seabed_win  # type: ignore[misc]
        self.birds = birds  # type: ignore[misc]
        self.bird_seats = bird_seats  # type: ignore[misc]
        self.locked = locked  # type: ignore[misc]


quick_init(WallFacts)
