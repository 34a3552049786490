"""What a BI tool sees: a comment on every table and column (from the DDL files), every
parameter-free report as a view made from its report file, and docs/pipeline.md listing
every table with its columns."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from tests.flows.conftest import Corpus, ingest_plain
from zhuoji.flows.warehouse import catalog
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import (
    read_report,
    report_description,
    report_names,
    report_parameters,
    run_report,
)
from zhuoji.flows.warehouse.sqlfiles import generate_schema_files, read_sql

REPO = Path(__file__).resolve().parents[2]


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
            assert report.rows or name in {"illegal_moves_by_player"}  # the corpus fills them
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
