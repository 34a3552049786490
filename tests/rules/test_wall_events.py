"""The wall mechanics through a test family (``tests/rules/wall_family``): dice after a kong
(开杠), the offer of the last tile (海底漫游) and birds (扎鸟), legal and illegal hands
through the table and the replay; a Guizhou table rejects each of the three events."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping

import pytest

from tests.rules.wall_family import WallRuleset, wall_ruleset
from tests.support.builders import parse_event
from zhuoji.rules.events import Bird, Event, HandRecord, Roll, Seabed
from zhuoji.rules.facts import Outcome
from zhuoji.rules.presets import load_preset
from zhuoji.rules.replay import replay_hand
from zhuoji.rules.table import Phase, Table, bird_seat, dice_stack
from zhuoji.rules.tiles import NUM_SUITED, Tile, parse_tiles
from zhuoji.rules.violations import ViolationCode

C = ViolationCode
WALL = wall_ruleset()
_SPREAD = tuple(sorted(range(NUM_SUITED), key=lambda t: ((t * 7) % NUM_SUITED, t)))
_ROLL = re.compile(r"^(\d)@(\d+),(\d+)$")
_OFFER = re.compile(r"^(\d)\$([+-])$")


def wall_event(token: str) -> Event:
    """The builders' tokens, and ``S@a,b`` (roll), ``S$+`` / ``S$-`` (seabed taken or
    declined), ``B5m,7p`` (birds; ``B`` alone: none)."""
    if m := _ROLL.match(token):
        return Roll(int(m[1]), (int(m[2]), int(m[3])))
    if m := _OFFER.match(token):
        return Seabed(int(m[1]), m[2] == "+")
    if token.startswith("B"):
        return Bird(tuple(t for part in token[1:].split(",") if part for t in parse_tiles(part)))
    return parse_event(token)


def hand(
    deal: Mapping[int, str], *, place: Mapping[int, str] | None = None, dealer: int = 0,
    known_wall: bool = True, hand_no: int = 1,
) -> HandRecord:
    """A four-player hand: the seats given are dealt those tiles, the others spread-out
    ones; ``place`` puts tiles at wall positions (negative: from the back, -1 the last)."""
    pool = [4] * NUM_SUITED
    hands: dict[int, list[Tile]] = {}
    for seat, text in deal.items():
        hands[seat] = parse_tiles(text)
        for t in hands[seat]:
            pool[t] -= 1
    size = 4 * NUM_SUITED - sum(14 if s == dealer else 13 for s in range(4))
    wall: list[Tile | None] = [None] * size
    for at, text in (place or {}).items():
        (tile,) = parse_tiles(text)
        wall[at] = tile
        pool[tile] -= 1
    assert min(pool) >= 0, "more than the full set"
    rest = [Tile(t) for _ in range(4) for t in _SPREAD]
    spare: list[Tile] = []
    for t in rest:
        if pool[t]:
            pool[t] -= 1
            spare.append(t)
    for seat in range(4):
        if seat not in hands:
            n = 14 if seat == dealer else 13
            hands[seat], spare = spare[:n], spare[n:]
    filled = [w if w is not None else spare.pop(0) for w in wall]
    assert not spare
    return HandRecord(hand_no=hand_no, n_players=4, dealer=dealer, dealer_streak=0,
                      deal=tuple(tuple(hands[s]) for s in range(4)), events=(),
                      wall=tuple(filled) if known_wall else None)


def burn(record: HandRecord, first: int, count: int, start: int = 0) -> str:
    """``count`` turns from seat ``first`` on, each drawing the next front tile (from
    position ``start``) and discarding it."""
    assert record.wall is not None
    out = []
    for k in range(count):
        seat, tile = (first + k) % 4, record.wall[start + k]
        out.append(f"{seat}+{tile} {seat}-{tile}")
    return " ".join(out)


def play(record: HandRecord, events: str, ruleset: WallRuleset = WALL) -> Table:
    """The table after ``events`` (all legal)."""
    table = Table.from_record(record, ruleset)
    v = table.run([wall_event(t) for t in events.split()])
    assert v is None, v
    return table


def stop(record: HandRecord, events: str, ruleset: object = WALL) -> tuple[ViolationCode, str]:
    """The fatal violation of the last event of ``events`` (all before it legal)."""
    tokens = events.split()
    table = Table.from_record(record, ruleset)  # type: ignore[arg-type]
    assert table.run([wall_event(t) for t in tokens[:-1]]) is None
    v = table.run([wall_event(tokens[-1])])
    assert v is not None and v.fatal and v.event_index == len(tokens) - 1, v
    return v.code, v.message


def replay(record: HandRecord, events: str, ruleset: WallRuleset = WALL) -> object:
    rec = HandRecord(hand_no=record.hand_no, n_players=4, dealer=record.dealer, dealer_streak=0,
                     deal=record.deal, events=tuple(wall_event(t) for t in events.split()),
                     wall=record.wall)
    return replay_hand(rec, ruleset)


# ---------------------------------------------------------------------- counting rules
def test_the_dice_count_stacks_from_the_back_and_stop_at_the_last_stack() -> None:
    assert [dice_stack(total, 27) for total in (2, 7, 12)] == [2, 7, 12]
    assert dice_stack(3, 3) == 3
    assert dice_stack(4, 3) == 1 and dice_stack(12, 1) == 1


def test_a_bird_counts_from_the_dealer_by_its_rank() -> None:
    ranks = [bird_seat(Tile(t), 0, 4) for t in range(9)]  # 1m .. 9m
    assert ranks == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [bird_seat(Tile(t), 2, 4) for t in (9, 10, 11, 12)] == [2, 3, 0, 1]  # 1p .. 4p
    assert bird_seat(Tile.S5, 3, 4) == 3 and bird_seat(Tile.S2, 3, 3) == 1


# ---------------------------------------------------------------------- dice after a kong
READY_QUAD = {0: "5555m 123p 456p 789s 1s"}  # after the kong of 5m: waiting on 1s


def test_a_roll_counts_the_replacement_and_a_win_on_it_blooms() -> None:
    rec = hand(READY_QUAD, place={-13: "1s", 0: "7m"})
    r = replay(rec, "0C5m 0@3,4 0+1s 0H1s B7m")
    assert r.is_clean and r.outcome is Outcome.WIN, r.violations
    facts = r.wall_facts
    assert facts is not None
    (roll,) = facts.rolls
    assert (roll.seat, roll.dice, roll.event_index, roll.kong_index, roll.stack, roll.tile) == (
        0, (3, 4), 1, 0, 7, Tile.S1)
    assert r.winners[0].kong_bloom
    assert facts.birds == (Tile.M7,) and facts.bird_seats == (2,) and facts.birds_on(2) == 1
    assert facts.locked == (0,) and facts.offers == () and not facts.seabed_win


def test_without_a_roll_the_replacement_comes_from_the_back_in_order() -> None:
    rec = hand(READY_QUAD, place={-1: "9m", -13: "1s"})
    t = play(rec, "0C5m 0+9m 0-9m")
    assert t.wall_facts() is not None and t.wall_facts().rolls == ()
    assert stop(rec, "0C5m 0+1s")[0] is C.WALL_MISMATCH


def test_a_second_roll_on_the_same_stack_takes_its_bottom_tile() -> None:
    rs = wall_ruleset(mechanics={"kong_dice": True})
    rec = hand({0: "5555m 6666m 123p 789s"}, place={-13: "1s", -14: "2s", -1: "3s"})
    t = play(rec, "0C5m 0@3,4 0+1s 0C6m 0@4,3 0+2s 0-2s", rs)
    facts = t.wall_facts()
    assert facts is not None
    assert [(f.stack, f.tile) for f in facts.rolls] == [(7, Tile.S1), (7, Tile.S2)]
    assert stop(rec, "0C5m 0@3,4 0+1s 0C6m 0@4,3 0+1p", rs)[0] is C.WALL_MISMATCH
    # a kong without dice afterwards: the back in order, the counted places skipped
    assert play(rec, "0C5m 0@3,4 0+1s 0C6m 0+3s 0-3s", rs).wall_left == 55 - 2


@pytest.mark.parametrize(("dice", "stack", "at"), [((1, 1), 2, 52), ((1, 2), 1, 54),
                                                   ((6, 6), 1, 54)])
def test_dice_beyond_the_stacks_left_take_the_last_stack(
        dice: tuple[int, int], stack: int, at: int) -> None:
    # 51 turns burn the front; the dealer draws its fourth 5m at 51, three tiles are left
    # (places 52-54: two stacks, the front one holding one tile)
    rec = hand({0: "555m 123p 456p 789s 1s 2s"}, place={51: "5m", 52: "1s", 54: "1s"})
    assert rec.wall is not None
    tile = rec.wall[at]
    events = f"0-2s {burn(rec, 1, 51)} 0+5m 0C5m 0@{dice[0]},{dice[1]} 0+{tile}"
    facts = play(rec, events).wall_facts()
    assert facts is not None and facts.rolls[0].stack == stack


def test_roll_violations() -> None:
    rec = hand(READY_QUAD, place={-13: "1s"})
    assert stop(rec, "0@3,4")[0] is C.BAD_ROLL  # no kong
    assert stop(rec, "0C5m 0@0,7")[0] is C.BAD_ROLL
    assert stop(rec, "0C5m 1@3,4")[0] is C.OUT_OF_TURN
    assert stop(rec, "0C5m 0@3,4 0@3,4")[0] is C.BAD_ROLL
    code, message = stop(hand({0: "5555m 124p 456p 789s 1s"}), "0C5m 0@3,4")
    assert code is C.BAD_ROLL and "only a ready hand" in message
    # a table that lets any hand throw
    loose = wall_ruleset(mechanics={"kong_dice": True})
    assert play(hand({0: "5555m 124p 456p 789s 1s"}), "0C5m 0@3,4", loose)
    code, message = stop(rec, "0C5m 0@3,4", wall_ruleset(mechanics={"seabed": True}))
    assert code is C.EVENT_NOT_IN_FAMILY and "has no roll event" in message
    tbl = Table.from_record(rec, WALL)
    tbl.run([wall_event("0C5m")])
    assert Roll(0, (3, 4)) in tbl.legal_actions() and Roll(1, (3, 4)) not in tbl.legal_actions()


def test_after_a_roll_every_drawn_tile_is_discarded_until_the_player_wins() -> None:
    # the replacement 9m does not complete the hand: it is discarded, as are later draws
    rec = hand(READY_QUAD, place={-13: "9m", 3: "8m"})
    assert rec.wall is not None
    head = f"0C5m 0@3,4 0+9m 0-9m {burn(rec, 1, 3)}"
    code, message = stop(rec, "0C5m 0@3,4 0+9m 0-1s")
    assert code is C.LOCKED_HAND and "kong_dice_locks_hand" in message
    assert stop(rec, f"{head} 0+8m 0-1p")[0] is C.LOCKED_HAND
    play(rec, f"{head} 0+8m 0-8m")
    unlocked = wall_ruleset(mechanics={"kong_dice": True, "kong_dice_needs_ready": True})
    play(rec, "0C5m 0@3,4 0+9m 0-1s", unlocked)


def test_a_kong_after_the_dice_is_a_locked_hand() -> None:
    rec = hand({0: "5555m 666m 123p 789s 1s"}, place={-13: "6m"})
    rs = wall_ruleset(mechanics={"kong_dice": True, "kong_dice_locks_hand": True})
    assert stop(rec, "0C5m 0@3,4 0+6m 0C6m", rs)[0] is C.LOCKED_HAND


def test_a_robbing_win_comes_before_the_dice() -> None:
    # seat 1 pongs 5m and adds the fourth; seat 2 waits on 5m
    rec = hand({0: "5m 1m 9m 123p 456p 789s 11s", 1: "55m 234p 567p 234s 9s 1m",
                2: "46m 111p 999p 345s 66s"}, place={3: "5m"})
    head = f"0-5m 1P5m<0 1-1m {burn(rec, 2, 3)} 1+5m 1A5m"
    assert rec.wall is not None
    r = replay(rec, f"{head} 2H5m<1 B{rec.wall[4]}")
    assert r.is_clean and r.winners[0].robbed_kong, r.violations
    code, message = stop(rec, f"{head} 1@2,2 2H5m<1")
    assert code is C.INVALID_WIN and "robbing win comes before the dice" in message


# ---------------------------------------------------------------------- the last tile
def seabed_hand(place: Mapping[int, str] | None = None,
                deal: Mapping[int, str] | None = None) -> HandRecord:
    return hand(deal or {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 9s"}, place=place)


def to_last(rec: HandRecord) -> str:
    """The dealer's discard and 54 turns: one tile left, seat 2 discarded last."""
    return f"0-9s {burn(rec, 1, 54)}"


