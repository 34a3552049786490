"""What the simulator's bots of every family share: the game's generator, the deal as at a
table, the shapes of a simulated hand and game, a bot's view of its own hand
(:class:`HandTracker`), and the registry's way to a family's bots.

A family's bots live in its own folder (``rules/families/<name>/simulate.py``) and the
family names that module in its registration (``Family.extras["simulate"]``, a module
path); :func:`bots_of` imports it on demand, so registering a family costs no bot import.
The module offers ``simulate_game(ruleset, *, seed, game_no, hands, base_stake=1,
verify=False) -> SimulatedGame``, ``play_record(ruleset, dealt, *, deviant=-1,
deviation=None, verify=False) -> PlayedHand`` and ``Deviation`` (a string enum: the rules
one player may break on purpose). The game loop around a family's deal and play (one hand
dealt, played, settled and recorded; the hands of a game, each dealt by the dealer the one
before names) is the same for every family: :func:`simulate_hand_of`,
:func:`simulate_game_of`, :func:`generate_games_of`.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from zhuoji.rules.events import (
    Chow,
    Discard,
    Draw,
    Event,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    RecordedItem,
    RecordedResult,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.hand import is_complete
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.shanten import shanten_of_keys
from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED, Tile
from zhuoji.rules.view import TableView

__all__ = [
    "BOTS_EXTRA",
    "HandTracker",
    "PlayedHand",
    "SimulatedGame",
    "SimulatedHand",
    "SimulationError",
    "bots_of",
    "deal_at_table",
    "game_rng",
    "generate_games_of",
    "has_bots",
    "recorded_result",
    "settle_played",
    "simulate_game_of",
    "simulate_hand_of",
    "with_result",
]

BOTS_EXTRA = "simulate"
"""The key of ``Family.extras`` naming the module of the family's bots."""

_POW5 = tuple(5**r for r in range(9))


class SimulationError(ValueError):
    """The simulator could not play a hand: no legal event, or an unclean replay."""


@dataclass(frozen=True, slots=True)
class SimulatedHand:
    """One simulated hand: the record (result filled), the dice, and what the engine found.

    ``replay`` and ``settlement`` (the family's) are the engine's own view of the record,
    kept for statistics; they are not part of the log.
    """

    record: HandRecord
    dice: tuple[int, int]
    replay: HandReplay
    settlement: Any


