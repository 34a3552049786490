"""``zhuoji.flows.warehouse.analyst``: a warehouse's tables and reports as polars frames,
read-only; and the
notebook example of docs/pipeline.md, run as written against the sample logs."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.flows.conftest import Corpus, ingest_plain
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.analyst import ReportInfo, UnknownTableError, open_warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import (
    ReportParameterError,
    UnknownReportError,
    report_description,
    report_names,
    run_report,
)
from zhuoji.flows.warehouse.sqlfiles import WarehouseError

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample"


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("analyst") / "w.duckdb"
    ingest_plain([str(corpus.root)], path, path.parent / "stage")
    return path


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_tables_come_whole_in_key_order(db: Path) -> None:
    with open_warehouse(db) as wh:
        names = wh.tables()
        assert names == sorted(str(t) for (t,) in _rows(
            db, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"))
        assert "hand_tiles" in names and "hands" in names
        for name in names:
            frame = wh.table(name)
            assert isinstance(frame, pl.DataFrame)
            columns = [str(c) for (c,) in _rows(
                db, f"SELECT column_name FROM duckdb_columns() WHERE table_name = '{name}' "
                    "ORDER BY column_index")]
            assert frame.columns == columns
            assert frame.height == _rows(db, f"SELECT count(*) FROM {name}")[0][0]
        hands = wh.table("hands")
        keys = hands.select("game_id", "hand_no").rows()
        assert keys == sorted(keys) and hands.height > 10
        assert wh.table("hands").equals(hands)  # the same frame every time
        assert wh.table("ledger", limit=3).equals(wh.table("ledger").head(3))
        assert wh.table("hands", limit=0).height == 0
        with pytest.raises(WarehouseError, match="limit must be 0 or more"):
            wh.table("hands", limit=-1)
        with pytest.raises(UnknownTableError, match=r"unknown table 'hands; DROP' \(tables: "):
            wh.table("hands; DROP")


def test_describe_gives_the_comments(db: Path) -> None:
    with open_warehouse(db) as wh:
        tables = wh.describe()
        assert tables.columns == ["table", "columns", "comment"]
        assert tables["table"].to_list() == wh.tables()
        assert tables["comment"].null_count() == 0
        hands = wh.describe("hands")
        assert hands.columns == ["column", "type", "nullable", "comment"]
        assert hands["column"].to_list() == wh.table("hands", limit=0).columns
        row = hands.filter(pl.col("column") == "disputed").row(0, named=True)
        assert row["type"] == "BOOLEAN" and row["nullable"] is False
        assert row["comment"].startswith("mismatches > 0")
        with pytest.raises(UnknownTableError):
            wh.describe("nope")


def test_reports_as_frames_match_the_report_command(db: Path) -> None:
    con = open_reader(db)
    try:
        leaderboard = run_report(con, "leaderboard", {})
        history = run_report(con, "player_history", {"player": "ana"})
    finally:
        con.close()
    with open_warehouse(db) as wh:
        board = wh.report("leaderboard")
        assert tuple(board.columns) == leaderboard.columns
        assert board.rows() == leaderboard.rows
        ana = wh.report("player_history", player="ana")
        assert ana.rows() == history.rows and ana.height > 0
        infos = {r.name: r for r in wh.reports()}
        assert sorted(infos) == report_names()
        assert infos["player_history"] == ReportInfo(
            "player_history", report_description("player_history"), ("player",))
        assert infos["player_history"].view is None
        assert infos["leaderboard"].view == "reports.leaderboard"
        # the view gives the same frame
        assert wh.sql("SELECT * FROM reports.leaderboard").rows() == board.rows()
        with pytest.raises(ReportParameterError, match=r"needs player=\.\.\."):
            wh.report("player_history")
        with pytest.raises(ReportParameterError, match="takes no parameter x"):
            wh.report("leaderboard", x=1)
        with pytest.raises(UnknownReportError, match="unknown report 'nope'"):
            wh.report("nope")


def test_sql_binds_parameters_and_the_warehouse_is_read_only(db: Path) -> None:
    with open_warehouse(db) as wh:
        frame = wh.sql("SELECT count(*) AS n FROM hands WHERE hand_no = $n", n=1)
        assert frame["n"][0] == _rows(db, "SELECT count(*) FROM hands WHERE hand_no = 1")[0][0]
        with pytest.raises(duckdb.Error, match="read-only"):
            wh.sql("DELETE FROM hands")
        assert repr(wh) == f"Warehouse({str(db)!r})"
    with pytest.raises(duckdb.Error, match="closed"):
        wh.sql("SELECT 1")


def test_a_missing_or_busy_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(warehouse.DatabaseMissingError, match="does not exist"):
        open_warehouse(tmp_path / "none.duckdb")
    db = tmp_path / "busy.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from zhuoji.flows.warehouse.store import open_writer
            con = open_writer({str(db)!r})
            print("open", flush=True)
            sys.stdin.read()
        """)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(warehouse.DatabaseBusyError, match="is busy"):
            open_warehouse(db)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    open_warehouse(db).close()  # once the writer is gone


def _doc_example() -> str:
    text = (REPO / "docs" / "pipeline.md").read_text(encoding="utf-8")
    section = text.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    return block


def test_the_documented_notebook_runs_on_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_plain([str(SAMPLE)], tmp_path / "zhuoji.duckdb", tmp_path / "stage")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(_doc_example(), "docs/pipeline.md", "exec"), namespace)
    per_ruleset = namespace["per_ruleset"]
    assert isinstance(per_ruleset, pl.DataFrame) and per_ruleset.height >= 2
    checks = namespace["checks"]
    assert isinstance(checks, pl.DataFrame)
    assert {"score_mismatch", "item_mismatch", "item_sum_mismatch"} <= set(checks["code"])
