"""What a BI tool sees: a comment on every table and column (from the DDL files), every
parameter-free report as a view made from its report file with a comment on every column,
integer sums as BIGINT, player names beside ids, lists as lists; the dashboard's own
queries apart in the ``internal`` schema, not listed as reports; and docs/pipeline.md
listing every table with its columns."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from tests.flows.conftest import Corpus, ingest_plain
from zhuoji.flows.cli.main import app
from zhuoji.flows.warehouse import catalog
from zhuoji.flows.warehouse import schema as warehouse_schema
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.analyst import open_warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import (
    internal_names,
    read_query,
    read_report,
    report_description,
    report_names,
    report_parameters,
    run_report,
    sql_parameters,
)
from zhuoji.flows.warehouse.sqlfiles import generate_schema_files, read_sql

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample"
VIEW_SCHEMAS = (catalog.REPORT_SCHEMA, catalog.INTERNAL_SCHEMA)
runner = CliRunner()


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("catalog") / "w.duckdb"
    ingest_plain([str(corpus.root)], path, path.parent / "stage")
    return path


def _documented() -> dict[str, catalog.TableDoc]:
    return catalog.schema_comments(f.path for f in generate_schema_files())


def _rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


# --- comments --------------------------------------------------------------------------------


def test_every_table_and_column_has_its_ddl_comment(db: Path) -> None:
    docs = _documented()
    tables = _rows(db, "SELECT table_name, comment FROM duckdb_tables() "
                       "WHERE schema_name = 'main' ORDER BY 1")
    assert {str(t) for t, _ in tables} == set(docs)
    for table, comment in tables:
        assert comment, f"table {table} has no comment"
        assert comment == docs[str(table)].comment
    columns = _rows(db, "SELECT table_name, column_name, comment FROM duckdb_columns() "
                        "WHERE schema_name = 'main' AND NOT internal "
                        "ORDER BY table_name, column_index")
    assert columns
    for table, column, comment in columns:
        assert comment, f"column {table}.{column} has no comment: write it in sql/schema/"
        assert comment == docs[str(table)].columns[str(column)]
    # the parse found exactly the columns the DDL makes, in order
    for table in docs:
        made = [str(c) for t, c, _ in columns if t == table]
        assert list(docs[table].columns) == made


def test_comments_follow_the_ddl_and_an_up_to_date_warehouse_is_left_alone(
    tmp_path: Path,
) -> None:
    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    con = duckdb.connect(str(db))
    try:
        con.execute("COMMENT ON COLUMN hands.disputed IS 'stale'")
        con.execute("COMMENT ON TABLE games IS NULL")
        stored = con.execute(read_sql("load/catalog_comments")).fetchall()
        statements = catalog.comment_statements(stored, _documented())
        assert statements == [
            "COMMENT ON TABLE \"games\" IS 'One row per game loaded.'",
            "COMMENT ON COLUMN \"hands\".\"disputed\" IS 'mismatches > 0: the record differs "
            "from the recomputation'",
        ]
    finally:
        con.close()
    warehouse.open_writer(db).close()  # the next writable open restores them
    assert _rows(db, "SELECT comment FROM duckdb_columns() WHERE table_name = 'hands' "
                     "AND column_name = 'disputed'") == [
        ("mismatches > 0: the record differs from the recomputation",)]
    con = duckdb.connect(str(db))
    try:
        stored = con.execute(read_sql("load/catalog_comments")).fetchall()
        assert catalog.comment_statements(stored, _documented()) == []
    finally:
        con.close()


def test_parse_schema_comments() -> None:
    text = (
        "-- The first line of the table's comment,\n"
        "-- and its second.\n"
        "CREATE TABLE IF NOT EXISTS t (\n"
        "    a INTEGER NOT NULL,  -- the a -- with dashes\n"
        "    b VARCHAR CHECK (b IN ('x--y', 'z')),  -- b's values\n"
        "    -- continued on a line of its own\n"
        "    \"c\" INTEGER,\n"
        "    PRIMARY KEY (a)\n"
        ");\n"
        "\n"
        "ALTER TABLE t ADD COLUMN d BOOLEAN;  -- added later\n"
        "ALTER TABLE t ADD COLUMN IF NOT EXISTS e INTEGER  -- also\n"
        "ALTER TABLE t ALTER COLUMN d DROP NOT NULL;  -- added later, may be NULL\n"
        "ALTER TABLE t ALTER e DROP NOT NULL;\n"
    )
    (doc,) = catalog.parse_schema_comments(text, "x.sql").values()
    assert doc.name == "t"
    assert doc.comment == "The first line of the table's comment, and its second."
    assert doc.columns == {
        "a": "the a -- with dashes",
        "b": "b's values continued on a line of its own",
        "d": "added later, may be NULL",  # a changed column's comment replaces its own
        "e": "also",  # a change without a comment keeps it
    }
    # (a quoted column name is not read: the test above then finds its comment missing);
    # a table without a comment is refused, naming the file and line
    with pytest.raises(catalog.CatalogError, match=r"x\.sql, line 2: table u has no comment"):
        catalog.parse_schema_comments("\nCREATE TABLE u (a INTEGER);\n", "x.sql")


def test_quoting() -> None:
    assert catalog.quote_identifier('a"b') == '"a""b"'
    assert catalog.quote_literal("it's") == "'it''s'"
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t (a INTEGER)")
        literal = catalog.quote_literal("it's -- fine")
        con.execute(f"COMMENT ON TABLE t IS {literal}")
        assert con.execute("SELECT comment FROM duckdb_tables()").fetchall() == [
            ("it's -- fine",)]
    finally:
        con.close()


# --- views -----------------------------------------------------------------------------------


def test_every_parameter_free_report_is_a_view_with_the_same_rows(db: Path) -> None:
    names = report_names()
    free = [n for n in names if not report_parameters(n)]
    assert "leaderboard" in free and "disputed_hands" in free and "player_history" not in free
    views = _rows(db, "SELECT view_name, comment FROM duckdb_views() WHERE schema_name = ? "
                      "ORDER BY 1", [catalog.REPORT_SCHEMA])
    assert [str(v) for v, _ in views] == sorted(free)
    con = open_reader(db)  # what a BI tool does: a read-only connection
    try:
        for name, comment in views:
            assert comment == catalog.view_comment(
                str(name), read_report(str(name)), report_description(str(name))
            )
            assert report_description(str(name)) in str(comment)
            report = run_report(con, str(name), {})
            view = con.execute(f"SELECT * FROM {catalog.REPORT_SCHEMA}.{name}")
            assert tuple(d[0] for d in view.description or []) == report.columns
            assert view.fetchall() == report.rows
            # the corpus fills them (multiple_wins: it has no hand of several wins)
            assert report.rows or name in {"illegal_moves_by_player", "multiple_wins"}
    finally:
        con.close()


def test_views_follow_the_report_files(tmp_path: Path) -> None:
    """A changed report replaces its view, a removed one is dropped, the others stay."""
    db = tmp_path / "w.duckdb"
    warehouse.open_writer(db).close()
    names = report_names()
    reports = {n: read_report(n) for n in names}
    descriptions = {n: report_description(n) for n in names}
    parameters = {n: report_parameters(n) for n in names}
    con = duckdb.connect(str(db))
    try:
        existing = dict(con.execute(read_sql("load/catalog_views"),
                                    {"schema": catalog.REPORT_SCHEMA}).fetchall())
        assert catalog.view_statements(existing, reports, descriptions, parameters) == []
        # the leaderboard's file changed, a report 'gone' was removed, 'new' is added
        con.execute("CREATE VIEW reports.gone AS SELECT 1 AS x")
        existing["gone"] = None
        changed = {**reports, "leaderboard": "-- Only one column.\nSELECT 1 AS one;\n",
                   "new": "-- A new report.\nSELECT count(*) AS games FROM games\n"}
        statements = catalog.view_statements(
            existing,
            changed,
            {**descriptions, "leaderboard": "Only one column.", "new": "A new report."},
            {**parameters, "leaderboard": (), "new": ()},
        )
        assert [s.report for s in statements] == [
            "", "gone", "leaderboard", "leaderboard", "new", "new"]
        for s in statements:
            con.execute(s.sql)
        assert con.execute("SELECT * FROM reports.leaderboard").fetchall() == [(1,)]
        assert con.execute("SELECT * FROM reports.new").fetchall() == [(0,)]
        views = {str(v) for (v,) in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE schema_name = 'reports'").fetchall()}
        assert "gone" not in views and "disputed_hands" in views
    finally:
        con.close()
    # the next writable open puts the report files' views back and drops 'new'
    warehouse.open_writer(db).close()
    con = open_reader(db)
    try:
        assert con.execute("SELECT * FROM reports.leaderboard").description[0][0] == "family"
        assert not con.execute("SELECT * FROM duckdb_views() WHERE view_name = 'new'").fetchall()
    finally:
        con.close()


def test_a_report_that_cannot_be_a_view_is_named(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    try:
        schema, create, _ = catalog.view_statements(
            {}, {"broken": "SELECT * FROM no_such_table"}, {"broken": "x"}, {"broken": ()}
        )
        con.execute(schema.sql)
        assert create.report == "broken"
        with pytest.raises(duckdb.Error, match="no_such_table"):
            con.execute(create.sql)
    finally:
        con.close()
    with pytest.raises(catalog.CatalogError, match=r"sql/reports/empty\.sql: .*empty"):
        catalog.view_statements({}, {"empty": " ;\n"}, {"empty": ""}, {"empty": ()})


# --- the views' columns ------------------------------------------------------------------


def test_every_view_column_has_the_comment_its_file_gives(db: Path) -> None:
    columns = _rows(db, "SELECT schema_name, table_name, column_name, comment "
                        "FROM duckdb_columns() WHERE schema_name IN (?, ?) "
                        "ORDER BY schema_name, table_name, column_index", list(VIEW_SCHEMAS))
    assert {str(s) for s, *_ in columns} == set(VIEW_SCHEMAS)
    for schema, view, column, comment in columns:
        folder = "reports" if schema == catalog.REPORT_SCHEMA else "internal"
        assert comment, (f"column {schema}.{view}.{column} has no comment: write it after the "
                         f"column's line in sql/{folder}/{view}.sql")
        written = catalog.parse_column_comments(read_query(str(view)), str(view))
        assert comment == written[str(column)]


def test_every_report_comments_exactly_its_columns(db: Path) -> None:
    """Each report file (player_history too, which has no view) comments each column it
    gives, in order, and nothing else."""
    con = open_reader(db)
    try:
        for name in report_names():
            params = {"player": "ana"} if report_parameters(name) else {}
            columns = run_report(con, name, params).columns
            written = catalog.parse_column_comments(read_report(name), name)
            assert tuple(written) == columns, name
            assert all(written.values()), name
    finally:
        con.close()


def test_parse_column_comments() -> None:
    text = (
        "-- A description, not a column's.\n"
        "WITH x AS (SELECT 1 AS a)\n"
        "SELECT\n"
        "    g.family,  -- the family -- with dashes\n"
        "    row_number() OVER (\n"
        "        ORDER BY a\n"
        "    ) AS rank,  -- the rank\n"
        "    -- continued below\n"
        "\n"
        "    count(*) AS \"hands\"  -- hands\n"
        "FROM x\n"
    )
    assert catalog.parse_column_comments(text, "x.sql") == {
        "family": "the family -- with dashes",
        "rank": "the rank continued below",
        "hands": "hands",
    }
    with pytest.raises(catalog.CatalogError, match=r"x\.sql, line 2: column a is commented twice"):
        catalog.parse_column_comments("SELECT a,  -- one\n    b AS a  -- two\n", "x.sql")
    with pytest.raises(catalog.CatalogError, match=r"x\.sql, line 1: .*no column name"):
        catalog.parse_column_comments("SELECT (  -- what\n", "x.sql")


def test_no_view_column_is_a_decimal_and_sums_are_bigint(db: Path) -> None:
    """DuckDB sums integers to HUGEINT, which polars reads as Decimal(38,0): every
    report casts its sums to BIGINT."""
    wide = _rows(db, "SELECT schema_name, table_name, column_name, data_type "
                     "FROM duckdb_columns() WHERE schema_name IN (?, ?) "
                     "AND (data_type LIKE 'DECIMAL%' OR data_type IN ('HUGEINT', 'UHUGEINT'))",
                 list(VIEW_SCHEMAS))
    assert wide == []
    with open_warehouse(db) as wh:
        for info in wh.reports():
            frame = wh.report(info.name, **({"player": "ana"} if info.parameters else {}))
            assert not [c for c, t in frame.schema.items() if isinstance(t, pl.Decimal)], (
                info.name)
        assert wh.report("leaderboard").schema["net_score"] == pl.Int64
        assert wh.report("engine_versions").schema["hands"] == pl.Int64
        assert wh.report("player_history", player="ana").schema["running_score"] == pl.Int64


def test_disputed_hands_codes_are_a_list(db: Path) -> None:
    with open_warehouse(db) as wh:
        disputed = wh.report("disputed_hands")
        assert disputed.schema["codes"] == pl.List(pl.String)
        assert disputed.schema["codes"] == wh.report("player_history", player="ana").schema[
            "patterns"]
        assert disputed.height >= 2
        assert all(codes for codes in disputed["codes"].to_list())
    result = runner.invoke(app, ["report", "disputed_hands", "--db", str(db), "-f", "json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert {tuple(r["codes"]) for r in records} >= {("score_mismatch",)}
    as_csv = runner.invoke(app, ["report", "disputed_hands", "--db", str(db), "-f", "csv"])
    assert "not_zero_sum, score_mismatch" in as_csv.stdout  # a list's items, joined


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/sample's warehouse: logs that name their players."""
    path = tmp_path_factory.mktemp("sample") / "w.duckdb"
    ingest_plain([str(SAMPLE)], path, path.parent / "stage")
    return path


