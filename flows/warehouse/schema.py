"""The warehouse's schema: the numbered DDL files applied in order (each with its
``schema_version`` row), the columns an older zhuoji did not record filled, and the tables'
comments and report views brought up to date."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pyarrow as pa

from zhuoji.flows.warehouse import catalog
from zhuoji.flows.warehouse.reports import (
    INTERNAL_FOLDER,
    REPORTS_FOLDER,
    query_names,
    sql_description,
    sql_parameters,
)
from zhuoji.flows.warehouse.sqlfiles import (
    SchemaFile,
    WarehouseError,
    _unregister,
    generate_schema_files,
    read_sql,
    rollback,
)
from zhuoji.rules.messages import Message


class SchemaVersionError(WarehouseError):
    """A read-only open of a database whose schema is not this zhuoji's: written by a
    newer one, or by an older one that could not be brought up to date here."""

    def __init__(self, path: str, version: int, latest: int, why: str = "") -> None:
        if version > latest:
            super().__init__(Message(
                "database {path:any}: its schema is version {v:n}, newer than this zhuoji's "
                "({l:n}): read it with the zhuoji that wrote it, or upgrade zhuoji", path,
                version, latest))
        else:
            super().__init__(Message(
                "database {path:any}: its schema is version {v:n}, older than this zhuoji's "
                "({l:n}), and it could not be brought up to date ({why:external}); run "
                "`zhuoji ingest` on it once, which does", path, version, latest, why))
        self.path = path
        self.version = version
        self.latest = latest


def apply_schema(con: duckdb.DuckDBPyConnection) -> int:
    """Apply every schema file newer than the database's version; returns the version.

    Version 0 creates the ``schema_version`` table itself and is run on every open.
    Each newer file runs in its own transaction together with its ``schema_version`` row.
    Then the rows loaded before a column was recorded that Python can compute are filled
    (:func:`fill_families`), and the comments and report views are brought up to date
    (:func:`apply_catalog`).
    """
    files = list(generate_schema_files())
    if not files or files[0].version != 0:
        # a programming error, never a user's: not translated
        raise WarehouseError("sql/schema/000_*.sql (the schema_version table) is missing")
    con.execute(files[0].path.read_text(encoding="utf-8"))
    row = con.execute(read_sql("load/schema_version")).fetchone()
    current = int(row[0]) if row is not None else -1
    if current > files[-1].version:  # a newer zhuoji's: its tables are not ours to write
        name = con.execute("SELECT file FROM pragma_database_list WHERE name = "
                           "current_database()").fetchone()
        raise SchemaVersionError(str(name[0]) if name else "?", current, files[-1].version)
    for schema_file in files:
        if schema_file.version <= current:
            continue
        con.begin()
        try:
            con.execute(schema_file.path.read_text(encoding="utf-8"))
            con.execute(
                read_sql("load/record_schema_version"),
                {"version": schema_file.version, "name": schema_file.name},
            )
            con.commit()
        except BaseException:
            rollback(con)
            raise
        current = schema_file.version
    fill_families(con)
    apply_catalog(con, files)
    return current


FILLED_FAMILIES_SCHEMA = pa.schema(
    [("ruleset", pa.string()), ("rule_overrides", pa.string()), ("family", pa.string()),
     ("chickens", pa.bool_())]
)
"""The table :func:`fill_families` registers as ``filled_families`` for its statements."""


def fill_families(con: duckdb.DuckDBPyConnection) -> None:
    """Fill ``games.family`` of the games loaded before it was recorded (schema 020),
    in one transaction: each of their rulesets is resolved through its preset and
    overrides as the ingest does (:func:`zhuoji.flows.audit.rulesets.resolve_stored`), and the
    hands of the games whose family scores no chickens get NULL chicken columns, as the loader
    writes them now (schema 021). A ruleset that no longer resolves is left NULL: the next
    ingest re-audits its files (:func:`zhuoji.flows.ingest.planning.stale_files`). Nothing is
    written
    when every game has its family (the usual open: one scan of ``games``).
    """
    unfilled = con.execute(read_sql("load/unfilled_rulesets")).fetchall()
    if not unfilled:
        return
    from zhuoji.flows.audit.rulesets import resolve_stored  # the engine's presets, when needed

    rows: list[tuple[str, str | None, str, bool]] = []
    for name, overrides in unfilled:
        stored = None if overrides is None else str(overrides)
        try:
            resolved = resolve_stored(str(name), stored)
        except ValueError:  # stored text that is no JSON
            continue
        if resolved.fingerprint is None or resolved.family is None:  # it no longer resolves
            continue
        rows.append((str(name), stored, resolved.family.name, resolved.family.chickens))
    if not rows:
        return
    table = pa.table(
        {n: [row[i] for row in rows] for i, n in enumerate(FILLED_FAMILIES_SCHEMA.names)},
        schema=FILLED_FAMILIES_SCHEMA,
    )
    con.begin()
    try:
        con.register("filled_families", table)
        try:
            con.execute(read_sql("load/null_chickens"))
            con.execute(read_sql("load/fill_families"))
        finally:
            _unregister(con, "filled_families")
        con.commit()
    except BaseException:
        rollback(con)
        raise


VIEW_SCHEMAS = ((catalog.INTERNAL_SCHEMA, INTERNAL_FOLDER), (catalog.REPORT_SCHEMA, REPORTS_FOLDER))
"""Each schema of views and the folder of ``sql/`` its queries are read from, in the order
their views are made: ``internal`` first, as reports read its views (``internal.player_names``)
and DuckDB binds a view's query when it is made."""


