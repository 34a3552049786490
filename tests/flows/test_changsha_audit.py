"""Changsha hands through ``zhuoji audit``: every number of seed 003's points rules, each
扎鸟 case and each next-dealer rule, on legal hand logs written by the test.

Each case's expected deltas, items and next dealer are worked out by hand from the seed's
rule quoted beside it (dealer: seat 0 unless said); the case is written as a game whose
recorded result is that expectation, so a clean audit (no finding) means the recomputed
ledger is exactly it, and the JSON line is checked field by field besides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.builders import draw_and_discard, make_hand, parse_events
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import (
    Bird,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRecord,
    RecordedItem,
    RecordedResult,
    Roll,
    Seabed,
    SmallWin,
    Win,
)
from zhuoji.rules.tiles import Tile, parse_tiles

runner = CliRunner()
NO_BIRDS: dict[str, Any] = {"birds": 0}  # the points alone (a bird doubles every self-draw)
Item = tuple[int, int, int, str]  # payer, payee, amount, reason


@dataclass(frozen=True)
class Case:
    name: str
    record: HandRecord
    deltas: tuple[int, ...]
    items: tuple[Item, ...]
    next_dealer: int
    overrides: dict[str, Any] | None = None
    ruleset: str = "changsha"


def _tiles(text: str) -> tuple[Tile, ...]:
    return tuple(parse_tiles(text))


def _with(record: HandRecord, before: Sequence[Event] = (), after: Sequence[Event] = ()
          ) -> HandRecord:
    return replace(record, events=(*before, *record.events, *after))


# junk hands that win nothing here
JUNK0 = "13579m13579p1357s"  # the dealer's 14
SMALL = "123m456m789m23p22s"  # 小胡 waiting on 1p / 4p (2-5-8 pair 22s)
SEVEN = "11m22m33p44p55s66s7s"  # 七小对 waiting on 7s


def small_self_draw_dealer() -> HandRecord:
    # dealer 0 discards 9s, each seat draws and discards, the dealer draws 4p and wins
    return make_hand({0: SMALL + "9s"}, "0-9s 1+1s 1-1s 2+9p 2-9p 3+9m 3-9m 0+4p 0H4p",
                     front="1s9p9m4p")


def small_self_draw(bird: str = "") -> HandRecord:
    # seat 1 draws 4p and wins (after the dealer's first discard)
    rec = make_hand({0: JUNK0, 1: SMALL}, "0-9p 1+4p 1H4p", front="4p" + bird)
    return _with(rec, after=[Bird(_tiles(bird))]) if bird else rec


def small_on_seat2(bird: str = "") -> HandRecord:
    # seat 2 discards 4p, seat 1 wins on it
    rec = make_hand({0: JUNK0, 1: SMALL, 2: "4p2468m2468p246s9m"},
                    "0-9p 1+9s 1-9s 2+8s 2-4p 1H4p<2", front="9s8s" + bird)
    return _with(rec, after=[Bird(_tiles(bird))]) if bird else rec


def small_on_dealer() -> HandRecord:
    # the dealer discards 4p in its second turn (not its first: that would be 地胡)
    return make_hand({0: "4p3579m13579p1357s", 1: SMALL},
                     "0-9p 1+9s 1-9s 2+8s 2-8s 3+7s 3-7s 0+1s 0-4p 1H4p<0", front="9s8s7s1s")


def dealer_small_on_seat3() -> HandRecord:
    return make_hand({0: SMALL + "9s", 3: "4p2468m2468p246s9m"},
                     "0-9s 1+9p 1-9p 2+9m 2-9m 3+8s 3-4p 0H4p<3", front="9p9m8s")


def big_self_draw() -> HandRecord:
    return make_hand({0: JUNK0, 1: SEVEN}, "0-9p 1+7s 1H7s", front="7s")


def big_self_draw_dealer() -> HandRecord:
    return make_hand({0: SEVEN + "9m"}, "0-9m 1+1s 1-1s 2+9p 2-9p 3+9s 3-9s 0+7s 0H7s",
                     front="1s9p9s7s")


def big_on_seat2() -> HandRecord:
    return make_hand({0: "13579m13579p1359s", 1: SEVEN, 2: "7s2468m2468p246s9m"},
                     "0-9p 1+9s 1-9s 2+8s 2-7s 1H7s<2", front="9s8s")


def big_on_dealer() -> HandRecord:
    return make_hand({0: "3579m13579p13577s", 1: SEVEN},
                     "0-9p 1+9s 1-9s 2+8s 2-8s 3+6s 3-6s 0+1s 0-7s 1H7s<0", front="9s8s6s1s")


def big_to_dealer(bird: str = "") -> HandRecord:
    # seat 3 discards 7s, the dealer's 七小对 wins on it
    rec = make_hand({0: SEVEN + "9m", 3: "7s2468m2468p246s9m"},
                    "0-9m 1+9p 1-9p 2+9s 2-9s 3+8s 3-7s 0H7s<3", front="9p9s8s" + bird)
    return _with(rec, after=[Bird(_tiles(bird))]) if bird else rec


def pure_suit_258_on_seat2() -> HandRecord:
    # 123m 456m 789m 234m + 5m: a 小胡 (pair 55m) and 清一色 both, on seat 2's 5m
    return make_hand({0: JUNK0, 1: "123456789m234m5m", 2: "5m2468p2468s1379s"},
                     "0-9p 1+9s 1-9s 2+8s 2-5m 1H5m<2", front="9s8s")


def earthly() -> HandRecord:
    # 地胡: seat 1 wins on the dealer's first discard, 4p
    return make_hand({0: "4p3579m13579p1357s", 1: SMALL}, "0-4p 1H4p<0")


def heavenly() -> HandRecord:
    # 天胡: the dealer's dealt 14 are a 小胡 (pair 55s); it wins drawing nothing
    return make_hand({0: "123m456m789m234p55s"}, "0H5s")


KONG_SEAT1 = {0: "13579m13578p1357s", 1: "999p123456m23p22s"}  # seat 1 ready on 1p / 4p


def kong_bloom() -> HandRecord:
    # seat 1 draws the fourth 9p, konged it (暗杠), throws the dice (1 + 1: the second
    # stack from the end, 4p) and wins on the replacement: 杠上开花
    rec = make_hand(KONG_SEAT1, "0-9m 1+9p 1C9p", front="9p", back="1s2s4p3s")
    return _with(rec, after=[Roll(1, (1, 1)), *parse_events("1+4p 1H4p")])


def kong_discard() -> HandRecord:
    # as above, the replacement is 4s: seat 1 cannot win and must discard it (the dice
    # lock the hand); seat 2 wins on it: 杠上炮
    rec = make_hand({**KONG_SEAT1, 2: "456789m234p23s55s"}, "0-9m 1+9p 1C9p", front="9p",
                    back="1s2s4s3s")
    return _with(rec, after=[Roll(1, (1, 1)), *parse_events("1+4s 1-4s 2H4s<1")])


def robbed_kong() -> HandRecord:
    # seat 1 pongs the dealer's 9p, later draws the fourth and adds it (明杠); seat 2,
    # waiting on 6p / 9p, robs it: 抢杠胡. (Seat 2 let the dealer's 9p pass but has drawn
    # since: no 漏胡.)
    return make_hand({0: "9p3579m1357p1357s8p", 1: "9p9p123456m23p22s7s",
                      2: "123m456m789m78p55s"},
                     "0-9p 1P9p<0 1-7s 2+1s 2-1s 3+8s 3-8s 0+6s 0-6s 1+9p 1A9p 2H9p<1",
                     front="1s8s6s9p")


# seat 1 waits on 1p / 4p (pair 22s); seats 2 and 3 each hold a 4p
LOUHU_HANDS = {0: JUNK0, 1: "123456789m23p22s", 2: "4p2468m2468p246s9m",
               3: "4p1368m1368p136s9s"}


def missed_win() -> HandRecord:
    # seat 1 lets seat 2's 4p pass, then wins on seat 3's 4p without having drawn: 漏胡
    return make_hand(LOUHU_HANDS, "0-9p 1+9s 1-9s 2+8s 2-4p 3+7s 3-4p 1H4p<3",
                     front="9s8s7s")


def missed_win_then_draw() -> HandRecord:
    # the same pass, then seat 1 draws (9m) before it wins on seat 3's 4p
    return make_hand(LOUHU_HANDS, "0-9p 1+9s 1-9s 2+8s 2-4p 3+7s 3-7s 0+1s 0-1s 1+9m 1-9m "
                     "2+6s 2-6s 3+5s 3-4p 1H4p<3", front="9s8s7s1s9m6s5s")


def two_bigs_on_seat2() -> HandRecord:
    # 1122334455667m + 7m: 七小对 and 清一色
    return make_hand({0: "13579m13579p1359s", 1: "1122334455667m", 2: "7m2468m2468p246s9m"},
                     "0-9p 1+9s 1-9s 2+8s 2-7m 1H7m<2", front="9s8s")


def openings_then_small() -> HandRecord:
    # seat 1 shows 四喜 (1111m) and 六六顺 (222p 333s); seat 2 later self-draws a 小胡
    rec = make_hand({0: "3579m135789p1579s", 1: "1111m222p333s99p6s",
                     2: "456m789m234p23s55s"}, "0-9p 1+8m 1-8m 2+4s 2H4s", front="8m4s")
    return _with(rec, before=[SmallWin(1, "four_of_a_kind", _tiles("1111m")),
                              SmallWin(1, "two_triplets", _tiles("222p333s"))])


def two_openings_bird_on_dealer() -> HandRecord:
    # seats 1 (四喜) and 3 (六六顺) declare; seat 2 self-draws; the bird 1s counts to seat 0
    rec = make_hand({0: "3579m135789p1579s", 1: "1111m222p333s99p6s",
                     2: "456m789m234p23s55s", 3: "44m66m11p666p888p4s"},
                    "0-9p 1+8m 1-8m 2+4s 2H4s", front="8m4s1s")
    return _with(rec, before=[SmallWin(1, "four_of_a_kind", _tiles("1111m")),
                              SmallWin(3, "two_triplets", _tiles("666p888p"))],
                 after=[Bird(_tiles("1s"))])


def two_winners_on_seat2() -> HandRecord:
    # 通炮: seats 1 and 3 both wait on 4p and win on seat 2's 4p
    return make_hand({0: JUNK0, 1: SMALL, 2: "4p2468m2468p246s9m", 3: "567m23p456s789s55s"},
                     "0-9p 1+9s 1-9s 2+8s 2-4p 1H4p<2 3H4p<2", front="9s8s")


def _to_the_last_tile(hands: dict[int, str], back: str, turns: int, first: str
                      ) -> HandRecord:
    """The dealer discards ``first``, then ``turns`` turns each draw and discard the next
    front tile (the wall holds 55 tiles: after 54 turns only the last one is left)."""
    rec = make_hand(hands, "", back=back)
    return replace(rec, events=parse_events(f"0-{first} " + draw_and_discard(rec, 1, turns)))


SEABED_HANDS = {0: "3579m135789p1579s", 3: "456m789m234p23s55s"}


def seabed_win() -> HandRecord:
    # seat 3 takes the last tile, 4s, and wins on it: 海底捞月; 4s is the bird (seat 3)
    rec = _to_the_last_tile(SEABED_HANDS, "4s", 54, "9p")
    return _with(rec, after=[Seabed(3, True), Draw(3, Tile.S4), Win(3, Tile.S4),
                             Bird(_tiles("4s"))])


def seabed_taken() -> HandRecord:
    # seat 3 declines the last tile (9s), seat 0 takes it and shows it; nobody wins
    rec = _to_the_last_tile(SEABED_HANDS, "9s", 54, "9p")
    return _with(rec, after=[Seabed(3, False), Seabed(0, True), Draw(0, Tile.S9),
                             Discard(0, Tile.S9), ExhaustiveDraw()])


def seabed_declined() -> HandRecord:
    rec = _to_the_last_tile(SEABED_HANDS, "9s", 54, "9p")
    return _with(rec, after=[Seabed(3, False), Seabed(0, False), Seabed(1, False),
                             Seabed(2, False), ExhaustiveDraw()])


def seabed_replacement() -> HandRecord:
    # seat 2 draws the fourth 9p with two tiles left, konged it (暗杠) and its replacement
    # is the last tile (5s): 「海底牌被补」, nobody wins
    rec = _to_the_last_tile({0: "3579m135788p1579s", 2: "999p456m234p23s5s7m"}, "5s9p", 53,
                            "8p")
    return _with(rec, after=parse_events("2+9p 2C9p 2+5s 2-5s X"))


TONG_HANDS = {0: "3579m135789p44s57s", 1: "456789m234p23s55s", 2: "123456789p23s88s",
              3: "1112345m66p77p9p4s"}  # seats 1 and 2 wait on 1s / 4s


def seabed_discard_two_winners() -> HandRecord:
    # seat 3, first offered, takes the last tile (4s), cannot win and shows it: seats 1 and
    # 2 both win on it (海底炮, 通炮); 4s is the bird
    rec = _to_the_last_tile(TONG_HANDS, "4s", 54, "9p")
    return _with(rec, after=[Seabed(3, True), Draw(3, Tile.S4), Discard(3, Tile.S4),
                             Win(1, Tile.S4, 3), Win(2, Tile.S4, 3), Bird(_tiles("4s"))])


def _sd(reason: str, winner: int, pays: dict[int, int]) -> tuple[Item, ...]:
    """A self-draw's items: each payer in turn order after the winner."""
    return tuple((p, winner, pays[p], reason) for p in ((winner + k) % 4 for k in (1, 2, 3)))