def test_the_last_tile_is_offered_in_turn_and_may_be_declined_by_all() -> None:
    rec = seabed_hand()
    events = f"{to_last(rec)} 3$- 0$- 1$- 2$- X"
    r = replay(rec, events)
    assert r.is_clean and r.outcome is Outcome.EXHAUSTIVE_DRAW, r.violations
    facts = r.wall_facts
    assert [(o.seat, o.take) for o in facts.offers] == [(3, False), (0, False), (1, False),
                                                       (2, False)]
    assert facts.seabed_taker is None and facts.seabed_tile is None and r.wall_left == 1


def test_a_taker_who_cannot_win_shows_the_tile() -> None:
    rec = seabed_hand()
    assert rec.wall is not None
    last = rec.wall[54]
    r = replay(rec, f"{to_last(rec)} 3$- 0$+ 0+{last} 0-{last} X")
    assert r.is_clean, r.violations
    facts = r.wall_facts
    assert facts.seabed_taker == 0 and facts.seabed_tile == last and not facts.seabed_win
    t = Table.from_record(rec, WALL)
    t.run([wall_event(x) for x in f"{to_last(rec)} 3$-".split()])
    assert t.phase is Phase.SEABED
    assert t.legal_actions() == [Seabed(0, True), Seabed(0, False)]