def catalog_statements(
    con: duckdb.DuckDBPyConnection, files: Sequence[SchemaFile]
) -> tuple[list[str], list[catalog.ViewStatement]]:
    """The ``COMMENT ON`` statements and the view statements that would bring the
    database's catalog up to date (none for an up-to-date one); only reads."""
    tables = catalog.schema_comments(f.path for f in files)
    stored = [
        (str(t), None if c is None else str(c), None if m is None else str(m))
        for t, c, m in con.execute(read_sql("load/catalog_comments")).fetchall()
    ]
    statements: list[catalog.ViewStatement] = []
    for schema, folder in VIEW_SCHEMAS:
        existing = {
            str(v): None if c is None else str(c)
            for v, c in con.execute(read_sql("load/catalog_views"), {"schema": schema}).fetchall()
        }
        texts = {n: read_sql(f"{folder}/{n}") for n in query_names(folder)}
        statements += catalog.view_statements(
            existing,
            texts,
            {n: sql_description(t) for n, t in texts.items()},
            {n: sql_parameters(t) for n, t in texts.items()},
            schema,
        )
    return catalog.comment_statements(stored, tables), statements


def catalog_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database's comments and views are those of this zhuoji's files (a
    warehouse written by a zhuoji whose report or dashboard files differ is not)."""
    comments, statements = catalog_statements(con, list(generate_schema_files()))
    return not comments and not statements


def apply_catalog(con: duckdb.DuckDBPyConnection, files: Sequence[SchemaFile]) -> None:
    """Comment every table and column from the DDL files' comments and make the views
    (``reports.<name>`` for each parameter-free report, ``internal.<name>`` for each of the
    dashboard's queries), their columns commented, in one transaction; only what changed
    is written (see :mod:`zhuoji.flows.warehouse.catalog`)."""
    comments, statements = catalog_statements(con, files)
    if not comments and not statements:
        return
    con.begin()
    try:
        for statement in comments:
            con.execute(statement)
        for view in statements:
            try:
                con.execute(view.sql)
            except duckdb.Error as exc:
                # a programming error, never a user's: not translated
                raise WarehouseError(
                    f"{view.source}: cannot be made a view: {exc}"
                ) from exc
        con.commit()
    except BaseException:
        rollback(con)
        raise


def schema_version_of(con: duckdb.DuckDBPyConnection) -> int:
    """The database's schema version; -1 when it has no ``schema_version`` table (a new
    database, or one zhuoji did not make)."""
    try:
        rows = con.execute(read_sql("load/schema_version")).fetchall()  # no result left open
    except duckdb.CatalogException:
        return -1
    return int(rows[0][0]) if rows else -1


def latest_schema_version() -> int:
    """The version of the newest schema file (what :func:`open_writer` brings a database
    to)."""
    return max(f.version for f in generate_schema_files())
