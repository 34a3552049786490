"""What a BI tool sees of the warehouse: comments on every table and column, and the
parameter-free reports as views.

Both come from one source each, so neither can drift:

- **comments** come from the DDL files of ``sql/schema/``: the ``--`` lines right above a
  ``CREATE TABLE`` are the table's comment, the ``--`` text at the end of a column's line
  (and of an ``ALTER TABLE ... ADD COLUMN`` line) is the column's, continued by ``--``
  lines right below it; the comment of a later ``ALTER TABLE ... ALTER COLUMN`` line (a
  column that became nullable) replaces the column's. :func:`schema_comments` reads
  them; they are stored with ``COMMENT ON`` wherever they differ from what the database
  holds.
- **views**: each report of ``sql/reports/`` that binds no parameter becomes the view
  ``reports.<name>`` whose query is the report file's text, commented with the report's
  description; each of its columns is commented with the ``--`` text at the end of the
  line of the file's select list that makes it (:func:`parse_column_comments`). A report
  that takes parameters (``player_history``) has no view: its query cannot run without
  them. The dashboard's own queries (``sql/internal/``) that bind no parameter are views
  of the schema ``internal`` (:data:`INTERNAL_SCHEMA`) the same way, apart from the
  reports. ``internal`` also holds what several queries share (``player_names``, each
  player's latest name, read by two reports and a dashboard query): a view is made after
  the views it reads (:func:`creation_order`, and ``internal`` before ``reports``), as
  DuckDB binds a view's query when it is made. Views of queries that no longer exist (or
  moved to the other schema) are dropped.

:func:`comment_statements` and :func:`view_statements` give the statements;
:func:`zhuoji.flows.warehouse.schema.apply_catalog` runs them after the schema files on every
writable open (:func:`zhuoji.flows.warehouse.schema.apply_schema`), so every warehouse has
them, and a changed report file changes its view at the next ingest.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "INTERNAL_SCHEMA",
    "REPORT_SCHEMA",
    "CatalogError",
    "TableDoc",
    "ViewStatement",
    "comment_statements",
    "creation_order",
    "parse_column_comments",
    "parse_schema_comments",
    "quote_identifier",
    "quote_literal",
    "schema_comments",
    "split_comment",
    "view_comment",
    "view_reads",
    "view_reports",
    "view_statements",
]

REPORT_SCHEMA = "reports"
"""The DuckDB schema holding the report views (the tables are in ``main``)."""

INTERNAL_SCHEMA = "internal"
"""The DuckDB schema holding the views of the dashboard's own queries (``sql/internal/``):
not reports, so apart from them."""

_CREATE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)",
                     re.IGNORECASE)
_ALTER_ADD = re.compile(
    r"^\s*ALTER\s+TABLE\s+([A-Za-z_][A-Za-z0-9_]*)\s+ADD\s+(?:COLUMN\s+)?"
    r"(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)\s",
    re.IGNORECASE,
)
_ALTER_COLUMN = re.compile(
    r"^\s*ALTER\s+TABLE\s+([A-Za-z_][A-Za-z0-9_]*)\s+ALTER\s+(?:COLUMN\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)\s",
    re.IGNORECASE,
)
_COLUMN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s+\S")
_CONSTRAINTS = frozenset({"PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "CONSTRAINT"})


class CatalogError(ValueError):
    """A schema or report file the catalog cannot use; the message names the file."""


@dataclass
class TableDoc:
    """A table's comment and its columns' comments, in the order the DDL gives them."""

    name: str
    comment: str
    columns: dict[str, str] = field(default_factory=dict)


def quote_identifier(name: str) -> str:
    """``name`` as a double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """``text`` as a single-quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def split_comment(line: str) -> tuple[str, str | None]:
    """The code of a line and the text of its ``--`` comment (None without one); a ``--``
    inside a quoted string or identifier is not a comment."""
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif line.startswith("--", i):
            return line[:i], line[i + 2 :].strip()
    return line, None


def parse_schema_comments(
    text: str, source: str, tables: dict[str, TableDoc] | None = None
) -> dict[str, TableDoc]:
    """The table and column comments of one DDL file (``source`` names it in errors),
    added to ``tables`` (the earlier files' comments) when given."""
    out = {} if tables is None else tables
    pending: list[str] = []  # comment lines above the next statement
    table: TableDoc | None = None  # the CREATE TABLE being read
    last: tuple[TableDoc, str] | None = None  # the column a comment line may continue
    for number, line in enumerate(text.splitlines(), 1):
        code, comment = split_comment(line)
        if not code.strip():
            if comment is None:
                pending, last = [], None
            elif last is not None:
                doc, column = last
                doc.columns[column] = f"{doc.columns[column]} {comment}".strip()
            else:
                pending.append(comment)
            continue
        if table is None:
            match = _CREATE.match(code)
            if match is not None:
                name = match.group(1)
                if not pending:
                    # a programming error, never a user's: not translated
                    raise CatalogError(
                        f"{source}, line {number}: table {name} has no comment "
                        "(write it as -- lines right above CREATE TABLE)"
                    )
                table = out.setdefault(name, TableDoc(name, " ".join(pending)))
                table.comment = " ".join(pending)
                pending, last = [], None
                continue
            match = _ALTER_ADD.match(code)
            changed = _ALTER_COLUMN.match(code) if match is None else None
            if match is not None:
                name, column = match.group(1), match.group(2)
                doc = out.setdefault(name, TableDoc(name, ""))
                doc.columns[column] = comment or ""
                last = (doc, column)
            elif changed is not None and comment:
                name, column = changed.group(1), changed.group(2)
                doc = out.setdefault(name, TableDoc(name, ""))
                doc.columns[column] = comment
                last = (doc, column)
            else:
                last = None
            pending = []
            continue
        if code.lstrip().startswith(")"):
            table, last = None, None
            pending = []
            continue
        match = _COLUMN.match(code)
        if match is None or match.group(1).upper() in _CONSTRAINTS:
            last = None
            continue
        column = match.group(1)
        table.columns[column] = comment or ""
        last = (table, column)
    return out


def schema_comments(schema_files: Iterable[Path]) -> dict[str, TableDoc]:
    """Every table's and column's comment from the DDL files, in the order given."""
    tables: dict[str, TableDoc] = {}
    for path in schema_files:
        parse_schema_comments(path.read_text(encoding="utf-8"), str(path), tables)
    return tables


ZH_LINE = "-- zh:"
"""A header line of a report file that gives its description in Chinese (``zhuoji report
--list --lang zh``); it is no part of the view (its definition and comment are the
English)."""


def without_zh_lines(text: str) -> str:
    """A query file's text without its ``-- zh:`` description lines."""
    if ZH_LINE not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not line.startswith(ZH_LINE))


