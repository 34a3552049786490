"""The rule family in the warehouse: ``games.family`` recorded at load (and, for the games of
a warehouse made before it was, at the next writable open), NULL chicken columns in the
hands of a family without chickens, and the reports that rank players one family at a
time (their points are on different scales).

The warehouse is ``data/sample``: Guizhou games and, in ``data/sample/changsha``, Changsha
games, with players who sat in both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from tests.flows.conftest import ingest_plain, report_rows
from zhuoji.flows.cli.main import app
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.schema import latest_schema_version
from zhuoji.rules.families import family_of
from zhuoji.rules.presets import resolve_ruleset

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
CHICKENS = ("chickens_standing", "chickens_flipped", "chickens_gold", "chickens_charging",
            "chickens_responsibility")
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("families")
    path = root / "w.duckdb"
    ingest_plain([str(SAMPLE)], path, root / "stage")
    return path


def _rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _nets(db: Path) -> dict[tuple[str, str], int]:
    """``(family, player) -> net score`` added up here from the games' families (from
    their presets) and the hands' deltas."""
    family = {
        str(g): family_of(resolve_ruleset(str(r), None if o is None else json.loads(o))).name
        for g, r, o in _rows(db, "SELECT game_id, ruleset, rule_overrides FROM games")
    }
    nets: dict[tuple[str, str], int] = defaultdict(int)
    for game, player, delta in _rows(db, "SELECT game_id, player_id, delta FROM hand_players"):
        nets[(family[str(game)], str(player))] += delta or 0
    return dict(nets)


def test_every_game_has_its_rulesets_family(db: Path) -> None:
    games = _rows(db, "SELECT ruleset, rule_overrides, family FROM games")
    for ruleset, overrides, family in games:
        resolved = resolve_ruleset(ruleset, None if overrides is None else json.loads(overrides))
        assert family == family_of(resolved).name, ruleset
    assert {f for _, _, f in games} == {"guizhou", "changsha", "sichuan"}
    assert {r for r, _, f in games if f == "changsha"} == {
        "changsha", "changsha-birds2", "changsha-birds4"}


def test_a_family_without_chickens_has_null_chicken_columns(db: Path) -> None:
    counts = {
        str(family): (int(hands), [int(n) for n in present])
        for family, hands, *present in _rows(
            db,
            "SELECT g.family, count(*), "
            + ", ".join(f"count(hp.{c})" for c in CHICKENS)
            + " FROM hand_players hp JOIN games g USING (game_id) GROUP BY ALL",
        )
    }
    hands, present = counts["changsha"]
    assert hands > 0 and present == [0] * len(CHICKENS)  # every one NULL
    hands, present = counts["guizhou"]
    assert present == [hands] * len(CHICKENS)  # none NULL
    ((paid,),) = _rows(db, "SELECT sum(chickens_standing) FROM hand_players")
    assert paid > 0


def test_the_leaderboard_ranks_each_family_apart(db: Path) -> None:
    board = report_rows(db, "leaderboard")
    nets = _nets(db)
    got = {(r["family"], r["player_id"]): r for r in board}
    assert len(got) == len(board) == len(nets)  # one row per family and player
    assert {k: r["net_score"] for k, r in got.items()} == nets
    # by family, then net score (then player); ranks count from 1 in each family
    keys = [(r["family"], -r["net_score"], r["player_id"]) for r in board]
    assert keys == sorted(keys)
    for family in ("changsha", "guizhou", "sichuan"):
        ranks = [r["rank"] for r in board if r["family"] == family]
        assert ranks == list(range(1, len(ranks) + 1))
    # a player of both families is ranked in each, with that family's own score
    both = {p for f, p in nets if f == "changsha"} & {p for f, p in nets if f == "guizhou"}
    assert both
    for player in both:
        changsha, guizhou = got[("changsha", player)], got[("guizhou", player)]
        total = _rows(db, "SELECT sum(coalesce(delta, 0)), count(*) FROM hand_players "
                          "WHERE player_id = ?", [player])[0]
        sichuan = got.get(("sichuan", player), {"net_score": 0, "hands": 0})
        assert changsha["net_score"] + guizhou["net_score"] + sichuan["net_score"] == total[0]
        assert changsha["hands"] + guizhou["hands"] + sichuan["hands"] == total[1]
        assert changsha["chickens_per_hand"] is None
        assert guizhou["chickens_per_hand"] is not None
    assert all((r["chickens_per_hand"] is None) == (r["family"] != "guizhou") for r in board)


