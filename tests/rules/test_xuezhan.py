"""The core's 换三张, 定缺, 血战到底 and carry mechanics through the xuezhan test family
(``tests/rules/xuezhan_family``): legal hands and one illegal hand per rule, replayed and
audited through the public API; the same events in a Guizhou hand stay violations."""

from __future__ import annotations

import pytest

from tests.rules.xuezhan_family import FAMILY, settle, xuezhan_ruleset
from tests.rules.xuezhan_family.hands import (
    CLEAN,
    EXCHANGE,
    FIRST_PLAY,
    SETUP,
    hand,
    parse,
    play_out,
    with_carry,
)
from tests.support.builders import test_ruleset
from zhuoji.rules.events import DeclareSuit, Draw, Exchange, ExhaustiveDraw, Pong, Suit, Win
from zhuoji.rules.facts import Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.replay import HandReplay, replay_game, replay_hand
from zhuoji.rules.table import Carry, Phase, Table
from zhuoji.rules.tiles import Tile, parse_tiles
from zhuoji.rules.violations import Violation, ViolationCode

C = ViolationCode
RULES = xuezhan_ruleset()


def replay(events: str = CLEAN, **settings: object) -> HandReplay:
    rules = xuezhan_ruleset(**settings) if settings else RULES
    return replay_hand(hand(events), rules)


def only(result: HandReplay, code: ViolationCode, index: int | None, seat: int | None,
         *shown: str) -> Violation:
    assert len(result.violations) == 1, result.violations
    v = result.violations[0]
    assert (v.code, v.event_index, v.seat) == (code, index, seat), v
    for text in shown:
        assert text in v.message, (text, v.message)
    return v


def test_the_family_switches_the_mechanics_on() -> None:
    mech = mechanics_of(RULES)
    assert (mech.exchange, mech.exchange_one_suit, mech.declare_suit, mech.play_after_win,
            mech.carry) == (3, True, True, True, True)
    assert family_of(RULES) is FAMILY and FAMILY.carry is not None
    assert mechanics_of(test_ruleset()).exchange == 0  # Guizhou plays none of them


def phase(table: Table) -> Phase:
    return table.phase


# ---------------------------------------------------------------------- a legal hand
def test_the_clean_hand_plays_on_after_each_win() -> None:
    result = replay()
    assert result.violations == () and result.outcome is Outcome.WIN
    assert result.events_applied == len(parse(CLEAN))
    # every win in order, with its event index
    assert [(w.seat, w.tile, w.event_index, w.from_seat, w.self_drawn)
            for w in result.winners] == [
        (1, Tile.P1, 10, None, True), (2, Tile.S3, 17, 0, False), (3, Tile.S3, 18, 0, False)]
    assert [(x.seat, x.tiles, x.to, x.event_index) for x in result.exchanges] == [
        (0, tuple(parse_tiles("123m")), 1, 0), (1, tuple(parse_tiles("789p")), 2, 1),
        (2, tuple(parse_tiles("555s")), 3, 2), (3, tuple(parse_tiles("777s")), 0, 3)]
    assert result.declared_suits == (Suit.DOTS, Suit.BAMBOO, Suit.CHARACTERS,
                                     Suit.CHARACTERS)
    # the tiles passed arrived: seat 0 holds the 777s of seat 3 and no 1m
    hand0 = result.seats[0].concealed
    assert hand0.count(Tile.S7) == 3 and Tile.M1 not in hand0
    assert [s.won for s in result.seats] == [False, True, True, True]


