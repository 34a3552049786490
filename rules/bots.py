"""What the simulator's bots of every family share: the game's generator, the deal as at a
table, the shapes of a simulated hand and game, and the registry's way to a family's bots.

A family's bots live in its own folder (``rules/families/<name>/simulate.py``) and the
family names that module in its registration (``Family.extras["simulate"]``, a module
path); :func:`bots_of` imports it on demand, so registering a family costs no bot import.
The module offers ``simulate_game``, ``play_record`` and ``Deviation`` with the signatures
of :mod:`rules.families.guizhou.simulate`'s (``docs/simulator.md``).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from rules.events import HandRecord, RecordedResult
from rules.families import family_of
from rules.replay import HandReplay
from rules.settings import RulesetBase
from rules.tiles import Tile

__all__ = [
    "BOTS_EXTRA",
    "PlayedHand",
    "SimulatedGame",
    "SimulatedHand",
    "SimulationError",
    "bots_of",
    "deal_at_table",
    "game_rng",
    "has_bots",
    "with_result",
]

BOTS_EXTRA = "simulate"
"""The key of ``Family.extras`` naming the module of the family's bots."""


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
