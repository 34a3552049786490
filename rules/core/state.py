"""The table of one hand: its state, its public read-only view, its verbs and the plain case.

A :class:`Table` is built from a :class:`~zhuoji.rules.events.HandRecord` (checking the
deal) and advanced one event at a time, under the
:class:`~zhuoji.rules.core.assemble.TableRules` its ruleset's family gives
(:func:`table_rules_of`, once per ruleset): the core settings the family's own settings
map to, the event kinds the table plays (the core's, the optional mechanics' and the
family's) and the family's hooks (a win's further checks and patterns, what is due after a
win). The core reads no family's settings model. ``check(event)`` says whether an event is
legal now without changing anything; ``apply(event)`` applies a legal event and raises
:class:`IllegalMoveError` otherwise, leaving the table exactly as it was;
``legal_actions()`` lists every legal event in a fixed order.

This module is the bottom of the engine's core (``rules/core/``; below it only the interface
of the optional mechanics, :mod:`zhuoji.rules.core.mechanic`): the state, the plain case
of a draw, a discard and a pong (legal as it stands, applied at once), and the types every
rule is written against (:class:`Kind`, :class:`WinPlan`, :class:`TableRulesBase`). The
core rules of each event kind are :mod:`zhuoji.rules.core.play`; each optional mechanic is a
module of its own (:mod:`zhuoji.rules.core.assemble` lists them); ``zhuoji.rules.table`` is
the public face. The rules applied (and every decision where the seeds are silent) are
described in ``docs/rules/legality.md``; the split between the core and a family in
``docs/rules/families.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from functools import cache
from operator import getitem
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol

from zhuoji.rules.core.declared import DeclaredHands
from zhuoji.rules.core.mechanic import adds_to_checks
from zhuoji.rules.event_registry import describe_event, event_name
from zhuoji.rules.events import (
    Chow,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Suit,
    Win,
)
from zhuoji.rules.facts import (
    ChickenDiscard,
    ClaimKind,
    DiscardFact,
    KongFact,
    PassKind,
    SeatFacts,
    WallFacts,
    WinFact,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.hand import _waiting_tiles_of_valid, is_complete
from zhuoji.rules.mechanics import NO_MECHANICS, Mechanics
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.memo import Memo, on_clear_all
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.tiles import (
    ALL_TILES,
    EVERY_TILE,
    FLOWER_TILES,
    NUM_FLOWERS,
    NUM_HONOURS,
    NUM_KINDS,
    NUM_SUITED,
    NUM_TILE_KINDS,
    TILE_TEXT,
    Tile,
    TileSet,
    format_tiles,
    tiles_of,
)
from zhuoji.rules.violations import Violation, ViolationCode
from zhuoji.rules.wide_hand import is_complete_wide, waiting_tiles_wide

if TYPE_CHECKING:
    from zhuoji.rules.core.claims import ClaimsState
    from zhuoji.rules.core.mechanic import Mechanic, MechanicState
    from zhuoji.rules.core.play_on import PlayOnState
    from zhuoji.rules.core.setup import ExchangeFact, SetupState
    from zhuoji.rules.core.wall import WallState

__all__ = [
    "ExtraShapes",
    "IllegalMoveError",
    "Kind",
    "Phase",
    "Table",
    "TableRulesBase",
    "WinCheck",
    "WinFilter",
    "WinNames",
    "WinPlan",
    "WinSource",
    "table_rules_of",
]

class IllegalMoveError(ValueError):
    """An illegal event (or deal); ``violation`` holds the code, hand, event and seat."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(
            f"hand {violation.hand_no}, event {violation.event_index}: "
            f"{violation.code}: {violation.message}"
        )
        self.violation = violation


class Phase(StrEnum):
    DISCARD = "discard"  # ``turn`` holds a full turn's tiles: win, kong, ready or discard
    DISCARD_AFTER_CLAIM = "discard_after_claim"  # after a pong: discard only
    CLAIM = "claim"  # after a discard: others win / pong / kong, or the next seat draws
    KONG_DRAW = "kong_draw"  # after a kong: robbing wins (added kong), else the replacement
    WON = "won"  # after a win: further wins on the same tile, then the flip
    FLOWER_DRAW = "flower_draw"  # after a flower: that seat's replacement from the back
    ENDED = "ended"
    SEABED = "seabed"  # the last tile offered in turn (海底漫游, rules/core/wall.py)
    SETUP = "setup"  # before the dealer's first turn: the exchange, the declared suits
    PLAY_ON = "play_on"  # play after a win (血战到底): further wins on the tile, or the next draw


class WinSource(Enum):
    """Whose tile a win takes."""

    SELF_DRAW = "self_draw"  # 自摸: the tile the winner just drew (or, 天胡, any it holds)
    DISCARD = "discard"  # the last discard (点炮)
    ROBBED_KONG = "robbed_kong"  # the tile of an added kong being made (抢杠)


_C = ViolationCode
# Enum members read through the class cost a descriptor call each in Python 3.11; the hot
# paths use these module constants instead (Final: the compiled engine reads them as C
# statics, not from the module's dict).
_DISCARD: Final = Phase.DISCARD
_AFTER_CLAIM: Final = Phase.DISCARD_AFTER_CLAIM
_CLAIM: Final = Phase.CLAIM
_KONG_DRAW: Final = Phase.KONG_DRAW
_WON: Final = Phase.WON
_ENDED: Final = Phase.ENDED
_SEABED: Final = Phase.SEABED
_FLOWER_DRAW: Final = Phase.FLOWER_DRAW
_SETUP: Final = Phase.SETUP
_PLAY_ON: Final = Phase.PLAY_ON
_PONG: Final = MeldKind.PONG
_EXPOSED: Final = KongKind.EXPOSED
_ADDED: Final = KongKind.ADDED
_CONCEALED: Final = KongKind.CONCEALED
_WILD: Final = 27
_SUIT_RANGES: Final = ((0, 9), (9, 18), (18, 27))
_WIN_SELF: Final = WinSource.SELF_DRAW
_WIN_DISCARD: Final = WinSource.DISCARD
_WIN_ROB: Final = WinSource.ROBBED_KONG
_NO_DISCARD = DiscardFact(Tile.M1, -1, -1)  # the last discard before there is one


def _discard_fact(fields: tuple[Tile, int, int, int | None, ClaimKind | None, bool]
                  ) -> DiscardFact:
    """A :class:`DiscardFact` of its six fields in order: the tuple made the named tuple
    directly (its generated ``__new__``, interpreted in both engines, costs several times
    more, and the table makes one per discard and claim)."""
    return tuple.__new__(DiscardFact, fields)
_CLAIM_PONG: Final = ClaimKind.PONG


_REPEATS = tuple(tuple((tile,) * c for c in range(5)) for tile in ALL_TILES)
_WILDS = _REPEATS[_WILD]

# The tiles of each suit arrangement met so far, as a trie indexed by the nine counts
# (``_SUIT_TILES[c0]...[c8][suit]``, None where nothing was put yet): nine indexings per
# suit instead of a pass over all 28 counts.
_SUIT_TILES: list[Any] = [None] * 5
# arrangements held before the trie is emptied (zhuoji.rules.memo's policy)
_SUIT_TILES_LIMIT = 1 << 15
_suit_tiles_held = 0


def _empty_suit_tiles() -> None:
    global _suit_tiles_held
    _SUIT_TILES[:] = [None] * 5
    _suit_tiles_held = 0


on_clear_all(_empty_suit_tiles)


def _tiles(counts: Sequence[int]) -> tuple[Tile, ...]:
    """The tiles of a count vector in tile order (every count is 0-4)."""
    t = _SUIT_TILES
    try:
        tiles: tuple[Tile, ...] = (
            t[counts[0]][counts[1]][counts[2]][counts[3]][counts[4]][counts[5]][counts[6]][
                counts[7]][counts[8]][0]
            + t[counts[9]][counts[10]][counts[11]][counts[12]][counts[13]][counts[14]][
                counts[15]][counts[16]][counts[17]][1]
            + t[counts[18]][counts[19]][counts[20]][counts[21]][counts[22]][counts[23]][
                counts[24]][counts[25]][counts[26]][2]
            + _WILDS[counts[27]])
    except TypeError:  # an arrangement not in the trie yet
        for suit in range(3):
            _put_suit_tiles(tuple(counts[9 * suit:9 * suit + 9]))
        return _tiles(counts)
    if len(counts) > NUM_KINDS:  # a wide vector: the honours and flowers held
        return tiles + tuple([EVERY_TILE[t] for t in range(NUM_KINDS, len(counts))
                              for _ in range(counts[t])])
    return tiles