def test_the_table_walks_through_setup_and_play_on() -> None:
    table = Table.from_record(hand(""), RULES)
    assert phase(table) is Phase.SETUP
    events = parse(CLEAN)
    for ev in events[:4]:
        assert phase(table) is Phase.SETUP and ev in table.legal_actions()
        table.apply(ev)
    # seat 0 holds all three suits; seats 1, 2 and 3 each lack one, the one they declare
    assert table.legal_actions() == [
        *(DeclareSuit(0, suit) for suit in Suit), DeclareSuit(1, Suit.BAMBOO),
        DeclareSuit(2, Suit.CHARACTERS), DeclareSuit(3, Suit.CHARACTERS)]
    for ev in events[4:FIRST_PLAY]:
        table.apply(ev)
    assert phase(table) is Phase.DISCARD and table.turn == 0
    for ev in events[FIRST_PLAY:11]:  # through seat 1's self-drawn win
        table.apply(ev)
    assert phase(table) is Phase.PLAY_ON and not table.is_over
    assert table.legal_actions() == [Draw(2, Tile.M1)]  # the seat after the winner
    for ev in events[11:18]:  # through the first win on 3s
        table.apply(ev)
    assert phase(table) is Phase.PLAY_ON
    # seat 3 may still win on the 3s; else it draws, being after the last winner
    assert table.legal_actions() == [Win(3, Tile.S3, 0), Draw(3, table.wall[0])]
    table.apply(events[18])
    assert table.is_over and table.finish() is None


def test_play_resumes_after_the_last_of_several_winners() -> None:
    # seat 0 discards 3s: seat 2 wins, seat 3 does not; play resumes at seat 3
    events = f"{SETUP} 0-9p 1+1p 1H1p 2+1m 2-1m 3+2m 3-2m 0+5m 0-3s 2H3s<0"
    record = hand(events)
    table = Table.from_record(record, RULES)
    assert table.run(record.events) is None
    wall = table.wall
    assert wall is not None and table.phase is Phase.PLAY_ON
    assert table.legal_actions() == [Win(3, Tile.S3, 0), Draw(3, wall[0])]
    bad = replay(f"{events} 0+{wall[0]}")
    only(bad, C.OUT_OF_TURN, len(record.events), 0, "seat 3 is due to draw")
    # with both winners on the tile, seat 0 is left alone: nothing follows
    after = replay(f"{CLEAN} 0+{wall[0]}")
    only(after, C.EVENT_AFTER_END, len(parse(CLEAN)), 0, "after the hand ended")


def test_an_exhaustive_draw_ends_a_hand_after_a_win() -> None:
    start = f"{SETUP} 0-9p 1+1p 1H1p"
    record = hand(start)
    events = play_out(record, start, [2, 3, 0], start=1)
    result = replay(events)
    assert result.violations == () and result.outcome is Outcome.WIN
    assert [w.seat for w in result.winners] == [1] and result.wall_left == 0
    early = replay(events.replace(" X", "").rsplit(" ", 2)[0] + " X")
    assert early.violations[-1].code is C.PREMATURE_END


def test_a_hand_ends_with_the_log_in_play_on_is_premature() -> None:
    result = replay(f"{SETUP} 0-9p 1+1p 1H1p")
    only(result, C.PREMATURE_END, None, None, "seat 2 draws next (血战到底)")


# ---------------------------------------------------------------------- 换三张
@pytest.mark.parametrize(("token", "shown"), [
    ("0>12m>1", "2 tiles, each seat passes 3"),
    ("0>12m3s>1", "of one suit"),
    ("0>111m>1", "seat 0 holds"),
    ("0>123m>0", "not to itself"),
    ("0>123m>3", "every seat passes the same way"),
])
def test_bad_exchange_of_the_first_seat(token: str, shown: str) -> None:
    events = f"{token} 1>789p>2 2>555s>3 3>777s>0"
    if token.endswith(">3"):
        events = f"1>789p>2 {token}"
        only(replay(events), C.BAD_EXCHANGE, 1, 0, shown)
        return
    only(replay(events), C.BAD_EXCHANGE, 0, 0, shown)