@dataclass(frozen=True, slots=True)
class SimulatedGame:
    """One simulated game: consecutive hands at one table."""

    seed: int
    game_no: int
    ruleset: str
    hands: tuple[SimulatedHand, ...]

    @property
    def records(self) -> tuple[HandRecord, ...]:
        return tuple(h.record for h in self.hands)


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A dealt hand played out: the record (no result yet) and what the table found."""

    record: HandRecord
    replay: HandReplay


class HandTracker:
    """A bot's own hand, followed as the events of its seat are played: the count of each
    tile kind (``counts``, the wildcard's at ``Tile.W``), each suit's key (``keys``, its
    counts in base 5, as :mod:`zhuoji.rules.shanten` reads them), the number of melds and the
    tiles of its pongs, in the order made. Each family's bots hold one per player and
    keep their own policy beside it; the tests check it against the table's view."""

    __slots__ = ("counts", "keys", "melds", "pongs", "seat")

    def __init__(self, seat: int, deal: Sequence[Tile]) -> None:
        self.seat = seat
        self.counts = [0] * NUM_KINDS
        self.keys = [0, 0, 0]
        self.melds = 0
        self.pongs: list[Tile] = []
        for t in deal:
            self.add(t, 1)

    def add(self, tile: int, n: int) -> None:
        """``n`` more (or, negative, fewer) of ``tile`` in the concealed hand."""
        self.counts[tile] += n
        if tile < NUM_SUITED:
            self.keys[tile // 9] += n * _POW5[tile % 9]

    def played(self, event: Event, claimed: int = -1) -> None:
        """Update the hand for an event of this seat (``claimed``: the discard a chow
        takes; other events change nothing)."""
        if isinstance(event, Draw):
            self.add(event.tile, 1)
        elif isinstance(event, Discard):
            self.add(event.tile, -1)
        elif isinstance(event, Pong):
            self.add(event.tile, -2)
            self.melds += 1
            self.pongs.append(event.tile)
        elif isinstance(event, Chow):
            taken = [int(t) for t in event.tiles]
            taken.remove(claimed)
            for t in taken:
                self.add(t, -1)
            self.melds += 1
        elif isinstance(event, Kong):
            if event.kind is KongKind.EXPOSED:
                self.add(event.tile, -3)
                self.melds += 1
            elif event.kind is KongKind.CONCEALED:
                self.add(event.tile, -4)
                self.melds += 1
            else:
                self.add(event.tile, -1)
                self.pongs.remove(event.tile)

    def shanten(self) -> int:
        """The hand's shanten, all suits counted (a lower bound with wildcards)."""
        k = self.keys
        return shanten_of_keys(k[0], k[1], k[2], self.counts[Tile.W], self.melds)

    def complete_with(self, tile: int | None) -> bool:
        """The hand, with ``tile`` added (None: as it is), is complete in the core's shapes
        (the standard shape or seven pairs)."""
        if tile is None:
            return is_complete(self.counts, self.melds)
        counts = self.counts[:]
        counts[tile] += 1
        return is_complete(counts, self.melds)

    def complete_at(self, table: TableView, tile: int | None) -> bool:
        """The hand, with ``tile`` added (None: as it is), is complete in a shape the table
        plays: the core's, or the family's own (``table.rules.extra_shapes``, such as a hand
        of 2s, 5s and 8s that needs no sets). Whether it wins is the table's ``check``: a bot that
        proposes every such win sees every legal one."""
        if self.complete_with(tile):
            return True
        extra = table.rules.extra_shapes
        if extra is None:
            return False
        counts = self.counts
        if tile is not None:
            counts = counts[:]
            counts[tile] += 1
        return extra.complete(counts, table.melds(self.seat))


def game_rng(seed: int, ruleset: str, game_no: int) -> random.Random:
    """The generator of one game: derived from the run's seed, the preset and the game's
    number, so any game can be played alone (in any process) with the same result."""
    return random.Random(f"zhuoji-simulate/{seed}/{ruleset}/{game_no}")


def deal_at_table(
    tiles: Sequence[Tile], n: int, dealer: int
) -> tuple[list[list[Tile]], list[Tile]]:
    """Deal as at a table: three rounds of four tiles from the dealer on, one more tile
    each, and a last one for the dealer (14). Returns the hands and the live wall."""
    hands: list[list[Tile]] = [[] for _ in range(n)]
    order = [(dealer + k) % n for k in range(n)]
    pos = 0
    for _ in range(3):
        for seat in order:
            hands[seat].extend(tiles[pos : pos + 4])
            pos += 4
    for seat in order:
        hands[seat].append(tiles[pos])
        pos += 1
    hands[dealer].append(tiles[pos])
    pos += 1
    return hands, list(tiles[pos:])


def with_result(record: HandRecord, result: RecordedResult | None) -> HandRecord:
    """``record`` with its recorded result replaced."""
    return replace(record, result=result)


def has_bots(ruleset: RulesetBase) -> bool:
    """Whether the ruleset's family has bots (names its module in its extras)."""
    return isinstance(family_of(ruleset).extras.get(BOTS_EXTRA), str)


def bots_of(ruleset: RulesetBase) -> ModuleType:
    """The module of the bots of the ruleset's family (``Family.extras["simulate"]``);
    raises :class:`SimulationError` for a family without bots."""
    family = family_of(ruleset)
    name = family.extras.get(BOTS_EXTRA)
    if not isinstance(name, str):
        raise SimulationError(f"the {family.name} family has no bots (no "
                              f"extras[{BOTS_EXTRA!r}] in its registration)")
    return importlib.import_module(name)


DealHand = Callable[..., tuple[HandRecord, tuple[int, int]]]
"""A family's deal: ``deal_hand(ruleset, rng, *, hand_no, dealer, dealer_streak,
base_stake) -> (record, dice)``, a record with its deal and wall and no events."""

PlayRecord = Callable[..., PlayedHand]
"""A family's play: ``play_record(ruleset, dealt, *, verify) -> PlayedHand``."""


def recorded_result(settlement: Any) -> RecordedResult:
    """The family's settlement as the log's recorded ``result``: its deltas, and its next
    dealer and itemised ledger where the settlement gives them."""
    items = getattr(settlement, "items", None)
    return RecordedResult(
        deltas=tuple(settlement.deltas),
        next_dealer=getattr(settlement, "next_dealer", None),
        items=None if items is None else tuple(
            RecordedItem(i.payer, i.payee, i.amount, str(i.reason)) for i in items),
    )


def settle_played(ruleset: RulesetBase, played: PlayedHand) -> Any:
    """The family's settlement of a played hand (None when it stopped on a fatal fault)."""
    record = played.record
    return family_of(ruleset).settle(played.replay, ruleset, record.base_stake,
                                     dealer_streak=record.dealer_streak)


def simulate_hand_of(
    deal_hand: DealHand, play_record: PlayRecord, ruleset: RulesetBase, rng: random.Random,
    *, hand_no: int, dealer: int, dealer_streak: int = 0, base_stake: int = 1,
    verify: bool = False,
) -> SimulatedHand:
    """Deal and play one hand with a family's ``deal_hand`` and ``play_record``, and record
    its family's settlement as the hand's result."""
    dealt, dice = deal_hand(ruleset, rng, hand_no=hand_no, dealer=dealer,
                            dealer_streak=dealer_streak, base_stake=base_stake)
    played = play_record(ruleset, dealt, verify=verify)
    if played.replay.violations:
        found = "; ".join(f"{v.code}: {v.message}" for v in played.replay.violations)
        raise SimulationError(f"hand {hand_no}: the simulated hand is not clean: {found}")
    settlement = settle_played(ruleset, played)
    if settlement is None:
        raise SimulationError(f"hand {hand_no}: the simulated hand cannot be settled")
    return SimulatedHand(record=with_result(played.record, recorded_result(settlement)),
                         dice=dice, replay=played.replay, settlement=settlement)


def simulate_game_of(
    deal_hand: DealHand, play_record: PlayRecord, ruleset: RulesetBase, *, seed: int,
    game_no: int, hands: int, base_stake: int = 1, verify: bool = False,
) -> SimulatedGame:
    """Play ``hands`` consecutive hands at one table with a family's ``deal_hand`` and
    ``play_record``. Seat 0 deals first; the settlement of each hand names the next dealer
    (the dealer stays where it names none), and the 连庄 count follows."""
    if hands < 1:
        raise ValueError(f"a game needs at least one hand, not {hands}")
    rng = game_rng(seed, ruleset.name, game_no)
    dealer, streak = 0, 0
    played: list[SimulatedHand] = []
    for hand_no in range(1, hands + 1):
        hand = simulate_hand_of(deal_hand, play_record, ruleset, rng, hand_no=hand_no,
                                dealer=dealer, dealer_streak=streak, base_stake=base_stake,
                                verify=verify)
        played.append(hand)
        nxt = getattr(hand.settlement, "next_dealer", None)
        nxt = dealer if nxt is None else nxt
        streak = streak + 1 if nxt == dealer else 0
        dealer = nxt
    return SimulatedGame(seed=seed, game_no=game_no, ruleset=ruleset.name, hands=tuple(played))


def generate_games_of(
    simulate_game: Callable[..., SimulatedGame], ruleset: RulesetBase, *, seed: int,
    games: int, hands_per_game: int, start: int = 0, base_stake: int = 1,
) -> Iterator[SimulatedGame]:
    """Games ``start`` .. ``start + games - 1`` of a run, in order, by a family's
    ``simulate_game``."""
    for game_no in range(start, start + games):
        yield simulate_game(ruleset, seed=seed, game_no=game_no, hands=hands_per_game,
                            base_stake=base_stake)