CASES = [
    # 小胡自摸「庄家自摸，闲家每人输20分」
    Case("small_self_draw_dealer", small_self_draw_dealer(), (60, -20, -20, -20),
         _sd("small_win", 0, {1: 20, 2: 20, 3: 20}), 0, NO_BIRDS),
    # 「闲家自摸，庄家输20分，闲家输10分」
    Case("small_self_draw", small_self_draw(), (-20, 40, -10, -10),
         _sd("small_win", 1, {2: 10, 3: 10, 0: 20}), 1, NO_BIRDS),
    # 小胡捉炮「点炮方输10分」
    Case("small_discard", small_on_seat2(), (0, 10, -10, 0), ((2, 1, 10, "small_win"),), 1,
         NO_BIRDS),
    # 「如果点炮方为庄家，则庄家多输10分」
    Case("small_discard_by_dealer", small_on_dealer(), (-20, 20, 0, 0),
         ((0, 1, 10, "small_win"), (0, 1, 10, "dealer_extra")), 1, NO_BIRDS),
    # 「如果捉炮方为庄家，点炮的闲家多输10分」
    Case("small_discard_to_dealer", dealer_small_on_seat3(), (20, 0, 0, -20),
         ((3, 0, 10, "small_win"), (3, 0, 10, "dealer_extra")), 0, NO_BIRDS),
    # 大胡自摸「庄家自摸，闲家每人输40分」
    Case("big_self_draw_dealer", big_self_draw_dealer(), (120, -40, -40, -40),
         _sd("big_win", 0, {1: 40, 2: 40, 3: 40}), 0, NO_BIRDS),
    # 「闲家自摸，庄家输40分，闲家输30分」
    Case("big_self_draw", big_self_draw(), (-40, 100, -30, -30),
         _sd("big_win", 1, {2: 30, 3: 30, 0: 40}), 1, NO_BIRDS),
    # 大胡捉炮「点炮方输60分」
    Case("big_discard", big_on_seat2(), (0, 60, -60, 0), ((2, 1, 60, "big_win"),), 1,
         NO_BIRDS),
    # 「如果点炮方为庄家，则庄家多输10分」: 60 + 10
    Case("big_discard_by_dealer", big_on_dealer(), (-70, 70, 0, 0),
         ((0, 1, 60, "big_win"), (0, 1, 10, "dealer_extra")), 1, NO_BIRDS),
    # 大胡捉炮「点炮方输60分」「如果捉炮方为庄家，点炮的闲家多输10分」: the dealer's 七小对 on
    # seat 3's 7s: 60 + 10
    Case("big_discard_to_dealer", big_to_dealer(), (70, 0, 0, -70),
         ((3, 0, 60, "big_win"), (3, 0, 10, "dealer_extra")), 0, NO_BIRDS),
    # 「小胡和大胡之间按照大胡计算」: 123m 456m 789m 234m 55m is a 小胡 (2-5-8 pair) and 清一色:
    # one 大胡 on a discard, 60 (no 小胡 10 beside it, not two 大胡)
    Case("small_with_big_is_big", pure_suit_258_on_seat2(), (0, 60, -60, 0),
         ((2, 1, 60, "big_win"),), 1, NO_BIRDS),
    # 天胡「庄家起牌后，即已经胡牌」, a 大胡 (its 小胡 shape counts as the 大胡) self-drawn by
    # the dealer「庄家自摸，闲家每人输40分」
    Case("heavenly", heavenly(), (120, -40, -40, -40),
         _sd("big_win", 0, {1: 40, 2: 40, 3: 40}), 0, NO_BIRDS),
    # 地胡「当庄家打出第一张牌时给闲家点炮」, a 大胡 on the dealer's discard: 60 「如果点炮方为
    # 庄家，则庄家多输10分」 + 10
    Case("earthly", earthly(), (-70, 70, 0, 0),
         ((0, 1, 60, "big_win"), (0, 1, 10, "dealer_extra")), 1, NO_BIRDS),
    # 杠上开花「如果玩家因为补的牌胡了算杠上开花」, a 大胡 self-draw by a non-dealer「闲家自摸，
    # 庄家输40分，闲家输30分」
    Case("kong_bloom", kong_bloom(), (-40, 100, -30, -30),
         _sd("big_win", 1, {2: 30, 3: 30, 0: 40}), 1, NO_BIRDS),
    # 杠上炮「如果有其他玩家胡了打出的该补牌则算杠上炮，属大胡」: seat 1 pays 60 (no dealer)
    Case("kong_discard", kong_discard(), (0, -60, 60, 0), ((1, 2, 60, "big_win"),), 2,
         NO_BIRDS),
    # 抢杠胡「只有明杠可以抢胡」, a 大胡 paid like one on a discard by the seat whose kong is
    # robbed (not in the seed text): seat 1 pays 60
    Case("robbed_kong", robbed_kong(), (0, -60, 60, 0), ((1, 2, 60, "big_win"),), 2,
         NO_BIRDS),
    # 「大胡之间可以累计计算（算加法）」: 七小对 + 清一色 on a discard = 2 x 60
    Case("big_wins_add", two_bigs_on_seat2(), (0, 120, -120, 0), ((2, 1, 120, "big_win"),), 1,
         NO_BIRDS),
    # 「小胡和小胡之间能组合累计（如四喜+六六顺）」「四喜计分等同小胡自摸」: seat 1's two
    # 起手小胡 are two 小胡 self-draws by a non-dealer (dealer 20, others 10, each twice);
    # then seat 2's 小胡 self-draw (dealer 20, others 10). Seat 0: -40 -20 = -60; seat 1:
    # +80 -10 = +70; seat 2: -20 +40 = +20; seat 3: -20 -10 = -30.
    Case("opening_wins_add", openings_then_small(), (-60, 70, 20, -30),
         (*_sd("opening_win", 1, {2: 10, 3: 10, 0: 20}) * 2,
          *_sd("small_win", 2, {3: 10, 0: 20, 1: 10})), 2, NO_BIRDS),
    # 扎鸟「点炮时，鸟如果扎在胡牌方或点炮方，即为中鸟，点炮人出双倍分数」: bird 2p, rank 2
    # from the dealer = seat 1 (the winner): 10 x 2
    Case("bird_on_discard_winner", small_on_seat2("2p"), (0, 20, -20, 0),
         ((2, 1, 10, "small_win"), (2, 1, 10, "bird")), 1),
    # bird 3p: rank 3 = seat 2, the discarder: 10 x 2
    Case("bird_on_discarder", small_on_seat2("3p"), (0, 20, -20, 0),
         ((2, 1, 10, "small_win"), (2, 1, 10, "bird")), 1),
    # bird 4m: rank 4 = seat 3, neither side: no doubling
    Case("bird_elsewhere", small_on_seat2("4m"), (0, 10, -10, 0), ((2, 1, 10, "small_win"),),
         1),
    # 「自摸时，鸟如果扎在胡牌方，即所有玩家给双倍分数」: bird 2m = seat 1, the winner
    Case("bird_on_self_drawer", small_self_draw("2m"), (-40, 80, -20, -20),
         ((2, 1, 10, "small_win"), (2, 1, 10, "bird"), (3, 1, 10, "small_win"),
          (3, 1, 10, "bird"), (0, 1, 20, "small_win"), (0, 1, 20, "bird")), 1),
    # 「如果扎在别的玩家，只此一玩家给双倍分数」: bird 3s = seat 2 pays 10 x 2 alone
    Case("bird_on_one_payer", small_self_draw("3s"), (-20, 50, -20, -10),
         ((2, 1, 10, "small_win"), (2, 1, 10, "bird"), (3, 1, 10, "small_win"),
          (0, 1, 20, "small_win")), 1),
    # two birds (changsha-birds2), 2p = seat 1 and 3p = seat 2: both hit, the payment is
    # doubled twice (not in the seed text: bird_multiplier per hit): 10 x 4 = 10 + 30
    Case("two_birds_hit", small_on_seat2("2p3p"), (0, 40, -40, 0),
         ((2, 1, 10, "small_win"), (2, 1, 30, "bird")), 1, {"birds": 2}),
    # 「点炮时，鸟如果扎在胡牌方或点炮方…点炮人出双倍分数」「被扎的玩家赢输计分翻倍」: the
    # dealer's 七小对 on seat 3's 7s, bird 1m (rank 1: seat 0, the winner): (60 + 10) x 2,
    # the dealer's 10 doubled too
    Case("bird_doubles_dealer_extra", big_to_dealer("1m"), (140, 0, 0, -140),
         ((3, 0, 60, "big_win"), (3, 0, 10, "dealer_extra"), (3, 0, 70, "bird")), 0),
    # changsha-birds4 (four birds; not in the seed text: x 2 per hit): 2p = seat 1 (the
    # winner), 3p = seat 2 (the discarder), 6m = seat 1 again, 4m = seat 3 (no hit):
    # three hits, 10 x 8 = 10 + 70
    Case("four_birds_three_hit", small_on_seat2("2p3p6m4m"), (0, 80, -80, 0),
         ((2, 1, 10, "small_win"), (2, 1, 70, "bird")), 1, ruleset="changsha-birds4"),
    # four birds on a self-draw by seat 1: 3s and 7p = seat 2, 5p = seat 0, 4m = seat 3,
    # none on the winner: seat 2 pays 10 x 4, seat 3 10 x 2, the dealer 20 x 2.
    # Seat 1: 40 + 20 + 40 = +100
    Case("four_birds_self_draw", small_self_draw("3s7p5p4m"), (-40, 100, -40, -20),
         ((2, 1, 10, "small_win"), (2, 1, 30, "bird"), (3, 1, 10, "small_win"),
          (3, 1, 10, "bird"), (0, 1, 20, "small_win"), (0, 1, 20, "bird")), 1,
         ruleset="changsha-birds4"),
    # 「如果海底胡，即以海底为牌为鸟」: 海底捞月 (大胡) by seat 3 on 4s; 4s is the bird, rank
    # 4 = seat 3, the winner: dealer 40 x 2, others 30 x 2. 「谁胡牌，下局谁做庄」: seat 3
    Case("seabed_win_bird", seabed_win(), (-80, -60, -60, 200),
         ((0, 3, 40, "big_win"), (0, 3, 40, "bird"), (1, 3, 30, "big_win"),
          (1, 3, 30, "bird"), (2, 3, 30, "big_win"), (2, 3, 30, "bird")), 3),
    # 「如果有人要了海底牌后却没人胡则要海底牌的玩家下局当庄家」: seat 0
    Case("seabed_taker_deals", seabed_taken(), (0, 0, 0, 0), (), 0),
    # 「如果四个玩家都不要海底牌，则下轮由第一个可以选择海底牌的玩家当庄家」: seat 3
    Case("seabed_first_offered_deals", seabed_declined(), (0, 0, 0, 0), (), 3),
    # 「如果此局无海底牌（即海底牌被补），则补海底牌的玩家下局当庄家」: seat 2
    Case("seabed_replacement_deals", seabed_replacement(), (0, 0, 0, 0), (), 2),
    # 「如果出现通炮情况，则下轮由放炮玩家当庄家」: seat 2 pays 10 to each winner, deals
    Case("two_winners", two_winners_on_seat2(), (0, 10, -20, 10),
         ((2, 1, 10, "small_win"), (2, 3, 10, "small_win")), 2, NO_BIRDS),
    # 海底炮「如果甲玩家要了海底，而又不能胡牌；乙玩家…可以胡这海底牌…同样如果丙和丁能胡则
    # 通胡」: seats 1 and 2 each win a 大胡 (海底炮; the 小胡 counts as it) on the 4s seat 3
    # took and showed, 60 each from seat 3 (the dealer is neither side: no extra). The bird
    # is the 海底 tile「如果海底胡，即以海底为牌为鸟」: 4s, rank 4 = seat 3, the discarder of
    # both wins: each 60 x 2. The next dealer is seat 3 by 「如果出现通炮情况，则下轮由放炮
    # 玩家当庄家」 (seat 3 showed the tile both won on); 「要了海底牌后却没人胡」 needs nobody
    # to win, and 「谁胡牌，下局谁做庄」 gives way to 通炮's rule
    Case("seabed_discard_two_winners", seabed_discard_two_winners(), (0, 120, 120, -240),
         ((3, 1, 60, "big_win"), (3, 1, 60, "bird"), (3, 2, 60, "big_win"),
          (3, 2, 60, "bird")), 3),
    # 漏胡「在玩家摸牌前禁止炮胡，摸牌后一切正常」: seat 1 let seat 2's 4p pass, drew 9m, then
    # wins on seat 3's 4p: legal, seat 3 pays 10
    Case("missed_win_cleared_by_a_draw", missed_win_then_draw(), (0, 10, 0, -10),
         ((3, 1, 10, "small_win"),), 1, NO_BIRDS),
    # 「如果起手后，出现2个或2个以上的玩家胡…则中鸟的玩家下局当庄家」: seats 1 and 3 declare
    # (each a non-dealer's 小胡 self-draw: dealer 20, others 10); seat 2 self-draws a 小胡
    # (dealer 20, others 10) and the bird 1s (rank 1: seat 0) doubles the dealer's 20.
    # Seat 0: -20 -20 -40 = -80; seat 1: +40 -10 -10 = +20; seat 2: -10 -10 +60 = +40;
    # seat 3: -10 +40 -10 = +20. The bird's seat 0 deals next, not the winner.
    Case("two_openings_bird_deals", two_openings_bird_on_dealer(), (-80, 20, 40, 20),
         (*_sd("opening_win", 1, {2: 10, 3: 10, 0: 20}),
          *_sd("opening_win", 3, {0: 20, 1: 10, 2: 10}),
          (3, 2, 10, "small_win"), (0, 2, 20, "small_win"), (0, 2, 20, "bird"),
          (1, 2, 10, "small_win")), 0),
]