def test_bad_exchange_receiver_twice_and_repeats() -> None:
    # 4 players: 0->1, then 2->1 (the same seat receives twice)
    only(replay("0>123m>1 2>555s>1"), C.BAD_EXCHANGE, 1, 2, "seat 1 already receives")
    only(replay("0>123m>1 0>346m>1"), C.BAD_EXCHANGE, 1, 0, "already passed 123m at event 0")
    only(replay(f"{EXCHANGE} 0>346m>1"), C.BAD_EXCHANGE, 4, 0, "after the exchange")
    # play before the exchange is over
    only(replay("0>123m>1 0-9p"), C.BAD_EXCHANGE, 1, 0, "seats 1, 2, 3 have not passed")
    only(replay("0>123m>1"), C.BAD_EXCHANGE, None, None, "the log ends while")


def test_the_exchange_needs_not_be_one_suit_when_the_family_says_so() -> None:
    rules = xuezhan_ruleset(mechanics={"exchange_one_suit": False})
    record = hand("0>12m3s>1")
    table = Table.from_record(record, rules)
    assert table.run(record.events) is None
    assert table.concealed(0).count(Tile.S3) == 0  # passed on at once


def test_the_tiles_arrive_when_every_seat_has_passed() -> None:
    # seat 1 cannot pass on the 123m it is about to receive
    only(replay("0>123m>1 1>123m>2"), C.BAD_EXCHANGE, 1, 1, "seat 1 holds")


# ---------------------------------------------------------------------- 定缺
def test_bad_declaration_cases() -> None:
    only(replay(f"{EXCHANGE} 0=p 0=m"), C.BAD_DECLARATION, 5, 0, "declared dots (p) at event 4")
    only(replay("0=p"), C.BAD_EXCHANGE, 0, 0, "exchange (换三张) is under way")
    only(replay(f"{EXCHANGE} 0=p 1=s 0-9p"), C.BAD_DECLARATION, 6, 0,
         "seats 2, 3 have not declared")
    only(replay(f"{EXCHANGE} 0=p 1=s"), C.BAD_DECLARATION, None, None, "the log ends while")
    # seat 2 lacks m after the exchange: it declares m, not p (seed 003)
    v = only(replay(f"{EXCHANGE} 2=p"), C.BAD_DECLARATION, 4, 2, "holds no characters (m)")
    assert "若摸牌结束只有两门花色" in v.message
    free = xuezhan_ruleset(mechanics={"declare_any_suit": True})
    assert replay_hand(hand(f"{EXCHANGE} 2=p"), free).violations[-1].code is C.BAD_DECLARATION
    assert replay_hand(hand(f"{EXCHANGE} 2=p"), free).violations[-1].event_index is None
    # a declaration after play began
    only(replay(f"{SETUP} 0-9p 0=p"), C.BAD_DECLARATION, 9, 0, "declared dots (p)")


def test_declared_suit_first() -> None:
    # seat 0 declared p and holds 9p: 3s may not go first
    v = only(replay(f"{SETUP} 0-3s"), C.DECLARED_SUIT_FIRST, FIRST_PLAY, 0, "9p")
    assert "declared dots (p)" in v.message


def test_no_meld_and_no_win_in_the_declared_suit() -> None:
    # seat 0 holds all three suits and declares m (it holds 66m): it discards 9m first and
    # may not pong the 6m seat 1 discards
    events = f"{SETUP.replace('0=p', '0=m')} 0-9m 1+1p 1-6m"
    assert replay(events).violations[-1].code is C.PREMATURE_END
    pong = replay(f"{events} 0P6m<1")
    only(pong, C.ILLEGAL_PONG, 11, 0, "declared characters (m)")
    # a win holding the declared suit: seat 1 declares p (it holds 11p 23p; a table where
    # a hand lacking a suit may declare another)
    setup = SETUP.replace("1=s", "1=p")
    win = replay(f"{setup} 0-9p 1+1p 1H1p", mechanics={"declare_any_suit": True})
    only(win, C.MISSING_SUIT, 10, 1, "11123p", "declared suit dots (p)")