def test_a_win_on_the_last_tile_by_its_taker_and_by_others_on_the_shown_tile() -> None:
    # seat 1 waits on 5p; the last tile is 5p
    deal = {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 9s", 1: "123s 456s 789s 111m 5p",
            3: "234s 567s 888s 999m 5p"}
    rec = seabed_hand(place={54: "5p"}, deal=deal)
    r = replay(rec, f"{to_last(rec)} 3$- 0$- 1$+ 1+5p 1H5p B5p")
    assert r.is_clean, r.violations
    facts = r.wall_facts
    assert facts.seabed_win and facts.birds == (Tile.P5,) and facts.bird_seats == (0,)
    # seat 0 takes it, cannot win, shows it; seats 1 and 3 win on it (通炮)
    r = replay(rec, f"{to_last(rec)} 3$- 0$+ 0+5p 0-5p 1H5p<0 3H5p<0 B5p")
    assert r.is_clean, r.violations
    assert [w.seat for w in r.winners] == [1, 3] and r.wall_facts.seabed_win
    # without the seabed-tile bird, no tile is left: no bird
    one = wall_ruleset(mechanics={"seabed": True, "birds": 1})
    r = replay(rec, f"{to_last(rec)} 3$- 0$+ 0+5p 0-5p 1H5p<0", one)
    assert r.is_clean and r.wall_facts.birds == (), r.violations
    code, message = stop(rec, f"{to_last(rec)} 3$- 0$+ 0+5p 0-5p 1H5p<0 B5p", one)
    assert code is C.BAD_BIRD and "no tile is left" in message


