"""The warehouse: schema versioning, the Arrow schemas matching the DDL, read-only opening,
the busy message while an ingest writes, report parameters."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import (
    ReportParameterError,
    UnknownReportError,
    report_parameters,
    run_report,
)
from zhuoji.flows.warehouse.rows import CHICKEN_COLUMNS, FILES_SCHEMA, QUARANTINE_SCHEMA, SCHEMAS
from zhuoji.flows.warehouse.schema import apply_schema
from zhuoji.flows.warehouse.sqlfiles import generate_schema_files
from zhuoji.rules.families.guizhou.settlement import ChickenKind

REPO = Path(__file__).resolve().parents[2]
_DUCK_TYPES = {
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "string": "VARCHAR",
    "bool": "BOOLEAN",
    "timestamp[us]": "TIMESTAMP",
    "list<item: string>": "VARCHAR[]",
}


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [
        (str(n), str(t))
        for n, t in con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
            "ORDER BY column_index",
            [table],
        ).fetchall()
    ]


def test_schema_files_are_applied_once_in_order(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    files = list(generate_schema_files())
    assert [f.version for f in files] == sorted({f.version for f in files})
    con = warehouse.open_writer(db)
    versions = con.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
    assert versions == [(f.version, f.name) for f in files]
    con.close()
    con = warehouse.open_writer(db)  # opening again applies nothing new and fails on nothing
    assert apply_schema(con) == files[-1].version
    assert con.execute("SELECT count(*) FROM schema_version").fetchall() == [(len(files),)]
    con.close()


@pytest.mark.parametrize("table", sorted(SCHEMAS))
def test_the_rows_arrow_schema_is_the_table_column_for_column(tmp_path: Path, table: str) -> None:
    con = warehouse.open_writer(tmp_path / "w.duckdb")
    expected = [(f.name, _DUCK_TYPES[str(f.type)]) for f in SCHEMAS[table]]
    added = [(name, "VARCHAR") for name in warehouse.LOADER_COLUMNS.get(table, ())]
    assert _columns(con, table) == expected + added
    con.close()


def test_the_writer_takes_a_thread_cap(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    con = warehouse.open_writer(db, threads=1)
    assert con.execute("SELECT current_setting('threads')").fetchone() == (1,)
    con.close()
    con = warehouse.open_writer(db)
    default = con.execute("SELECT current_setting('threads')").fetchone()
    con.close()
    assert default is not None and default[0] >= 1


def test_bookkeeping_arrow_schemas_match_their_tables(tmp_path: Path) -> None:
    con = warehouse.open_writer(tmp_path / "w.duckdb")
    assert [n for n, _ in _columns(con, "files")] == FILES_SCHEMA.names
    assert [n for n, _ in _columns(con, "quarantine")] == QUARANTINE_SCHEMA.names
    con.close()


def test_every_chicken_kind_has_a_column() -> None:
    assert [kind for kind, _ in CHICKEN_COLUMNS] == list(ChickenKind)


def test_keys_refuse_duplicates(tmp_path: Path) -> None:
    con = warehouse.open_writer(tmp_path / "w.duckdb")
    con.execute("INSERT INTO players VALUES ('g', 0, 'p', NULL)")
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO players VALUES ('g', 0, 'q', NULL)")
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO players VALUES ('g', 1, NULL, NULL)")
    con.close()


def test_a_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(warehouse.DatabaseMissingError, match="does not exist"):
        open_reader(tmp_path / "nope.duckdb")
    assert not (tmp_path / "nope.duckdb").exists()


def test_reports_open_read_only(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    con = open_reader(db)
    with pytest.raises(duckdb.Error, match="read-only"):
        con.execute("DELETE FROM files")
    con.close()


def test_report_parameters_are_checked_and_bound(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    con = open_reader(db)
    assert report_parameters("player_history") == ("player",)
    with pytest.raises(ReportParameterError, match="--param player=VALUE"):
        run_report(con, "player_history", {})
    with pytest.raises(ReportParameterError, match="takes no parameter x"):
        run_report(con, "leaderboard", {"x": "1"})
    with pytest.raises(UnknownReportError, match="leaderboard"):
        run_report(con, "nope", {})
    # A quote in a bound value is data, not SQL.
    result = run_report(con, "player_history", {"player": "x' OR '1'='1"})
    assert result.rows == [] and "hand_no" in result.columns
    con.close()


def test_while_an_ingest_writes_a_report_says_the_database_is_busy(tmp_path: Path) -> None:
    db = tmp_path / "zhuoji.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from zhuoji.flows.warehouse.store import open_writer
                con = open_writer({str(db)!r})
                print("open", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        runner = CliRunner()
        result = runner.invoke(app, ["report", "leaderboard", "--db", str(db)])
        assert result.exit_code == 2
        assert (
            f"database {db} is busy: an ingest (PID {holder.pid}) is writing to it; "
            "try again when it finishes\n" in result.output
        )
        assert "Conflicting lock" not in result.output
        result = runner.invoke(app, ["sql", "SELECT 1", "--db", str(db)])
        assert result.exit_code == 2 and "is busy" in result.output
        result = runner.invoke(app, ["ingest", str(tmp_path), "--db", str(db), "--quiet"])
        assert result.exit_code == 2 and "is busy" in result.output
        assert "or pass --wait SECONDS to wait for it" in result.output
        assert "Traceback" not in result.output
        with pytest.raises(warehouse.DatabaseBusyError):
            warehouse.open_writer(db)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    con = open_reader(db)  # free again once the writer is gone
    con.close()