def _latest_names(db: Path) -> dict[str, str | None]:
    """Each player's name in the latest game that names the player, computed here."""
    rows = _rows(db, "SELECT p.player_id, p.name, g.started_at, g.game_id FROM players AS p "
                     "JOIN games AS g USING (game_id)")
    names: dict[str, str | None] = {}
    latest: dict[str, tuple[object, str]] = {}
    for player, name, started, game in rows:
        names.setdefault(str(player), None)
        if name is None:
            continue
        key = (started, str(game))
        if str(player) not in latest or key > latest[str(player)]:  # type: ignore[operator]
            latest[str(player)] = key  # type: ignore[assignment]
            names[str(player)] = str(name)
    return names


def test_names_beside_ids(sample_db: Path, tmp_path: Path) -> None:
    names = _latest_names(sample_db)
    assert sum(n is not None for n in names.values()) >= 20
    with open_warehouse(sample_db) as wh:
        for report in ("leaderboard", "illegal_moves_by_player"):
            frame = wh.report(report)
            assert frame.columns.index("player_name") == frame.columns.index("player_id") + 1
            assert frame.height > 0
            for player, name in frame.select("player_id", "player_name").iter_rows():
                assert name == names[player], (report, player)
    # a player renamed in a later game is shown by the later name
    renamed = tmp_path / "renamed.duckdb"
    shutil.copyfile(sample_db, renamed)
    ((player, game),) = _rows(renamed, "SELECT p.player_id, p.game_id FROM players AS p "
                                       "JOIN games AS g USING (game_id) WHERE p.name IS NOT NULL "
                                       "ORDER BY g.started_at DESC, g.game_id DESC LIMIT 1")
    con = duckdb.connect(str(renamed))
    try:
        con.execute("UPDATE players SET name = '新名字' WHERE player_id = ? AND game_id = ?",
                    [player, game])
    finally:
        con.close()
    with open_warehouse(renamed) as wh:
        board = wh.report("leaderboard").filter(pl.col("player_id") == player)
        assert set(board["player_name"].to_list()) == {"新名字"}