def test_seabed_violations() -> None:
    deal = {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 9s", 1: "123s 456s 789s 111m 5p",
            3: "234s 567s 88s 999m 5p 7p"}
    rec = seabed_hand(place={54: "5p"}, deal=deal)
    last = to_last(rec)
    code, message = stop(rec, f"{last} 3+5p")
    assert code is C.BAD_SEABED and "offered first" in message
    assert "offered in turn: seat 3" in stop(rec, f"{last} 0$-")[1]
    assert stop(rec, f"{last} 3$- 3$-")[0] is C.BAD_SEABED
    assert "must draw it first" in stop(rec, f"{last} 3$+ 0$-")[1]
    assert stop(rec, f"{last} 3$+ 3-5p")[0] is C.BAD_SEABED
    assert stop(rec, f"{last} 3$+ 0+5p")[0] is C.OUT_OF_TURN
    code, message = stop(rec, f"{last} 3$+ 3+5p 3-7p")
    assert code is C.BAD_SEABED and "shows that tile" in message
    assert "only be won on" in stop(rec, f"{last} 3$+ 3+5p 3-5p 1P5p<3")[1]
    assert stop(rec, f"{last} 3$- X")[0] is C.BAD_SEABED
    assert stop(rec, "0$-")[0] is C.BAD_SEABED  # not due: 55 tiles left
    assert stop(rec, f"{last} 3$- 0$- 1$- 2$- 3$-")[0] is C.BAD_SEABED
    # the log ends after a take without the draw
    t = play(rec, f"{last} 3$+")
    v = t.finish()
    assert v is not None and v.code is C.BAD_SEABED and v.event_index is None
    # without the mechanic, the last tile is drawn as any other
    plain = wall_ruleset(mechanics={"birds": 1})
    play(rec, f"{last} 3+5p 3-5p X", plain)
    assert stop(rec, f"{last} 3$-", plain)[0] is C.EVENT_NOT_IN_FAMILY


