"""The shared loop from a log file to its games, audits and faults
(``zhuoji.flows.audit.service``) and the one resolution of a game's ruleset
(``zhuoji.flows.audit.rulesets``).

A hand's steps for its page are read in the audit's own replay of the hand: they are the
engine's snapshots (``replay_snapshots``), and the audit is the engine's (``audit_game``),
for every hand of the sample data, a family that carries state from hand to hand, and a
hand whose deal is illegal. The cache of resolved rulesets tells the overrides' values
apart by type (``true`` is not ``1``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from tests.flows.test_cli_audit import PLAYERS, _clean_hand
from tests.rules.xuezhan_family import xuezhan_ruleset
from tests.rules.xuezhan_family.hands import SETUP, hand, play_out, with_carry
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.flows.audit.rulesets import resolve
from zhuoji.flows.audit.service import AuditOptions, GameAudit, audit_with_steps, generate_audits
from zhuoji.flows.cli.main import app
from zhuoji.parsers.fast import Game
from zhuoji.parsers.read import generate_fast_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.audit import audit_game
from zhuoji.rules.events import HandRecord
from zhuoji.rules.presets import load_preset
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.snapshot import replay_snapshots

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
runner = CliRunner()


def _same_as_the_engine(records: list[HandRecord], ruleset: RulesetBase) -> int:
    """Each hand's steps, read in the audit, against the engine's own passes; the hands
    compared."""
    engine = audit_game(records, ruleset, explain=False)
    for record in records:
        audits, steps = audit_with_steps(records, ruleset, record.hand_no, explain=False)
        assert audits == engine, record.hand_no
        assert steps == replay_snapshots(record, ruleset), record.hand_no
    return len(records)


def test_every_sample_hand_s_steps_are_the_engine_s_snapshots() -> None:
    compared = 0
    for path in sorted(p for p in SAMPLE.rglob("*") if p.is_file()):
        for game in generate_fast_games(path.as_posix()):
            if isinstance(game, Game):
                ruleset = resolve(game.ruleset, game.rule_overrides).ruleset
                compared += _same_as_the_engine(hand_records(game), ruleset)
    assert compared > 400


def test_the_steps_of_a_family_that_carries_state() -> None:
    rules = xuezhan_ruleset()
    start = f"{SETUP} 0-9p 1+1p 1H1p"
    events = play_out(hand(start), start, [2, 3, 0], start=1)
    records = [with_carry(hand(events), {"draw_multiplier": 1}, 1),
               with_carry(hand(events), {"draw_multiplier": 3}, 2)]
    assert _same_as_the_engine(records, rules) == 2
    audits, _ = audit_with_steps(records, rules, 2, explain=True)
    assert [v.code.value for v in audits[1].findings] == ["carry_mismatch"]


def test_the_steps_of_a_hand_whose_deal_is_illegal() -> None:
    clean = _clean_hand()
    short = replace(clean, deal=(clean.deal[0][:-1], *clean.deal[1:]))
    records = [clean, replace(short, hand_no=2)]
    rules = load_preset("guiyang")
    assert _same_as_the_engine(records, rules) == 2
    _, steps = audit_with_steps(records, rules, 2, explain=False)
    assert steps is not None and steps.steps == () and steps.fatal is not None


def test_a_game_is_audited_once_with_the_steps_of_its_hand(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    write_games(log, [game_from_records([_clean_hand(1), _clean_hand(2)], game_id="g1",
                                        players=PLAYERS, ruleset="guiyang")])
    (item,) = generate_audits(log, AuditOptions(replay_steps=("g1", 2)))
    assert isinstance(item, GameAudit) and item.steps is not None
    assert [h.record.hand_no for h in item.hands] == [1, 2]
    assert item.steps == replay_snapshots(item.hands[1].record, load_preset("guiyang"))
    (other,) = generate_audits(log, AuditOptions(replay_steps=("g2", 2)))
    assert isinstance(other, GameAudit) and other.steps is None


def test_overrides_of_another_type_are_another_ruleset(tmp_path: Path) -> None:
    """``1`` and ``true`` are equal in Python (and hash alike): the resolved ruleset of
    one is never taken for the other's, whichever comes first."""
    games = [
        game_from_records([_clean_hand()], game_id=gid, players=PLAYERS, ruleset="zunyi",
                          rule_overrides={"pattern_plain": value})
        for gid, value in (("one", 1), ("true", True), ("one-again", 1))
    ]
    log = tmp_path / "types.jsonl"
    write_games(log, games)
    result = runner.invoke(app, ["audit", str(log), "--json"])
    lines = [json.loads(line) for line in result.output.splitlines()]
    errors = {line["game_id"]: line["error"]["message"] for line in lines if "error" in line}
    audited = {line["game_id"] for line in lines if "hand_no" in line}
    assert audited == {"one", "one-again"}, result.output
    assert list(errors) == ["true"] and "pattern_plain" in errors["true"], errors
    assert result.exit_code == 2
    result = runner.invoke(app, ["validate", str(log), "--json"])
    (report, _) = [json.loads(line) for line in result.output.splitlines()]
    assert report["games"] == 2 and [e["game_id"] for e in report["errors"]] == ["true"]
