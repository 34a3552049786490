"""The Sichuan family's rules at the table, through its presets (``sichuan``,
``sichuan-xuezhan``, ``sichuan-xueliu``) and their settings: 定缺 (the declared suit
discarded first, no win holding it), no chow, a 血战 winner who acts again, 血流 wins after
a win, and 换三张 when a table plays it. Hands are written in the compact notation of
``tests/support/builders.py`` with the exchange (``S>TTT>D``) and declaration (``S=X``)
tokens of ``tests/rules/xuezhan_family/hands.py``.

The hand most tests use (dealer seat 0, no exchange; the wall's front 1p 1m 2m 5m):

* seat 0: 346689m 9p 3s 777s 999s (14; holds three suits, declares p: 9p goes first)
* seat 1: 123456789m 11p 23p (lacks s and declares it; waits on 1p and 4p)
* seat 2: 123456789p 11s 45s (declares m; waits on 3s and 6s)
* seat 3: 234567p 88p 12s 555s (declares m; waits on 3s)

Seat 0 discards 9p, seat 1 draws 1p and wins (自摸); then, where play goes on, seats 2 and
3 draw and discard, seat 0 draws 5m and discards 3s, and seats 2 and 3 both win on it
(一炮多响).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.rules.xuezhan_family.hands import hand as xuezhan_hand
from tests.rules.xuezhan_family.hands import play_out
from zhuoji.rules.events import (
    Chow,
    DeclareSuit,
    Discard,
    Draw,
    Event,
    Exchange,
    HandRecord,
    Suit,
    Win,
)
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.presets import load_preset, resolve_ruleset
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.settings import RulesetBase, RulesetError
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import Tile, parse_tiles
from zhuoji.rules.violations import Violation, ViolationCode

C = ViolationCode
PRESETS = ("sichuan", "sichuan-xuezhan", "sichuan-xueliu")

DEALT = {
    0: "346689m9p3s777s999s",
    1: "123456789m11p23p",
    2: "123456789p11s45s",
    3: "234567p88p12s555s",
}
FRONT = "1p1m2m5m"
DECLARE = "0=p 1=s 2=m 3=m"
OPENING = f"{DECLARE} 0-9p 1+1p 1H1p"  # seat 1's self-drawn win, event 6
AFTER = "2+1m 2-1m 3+2m 3-2m 0+5m 0-3s 2H3s<0 3H3s<0"  # events 7-14: 一炮多响 on 3s
SEAT1 = tuple(parse_tiles("123456789m11p23p"))
SAMPLE = (Path(__file__).resolve().parents[2] / "data" / "sample" / "changsha"
          / "sim-changsha-2028-00001.json")  # any log: its ruleset is refused first


def hand(events: str, deal: Mapping[int, str] | None = None, front: str = FRONT
         ) -> HandRecord:
    return xuezhan_hand(events, deal or DEALT, front=front)


def replay(preset: str | RulesetBase, events: str, deal: Mapping[int, str] | None = None,
           front: str = FRONT) -> HandReplay:
    rules = load_preset(preset) if isinstance(preset, str) else preset
    return replay_hand(hand(events, deal, front), rules)


def only(result: HandReplay, code: ViolationCode, index: int | None, seat: int | None,
         *shown: str) -> Violation:
    assert len(result.violations) == 1, result.violations
    v = result.violations[0]
    assert (v.code, v.event_index, v.seat) == (code, index, seat), v
    for text in shown:
        assert text in v.message, (text, v.message)
    return v


def test_the_presets_play_the_mechanics_of_their_mode() -> None:
    modes = {name: mechanics_of(load_preset(name)) for name in (*PRESETS, "sichuan-sbr")}
    assert {name: (m.play_after_win, m.winners_stay) for name, m in modes.items()} == {
        "sichuan": (False, False), "sichuan-xuezhan": (True, False),
        "sichuan-xueliu": (True, True), "sichuan-sbr": (True, False)}
    for m in modes.values():
        assert (m.declare_suit, m.chow, m.exchange, m.exchange_to) == (True, False, 0, "any")
    assert family_of(load_preset("sichuan")).refuses_chow


# ---------------------------------------------------------------------- 定缺
@pytest.mark.parametrize("preset", PRESETS)
def test_the_declared_suit_is_discarded_first(preset: str) -> None:
    # seat 0 declared p and holds 9p: its 3s may not go first
    v = only(replay(preset, f"{DECLARE} 0-3s"), C.DECLARED_SUIT_FIRST, 4, 0,
             "declared dots (p) and still holds 9p")
    assert "定缺" in v.message
    record = hand(DECLARE)
    table = Table.from_record(record, load_preset(preset))
    assert table.run(record.events) is None
    assert table.legal_actions() == [Discard(0, Tile.P9)]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_lacking_a_suit_declares_it(preset: str) -> None:
    # seat 2 holds no m: it declares m (seed 003), not p
    v = only(replay(preset, "2=p"), C.BAD_DECLARATION, 0, 2, "holds no characters (m)")
    assert "若摸牌结束只有两门花色" in v.message
    table = Table.from_record(hand(""), load_preset(preset))
    assert table.phase is Phase.SETUP
    assert [a for a in table.legal_actions() if isinstance(a, DeclareSuit) and a.seat == 2] == [
        DeclareSuit(2, Suit.CHARACTERS)]
    only(replay(preset, "0=p 1=s 2=m 0-9p"), C.BAD_DECLARATION, 3, 0,
         "seats 3 have not declared")


@pytest.mark.parametrize("preset", PRESETS)
def test_no_win_holding_the_declared_suit(preset: str) -> None:
    # seat 1 holds three suits (123456789m 11p 23s) and declares p: a self-drawn 1s
    # completes its hand, but it still holds 11p
    deal = {**DEALT, 1: "123456789m11p23s"}
    events = f"{DECLARE.replace('1=s', '1=p')} 0-9p 1+1s"
    v = only(replay(preset, f"{events} 1H1s", deal, front="1s1m2m5m"),
             C.MISSING_SUIT, 6, 1, "holding 11p of its declared suit dots (p)")
    assert "定缺" in v.message
    # nor does the table offer that win
    record = hand(events, deal, front="1s1m2m5m")
    table = Table.from_record(record, load_preset(preset))
    assert table.run(record.events) is None
    assert not [a for a in table.legal_actions() if isinstance(a, Win)]


@pytest.mark.parametrize("preset", PRESETS)
def test_no_pong_of_the_declared_suit(preset: str) -> None:
    # seat 0 holds three suits and declares m this time: it discards 9m first, and may not
    # pong the 6m seat 1 discards though it holds 66m
    events = f"{DECLARE.replace('0=p', '0=m')} 0-9m 1+1p 1-6m"
    assert replay(preset, events).violations[-1].code is C.PREMATURE_END
    only(replay(preset, f"{events} 0P6m<1"), C.ILLEGAL_PONG, 7, 0,
         "declared characters (m)", "no meld of that suit")


# ---------------------------------------------------------------------- no chow
@pytest.mark.parametrize("preset", PRESETS)
def test_no_chow(preset: str) -> None:
    # seat 0 declares m and discards 9m; seat 1 holds 78m, but Sichuan plays no chow
    declared = f"{DECLARE.replace('0=p', '0=m')} 0-9m"
    v = only(replay(preset, f"{declared} 1Y789m<0"), C.CHOW_NOT_ALLOWED, 5, 1,
             "seat 1 chows", "chow (吃) is never allowed")
    assert "no chow event" not in v.message
    record = hand(declared)
    table = Table.from_record(record, load_preset(preset))
    assert table.run(record.events) is None
    actions = table.legal_actions()
    assert actions and not [a for a in actions if isinstance(a, Chow)]
    chow = table.check(Chow(1, tuple(parse_tiles("789m")), 0))
    assert chow is not None and chow.code is C.CHOW_NOT_ALLOWED


# ---------------------------------------------------------------------- the modes
def test_the_base_game_ends_at_the_first_win() -> None:
    assert replay("sichuan", OPENING).violations == ()
    only(replay("sichuan", f"{OPENING} 2+1m"), C.EVENT_AFTER_END, 7, 2,
         "after the hand ended (the hand was won)")
    # seat 1 lets its 1p go: then both seats 2 and 3 win on the 3s (一炮多响), and the
    # hand is over
    both = f"{DECLARE} 0-9p 1+1p 1-1p {AFTER}"
    result = replay("sichuan", both)
    assert result.violations == () and result.outcome is Outcome.WIN
    assert [(w.seat, w.from_seat) for w in result.winners] == [(2, 0), (3, 0)]
    only(replay("sichuan", f"{both} 0+1m"), C.EVENT_AFTER_END, 15, 0)


def test_a_xuezhan_winner_takes_no_further_turn() -> None:
    rules = load_preset("sichuan-xuezhan")
    only(replay(rules, f"{OPENING} 1+1m"), C.ACTED_AFTER_WIN, 7, 1,
         "seat 1 won at event 6 and takes no further turns (血战到底)")
    # a winner claims nothing either: seat 2 discards 1m, seat 1 (holding one) cannot
    # even try
    only(replay(rules, f"{OPENING} 2+1m 2-1m 1P1m<2"), C.ACTED_AFTER_WIN, 9, 1,
         "won at event 6")
    # the others play on: seats 2 and 3 win on 3s, seat 0 is left and the hand is over
    result = replay(rules, f"{OPENING} {AFTER}")
    assert result.violations == () and [w.seat for w in result.winners] == [1, 2, 3]
    only(replay(rules, f"{OPENING} {AFTER} 0+1m"), C.EVENT_AFTER_END, 15, 0)


def test_xueliu_wins_after_a_win() -> None:
    rules = load_preset("sichuan-xueliu")
    # after the 一炮多响 seat 0 draws 1m and discards it; seat 1 draws 4p and wins again
    twice = f"{OPENING} {AFTER} 0+1m 0-1m 1+4p 1H4p"
    front = "1p1m2m5m1m4p"
    record = hand(twice, front=front)
    events = play_out(record, twice, [2, 3, 0, 1], start=6)
    result = replay(rules, events, front=front)
    assert result.violations == () and result.outcome is Outcome.WIN
    assert [(w.seat, w.tile, w.from_seat) for w in result.winners] == [
        (1, Tile.P1, None), (2, Tile.S3, 0), (3, Tile.S3, 0), (1, Tile.P4, None)]
    assert result.wall_left == 0 and result.seats[1].concealed == SEAT1
    assert [s.won for s in result.seats] == [False, True, True, True]
    # the settlement pays each win when it happens: four wins, the deltas sum to zero
    settlement = family_of(rules).settle(result, rules)
    assert settlement is not None and len(settlement.wins) == 4
    assert sum(settlement.deltas) == 0
    # in 血战 the same second win is a seat acting after its win
    xuezhan = replay("sichuan-xuezhan", twice, front=front)
    only(xuezhan, C.EVENT_AFTER_END, 15, 0)


def test_xueliu_legal_actions_after_a_win() -> None:
    rules = load_preset("sichuan-xueliu")
    record = hand(OPENING)
    table = Table.from_record(record, rules)
    assert table.run(record.events) is None
    # the winning tile is set aside; the seat after the winner draws next
    assert table.concealed(1) == SEAT1
    assert table.phase is Phase.PLAY_ON and table.legal_actions() == [Draw(2, Tile.M1)]
    events: list[Event] = list(hand(f"{OPENING} {AFTER}").events[len(record.events):])
    for ev in events[:-1]:
        table.apply(ev)
    wall = table.wall
    assert wall is not None
    # seat 3 may win on the 3s too, else it draws (after the last winner)
    assert table.legal_actions() == [Win(3, Tile.S3, 0), Draw(3, wall[0])]
    table.apply(events[-1])
    assert not table.is_over and table.legal_actions() == [Draw(0, wall[0])]
    # nobody left the hand: the hand ends with the wall only
    finish = table.finish()
    assert finish is not None and finish.code is C.PREMATURE_END


# ---------------------------------------------------------------------- 换三张
EXCHANGE_DEAL = {  # before a next-seat exchange that gives DEALT
    0: "123346689m9p3s999s",
    1: "456789m789p11p23p",
    2: "123456p11s45s555s",
    3: "234567p88p12s777s",
}
NEXT = "0>123m>1 1>789p>2 2>555s>3 3>777s>0"
ACROSS = "0>123m>2 1>789p>3 2>555s>0 3>777s>1"


@pytest.mark.parametrize("preset", PRESETS)
def test_the_exchange_when_a_table_plays_it(preset: str) -> None:
    rules = resolve_ruleset(preset, {"mechanics.exchange": 3, "mechanics.exchange_to": "next"})
    result = replay(rules, f"{NEXT} {OPENING}", EXCHANGE_DEAL)
    # (where play goes on after the win, the log stops too early: nothing else is wrong)
    assert [v.code for v in result.violations] == (
        [] if preset == "sichuan" else [C.PREMATURE_END])
    assert [(x.seat, x.to) for x in result.exchanges] == [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert result.winners[0].concealed == SEAT1  # the tiles arrived before the deal's play
    # the wrong direction
    only(replay(rules, ACROSS, EXCHANGE_DEAL), C.BAD_EXCHANGE, 0, 0,
         "every seat passes to its next seat (mechanics.exchange_to = next)")
    # three tiles of one suit
    only(replay(rules, "0>12m3s>1", EXCHANGE_DEAL), C.BAD_EXCHANGE, 0, 0, "of one suit")
    # play before the exchange is over
    only(replay(rules, "0>123m>1 0-9p", EXCHANGE_DEAL), C.BAD_EXCHANGE, 1, 0,
         "seats 1, 2, 3 have not passed")
    # the table offers the next-seat passes of one suit only
    table = Table.from_record(hand("", EXCHANGE_DEAL), rules)
    actions = table.legal_actions()
    assert actions and all(isinstance(a, Exchange) for a in actions)
    assert {(a.seat, a.to) for a in actions if isinstance(a, Exchange)} == {
        (0, 1), (1, 2), (2, 3), (3, 0)}
    assert all(len({t // 9 for t in a.tiles}) == 1 for a in actions if isinstance(a, Exchange))
    # across, and any direction the dice chose (the same for every seat)
    across = resolve_ruleset(preset, {"mechanics.exchange": 3,
                                      "mechanics.exchange_to": "across"})
    assert len(replay(across, f"{ACROSS}", EXCHANGE_DEAL).exchanges) == 4
    anyway = resolve_ruleset(preset, {"mechanics.exchange": 3})
    only(replay(anyway, "0>123m>2 1>789p>2", EXCHANGE_DEAL), C.BAD_EXCHANGE, 1, 1,
         "seat 2 already receives")


def test_without_the_exchange_an_exchange_is_not_in_the_family() -> None:
    only(replay("sichuan", NEXT, EXCHANGE_DEAL), C.EVENT_NOT_IN_FAMILY, 0, 0)


def test_winners_stay_needs_play_after_win() -> None:
    with pytest.raises(RulesetError, match=r"winners_stay \(血流成河\) needs "
                                           r"mechanics.play_after_win"):
        resolve_ruleset("sichuan", {"mechanics.winners_stay": True})
    assert mechanics_of(resolve_ruleset(
        "sichuan", {"mechanics.winners_stay": True, "mechanics.play_after_win": True}
    )).winners_stay


def test_winners_stay_without_play_after_win_is_refused_on_the_command_line(
    tmp_path: Path,
) -> None:
    """A log whose ``rule_overrides`` switch 血流成河 on in the base game: one line naming
    the file, the game and the rule, exit status 2; ``rules show --set`` alike."""
    from typer.testing import CliRunner

    from zhuoji.flows.cli.main import app

    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    sample.update(ruleset="sichuan", rule_overrides={"mechanics.winners_stay": True})
    log = tmp_path / "xueliu.json"
    log.write_text(json.dumps(sample, ensure_ascii=False), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["audit", str(log)])
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.lower().startswith(f"error: {log}, game '{sample['game_id']}': ruleset 'sichuan'")
    assert first.endswith("mechanics.winners_stay (血流成河) needs mechanics.play_after_win: "
                          "a winner stays only where play goes on after a win")
    assert "Traceback" not in result.output
    shown = runner.invoke(app, ["rules", "show", "sichuan", "--set",
                                "mechanics.winners_stay=true"])
    assert shown.exit_code == 2 and "needs mechanics.play_after_win" in shown.output
    both = runner.invoke(app, ["rules", "show", "sichuan", "--set",
                               "mechanics.winners_stay=true", "--set",
                               "mechanics.play_after_win=true"])
    assert both.exit_code == 0, both.output
