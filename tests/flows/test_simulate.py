"""``zhuoji simulate`` and the log writing: layout, determinism, clean logs on disk."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tests.rules.toy_family import ToyRuleset
from zhuoji.flows.audit.bridge import hand_records
from zhuoji.flows.cli.main import app
from zhuoji.flows.cli.simulate import simulated_families
from zhuoji.flows.simulation.writer import (
    FAULTS_MANIFEST,
    SimulationRequest,
    game_id_of,
    plan_files,
    run_simulation,
)
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import Encoding, generate_games
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import SimulationError, bots_of
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset, preset_names

PRESETS = preset_names("guizhou")


def _games(folder: Path) -> list[Game]:
    out: list[Game] = []
    for path in sorted(folder.iterdir()):
        if path.name != FAULTS_MANIFEST:
            for game in generate_games(path):
                assert not isinstance(game, MalformedLogError), game
                out.append(game)
    return out


@pytest.mark.parametrize("encoding", [Encoding.DOCUMENT, Encoding.STREAM])
def test_written_logs_parse_and_audit_clean_for_every_preset(
    tmp_path: Path, encoding: Encoding
) -> None:
    request = SimulationRequest(rulesets=tuple(PRESETS), games=2, seed=12, hands_per_game=3,
                                encoding=encoding, games_per_file=2)
    summary = run_simulation(request, tmp_path)
    assert summary.hands == len(PRESETS) * 6 and summary.faults == ()
    games = _games(tmp_path)
    assert len(games) == len(PRESETS) * 2
    for game in games:
        ruleset = load_preset(game.ruleset)
        assert len(game.players) == ruleset.players
        for record in hand_records(game):
            audit = audit_hand(record, ruleset)
            assert audit.findings == (), (game.game_id, record.hand_no, audit.findings)
    # the logs carry exactly the simulated hands, results included
    first = next(g for g in games if g.game_id == game_id_of("zunyi", 12, 1))
    expected = simulate_game(load_preset("zunyi"), seed=12, game_no=1, hands=3)
    assert tuple(hand_records(first)) == expected.records
    assert [list(h.dice or ()) for h in first.hands] == [list(h.dice) for h in expected.hands]


def test_layout_document_one_game_per_file_stream_chunked(tmp_path: Path) -> None:
    doc = SimulationRequest(rulesets=("guiyang", "zunyi"), games=3, seed=1, hands_per_game=1,
                            gzip=True)
    names = [t.name for t in plan_files(doc)]
    assert names == [f"{game_id_of(r, 1, g)}.json.gz" for r in ("guiyang", "zunyi")
                     for g in range(3)]
    stream = SimulationRequest(rulesets=("guiyang",), games=5, seed=1, hands_per_game=1,
                               encoding=Encoding.STREAM, games_per_file=2)
    tasks = plan_files(stream)
    assert [t.name for t in tasks] == [f"sim-guiyang-1-{k:04d}.jsonl" for k in range(3)]
    assert [t.game_nos for t in tasks] == [(0, 1), (2, 3), (4,)]
    run_simulation(doc, tmp_path)
    data = gzip.decompress((tmp_path / names[0]).read_bytes())
    assert orjson.loads(data)["game_id"] == game_id_of("guiyang", 1, 0)


def test_same_seed_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    request = SimulationRequest(rulesets=("guiyang-3p",), games=4, seed=3, hands_per_game=2,
                                encoding=Encoding.STREAM, games_per_file=2, gzip=True)
    run_simulation(request, tmp_path / "one")
    run_simulation(request, tmp_path / "two", workers=2)
    one = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert one == sorted(p.name for p in (tmp_path / "two").iterdir()) and len(one) == 2
    for name in one:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    other = SimulationRequest(rulesets=("guiyang-3p",), games=4, seed=4, hands_per_game=2,
                              encoding=Encoding.STREAM, games_per_file=2, gzip=True)
    run_simulation(other, tmp_path / "other")
    assert (tmp_path / "other" / "sim-guiyang-3p-4-0000.jsonl.gz").read_bytes() != (
        tmp_path / "one" / one[0]).read_bytes()


def test_players_come_from_a_fixed_pool_and_games_have_start_times(tmp_path: Path) -> None:
    run_simulation(SimulationRequest(rulesets=("guiyang",), games=6, seed=2, hands_per_game=1),
                   tmp_path)
    games = _games(tmp_path)
    ids = {p.id for g in games for p in g.players}
    assert len(ids) < 6 * 4  # the same people meet again
    assert all(len({p.id for p in g.players}) == 4 for g in games)
    starts = [g.started_at for g in games if g.started_at is not None]
    assert len(starts) == len(games)
    assert starts == sorted(starts) and len(set(starts)) == len(starts)


def test_cli_simulate_writes_logs_and_manifest(tmp_path: Path) -> None:
    out = tmp_path / "sim"
    result = CliRunner().invoke(app, [
        "simulate", "--games", "2", "--ruleset", "guiyang,an-majiang", "--seed", "9",
        "--out", str(out), "--encoding", "stream", "--faults", "0.5", "--hands-per-game", "3",
    ])
    assert result.exit_code == 0, result.output
    assert (out / "sim-guiyang-9-0000.jsonl").exists()
    assert (out / "sim-an-majiang-9-0000.jsonl").exists()
    rows = (out / FAULTS_MANIFEST).read_bytes().splitlines()
    assert rows and "faults" in result.output and "hands" in result.output
    again = CliRunner().invoke(app, [
        "simulate", "--games", "2", "--ruleset", "guiyang,an-majiang", "--seed", "9",
        "--out", str(tmp_path / "again"), "--encoding", "stream", "--faults", "0.5",
        "--hands-per-game", "3",
    ])
    assert again.exit_code == 0
    manifest = (out / FAULTS_MANIFEST).read_bytes()
    assert (tmp_path / "again" / FAULTS_MANIFEST).read_bytes() == manifest


def test_cli_rejects_unknown_presets_and_bad_rates(tmp_path: Path) -> None:
    bad = CliRunner().invoke(app, ["simulate", "--ruleset", "nowhere", "--out", str(tmp_path)])
    assert bad.exit_code != 0 and "nowhere" in bad.output
    rate = CliRunner().invoke(app, ["simulate", "--faults", "1.5", "--out", str(tmp_path)])
    assert rate.exit_code != 0
    with pytest.raises(ValueError):
        SimulationRequest(rulesets=("guiyang",), games=0, seed=1)


def test_cli_all_presets(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "simulate", "--games", "1", "--ruleset", "all", "--seed", "1", "--out", str(tmp_path),
        "--hands-per-game", "1",
    ])
    assert result.exit_code == 0, result.output
    # every preset of every family with bots: Guizhou's, Changsha's and Sichuan's
    everyone = [*PRESETS, *preset_names("changsha"), *preset_names("sichuan")]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"sim-{name}-1-00000.json" for name in everyone)


@pytest.mark.parametrize("encoding", [Encoding.DOCUMENT, Encoding.STREAM])
def test_changsha_logs_parse_and_audit_clean(tmp_path: Path, encoding: Encoding) -> None:
    """The simulator plays the Changsha family by its own bots (found through the
    registry): the logs read back as the simulated hands and audit clean."""
    names = preset_names("changsha")
    request = SimulationRequest(rulesets=tuple(names), games=3, seed=13, hands_per_game=4,
                                encoding=encoding, games_per_file=3, gzip=True)
    summary = run_simulation(request, tmp_path)
    assert summary.hands == len(names) * 12
    games = _games(tmp_path)
    assert sorted(g.game_id for g in games) == sorted(
        game_id_of(name, 13, g) for name in names for g in range(3))
    kinds: set[str] = set()
    for game in games:
        ruleset = load_preset(game.ruleset)
        assert ruleset.family == "changsha" and len(game.players) == 4
        expected = bots_of(ruleset).simulate_game(
            ruleset, seed=13, game_no=int(game.game_id.rsplit("-", 1)[1]), hands=4)
        assert tuple(hand_records(game)) == expected.records
        for record in hand_records(game):
            assert audit_hand(record, ruleset).findings == ()
            kinds.update(type(e).__name__ for e in record.events)
    assert {"Chow", "Bird", "Win"} <= kinds


def test_the_simulator_plays_the_families_with_bots() -> None:
    assert simulated_families() == ["guizhou", "changsha", "sichuan"]
    with pytest.raises(SimulationError, match="toy family has no bots"):
        bots_of(ToyRuleset(name="toy-4"))
    bad = CliRunner().invoke(app, ["simulate", "--ruleset", "changsha,nowhere", "--out", "x"])
    assert bad.exit_code != 0 and "nowhere" in bad.output
