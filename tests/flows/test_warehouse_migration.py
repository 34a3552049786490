"""A warehouse written by the release before the ``wins`` table (schema 22) is brought up to
date in place by the first command that opens it: ``wins`` filled from the columns it has,
every report giving what that release gave.

``tests/data/warehouse_v22/warehouse.duckdb.gz`` is the DuckDB file that release wrote
(gzipped), from four files of ``data/sample`` (a robbed kong, two winners on one discard in
each family, a recorded game); ``reports/`` holds that release's ``zhuoji report`` output on
it. Built with (commit cc3b194, the release before the table)::

    git -C /work/main archive cc3b194 | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old ZHUOJI_PURE=1 zhuoji ingest LOGS --db warehouse.duckdb
    PYTHONPATH=/tmp/old ZHUOJI_PURE=1 zhuoji report NAME --db warehouse.duckdb --format csv

(LOGS a folder holding copies of the four files named in :data:`FILES`).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import zhuoji.flows.cli.report  # noqa: F401  (registers report and sql on the app)
from tests.flows.conftest import ingest_plain
from zhuoji.flows.cli.main import app
from zhuoji.flows.warehouse.schema import latest_schema_version

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "warehouse_v22"
FILES = (
    "data/sample/sim/document/sim-zunyi-2026-00001.json",
    "data/sample/sim/stream/sim-guiyang-3p-2027-0000.jsonl.gz",
    "data/sample/changsha/sim-changsha-2028-00001.json",
    "data/sample/t7-20261101-0001.json",
)
WINS = "SELECT * FROM wins ORDER BY game_id, hand_no, win_no"


def _old_warehouse(folder: Path) -> Path:
    db = folder / "warehouse.duckdb"
    with gzip.open(FIXTURE / "warehouse.duckdb.gz") as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return db


def _expected() -> list[tuple[str, list[str]]]:
    """Each committed output of the old release: its file and the report's arguments."""
    out: list[tuple[str, list[str]]] = []
    for path in sorted((FIXTURE / "reports").iterdir()):
        name, fmt = path.stem, path.suffix[1:]
        args = ["report", name, "--format", fmt]
        if name.startswith("player_history-"):
            args = ["report", "player_history", "-p", f"player={name.split('-', 1)[1]}",
                    "--format", fmt]
        out.append((path.name, args))
    return out


def test_the_fixture_is_the_previous_schema(tmp_path: Path) -> None:
    con = duckdb.connect(str(_old_warehouse(tmp_path)), read_only=True)
    try:
        assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (22,)
        tables = {str(r[0]) for r in con.execute("SELECT table_name FROM duckdb_tables()")
                  .fetchall()}
        assert "wins" not in tables and "hand_players" in tables
    finally:
        con.close()


def test_a_report_migrates_the_old_warehouse_and_every_report_is_unchanged(
    tmp_path: Path,
) -> None:
    db = _old_warehouse(tmp_path)
    runner = CliRunner()
    expected = _expected()
    assert len(expected) > 20
    for file_name, args in expected:
        result = runner.invoke(app, [*args, "--db", str(db)])
        assert result.exit_code == 0, (file_name, result.output)
        assert result.output == (FIXTURE / "reports" / file_name).read_text(encoding="utf-8"), (
            file_name)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (
            latest_schema_version(),)
        wins = con.execute("SELECT count(*), count(DISTINCT (game_id, hand_no)) FROM wins"
                           ).fetchone()
        winners = con.execute("SELECT count(*) FROM hand_players WHERE winner").fetchone()
        assert wins is not None and winners is not None and wins[0] == winners[0] > 0
        sources = dict(con.execute("SELECT source, count(*) FROM wins GROUP BY source")
                       .fetchall())
        assert set(sources) == {"self_draw", "discard", "robbed_kong"}
        assert con.execute("SELECT count(*) FROM wins WHERE win_no > 0").fetchone() != (0,)
        assert con.execute("SELECT count(*) FROM seat_choices").fetchone() == (0,)
    finally:
        con.close()


def test_the_migrated_wins_are_those_a_fresh_ingest_writes(tmp_path: Path) -> None:
    """The rows the migration derives (order by turn after the discarder, a robbed kong told
    by the discarder's river) are the rows the ingest takes from the replay."""
    old = _old_warehouse(tmp_path)
    fresh = tmp_path / "fresh.duckdb"
    (tmp_path / "staging").mkdir()
    ingest_plain([(REPO / f).as_posix() for f in FILES], fresh, tmp_path / "staging")
    result = CliRunner().invoke(app, ["sql", "SELECT count(*) FROM wins", "--db", str(old)])
    assert result.exit_code == 0, result.output
    got = {}
    for db in (old, fresh):
        con = duckdb.connect(str(db), read_only=True)
        try:
            got[db] = con.execute(WINS).fetchall()
        finally:
            con.close()
    assert got[old] == got[fresh] and len(got[old]) > 30


@pytest.mark.parametrize("table", ["wins", "seat_choices"])
def test_a_new_warehouse_has_the_new_tables_commented(tmp_path: Path, table: str) -> None:
    from zhuoji.flows.warehouse import store as warehouse

    con = warehouse.open_writer(tmp_path / "w.duckdb")
    try:
        comment = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = ?",
                              [table]).fetchone()
        assert comment is not None and comment[0]
        columns = con.execute("SELECT column_name, comment FROM duckdb_columns() "
                              "WHERE table_name = ?", [table]).fetchall()
        assert columns and all(c for _, c in columns), columns
    finally:
        con.close()


def test_the_old_ledger_gets_its_event_column_empty(tmp_path: Path) -> None:
    """Schema 25 adds ``ledger.event_index`` (commented): the rows loaded before it have
    none (their transfers show at a hand's last step), until an ingest audits them again."""
    db = _old_warehouse(tmp_path)
    result = CliRunner().invoke(app, ["sql", "SELECT count(*) FROM ledger", "--db", str(db)])
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) > 0, count(event_index) FROM ledger").fetchone() == (
            True, 0)
        comment = con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'ledger' "
                              "AND column_name = 'event_index'").fetchone()
        assert comment is not None and "kong" in str(comment[0])
    finally:
        con.close()