def test_latest_names_are_written_once(sample_db: Path) -> None:
    """Each player's latest name is one query, ``internal.player_names``, which the two
    reports and the dashboard's players query read; none repeats it."""
    readers = ("leaderboard", "illegal_moves_by_player", "dashboard_players")
    for name in readers:
        text = read_query(name)
        assert "JOIN internal.player_names AS n" in text, name
    picking = [n for n in [*report_names(), *internal_names()]
               if "ORDER BY g.started_at DESC NULLS LAST, p.game_id DESC, p.name" in read_query(n)]
    assert picking == ["player_names"]
    assert set(readers) <= {n for n in [*report_names(), *internal_names()]
                            if "player_names" in catalog.view_reads(read_query(n),
                                                                    catalog.INTERNAL_SCHEMA)}
    names = dict(_rows(sample_db, "SELECT player_id, name FROM internal.player_names"))
    assert names and names == {p: n for p, n in _latest_names(sample_db).items()
                               if n is not None}
    assert _rows(sample_db, "SELECT column_name, comment IS NOT NULL FROM duckdb_columns() "
                     "WHERE schema_name = 'internal' AND table_name = 'player_names'") == [
        ("player_id", True), ("name", True)]


def test_a_view_is_made_after_the_views_it_reads() -> None:
    """DuckDB binds a view's query when it is made: ``internal.dashboard_players`` (first
    by name) is made after ``internal.player_names``, which it reads, and the report
    views after the ``internal`` ones."""
    texts = {n: read_query(n) for n in internal_names()}
    order = catalog.creation_order(texts, catalog.INTERNAL_SCHEMA)
    assert sorted(order) == sorted(texts)
    assert order.index("player_names") < order.index("dashboard_players")
    assert [s for s, _ in warehouse_schema.VIEW_SCHEMAS] == [catalog.INTERNAL_SCHEMA,
                                                    catalog.REPORT_SCHEMA]
    statements = catalog.view_statements(
        {}, texts, dict.fromkeys(texts, "x"), {n: sql_parameters(t) for n, t in texts.items()},
        catalog.INTERNAL_SCHEMA)
    made = [s.report for s in statements if s.sql.startswith("CREATE OR REPLACE VIEW")]
    assert made.index("player_names") < made.index("dashboard_players")
    # a name in a comment is not read; views that read each other are refused, named
    assert catalog.view_reads("SELECT 1  -- not internal.a\nFROM internal.b, x.c",
                              "internal") == {"b"}
    assert catalog.creation_order({"b": "SELECT * FROM s.a", "a": "SELECT 1"}, "s") == [
        "a", "b"]
    with pytest.raises(catalog.CatalogError,
                       match=r"views read each other \(s\.a -> s\.b -> s\.a\)"):
        catalog.creation_order({"a": "FROM s.b", "b": "FROM s.a"}, "s")