def _put_suit_tiles(key: tuple[int, ...]) -> None:
    global _suit_tiles_held
    if _suit_tiles_held >= _SUIT_TILES_LIMIT:
        _empty_suit_tiles()
    node = _SUIT_TILES
    for count in key[:8]:
        child = node[count]
        if child is None:
            child = node[count] = [None] * 5
        node = child
    if node[key[8]] is None:
        node[key[8]] = tuple(
            sum(map(getitem, _REPEATS[9 * suit:9 * suit + 9], key), ()) for suit in range(3))
        _suit_tiles_held += 1


def _as_ints(tiles: Sequence[Tile]) -> Sequence[int]:
    """The tiles as plain ints where they are 0-255 (a list indexed by a plain int is
    quicker than by a :class:`Tile`), else as they are."""
    try:
        return bytes(tiles)
    except (TypeError, ValueError):
        return tiles


def _fmt(counts: Sequence[int]) -> str:
    return format_tiles(tiles_of(counts)) or "nothing"


def _meld_text(m: Meld) -> Message:
    if m.kind is MeldKind.CHOW:
        return Message("chow {tile}", m.tile)
    return Message("{k:meldkind} {tile}", m.kind, m.tile)


def _held(seat: int, tiles: str, melds: Sequence[Meld]) -> Message:
    """``seat 0 holds 123m [pong 5p]``: a seat's concealed tiles and melds."""
    if tiles == "nothing":
        if melds:
            return Message("seat {seat} holds nothing [{m:meld*, }]", seat,
                           [_meld_text(m) for m in melds])
        return Message("seat {seat} holds nothing", seat)
    if melds:
        return Message("seat {seat} holds {t:tiles} [{m:meld*, }]", seat, tiles,
                       [_meld_text(m) for m in melds])
    return Message("seat {seat} holds {t:tiles}", seat, tiles)


def _shown(tiles: str, melds: Sequence[Meld]) -> Message:
    """``123m [pong 5p]``: tiles and melds."""
    if tiles == "nothing" and not melds:
        return Message("nothing")
    if melds:
        return Message("{t:tiles} [{m:meld*, }]", tiles, [_meld_text(m) for m in melds])
    return Message("{t:tiles}", tiles)


def _after(ev: Event, clause: str, *values: object) -> Message:
    """An illegal event's message: the event, then what is wrong with it (a template of
    the glossary's ``[message.after_event]``)."""
    return Message("{e:event}{r:after_event}", describe_event(ev), Message(clause, *values))


@cache
def _next_seats(n: int) -> tuple[int, ...]:
    """Each seat's next seat at an ``n``-player table."""
    return tuple((s + 1) % n for s in range(n))


_MELDS: Memo[tuple[MeldKind, int, int | None, bool], Meld] = Memo("table.melds", 4096)


def _meld(kind: MeldKind, tile: Tile, from_seat: int | None, delayed: bool) -> Meld:
    """An interned meld (melds are immutable values; building one costs more than a
    dictionary look-up)."""
    key = (kind, tile, from_seat, delayed)
    meld = _MELDS.data.get(key)
    if meld is None:
        meld = _MELDS.put(key, Meld(kind, tile, from_seat, delayed))
    return meld


# ---------------------------------------------------------------------- the records
@dataclass(slots=True)
class _KongRecord:
    """A kong as the table keeps it: :class:`~zhuoji.rules.facts.KongFact`'s fields, filled in as
    the hand goes on (the replacement draw, a robbing win), and where an added kong's pong
    stood (put back when the kong is robbed)."""

    seat: int
    tile: Tile
    kind: KongKind
    event_index: int
    from_seat: int | None
    delayed: bool
    pong: Meld | None  # an added kong: the pong it was made on
    position: int  # an added kong: the pong's place among the seat's melds; else -1
    robbed: bool = False
    replacement: Tile | None = None

    def fact(self) -> KongFact:
        return KongFact(self.seat, self.tile, self.kind, self.event_index, self.from_seat,
                        self.delayed, self.robbed, self.replacement)


@dataclass(slots=True)
class _TrackedDiscard:
    """The first discard of a tile the family tracks (:attr:`TableRulesBase.tracked`: a
    family's scoring tiles); a claim of it fills in the claimer."""

    tile: Tile
    seat: int
    event_index: int
    claimed_by: int | None = None
    claim: ClaimKind | None = None

    def fact(self) -> ChickenDiscard:
        return ChickenDiscard(self.tile, self.seat, self.event_index, self.claimed_by,
                              self.claim)


class _WonTile(NamedTuple):
    """The tile the hand was won on: what further wins on it (一炮多响) must match."""

    from_seat: int  # the discarder or the robbed player; -1 on a self-drawn win
    tile: Tile
    source: WinSource
    hot: bool
    kill: bool
    offer_index: int  # the event that offered the tile (the discard or the kong); -1


class _RobOffer(NamedTuple):
    """An added kong that could be robbed (what 过水 looks back at, beside the rivers)."""

    event_index: int
    tile: Tile
    seat: int


class WinPlan:
    """What a legal win looks like; computed by the check, reused by the apply. The core
    fills in the source, the complete hand and the discard's facts; a family's
    :attr:`TableRulesBase.check_win` may keep what it found (``waits``, ``passes``, ``shape``)
    for its :attr:`TableRulesBase.win_patterns`."""

    __slots__ = ("counts", "event", "hot", "kill", "offer_index", "passes", "shape",
                 "source", "waits")

    def __init__(self, event: Win, source: WinSource, counts: list[int], hot: bool,
                 kill: bool, offer_index: int) -> None:
        self.event = event
        self.source = source
        self.counts = counts  # the complete concealed hand including the winning tile
        self.hot = hot
        self.kill = kill
        self.offer_index = offer_index
        self.waits: tuple[Tile, ...] | None = None
        self.passes: tuple[PassKind, ...] | None = None
        self.shape: frozenset[str] | None = None


