"""将将胡 as the seed has it: every tile a 2, 5 or 8, pongs allowed, no sets or pair needed
(seed 003: 「玩家手上每一牌都为2、5、8,可碰」), through the core's ``extra_shapes`` hook."""

from __future__ import annotations

from tests.support.builders import make_hand
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.families.changsha.patterns import ALL_258, has_258_pair
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import counts_of, parse_tiles
from zhuoji.rules.violations import ViolationCode

RULES = resolve_ruleset("changsha", {"birds": 0})
JUNK0 = "13579m13579p1357s"  # the dealer's 14: no win, no 起手小胡 claimed
LOOSE = "22m588m2558p2258s"  # 13 tiles, all 2/5/8: no sets, not seven pairs


def test_a_hand_of_2_5_8_tiles_in_no_shape_wins_as_jiangjiang_hu() -> None:
    record = make_hand({0: JUNK0, 1: LOOSE}, "0-9p 1+8s 1H8s", front="8s")
    table = Table.from_record(make_hand({0: JUNK0, 1: LOOSE}, "0-9p", front="8s"), RULES)
    table.run(record.events[:1])
    # ready on every 2, 5 or 8 it does not hold four of (the seat waits on them all)
    assert table.is_ready(1)
    assert table.waits(1) == tuple(parse_tiles("258m258p258s"))
    audit = audit_hand(record, RULES)
    assert audit.replay.violations == ()
    (win,) = audit.replay.winners
    assert win.patterns == ("all_258",)
    # one 大胡 self-drawn by a non-dealer: the dealer pays 40, the others 30 each
    assert audit.settlement.deltas == (-40, 100, -30, -30)


def test_one_tile_that_is_not_a_2_5_or_8_is_no_win() -> None:
    hand = LOOSE.replace("2258s", "2238s")
    record = make_hand({0: JUNK0, 1: hand}, "0-9p 1+8s 1H8s", front="8s")
    (v,) = replay_hand(record, RULES).violations
    assert v.code is ViolationCode.INVALID_WIN and v.event_index == 2


def test_the_shape_takes_pongs_and_kongs_of_2_5_8_but_no_chow() -> None:
    counts = counts_of(parse_tiles("22m58m2p55p8p22s"))
    (eight,) = parse_tiles("8s")
    pong = Meld(MeldKind.PONG, eight)
    kong = Meld(MeldKind.CONCEALED_KONG, eight)
    chow = Meld(MeldKind.CHOW, parse_tiles("2m")[0])
    assert ALL_258.waits(counts, [pong]) == tuple(parse_tiles("258m258p258s"))
    assert ALL_258.waits(counts, [kong]) == tuple(parse_tiles("258m258p25s"))  # 8s all out
    assert not ALL_258.waits(counts, [chow])
    assert not ALL_258.waits(counts_of(parse_tiles("22m58m2p55p8p2s")), [pong])  # 12 tiles
    full = counts_of(parse_tiles("22m58m2p55p8p22s5s"))
    assert ALL_258.complete(full, [pong]) and not ALL_258.complete(full, [chow])


def test_a_258_pair_is_found_in_any_suit_and_only_with_sets_elsewhere() -> None:
    def pair(text: str) -> bool:
        return has_258_pair(counts_of(parse_tiles(text)))

    assert pair("123m 456p 789s 234s 55s") and pair("22m") and pair("88p 111s")
    assert pair("34555m") and pair("234m 88s 567s")  # 345m 55m; 234m 567s 88s
    assert not pair("123455m")  # 55m leaves 1234m, no split
    assert not pair("123m 456p 789s 234s 11s")  # the only pair a 1
    assert not pair("22m 55p")  # two pairs
    assert not pair("123m 456p")  # no pair at all
    assert not pair("22m 4p")  # a tile left over
    # the suit's own arrangements: 2223m is 222m + 3m (no), 22m + 23m (no); 22234m is 22m 234m
    assert not pair("2223m") and pair("22234m")