def test_no_kong_in_the_declared_suit() -> None:
    # seat 0 holds 999s and declares s instead of p: after drawing 9s it may not kong it
    setup = SETUP.replace("0=p", "0=s")
    deal_front = "9s1m2m5m"
    result = replay_hand(hand(f"{setup} 0-3s 1+9s 1-9s", front=deal_front), RULES)
    assert result.violations[-1].code is C.PREMATURE_END
    kong = replay_hand(hand(f"{setup} 0-3s 1+9s 1-9s 0E9s<1", front=deal_front), RULES)
    only(kong, C.ILLEGAL_KONG, 11, 0, "declared bamboo (s)")


# ---------------------------------------------------------------------- 血战到底
def test_acted_after_win() -> None:
    base = f"{SETUP} 0-9p 1+1p 1H1p"
    only(replay(f"{base} 1+1m"), C.ACTED_AFTER_WIN, 11, 1, "seat 1 won at event 10")
    only(replay(f"{base} 1-1p"), C.ACTED_AFTER_WIN, 11, 1, "takes no further turns")
    # a winner cannot claim a later discard either
    only(replay(f"{base} 2+1m 2-1m 1P1m<2"), C.ACTED_AFTER_WIN, 13, 1, "won at event 10")


def test_without_play_after_win_the_first_win_ends_the_hand() -> None:
    rules = xuezhan_ruleset(mechanics={"play_after_win": False})
    result = replay_hand(hand(f"{SETUP} 0-9p 1+1p 1H1p"), rules)
    assert result.violations == () and [w.seat for w in result.winners] == [1]
    after = replay_hand(hand(f"{SETUP} 0-9p 1+1p 1H1p 2+1m"), rules)
    assert after.violations[-1].code is C.EVENT_AFTER_END


# ---------------------------------------------------------------------- carry
def _drawn_hand(hand_no: int) -> str:
    record = hand(SETUP)
    return play_out(record, f"{SETUP} 0-9p", [1, 2, 3, 0], start=0)


def _game(recorded: list[dict[str, int] | None], numbers: list[int] | None = None,
          ) -> list[HandReplay]:
    drawn = hand(_drawn_hand(1))
    won = hand(CLEAN)
    kinds = [drawn, drawn, won, won]
    numbers = numbers or list(range(1, len(recorded) + 1))
    records = [with_carry(kinds[i], recorded[i], numbers[i]) for i in range(len(recorded))]
    return replay_game(records, RULES)


def test_carry_is_recomputed_from_the_earlier_hands() -> None:
    game = _game([None, None, None, None])
    assert [r.violations for r in game] == [(), (), (), ()]
    assert [r.outcome for r in game] == [Outcome.EXHAUSTIVE_DRAW, Outcome.EXHAUSTIVE_DRAW,
                                         Outcome.WIN, Outcome.WIN]
    assert [r.carry for r in game] == [
        Carry((("dealer_streak", 0), ("draw_multiplier", 1))),
        Carry((("dealer_streak", 1), ("draw_multiplier", 2))),
        Carry((("dealer_streak", 2), ("draw_multiplier", 4))),
        Carry((("dealer_streak", 0), ("draw_multiplier", 1))),  # seat 1 won first
    ]
    # the family's settlement reads the multiplier: the third hand pays four times over
    assert settle(game[2], RULES).deltas == tuple(4 * d for d in settle(game[3], RULES).deltas)
    assert settle(game[3], RULES).deltas == (-3, 3, 0, 0)


def test_carry_mismatch() -> None:
    good = _game([{"draw_multiplier": 1}, {"draw_multiplier": 2, "dealer_streak": 1}])
    assert [r.violations for r in good] == [(), ()]
    bad = _game([None, {"draw_multiplier": 4, "kong_count": 1}])
    assert bad[0].violations == ()
    codes = [(v.code, v.fatal, v.event_index) for v in bad[1].violations]
    assert codes == [(C.CARRY_MISMATCH, False, None)] * 2
    assert "draw_multiplier = 4, the earlier hands of the game give 2" in (
        bad[1].violations[0].message)
    assert "kong_count = 1, which the family does not carry" in bad[1].violations[1].message
    assert bad[1].outcome is Outcome.EXHAUSTIVE_DRAW  # replayed all the same
    # a Guizhou hand recording carry: the family carries nothing
    from tests.rules.test_violations import CLEAN as GUIZHOU_CLEAN
    from tests.rules.test_violations import record as guizhou_record

    guizhou = replay_hand(with_carry(guizhou_record(GUIZHOU_CLEAN), {"x": 1}), test_ruleset())
    assert [v.code for v in guizhou.violations] == [C.CARRY_MISMATCH]
    assert "carries no state" in guizhou.violations[0].message


