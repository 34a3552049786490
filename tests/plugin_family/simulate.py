"""The 平胡 family's bots, for ``zhuoji simulate`` (``Family.extras["simulate"]``,
:func:`zhuoji.rules.bots.bots_of`): hands played through the table's ``legal_actions()``
only (legal by construction), each bot taking every win, a kong or a pong when offered
(seven times in ten), and discarding a tile that leaves its hand nearest to complete
(fewest tiles from ready, ``zhuoji.rules.shanten``). The same seed plays the same game.
The family has no rule of its own a bot could break on purpose (:class:`Deviation` is
empty): the simulator's family-neutral faults apply to its hands."""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

from zhuoji.rules.bots import (
    PlayedHand,
    SimulatedGame,
    SimulatedHand,
    SimulationError,
    deal_at_table,
    game_rng,
    with_result,
)
from zhuoji.rules.events import (
    Discard,
    Draw,
    Event,
    HandRecord,
    Kong,
    Pong,
    RecordedItem,
    RecordedResult,
    Win,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.shanten import shanten
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED, Tile


class Deviation(StrEnum):
    """The rules a bot breaks on purpose: none of the family's own."""


def _after_discard(table: Table, event: Discard) -> int:
    counts = [0] * NUM_KINDS
    for t in table.concealed(event.seat):
        counts[t] += 1
    counts[event.tile] -= 1
    return shanten(counts, len(table.melds(event.seat)))


def _choose(rng: random.Random, table: Table, actions: list[Event]) -> Event:
    for kind in (Win, Kong, Pong):
        found = [a for a in actions if isinstance(a, kind)]
        if found and (kind is Win or rng.random() < 0.7):
            return found[0]
    discards = [a for a in actions if isinstance(a, Discard)]
    if discards:
        best = min(_after_discard(table, d) for d in discards)
        return rng.choice([d for d in discards if _after_discard(table, d) == best])
    draws = [a for a in actions if isinstance(a, Draw)]
    return (draws or actions)[0]


def _rng_of(dealt: HandRecord) -> random.Random:
    return random.Random(f"pinghu/{dealt.hand_no}/{dealt.dealer}/{dealt.wall}")


def play_record(
    ruleset: RulesetBase, dealt: HandRecord, *, deviant: int = -1,
    deviation: Deviation | None = None, verify: bool = False,
) -> PlayedHand:
    """Play a dealt hand (its deal and wall; its events are ignored) to the end."""
    del deviant, deviation, verify  # every event is one the table lists as legal
    if dealt.wall is None:
        raise SimulationError(f"hand {dealt.hand_no}: the simulator needs the wall")
    table = Table.from_record(dealt, ruleset)
    rng = _rng_of(dealt)
    events: list[Event] = []
    while True:
        actions = table.legal_actions()
        if table.is_over:
            actions = [a for a in actions if isinstance(a, Win)]
        if not actions:
            break
        event = _choose(rng, table, actions)
        table.apply(event)
        events.append(event)
    record = HandRecord(hand_no=dealt.hand_no, n_players=dealt.n_players, dealer=dealt.dealer,
                        dealer_streak=dealt.dealer_streak, deal=dealt.deal,
                        events=tuple(events), wall=dealt.wall, base_stake=dealt.base_stake)
    return PlayedHand(record, replay_hand(record, ruleset))


def recorded_result(settlement: Any) -> RecordedResult:
    """The family's settlement as the log's recorded ``result``."""
    return RecordedResult(
        deltas=tuple(settlement.deltas), next_dealer=settlement.next_dealer,
        items=tuple(RecordedItem(i.payer, i.payee, i.amount, str(i.reason))
                    for i in settlement.items))


def simulate_game(
    ruleset: RulesetBase, *, seed: int, game_no: int, hands: int, base_stake: int = 1,
    verify: bool = False,
) -> SimulatedGame:
    """Play ``hands`` consecutive hands at one table; the first winner deals next."""
    if hands < 1:
        raise ValueError(f"a game needs at least one hand, not {hands}")
    rng = game_rng(seed, ruleset.name, game_no)
    settle = family_of(ruleset).settle
    n = int(getattr(ruleset, "players", 4))
    dealer, streak = 0, 0
    played: list[SimulatedHand] = []
    for hand_no in range(1, hands + 1):
        tiles = [Tile(t) for t in range(NUM_SUITED) for _ in range(4)]
        rng.shuffle(tiles)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        deal, wall = deal_at_table(tiles, n, dealer)
        dealt = HandRecord(hand_no=hand_no, n_players=n, dealer=dealer, dealer_streak=streak,
                           deal=tuple(tuple(h) for h in deal), events=(), wall=tuple(wall),
                           base_stake=base_stake)
        hand = play_record(ruleset, dealt, verify=verify)
        if hand.replay.violations:
            raise SimulationError(f"hand {hand_no}: the simulated hand is not clean")
        settlement = settle(hand.replay, ruleset, base_stake, dealer_streak=streak)
        played.append(SimulatedHand(record=with_result(hand.record, recorded_result(settlement)),
                                    dice=dice, replay=hand.replay, settlement=settlement))
        streak = streak + 1 if settlement.next_dealer == dealer else 0
        dealer = settlement.next_dealer
    return SimulatedGame(seed=seed, game_no=game_no, ruleset=ruleset.name, hands=tuple(played))