class Table:
    """The state of one hand. Read it through the methods and properties; change it only
    through :meth:`apply` (or :meth:`step`)."""

    __slots__ = (
        "_back", "_checks", "_claimed_any", "_claims", "_copies", "_dealer", "_declared",
        "_disc", "_family", "_findings", "_flowers", "_front", "_hand_no", "_hands",
        "_index", "_kinds", "_kong_chances", "_kong_turn", "_kongs", "_last_draw", "_mech",
        "_melds", "_n", "_next", "_noted", "_passed_kongs", "_pending_kong", "_phase",
        "_plain", "_plain_turn", "_plan", "_play_on", "_pong_tiles", "_replaced", "_rivers",
        "_rob_offers", "_robbed_tiles", "_rules", "_ruleset", "_set_aside", "_setup",
        "_states", "_stay", "_taken", "_tracked", "_tracked_discards", "_turn", "_waits", "_wall",
        "_wend", "_wide", "_winners", "_won", "_won_tile",
    )

    def __init__(self, record: HandRecord, ruleset: RulesetBase) -> None:
        rules = table_rules_of(ruleset)  # the one per-ruleset look-up of a hand
        copies = _copies_in_play(record, rules)
        hands, taken = _check_deal(record, rules, copies)
        self._set_aside: tuple[Tile, ...] | None = record.set_aside
        n = record.n_players
        self._ruleset = ruleset
        self._rules = rules
        self._kinds = rules.kinds
        self._tracked = rules.tracked
        self._mech: Mechanics = rules.mechanics  # the core mechanics the family plays
        self._wide = len(copies) > NUM_KINDS  # honours (and flowers): wide count vectors
        self._flowers = rules.mechanics.flowers
        self._hand_no = record.hand_no
        self._n = n
        self._next = _next_seats(n)
        self._dealer = record.dealer
        self._copies = copies
        self._hands = hands
        self._taken = taken  # tiles out of the wall (kept up to date only without a wall)
        self._wall = record.wall
        self._front = 0
        self._back = (len(record.wall) if record.wall is not None
                      else sum(copies) - sum(len(d) for d in record.deal))
        # per-seat lists (four players: a literal is much quicker than a comprehension)
        self._melds: list[list[Meld]] = [[], [], [], []] if n == 4 else [[] for _ in range(n)]
        self._rivers: list[list[DiscardFact]] = (
            [[], [], [], []] if n == 4 else [[] for _ in range(n)])
        self._rob_offers: list[_RobOffer] = []
        self._disc = _NO_DISCARD  # the last discard (a claim replaces it in the river too)
        self._turn = record.dealer
        self._phase = _DISCARD
        self._index = 0
        self._last_draw = -1  # the tile drawn this turn, -1 when none
        self._replaced = False  # the last draw was a kong replacement
        self._kong_turn = False  # the seat to act made a kong this turn (热炮)
        self._pong_tiles: list[list[int]] = (  # tiles of current pongs
            [[], [], [], []] if n == 4 else [[] for _ in range(n)])
        self._claimed_any = False  # any pong or kong so far (ends the first go-round)
        self._pending_kong: _KongRecord | None = None  # the kong waiting for its replacement
        self._kongs: list[_KongRecord] = []
        self._kong_chances: list[list[int]] = (
            [[], [], [], []] if n == 4 else [[] for _ in range(n)])
        for s, h in enumerate(hands):
            if 4 in h:
                self._kong_chances[s] = [t for t in range(NUM_SUITED) if h[t] == 4]
        self._passed_kongs: list[set[int]] = (
            [set(), set(), set(), set()] if n == 4 else [set() for _ in range(n)])
        self._declared = DeclaredHands(n)  # a hand frozen by a declaration (declared.py)
        self._waits: list[tuple[Tile, ...] | None] = [None] * n  # at the last waiting size
        self._won_tile: _WonTile | None = None
        self._won = [False] * n
        # 血流成河: a winner stays in the hand (its ``_won`` marks a win, not a seat gone)
        self._stay = rules.mechanics.play_after_win and rules.mechanics.winners_stay
        self._winners: list[WinFact] = []
        self._robbed_tiles = 0
        self._tracked_discards: dict[int, _TrackedDiscard] = {}  # first discards of them
        make_family = rules.family_state  # the family's own state of the hand (or None)
        self._family: object = None if make_family is None else make_family()
        deal_findings = rules.deal_findings
        self._findings: list[Violation] = [] if deal_findings is None else deal_findings(record)
        self._plan: WinPlan | None = None
        self._noted: list[Event] = []  # events a family keeps for its settlement (note)
        # the optional mechanics the family plays: each one's state (its hooks), made by
        # the mechanic, which also keeps it in its own slot (None where it is not played)
        self._plain = rules.plain_cases  # off: every event takes the full check
        self._plain_turn = rules.plain_turn  # off: a discard or a pong never is plain
        self._wend: WallState | None = None  # the end of the wall and kong draws
        self._claims: ClaimsState | None = None  # chow and flowers
        self._setup: SetupState | None = None  # the exchange and the declared suits
        self._play_on: PlayOnState | None = None  # play after a win
        self._states: tuple[MechanicState, ...] = ()
        self._checks: tuple[MechanicState, ...] = ()  # those adding to the core's checks
        mechanics = rules.mechanic_list
        if mechanics:
            self._states = tuple([m.state(self, record) for m in mechanics])
            self._checks = tuple([s for s in self._states if adds_to_checks(s)])

    @classmethod
    def from_record(cls, record: HandRecord, ruleset: RulesetBase) -> Table:
        """The table after the deal; raises :class:`IllegalMoveError` (``bad_deal``,
        ``tile_overflow``) when the deal (and wall) cannot be right."""
        return cls(record, ruleset)

    # ------------------------------------------------------------------ read access
    @property
    def ruleset(self) -> RulesetBase:
        return self._ruleset

    @property
    def rules(self) -> TableRulesBase:
        """What the table plays: the family's :class:`TableRulesBase` for the ruleset."""
        return self._rules

    @property
    def hand_no(self) -> int:
        return self._hand_no

    @property
    def n_players(self) -> int:
        return self._n

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int:
        """The seat to act in the discard phases; in CLAIM the discarder; in KONG_DRAW the
        player who made the kong."""
        return self._turn

    @property
    def event_index(self) -> int:
        """How many events have been applied (the index the next event gets)."""
        return self._index

    @property
    def wall_left(self) -> int:
        return self._back - self._front

    @property
    def wall(self) -> tuple[Tile, ...] | None:
        """The undrawn part of the known wall, front first (None when the log has none)."""
        if self._wall is None:
            return None
        return self._wall[self._front:self._back]

    @property
    def flip(self) -> Tile | None:
        """The tile the family turned up after the win, where its state keeps one (its
        ``flip``); None otherwise."""
        flip: Tile | None = getattr(self._family, "flip", None)
        return flip

    @property
    def family_state(self) -> object:
        """The family's own state of this hand (:attr:`TableRulesBase.family_state` made it;
        None when the family keeps none): the family's rules read and change it."""
        return self._family

    @property
    def winners(self) -> tuple[WinFact, ...]:
        return tuple(self._winners)

    @property
    def findings(self) -> tuple[Violation, ...]:
        """Non-fatal violations found so far (``missed_win``)."""
        return tuple(self._findings)

    @property
    def noted(self) -> tuple[Event, ...]:
        """The events a family's kinds kept for its settlement (:meth:`note`), in order."""
        return tuple(self._noted)

    def note(self, event: Event) -> None:
        """Keep a legal event of a family's kind for its settlement (e.g. 起手小胡, wins on
        the dealt hand: the table plays nothing on them, the settlement pays them); an
        ``apply`` calls it."""
        self._noted.append(event)

    @property
    def robbed_tiles(self) -> int:
        """Tiles taken off a robbed kong (each belongs to the robbers' wins)."""
        return self._robbed_tiles

    @property
    def is_over(self) -> bool:
        """The hand may end here: it ended, or it was won and nothing the family plays after
        a win (a tile turned up) is due."""
        if self._phase is _ENDED:
            return True
        return (self._phase is _WON and not self._closing_due()
                and not any([s.due_after_win(self) for s in self._states]))

    def counts(self, seat: int) -> tuple[int, ...]:
        return tuple(self._hands[seat])

    def concealed(self, seat: int) -> tuple[Tile, ...]:
        return _tiles(self._hands[seat])

    def melds(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._melds[seat])

    def discards(self, seat: int) -> tuple[DiscardFact, ...]:
        return tuple(self._rivers[seat])

    def flowers(self, seat: int) -> tuple[Tile, ...]:
        """The flowers a seat has shown and set aside, in the order shown."""
        claims = self._claims
        return tuple(claims.shown[seat]) if self._flowers and claims is not None else ()

    def declared_ready_at(self, seat: int) -> int | None:
        return self._declared.at[seat]

    def is_hard_ready(self, seat: int) -> bool:
        """硬报: declared on the dealt hand (the dealer before its first discard, a
        non-dealer before its first draw); 软听 otherwise."""
        return self._declared.hard[seat]

    def is_frozen(self, seat: int) -> bool:
        return self._declared.frozen[seat]

    def exchanges(self) -> tuple[ExchangeFact, ...]:
        """换三张: each seat's tiles passed, in event order (``()`` without an exchange)."""
        return () if self._setup is None else self._setup.exchanges()

    def declared_suits(self) -> tuple[Suit | None, ...]:
        """定缺: each seat's declared suit (``()`` when the family declares none)."""
        if self._setup is None or not self._setup.declare:
            return ()
        return self._setup.declared_suits()

    def kongs(self) -> tuple[KongFact, ...]:
        return tuple([k.fact() for k in self._kongs])

    def chicken_discards(self) -> tuple[ChickenDiscard, ...]:
        """First discards of the tiles the family tracks (e.g. the scoring tiles of a
        chicken family), in the order they happened."""
        return tuple([c.fact() for c in self._tracked_discards.values()])  # insertion order

    def waits(self, seat: int) -> tuple[Tile, ...]:
        """Waits of a seat holding a waiting-size hand (13 - 3 per meld); ``()`` for a
        seat in the middle of its turn. A winner's waits are those before its win (a
        winner who stays in the hand, 血流成河: those of its hand as it stands)."""
        if self._won[seat] and not self._stay:
            return next(w.waits for w in self._winners if w.seat == seat)
        if sum(self._hands[seat]) + 3 * len(self._melds[seat]) != 13:
            return ()
        return self._seat_waits(seat)

    def is_ready(self, seat: int) -> bool:
        """叫牌 now: a winner (who left the hand), or a waiting-size hand with waits (and,
        under 缺一门, a missing suit)."""
        if self._won[seat] and not self._stay:
            return True
        if sum(self._hands[seat]) + 3 * len(self._melds[seat]) != 13:
            return False
        return self._ready_now(seat)

    def wall_facts(self) -> WallFacts | None:
        """What the wall mechanics recorded (dice, the last tile's offers, the birds);
        ``None`` when the family plays none of them."""
        return None if self._wend is None else self._wend.facts(self)

    def seat_facts(self) -> tuple[SeatFacts, ...]:
        kongs = self.kongs() if self._kongs else ()
        hands = self._hands
        melds = self._melds
        rivers = self._rivers
        won = self._won
        stay = self._stay
        out = []
        for s in range(self._n):
            hand = hands[s]
            seat_melds = melds[s]
            # what waits(s) and is_ready(s) give
            if won[s] and not stay:
                waits = next(w.waits for w in self._winners if w.seat == s)
                ready = True
            elif sum(hand) + 3 * len(seat_melds) != 13:
                waits = ()
                ready = False
            else:
                waits = self._seat_waits(s)
                ready = bool(waits) and not (self._rules.win_needs_missing_suit
                                             and self._suits(s, hand) == 3)
            out.append(SeatFacts(
                s,
                _tiles(hand),
                tuple(seat_melds),
                tuple(rivers[s]),
                self._declared.at[s],
                self._declared.hard[s],
                ready,
                waits,
                tuple([k for k in kongs if k.seat == s]) if kongs else (),
                won[s],
                self.flowers(s),
            ))
        return tuple(out)

    def summary(self, seat: int) -> str:
        """A short state summary of one seat: concealed tiles and melds."""
        return _held(seat, _fmt(self._hands[seat]), self._melds[seat])

    # --- the public view (TableView) ---
    # What a family reads (zhuoji.rules.view.TableView, TableEdit): the members below, with
    # the read access above. The per-seat and per-tile properties return the table's own
    # lists, typed as read-only sequences: no copy per call.
    @property
    def hands(self) -> Sequence[Sequence[int]]:
        return self._hands

    @property
    def seat_melds(self) -> Sequence[Sequence[Meld]]:
        return self._melds

    @property
    def rivers(self) -> Sequence[Sequence[DiscardFact]]:
        return self._rivers

    @property
    def won(self) -> Sequence[bool]:
        return self._won

    @property
    def declared_ready(self) -> Sequence[int | None]:
        return self._declared.at

    @property
    def last_discard(self) -> DiscardFact:
        return self._disc

    @property
    def last_draw(self) -> int:
        return self._last_draw

    @property
    def claimed_any(self) -> bool:
        return self._claimed_any

    @property
    def kong_records(self) -> Sequence[_KongRecord]:
        return self._kongs

    @property
    def rob_offers(self) -> Sequence[_RobOffer]:
        return self._rob_offers

    @property
    def known_wall(self) -> Sequence[Tile] | None:
        return self._wall

    @property
    def wall_front(self) -> int:
        return self._front

    @property
    def wall_back(self) -> int:
        return self._back

    @property
    def taken(self) -> Sequence[int]:
        return self._taken

    @property
    def copies(self) -> Sequence[int]:
        return self._copies

    @property
    def set_aside(self) -> tuple[Tile, ...] | None:
        return self._set_aside

    @property
    def wall_mechanics(self) -> WallState | None:
        return self._wend

    def seat_waits(self, seat: int) -> tuple[Tile, ...]:
        return self._seat_waits(seat)

    def ready_now(self, seat: int) -> bool:
        return self._ready_now(seat)

    def ready_after_discard(self, seat: int, tile: int) -> bool:
        return self._ready_after_discard(seat, tile)

    def suits_held(self, seat: int, counts: Sequence[int]) -> int:
        return self._suits(seat, counts)

    def violation(self, code: ViolationCode, seat: int | None, message: str, *,
                  fatal: bool = True, at_event: bool = True) -> Violation:
        return self._v(code, seat, message, fatal=fatal, at_event=at_event)

    def describe_phase(self) -> str:
        return self._describe_phase()

    def describe_event(self, ev: Event) -> str:
        return describe_event(ev)

    def after_event(self, ev: Event, clause: str, *values: object) -> str:
        return _after(ev, clause, *values)

    # the apply of a family's event kind (TableEdit; note is above)
    def declare_ready(self, seat: int, *, hard: bool, frozen_now: bool) -> None:
        self._declared.declare(seat, self._index, hard, frozen_now)

    def end_hand(self) -> None:
        self._phase = _ENDED
    # --- end of the public view ---

    # ------------------------------------------------------------------ the verbs
    def check(self, event: Event) -> Violation | None:
        """The violation ``event`` would be now (a fatal one first), or None when it is
        legal. Changes nothing."""
        return self._check(event)

    def apply(self, event: Event) -> None:
        """Apply a legal event. A fatal violation raises :class:`IllegalMoveError` and
        leaves the table unchanged; a non-fatal one is recorded in :attr:`findings`."""
        v = self.step(event)
        if v is not None:
            raise IllegalMoveError(v)

    def step(self, event: Event) -> Violation | None:
        """Like :meth:`apply`, but returns the fatal violation instead of raising."""
        return self.run((event,))

    def run(self, events: Iterable[Event]) -> Violation | None:
        """Apply ``events`` in order up to the first fatal violation (returned, the table
        left as it was before that event); non-fatal ones go to :attr:`findings`.

        An event of the plain case of its kind (a draw, a discard or a pong: the kind's
        ``_plain_*`` predicate) is legal as it stands and applied at once; any other goes
        through the full check first (its kind's check, which starts from the same
        predicate), then its apply."""
        kinds = self._kinds
        plain_cases = self._plain  # off where the wall mechanics wrap the plain kinds
        for event in events:
            tp = type(event)
            try:
                if not plain_cases:
                    plain = False
                elif tp is Discard:
                    plain = _plain_discard(self, event)  # type: ignore[arg-type]
                    if plain:
                        _apply_discard(self, event)  # type: ignore[arg-type]
                elif tp is Draw:
                    plain = _plain_draw(self, event)  # type: ignore[arg-type]
                    if plain:
                        _apply_draw(self, event)  # type: ignore[arg-type]
                elif tp is Pong:
                    plain = _plain_pong(self, event)  # type: ignore[arg-type]
                    if plain:
                        _apply_pong(self, event)  # type: ignore[arg-type]
                else:
                    plain = False
                if not plain:
                    kind = kinds.get(tp)
                    if kind is None:
                        return self._not_in_family(event)
                    v = self._check_kind(kind, event)
                    if v is not None:
                        if v.fatal:
                            return v
                        self._findings.append(v)
                    kind.apply(self, event)
            except IndexError:
                # the count vectors hold the family's tiles only: an event naming another
                # tile (a record built without the readers, which refuse it) fails its
                # predicate or check here, before anything is applied
                foreign = self._foreign_tile(event)
                if foreign is None:
                    raise
                return foreign
            self._index += 1
        return None

    def _foreign_tile(self, ev: Event) -> Violation | None:
        """``event_not_in_family`` for an event naming a tile outside the family's tile
        set (a 108-tile game's 1z), None for an event whose tiles are all in it."""
        tiles = getattr(ev, "tiles", None)
        named = tuple(tiles) if tiles is not None else (getattr(ev, "tile", None),)
        kinds = len(self._copies)
        for tile in named:
            if tile is not None and not 0 <= int(tile) < kinds:
                rules = self._rules
                return self._v(_C.EVENT_NOT_IN_FAMILY,
                               _seat_of(ev) if _has_seat(ev) else None,
                               _after(ev, ": {tile} is not one of the {f:word} family's tiles "
                                      "(ruleset {r:ruleset})", tile, rules.family,
                                      repr(rules.name)))
        return None

    def finish(self) -> Violation | None:
        """Called when the log has no more events: the hand must have ended
        (``premature_end`` otherwise) and what the family plays after a win must have been
        played (e.g. a tile turned up after the win)."""
        ph = self._phase
        if ph is _ENDED:
            return None
        for state in self._states:
            v = state.finish(self)
            if v is not None:
                return v
        if ph is _WON:
            missing = self._rules.closing_missing
            if missing is not None and self._closing_due():
                return missing(self)
            return None
        return self._v(_C.PREMATURE_END, None,
                       Message("the log ends before the hand ended ({phase}, {n} tiles left)",
                               self._describe_phase(), self.wall_left), at_event=False)

    def legal_actions(self) -> list[Event]:
        """Every legal event now, in a fixed order: wins, kongs, ready, discards (own turn);
        wins, pongs and kongs by seat from the discarder on, then the draw or the
        exhaustive draw (after a discard); robbing wins, then the replacement draw (after
        a kong); further wins, then the flip (after a win). Tiles go in tile order."""
        return [e for e in self._candidates() if self._check(e) is None]

    # ------------------------------------------------------------------ internals
    def _v(self, code: ViolationCode, seat: int | None, message: str, *,
           fatal: bool = True, at_event: bool = True) -> Violation:
        return Violation(code, self._hand_no, self._index if at_event else None, seat,
                         message, fatal)

    def _flower_seat(self) -> int:
        """The seat whose flower replacement is due (-1 when none)."""
        claims = self._claims
        return -1 if claims is None else claims.flower_seat

    def _resume_seat(self) -> int:
        """The seat that draws next after a win (play after a win; -1 without it)."""
        play_on = self._play_on
        return -1 if play_on is None else play_on.resume

    def _describe_phase(self) -> str:
        ph = self._phase
        if ph is _DISCARD or ph is _AFTER_CLAIM:
            return Message("seat {seat} must discard", self._turn)
        if ph is _CLAIM:
            d = self._disc.seat
            return Message("seat {seat} just discarded {tile}, seat {next:seat} draws next",
                           d, self._disc.tile, self._next[d])
        if ph is _KONG_DRAW:
            return Message("seat {seat} must draw its kong replacement", self._turn)
        if ph is _FLOWER_DRAW:
            return Message("seat {seat} must draw its flower replacement",
                           self._flower_seat())
        if ph is _WON:
            return Message("the hand was won")
        for state in self._states:  # a phase of a mechanic's (the last tile's offers ...)
            text = state.describe_phase(self)
            if text is not None:
                return text
        return Message("the hand has ended")

    def _closing_due(self) -> bool:
        """An event the family plays after a win is still due (a tile turned up)."""
        due = self._rules.closing_due
        return due is not None and due(self)

    def _seat_waits(self, seat: int) -> tuple[Tile, ...]:
        """Waits of a seat holding a waiting-size hand (cached until its hand changes)."""
        w = self._waits[seat]
        if w is None:
            w = self._waits_of(seat, self._hands[seat])
            self._waits[seat] = w
        return w

    def _waits_of(self, seat: int, counts: list[int]) -> tuple[Tile, ...]:
        """Waits of the seat's waiting-size ``counts`` (with its melds): the core's shapes',
        and the family's :attr:`TableRulesBase.extra_shapes`', each kept when the family's
        :attr:`TableRulesBase.win_filter` (if any) takes the complete hand as a win."""
        melds = self._melds[seat]
        w = (waiting_tiles_wide(counts, len(melds)) if self._wide
             else _waiting_tiles_of_valid(counts, len(melds)))
        extra = self._rules.extra_shapes
        if extra is not None:
            more = extra.waits(counts, melds)
            if more:
                w = tuple(sorted({*w, *more}))
        wins = self._rules.win_filter
        if wins is not None and w:
            full = counts[:]
            kept: list[Tile] = []
            for x in w:
                full[x] += 1
                if wins(full, melds):
                    kept.append(x)
                full[x] -= 1
            w = tuple(kept)
        return w

    def _waits_before(self, seat: int, tile: int) -> tuple[Tile, ...]:
        """Waits of a seat's full-turn hand without ``tile``."""
        w = self._waits[seat]
        if w is not None and tile == self._last_draw:
            return w  # computed before the draw, the hand has not changed since
        counts = self._hands[seat][:]
        counts[tile] -= 1
        return self._waits_of(seat, counts)

    def _suits(self, seat: int, counts: Sequence[int]) -> int:
        present = [any(counts[a:b]) for a, b in _SUIT_RANGES]
        for m in self._melds[seat]:
            if m.tile < NUM_SUITED:
                present[m.tile // 9] = True
        return sum(present)

    def _ready_now(self, seat: int) -> bool:
        """叫牌: the seat's waiting-size hand has waits (and, where a win needs a missing
        suit, lacks one)."""
        if not self._seat_waits(seat):
            return False
        return not (self._rules.win_needs_missing_suit
                    and self._suits(seat, self._hands[seat]) == 3)

    def _ready_after_discard(self, seat: int, tile: int) -> bool:
        counts = self._hands[seat][:]
        counts[tile] -= 1
        if not self._waits_of(seat, counts):
            return False
        return not (self._rules.win_needs_missing_suit and self._suits(seat, counts) == 3)

    def _complete(self, counts: Sequence[int], melds: int) -> bool:
        return is_complete_wide(counts, melds) if self._wide else is_complete(counts, melds)

    def _complete_at(self, seat: int, counts: Sequence[int]) -> bool:
        """The seat's full ``counts`` with its melds are a complete hand: the core's shapes,
        or the family's :attr:`TableRulesBase.extra_shapes`."""
        melds = self._melds[seat]
        if self._complete(counts, len(melds)):
            return True
        extra = self._rules.extra_shapes
        return extra is not None and extra.complete(counts, melds)

    def _check(self, ev: Event) -> Violation | None:
        kind = self._kinds.get(type(ev))
        if kind is None:
            return self._not_in_family(ev)
        try:
            return self._check_kind(kind, ev)
        except IndexError:  # a tile outside the family's set (see run)
            foreign = self._foreign_tile(ev)
            if foreign is None:
                raise
            return foreign

    def _check_kind(self, kind: Kind, ev: Event) -> Violation | None:
        """The violation ``ev`` (of ``kind``) would be: the hand's end and the seat first,
        then the kind's own check."""
        ph = self._phase
        if (ph is _ENDED and not kind.after_end) or (ph is _WON and not kind.after_win):
            seat: int | None = _seat_of(ev) if kind.seated else None
            return self._v(_C.EVENT_AFTER_END, seat,
                           _after(ev, " after the hand ended ({phase})",
                                  self._describe_phase()))
        if kind.seated:
            seat = _seat_of(ev)
            if not 0 <= seat < self._n:
                return self._v(_C.OUT_OF_TURN, seat,
                               _after(ev, ": there is no seat {seat} at a {n}-player table",
                                      seat, self._n))
            for state in self._checks:
                v = state.check_seat(self, seat, describe_event(ev))
                if v is not None:
                    return v
        for state in self._checks:
            v = state.gate(self, ev, _seat_of(ev) if kind.seated else None)
            if v is not None:
                return v
        return kind.check(self, ev)

    def _not_in_family(self, ev: Event) -> Violation:
        """An event of a kind the ruleset's family does not play (``event_not_in_family``)."""
        rules = self._rules
        return self._v(_C.EVENT_NOT_IN_FAMILY, _seat_of(ev) if _has_seat(ev) else None,
                       _after(ev, ": the {f:word} family (ruleset {r:ruleset}) has no "
                              "{k:word} event", rules.family, repr(rules.name),
                              event_name(ev)))

    def _candidates(self) -> list[Event]:
        """A superset of the legal events, pruned by cheap necessary conditions (a tile
        held, a wait, a pair for a pong ...); legal_actions keeps those passing the check."""
        states = self._states
        for state in states:  # a phase of a mechanic's: its candidates alone
            own = state.phase_candidates(self)
            if own is not None:
                return own
        out = self._core_candidates()
        for state in states:
            state.more_candidates(self, out)
        return out

    def _core_candidates(self) -> list[Event]:
        """The candidates of the core's and the family's events."""
        ph = self._phase
        n = self._n
        out: list[Event] = []
        if ph is _ENDED:
            return out
        walled = self._back > self._front
        more = self._rules.candidates
        if ph is _DISCARD or ph is _AFTER_CLAIM:
            s = self._turn
            hand = self._hands[s]
            melds = self._melds[s]
            kinds = EVERY_TILE[:len(hand)]
            held = [kinds[t] for t in range(len(hand)) if hand[t] and t != _WILD]
            if self._flowers:
                held = [t for t in held if not t.is_flower]
            for state in self._states:
                state.turn_candidates(self, out)
            if ph is _DISCARD:
                wins = self._rules.win_filter
                if self._complete_at(s, hand) and (wins is None or wins(hand, melds)):
                    if self._last_draw >= 0:
                        out.append(Win(s, EVERY_TILE[self._last_draw]))
                    else:
                        out.extend(Win(s, t) for t in kinds if hand[t])
                if walled:
                    out.extend(Kong(s, t, _CONCEALED) for t in held if hand[t] == 4)
                    out.extend(Kong(s, m.tile, _ADDED) for m in melds
                               if m.kind is _PONG and hand[m.tile])
                if more is not None:
                    more(self, out)  # the family's events of the turn (报听)
            if self._declared.frozen[s]:
                held = [EVERY_TILE[self._last_draw]] if self._last_draw >= 0 else []
            out.extend(Discard(s, t) for t in held)
            return out
        stay = self._stay  # 血流成河: a winner stays and claims as before
        seats_after = [s for s in ((self._turn + k) % n for k in range(1, n))
                       if stay or not self._won[s]]  # 血战到底: a winner claims nothing
        if ph is _CLAIM:
            d, tile = self._disc.seat, self._disc.tile
            out.extend(Win(o, tile, d) for o in seats_after if tile in self._seat_waits(o))
            for o in seats_after:
                count = self._hands[o][tile]
                if count >= 2 and not self._declared.frozen[o]:
                    out.append(Pong(o, tile, d))
                if count == 3 and walled:
                    out.append(Kong(o, tile, _EXPOSED, d))
            for state in self._states:
                state.claim_candidates(self, out)
            if walled:
                out.extend(self._draw_candidates(self._next[d], back=False))
            else:
                out.append(ExhaustiveDraw())
            return out
        if ph is _KONG_DRAW:
            kong = self._pending_kong
            assert kong is not None
            k_seat, k_tile, k_kind = kong.seat, kong.tile, kong.kind
            if k_kind is _ADDED and self._rules.robbing_kong:
                out.extend(Win(o, k_tile, k_seat) for o in seats_after
                           if k_tile in self._seat_waits(o))
            out.extend(self._draw_candidates(k_seat, back=True))
            return out
        won = self._won_tile
        assert won is not None  # WON
        c_from, c_tile = won.from_seat, won.tile
        if c_from >= 0 and self._rules.multiple_winners:
            out.extend(Win(o, c_tile, c_from) for o in
                       ((c_from + k) % n for k in range(1, n))
                       if (stay or not self._won[o]) and c_tile in self._seat_waits(o))
        if more is not None:
            more(self, out)  # the family's events after a win
        if ph is _PLAY_ON:
            if walled:
                out.extend(self._draw_candidates(self._resume_seat(), back=False))
            else:
                out.append(ExhaustiveDraw())
        return out

    def _draw_candidates(self, seat: int, *, back: bool) -> list[Event]:
        if self._back <= self._front:
            return []
        if self._wall is not None:
            return [Draw(seat, self._wall[self._back - 1] if back else self._wall[self._front])]
        return [Draw(seat, t) for t in EVERY_TILE[:len(self._copies)]
                if self._taken[t] < self._copies[t]]



# ---------------------------------------------------------------------- the deal
def _copies_in_play(record: HandRecord, rules: TableRulesBase) -> list[int]:
    """The copies of each tile kind in play: the family's tiles less the hand's set-aside
    ones. Raises ``bad_deal`` for set-aside tiles the ruleset does not take, or a wrong
    number of them; ``tile_overflow`` for more copies of a tile than there are."""
    copies = list(rules.copies)
    aside = record.set_aside
    if aside is None:
        return copies
    want = rules.set_aside
    name = rules.name

    def fail(code: ViolationCode, message: str) -> IllegalMoveError:
        return IllegalMoveError(Violation(code, record.hand_no, None, None, message))

    if not want:
        raise fail(_C.BAD_DEAL, Message("the hand sets aside {t:tiles} but ruleset "
                                        "{r:ruleset} sets no tile aside (set_aside = 0)",
                                        format_tiles(aside), repr(name)))
    if len(aside) != want:
        raise fail(_C.BAD_DEAL, Message("the hand sets aside {n} tiles ({t:tiles}); ruleset "
                                        "{r:ruleset} sets aside {m:n}", len(aside),
                                        format_tiles(aside), repr(name), want))
    for tile in _as_ints(aside):
        if tile >= NUM_SUITED:
            raise fail(_C.BAD_DEAL, Message("the set-aside tiles {t:tiles} hold a wildcard; "
                                            "only ordinary tiles are set aside",
                                            format_tiles(aside)))
        copies[tile] -= 1
        if copies[tile] < 0:
            raise fail(_C.TILE_OVERFLOW, Message("the set-aside tiles {t:tiles} hold more "
                                                 "than 4 copies of {tile}",
                                                 format_tiles(aside), TILE_TEXT[tile]))
    return copies


def _not_in_set(record: HandRecord, rules: TableRulesBase, seat: int | None, tile: int,
                where: str) -> IllegalMoveError:
    if 0 <= tile < len(TILE_TEXT):
        message = Message("{w:dealpart} holds {tile}, which is not one of the {n} tiles ruleset "
                          "{r:ruleset} plays with", where, TILE_TEXT[tile], int(rules.tile_set),
                          repr(rules.name))
    else:
        message = Message("{w:dealpart} holds {t:n}, which is not one of the {n} tiles ruleset "
                          "{r:ruleset} plays with", where, tile, int(rules.tile_set),
                          repr(rules.name))
    return IllegalMoveError(Violation(_C.BAD_DEAL, record.hand_no, None, seat, message))


def _check_deal(
    record: HandRecord, rules: TableRulesBase, copies: list[int]
) -> tuple[list[list[int]], list[int]]:
    """The dealt count vectors and the tiles out of the wall; raises for a bad deal. A seat
    dealt a count off by at most :attr:`TableRulesBase.deal_slack` tiles plays on (the family's
    :attr:`TableRulesBase.deal_findings` reports it: 相公)."""
    n = record.n_players
    hand_no = record.hand_no

    def fail(code: ViolationCode, seat: int | None, message: str) -> IllegalMoveError:
        return IllegalMoveError(Violation(code, hand_no, None, seat, message))

    if n != rules.players:
        raise fail(_C.BAD_DEAL, None, Message("the hand has {n} players but ruleset "
                                              "{r:ruleset} plays with {m:n}", n,
                                              repr(rules.name), rules.players))
    if len(record.deal) != n:
        raise fail(_C.BAD_DEAL, None, Message("the deal has {n} hands for {m:n} players",
                                              len(record.deal), n))
    if not 0 <= record.dealer < n:
        raise fail(_C.BAD_DEAL, None, Message("dealer seat {seat} is not at a {n}-player table",
                                              record.dealer, n))
    hands = []
    kinds = len(copies)
    seen = [0] * kinds
    slack = rules.deal_slack
    for seat, tiles in enumerate(record.deal):
        want = 14 if seat == record.dealer else 13
        if len(tiles) != want and not 0 < abs(len(tiles) - want) <= slack:
            role = Message("the dealer" if seat == record.dealer else "a non-dealer")
            raise fail(_C.BAD_DEAL, seat,
                       Message("seat {seat} ({role:role}) is dealt {n} tiles, {m:n} expected: "
                               "{t:tiles}", seat, role, len(tiles), want, format_tiles(tiles)))
        counts = [0] * kinds
        try:
            for tile in _as_ints(tiles):
                counts[tile] += 1
                seen[tile] += 1
        except IndexError:
            bad = next(t for t in tiles if not 0 <= t < kinds)
            raise _not_in_set(record, rules, seat, bad,
                              Message("seat {seat}'s deal", seat)) from None
        hands.append(counts)
    if (max(seen[:NUM_SUITED]) > 4 or seen[_WILD] > copies[_WILD]
            or ((record.set_aside is not None or kinds > NUM_KINDS)
                and any(map(int.__gt__, seen, copies)))):
        running = [0] * kinds
        for seat, tiles in enumerate(record.deal):  # blame the seat where it overflows
            for tile in tiles:
                running[tile] += 1
                if running[tile] > copies[tile]:
                    raise fail(_C.TILE_OVERFLOW, seat,
                               # the text by the table: compiled, ``{tile}`` here gave
                               # the tile's number, not its notation
                               Message("the deal holds {n} copies of {tile} (at most {m:n}); seat "
                                       "{seat} is dealt {t:tiles}", running[tile], TILE_TEXT[tile],
                                       copies[tile], seat, format_tiles(tiles)))
    taken = seen[:]
    if record.wall is not None:
        try:
            for tile in _as_ints(record.wall):
                seen[tile] += 1
        except IndexError:
            bad = next(t for t in record.wall if not 0 <= t < kinds)
            raise _not_in_set(record, rules, None, bad, Message("the wall")) from None
        if seen != copies:
            for t in range(kinds):
                if seen[t] > copies[t]:
                    raise fail(_C.TILE_OVERFLOW, None,
                               Message("deal and wall hold {n} copies of {tile} (at most {m:n})",
                                       seen[t], TILE_TEXT[t], copies[t]))
        total = sum(copies)
        if sum(seen) != total:
            missing = [t for t in range(kinds) for _ in range(copies[t] - seen[t])]
            if record.set_aside is None:
                wrong = Message("deal and wall hold {n} tiles, {m:n} expected (missing "
                                "{t:tiles})", sum(seen), total, format_tiles(missing))
            else:
                wrong = Message("deal and wall hold {n} tiles, {m:n} expected beside the "
                                "set-aside {a:tiles} (missing {t:tiles})", sum(seen), total,
                                format_tiles(record.set_aside), format_tiles(missing))
            raise fail(_C.BAD_DEAL, None, wrong)
    return hands, taken

# ---------------------------------------------------------------------- text
_SUIT_NAMES = ("characters (m)", "dots (p)", "bamboo (s)")


def suit_name(suit: int) -> str:
    """A suit's name in messages (0 m, 1 p, 2 s)."""
    return _SUIT_NAMES[suit]


_FIRST_FLOWER: Final = int(FLOWER_TILES[0])


def holds_flower(hand: list[int]) -> bool:
    """Whether a (wide) count vector holds a flower."""
    return len(hand) > _FIRST_FLOWER and any(hand[_FIRST_FLOWER:NUM_TILE_KINDS])


def _seat_of(ev: Any) -> int:
    """The seat of an event that has one (its kind is ``seated``)."""
    seat: int = ev.seat
    return seat


def _has_seat(ev: object) -> bool:
    return hasattr(ev, "seat")



# ---------------------------------------------------------------------- the plain case
def _plain_draw(t: Table, ev: Draw) -> bool:
    """The draw due: the seat after the discarder (from the wall's front) or the kong's
    owner (its replacement, from the back), a tile being left, of the wall's tile there
    (without a wall: of a tile not all of whose copies are out). Every legal draw is one."""
    ph = t._phase
    if ph is _CLAIM:
        if ev.seat != t._next[t._disc.seat]:
            return False
        at = t._front
    elif ph is _KONG_DRAW:
        if ev.seat != t._turn:
            return False
        at = t._back - 1
    elif ph is _SEABED:  # the taker of the last tile draws it (rules/core/wall.py)
        if ev.seat != t._turn:
            return False
        at = t._front
    elif ph is _PLAY_ON:
        if ev.seat != t._resume_seat():
            return False
        at = t._front
    else:
        return False
    if t._front >= t._back:
        return False
    tile: int = ev.tile  # a native int: list indexing and comparison without the enum
    wall = t._wall
    if wall is not None:
        due: int = wall[at]
        return due == tile
    return t._taken[tile] < t._copies[tile]


def _apply_draw(t: Table, ev: Draw) -> None:
    seat = ev.seat
    tile: int = ev.tile  # a native int (see _plain_draw)
    t._hands[seat][tile] += 1
    if t._wall is None:
        t._taken[tile] += 1
    if t._phase is _KONG_DRAW:  # the replacement draw, from the back
        kong = t._pending_kong
        assert kong is not None
        t._back -= 1
        kong.replacement = ev.tile
        t._pending_kong = None
        t._replaced = True
    else:
        t._front += 1
        t._kong_turn = False
        t._replaced = False
    t._last_draw = tile
    t._turn = seat
    t._phase = _DISCARD


def _plain_discard(t: Table, ev: Discard) -> bool:
    """The player to act discards a tile it holds (not the wildcard), neither declared
    ready nor declaring (a frozen hand and the discard after 报听 are looked at closer)."""
    seat = ev.seat
    tile: int = ev.tile  # a native int (see _plain_draw)
    ph = t._phase
    declared = t._declared
    return (t._turn == seat and (ph is _DISCARD or ph is _AFTER_CLAIM) and tile != _WILD
            and t._hands[seat][tile] > 0 and not declared.frozen[seat]
            and declared.pending != seat and t._plain_turn
            and not (t._flowers and holds_flower(t._hands[seat])))


def _note_passed_kongs(t: Table, seat: int, hand: list[int], chances: list[int]) -> None:
    """Kongs the player could declare now but does not: declared later, they are delayed
    (憨包豆). Candidates are the tile just drawn and ``chances`` (fours dealt, a pong's
    fourth tile already held), each looked at once, at the player's next full turn."""
    last = t._last_draw
    if last >= 0:
        chances.append(last)
    pongs = t._pong_tiles[seat]
    passed = t._passed_kongs[seat]
    for c in chances:
        if hand[c] == 4 or (hand[c] and c in pongs):
            passed.add(c)
    chances.clear()


def _apply_discard(t: Table, ev: Discard) -> None:
    seat, tile = ev.seat, ev.tile
    k: int = tile  # a native int to index with (see _plain_draw); the facts keep the Tile
    hand = t._hands[seat]
    if t._phase is _DISCARD and t._front < t._back:
        chances = t._kong_chances[seat]
        last = t._last_draw
        if chances or (last >= 0 and (hand[last] == 4 or last in t._pong_tiles[seat])):
            _note_passed_kongs(t, seat, hand, chances)
    hand[k] -= 1
    idx = t._index
    entry = tuple.__new__(DiscardFact, (tile, idx, seat, None, None, t._kong_turn))
    t._rivers[seat].append(entry)
    t._disc = entry
    t._phase = _CLAIM
    t._waits[seat] = None
    if t._declared.pending == seat:
        t._declared.freeze_pending()
    if t._tracked[k] and tile not in t._tracked_discards:
        t._tracked_discards[tile] = _TrackedDiscard(tile, seat, idx)


def _claim_discard(t: Table, seat: int, claim: ClaimKind) -> None:
    """The last discard is taken by ``seat`` (the first claim only: the first winner of a
    multiple win)."""
    entry = t._disc
    if entry.claimed_by is None:
        t._disc = t._rivers[entry.seat][-1] = _discard_fact(
            (entry.tile, entry.event_index, entry.seat, seat, claim, entry.hot))
        first = t._tracked_discards.get(entry.tile)
        if first is not None and first.event_index == entry.event_index:
            first.claimed_by = seat
            first.claim = claim


def _plain_pong(t: Table, ev: Pong) -> bool:
    """A pong of the last discard, by another seat holding two of it, not declared ready.
    Every legal pong is one."""
    seat = ev.seat
    disc = t._disc
    tile: int = ev.tile  # a native int (see _plain_draw)
    discarded: int = disc.tile
    return (t._phase is _CLAIM and tile == discarded and ev.from_seat == disc.seat
            and seat != disc.seat and 0 <= seat < t._n and t._hands[seat][tile] >= 2
            and not t._declared.frozen[seat] and t._plain_turn)


def _apply_pong(t: Table, ev: Pong) -> None:
    seat, tile = ev.seat, ev.tile
    k: int = tile  # a native int to index with (see _plain_draw)
    hand = t._hands[seat]
    hand[k] -= 2
    t._melds[seat].append(_meld(_PONG, tile, ev.from_seat, False))
    t._pong_tiles[seat].append(tile)
    if hand[k]:
        if t._rules.pong_then_kong_delayed:
            # 不可先碰后杠: it could have konged this discard and ponged it instead.
            t._passed_kongs[seat].add(tile)
        else:
            t._kong_chances[seat].append(tile)
    _claim_discard(t, seat, _CLAIM_PONG)
    t._turn = seat
    t._phase = _AFTER_CLAIM
    t._claimed_any = True
    t._last_draw = -1
    t._kong_turn = False
    t._waits[seat] = None

# ---------------------------------------------------------------------- the rules
def _not_plain(t: Table, ev: Event) -> bool:
    """The kinds without a plain case: always the full check."""
    return False


class Kind(NamedTuple):
    """One event kind's rule: ``plain`` says an event is the plain case (legal as it
    stands, and the check agrees), ``check`` gives the violation it would be (``None``:
    legal), ``apply`` applies a legal one. ``seated``: the event names a seat (checked to
    be at the table before ``check`` runs); ``after_win`` / ``after_end``: the event may
    come after a win / after the hand ended (any other is ``event_after_end`` there)."""

    plain: Callable[[Table, Any], bool]
    check: Callable[[Table, Any], Violation | None]
    apply: Callable[[Table, Any], None]
    seated: bool = True
    after_win: bool = False
    after_end: bool = False


WinCheck = Callable[[Table, WinPlan], Violation | None]
"""A family's further rules of a win on another player's tile (called once the core found
the hand complete): the violation, or None."""


class ExtraShapes(Protocol):
    """A family's complete hands beyond the core's (the standard shape and seven pairs),
    which need no sets: 将将胡 (every tile a 2, 5 or 8). ``counts`` are a seat's
    concealed tiles, ``melds`` its melds."""

    def complete(self, counts: Sequence[int], melds: Sequence[Meld]) -> bool:
        """The concealed tiles (the winning one with them) and the melds make such a hand."""
        ...

    def waits(self, counts: Sequence[int], melds: Sequence[Meld]) -> tuple[Tile, ...]:
        """The tiles that would make such a hand of a waiting-size one, in tile order."""
        ...


WinFilter = Callable[[Sequence[int], Sequence[Meld]], bool]
"""A family's test of a complete hand (the concealed counts with the winning tile, and the
melds): whether the family lets it win at all (e.g. a 小胡 needs a 2-5-8 pair unless a
big shape takes any pair). A wait that only makes a hand it refuses is no wait."""


WinNames = Callable[[Table, WinPlan, bool, bool, bool, bool],
                    tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]]