def test_a_warehouse_without_player_names_gets_it_at_its_next_open(
    sample_db: Path, tmp_path: Path
) -> None:
    """A warehouse an older zhuoji wrote (schema 021, each query with the names in a CTE
    of its own, no ``internal.player_names``): the next open (here a report's) makes the
    view before the report views that read it."""
    old = tmp_path / "old.duckdb"
    shutil.copyfile(sample_db, old)
    inline = "(" + read_query("player_names").split("\n", 1)[1].rstrip() + "\n)"
    con = duckdb.connect(str(old))
    try:
        con.execute("ALTER TABLE ingest_runs DROP COLUMN disputed_hands")
        con.execute("DELETE FROM schema_version WHERE version >= 22")
        con.execute("DROP SCHEMA internal CASCADE")
        for name in ("leaderboard", "illegal_moves_by_player"):
            text = read_report(name).replace("internal.player_names", inline)
            con.execute(f"CREATE OR REPLACE VIEW reports.{name} AS {text}")
        before = {n: con.execute(f"SELECT * FROM reports.{n}").fetchall()
                  for n in ("leaderboard", "illegal_moves_by_player")}
    finally:
        con.close()
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(old), "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert ("internal", "player_names") in _rows(
        old, "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal")
    for name, rows in before.items():
        assert _rows(old, f"SELECT * FROM reports.{name}") == rows
        (definition,) = _rows(old, "SELECT sql FROM duckdb_views() WHERE schema_name = "
                                   "'reports' AND view_name = ?", [name])
        assert "internal.player_names" in str(definition[0])
    assert _rows(old, "SELECT * FROM internal.dashboard_players") == _rows(
        sample_db, "SELECT * FROM internal.dashboard_players")