def test_hand_sequence() -> None:
    game = _game([None, None, None], numbers=[1, 3, 2])
    assert game[0].violations == ()
    v = game[1].violations[0]
    assert (v.code, v.hand_no, v.fatal) == (C.HAND_SEQUENCE, 3, False)
    assert "hand 3 follows hand 1" in v.message
    assert game[2].violations[0].code is C.HAND_SEQUENCE
    assert game[1].carry == Carry((("dealer_streak", 1), ("draw_multiplier", 2)))


# ---------------------------------------------------------------------- Guizhou
def test_guizhou_rejects_the_new_events() -> None:
    from tests.rules.test_violations import CLEAN as GUIZHOU_CLEAN
    from tests.rules.test_violations import record as guizhou_record

    base = guizhou_record(GUIZHOU_CLEAN)
    for ev in (Exchange(0, (base.deal[0][0],) * 3, 1), DeclareSuit(0, Suit.DOTS)):
        record = with_carry(base, None)
        bad = type(record)(hand_no=record.hand_no, n_players=4, dealer=0, dealer_streak=0,
                           deal=record.deal, events=(ev, *record.events), wall=record.wall)
        result = replay_hand(bad, test_ruleset())
        assert [(v.code, v.event_index) for v in result.violations] == [
            (C.EVENT_NOT_IN_FAMILY, 0)], result.violations
    assert replay_hand(base, test_ruleset()).violations == ()


# ---------------------------------------------------------------------- random playouts
@pytest.mark.parametrize("seed", range(6))
def test_random_playouts_through_legal_actions_replay_cleanly(seed: int) -> None:
    import random

    from tests.support.builders import Players, random_playout

    rng = random.Random(seed)
    for hand_no in range(1, 4):
        record = random_playout(rng, RULES, hand_no=hand_no, dealer=hand_no % 4,
                                players=Players(win=1.0, kong=0.5, pong=0.3))
        result = replay_hand(record, RULES)
        assert result.violations == (), result.violations
        assert len(result.exchanges) == 4 and None not in result.declared_suits
        left = [s.seat for s in result.seats if not s.won]
        # the hand ended with one seat left, or with the wall
        assert len(left) == 1 or result.wall_left == 0
        indexes = [w.event_index for w in result.winners]
        assert indexes == sorted(indexes) and len(set(w.seat for w in result.winners)) == len(
            result.winners)
        # no winner acts after its win
        for win in result.winners:
            later = record.events[win.event_index + 1:]
            assert all(getattr(ev, "seat", None) != win.seat for ev in later)


# ---------------------------------------------------------------------- 血流成河
STAY = xuezhan_ruleset(mechanics={"winners_stay": True})
# after the 一炮多响 on 3s (nobody left: play goes on), seat 0 draws 1m and discards it,
# seat 1 draws 4p: its second win, self-drawn (the wall's front is FRONT, then 1m 4p)
STAY_FRONT = "1p1m2m5m1m4p"
TWICE = f"{CLEAN} 0+1m 0-1m 1+4p 1H4p"
SEAT1 = tuple(parse_tiles("123456789m11p23p"))  # seat 1's hand between its wins


def stay(events: str, front: str = STAY_FRONT) -> HandReplay:
    return replay_hand(hand(events, front=front), STAY)


def stay_table(events: str, front: str = STAY_FRONT) -> Table:
    record = hand(events, front=front)
    table = Table.from_record(record, STAY)
    assert table.run(record.events) is None
    return table


