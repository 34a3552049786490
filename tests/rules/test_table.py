"""The table state machine: claims and their priority, kongs and replacement draws,
robbing, multiple winners, 报听, delayed kongs, situational facts, the flip, the wall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import make_hand, parse_events, test_ruleset
from zhuoji.rules.events import (
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Flip,
    Kong,
    KongKind,
    Pong,
    Ready,
    Win,
)
from zhuoji.rules.facts import ClaimKind, Outcome, PassKind
from zhuoji.rules.families.guizhou.patterns import Pattern
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.hand import waiting_tiles
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.table import IllegalMoveError, Phase, Table
from zhuoji.rules.tiles import Tile, parse_tiles
from zhuoji.rules.violations import ViolationCode

C = ViolationCode
T = Tile

# the deal of tests/rules/test_violations.py
DEAL = {
    0: "258m125999p13467s",
    1: "111333555777m2p",  # all pungs waiting on 2p: a pass of its own
    2: "234789m23p456s99s",  # plain, waiting on 1p or 4p
    3: "1669m2678p23588s",
}
FRONT = "4p6s7p3p5s"
# seat 1 can make an exposed kong of the dealer's 9m; its replacement draw comes from the back
KONG = {0: "9m147m258p2356789s", 1: "999m123456789p5s", 2: "234567m88m23678s"}
# seat 1 pongs the dealer's 5p and later adds the fourth; seat 3 waits on 5p
ROB = {0: "5p147m258s369s1478p", 1: "3369m5569p24789s", 3: "46p123m456m789s11s"}
ROB_EVENTS = "0-5p 1P5p<0 1-9s 2+1m 2-1m 3+2m 3-2m 0+3m 0-3m 1+5p 1A5p"
ROB_FRONT = "1m2m3m5p4m"


def table_after(deal: dict[int, str], events: str, rules: Ruleset | None = None,
                **kwargs: Any) -> Table:
    record = make_hand(deal, events, **kwargs)
    table = Table.from_record(record, rules or test_ruleset())
    for event in record.events:
        table.apply(event)
    return table


def replay(deal: dict[int, str], events: str, rules: Ruleset | None = None,
           **kwargs: Any) -> HandReplay:
    return replay_hand(make_hand(deal, events, **kwargs), rules or test_ruleset())


def clean(result: HandReplay) -> HandReplay:
    assert result.violations == (), result.violations
    return result


# ---------------------------------------------------------------------- the deal
def test_the_table_after_the_deal() -> None:
    table = table_after(DEAL, "", front=FRONT)
    assert table.phase is Phase.DISCARD and table.turn == 0
    assert table.wall_left == 55 and table.wall is not None and table.wall[:2] == (T.P4, T.S6)
    assert table.concealed(1) == tuple(parse_tiles("111333555777m2p"))
    assert table.summary(1) == "seat 1 holds 111333555777m2p"
    assert table.waits(1) == (T.P2,) and table.waits(0) == ()  # the dealer holds 14


def test_without_a_wall_the_table_counts_the_tiles_left() -> None:
    table = table_after(DEAL, "0-9p 1+1p 1-1p", known_wall=False)
    assert table.wall is None and table.wall_left == 54
    # any tile still unseen may be drawn: the legal draws list each kind once
    draws = [a for a in table.legal_actions() if isinstance(a, Draw)]
    assert {a.seat for a in draws} == {2}
    assert T.M1 not in {a.tile for a in draws}  # all four 1m are dealt
    assert T.M6 in {a.tile for a in draws}


# ---------------------------------------------------------------------- claims
def test_claims_after_a_discard_in_priority_order() -> None:
    table = table_after(DEAL, "0-1p", test_ruleset(pass_rule=False), front=FRONT)
    assert table.phase is Phase.CLAIM
    assert table.legal_actions() == [Win(2, T.P1, 0), Draw(1, T.P4)]
    deal = {**DEAL, 3: "666m111p2p333888s"}  # seat 3: three 1p, and all pungs on 2p
    table = table_after(deal, "0-1p", test_ruleset(pass_rule=False), front=FRONT)
    assert table.legal_actions() == [
        Win(2, T.P1, 0),
        Pong(3, T.P1, 0),
        Kong(3, T.P1, KongKind.EXPOSED, 0),
        Draw(1, T.P4),
    ]


def test_a_win_takes_the_discard_before_a_pong() -> None:
    deal = {**DEAL, 3: "666m111p2p333888s"}
    rules = test_ruleset(pass_rule=False)
    # the log lists wins first; once the discard is ponged it cannot be won on
    result = replay(deal, "0-1p 3P1p<0 2H1p<0", rules, front=FRONT)
    assert result.fatal is not None and result.fatal.code is C.INVALID_WIN
    assert result.fatal.event_index == 2
    result = replay(deal, "0-1p 2H1p<0 3P1p<0", rules, front=FRONT)
    assert result.fatal is not None and result.fatal.code is C.EVENT_AFTER_END


def test_after_a_pong_the_player_discards_without_drawing() -> None:
    deal = {**DEAL, 3: "666m111p2p333888s"}
    table = table_after(deal, "0-1p 3P1p<0", front=FRONT)
    assert table.phase is Phase.DISCARD_AFTER_CLAIM and table.turn == 3
    actions = table.legal_actions()
    assert actions and all(isinstance(a, Discard) and a.seat == 3 for a in actions)
    assert table.melds(3) == (Meld(MeldKind.PONG, T.P1, 0),)
    assert table.discards(0)[0].claim is ClaimKind.PONG
    assert table.discards(0)[0].claimed_by == 3
    v = table.check(Draw(3, T.P4))
    assert v is not None and v.code is C.OUT_OF_TURN
    v = table.check(Kong(3, T.P1, KongKind.ADDED))
    assert v is not None and v.code is C.ILLEGAL_KONG
    v = table.check(Win(3, T.P2))
    assert v is not None and v.code is C.INVALID_WIN


def test_several_winners_on_one_discard() -> None:
    deal = {**DEAL, 3: "666m111p2p333888s"}  # seats 1 and 3 both wait on 2p (all pungs)
    table = table_after(deal, "0-2p 1H2p<0", front=FRONT)
    assert table.legal_actions() == [Win(3, T.P2, 0), Flip(T.P4)]
    result = clean(replay(deal, "0-2p 1H2p<0 3H2p<0 F4p", front=FRONT))
    assert [w.seat for w in result.winners] == [1, 3]
    assert all(w.from_seat == 0 and w.tile is T.P2 for w in result.winners)
    assert result.seats[0].discards[0].claimed_by == 1  # the first winner in log order
    one = test_ruleset(multiple_winners=False)
    result = replay(deal, "0-2p 1H2p<0 3H2p<0 F4p", one, front=FRONT)
    assert result.fatal is not None and result.fatal.code is C.INVALID_WIN
    assert "one winner" in result.fatal.message and result.fatal.event_index == 2
    assert table_after(deal, "0-2p 1H2p<0", one, front=FRONT).legal_actions() == [Flip(T.P4)]


def test_a_second_win_must_be_on_the_same_tile() -> None:
    deal = {**DEAL, 3: "666m111p2p333888s"}
    result = replay(deal, "0-2p 1H2p<0 3H1p<0", front=FRONT)
    assert result.fatal is not None and result.fatal.code is C.INVALID_WIN
    result = replay(deal, "0-2p 1H2p<0 1H2p<0", front=FRONT)
    assert result.fatal is not None and "already won" in result.fatal.message


# ---------------------------------------------------------------------- kongs
def test_exposed_kong_replacement_from_the_back_and_kong_bloom() -> None:
    table = table_after(KONG, "0-9m 1E9m<0", front="4m", back="5s")
    assert table.phase is Phase.KONG_DRAW and table.legal_actions() == [Draw(1, T.S5)]
    result = clean(replay(KONG, "0-9m 1E9m<0 1+5s 1H5s F4m", front="4m", back="5s"))
    win = result.winners[0]
    assert win.kong_bloom and win.self_drawn and win.passes == (PassKind.SELF_DRAW,)
    assert Pattern.KONG_BLOOM in win.situational
    assert win.melds == (Meld(MeldKind.EXPOSED_KONG, T.M9, 0),)
    kong = result.seats[1].kongs[0]
    assert (kong.kind, kong.tile, kong.from_seat, kong.replacement) == (
        KongKind.EXPOSED, T.M9, 0, T.S5)
    assert result.seats[1].kong_count(KongKind.EXPOSED) == 1


def test_hot_discard_needs_no_pass() -> None:
    events = "0-9m 1E9m<0 1+1s 1-1s 2H1s<1 F4m"
    result = clean(replay(KONG, events, front="4m", back="1s"))
    win = result.winners[0]
    assert win.hot_discard and win.passes == (PassKind.HOT_DISCARD,)
    assert Pattern.HOT_DISCARD in win.situational
    assert result.seats[1].discards[0].hot
    # the first 1s discarded (冲锋鸡 position) was won on
    chicken = result.chicken_discards[0]
    assert (chicken.tile, chicken.seat, chicken.claimed_by, chicken.claim) == (
        T.S1, 1, 2, ClaimKind.WIN)
    # the same win on a discard that does not follow a kong needs a pass
    plain = replay(KONG, "0-9m 1+1s 1-1s 2H1s<1", front="1s")
    assert plain.fatal is not None and plain.fatal.code is C.NO_PASS


def test_robbing_an_added_kong() -> None:
    table = table_after(ROB, ROB_EVENTS, front=ROB_FRONT)
    assert table.phase is Phase.KONG_DRAW
    back = table.wall[-1] if table.wall else None
    assert table.legal_actions() == [Win(3, T.P5, 1), Draw(1, back)]  # type: ignore[arg-type]
    result = clean(replay(ROB, ROB_EVENTS + " 3H5p<1 F4m", front=ROB_FRONT))
    win = result.winners[0]
    assert win.robbed_kong and win.passes == (PassKind.ROBBING_KONG,)
    assert Pattern.ROBBING_KONG in win.situational
    assert result.seats[1].melds == (Meld(MeldKind.PONG, T.P5, 0),)  # the kong does not stand
    kong = result.seats[1].kongs[0]
    assert kong.robbed and kong.kind is KongKind.ADDED and kong.replacement is None
    assert result.seats[1].kong_count(KongKind.ADDED) == 0
    assert result.table is None


def test_robbing_switched_off_or_on_a_concealed_kong() -> None:
    rules = test_ruleset(robbing_kong=False)
    table = table_after(ROB, ROB_EVENTS, rules, front=ROB_FRONT)
    assert [type(a) for a in table.legal_actions()] == [Draw]
    result = replay(ROB, ROB_EVENTS + " 3H5p<1", rules, front=ROB_FRONT)
    assert result.fatal is not None and result.fatal.code is C.INVALID_WIN
    assert "抢杠" in result.fatal.message
    deal = {0: "258m1259999p1346s", 3: "78p123m456m789s11s"}  # seat 3 waits on 6p or 9p
    result = replay(deal, "0C9p 3H9p<0", back="5s")
    assert result.fatal is not None and result.fatal.code is C.INVALID_WIN


def test_delayed_kongs() -> None:
    deal = {0: "258m1259999p1346s"}
    now = table_after(deal, "0C9p", back="5s")
    assert not now.kongs()[0].delayed
    later = table_after(deal, "0-8m 1+4p 1-4p 2+6s 2-6s 3+7p 3-7p 0+3p 0C9p",
                        front=FRONT, back="5s")
    kong = later.kongs()[0]
    assert kong.delayed and later.melds(0) == (Meld(MeldKind.CONCEALED_KONG, T.P9, None, True),)
    # a pong whose fourth tile is already held: added at once, or a turn later
    pong = {0: "5p147m258s369s1478p", 1: "3369m5559p24789s"}
    first = "0-5p 1P5p<0 1-9s 2+1m 2-1m 3+2m 3-2m 0+3m 0-3m 1+6p"
    assert not table_after(pong, first + " 1A5p", front="1m2m3m6p4m").kongs()[0].delayed
    late = table_after(pong, first + " 1-6p 2+4m 2-4m 3+7m 3-7m 0+9m 0-9m 1+8m 1A5p",
                       front="1m2m3m6p4m7m9m8m")
    assert late.kongs()[0].delayed


def test_no_kong_without_a_replacement_tile() -> None:
    # the wall's last tile is 9p: seat 3 draws and discards it; the dealer holds 999p
    record = make_hand(DEAL, "", front=FRONT, back="9p")
    assert record.wall is not None
    tokens = ["0-8m"]
    for k, tile in enumerate(record.wall):
        seat = (1 + k) % 4
        tokens.append(f"{seat}+{tile} {seat}-{tile}")
    table = table_after(DEAL, " ".join(tokens), front=FRONT, back="9p")
    assert table.wall_left == 0
    v = table.check(Kong(0, T.P9, KongKind.EXPOSED, 3))
    assert v is not None and v.code is C.ILLEGAL_KONG and "wall is empty" in v.message
    assert table.legal_actions() == [Pong(0, T.P9, 3), ExhaustiveDraw()]


# ---------------------------------------------------------------------- 报听
def test_hard_and_soft_ready() -> None:
    hard = table_after(DEAL, "1R", front=FRONT)
    assert hard.is_frozen(1) and hard.is_hard_ready(1) and hard.declared_ready_at(1) == 0
    soft = table_after(DEAL, "0-9p 1+4p 1-4p 2+6s 2R", front=FRONT)
    assert soft.declared_ready_at(2) == 4 and not soft.is_hard_ready(2)
    assert not soft.is_frozen(2)  # frozen by the discard that follows
    # only the discards that leave a ready hand are offered
    counts = list(soft.counts(2))
    keeps = []
    for tile in sorted(set(soft.concealed(2))):
        counts[tile] -= 1
        if waiting_tiles(counts):
            keeps.append(Discard(2, tile))
        counts[tile] += 1
    assert soft.legal_actions() == keeps and Discard(2, T.S6) in keeps
    assert Discard(2, T.S4) not in keeps
    soft.apply(Discard(2, T.S6))
    assert soft.is_frozen(2)


def test_ready_is_offered_only_in_the_first_turn() -> None:
    start = table_after(DEAL, "", front=FRONT)
    readies = [a for a in start.legal_actions() if isinstance(a, Ready)]
    assert readies == [Ready(1), Ready(2)]  # the dealer is not ready; seats 1 and 2 are
    later = table_after(DEAL, "0-9p 1+4p 1-4p 2+6s 2-6s 3+7p", front=FRONT)
    assert not [a for a in later.legal_actions() if isinstance(a, Ready)]
    off = table_after(DEAL, "", test_ruleset(declared_ready=False), front=FRONT)
    assert not [a for a in off.legal_actions() if isinstance(a, Ready)]


def test_kill_ready_needs_no_pass() -> None:
    # the dealer declares ready and discards 1p; seat 2 (plain) wins on it: 杀报
    deal = {**DEAL, 0: "22m345678p456s99s1p"}
    result = clean(replay(deal, "0R 0-1p 2H1p<0 F4p", front=FRONT))
    win = result.winners[0]
    assert win.kill_ready and win.passes == (PassKind.KILL_READY,)
    assert result.seats[0].declared_ready_at == 0 and result.seats[0].hard_ready
    off = test_ruleset(ready={"kill_ready": False})
    result = replay(deal, "0R 0-1p 2H1p<0 F4p", off, front=FRONT)
    assert result.fatal is not None and result.fatal.code is C.NO_PASS
    result = replay(deal, "0-1p 2H1p<0 F4p", front=FRONT)  # no declaration: no pass
    assert result.fatal is not None and result.fatal.code is C.NO_PASS


def test_a_frozen_player_may_kong_only_when_the_waits_stay() -> None:
    deal = {1: "111333555777m2p", 3: "4669m2678p23588s"}  # the fourth 1m is in the wall
    table = table_after(deal, "1R 0-9p 1+1m", front="1m")
    assert Kong(1, T.M1, KongKind.CONCEALED) in table.legal_actions()
    table.apply(Kong(1, T.M1, KongKind.CONCEALED))
    assert table.waits(1) == (T.P2,)
    nine = {1: "1112345678999m", 3: "4669m2678p23588s"}  # waits 1m-9m; a kong of 1m would not
    table = table_after(nine, "1R 0-9p 1+1m", front="1m")
    v = table.check(Kong(1, T.M1, KongKind.CONCEALED))
    assert v is not None and v.code is C.FROZEN_HAND and "waits" in v.message
    assert Kong(1, T.M1, KongKind.CONCEALED) not in table.legal_actions()


# ---------------------------------------------------------------------- situational
def test_heavenly_and_earthly() -> None:
    heaven = {0: "11122233344455m"}
    result = clean(replay(heaven, "0H5m F4p", front="4p"))
    assert result.winners[0].heavenly and Pattern.HEAVENLY in result.winners[0].situational
    earth = {1: "1112223334445m"}
    result = clean(replay(earth, "0-9p 1+5m 1H5m F4p", front="5m4p"))
    assert result.winners[0].earthly and not result.winners[0].heavenly
    late = {1: "1112223334445m"}
    result = clean(replay(late, "0-9p 1+1s 1-1s 2+2s 2-2s 3+3s 3-3s 0+4s 0-4s 1+5m 1H5m F4p",
                          front="1s2s3s4s5m4p"))
    assert not result.winners[0].earthly


def test_passes_and_patterns_of_a_discard_win() -> None:
    result = clean(replay(DEAL, "0-2p 1H2p<0 F4p", front=FRONT))
    win = result.winners[0]
    assert win.passes == (PassKind.BIG_HAND,)
    assert Pattern.ALL_PUNGS in win.shape and win.situational == ()
    assert win.waits == (T.P2,) and win.concealed == tuple(parse_tiles("111333555777m2p"))
    no_rule = clean(replay(DEAL, "0-2p 1H2p<0 F4p", test_ruleset(pass_rule=False),
                           front=FRONT))
    assert no_rule.winners[0].passes == (PassKind.NO_PASS_RULE, PassKind.BIG_HAND)


# ---------------------------------------------------------------------- end of hand
def test_the_flip_and_the_facts_at_the_end() -> None:
    result = clean(replay(DEAL, "0-2p 1H2p<0 F4p", front=FRONT))
    assert result.outcome is Outcome.WIN and result.flip is T.P4 and result.wall_left == 55
    seats = result.seats
    assert seats[1].won and seats[1].ready
    assert seats[2].ready and seats[2].waits == (T.P1, T.P4)
    assert not seats[3].ready and seats[3].waits == ()
    assert seats[0].discards[0].claim is ClaimKind.WIN


def test_is_over_and_no_actions_after_the_end() -> None:
    table = table_after(DEAL, "0-2p 1H2p<0", front=FRONT)
    assert not table.is_over  # the flip is due
    table.apply(Flip(T.P4))
    assert table.is_over and table.legal_actions() == []
    no_flip = table_after(DEAL, "0-2p 1H2p<0", test_ruleset(flip_chicken=False), front=FRONT)
    assert no_flip.is_over


# ---------------------------------------------------------------------- apply
def _snapshot(table: Table) -> tuple[object, ...]:
    n = table.n_players
    return (
        table.phase, table.turn, table.event_index, table.wall_left, table.wall,
        tuple(table.counts(s) for s in range(n)), tuple(table.melds(s) for s in range(n)),
        tuple(table.discards(s) for s in range(n)), table.winners, table.flip,
        table.findings, table.kongs(), tuple(table.is_frozen(s) for s in range(n)),
    )


@pytest.mark.parametrize("bad", [
    "2+4p", "1+5s", "3P1p<0", "1H1p<0", "2H1p<0", "3E1p<0", "1Y123p<0", "X", "F4p",
])
def test_apply_never_half_applies(bad: str) -> None:
    table = table_after(DEAL, "0-1p", front=FRONT)
    before = _snapshot(table)
    event = parse_events(bad)[0]
    assert table.check(event) is not None
    assert _snapshot(table) == before  # check changes nothing
    with pytest.raises(IllegalMoveError):
        table.apply(event)
    assert _snapshot(table) == before
    assert table.step(event) is not None
    assert _snapshot(table) == before
    table.apply(Draw(1, T.P4))  # and the table goes on
    assert table.event_index == 2


def test_check_agrees_with_step_on_every_event_kind() -> None:
    table = table_after(DEAL, "0-1p", front=FRONT)
    events: list[Event] = [Draw(1, T.P4), Draw(2, T.P4), Discard(0, T.P9), Win(2, T.P1, 0)]
    for event in events:
        v = table.check(event)
        probe = table_after(DEAL, "0-1p", front=FRONT)
        assert probe.step(event) == v
