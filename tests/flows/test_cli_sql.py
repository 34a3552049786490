"""``zhuoji sql`` is what its help says: one statement that reads the database and reaches
nothing else; ``zhuoji export`` writes results to files."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.flows.cli.report import TABLE_ROWS_LIMIT
from zhuoji.flows.warehouse.reader import QueryNotAllowedError, check_query, open_reader

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE games AS SELECT range AS n, 'g' || range AS game_id FROM range(5)")
    con.close()
    return path


def _sql(db: Path, query: str) -> tuple[int, str]:
    result = runner.invoke(app, ["sql", query, "--db", str(db), "-f", "csv"])
    return result.exit_code, result.output


def test_reads_are_allowed(db: Path) -> None:
    for query in (
        "SELECT count(*) FROM games",
        "WITH a AS (SELECT n FROM games) SELECT max(n) FROM a",
        "FROM games LIMIT 1",
        "DESCRIBE games",
        "SHOW TABLES",
        "SUMMARIZE games",
        "EXPLAIN SELECT 1",
        "PRAGMA version",
        "CALL pragma_table_info('games')",
        "SELECT 1;",
    ):
        code, out = _sql(db, query)
        assert code == 0, (query, out)


def test_no_file_is_read_or_written(db: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("password\nhunter2\n", encoding="utf-8")
    target = tmp_path / "stolen.csv"
    for query in (
        f"COPY games TO '{target}'",
        f"SELECT * FROM read_csv('{secret}')",
        f"SELECT * FROM '{secret}'",
        f"SELECT * FROM glob('{tmp_path}/*')",
        f"ATTACH '{tmp_path / 'other.duckdb'}' AS other",
        f"EXPORT DATABASE '{tmp_path / 'dump'}'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "SET threads = 1",
    ):
        code, out = _sql(db, query)
        assert code == 2, (query, out)
        assert "hunter2" not in out
    assert not target.exists() and not (tmp_path / "other.duckdb").exists()
    assert not (tmp_path / "dump").exists()


def test_exactly_one_statement_that_reads(db: Path) -> None:
    code, out = _sql(db, "SELECT 1; SELECT 2")
    assert code == 2 and "2 statements" in out and "exactly one" in out
    code, out = _sql(db, "SELECT 1; DROP TABLE games")
    assert code == 2
    code, out = _sql(db, "")
    assert code == 2 and "empty" in out
    for query in ("INSERT INTO games VALUES (9, 'x')", "CREATE TEMP TABLE t AS SELECT 1",
                  "BEGIN", "CHECKPOINT; SELECT 1", "UPDATE games SET n = 0"):
        code, out = _sql(db, query)
        assert code == 2, (query, out)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM games").fetchone() == (5,)
    con.close()


def test_check_query_names_the_statement_kind(db: Path) -> None:
    con = open_reader(db, sealed=True)
    try:
        with pytest.raises(QueryNotAllowedError, match="INSERT statement"):
            check_query(con, "INSERT INTO games VALUES (1, 'x')")
        check_query(con, "SELECT 1")
    finally:
        con.close()


def test_export_writes_each_format_whole(db: Path, tmp_path: Path) -> None:
    query = "SELECT n, game_id FROM games ORDER BY n"
    for suffix in ("parquet", "csv", "json", "jsonl"):
        out = tmp_path / f"games.{suffix}"
        result = runner.invoke(app, ["export", "--sql", query, "--out", str(out), "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert "wrote 5 rows" in result.output
        if suffix == "parquet":
            assert pq.read_table(out).to_pylist()[1] == {"n": 1, "game_id": "g1"}
        elif suffix == "csv":
            rows = list(csv.reader(out.open(encoding="utf-8")))
            assert rows[0] == ["n", "game_id"] and rows[2] == ["1", "g1"]
        elif suffix == "json":
            assert json.loads(out.read_text(encoding="utf-8"))[4] == {"n": 4, "game_id": "g4"}
        else:
            lines = out.read_text(encoding="utf-8").splitlines()
            assert len(lines) == 5 and json.loads(lines[0]) == {"n": 0, "game_id": "g0"}
    assert not list(tmp_path.glob(".partial-*"))


def test_export_refuses_what_sql_refuses_and_keeps_files(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    out.write_text("keep me", encoding="utf-8")
    again = runner.invoke(app, ["export", "--sql", "SELECT 1", "--out", str(out), "--db", str(db)])
    assert again.exit_code == 2 and "--force" in again.output
    assert out.read_text(encoding="utf-8") == "keep me"
    forced = runner.invoke(
        app, ["export", "--sql", "SELECT 1 AS a", "--out", str(out), "--db", str(db), "--force"]
    )
    assert forced.exit_code == 0 and out.read_text(encoding="utf-8") == "a\n1\n"
    bad = runner.invoke(
        app, ["export", "--sql", f"COPY games TO '{tmp_path / 'y.csv'}'",
              "--out", str(tmp_path / "z.csv"), "--db", str(db)],
    )
    assert bad.exit_code == 2
    assert not (tmp_path / "y.csv").exists() and not (tmp_path / "z.csv").exists()
    both = runner.invoke(app, ["export", "--sql", "SELECT 1", "--report", "leaderboard",
                               "--out", str(tmp_path / "b.csv"), "--db", str(db)])
    assert both.exit_code == 2


def _limit_memory() -> None:
    import resource

    limit = 1536 << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _sql_limited(db: Path, query: str, *more: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "sql", query, "--db", str(db), *more],
        capture_output=True, text=True, preexec_fn=_limit_memory, timeout=300,
        # glibc reserves 64 MiB of address space per thread's malloc arena: two keep the
        # limit about memory, not about how many threads DuckDB starts
        env={**os.environ, "MALLOC_ARENA_MAX": "2"},
    )  # fmt: skip


def test_a_table_of_every_row_of_a_big_result_is_refused_in_one_line(db: Path) -> None:
    # Holding 3,000,000 rows for a table ran out of 1.5 GiB of address space ("unexpected
    # error builtins.MemoryError ... report it"); the table stops at TABLE_ROWS_LIMIT.
    proc = _sql_limited(db, "SELECT range AS i, 'abc' AS s FROM range(3000000)", "--max-rows", "0")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"error: a table shows at most {TABLE_ROWS_LIMIT:,} rows and this result has more; "
        "--format csv or json writes every row (--max-rows N shows the first N)\n"
    )
    csv_out = _sql_limited(db, "SELECT range AS i FROM range(3000000)", "-f", "csv")
    assert csv_out.returncode == 0 and csv_out.stdout.count("\n") == 3_000_001


def test_running_out_of_memory_is_one_line(db: Path) -> None:
    proc = _sql_limited(db, "SELECT repeat('x', 20000) AS s FROM range(90000)", "--max-rows", "0")
    assert proc.returncode == 2 and proc.stdout == ""
    # Python's MemoryError, or DuckDB's "Out of Memory Error" when DuckDB is the one refused
    assert proc.stderr.lower().startswith("error: out of memory")
    assert proc.stderr.count("\n") == 1
    assert "unexpected" not in proc.stderr
