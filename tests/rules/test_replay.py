"""The replay driver, and the exactness of ``Table.legal_actions()`` on random playouts.

The playouts (tests/support/builders.py) choose only among the legal actions, so every hand
they make must replay without a violation; at sampled states every possible event is
checked: those the table lists apply cleanly, the others are rejected.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from tests.support.builders import (
    Players,
    format_event,
    make_hand,
    random_hands,
    random_playout,
    test_ruleset,
)
from zhuoji.rules.events import (
    Chow,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Flip,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Ready,
    Win,
)
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.replay import HandReplay, replay_game, replay_hand
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import ALL_TILES, Tile

DEAL = {0: "258m125999p13467s", 1: "111333555777m2p", 2: "234789m23p456s99s"}


def generate_all_events(n: int) -> Iterator[Event]:
    """Every event a log could hold at an n-player table (and a few with a bad seat)."""
    for seat in range(n + 1):
        for tile in ALL_TILES:
            yield Draw(seat, tile)
            yield Discard(seat, tile)
            for src in range(n):
                yield Pong(seat, tile, src)
                yield Kong(seat, tile, KongKind.EXPOSED, src)
            yield Kong(seat, tile, KongKind.ADDED)
            yield Kong(seat, tile, KongKind.CONCEALED)
            yield Win(seat, tile)
            for src in range(n):
                yield Win(seat, tile, src)
        yield Ready(seat)
        yield Chow(seat, (Tile.M1, Tile.M2, Tile.M3), (seat + n - 1) % n)
    for tile in ALL_TILES:
        yield Flip(tile)
    yield ExhaustiveDraw()


class _Probe:
    """Observes a playout; every sixth state, compares the legal actions with the checks
    of every possible event, and applies each legal action to a fresh table."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.universe = list(generate_all_events(ruleset.players))
        self.applied: list[Event] = []
        self.record: HandRecord | None = None
        self.checked = Counter[str]()

    def __call__(self, table: Table, event: Event | None) -> None:
        n = table.n_players
        if event is None:
            self.applied = []
            self.record = HandRecord(
                hand_no=1, n_players=n, dealer=table.dealer, dealer_streak=0,
                deal=tuple(table.concealed(s) for s in range(n)), events=(), wall=table.wall)
        else:
            self.applied.append(event)
        if len(self.applied) % 6:
            return
        legal = table.legal_actions()
        assert legal == table.legal_actions()  # a fixed order
        assert len(set(legal)) == len(legal)
        passing = [e for e in self.universe if table.check(e) is None]
        assert set(passing) == set(legal), [format_event(e) for e in set(passing) ^ set(legal)]
        assert self.record is not None
        for action in legal:
            fresh = Table.from_record(self.record, self.ruleset)
            assert fresh.run(self.applied) is None
            assert fresh.step(action) is None, format_event(action)
            assert fresh.event_index == len(self.applied) + 1
            self.checked[type(action).__name__] += 1


@pytest.mark.parametrize("players, known_wall, settings", [
    (Players(), True, {}),
    (Players(win=0.7, kong=1.0, pong=0.8), True, {"wildcards": 2}),
    (Players(), False, {"players": 3}),
    (Players(win=0.8), True, {"multiple_winners": False, "robbing_kong": False}),
])
def test_legal_actions_are_exactly_the_events_that_pass(
    players: Players, known_wall: bool, settings: dict[str, object]
) -> None:
    ruleset = test_ruleset(**settings)
    rng = random.Random(f"legal {settings} {known_wall}")
    probe = _Probe(ruleset)
    for hand in range(4):
        record = random_playout(rng, ruleset, dealer=hand % ruleset.players, players=players,
                                known_wall=known_wall, observe=probe)
        result = replay_hand(record, ruleset)
        assert result.outcome is not Outcome.INCOMPLETE
        assert result.violations == ()
    assert probe.checked["Discard"] and probe.checked["Draw"]


def test_random_hands_replay_without_violations_and_cover_the_mechanics() -> None:
    ruleset = test_ruleset()
    hands = random_hands(2024, 120, ruleset, Players(kong=0.6, pong=0.7, ready=1.0))
    results = replay_game(hands, ruleset)
    seen = Counter[str]()
    for record, result in zip(hands, results, strict=True):
        assert result.violations == (), result.violations
        assert result.events_applied == len(record.events)
        seen[result.outcome.value] += 1
        for event in record.events:
            seen[type(event).__name__ if not isinstance(event, Kong) else event.kind.value] += 1
        for win in result.winners:
            seen["self-drawn" if win.self_drawn else "on a discard"] += 1
            seen.update(p.value for p in win.situational)
            seen.update(f"pass {p.value}" for p in win.passes)
        seen["delayed"] += sum(k.delayed for s in result.seats for k in s.kongs)
    for what in ("win", "exhaustive_draw", "Pong", "exposed", "added", "concealed", "Ready",
                 "Flip", "self-drawn", "on a discard", "kong_bloom", "hot_discard",
                 "pass kong", "pass big_hand", "delayed"):
        assert seen[what] > 0, (what, seen)


def test_replay_is_deterministic() -> None:
    ruleset = test_ruleset()
    hands = random_hands(7, 20, ruleset)
    assert replay_game(hands, ruleset) == replay_game(hands, ruleset)
    again = random_hands(7, 20, ruleset)
    assert again == hands


def test_replay_keeps_the_table_on_request() -> None:
    record = make_hand(DEAL, "0-2p", dealer=0)
    result = replay_hand(record, test_ruleset(), keep_table=True)
    assert isinstance(result, HandReplay) and result.table is not None
    assert result.table.event_index == 1
    assert replay_hand(record, test_ruleset()).table is None
    assert replay_hand(record, test_ruleset()) == result  # the table is not compared


def test_hand_replay_facts_of_a_stopped_hand() -> None:
    record = make_hand(DEAL, "0-2p 1+4p", front="4p")
    result = replay_hand(record, test_ruleset())
    assert result.outcome is Outcome.INCOMPLETE and result.events_applied == 2
    assert result.fatal is not None and result.fatal.event_index is None
    assert result.seats[1].waits == ()  # seat 1 stopped holding 14 tiles
    assert result.seats[0].river[0][:3] == (Tile.P2, 0, 0)
    assert result.seats[0].discards[0].tile is Tile.P2
