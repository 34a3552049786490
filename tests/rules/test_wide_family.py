"""The core's claims mechanics through a test family (``tests/rules/wide_family/``): 144
tiles with honours and flowers, chow, flower replacement draws; legal and illegal hands
through the replay, ``legal_actions`` and the snapshots, public API only.

The hand most tests start from (dealer seat 0):

* seat 0: 129m19p19s234567z1f (14; shows 春 and draws 8s from the back)
* seat 1: 23m456p789s1z555z3f (shows 秋 and draws 6s; chows 123m on the dealer's 1m,
  discards 6s and waits on 东 alone: 456p 789s 555z 1z)
* seat 2: 1z2f4455667788m3p (shows 夏 and draws 8p; draws 3s, discards 东)
* seat 3: filled with what is left
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from tests.rules.wide_family import FAMILY, WideRuleset, settle, wide_hand, wide_ruleset
from tests.support.builders import make_hand, test_ruleset
from zhuoji.rules.events import Chow, Discard, Draw, Flower, HandRecord, Kong, Pong, Win
from zhuoji.rules.facts import ClaimKind, Outcome
from zhuoji.rules.families import family_of
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.mechanics import Mechanics, mechanics_of
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.replay import HandReplay, replay_hand
from zhuoji.rules.snapshot import replay_snapshots
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import Tile, TileSet, parse_tiles
from zhuoji.rules.violations import Violation, ViolationCode

C = ViolationCode
DEAL = {
    0: "129m19p19s234567z1f",
    1: "23m456p789s1z555z3f",
    2: "1z2f4455667788m3p",
}
BACK = "8s6s8p"
FRONT = "3s"
OPENING = "0*1f 0+8s 1*3f 1+6s 2*2f 2+8p"
CLEAN = OPENING + " 0-1m 1Y123m<0 1-6s 2+3s 2-1z 1H1z<2"


def record(events: str, deal: dict[int, str] | None = None, **kwargs: Any) -> HandRecord:
    kwargs.setdefault("front", FRONT)
    kwargs.setdefault("back", BACK)
    return wide_hand(deal or DEAL, events, hand_no=3, **kwargs)


def replay(events: str, rules: WideRuleset | None = None, **kwargs: Any) -> HandReplay:
    return replay_hand(record(events, **kwargs), rules or wide_ruleset())


def fatal(result: HandReplay, code: ViolationCode, index: int, seat: int | None,
          *shown: str) -> Violation:
    assert len(result.violations) == 1, result.violations
    v = result.violations[0]
    assert (v.code, v.hand_no, v.event_index, v.seat, v.fatal) == (code, 3, index, seat,
                                                                   True), v
    for text in shown:
        assert text in v.message, (text, v.message)
    assert result.outcome is Outcome.INCOMPLETE
    return v


def test_the_family_plays_144_tiles_with_chow_and_flowers() -> None:
    ruleset = wide_ruleset()
    assert family_of(ruleset) is FAMILY and FAMILY.tile_set is TileSet.FLOWERS
    assert mechanics_of(ruleset) == Mechanics(chow=True, flowers=True)
    assert len(FAMILY.tile_set.wall()) == 144
    rec = record(CLAIM_FREE := "")
    assert CLAIM_FREE == ""
    assert sum(map(len, rec.deal)) + len(rec.wall or ()) == 144


def test_a_hand_with_flowers_a_chow_and_an_honour_win_replays_clean() -> None:
    result = replay(CLEAN)
    assert result.violations == () and result.outcome is Outcome.WIN
    (win,) = result.winners
    assert (win.seat, win.tile, win.from_seat) == (1, Tile.EAST, 2)
    seats = result.seats
    assert seats[1].melds == (Meld(MeldKind.CHOW, Tile.M1, 0),)
    assert seats[1].melds[0].tiles == tuple(parse_tiles("123m"))
    assert not seats[1].melds[0].is_kong and seats[1].melds[0].size == 3
    assert win.concealed == tuple(parse_tiles("456p789s1555z"))
    assert win.waits == (Tile.EAST,)
    assert [s.flowers for s in seats] == [(Tile.SPRING,), (Tile.AUTUMN,), (Tile.SUMMER,), ()]
    assert all(not t.is_flower for s in seats for t in s.concealed)
    assert seats[0].discards[0].claimed_by == 1 and seats[0].discards[0].claim is ClaimKind.CHOW
    assert result.wall_left == 144 - 53 - 4  # the deal, three replacements and one draw
    # the family's settlement scores the flowers the winner showed
    assert settle(result, wide_ruleset()) == (-3, 9, -3, -3)
    assert settle(result, wide_ruleset(flower_value=0)) == (-2, 6, -2, -2)


def test_the_same_hand_without_a_known_wall() -> None:
    result = replay_hand(record(CLEAN, known_wall=False), wide_ruleset())
    assert result.violations == () and result.winners[0].seat == 1


def test_a_flower_drawn_from_the_wall_is_shown_and_replaced() -> None:
    events = OPENING + " 0-1m 1+4f 1*4f 1+7z 1-7z 2+3s"
    result = replay(events, front="4f3s", back=BACK + "7z")
    (end,) = result.violations  # the log stops there: only the hand's end is missing
    assert end.code is C.PREMATURE_END and end.event_index is None
    assert result.events_applied == len(events.split())
    assert result.seats[1].flowers == (Tile.AUTUMN, Tile.WINTER)
    assert Tile.WINTER not in result.seats[1].concealed
    assert result.seats[1].discards[0].tile is Tile.RED


def test_a_replacement_that_is_a_flower_is_shown_in_turn() -> None:
    events = "0*1f 0+5f 0*5f 0+8s 1*3f 1+6s 2*2f 2+8p 0-1m 1Y123m<0 1-6s 2+3s 2-1z 1H1z<2"
    result = replay(events, back="5f8s6s8p")
    assert result.violations == ()
    assert result.seats[0].flowers == (Tile.SPRING, Tile.PLUM)


def test_a_self_drawn_win_on_a_flower_replacement() -> None:
    # seat 1 waits on 东 after its chow; its next draw is a flower, the replacement 东
    events = OPENING + " 0-1m 1Y123m<0 1-6s 2+3s 2-3s 3+5s 3-5s 0+6f 0-6f"
    result = replay(events, front="3s5s6f")
    fatal(result, C.FLOWER_NOT_SHOWN, len(events.split()) - 1, 0, "6f", "shown and replaced")
    events = OPENING + " 0-1m 1Y123m<0 1-6s 2+3s 2-3s 3+5s 3-5s 0+7f 0*7f 0+1z 0-1z 1H1z<0"
    result = replay(events, front="3s5s7f", back=BACK + "1z")
    assert result.violations == () and result.seats[0].flowers == (Tile.SPRING, Tile.BAMBOO)


def test_legal_actions_in_the_opening_and_after_a_discard() -> None:
    table = Table.from_record(record(""), wide_ruleset())
    actions = table.legal_actions()
    flowers = [a for a in actions if isinstance(a, Flower)]
    assert flowers == [Flower(0, Tile.SPRING), Flower(1, Tile.AUTUMN), Flower(2, Tile.SUMMER)]
    assert not any(isinstance(a, Discard) for a in actions)  # the dealer holds a flower
    table.apply(Flower(0, Tile.SPRING))
    assert table.phase is Phase.FLOWER_DRAW
    assert table.legal_actions() == [Draw(0, Tile.S8)]
    for ev in record(OPENING).events[1:]:
        table.apply(ev)
    assert table.phase is Phase.DISCARD and table.turn == 0
    assert Discard(0, Tile.M1) in table.legal_actions()
    table.apply(Discard(0, Tile.M1))
    actions = table.legal_actions()
    assert Chow(1, tuple(parse_tiles("123m")), 0) in actions
    assert actions[-1] == Draw(1, Tile.S3)
    assert all(not isinstance(a, Chow) or a.seat == 1 for a in actions)


def test_claim_priority_win_then_pong_then_chow() -> None:
    """On one discard: seat 3 can win, seat 2 can pong, seat 1 can chow; legal_actions lists
    them in priority order, and the log may hold any one of them (the claim made)."""
    deal = {
        0: "129m19p19s234567z5m",
        1: "46m456p789s1z555z7z",
        2: "55m123p789p4s1z666z",
        3: "34m66m999m222p777s",
    }
    table = Table.from_record(wide_hand(deal, "0-5m", front="3s"), wide_ruleset())
    table.apply(Discard(0, Tile.M5))
    claims = [a for a in table.legal_actions() if isinstance(a, (Win, Pong, Chow))]
    assert claims == [Win(3, Tile.M5, 0), Pong(2, Tile.M5, 0),
                      Chow(1, tuple(parse_tiles("456m")), 0)]
    for claim in ("3H5m<0", "2P5m<0 2-1z", "1Y456m<0 1-7z"):
        result = replay_hand(wide_hand(deal, "0-5m " + claim, front="3s"), wide_ruleset())
        assert result.violations == () or result.violations[-1].code is C.PREMATURE_END, claim


# ---------------------------------------------------------------------- illegal chows
def test_illegal_chow_by_a_seat_not_next_to_the_discarder() -> None:
    result = replay(OPENING + " 0-1m 2Y123m<0")
    fatal(result, C.ILLEGAL_CHOW, 7, 2, "123m", "only the discarder's next player (seat 1)")


def test_illegal_chow_of_honours() -> None:
    result = replay(OPENING + " 0-4z 1Y345z<0", deal={**DEAL, 1: "34z456p789s1z555z3f"})
    fatal(result, C.ILLEGAL_CHOW, 7, 1, "345z", "honours never chow")


def test_illegal_chow_not_in_rank_order() -> None:
    result = replay(OPENING + " 0-1m 1Y132m<0")
    fatal(result, C.ILLEGAL_CHOW, 7, 1, "rank order")
    result = replay(OPENING + " 0-1m 1Y12m<0")
    fatal(result, C.ILLEGAL_CHOW, 7, 1, "rank order")


def test_illegal_chow_without_the_tiles() -> None:
    result = replay(OPENING + " 0-9m 1Y789m<0")
    fatal(result, C.ILLEGAL_CHOW, 7, 1, "789m", "without 7m")


def test_illegal_chow_of_another_tile_or_with_no_discard() -> None:
    result = replay(OPENING + " 0-1m 1Y234m<0")
    fatal(result, C.ILLEGAL_CHOW, 7, 1, "the last discard is 1m by seat 0")
    result = replay(OPENING + " 1Y123m<0")
    fatal(result, C.ILLEGAL_CHOW, 6, 1, "no discard to claim")


def test_after_a_chow_the_player_discards_without_drawing() -> None:
    result = replay(OPENING + " 0-1m 1Y123m<0 1+3s")
    fatal(result, C.OUT_OF_TURN, 8, 1, "seat 1 must discard")


def test_chow_not_allowed_when_the_family_does_not_chow() -> None:
    rules = wide_ruleset(mechanics={"chow": False, "flowers": True})
    fatal(replay(OPENING + " 0-1m 1Y123m<0", rules), C.EVENT_NOT_IN_FAMILY, 7, 1,
          "the wide family (ruleset 'wide-test') has no chow event")
    # and Guizhou keeps its code
    rec = make_hand({0: "258m125999p13467s", 1: "23m111p444s777s55s"}, "0-2m 1Y234m<0")
    result = replay_hand(rec, test_ruleset())
    assert result.violations[0].code is C.CHOW_NOT_ALLOWED


# ---------------------------------------------------------------------- illegal flowers
def test_flower_not_shown_before_a_discard() -> None:
    fatal(replay("0-1m"), C.FLOWER_NOT_SHOWN, 0, 0, "1m", "holding a flower")


def test_bad_flower_not_a_flower_or_not_held() -> None:
    fatal(replay("0*1m"), C.BAD_FLOWER, 0, 0, "1m is not a flower")
    fatal(replay("0*8f"), C.BAD_FLOWER, 0, 0, "8f", "seat 0 holds")


def test_bad_flower_out_of_turn() -> None:
    # after the dealer's first discard, only the player to act shows its flowers
    events = "0*1f 0+8s 1*3f 1+6s 0-1m 2*2f"
    fatal(replay(events), C.BAD_FLOWER, 5, 2, "2f", "the player to act")


def test_the_replacement_draw_follows_the_flower() -> None:
    fatal(replay("0*1f 0-1m"), C.OUT_OF_TURN, 1, 0, "must draw its flower replacement")
    fatal(replay("0*1f 0+3s"), C.WALL_MISMATCH, 1, 0, "back (flower replacement)", "8s")
    fatal(replay("0*1f 1+8s"), C.OUT_OF_TURN, 1, 1, "seat 0 is due to draw")


def test_a_flower_is_no_event_of_a_family_without_flowers() -> None:
    rules = wide_ruleset(mechanics={"chow": True, "flowers": False})
    fatal(replay("0*1f", rules), C.EVENT_NOT_IN_FAMILY, 0, 0, "has no flower event")
    rec = make_hand({0: "258m125999p13467s"}, "")
    rec = replace(rec, events=(Flower(0, Tile.SPRING),))
    result = replay_hand(rec, test_ruleset())
    v = result.violations[0]
    assert v.code is C.EVENT_NOT_IN_FAMILY and "the guizhou family" in v.message


def test_a_hand_holding_a_flower_cannot_win() -> None:
    deal = {**DEAL, 1: "11m456p789s2z555z3f"}
    result = replay("0*1f 0+8s 0-2z 1H2z<0", deal=deal)
    fatal(result, C.INVALID_WIN, 3, 1, "3f", "not complete")


# ---------------------------------------------------------------------- tiles
def test_honours_and_flowers_are_no_tiles_of_a_guizhou_table() -> None:
    rec = make_hand({0: "258m125999p13467s"}, "")
    deal = list(rec.deal)
    deal[1] = (*deal[1][:-1], Tile.EAST)
    bad = replace(rec, deal=tuple(deal))
    result = replay_hand(bad, test_ruleset())
    v = result.violations[0]
    assert v.code is C.BAD_DEAL and v.seat == 1 and "1z" in v.message and "108" in v.message


def test_a_wide_deal_is_checked_against_the_full_set() -> None:
    rec = record("")
    deal = list(rec.deal)
    deal[3] = (*deal[3][:-1], Tile.SPRING)  # a second 春
    result = replay_hand(replace(rec, deal=tuple(deal)), wide_ruleset())
    v = result.violations[0]
    assert v.code is C.TILE_OVERFLOW and "1f" in v.message
    wall = (rec.wall or ())[:-1]
    v = replay_hand(replace(rec, wall=wall), wide_ruleset()).violations[0]
    assert v.code is C.BAD_DEAL and "144 expected" in v.message
    # a 136-tile family holds no flower
    honours = wide_hand({0: "129m19p19s234567z5m"}, "", tile_set=TileSet.HONOURS)
    assert sum(map(len, honours.deal)) + len(honours.wall or ()) == 136


def test_snapshots_show_chows_and_flowers() -> None:
    snaps = replay_snapshots(record(CLEAN), wide_ruleset())
    assert snaps.fatal is None
    last = snaps.steps[-1].table
    assert last["seats"][1]["melds"] == [
        {"kind": "chow", "tile": "1m", "from": 0, "tiles": ["1m", "2m", "3m"]}]
    assert last["seats"][0]["flowers"] == ["1f"]
    after_flower = snaps.steps[1].table
    assert after_flower["phase"] == "flower_draw"


def test_guizhou_snapshots_have_no_flower_key() -> None:
    rec = make_hand({0: "258m125999p13467s"}, "0-9p")
    snaps = replay_snapshots(rec, test_ruleset())
    assert all("flowers" not in seat for step in snaps.steps for seat in step.table["seats"])


@pytest.mark.parametrize("ruleset", [Ruleset.model_validate({"name": "g"})])
def test_guizhou_mechanics_are_off(ruleset: Ruleset) -> None:
    assert mechanics_of(ruleset) == Mechanics()


# ---------------------------------------------------------------------- playouts
def _playout(rng: random.Random, hand_no: int) -> tuple[HandRecord, Table]:
    """A hand of the 144 tiles played through ``legal_actions()`` only: flowers shown at
    once, wins taken, pongs, kongs and chows often, discards at random."""
    tiles = list(TileSet.FLOWERS.wall())
    rng.shuffle(tiles)
    dealer = hand_no % 4
    deal, pos = [], 0
    for seat in range(4):
        size = 14 if seat == dealer else 13
        deal.append(tuple(tiles[pos:pos + size]))
        pos += size
    rec = HandRecord(hand_no=hand_no, n_players=4, dealer=dealer, dealer_streak=0,
                     deal=tuple(deal), events=(), wall=tuple(tiles[pos:]))
    table = Table.from_record(rec, wide_ruleset())
    events = []
    while not table.is_over:
        actions = table.legal_actions()
        assert actions, table.phase
        pick = next((a for a in actions if isinstance(a, (Win, Flower))), None)
        if pick is None:
            claims = [a for a in actions if isinstance(a, (Pong, Chow, Kong))]
            if claims and rng.random() < 0.6:
                pick = rng.choice(claims)
            else:
                rest = [a for a in actions if not isinstance(a, (Pong, Chow, Kong))]
                pick = rng.choice(rest) if table.phase is Phase.DISCARD or (
                    table.phase is Phase.DISCARD_AFTER_CLAIM) else rest[-1]
        table.apply(pick)
        events.append(pick)
    return replace(rec, events=tuple(events)), table


def test_hands_played_through_legal_actions_replay_clean() -> None:
    rng = random.Random(20261202)
    seen = {"chow": 0, "flower": 0, "honour_win": 0, "win": 0, "kong": 0}
    for hand_no in range(60):
        rec, table = _playout(rng, hand_no)
        result = replay_hand(rec, wide_ruleset())
        assert result.violations == (), (hand_no, result.violations)
        assert result.winners == table.winners
        seen["chow"] += sum(m.kind is MeldKind.CHOW for s in result.seats for m in s.melds)
        seen["kong"] += sum(m.is_kong for s in result.seats for m in s.melds)
        seen["flower"] += sum(len(s.flowers) for s in result.seats)
        seen["win"] += bool(result.winners)
        seen["honour_win"] += any(t.is_honour for w in result.winners
                                  for t in (*w.concealed, w.tile))
        # every tile is in one place: a hand, a meld, shown, a river (a discard won on
        # stays there), taken off a robbed kong, or the wall
        placed = sum(len(s.concealed) + sum(m.size for m in s.melds) + len(s.flowers)
                     + sum(1 for d in s.discards
                           if d.claimed_by is None or d.claim is ClaimKind.WIN)
                     for s in result.seats)
        assert placed + table.robbed_tiles + result.wall_left == 144, hand_no
    assert all(seen.values()), seen