def test_a_kong_replacement_that_finds_only_the_last_tile_takes_it() -> None:
    deal = {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 9s", 3: "999p 123s 456s 789s 1m"}
    rec = seabed_hand(place={53: "9p"}, deal=deal)
    assert rec.wall is not None
    last = rec.wall[54]
    events = f"{to_last(rec)} 3E9p<2 3+{last} 3-{last} X"
    r = replay(rec, events)
    assert r.is_clean, r.violations
    facts = r.wall_facts
    assert facts.seabed_replaced_by == 3 and facts.offers == () and facts.seabed_tile == last
    code, message = stop(rec, f"{to_last(rec)} 3E9p<2 3$+")
    assert code is C.BAD_SEABED and "replacement takes the last tile" in message


# ---------------------------------------------------------------------- birds
HEAVENLY = {0: "123m 456m 789m 123p 55p"}


def test_birds_are_the_next_tiles_of_the_wall() -> None:
    rec = hand(HEAVENLY, place={0: "4s", 1: "9m"})
    r = replay(rec, "0H5p B4s")
    assert r.is_clean and r.wall_facts.birds == (Tile.S4,) and r.wall_facts.bird_seats == (3,)
    assert r.wall_left == 55 - 1
    two = wall_ruleset(mechanics={"birds": 2})
    r = replay(rec, "0H5p B4s,9m", two)
    assert r.is_clean and r.wall_facts.bird_seats == (3, 0) and r.wall_facts.birds_on(0) == 1
    t = Table.from_record(rec, two)
    t.run([wall_event("0H5p")])
    assert Bird((Tile.S4, Tile.M9)) in t.legal_actions() and not t.is_over


def test_bird_violations() -> None:
    rec = hand(HEAVENLY, place={0: "4s", 1: "9m"})
    code, message = stop(rec, "0H5p B9m")
    assert code is C.BAD_BIRD and "4s" in message
    assert stop(rec, "0H5p B4s,9m")[0] is C.BAD_BIRD
    assert stop(rec, "0H5p B")[0] is C.BAD_BIRD
    assert stop(rec, "B4s")[0] is C.BAD_BIRD  # before any win
    assert stop(rec, "0H5p B4s B9m")[0] is C.BAD_BIRD
    assert stop(rec, "0H5p B4s 1H5p<0")[0] is C.EVENT_AFTER_END
    r = replay(rec, "0H5p")
    assert r.fatal is not None and r.fatal.code is C.BAD_BIRD and r.fatal.event_index is None
    # without a recorded wall: the count, and tiles that are not all out
    blind = hand(HEAVENLY, known_wall=False)
    assert replay(blind, "0H5p B2s").is_clean
    assert stop(blind, "0H5p B2s,3s")[0] is C.BAD_BIRD
    assert stop(hand({0: "123m 456m 789m 123p 55p", 1: "5555s 111p 222p 33p 4p"}, known_wall=False),
                "0H5p B5s")[0] is C.BAD_BIRD


# ---------------------------------------------------------------------- Guizhou
@pytest.mark.parametrize(("token", "name"), [("0@3,4", "roll"), ("1$+", "seabed"),
                                             ("B4s", "bird")])
def test_a_guizhou_table_rejects_the_wall_events(token: str, name: str) -> None:
    rec = hand(READY_QUAD)
    got, message = stop(rec, token, load_preset("guiyang"))
    assert got is C.EVENT_NOT_IN_FAMILY and f"has no {name} event" in message
    assert Table.from_record(rec, load_preset("guiyang")).wall_facts() is None


# ---------------------------------------------------------------------- random playouts
def wall_universe(table: Table) -> list[Event]:
    """Every event of the core's (:func:`generate_all_events`) and of the wall's a log could
    hold now: dice of every seat, offers, and birds of the next tiles or of any one tile."""
    from tests.rules.test_replay import generate_all_events

    out = list(generate_all_events(4))
    for seat in range(5):
        out.extend(Roll(seat, (a, b)) for a in range(7) for b in range(1, 8))
        out.extend((Seabed(seat, True), Seabed(seat, False)))
    front = table.wall or ()
    out.extend(Bird(tuple(front[:k])) for k in range(4))
    out.extend(Bird((Tile(t),)) for t in range(NUM_SUITED))
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("mechanics", [
    {**WALL.mechanics.model_dump()},
    {**WALL.mechanics.model_dump(), "kong_dice_needs_ready": False, "birds": 3,
     "seabed_tile_is_bird": False},
    {"seabed": True},
])
def test_legal_actions_are_exactly_the_wall_events_that_pass(
        mechanics: dict[str, object]) -> None:
    """Random hands played through ``legal_actions()`` with more kongs, dice and offers
    than a player would make; every few states the legal actions are compared with the
    checks of every possible event. Each hand replays cleanly."""
    from tests.support.builders import Players, choose, deal_tiles

    rs = wall_ruleset(mechanics=mechanics)
    rng = random.Random(f"wall {mechanics}")
    players = Players(win=0.3, kong=1.0, pong=0.9)
    seen: Counter[str] = Counter()
    for hand_no in range(6):
        deal, wall = deal_tiles(rng, rs, hand_no % 4)
        record = HandRecord(hand_no=hand_no, n_players=4, dealer=hand_no % 4,
                            dealer_streak=0, deal=deal, events=(), wall=wall)
        table = Table.from_record(record, rs)
        events: list[Event] = []
        while True:
            legal = table.legal_actions()
            if len(events) % 5 == 0 or table.phase is Phase.SEABED:
                passing = [e for e in wall_universe(table) if table.check(e) is None]
                assert set(passing) == set(legal), set(passing) ^ set(legal)
            if table.is_over or not legal:
                break
            rolls = [a for a in legal if isinstance(a, Roll)]
            offers = [a for a in legal if isinstance(a, Seabed)]
            if rolls and rng.random() < 0.7:
                event: Event = rng.choice(rolls)
            elif offers:
                event = offers[rng.random() < 0.6]  # take, or decline
            else:
                event = choose(rng, table, legal, players)
            table.apply(event)
            events.append(event)
            seen[type(event).__name__] += 1
        assert table.finish() is None
        r = replay_hand(HandRecord(hand_no=hand_no, n_players=4, dealer=hand_no % 4,
                                   dealer_streak=0, deal=deal, events=tuple(events),
                                   wall=wall), rs)
        assert r.violations == () and r.outcome is not Outcome.INCOMPLETE
        assert r.wall_facts == table.wall_facts()
    assert seen["Seabed"] and seen["ExhaustiveDraw"], seen
    assert bool(seen["Roll"]) is bool(rs.mechanics.kong_dice), seen
    assert bool(seen["Bird"]) is bool(rs.mechanics.birds), seen