def _without_player_names(src: Path, dst: Path) -> Path:
    """A copy of ``src`` as the zhuoji before ``internal.player_names`` wrote it (the
    schema as now): the view missing, the two reports' views naming players in their own
    query."""
    shutil.copyfile(src, dst)
    inline = "(" + read_query("player_names").split("\n", 1)[1].rstrip() + "\n)"
    con = duckdb.connect(str(dst))
    try:
        con.execute("DROP VIEW internal.player_names")
        for name in ("leaderboard", "illegal_moves_by_player"):
            text = read_report(name).replace("internal.player_names", inline)
            con.execute(f"CREATE OR REPLACE VIEW reports.{name} AS {text}")
    finally:
        con.close()
    return dst


def test_a_current_schema_without_player_names_gets_it_at_a_read(
    sample_db: Path, tmp_path: Path
) -> None:
    """The schema is current but the views are not (written before the reports read
    ``internal.player_names``): a reading command brings them up to date first, and the
    report runs."""
    old = _without_player_names(sample_db, tmp_path / "old.duckdb")
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(old), "-f", "csv"])
    assert result.exit_code == 0, result.output
    expected = runner.invoke(app, ["report", "leaderboard", "--db", str(sample_db), "-f", "csv"])
    assert result.stdout == expected.stdout
    assert _rows(old, "SELECT count(*) FROM internal.player_names") == _rows(
        sample_db, "SELECT count(*) FROM internal.player_names")