def _recorded(case: Case) -> HandRecord:
    items = tuple(RecordedItem(p, q, a, r) for p, q, a, r in case.items)
    return replace(case.record, result=RecordedResult(case.deltas, case.next_dealer, items))


def _audit(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every case as a game of one file, audited by one ``zhuoji audit --json``."""
    path = tmp_path_factory.mktemp("changsha") / "cases.jsonl"
    write_games(path, [game_from_records([_recorded(c)], game_id=c.name, ruleset=c.ruleset,
                                         rule_overrides=c.overrides) for c in CASES])
    code, out = _audit("--json", str(path))
    found = {row["game_id"]: row for row in map(json.loads, out.splitlines())}
    assert code == 0, [r["violations"] for r in found.values() if r["violations"]]
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_recomputed_ledger_is_the_seed_rule(case: Case,
                                                rows: dict[str, dict[str, Any]]) -> None:
    row = rows[case.name]
    assert row["violations"] == []
    assert row["deltas"] == list(case.deltas) == row["recorded_deltas"]
    assert [(i["payer"], i["payee"], i["amount"], i["reason"]) for i in row["ledger"]] == list(
        case.items)
    assert row["next_dealer"] == case.next_dealer


def test_a_wrong_record_is_named_item_by_item(tmp_path: Path) -> None:
    """A server that forgot the bird and kept the dealer: score, item and dealer findings."""
    case = next(c for c in CASES if c.name == "bird_on_discarder")
    wrong = replace(case.record, result=RecordedResult(
        (0, 10, -10, 0), 0, (RecordedItem(2, 1, 10, "small_win"),)))
    path = tmp_path / "wrong.json"
    write_games(path, [game_from_records([wrong], game_id="wrong", ruleset="changsha")])
    code, out = _audit("--json", str(path))
    assert code == 1
    (row,) = map(json.loads, out.splitlines())
    assert [v["code"] for v in row["violations"]] == [
        "score_mismatch", "item_mismatch", "dealer_mismatch"]
    assert ("seat 2 -> seat 1 bird 扎鸟: recomputed 10, missing from the record"
            in row["violations"][1]["message"])
    code, text = _audit("--hand", "1", str(path))
    lines = text.splitlines()
    assert "  bird 扎鸟: 10" in lines and "  small_win 小胡: 10" in lines
    assert "birds: 3p to seat 2 (p2)" in lines
    assert any(line.startswith("  seat 2 (p2) -> seat 1 (p1) bird 扎鸟: the rules give 10")
               for line in lines), text
    code, zh = _audit("--hand", "1", "--lang", "zh", str(path))
    assert "座位2（p2）付座位1（p1） 10：扎鸟（中鸟 1 次：× 2）" in zh, zh
    code, zh_json = _audit("--json", "--lang", "zh", str(path))
    (row,) = map(json.loads, zh_json.splitlines())
    assert [i["detail_zh"] for i in row["ledger"]] == ["小胡，捉座位2的炮", "中鸟 1 次：× 2"]


def test_the_opening_wins_and_birds_in_the_hand_json(rows: dict[str, dict[str, Any]]) -> None:
    row = rows["two_openings_bird_deals"]
    assert row["small_wins"] == [
        {"seat": 1, "kind": "four_of_a_kind", "tiles": ["1m", "1m", "1m", "1m"]},
        {"seat": 3, "kind": "two_triplets", "tiles": ["6p", "6p", "6p", "8p", "8p", "8p"]}]
    assert row["wall"]["birds"] == [{"tile": "1s", "seat": 0}]
    # seat 2's 小胡 self-draw: 10 + 20 + 10 before the bird
    assert row["winners"][0]["scored"] == ["small"] and row["winners"][0]["value"] == 40


@pytest.mark.parametrize(("name", "scored"), [
    ("small_with_big_is_big", ["pure_suit"]),  # 「小胡和大胡之间按照大胡计算」: no ``small``
    ("big_discard_to_dealer", ["seven_pairs"]),
    ("heavenly", ["heavenly"]),
    ("earthly", ["earthly"]),
    ("kong_bloom", ["kong_bloom"]),
    ("kong_discard", ["kong_discard"]),
    ("robbed_kong", ["robbing_kong"]),
    ("missed_win_cleared_by_a_draw", ["small"]),
])
def test_the_scored_patterns(name: str, scored: list[str],
                             rows: dict[str, dict[str, Any]]) -> None:
    """Each win scores its 大胡 alone (a 小胡 shape beside one is not scored)."""
    (winner,) = rows[name]["winners"]
    assert winner["scored"] == scored


def test_the_two_seabed_discard_winners(rows: dict[str, dict[str, Any]]) -> None:
    row = rows["seabed_discard_two_winners"]
    # each 大胡 on seat 3's tile: 60 before the bird
    assert [(w["seat"], w["scored"], w["value"]) for w in row["winners"]] == [
        (1, ["seabed_discard"], 60), (2, ["seabed_discard"], 60)]
    assert row["wall"]["birds"] == [{"tile": "4s", "seat": 3}]


def test_a_missed_win_is_fatal(tmp_path: Path) -> None:
    """漏胡「如果玩家漏掉了炮胡，则在玩家摸牌前禁止炮胡…只对该玩家漏胡的那牌有效」: seat 1 lets
    seat 2's 4p pass and wins on seat 3's 4p before drawing: ``missed_win``, fatal (the hand
    is not settled). The same win after a draw is ``missed_win_cleared_by_a_draw``."""
    path = tmp_path / "louhu.json"
    write_games(path, [game_from_records([missed_win()], game_id="g", ruleset="changsha",
                                         rule_overrides=NO_BIRDS)])
    code, out = _audit("--json", str(path))
    assert code == 1
    (row,) = map(json.loads, out.splitlines())
    (finding,) = row["violations"]
    assert (finding["code"], finding["seat"], finding["event_index"], finding["fatal"]) == (
        "missed_win", 1, 7, True)
    assert "seat 2, event 4" in finding["message"]
    assert row["outcome"] == "incomplete" and row["ledger"] is None


def test_the_hand_json_has_no_chicken_keys(rows: dict[str, dict[str, Any]]) -> None:
    """Chickens, the flip and a win's penalty are Guizhou's: a Changsha hand's object has
    none of them (a Guizhou hand's keeps them, tests/flows/test_cli_audit.py)."""
    for row in rows.values():
        assert not {"chickens", "flip"} & row.keys()
        assert all("penalty" not in w for w in row["winners"])
        assert {"ledger", "deltas", "winners", "wall"} <= row.keys()


def test_the_text_view_of_a_hand_with_opening_wins(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.name == "two_openings_bird_deals")
    path = tmp_path / "g.json"
    write_games(path, [game_from_records([_recorded(case)], game_id="g", ruleset="changsha")])
    code, text = _audit("--hand", "1", str(path))
    assert code == 0, text
    lines = text.splitlines()
    assert ("opening small wins: seat 1 (p1) four_of_a_kind 四喜, seat 3 (p3) two_triplets 六六顺"
            in lines), text
    assert "  opening_win 起手小胡: 80" in lines
    assert "  next dealer: seat 0 (p0) (two or more players won on the dealt hands: the bird's "\
        "seat)" in lines
    code, zh = _audit("--hand", "1", "--lang", "zh", str(path))
    assert "<reason" not in zh and "起手小胡：座位1（p1）四喜、座位3（p3）六六顺" in zh, zh


def test_ingest_reports_and_a_hand_page(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Changsha games load into the warehouse, the reports run on them and the
    dashboard's page of the disputed hand shows its ledger reasons and its bird."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    case = next(c for c in CASES if c.name == "bird_on_discarder")
    wrong = replace(case.record, result=RecordedResult(
        (0, 10, -10, 0), 0, (RecordedItem(2, 1, 10, "small_win"),)))
    logs = tmp_path / "logs"
    logs.mkdir()
    write_games(logs / "changsha.jsonl", [
        *(game_from_records([_recorded(c)], game_id=c.name, ruleset="changsha",
                            rule_overrides=c.overrides) for c in CASES[:4]),
        game_from_records([wrong], game_id="wrong", ruleset="changsha")])
    db = tmp_path / "w.duckdb"
    result = runner.invoke(app, ["ingest", str(logs), "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.splitlines()[-1])
    assert (summary["games"], summary["hands"], summary["violations"]) == (5, 5, 0)
    result = runner.invoke(app, ["report", "disputed_hands", "--db", str(db), "-f", "json"])
    assert result.exit_code == 0, result.output
    (disputed,) = json.loads(result.output)
    assert disputed["game_id"] == "wrong"
    assert disputed["codes"] == ["score_mismatch", "item_mismatch", "dealer_mismatch"]
    result = runner.invoke(app, ["sql", "SELECT reason, sum(amount) FROM ledger GROUP BY 1 "
                                 "ORDER BY 1", "--db", str(db), "-f", "csv"])
    assert result.exit_code == 0, result.output
    # small_win: 60 + 40 + 10 + 10 (the first four cases) + 10 (the wrong one's)
    assert result.output.splitlines()[1:] == [
        "bird,10", "dealer_extra,10", "small_win,130"]
    out = tmp_path / "site"
    result = runner.invoke(app, ["dashboard", "--db", str(db), "--out", str(out),
                                 "--hand-pages", "2", "--workers", "1", "-q"])
    assert result.exit_code == 0, result.output
    page = (out / "hands" / "wrong-h1.html").read_text(encoding="utf-8")
    assert "扎鸟" in page
    assert "1 bird hit: x 2" in page and "small_win" in page
    assert "中鸟 1 次：× 2" in (out / "zh" / "hands" / "wrong-h1.html").read_text(
        encoding="utf-8")
    # the hand's and its players' pages are in Changsha's words (every player here played
    # Changsha only): the replay's kong sentences, the kong chart
    for lang in ("", "zh/"):
        hand = (out / f"{lang}hands" / "wrong-h1.html").read_text(encoding="utf-8")
        player = (out / f"{lang}players" / "p1.html").read_text(encoding="utf-8")
        assert "明杠" in hand and "暗杠" in hand and "豆" not in hand
        assert "明杠" in player and "暗杠" in player and "豆" not in player
    player = (out / "players" / "p1.html").read_text(encoding="utf-8")
    assert 'kongs <span class="zh" lang="zh">杠</span>' in player
    assert ">Exposed 明杠<" in player and ">Added 明杠<" in player


SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "changsha"
GUIZHOU_WORDS = ("豆", "七对", "叫牌", "一炮多响", "过水不胡")
"""Guizhou's words (a kong 豆 and its kinds, 七对, 叫牌 ...) that Changsha says otherwise
(rules/glossary.toml, [family.changsha.*]): none is in a Changsha hand's output."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_sample_hand_reads_as_text_chows_and_all(lang: str) -> None:
    """The text of every hand of the Changsha sample games (chows, kongs, dice, 海底, birds,
    the injected faults): no crash (exit 2), and a chow shown by its three tiles."""
    seen_chow = False
    for path in sorted(SAMPLE.glob("*.json")):
        for hand in range(1, 7):
            code, text = _audit("--hand", str(hand), "--lang", lang, str(path))
            assert code in (0, 1) and "unexpected error" not in text, (path, hand, text)
            seen_chow = seen_chow or ("chow " if lang == "en" else "吃 ") in text
            for word in GUIZHOU_WORDS:  # Changsha's words for kongs and readiness
                assert word not in text, (path, hand, word, text)
    assert seen_chow
    code, text = _audit("--hand", "1", "--lang", lang, str(SAMPLE / "sim-changsha-2028-00000.json"))
    assert ("chow 456p from seat 3" if lang == "en" else "吃 456筒（来自座位3）") in text, text


def test_a_changsha_hand_page_shows_chows_and_no_chickens(tmp_path: Path) -> None:
    """``zhuoji audit --html`` of a sample hand with chows: a chow's three tiles (not four
    of its lowest), no flip and no standing chickens (Guizhou's), and attributes that hold
    plain text (no markup inside an ``aria-label``)."""
    out = tmp_path / "h.html"
    code, text = _audit("--hand", "1", "--html", str(out),
                        str(SAMPLE / "sim-changsha-2028-00000.json"))
    assert code == 0, text
    page = out.read_text(encoding="utf-8")
    melds = re.findall(r'<span class="meld" title="chow">(.*?)<span class="kind">', page)
    assert melds, page
    for meld in melds:
        tiles = re.findall(r'title="(\d[mps]) ', meld)
        assert len(tiles) == 3 and len(set(tiles)) == 3, meld
    assert "Flipped tile" not in page and "Standing" not in page
    assert not re.search(r'aria-label="[^"]*<', page)


@pytest.mark.parametrize(("path", "hand", "en", "zh"), [
    ("sim-changsha-2028-00000.json", 1, "concealed kong 暗杠 9p", "暗杠 9筒"),
    ("sim-changsha-2028-00000.json", 3, "added kong 明杠 8s from seat 1", "明杠 8条（来自座位1）"),
    ("sim-changsha-2028-00001.json", 3, "exposed kong 明杠 3p from seat 3",
     "明杠 3筒（来自座位3）"),
], ids=["concealed", "added", "exposed"])
def test_a_changsha_hand_says_ming_and_an_kong(path: str, hand: int, en: str, zh: str) -> None:
    """「暗杠不能抢杠胡，只有明杠可以抢胡」: an exposed kong and an added one (the one that can
    be robbed) are 明杠, a concealed one 暗杠, in the English text (beside the English) and
    in the Chinese; Guizhou's 点豆, 转弯豆, 闷豆 (豆) never."""
    code, text = _audit("--hand", str(hand), str(SAMPLE / path))
    melds = [line for line in text.splitlines() if line.startswith("      melds: ")]
    assert any(en in line for line in melds), text
    assert code in (0, 1) and "豆" not in text
    code, text = _audit("--hand", str(hand), "--lang", "zh", str(SAMPLE / path))
    melds = [line for line in text.splitlines() if line.startswith("      副露：")]
    assert any(zh in line for line in melds), text
    assert code in (0, 1) and "豆" not in text


def test_a_changsha_finding_and_its_json_say_qi_xiao_dui(tmp_path: Path) -> None:
    """A 小胡 without its 2-5-8 pair (``no_258_pair``): the big shapes that take any pair
    are named in Changsha's words, 七小对 (not 七对), in ``message_zh`` and in the Chinese
    text, whose seats are 未听牌 (not 未叫牌)."""
    rec = make_hand({0: JUNK0, 1: "123m456m789m23p33s"}, "0-9p 1+4p 1H4p", front="4p")
    path = tmp_path / "no258.json"
    write_games(path, [game_from_records([rec], game_id="g", ruleset="changsha")])
    code, out = _audit("--json", "--lang", "zh", str(path))
    (row,) = map(json.loads, out.splitlines())
    (finding,) = row["violations"]
    assert finding["code"] == "no_258_pair"
    assert "碰碰胡、将将胡、清一色、七小对中的任何一种" in finding["message_zh"], finding
    code, text = _audit("--hand", "1", "--lang", "zh", str(path))
    assert code == 1
    assert "清一色、七小对中的任何一种" in text and "七对" not in text and "叫牌" not in text
    assert "未听牌" in text


def test_a_changsha_hand_page_says_qi_xiao_dui_and_ming_kong(tmp_path: Path) -> None:
    """The page of a 七小对 win (``zhuoji audit --html``, the dashboard's hand page): the
    scored pattern and the ledger's detail say 七小对; the page of a hand with an added
    kong shows it (its tiles, the replay's sentence) as 明杠; no 豆, no 七对."""
    case = next(c for c in CASES if c.name == "big_self_draw")
    path = tmp_path / "seven.json"
    write_games(path, [game_from_records([_recorded(case)], game_id="g", ruleset="changsha",
                                         rule_overrides=case.overrides)])
    pages = {}
    for lang in ("en", "zh"):
        out = tmp_path / f"seven-{lang}.html"
        code, text = _audit("--hand", "1", "--html", str(out), "--lang", lang, str(path))
        assert code == 0, text
        pages[lang] = out.read_text(encoding="utf-8")
        assert "七小对" in pages[lang] and "七对" not in pages[lang]
    assert "seven_pairs 七小对" in pages["en"]
    assert '<span class="badge green">七小对</span>' in pages["zh"]
    for lang in ("en", "zh"):
        out = tmp_path / f"kong-{lang}.html"
        code, text = _audit("--hand", "3", "--html", str(out), "--lang", lang,
                            str(SAMPLE / "sim-changsha-2028-00000.json"))
        assert code == 0, text
        page = out.read_text(encoding="utf-8")
        assert '<span class="kind">明杠</span>' in page and "豆" not in page
        assert ("adds {tile} to a pong 明杠" if lang == "en" else "补杠{tile}（明杠）") in page