def test_winners_stay_needs_play_after_win() -> None:
    from pydantic import ValidationError

    assert mechanics_of(STAY).winners_stay and mechanics_of(STAY).play_after_win
    with pytest.raises(ValidationError, match=r"winners_stay .* needs mechanics\.play_after_win"):
        xuezhan_ruleset(mechanics={"winners_stay": True, "play_after_win": False})


def test_a_self_drawn_winning_tile_is_set_aside() -> None:
    table = stay_table(f"{SETUP} 0-9p 1+1p")
    assert table.concealed(1) == tuple(sorted((*SEAT1, Tile.P1)))
    table.apply(Win(1, Tile.P1))
    # the winning tile left the hand: back to 13 tiles, waiting on 1p and 4p again
    assert table.concealed(1) == SEAT1 and table.waits(1) == (Tile.P1, Tile.P4)
    assert table.phase is Phase.PLAY_ON and not table.is_over
    assert table.legal_actions() == [Draw(2, Tile.M1)]  # the seat after the winner
    (win,) = table.winners
    assert (win.concealed, win.tile, win.self_drawn, win.earthly) == (SEAT1, Tile.P1, True, True)


def test_a_seat_wins_twice_and_the_hand_ends_at_the_wall() -> None:
    record = hand(TWICE, front=STAY_FRONT)
    events = play_out(record, TWICE, [2, 3, 0, 1], start=6)
    result = stay(events)
    assert result.violations == () and result.outcome is Outcome.WIN
    assert result.wall_left == 0
    # every win in event order, seat 1 twice
    assert [(w.seat, w.tile, w.event_index, w.from_seat, w.self_drawn)
            for w in result.winners] == [
        (1, Tile.P1, 10, None, True), (2, Tile.S3, 17, 0, False), (3, Tile.S3, 18, 0, False),
        (1, Tile.P4, 22, None, True)]
    first, *_, again = result.winners
    assert first.earthly and not again.earthly  # a second win is no 地胡
    assert again.concealed == SEAT1 and again.waits == (Tile.P1, Tile.P4)
    # every seat stayed: each holds a waiting-size hand, seat 1 without either winning tile
    assert [s.won for s in result.seats] == [False, True, True, True]
    assert [len(s.concealed) + 3 * len(s.melds) for s in result.seats] == [13] * 4
    assert result.seats[1].concealed == SEAT1
    assert result.seats[1].waits == (Tile.P1, Tile.P4) and result.seats[1].ready
    # a winner's facts are its hand's as it stands: seat 2 won on 3s and holds its 13 tiles
    assert result.seats[2].concealed == tuple(parse_tiles("123456789p11s45s"))
    assert result.seats[2].waits == (Tile.S3, Tile.S6)
    # the family's settlement reads the winners in order: nobody leaves, so each of seat
    # 1's self-draws is paid by all three others (3 + 3), and seat 0 pays both 3s wins
    assert settle(result, STAY).deltas == (-4, 6, -1, -1)


def test_play_goes_on_after_the_last_winner_until_the_wall_ends() -> None:
    table = stay_table(f"{CLEAN[:CLEAN.rindex(' 3H3s<0')]}")
    wall = table.wall
    assert wall is not None
    # seat 3 may still win on the 3s, or draw: it is after the last winner
    assert table.legal_actions() == [Win(3, Tile.S3, 0), Draw(3, wall[0])]
    table.apply(Win(3, Tile.S3, 0))
    # 一炮多响, then play on from the seat after the last winner (from the discarder: seat 0),
    # though seat 0 is the only seat that has not won: nobody leaves
    assert table.phase is Phase.PLAY_ON and not table.is_over
    assert table.legal_actions() == [Draw(0, wall[0])]
    v = table.finish()
    assert v is not None and v.code is C.PREMATURE_END
    assert "seat 0 draws next (血流成河)" in v.message
    # the winners do not win twice on one tile; a draw out of turn is out_of_turn, not
    # acted_after_win
    for event in (Win(2, Tile.S3, 0), Win(3, Tile.S3, 0)):
        bad = table.check(event)
        assert bad is not None and bad.code is C.INVALID_WIN and "already won" in bad.message
    late = table.check(Draw(2, wall[0]))
    assert late is not None and late.code is C.OUT_OF_TURN