def test_views_not_current_are_read_as_they_are_while_another_process_holds_it(
    sample_db: Path, tmp_path: Path
) -> None:
    """When the views cannot be brought up to date now (another process holds the file),
    a reading command reads the warehouse as it is instead of failing."""
    import subprocess
    import sys

    old = _without_player_names(sample_db, tmp_path / "old.duckdb")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1], "
         "read_only=True); print('ready', flush=True); sys.stdin.read()", str(old)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        result = runner.invoke(app, ["report", "disputed_hands", "--db", str(old)])
        assert result.exit_code == 0, result.output
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    assert ("internal", "player_names") not in _rows(
        old, "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal")


# --- the dashboard's queries: apart from the reports -------------------------------------


def test_the_dashboard_s_queries_are_views_of_their_own_schema(db: Path) -> None:
    assert not set(report_names()) & set(internal_names())
    assert not [n for n in report_names() if n.startswith("dashboard_")]
    views = _rows(db, "SELECT schema_name, view_name, comment FROM duckdb_views() "
                      "WHERE NOT internal ORDER BY ALL")
    free = {
        catalog.REPORT_SCHEMA: [n for n in report_names() if not report_parameters(n)],
        catalog.INTERNAL_SCHEMA: [n for n in internal_names()
                                  if not sql_parameters(read_query(n))],
    }
    assert "dashboard_overview" in free[catalog.INTERNAL_SCHEMA]
    assert {schema: sorted(str(v) for s, v, _ in views if s == schema) for schema in free} == free
    for schema, view, comment in views:
        if schema == catalog.INTERNAL_SCHEMA:
            assert str(comment).startswith(f"The dashboard's query {view}, not a report")
    overview = _rows(db, "SELECT * FROM internal.dashboard_overview")
    assert overview[0][0] == _rows(db, "SELECT count(*) FROM games")[0][0]


