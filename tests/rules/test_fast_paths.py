"""The quick paths of hand analysis and replay give exactly what the plain paths give.

* the suit automaton behind :func:`zhuoji.rules.hand.is_complete` holds what the keyed suit
  tables compute, and counts outside 0-4 (negative ones index from the end) still make no
  hand;
* the wait trie and :func:`zhuoji.rules.hand._waiting_tiles_of_valid` agree with the keyed tables;
* :meth:`zhuoji.rules.table.Table.run` leaves the table exactly as stepping the events one by one
  does, illegal events included;
* the plain case of a draw, a discard and a pong (what ``Table.run`` applies without the
  full check) is legal whenever it holds; a draw or a pong outside it is illegal, a
  discard outside it legal only when 报听 is involved.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest

import zhuoji.rules.hand as hand
from tests.support.builders import make_hand, random_hands, test_ruleset, with_events
from tests.support.hands import uniform_hand
from zhuoji.rules.events import Discard, Draw, Event, HandRecord, KongKind, Pong
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.hand import (
    _waiting_tiles_of_valid,
    clear_tables,
    is_complete,
    is_ready,
    waiting_tiles,
)
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import HandReplay, replay_hand, replay_of_table
from zhuoji.rules.table import Table, _tiles
from zhuoji.rules.tiles import ALL_TILES, Tile, counts_of, parse_tiles, tiles_of
from zhuoji.rules.violations import ViolationCode


def c(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


# --- the suit automaton ------------------------------------------------------------------


def _walk(key: tuple[int, ...]) -> int:
    node = hand._suit_automaton()
    for count in key:
        node = node[count]
    assert isinstance(node, int)
    return node


def _expected(key: tuple[int, ...]) -> int:
    info = hand._suit_info(key)
    return info if info & hand._FLAGS else 0


def test_the_automaton_holds_the_keyed_info_of_every_small_suit() -> None:
    # every arrangement of up to five tiles, and a seeded sample of the rest
    keys = [k for k in itertools.product(range(5), repeat=9) if sum(k) <= 5]
    rng = random.Random(3)
    keys += [tuple(rng.randrange(5) for _ in range(9)) for _ in range(20_000)]
    assert len(keys) > 21_000
    bad = [k for k in keys if _walk(k) != _expected(k)]
    assert bad == []


def test_the_automaton_is_built_again_after_clear_tables() -> None:
    h = c("123m456p789s11122s")
    assert is_complete(h)
    clear_tables()
    assert hand._SUITS is None
    assert is_complete(h)
    assert hand._SUITS is not None


@pytest.mark.parametrize("text", ["123m456p789s11122s", "1133m2255p4477s99s", "11122233344455m"])
def test_a_negative_count_read_from_the_end_makes_no_hand(text: str) -> None:
    h = c(text)
    assert is_complete(h)
    for t in range(27):
        if h[t]:
            continue
        for n in range(1, 6):  # -n indexes as 5 - n: a count the walk would accept
            bad = list(h)
            bad[t] = -n
            bad[min(u for u in range(27) if h[u])] += n  # keep the sum of 14
            assert not is_complete(bad), (t, n)


def test_counts_past_the_28th_are_ignored_as_before() -> None:
    h = c("123m456p789s11122s")
    assert is_complete([*h, 0])
    assert is_complete([*h, 3])  # the keyed tables read only the first 28 counts
    wrapped = list(h)
    wrapped[8] = -5  # reads as 0 ...
    assert not is_complete([*wrapped, 5])  # ... and the extra count restores the sum


# --- waits -------------------------------------------------------------------------------


def _random_hand(rng: random.Random, melds: int) -> list[int]:
    return uniform_hand(rng, 13 - 3 * melds)


def test_waits_of_valid_hands_agree_with_the_keyed_tables() -> None:
    rng = random.Random(8)
    ready = 0
    for i in range(3_000):
        melds = i % 5
        h = _random_hand(rng, melds) if i % 3 else c("1112345678999m")
        if i % 3 == 1:  # a near-complete hand, one tile short
            h = c(rng.choice(["23456m111p222p33s", "1133m2255p4477s9s", "123m456p789s45s11s"]))
            melds = 0
        keyed = hand._wait_masks_keyed(h, melds)
        want = hand._MASK_TILES[0][keyed[0]] + hand._MASK_TILES[1][keyed[1]] + (
            hand._MASK_TILES[2][keyed[2]])
        assert waiting_tiles(h, melds) == want
        assert _waiting_tiles_of_valid(h, melds) == want
        assert is_ready(h, melds) is bool(want)
        ready += bool(want)
    assert ready > 1_000


def test_a_negative_count_read_from_the_end_has_no_waits() -> None:
    h = c("1112345678999m")
    assert waiting_tiles(h) == tuple(parse_tiles("123456789m"))
    bad = list(h)
    bad[9] = -5  # 1p reads as 0
    bad[0] += 5
    assert waiting_tiles(bad) == ()
    assert not is_ready(bad)


def test_concealed_tiles_of_a_table_hand() -> None:
    rng = random.Random(4)
    for _ in range(500):
        h = _random_hand(rng, rng.randrange(5))
        h[27] = rng.randrange(3)
        assert _tiles(h) == tuple(tiles_of(h))
    assert _tiles([0] * 28) == ()


# --- Table.run against stepping ------------------------------------------------------------


def _replays(record: HandRecord, ruleset: Ruleset) -> tuple[HandReplay, HandReplay]:
    """The hand replayed by ``Table.run`` and by ``Table.step`` one event at a time."""
    run = replay_hand(record, ruleset, keep_table=True)
    table = Table.from_record(record, ruleset)
    fatal = None
    for event in record.events:
        fatal = table.step(event)
        if fatal is not None:
            break
    else:
        fatal = table.finish()
    return run, replay_of_table(record, table, fatal, keep_table=True)


def _state(replay: HandReplay) -> tuple[object, ...]:
    t = replay.table
    assert t is not None
    return (t.phase, t.turn, t.event_index, t.wall_left, t.kongs(), t.chicken_discards(),
            t.robbed_tiles, [(t.counts(s), t.melds(s), t.discards(s), t.is_frozen(s),
                              t.waits(s)) for s in range(t.n_players)])


def _mutations(rng: random.Random, events: tuple[Event, ...]) -> list[tuple[Event, ...]]:
    """Illegal variants: an event dropped, repeated, moved, or given another seat or tile."""
    out = []
    for _ in range(4):
        e: list[Any] = list(events)
        i = rng.randrange(len(e))
        kind = rng.randrange(5)
        if kind == 0:
            del e[i]
        elif kind == 1:
            e.insert(i, e[i])
        elif kind == 2:
            j = rng.randrange(len(e))
            e[i], e[j] = e[j], e[i]
        elif kind == 3 and hasattr(e[i], "seat"):
            e[i] = dataclasses.replace(e[i], seat=rng.choice([-1, 0, 1, 2, 3, 4]))
        elif hasattr(e[i], "tile"):
            e[i] = dataclasses.replace(e[i], tile=rng.choice(ALL_TILES))
        out.append(tuple(e))
    return out


@pytest.mark.parametrize("preset", ["guiyang", "an-majiang", "guiyang-3p"])
def test_run_leaves_the_table_as_stepping_does(preset: str) -> None:
    ruleset = load_preset(preset)
    rng = random.Random(preset)
    records = random_hands(77, 25, ruleset)
    compared = fatal = 0
    for record in records:
        variants = [record.events, *_mutations(rng, record.events)]
        for events in variants:
            for wall in (record.wall, None):
                r = dataclasses.replace(record, events=events, wall=wall)
                run, stepped = _replays(r, ruleset)
                assert run == stepped
                assert _state(run) == _state(stepped)
                compared += 1
                fatal += run.fatal is not None
    assert compared == 25 * 5 * 2 and fatal > 40


# --- seats that are not at the table -------------------------------------------------------

DEAL = {
    0: "258m125999p13467s",
    1: "111333555777m2p",  # waiting on 2p: it may declare ready on its dealt hand
    2: "234789m23p456s99s",
    3: "1669m2678p23588s",
}


def test_a_seat_not_at_the_table_cannot_discard_while_the_seat_to_act_is_frozen() -> None:
    # seat 1 declares ready on its dealt hand (frozen at once), then draws: no seat may
    # discard without the full check, and seat -1 is no seat at all (read as an index,
    # it would be seat 3, which holds a 6p)
    record = make_hand(DEAL, "1R 0-9p", front="4p")
    tail: list[Event] = [Draw(1, Tile.P4), Discard(-1, Tile.P6)]
    result = replay_hand(with_events(record, [*record.events, *tail]), test_ruleset())
    assert result.fatal is not None
    assert result.fatal.code is ViolationCode.OUT_OF_TURN
    assert result.fatal.seat == -1
    assert "no seat -1" in result.fatal.message


def test_a_seat_not_at_the_table_cannot_draw_while_no_draw_is_due() -> None:
    record = make_hand(DEAL, "", front="4p")
    result = replay_hand(with_events(record, [Draw(-1, Tile.P4)]), test_ruleset())
    assert result.fatal is not None
    assert result.fatal.code is ViolationCode.OUT_OF_TURN
    assert result.fatal.event_index == 0


def test_a_pong_then_an_added_kong_and_its_replacement_draw_through_run() -> None:
    record = make_hand(
        {0: "5p147m258s369s1478p", 1: "3369m5569p24789s", 3: "46p123m456m789s11s"},
        "0-5p 1P5p<0 1-9s 2+1m 2-1m 3+2m 3-2m 0+3m 0-3m 1+5p 1A5p 1+8s 1-8s",
        front="1m2m3m5p4m", back="8s")
    run, stepped = _replays(record, test_ruleset())
    assert run == stepped
    # every event legal; the log just stops mid-hand
    assert [v.code for v in run.violations] == [ViolationCode.PREMATURE_END]
    table = run.table
    assert table is not None
    assert table.event_index == len(record.events)
    (kong,) = table.kongs()
    assert kong.kind is KongKind.ADDED and kong.replacement is Tile.S8
    assert table.melds(1)[0].tile is Tile.P5
    assert table.discards(0)[0].claimed_by == 1


# --- the plain cases against the full check ------------------------------------------------


def _probes(table: Table) -> list[Event]:
    """Every draw, discard and pong a seat (one not at the table too) could try now."""
    seats = range(-1, table.n_players + 1)
    out: list[Event] = []
    for tile in ALL_TILES:
        out.extend(Draw(s, tile) for s in seats)
        out.extend(Discard(s, tile) for s in seats)
        out.extend(Pong(s, tile, f) for s in seats for f in range(table.n_players))
    return out


@pytest.mark.parametrize("preset", ["guiyang", "an-majiang", "guiyang-3p"])
def test_the_plain_case_is_legal_and_outside_it_the_check_decides(preset: str) -> None:
    ruleset = load_preset(preset)
    seen = {Draw: [0, 0], Discard: [0, 0], Pong: [0, 0]}  # plain, legal but not plain
    for record in random_hands(20261102, 12, ruleset):
        table = Table.from_record(record, ruleset)
        for event in record.events:
            for probe in _probes(table):
                plain = table.rules.kinds[type(probe)].plain(table, probe)
                legal = table.check(probe) is None
                if plain:
                    assert legal, probe
                    seen[type(probe)][0] += 1
                elif legal:
                    assert isinstance(probe, Discard), probe
                    assert table.is_frozen(probe.seat) or table.declared_ready_at(
                        probe.seat) is not None, probe
                    seen[type(probe)][1] += 1
            table.apply(event)
    assert all(plain for plain, _ in seen.values()), seen