def test_winners_take_turns_and_claim_after_their_win() -> None:
    # seat 0 discards 1s after the 一炮多响: seat 2, a winner, may pong it
    table = stay_table(f"{CLEAN} 0+1s 0-1s", front="1p1m2m5m1s")
    wall = table.wall
    assert wall is not None
    assert table.legal_actions() == [Pong(2, Tile.S1, 0), Draw(1, wall[0])]
    table.apply(Pong(2, Tile.S1, 0))
    assert table.phase is Phase.DISCARD_AFTER_CLAIM and table.turn == 2
    # seat 3 (a winner) discards 4p, and seat 1 (a winner too) wins on it again
    result = stay(f"{CLEAN} 0+1m 0-1m 1+5m 1-5m 2+9m 2-9m 3+4p 3-4p 1H4p<3",
                  front="1p1m2m5m1m5m9m4p")
    assert result.violations[-1].code is C.PREMATURE_END  # the log stops mid-hand
    assert [(w.seat, w.tile, w.from_seat) for w in result.winners][-1] == (1, Tile.P4, 3)
    assert result.seats[1].concealed == SEAT1  # a win on a discard: the hand as it was
    table = stay_table(f"{CLEAN} 0+1m 0-1m 1+5m 1-5m 2+9m 2-9m 3+4p 3-4p 1H4p<3",
                       front="1p1m2m5m1m5m9m4p")
    assert table.legal_actions() == [Draw(2, table.wall[0])]  # type: ignore[index]


def test_a_self_drawn_win_ends_the_winners_turn() -> None:
    # after seat 1's self-drawn win nobody wins on its tile, and seat 1 does not discard
    base = f"{SETUP} 0-9p 1+1p 1H1p"
    only(stay(f"{base} 2H1p"), C.INVALID_WIN, 11, 2, "after a self-drawn win")
    only(stay(f"{base} 1-1m"), C.OUT_OF_TURN, 11, 1, "seat 2 draws next (血流成河)")


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_with_winners_staying_replay_cleanly(seed: int) -> None:
    import random

    from tests.support.builders import Players, random_playout

    rng = random.Random(seed)
    again = 0
    for hand_no in range(1, 4):
        record = random_playout(rng, STAY, hand_no=hand_no, dealer=hand_no % 4,
                                players=Players(win=1.0, kong=0.5, pong=0.3))
        result = replay_hand(record, STAY)
        assert result.violations == (), result.violations
        # the hand ends only with the wall, every seat holding a waiting-size hand
        assert result.wall_left == 0 and isinstance(record.events[-1], ExhaustiveDraw)
        assert [len(s.concealed) + 3 * len(s.melds) for s in result.seats] == [13] * 4
        seats = [w.seat for w in result.winners]
        again += len(seats) - len(set(seats))
        # each winner's hand without the winning tile is a waiting hand on that tile
        for win in result.winners:
            assert win.tile in win.waits
    assert again or seed  # the first seed's hands have a seat winning twice


# ---------------------------------------------------------------------- 换三张's direction
DIRECTIONS = {  # each seat's pass of the tiles EXCHANGE passes, by direction
    "next": EXCHANGE,
    "previous": "0>123m>3 1>789p>0 2>555s>1 3>777s>2",
    "across": "0>123m>2 1>789p>3 2>555s>0 3>777s>1",
}
WANT = {"next": "its next seat", "previous": "the seat before it",
        "across": "the seat across"}