def test_the_report_command_prints_one_ranking_per_family(db: Path) -> None:
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "-f", "json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert [r["family"] for r in records] == sorted(r["family"] for r in records)
    assert {r["family"] for r in records} == {"changsha", "guizhou", "sichuan"}
    csv = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "-f", "csv"])
    assert csv.stdout.splitlines()[0].startswith(
        "family,rank,player_id,player_name,hands,net_score,")
    one = runner.invoke(app, ["sql", "SELECT * FROM reports.leaderboard WHERE family = "
                              "'changsha'", "--db", str(db), "-f", "json"])
    assert json.loads(one.output) == [r for r in records if r["family"] == "changsha"]


def test_pattern_frequencies_count_each_family_apart(db: Path) -> None:
    rows = report_rows(db, "pattern_frequencies")
    keys = [(r["family"], r["pattern"]) for r in rows]
    assert len(keys) == len(set(keys))
    # every win (a 血流成河 player may win twice in a hand: one winner row, two wins)
    wins = dict(_rows(db, "SELECT g.family, count(*) FROM wins w "
                          "JOIN games g USING (game_id) GROUP BY ALL"))
    for r in rows:
        assert r["scored_share"] == pytest.approx(r["scored_wins"] / wins[r["family"]])
    families = {r["pattern"]: set() for r in rows}
    for r in rows:
        families[r["pattern"]].add(r["family"])
    # plain (平胡) is Guizhou's and Sichuan's name; Changsha's is small (小胡)
    assert families["small"] == {"changsha"} and families["plain"] == {"guizhou", "sichuan"}
    # self_draw is a pattern Guizhou scores; Changsha pays a self-draw by its own rule
    selfdrawn = dict(_rows(db, "SELECT g.family, count(*) FROM hand_players hp JOIN games g "
                               "USING (game_id) WHERE hp.winner AND hp.self_drawn GROUP BY ALL"))
    assert selfdrawn["changsha"] > 0 and families["self_draw"] == {"guizhou"}


def test_a_players_history_runs_a_score_per_family(db: Path) -> None:
    board = {(r["family"], r["player_id"]): r["net_score"] for r in report_rows(db, "leaderboard")}
    player = next(p for f, p in board if f == "changsha" and ("guizhou", p) in board)
    history = report_rows(db, "player_history", player=player)
    for family in ("changsha", "guizhou"):
        mine = [r for r in history if r["family"] == family]
        assert mine and mine[-1]["running_score"] == board[(family, player)]


def _make_old(db: Path, gone: str) -> None:
    """``db`` as a warehouse written before schema 020: no games.family, the chicken
    columns NOT NULL with zeros in the Changsha hands; and game ``gone``'s preset renamed
    to one that no longer exists. (Nor has it the later ingest_runs.disputed_hands, 022.)"""
    con = duckdb.connect(str(db))
    try:
        con.execute("ALTER TABLE games DROP COLUMN family")
        con.execute("ALTER TABLE ingest_runs DROP COLUMN disputed_hands")
        for column in CHICKENS:
            con.execute(f"UPDATE hand_players SET {column} = 0 WHERE {column} IS NULL")
            con.execute(f"ALTER TABLE hand_players ALTER COLUMN {column} SET NOT NULL")
        con.execute("DELETE FROM schema_version WHERE version >= 20")
        con.execute("UPDATE games SET ruleset = 'no-such-preset' WHERE game_id = ?", [gone])
    finally:
        con.close()