def test_report_list_names_only_the_reports_and_takes_json(db: Path) -> None:
    listing = runner.invoke(app, ["report", "--list"])
    assert listing.exit_code == 0, listing.output
    assert [line.split()[0] for line in listing.stdout.strip().splitlines()] == report_names()
    as_json = runner.invoke(app, ["report", "--list", "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    records = json.loads(as_json.stdout)
    assert [r["name"] for r in records] == report_names()
    by_name = {r["name"]: r for r in records}
    assert by_name["leaderboard"] == {
        "name": "leaderboard", "description": report_description("leaderboard"),
        "parameters": [], "view": "reports.leaderboard"}
    assert by_name["player_history"]["parameters"] == ["player"]
    assert by_name["player_history"]["view"] is None
    as_csv = runner.invoke(app, ["report", "--list", "-f", "csv"])
    assert as_csv.exit_code == 0 and as_csv.stdout.startswith("name,description,parameters,view\n")
    assert "player_history," in as_csv.stdout and ",player,\n" in as_csv.stdout
    internal = runner.invoke(app, ["report", "dashboard_overview", "--db", str(db)])
    assert internal.exit_code == 2 and "unknown report 'dashboard_overview'" in internal.output


def test_an_older_warehouse_has_its_dashboard_views_moved(db: Path, tmp_path: Path) -> None:
    """A warehouse an older zhuoji wrote (schema 021, the dashboard's views among the
    reports): the next open (here a report's) drops them from ``reports`` and makes them
    in ``internal``, with the new report views."""
    old = tmp_path / "old.duckdb"
    shutil.copyfile(db, old)
    con = duckdb.connect(str(old))
    try:
        con.execute("ALTER TABLE ingest_runs DROP COLUMN disputed_hands")
        con.execute("DELETE FROM schema_version WHERE version >= 22")
        con.execute("DROP SCHEMA internal CASCADE")
        con.execute("CREATE VIEW reports.dashboard_overview AS SELECT 1 AS games")
        con.execute("CREATE OR REPLACE VIEW reports.leaderboard AS SELECT 1 AS family")
    finally:
        con.close()
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(old), "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("family,rank,player_id,player_name,")
    views = _rows(old, "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal")
    assert ("reports", "dashboard_overview") not in views
    assert ("internal", "dashboard_overview") in views
    assert _rows(old, "SELECT * FROM reports.leaderboard") == _rows(
        db, "SELECT * FROM reports.leaderboard")
    assert _rows(old, "SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'reports' "
                      "AND comment IS NULL") == [(0,)]


# --- the docs --------------------------------------------------------------------------------


def _doc_tables() -> dict[str, list[str]]:
    text = (REPO / "docs" / "pipeline.md").read_text(encoding="utf-8")
    section = text.split("\n## Tables\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, list[str]] = {}
    for line in section.splitlines():
        match = re.match(r"^\| `([a-z_]+)` \| [^|]+ \| (.+) \|$", line)
        if match is None:
            continue
        columns = re.sub(r"\([^)]*\)", "", match.group(2))  # value lists, notes
        out[match.group(1)] = re.findall(r"`([a-z_0-9]+)`", columns)
    return out


def test_docs_pipeline_lists_every_table_and_its_columns(db: Path) -> None:
    documented = _doc_tables()
    made = _documented()
    assert sorted(documented) == sorted(made)
    for table, columns in documented.items():
        assert columns == list(made[table].columns), table


def test_docs_pipeline_lists_every_report() -> None:
    text = (REPO / "docs" / "pipeline.md").read_text(encoding="utf-8")
    section = text.split("\n## Reports\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    assert sorted(listed) == [n for n in report_names()
                              if not n.startswith("dashboard_")]