@pytest.mark.parametrize("to", ["next", "previous", "across", "any"])
def test_the_exchange_goes_the_way_the_ruleset_says(to: str) -> None:
    rules = xuezhan_ruleset(mechanics={"exchange_to": to})
    for way, events in DIRECTIONS.items():
        result = replay_hand(hand(events), rules)
        if way == to or to == "any":
            # the exchange is over; the log stops while the suits are declared
            assert len(result.exchanges) == 4, (way, result.violations)
            assert [v.code for v in result.violations] == [C.BAD_DECLARATION]
            continue
        # the first seat's pass already goes the wrong way
        v = only(result, C.BAD_EXCHANGE, 0, 0, f"every seat passes to {WANT[to]}",
                 f"(mechanics.exchange_to = {to})")
        want = {"next": 1, "previous": 3, "across": 2}[to]
        assert v.message.endswith(f"seat 0 passes to seat {want}")


@pytest.mark.parametrize("to", ["next", "previous", "across"])
def test_the_setup_offers_the_exchanges_of_the_ruleset_s_direction(to: str) -> None:
    rules = xuezhan_ruleset(mechanics={"exchange_to": to})
    table = Table.from_record(hand(""), rules)
    offset = {"next": 1, "previous": 3, "across": 2}[to]
    actions = table.legal_actions()
    assert actions and all(isinstance(a, Exchange) for a in actions)
    assert {(a.seat, a.to) for a in actions} == {(s, (s + offset) % 4) for s in range(4)}
    anyway = Table.from_record(hand(""), RULES).legal_actions()  # any: each direction
    assert {(a.to - a.seat) % 4 for a in anyway if isinstance(a, Exchange)} == {1, 2, 3}


def test_no_seat_is_across_at_a_three_player_table() -> None:
    from tests.support.builders import make_hand

    rules = xuezhan_ruleset(players=3, mechanics={"exchange_to": "across"})
    record = make_hand({0: "123m456m789m123p11s", 1: "456p789p123s456s7s"}, "",
                       n_players=3)
    table = Table.from_record(record, rules)
    assert table.legal_actions() == []
    v = table.check(Exchange(0, tuple(parse_tiles("123m")), 1))
    assert v is not None and v.code is C.BAD_EXCHANGE
    assert "a 3-player table has none" in v.message
    # next and previous are the two other seats
    nxt = xuezhan_ruleset(players=3, mechanics={"exchange_to": "previous"})
    assert Table.from_record(record, nxt).check(
        Exchange(0, tuple(parse_tiles("123m")), 2)) is None


def test_a_robbed_kong_after_a_win_and_the_winner_after_the_robber_draws() -> None:
    # no exchange, no declaration: seat 3 wins first (self-drawn 9s); seat 1 ponged seat
    # 0's 5s and adds the fourth: seat 2 robs it. Play goes on from the seat after the
    # robber counted from the kong's owner: seat 3, a winner who stays (血战: seat 0)
    deal = {0: "5s111m222m333m7m8m99s", 1: "55s123p456p789p59m",
            2: "123m456m789m11p46s", 3: "234p567p888p234s9s"}
    events = "0-5s 1P5s<0 1-5m 2+6m 2-6m 3+9s 3H9s 0+4m 0-4m 1+5s 1A5s 2H5s<1"
    plain = {"exchange": 0, "declare_suit": False}
    for stays, resumes in ((True, 3), (False, 0)):
        rules = xuezhan_ruleset(mechanics={**plain, "winners_stay": stays})
        record = hand(events, deal, front="6m9s4m5s")
        table = Table.from_record(record, rules)
        assert table.run(record.events[:-1]) is None
        assert table.legal_actions()[0] == Win(2, Tile.S5, 1)
        table.apply(record.events[-1])
        wall = table.wall
        assert wall is not None
        assert table.legal_actions() == [Draw(resumes, wall[0])]
        assert [(w.seat, w.tile, w.from_seat, w.robbed_kong) for w in table.winners] == [
            (3, Tile.S9, None, False), (2, Tile.S5, 1, True)]
        (kong,) = table.kongs()
        assert kong.robbed and kong.replacement is None
        # the kong's owner holds its pong again and a waiting-size hand
        assert len(table.concealed(1)) + 3 * len(table.melds(1)) == 13
        # seat 3's winning 9s was set aside where winners stay
        assert len(table.concealed(3)) == (13 if stays else 14)
