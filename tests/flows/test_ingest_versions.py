"""Versioned results: every game records the engine version and its ruleset's fingerprint;
a new engine, a changed ruleset or ``--full-refresh`` re-audits (and says so); a
warehouse of the schema before versions were recorded is migrated and re-audited."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest
from typer.testing import CliRunner, Result

from tests.flows.conftest import Corpus, build_corpus, copy_db, snapshot
from zhuoji.flows.cli.main import app
from zhuoji.flows.ingest.planning import stale_files
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.sqlfiles import generate_schema_files
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.version import ENGINE_VERSION, ENGINE_VERSION_ENV, ruleset_fingerprint

pytestmark = pytest.mark.xdist_group("prefect")
REPO = Path(__file__).resolve().parents[2]


def _ingest(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(
        app, ["ingest", *args, "--db", str(db), "--workers", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return result


def _rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _execute(db: Path, *statements: str) -> None:
    con = duckdb.connect(str(db))
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()


def _last_run(db: Path) -> tuple[object, ...]:
    (row,) = _rows(
        db,
        "SELECT files_seen, files_loaded, files_skipped, files_quarantined, files_reaudited,"
        " engine_version FROM ingest_runs ORDER BY run_id DESC LIMIT 1",
    )
    return row


@pytest.fixture
def mixed(tmp_path: Path) -> Corpus:
    """A small corpus (guiyang games) and one file of zunyi games with an override."""
    small = build_corpus(tmp_path / "logs", clean_files=3, games_per_file=2)
    source = sorted(small.games)[0]
    games = [
        g.model_copy(
            update={"game_id": f"z{i}", "ruleset": "zunyi", "rule_overrides": {"pattern_plain": 3}}
        )
        for i, g in enumerate(generate_games(source))
        if isinstance(g, Game)
    ]
    path = tmp_path / "logs" / "zunyi.jsonl"
    write_games(path, games)
    small.games[path.resolve().as_posix()] = games
    return small


def test_every_game_records_its_engine_and_ruleset_fingerprint(
    mixed: Corpus, tmp_path: Path, prefect_harness: str
) -> None:
    db = tmp_path / "w.duckdb"
    _ingest(db, str(mixed.root))
    rows = _rows(
        db, "SELECT ruleset, rule_overrides, engine_version, ruleset_fingerprint FROM games"
    )
    assert len(rows) == len(mixed.all_games())
    for name, overrides, engine, fingerprint in rows:
        assert engine == ENGINE_VERSION
        resolved = resolve_ruleset(str(name), orjson.loads(str(overrides)) if overrides else None)
        assert fingerprint == ruleset_fingerprint(resolved)
    assert {r[0] for r in rows} == {"guiyang", "zunyi"}
    assert len({r[3] for r in rows}) == 2  # the override is part of the fingerprint
    assert _rows(db, "SELECT DISTINCT engine_version FROM files") == [(ENGINE_VERSION,)]
    assert _last_run(db)[5] == ENGINE_VERSION
    report = CliRunner().invoke(
        app, ["report", "engine_versions", "--db", str(db), "--format", "csv"]
    )
    assert report.exit_code == 0, report.output
    lines = report.output.strip().splitlines()
    assert lines[0].startswith("engine_version,ruleset,ruleset_fingerprint,files,games,hands")
    assert len(lines) == 3 and all(line.startswith(ENGINE_VERSION) for line in lines[1:])
    assert all(line.endswith(",True") for line in lines[1:])


def test_a_new_engine_version_reaudits_every_file_and_says_so(
    mixed: Corpus, tmp_path: Path, prefect_harness: str
) -> None:
    db = tmp_path / "w.duckdb"
    _ingest(db, str(mixed.root))
    before = snapshot(db)
    env = {**os.environ, "PREFECT_API_URL": prefect_harness, ENGINE_VERSION_ENV: "9.9.9+test"}
    entry = "from zhuoji.flows.cli.main import run_cli; run_cli()"
    command = [sys.executable, "-c", entry, "ingest"]
    args = [str(mixed.root), "--db", str(db), "--workers", "1", "--quiet"]
    done = subprocess.run(
        [*command, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    n = len(mixed.files)
    assert f"re-audited {n} files: engine changed: {ENGINE_VERSION} -> 9.9.9+test" in done.stdout
    assert _last_run(db) == (n, n - 2, 0, 2, n, "9.9.9+test")
    assert _rows(db, "SELECT DISTINCT engine_version FROM games") == [("9.9.9+test",)]
    assert _rows(db, "SELECT DISTINCT engine_version FROM files") == [("9.9.9+test",)]
    # for that engine nothing is stale any more; the results are those of the first run
    con = warehouse.open_writer(db)
    try:
        assert stale_files(con, warehouse.known_files(con), "9.9.9+test") == {}
        assert len(stale_files(con, warehouse.known_files(con))) == n
    finally:
        con.close()
    back = copy_db(db, tmp_path / "back.duckdb")
    _execute(
        back,
        f"UPDATE games SET engine_version = '{ENGINE_VERSION}'",
        f"UPDATE files SET engine_version = '{ENGINE_VERSION}'",
    )
    assert snapshot(back) == before


def test_a_changed_ruleset_reaudits_only_the_files_of_its_games(
    mixed: Corpus, tmp_path: Path, prefect_harness: str
) -> None:
    db = tmp_path / "w.duckdb"
    _ingest(db, str(mixed.root))
    before = snapshot(db)
    # as if zunyi's preset had resolved to other values when these games were audited
    _execute(
        db, "UPDATE games SET ruleset_fingerprint = 'f0f0f0f0f0f0f0f0' WHERE ruleset = 'zunyi'"
    )
    con = warehouse.open_writer(db)
    try:
        stale = stale_files(con, warehouse.known_files(con))
    finally:
        con.close()
    zunyi = (mixed.root / "zunyi.jsonl").resolve().as_posix()
    assert list(stale) == [zunyi]
    result = _ingest(db, str(mixed.root))
    expected = ruleset_fingerprint(resolve_ruleset("zunyi", {"pattern_plain": 3}))
    assert f"re-audited 1 file: ruleset zunyi changed: f0f0f0f0f0f0f0f0 -> {expected}" in (
        result.output
    )
    n = len(mixed.files)
    assert _last_run(db)[:5] == (n, 1, n - 1, 0, 1)
    assert snapshot(db) == before


def test_full_refresh_reaudits_every_file_found(
    mixed: Corpus, tmp_path: Path, prefect_harness: str
) -> None:
    db = tmp_path / "w.duckdb"
    _ingest(db, str(mixed.root))
    before = snapshot(db)
    result = _ingest(db, str(mixed.root), "--full-refresh")
    n = len(mixed.files)
    assert f"re-audited {n} files: --full-refresh" in result.output
    assert _last_run(db)[:5] == (n, n - 2, 0, 2, n)
    assert snapshot(db) == before
    runs = _rows(db, "SELECT files_reaudited FROM ingest_runs ORDER BY run_id")
    assert runs == [(0,), (n,)]


def test_a_warehouse_of_the_previous_schema_is_migrated_and_reaudited(
    mixed: Corpus, tmp_path: Path, prefect_harness: str
) -> None:
    db = tmp_path / "w.duckdb"
    _ingest(db, str(mixed.root))
    before = snapshot(db)
    # back to schema version 10: no engine version, fingerprint, family, clashes or new run
    # counts (and the chicken columns NOT NULL: the corpus has no Changsha game)
    added = {
        "games": ("engine_version", "ruleset_fingerprint", "family"),
        "files": ("engine_version",),
        "quarantine": ("clashes_with",),
        "ingest_runs": (
            "command",
            "files_renamed",
            "files_reaudited",
            "files_forgotten",
            "engine_version",
            "disputed_hands",
        ),
    }
    _execute(
        db,
        *(f"ALTER TABLE {t} DROP COLUMN {c}" for t, cs in added.items() for c in cs),
        *(f"ALTER TABLE hand_players ALTER COLUMN {c} SET NOT NULL" for c in (
            "chickens_standing", "chickens_flipped", "chickens_gold", "chickens_charging",
            "chickens_responsibility")),
        "DELETE FROM schema_version WHERE version > 10",
    )
    result = _ingest(db, str(mixed.root))
    n = len(mixed.files)
    assert f"re-audited {n} files: engine changed: an engine that recorded no version" in (
        result.output
    )
    latest = max(f.version for f in generate_schema_files())
    assert _rows(db, "SELECT max(version) FROM schema_version") == [(latest,)]
    assert snapshot(db) == before
    assert _rows(db, "SELECT command, files_reaudited FROM ingest_runs ORDER BY run_id") == [
        ("ingest", 0),
        ("ingest", n),
    ]