def test_an_older_warehouse_gets_its_families_at_the_next_writable_open(
    db: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old.duckdb"
    shutil.copyfile(db, old)
    gone = str(_rows(db, "SELECT min(game_id) FROM games WHERE family = 'changsha'")[0][0])
    _make_old(old, gone)
    assert "family" not in {str(c) for (c,) in _rows(
        old, "SELECT column_name FROM duckdb_columns() WHERE table_name = 'games'")}
    warehouse.open_writer(old).close()
    versions = [v for (v,) in _rows(old, "SELECT version FROM schema_version ORDER BY 1")]
    assert versions[-6:] == [20, 21, 22, 23, 24, 25]
    # every game has its family again, but the one whose preset is gone (the next ingest
    # re-audits its file); the hands of the Changsha games have NULL chickens again
    fresh = "SELECT game_id, family FROM games WHERE game_id <> ? ORDER BY 1"
    assert _rows(old, fresh, [gone]) == _rows(db, fresh, [gone])
    assert _rows(old, "SELECT family FROM games WHERE game_id = ?", [gone]) == [(None,)]
    hands = ("SELECT * FROM hand_players WHERE game_id <> ? ORDER BY game_id, hand_no, seat")
    assert _rows(old, hands, [gone]) == _rows(db, hands, [gone])
    assert _rows(old, f"SELECT DISTINCT {CHICKENS[0]} FROM hand_players WHERE game_id = ?",
                 [gone]) == [(0,)]  # its family unknown: left as loaded
    nullable = _rows(old, "SELECT column_name, is_nullable, comment FROM duckdb_columns() "
                          "WHERE table_name = 'hand_players' AND column_name LIKE 'chickens_%'")
    assert all(n and "NULL for a family without chickens" in c for _, n, c in nullable)
    # the next open finds nothing left to fill it can fill, and changes nothing
    before = _rows(old, "SELECT * FROM games ORDER BY game_id")
    warehouse.open_writer(old).close()
    assert _rows(old, "SELECT * FROM games ORDER BY game_id") == before


def test_a_report_on_an_older_warehouse_brings_it_up_to_date_first(
    db: Path, tmp_path: Path
) -> None:
    """An operator upgrades zhuoji and asks for a report before any ingest: the read-only
    open brings the warehouse up to date once (as the next ingest would) and answers."""
    old = tmp_path / "old.duckdb"
    shutil.copyfile(db, old)
    _make_old(old, "none-renamed")
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(old), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("family,rank,player_id,")
    assert _rows(old, "SELECT max(version) FROM schema_version") == [
        (latest_schema_version(),)]
    assert _rows(old, "SELECT count(*) FROM games WHERE family IS NULL") == [(0,)]


def test_a_warehouse_that_cannot_be_brought_up_to_date_is_named(
    db: Path, tmp_path: Path
) -> None:
    """Older and held by another process's reader (so not writable now), or written by a
    newer zhuoji: a one-line error that says which and what to do, exit 2."""
    old = tmp_path / "old.duckdb"
    shutil.copyfile(db, old)
    _make_old(old, "none-renamed")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=True); "
         "print('open', flush=True); time.sleep(60)", str(old)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        result = runner.invoke(app, ["report", "leaderboard", "--db", str(old)])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 2
    message = result.output.strip()
    assert "older than this zhuoji's" in message and "busy" in message, message
    assert "run `zhuoji ingest` on it once" in message and "Traceback" not in message
    newer = tmp_path / "newer.duckdb"
    shutil.copyfile(db, newer)
    con = duckdb.connect(str(newer))
    try:
        con.execute("INSERT INTO schema_version SELECT 999, 'from_the_future', now()")
    finally:
        con.close()
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(newer)])
    assert result.exit_code == 2
    assert "schema is version 999, newer than this zhuoji's" in result.output
    # an ingest refuses to write into it
    result = runner.invoke(app, ["ingest", str(SAMPLE / "changsha"), "--db", str(newer)])
    assert result.exit_code == 2 and "newer than this zhuoji's" in result.output, result.output