def _report_sql(text: str, path: str) -> str:
    body = without_zh_lines(text).strip()
    while body.endswith(";"):
        body = body[:-1].rstrip()
    if not body:
        # a programming error, never a user's: not translated
        raise CatalogError(f"{path}: the report file is empty")
    return body


def view_reports(parameters: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The reports (by name, from their parameters) that become views: those that bind no
    parameter."""
    return sorted(name for name, wanted in parameters.items() if not wanted)


def comment_statements(
    stored: Iterable[tuple[str, str | None, str | None]], tables: Mapping[str, TableDoc]
) -> list[str]:
    """The ``COMMENT ON`` statements that bring the stored comments to the documented
    ones. ``stored`` holds ``(table, column, comment)`` rows of the database's tables
    (``column`` None for the table itself); only comments that differ are written, so
    an up-to-date warehouse gets none."""
    statements: list[str] = []
    for table, column, current in sorted(stored, key=_key_order):
        doc = tables.get(table)
        if doc is None:
            continue
        wanted = doc.comment if column is None else doc.columns.get(column)
        if not wanted or wanted == current:
            continue
        if column is None:
            statements.append(
                f"COMMENT ON TABLE {quote_identifier(table)} IS {quote_literal(wanted)}"
            )
        else:
            statements.append(
                f"COMMENT ON COLUMN {quote_identifier(table)}.{quote_identifier(column)} "
                f"IS {quote_literal(wanted)}"
            )
    return statements


def _key_order(row: tuple[str, str | None, str | None]) -> tuple[str, str]:
    table, column, _ = row
    return (table, "" if column is None else column)


@dataclass(frozen=True, slots=True)
class ViewStatement:
    """One statement of the view refresh; ``report`` names the query it comes from and
    ``source`` its file (``sql/reports/NAME.sql``)."""

    report: str
    sql: str
    source: str = ""


_FOLDERS = {REPORT_SCHEMA: "reports", INTERNAL_SCHEMA: "internal"}
"""The folder of ``sql/`` whose queries each schema's views are made from."""


def view_comment(name: str, sql: str, description: str, schema: str = REPORT_SCHEMA) -> str:
    """A view's comment: the report (or the dashboard's query, in ``internal``), the
    digest of its file's text (which tells a stale view from a current one; its ``-- zh:``
    lines left out, which are no part of the view) and its description."""
    digest = hashlib.sha256(without_zh_lines(sql).encode()).hexdigest()[:12]
    source = f"sql/{_FOLDERS[schema]}/{name}.sql, sha256 {digest}"
    if schema == REPORT_SCHEMA:
        return f"Report {name} ({source}): {description}"
    return f"The dashboard's query {name}, not a report ({source}): {description}"


_COLUMN_NAME = re.compile(r'"?([A-Za-z_][A-Za-z0-9_]*)"?\s*,?\s*$')


def parse_column_comments(text: str, source: str) -> dict[str, str]:
    """The comments of a query's columns, by column: the ``--`` text at the end of the
    line of the select list that ends the column's expression (``h.game_id,  -- ...``,
    ``count(*) AS hands,  -- ...``, ``) AS rank,  -- ...``), continued by ``--`` lines
    right below it. The column is the line's last name (its alias, or the column it
    selects). The description lines at the top belong to no column. ``source`` names the
    file in a :class:`CatalogError` (a comment after no name, a column commented twice)."""
    out: dict[str, str] = {}
    last: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        code, comment = split_comment(line)
        if not code.strip():
            if comment is not None and last is not None:
                out[last] = f"{out[last]} {comment}".strip()
            else:
                last = None
            continue
        if comment is None:
            last = None
            continue
        match = _COLUMN_NAME.search(code)
        if match is None:
            # a programming error, never a user's: not translated
            raise CatalogError(f"{source}, line {number}: the comment follows no column name")
        name = match.group(1)
        if name in out:
            # a programming error, never a user's: not translated
            raise CatalogError(f"{source}, line {number}: column {name} is commented twice")
        out[name] = comment
        last = name
    return out


_QUALIFIED = re.compile(
    r'(?<![A-Za-z0-9_."])"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\.\s*"?([A-Za-z_][A-Za-z0-9_]*)"?'
)


def view_reads(text: str, schema: str) -> set[str]:
    """The views of ``schema`` a query reads: each ``schema.name`` in its code (not in a
    ``--`` comment), by name."""
    code = "\n".join(split_comment(line)[0] for line in text.splitlines())
    return {name for owner, name in _QUALIFIED.findall(code) if owner.lower() == schema.lower()}


def creation_order(queries: Mapping[str, str], schema: str) -> list[str]:
    """The views of ``schema`` (name -> query text) in the order they can be made: by
    name, each after the views of the schema it reads (DuckDB binds a view's query when
    it is made, so ``internal.player_names`` must exist before a view reading it). A
    cycle is a :class:`CatalogError` naming its views."""
    order: list[str] = []
    state: dict[str, bool] = {}  # False: being placed, True: placed

    def place(name: str, path: tuple[str, ...]) -> None:
        if state.get(name) is True:
            return
        if state.get(name) is False:
            cycle = " -> ".join(f"{schema}.{n}" for n in (*path[path.index(name):], name))
            # a programming error, never a user's: not translated
            raise CatalogError(f"sql/{_FOLDERS.get(schema, schema)}: views read each other "
                               f"({cycle})")
        state[name] = False
        for read in sorted(view_reads(queries[name], schema) & set(queries) - {name}):
            place(read, (*path, name))
        state[name] = True
        order.append(name)

    for name in sorted(queries):
        place(name, ())
    return order


def view_statements(
    existing: Mapping[str, str | None],
    reports: Mapping[str, str],
    descriptions: Mapping[str, str],
    parameters: Mapping[str, tuple[str, ...]],
    schema: str = REPORT_SCHEMA,
) -> list[ViewStatement]:
    """The statements that make ``schema`` (the ``reports`` one, or ``internal`` for the
    dashboard's queries) hold exactly one view per parameter-free query: drop the views
    of queries that are gone, create or replace the others from their files (``reports``:
    name -> SQL text) with their comments (:func:`view_comment`) and their columns'
    (:func:`parse_column_comments`), each after the views of ``schema`` it reads
    (:func:`creation_order`). ``existing`` maps the views the schema holds to their
    comments: a view whose comment is already the wanted one is current and left alone,
    so an up-to-date warehouse gets no statement."""
    views = creation_order({n: reports[n] for n in view_reports(parameters)}, schema)
    quoted = quote_identifier(schema)
    out: list[ViewStatement] = []
    for name in sorted(set(existing) - set(views)):
        out.append(ViewStatement(name, f"DROP VIEW IF EXISTS {quoted}.{quote_identifier(name)}"))
    for name in views:
        comment = view_comment(name, reports[name], descriptions[name], schema)
        if existing.get(name) == comment:
            continue
        target = f"{quoted}.{quote_identifier(name)}"
        source = f"sql/{_FOLDERS[schema]}/{name}.sql"
        body = _report_sql(reports[name], source)
        out.append(ViewStatement(name, f"CREATE OR REPLACE VIEW {target} AS\n{body}\n", source))
        out.append(ViewStatement(
            name, f"COMMENT ON VIEW {target} IS {quote_literal(comment)}", source))
        for column, text in parse_column_comments(reports[name], source).items():
            out.append(ViewStatement(
                name,
                f"COMMENT ON COLUMN {target}.{quote_identifier(column)} "
                f"IS {quote_literal(text)}",
                source,
            ))
    if out:
        out.insert(0, ViewStatement("", f"CREATE SCHEMA IF NOT EXISTS {quoted}"))
    return out
