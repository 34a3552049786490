"""A rule family kept in a test folder that plays the 144 tiles (honours and flowers) with
chow and flower replacement draws: the core's claims mechanics through the public API
(``tests/rules/test_wide_family.py``).

Its settings switch on ``mechanics.chow`` and ``mechanics.flowers``; its table rules are
the core's (:class:`zhuoji.rules.table.TableRules`: no family event kinds or hooks of its own).
Its settlement pays the winner ``win_value`` plus ``flower_value`` per flower it showed,
from every other seat. It imports no other family.

:func:`wide_hand` writes a hand compactly: the deal by seat, the wall as ``front`` (the
next draws), the unused tiles, then ``back`` (replacement draws, first one first); the
events as tokens (those of ``tests/support/builders.py`` with honours ``1z``-``7z`` and
flowers ``1f``-``8f``, and ``S*T`` for a flower shown, e.g. ``0*1f``).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Mapping as _Mapping
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import Field

from zhuoji.rules.events import HandRecord
from zhuoji.rules.families import Family, register
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import TableRules
from zhuoji.rules.tiles import Tile, TileSet, parse_tiles


class WideRuleset(RulesetBase):
    flat_prefixes: ClassVar[_Mapping[str, str]] = MappingProxyType({"mechanics": ""})

    family: Literal["wide"] = Field("wide", description="the rule family")
    players: int = Field(4, ge=2, le=4, description="player count")
    multiple_winners: bool = Field(False, description="several may win on one discard")
    robbing_kong: bool = Field(True, description="an added kong can be robbed")
    mechanics: Mechanics = Field(
        default_factory=lambda: Mechanics(chow=True, flowers=True),
        description="the core mechanics: chow and flowers")
    win_value: int = Field(2, ge=1, description="paid to the winner by every other seat")
    flower_value: int = Field(1, ge=0, description="added per flower the winner showed")


def settle(replay: HandReplay, ruleset: WideRuleset) -> tuple[int, ...]:
    """Every other seat pays the first winner ``win_value`` + ``flower_value`` per flower
    the winner showed; no winner, no payment."""
    n = replay.n_players
    if not replay.winners:
        return (0,) * n
    winner = replay.winners[0].seat
    flowers = len(replay.seats[winner].flowers)
    each = ruleset.win_value + ruleset.flower_value * flowers
    return tuple(each * (n - 1) if s == winner else -each for s in range(n))


def audit_result(ours: tuple[int, ...], recorded: tuple[int, ...]) -> list[str]:
    return [] if ours == recorded else [f"score_mismatch: {ours} != {recorded}"]


def table_rules(ruleset: WideRuleset) -> TableRules:
    return TableRules("wide", ruleset.name, players=ruleset.players,
                      multiple_winners=ruleset.multiple_winners,
                      robbing_kong=ruleset.robbing_kong, mechanics=ruleset.mechanics)


FAMILY = register(
    Family(
        name="wide",
        title="a test family: 144 tiles, chow, flowers with replacement draws",
        settings=WideRuleset,
        settle=settle,
        audit_result=audit_result,
        patterns=("win",),
        tile_set=TileSet.FLOWERS,
        event_kinds=frozenset({"chow", "flower"}),
        table_rules=table_rules,
    )
)


def wide_ruleset(**settings: object) -> WideRuleset:
    return WideRuleset.model_validate({"name": "wide-test", **settings})


def wide_hand(deal: Mapping[int, str], events: str = "", *, front: str = "", back: str = "",
              dealer: int = 0, hand_no: int = 1, tile_set: TileSet = TileSet.FLOWERS,
              known_wall: bool = True) -> HandRecord:
    """A four-player hand of ``tile_set``; seats not in ``deal`` get the unused tiles in
    tile order, spread so that they hold nothing useful."""
    pool = list(tile_set.wall())
    hands: dict[int, list[Tile]] = {}
    for seat, text in deal.items():
        hands[seat] = parse_tiles(text)
    front_tiles = parse_tiles(front)
    back_tiles = parse_tiles(back)
    for t in [*[t for h in hands.values() for t in h], *front_tiles, *back_tiles]:
        pool.remove(t)  # raises for more than the full set
    flowers = [t for t in pool if t.is_flower]
    rest = sorted((t for t in pool if not t.is_flower), key=lambda t: ((t * 7) % 34, t))
    rest += flowers  # the flowers last: a filled seat holds none
    for seat in range(4):
        if seat not in hands:
            size = 14 if seat == dealer else 13
            hands[seat], rest = rest[:size], rest[size:]
    wall = [*front_tiles, *rest, *reversed(back_tiles)]
    from tests.support.builders import parse_event  # the suite's event tokens (`0*1f` a flower)

    return HandRecord(
        hand_no=hand_no, n_players=4, dealer=dealer, dealer_streak=0,
        deal=tuple(tuple(hands[s]) for s in range(4)),
        events=tuple(parse_event(tok) for tok in events.split()),
        wall=tuple(wall) if known_wall else None,
    )
