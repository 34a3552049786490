"""Invariants after every event: tile conservation, and the table's incremental state
equal to the same state recomputed from scratch by a small independent model.

Hands: random legal playouts (seeded) under several rulesets, and every Guizhou sample log
in ``data/sample`` (the model knows Guizhou's events).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.builders import Players, random_playout, test_ruleset
from zhuoji.flows.audit.bridge import hand_records
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_games, is_log_path
from zhuoji.rules.events import Discard, Draw, Event, HandRecord, Kong, KongKind, Pong, Win
from zhuoji.rules.facts import ClaimKind
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.hand import waiting_tiles
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.table import IllegalMoveError, Phase, Table
from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED, counts_of
from zhuoji.rules.violations import ViolationCode

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "sample"

_MELD_OF_KONG = {
    KongKind.EXPOSED: MeldKind.EXPOSED_KONG,
    KongKind.ADDED: MeldKind.ADDED_KONG,
    KongKind.CONCEALED: MeldKind.CONCEALED_KONG,
}


@dataclass
class Reference:
    """The hand recomputed from the deal and the events alone (no table code)."""

    record: HandRecord
    copies: list[int]
    hands: list[list[int]] = field(default_factory=list)
    melds: list[list[tuple[MeldKind, int]]] = field(default_factory=list)
    rivers: list[list[list[object]]] = field(default_factory=list)  # [tile, claim]
    drawn_front: int = 0
    drawn_back: int = 0
    robbed: list[int] = field(default_factory=list)
    last: Event | None = None
    last_discarder: int = -1

    def __post_init__(self) -> None:
        n = self.record.n_players
        self.hands = [counts_of(d) for d in self.record.deal]
        self.melds = [[] for _ in range(n)]
        self.rivers = [[] for _ in range(n)]

    @property
    def wall_size(self) -> int:
        if self.record.wall is not None:
            return len(self.record.wall)
        return sum(self.copies) - sum(len(d) for d in self.record.deal)

    def apply(self, ev: Event) -> None:
        if isinstance(ev, Draw):
            self.hands[ev.seat][ev.tile] += 1
            if isinstance(self.last, Kong):
                self.drawn_back += 1
            else:
                self.drawn_front += 1
        elif isinstance(ev, Discard):
            self.hands[ev.seat][ev.tile] -= 1
            self.rivers[ev.seat].append([ev.tile, None])
            self.last_discarder = ev.seat
        elif isinstance(ev, Pong):
            self.hands[ev.seat][ev.tile] -= 2
            self.melds[ev.seat].append((MeldKind.PONG, ev.tile))
            self.rivers[ev.from_seat][-1][1] = ClaimKind.PONG
        elif isinstance(ev, Kong):
            if ev.kind is KongKind.EXPOSED:
                assert ev.from_seat is not None
                self.hands[ev.seat][ev.tile] -= 3
                self.melds[ev.seat].append((MeldKind.EXPOSED_KONG, ev.tile))
                self.rivers[ev.from_seat][-1][1] = ClaimKind.EXPOSED_KONG
            elif ev.kind is KongKind.ADDED:
                self.hands[ev.seat][ev.tile] -= 1
                melds = self.melds[ev.seat]
                melds[melds.index((MeldKind.PONG, ev.tile))] = (MeldKind.ADDED_KONG, ev.tile)
            else:
                self.hands[ev.seat][ev.tile] -= 4
                self.melds[ev.seat].append((MeldKind.CONCEALED_KONG, ev.tile))
        elif isinstance(ev, Win) and ev.from_seat is not None:
            robbing = isinstance(self.last, Kong) or (
                isinstance(self.last, Win) and bool(self.robbed))
            if isinstance(self.last, Kong):
                melds = self.melds[ev.from_seat]
                melds[melds.index((MeldKind.ADDED_KONG, ev.tile))] = (MeldKind.PONG, ev.tile)
                self.robbed.append(ev.tile)
            elif not robbing:
                river = self.rivers[ev.from_seat]
                if river[-1][1] is None:
                    river[-1][1] = ClaimKind.WIN
        self.last = ev

    def tiles_by_kind(self) -> list[int]:
        """Every tile accounted for, by kind: hands, melds, unclaimed or won-on discards,
        robbed kong tiles and the undrawn wall."""
        total = [0] * NUM_KINDS
        for hand in self.hands:
            for t, c in enumerate(hand):
                total[t] += c
        for melds in self.melds:
            for kind, tile in melds:
                total[tile] += 3 if kind is MeldKind.PONG else 4
        for river in self.rivers:
            for discarded, claim in river:
                if claim is None or claim is ClaimKind.WIN:
                    assert isinstance(discarded, int)
                    total[discarded] += 1
        for robbed in self.robbed:
            total[robbed] += 1
        wall = self.record.wall
        if wall is not None:
            for tile in wall[self.drawn_front:len(wall) - self.drawn_back]:
                total[tile] += 1
        return total


def check(table: Table, ref: Reference) -> None:
    n = table.n_players
    copies = ref.copies
    # conservation: hands + melds + discards + wall = the full set (by kind with a wall)
    held = sum(sum(h) for h in ref.hands)
    melded = sum(3 if k is MeldKind.PONG else 4 for ms in ref.melds for k, _ in ms)
    discarded = sum(1 for r in ref.rivers for _, c in r if c is None or c is ClaimKind.WIN)
    assert held + melded + discarded + len(ref.robbed) + table.wall_left == sum(copies)
    if ref.record.wall is not None:
        assert ref.tiles_by_kind() == copies
    # the incremental state equals the recomputed one
    assert table.wall_left == ref.wall_size - ref.drawn_front - ref.drawn_back
    assert table.robbed_tiles == len(ref.robbed)
    for s in range(n):
        assert list(table.counts(s)) == ref.hands[s], s
        assert [(m.kind, m.tile) for m in table.melds(s)] == ref.melds[s], s
        assert [[d.tile, d.claim] for d in table.discards(s)] == ref.rivers[s], s
        assert all(d.seat == s for d in table.discards(s))
        assert max(table.counts(s)[:NUM_SUITED], default=0) <= 4
        # the cached waits equal a fresh computation
        size = sum(table.counts(s)) + 3 * len(table.melds(s))
        if size == 13 and s not in {w.seat for w in table.winners}:
            assert table.waits(s) == waiting_tiles(table.counts(s), len(table.melds(s))), s
    if table.wall is not None:
        assert len(table.wall) == table.wall_left


def _checker(ruleset: Ruleset) -> tuple[list[int], Callable[[Table, Event | None], None]]:
    copies = [4] * NUM_SUITED + [ruleset.wildcards]
    state: dict[str, Reference] = {}
    count = [0]

    def observe(table: Table, event: Event | None) -> None:
        if event is None:
            record = HandRecord(
                hand_no=table.hand_no, n_players=table.n_players, dealer=table.dealer,
                dealer_streak=0,
                deal=tuple(table.concealed(s) for s in range(table.n_players)),
                events=(), wall=table.wall,
            )
            state["ref"] = Reference(record, copies)
        else:
            state["ref"].apply(event)
        check(table, state["ref"])
        count[0] += 1

    return count, observe


CONFIGS = {
    "default": ({}, Players(), True),
    "wildcards": ({"wildcards": 2}, Players(), True),
    "three players": ({"players": 3}, Players(), True),
    "two players, declining wins": ({"players": 2}, Players(win=0.6), True),
    "no wall": ({}, Players(kong=1.0), False),
    "strict table": ({"missing_suit_required": True, "multiple_winners": False,
                      "robbing_kong": False, "flip_chicken": False, "pass_rule": False},
                     Players(), True),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_conservation_and_derived_state_on_playouts(name: str) -> None:
    settings, players, known_wall = CONFIGS[name]
    assert isinstance(settings, dict) and isinstance(players, Players)
    ruleset = test_ruleset(**settings)
    rng = random.Random(f"conservation {name}")
    count, observe = _checker(ruleset)
    for i in range(12):
        random_playout(rng, ruleset, hand_no=i + 1, dealer=i % ruleset.players,
                       players=players, known_wall=known_wall, observe=observe)
    assert count[0] > 12 * 40  # every event of every hand was checked


def _sample_hands() -> list[tuple[str, HandRecord, Ruleset]]:
    out = []
    for path in sorted(p for p in SAMPLES.rglob("*") if is_log_path(p)):
        for game in generate_games(path):
            assert isinstance(game, Game), game
            ruleset = resolve_ruleset(game.ruleset, game.rule_overrides or {})
            if not isinstance(ruleset, Ruleset):
                continue  # the model plays Guizhou's events (data/sample/changsha: no)
            for record in hand_records(game):
                out.append((f"{path.name} {game.game_id} #{record.hand_no}", record, ruleset))
    return out


def test_conservation_after_every_event_of_every_sample_hand() -> None:
    """Every sample hand, the simulated ones with injected faults included: conservation
    holds after every event up to the end of the hand or its first fatal violation (a
    hand whose deal is rejected has no state to conserve)."""
    hands = _sample_hands()
    assert len(hands) >= 3
    whole = 0
    for name, record, ruleset in hands:
        copies = [4] * NUM_SUITED + [ruleset.wildcards]
        for tile in record.set_aside or ():  # 暗麻将: set aside, out of play
            copies[tile] -= 1
        try:
            table = Table.from_record(record, ruleset)
        except IllegalMoveError as exc:
            assert exc.violation.code in (ViolationCode.BAD_DEAL, ViolationCode.TILE_OVERFLOW)
            continue
        ref = Reference(record, copies)
        check(table, ref)
        stopped = False
        for event in record.events:
            if table.step(event) is not None:
                stopped = True
                break
            ref.apply(event)
            check(table, ref)
        if not stopped and table.finish() is None:
            assert table.phase in (Phase.ENDED, Phase.WON), name
            whole += 1
    assert whole >= 0.85 * len(hands)  # most sample hands are clean and checked to the end
