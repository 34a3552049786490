"""The Changsha bots: thousands of simulated hands of every Changsha preset audit clean, and
the players do what docs/simulator.md says (起手小胡, chow, 开杠 dice, 海底, 通炮, birds).

The recorded result of every hand must be the family's settlement of its replay, whatever
that settlement pays today: the tests compare with ``family_of(ruleset).settle``.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import pairwise

import pytest

from tests.support.builders import make_hand, parse_events
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulatedGame, bots_of
from zhuoji.rules.events import (
    Bird,
    Chow,
    Discard,
    Draw,
    HandRecord,
    Kong,
    Pong,
    Roll,
    Seabed,
    SmallWin,
    Win,
)
from zhuoji.rules.families import family_of
from zhuoji.rules.families.changsha.simulate import (
    Deviation,
    play_record,
    recorded_result,
    simulate_game,
)
from zhuoji.rules.hand import is_complete
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.tiles import counts_of, parse_tiles

PRESETS = preset_names("changsha")
GAMES = 84  # per preset, of 8 hands: 2,016 hands in all
HANDS = 8


@cache
def _games(name: str) -> tuple[SimulatedGame, ...]:
    rs = load_preset(name)
    return tuple(simulate_game(rs, seed=2026, game_no=g, hands=HANDS) for g in range(GAMES))


def _records(name: str) -> list[HandRecord]:
    return [h.record for g in _games(name) for h in g.hands]


def test_the_family_names_its_bots() -> None:
    assert PRESETS == ["changsha", "changsha-birds2", "changsha-birds4"]
    for name in PRESETS:
        assert bots_of(load_preset(name)).simulate_game is simulate_game


@pytest.mark.parametrize("name", PRESETS)
def test_thousands_of_hands_audit_clean(name: str) -> None:
    rs = load_preset(name)
    family = family_of(rs)
    hands = [h for g in _games(name) for h in g.hands]
    assert len(hands) * len(PRESETS) >= 2000
    for hand in hands:
        record = hand.record
        audit = audit_hand(record, rs)
        assert audit.findings == (), (name, record.hand_no, audit.findings)
        # the recorded result is the family's own settlement of the replay
        settlement = family.settle(audit.replay, rs, record.base_stake,
                                   dealer_streak=record.dealer_streak)
        assert record.result == recorded_result(settlement)


@pytest.mark.parametrize("name", PRESETS)
def test_each_next_hand_is_dealt_by_the_settlements_next_dealer(name: str) -> None:
    for game in _games(name)[:20]:
        records = game.records
        assert records[0].dealer == 0
        for before, after in pairwise(records):
            assert before.result is not None
            nxt = before.result.next_dealer
            assert after.dealer == (before.dealer if nxt is None else nxt)
            streak = before.dealer_streak + 1 if after.dealer == before.dealer else 0
            assert after.dealer_streak == streak


def test_same_seed_same_games_and_verified_choices() -> None:
    rs = load_preset("changsha")
    for g in range(6):
        verified = simulate_game(rs, seed=2026, game_no=g, hands=HANDS, verify=True)
        assert verified == _games("changsha")[g]
    assert simulate_game(rs, seed=2027, game_no=0, hands=2) != _games("changsha")[0]


def _small_win_kinds(deal: tuple[int, ...]) -> set[str]:
    counts = Counter(int(t) for t in deal)
    kinds = set()
    if any(c == 4 for c in counts.values()):
        kinds.add("four_of_a_kind")
    if not any(t % 9 in (1, 4, 7) for t in counts):
        kinds.add("no_258")
    if len({t // 9 for t in counts}) < 3:
        kinds.add("missing_suit")
    if sum(1 for c in counts.values() if c >= 3) >= 2:
        kinds.add("two_triplets")
    return kinds


def test_every_small_win_of_the_dealt_hand_is_declared_first() -> None:
    declared_any = 0
    for record in _records("changsha"):
        opening = []
        for e in record.events:
            if not isinstance(e, SmallWin):
                break
            opening.append(e)
        assert not any(isinstance(e, SmallWin) for e in record.events[len(opening):])
        for seat in range(record.n_players):
            kinds = {e.kind for e in opening if e.seat == seat}
            assert kinds == _small_win_kinds(record.deal[seat]), (record.hand_no, seat)
            declared_any += bool(kinds)
    assert declared_any > 0


def test_a_player_who_threw_the_dice_discards_every_draw_until_it_wins() -> None:
    locked_draws = 0
    for record in [r for name in PRESETS for r in _records(name)]:
        locked: set[int] = set()
        events = record.events
        for i, e in enumerate(events):
            if isinstance(e, Roll):
                locked.add(e.seat)
            elif isinstance(e, Draw) and e.seat in locked and i + 1 < len(events):
                after = events[i + 1]
                assert after in (Discard(e.seat, e.tile), Win(e.seat, e.tile)), (
                    record.hand_no, i, after)
                locked_draws += 1
    assert locked_draws > 50


def test_the_players_use_every_mechanic() -> None:
    count: Counter[str] = Counter()
    for name in PRESETS:
        rs = load_preset(name)
        birds = rs.mechanics.birds
        for record in _records(name):
            events = record.events
            count.update(type(e).__name__ for e in events)
            count["take"] += sum(1 for e in events if isinstance(e, Seabed) and e.take)
            wins = [e for e in events if isinstance(e, Win)]
            count["several"] += len(wins) > 1 and all(w.from_seat is not None for w in wins)
            count["self"] += sum(1 for w in wins if w.from_seat is None)
            shown = [e for e in events if isinstance(e, Bird)]
            if wins:
                assert len(shown) == 1 and 1 <= len(shown[0].tiles) <= birds
                count["bird_tiles"] += len(shown[0].tiles)
    for what in ("Chow", "Pong", "Kong", "Roll", "Seabed", "take", "SmallWin", "several",
                 "self", "ExhaustiveDraw"):
        assert count[what] > 0, what
    # chow is the common claim where the next player may take any run
    assert count["Chow"] > count["Pong"] > count["Kong"]
    assert count["Kong"] == sum(
        1 for name in PRESETS for r in _records(name) for e in r.events if isinstance(e, Kong))
    assert count["Chow"] == sum(
        1 for name in PRESETS for r in _records(name) for e in r.events if isinstance(e, Chow))
    assert count["Pong"] == sum(
        1 for name in PRESETS for r in _records(name) for e in r.events if isinstance(e, Pong))


def test_a_deviant_player_breaks_the_rule_and_the_table_says_so() -> None:
    rs = load_preset("changsha")
    found: Counter[str] = Counter()
    for record in _records("changsha")[:80]:
        dealt = HandRecord(record.hand_no, record.n_players, record.dealer,
                           record.dealer_streak, record.deal, (), record.wall,
                           base_stake=record.base_stake)
        for seat in range(record.n_players):
            played = play_record(rs, dealt, deviant=seat, deviation=Deviation.NO_258_PAIR)
            codes = [str(v.code) for v in played.replay.violations]
            if codes:
                assert codes == ["no_258_pair"]
                assert played.replay.violations[0].seat == seat
                found["no_258_pair"] += 1
    assert found["no_258_pair"] > 0


LOOSE = "22m588m2558p2258s"
"""13 tiles, every one a 2, 5 or 8, in no sets and no pair: a 将将胡 on any 2, 5 or 8."""


@pytest.mark.parametrize(("dealer_hand", "front", "opening"), [
    # the dealer sheds 1s; seat 1 draws 8s and wins on it
    ("13579m13579p1357s", "8s", "0-1s 1+8s 1H8s"),
    # the dealer sheds 5s (its least useful tile); seat 1 wins on the discard
    ("123456789m1233p5s", "9s", "0-5s 1H5s<0"),
])
def test_a_bot_holding_a_shapeless_jiangjiang_hu_wins(
        dealer_hand: str, front: str, opening: str) -> None:
    """The bots test a hand against the table's own shapes (the family's 将将胡 beside the
    standard shape and seven pairs): a hand of 2s, 5s and 8s in no shape wins."""
    (tile,) = parse_tiles(opening.split()[-1][2:4])
    assert not is_complete(counts_of([*parse_tiles(LOOSE), tile]))
    rs = load_preset("changsha")
    dealt = make_hand({0: dealer_hand, 1: LOOSE}, front=front)
    played = play_record(rs, dealt, verify=True)
    assert played.replay.violations == ()
    expected = parse_events(opening)
    assert played.record.events[:len(expected)] == expected
    (win,) = played.replay.winners
    assert (win.seat, win.shape) == (1, ("all_258",))


def test_some_players_chase_a_jiangjiang_hu_and_win_it_in_no_other_shape() -> None:
    """A player whose hand is near a 将将胡 goes for it (the simulated hands above all
    audit clean); the wins are 将将胡 of no core shape, which only the table's own
    shapes see."""
    found: Counter[str] = Counter()
    for name in PRESETS:
        for game in _games(name):
            for hand in game.hands:
                for win in hand.replay.winners:
                    found["wins"] += 1
                    if "all_258" not in win.shape:
                        continue
                    counts = counts_of([*win.concealed, win.tile])
                    assert sum(counts) + 3 * len(win.melds) == 14
                    found["shapeless" if not is_complete(counts, len(win.melds))
                          else "shaped"] += 1
    assert found["shapeless"] >= 10, found
    assert found["shapeless"] < found["wins"] / 20  # a 大胡 now and then