"""A family's names of a legal win: ``(table, plan, heavenly, earthly, kong_bloom,
declared)`` -> (passes, shape patterns, situational patterns), each in the family's order."""


class TableRulesBase:
    """What the table of one ruleset plays, as its family gives it once per ruleset
    (:attr:`zhuoji.rules.families.Family.table_rules`; :func:`table_rules_of`): the fields
    the table reads. A family makes the :class:`zhuoji.rules.core.assemble.TableRules`,
    whose :meth:`_assemble` adds what the core and the mechanics the family switches on play.

    The settings are the core's own names for what the core's rules read (the family maps
    its settings to them); the kinds are the core's plus the family's plus those of the
    mechanics the family switches on; the hooks (each optional) are where a family's own
    rules join the core's. A table holds it in a slot: no hook is looked up per event.
    """

    def __init__(
        self,
        family: str,
        name: str,
        *,
        players: int = 4,
        wildcards: int = 0,
        set_aside: int = 0,
        multiple_winners: bool = False,
        robbing_kong: bool = False,
        pong_then_kong_delayed: bool = False,
        kong_when_frozen: bool = True,
        no_frozen_kong: str = "",
        win_needs_missing_suit: bool = False,
        deal_slack: int = 0,
        tracked: Iterable[Tile] = (),
        mechanics: Mechanics = NO_MECHANICS,
        kinds: Mapping[type, Kind] | None = None,
        deal_findings: Callable[[HandRecord], list[Violation]] | None = None,
        check_win: WinCheck | None = None,
        check_self_draw: bool = False,
        win_patterns: WinNames | None = None,
        closing_due: Callable[[Table], bool] | None = None,
        closing_missing: Callable[[Table], Violation] | None = None,
        candidates: Callable[[Table, list[Event]], None] | None = None,
        extra_shapes: ExtraShapes | None = None,
        win_filter: WinFilter | None = None,
        family_state: Callable[[], object] | None = None,
    ) -> None:
        self.family = family
        """The family's name (messages)."""
        self.name = name
        """The ruleset's name (messages)."""
        self.players = players
        self.wildcards = wildcards
        """Copies of the wildcard ``W`` in play."""
        self.set_aside = set_aside
        """Tiles a hand sets aside (0: none may be)."""
        self.multiple_winners = multiple_winners
        """Several players may win on one tile (一炮多响)."""
        self.robbing_kong = robbing_kong
        """An added kong may be robbed (抢杠)."""
        self.pong_then_kong_delayed = pong_then_kong_delayed
        """A pong of a discard the player could have konged makes its later kong delayed."""
        self.kong_when_frozen = kong_when_frozen
        """A frozen (declared-ready) hand may make a kong that keeps its waits."""
        self.no_frozen_kong = no_frozen_kong or f"ruleset {name!r} allows no kong after 报听"
        """What a ``frozen_hand`` message says when ``kong_when_frozen`` is off."""
        self.win_needs_missing_suit = win_needs_missing_suit
        """A hand holding all three suits is neither ready nor a win (缺一门)."""
        self.deal_slack = deal_slack
        """Tiles a seat's dealt count may be off by and play on (0: a ``bad_deal``)."""
        wanted = frozenset(tracked)
        self.tracked: tuple[bool, ...] = tuple(t in wanted for t in range(NUM_TILE_KINDS))
        """Per tile kind: whether its first discard is kept (``chicken_discards``)."""
        self.tile_set = TileSet.SUITED
        """The tiles the family plays with (set by :func:`table_rules_of` from the family)."""
        self.copies: tuple[int, ...] = _full_set(TileSet.SUITED, wildcards)
        """The copies of each tile kind in a full set (a wide vector with honours)."""
        self.mechanics = mechanics
        self.kinds: dict[type, Kind] = dict(kinds) if kinds else {}
        """Every event kind the table plays (another is ``event_not_in_family``): the
        core's, the mechanics' the family switches on, and the family's (``kinds``), as
        :meth:`_assemble` puts them together."""
        self.mechanic_list: tuple[Mechanic, ...] = ()
        """The optional mechanics the family switches on (each table makes their states)."""
        self.plain_cases = True
        """The plain case of a draw, a discard and a pong is taken at once (off where a
        mechanic wraps the core's kinds)."""
        self.plain_turn = True
        """A discard and a pong may be the plain case (off where a mechanic's hooks add to
        their checks)."""
        self.deal_findings = deal_findings
        """The non-fatal findings of a deal the core accepted."""
        self.check_win = check_win
        self.check_self_draw = check_self_draw
        """``check_win`` also runs on a self-drawn win (e.g. a 2-5-8 pair on every win)."""
        self.win_patterns = win_patterns
        self.closing_due = closing_due
        """An event the family plays after a win is still due (the hand is not over)."""
        self.closing_missing = closing_missing
        """The violation of a log that ends while ``closing_due``."""
        self.extra_shapes = extra_shapes
        """The family's complete hands beyond the core's shapes (their waits count as
        waits: ready, a win on a discard or a kong's tile, a self-drawn win)."""
        self.win_filter = win_filter
        """Which complete hands the family lets win: the waits (and so ready, the dice of
        a kong, the wins :meth:`Table.legal_actions` offers) are the tiles that make one.
        A win on a hand it refuses is still checked by ``check_win``, which names why."""
        self.candidates = candidates
        """Adds the family's events to :meth:`Table.legal_actions`' candidates (in the turn,
        after the kongs; after a win, after the further wins)."""
        self.family_state = family_state
        """Makes the family's own state of a hand, which the table holds in one slot
        (:attr:`Table.family_state`) for the family's rules to read and change."""
        self._assemble()

    def _assemble(self) -> None:
        """Put together what the table plays beside the family's own (once, when made)."""


