"""The wall events end to end: written in a log (both encodings), read by both parsers,
bridged to the engine and audited by ``zhuoji audit --json``, whose hands carry the wall
mechanics' record (``wall``); a Guizhou log holding them is flagged, not lost."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import zhuoji.flows.audit.rulesets
from tests.rules.test_wall_events import READY_QUAD, hand, seabed_hand, to_last, wall_event
from tests.rules.wall_family import wall_ruleset
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.models import Player
from zhuoji.parsers.read import generate_fast_games, generate_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import Bird, HandRecord, Roll, Seabed
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.settings import RulesetBase

runner = CliRunner()
PLAYERS = [Player(seat=s, id=f"p{s}") for s in range(4)]


def with_events(record: HandRecord, events: str, hand_no: int = 1) -> HandRecord:
    return replace(record, hand_no=hand_no,
                   events=tuple(wall_event(t) for t in events.split()))


def bloom() -> HandRecord:
    """The dealer konges, throws 3 and 4, draws 1s from the 7th stack from the back and
    wins on it; the bird is 7m (seat 2)."""
    return with_events(hand(READY_QUAD, place={-13: "1s", 0: "7m"}),
                       "0C5m 0@3,4 0+1s 0H1s B7m")


def seabed_draw() -> HandRecord:
    rec = seabed_hand()
    assert rec.wall is not None
    last = rec.wall[54]
    return with_events(rec, f"{to_last(rec)} 3$- 0$+ 0+{last} 0-{last} X", hand_no=2)


@pytest.fixture
def wall_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Logs naming the ruleset ``wall-test`` are played by the test family."""
    def resolve(name: str | None, overrides: Any = None) -> RulesetBase:
        if name == "wall-test":
            return wall_ruleset(**(overrides or {}))
        return resolve_ruleset(name, overrides)
    # the audit resolves through flows/audit/rulesets.py, cached: a fresh cache for the test
    monkeypatch.setattr(zhuoji.flows.audit.rulesets, "resolve_ruleset", resolve)
    monkeypatch.setattr(zhuoji.flows.audit.rulesets, "_resolved", {})


def audit(path: Path, records: list[HandRecord], ruleset: str) -> tuple[int, list[dict[str, Any]]]:
    game = game_from_records(records, game_id="g1", players=PLAYERS, ruleset=ruleset)
    write_games(path, [game])
    result = runner.invoke(app, ["audit", "--json", str(path)])
    return result.exit_code, [json.loads(line) for line in result.output.splitlines()]


@pytest.mark.parametrize("name", ["g.json", "g.jsonl"])
def test_both_parsers_read_the_wall_events_as_written(tmp_path: Path, name: str) -> None:
    records = [bloom(), seabed_draw()]
    path = tmp_path / name
    write_games(path, [game_from_records(records, game_id="g1", players=PLAYERS,
                                         ruleset="wall-test")])
    (full,) = generate_games(path)
    (fast,) = generate_fast_games(path)
    for game in (full, fast):
        back = hand_records(game)  # type: ignore[arg-type]
        assert [r.events for r in back] == [r.events for r in records]
    events = records[0].events + records[1].events
    assert Roll(0, (3, 4)) in events and Seabed(0, True) in events
    assert any(isinstance(e, Bird) for e in events)


def test_audit_json_carries_the_wall_record(tmp_path: Path, wall_preset: None) -> None:
    code, rows = audit(tmp_path / "g.json", [bloom(), seabed_draw()], "wall-test")
    assert code == 0
    assert [r["violations"] for r in rows] == [[], []], rows
    first, second = rows
    assert first["outcome"] == "win" and first["wall"] == {
        "rolls": [{"seat": 0, "dice": [3, 4], "event_index": 1, "kong_index": 0, "stack": 7,
                   "tile": "1s"}],
        "locked": [0],
        "seabed_offers": [],
        "seabed_taker": None,
        "seabed_tile": None,
        "seabed_replaced_by": None,
        "seabed_win": False,
        "birds": [{"tile": "7m", "seat": 2}],
    }
    assert second["outcome"] == "exhaustive_draw"
    wall = second["wall"]
    assert wall["seabed_offers"] == [{"seat": 3, "take": False, "event_index": 109},
                                     {"seat": 0, "take": True, "event_index": 110}]
    assert wall["seabed_taker"] == 0 and wall["birds"] == []


def test_audit_json_names_each_wall_violation(tmp_path: Path, wall_preset: None) -> None:
    rec = hand(READY_QUAD, place={-13: "1s", 0: "7m"})
    bad = [with_events(rec, "0C5m 0@3,4 0+1s 0H1s B8m"),
           with_events(rec, "0C5m 0@3,4 0+1s 0-1p", hand_no=2)]
    code, rows = audit(tmp_path / "g.json", bad, "wall-test")
    assert code == 1
    assert [(v["code"], v["event_index"]) for v in rows[0]["violations"]] == [("bad_bird", 4)]
    assert [(v["code"], v["event_index"]) for v in rows[1]["violations"]] == [
        ("locked_hand", 3)]
    assert rows[0]["deltas"] is None and "wall" in rows[0]


def test_a_guizhou_log_with_wall_events_is_flagged(tmp_path: Path) -> None:
    rec = hand(READY_QUAD, place={-13: "1s"})
    assert rec.wall is not None
    code, (row,) = audit(tmp_path / "g.json",
                         [with_events(rec, f"0C5m 0@3,4 0+{rec.wall[-1]}")], "guiyang")
    assert code == 1 and "wall" not in row
    (v,) = row["violations"]
    assert v["code"] == "event_not_in_family" and v["event_index"] == 1
    assert "has no roll event" in v["message"]
