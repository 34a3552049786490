"""``zhuoji.rules.snapshot``: the table after each event, as plain data.

The reference is the table of a hand played live through ``legal_actions()`` (the playout
observes it after the deal and after every event), so the snapshots of the replayed log
must show the very same tiles, wall count and seat to act at every step.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from tests.support.builders import make_hand, random_playout
from zhuoji.rules.events import Discard, Event, Flip, Kong, Pong, Ready
from zhuoji.rules.presets import load_preset
from zhuoji.rules.snapshot import event_data, replay_snapshots
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import Tile

RULESET = load_preset("guiyang")


def _seen(table: Table) -> dict[str, Any]:
    return {
        "turn": table.turn,
        "wall_left": table.wall_left,
        "concealed": [[t.text for t in table.concealed(s)] for s in range(table.n_players)],
        "melds": [
            [(m.kind.value, m.tile.text) for m in table.melds(s)] for s in range(table.n_players)
        ],
        "discards": [
            [(d.tile.text, d.claimed_by is not None) for d in table.discards(s)]
            for s in range(table.n_players)
        ],
    }


def _shown(table: dict[str, Any]) -> dict[str, Any]:
    seats = table["seats"]
    return {
        "turn": table["turn"],
        "wall_left": table["wall_left"],
        "concealed": [s["concealed"] for s in seats],
        "melds": [[(m["kind"], m["tile"]) for m in s["melds"]] for s in seats],
        "discards": [[(d["tile"], d["claimed"]) for d in s["discards"]] for s in seats],
    }


def test_snapshots_match_the_live_table_at_every_step() -> None:
    rng = random.Random(2026)
    kinds: set[type] = set()
    for hand_no in range(1, 13):
        observed: list[dict[str, Any]] = []
        applied: list[Event | None] = []

        def observe(table: Table, event: Event | None,
                    observed: list[dict[str, Any]] = observed,
                    applied: list[Event | None] = applied) -> None:
            observed.append(_seen(table))
            applied.append(event)

        record = random_playout(rng, RULESET, hand_no=hand_no, dealer=hand_no % 4,
                                observe=observe)
        snaps = replay_snapshots(record, RULESET)
        assert snaps.fatal is None and snaps.stopped_at is None
        assert [s.step for s in snaps.steps] == list(range(len(record.events) + 1))
        assert [_shown(s.table) for s in snaps.steps] == observed
        assert [s.event for s in snaps.steps] == [
            None if e is None else event_data(e) for e in applied
        ]
        kinds.update(type(e) for e in record.events)
        # plain data: JSON round-trips it unchanged
        for s in snaps.steps:
            assert json.loads(json.dumps(s.table)) == s.table
    assert {Kong, Pong} <= kinds  # the hands looked at hold kongs and claims


def test_a_fatal_event_stops_the_snapshots_before_it() -> None:
    record = random_playout(random.Random(7), RULESET)
    table = Table.from_record(record, RULESET)
    for event in record.events[:5]:
        table.apply(event)
    seat = table.turn
    held = set(table.concealed(seat))
    missing = next(t for t in Tile if not t.is_wild and t not in held)
    bad = Discard(seat, missing)
    stopped = dataclasses.replace(record, events=(*record.events[:5], bad, *record.events[5:]))
    snaps = replay_snapshots(stopped, RULESET)
    assert snaps.fatal is not None and snaps.fatal.event_index == 5
    assert snaps.stopped_at == {"kind": "discard", "seat": seat, "tile": missing.text}
    assert len(snaps.steps) == 6  # the deal and the five events before it
    assert _shown(snaps.steps[-1].table) == _seen(table)


def test_an_illegal_deal_gives_no_step() -> None:
    record = make_hand({0: "123456789m1234p5p"}, "")
    deal = list(record.deal)
    deal[1] = deal[1][:-1]  # a player dealt 12 tiles
    snaps = replay_snapshots(dataclasses.replace(record, deal=tuple(deal), wall=None), RULESET)
    assert snaps.steps == () and snaps.fatal is not None
    assert snaps.fatal.code.value == "bad_deal"


def test_a_hand_that_stops_short_reports_the_end_of_the_log() -> None:
    record = random_playout(random.Random(11), RULESET)
    short = dataclasses.replace(record, events=record.events[:3])
    snaps = replay_snapshots(short, RULESET)
    assert len(snaps.steps) == 4 and snaps.stopped_at is None
    assert snaps.fatal is not None and snaps.fatal.code.value == "premature_end"


def test_the_family_s_marks_are_in_the_snapshots() -> None:
    """The family's ``panel_marks``: from a seat's declaration on, its row carries the
    declared-ready badge; after the flip, the table carries the tile flipped. A family
    without the hook marks nothing."""
    record = random_playout(random.Random(21), RULESET)
    assert {Ready, Flip} <= {type(e) for e in record.events}
    snaps = replay_snapshots(record, RULESET)
    assert snaps.stopped_at is None
    declared: set[int] = set()
    flipped: list[dict[str, Any]] = []
    for step in snaps.steps:
        event = record.events[step.step - 1] if step.step else None
        if isinstance(event, Ready):
            declared.add(event.seat)
        if isinstance(event, Flip):
            flipped = [{"kind": "flip", "tile": event.tile.text}]
        assert step.table["marks"] == flipped
        assert [s["marks"] for s in step.table["seats"]] == [
            [{"kind": "declared", "label": "declared", "class": "gold"}] if seat in declared
            else [] for seat in range(len(step.table["seats"]))
        ]
    assert declared and flipped

    changsha = load_preset("changsha")
    plain = replay_snapshots(random_playout(random.Random(3), changsha), changsha)
    assert plain.steps
    for step in plain.steps:
        assert step.table["marks"] == [] and all(s["marks"] == [] for s in step.table["seats"])