def _table_rules(ruleset: RulesetBase) -> TableRulesBase:
    family = family_of(ruleset)
    make = family.table_rules
    if make is None:
        raise RulesetError(Message("family {f:any} gives no table rules: its rulesets cannot "
                                   "be replayed", repr(ruleset.family)))
    rules: TableRulesBase = make(ruleset)
    tile_set = family.tile_set
    rules.tile_set = tile_set
    rules.copies = _full_set(tile_set, rules.wildcards)
    if family.refuses_chow and Chow not in rules.kinds:
        rules.kinds[Chow] = _REFUSED_CHOW
    return rules


def _check_refused_chow(t: Table, ev: Chow) -> Violation | None:
    """A chow in a family whose rule is no chow (:attr:`zhuoji.rules.families.Family.
    refuses_chow`): ``chow_not_allowed``."""
    return t._v(_C.CHOW_NOT_ALLOWED, ev.seat, _after(ev, ": chow (吃) is never allowed"))


def _apply_refused_chow(t: Table, ev: Chow) -> None:
    raise AssertionError(f"{describe_event(ev)} is never legal")  # its check rejects it


_REFUSED_CHOW = Kind(_not_plain, _check_refused_chow, _apply_refused_chow)
"""The ``chow`` kind of a family that refuses every chow."""


def _full_set(tile_set: TileSet, wildcards: int) -> tuple[int, ...]:
    """The copies of each tile kind of a tile set: the suits and the wildcards; with the
    honours, a wide vector (the honours, and the flowers' places)."""
    copies = [4] * NUM_SUITED + [wildcards]
    if tile_set is not TileSet.SUITED:
        copies += [4] * NUM_HONOURS + [int(tile_set is TileSet.FLOWERS)] * NUM_FLOWERS
    return tuple(copies)


def table_rules_of(ruleset: RulesetBase) -> TableRulesBase:
    """The :class:`TableRulesBase` of a ruleset (computed once per ruleset, by its family)."""
    return ruleset.derived(_table_rules)
