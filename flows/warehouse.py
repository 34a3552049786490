"""The DuckDB warehouse: opening it, applying the schema, loading batches, running reports.

One process writes the database (the ingest's main process); workers never open it. The
SQL lives in ``sql/`` (``schema/`` numbered DDL files, ``load/`` the loader's statements,
``reports/`` one query per report), one statement per file, parameters bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from flows.rows import DATA_TABLES, FileOutcome, FileStatus, files_table, quarantine_table

SQL_ROOT = Path(__file__).resolve().parent / "sql"
"""``sql/``: ``flows/sql`` is a link to it in the source tree and a folder of the package
when installed, so an installed zhuoji finds its SQL from any folder."""
_SCHEMA_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_LOCK_TEXT = "Could not set lock on file"


class WarehouseError(ValueError):
    """A database that cannot be used as asked; the message says why and what to do."""


class DatabaseBusyError(WarehouseError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"database {path} is busy: an ingest is writing to it; try again when it finishes"
        )
        self.path = path


class DatabaseMissingError(WarehouseError):
    def __init__(self, path: str) -> None:
        super().__init__(f"database {path} does not exist; create it with `zhuoji ingest`")
        self.path = path


class UnknownReportError(WarehouseError):
    def __init__(self, name: str) -> None:
        known = ", ".join(report_names())
        super().__init__(f"unknown report {name!r} (reports: {known})")
        self.name = name


class ReportParameterError(WarehouseError):
    pass


@dataclass(frozen=True, slots=True)
class SchemaFile:
    version: int
    name: str
    path: Path


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


# --- SQL files -------------------------------------------------------------------------------


@cache
def read_sql(name: str) -> str:
    """The text of ``sql/<name>.sql`` (``name`` like ``"load/insert_games"``)."""
    return (SQL_ROOT / f"{name}.sql").read_text(encoding="utf-8")


def generate_schema_files() -> Iterator[SchemaFile]:
    """The numbered DDL files of ``sql/schema/`` in version order."""
    for path in sorted((SQL_ROOT / "schema").glob("*.sql")):
        match = _SCHEMA_NAME.match(path.name)
        if match is None:
            raise WarehouseError(f"{path}: schema files are named NNN_name.sql")
        yield SchemaFile(version=int(match.group(1)), name=match.group(2), path=path)


def is_lock_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.IOException) and _LOCK_TEXT in str(exc)


# --- opening ---------------------------------------------------------------------------------


def apply_schema(con: duckdb.DuckDBPyConnection) -> int:
    """Apply every schema file newer than the database's version; returns the version.

    Version 0 creates the ``schema_version`` table itself and is run on every open.
    Each newer file runs in its own transaction together with its ``schema_version`` row.
    """
    files = list(generate_schema_files())
    if not files or files[0].version != 0:
        raise WarehouseError("sql/schema/000_*.sql (the schema_version table) is missing")
    con.execute(files[0].path.read_text(encoding="utf-8"))
    row = con.execute(read_sql("load/schema_version")).fetchone()
    current = int(row[0]) if row is not None else -1
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
            con.rollback()
            raise
        current = schema_file.version
    return current


def open_writer(path: str | Path, *, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """Open (or create) the database for writing and bring its schema up to date.

    ``threads`` caps DuckDB's threads for this connection (its default: one per core).
    """
    config: dict[str, Any] = {} if threads is None else {"threads": threads}
    try:
        con = duckdb.connect(str(path), config=config)
    except duckdb.IOException as exc:
        if is_lock_error(exc):
            raise DatabaseBusyError(str(path)) from None
        raise
    apply_schema(con)
    return con


def check_writable(path: str | Path) -> None:
    """Raise :class:`DatabaseBusyError` if another process holds the database now."""
    if not Path(path).exists():
        return
    try:
        duckdb.connect(str(path)).close()
    except duckdb.IOException as exc:
        if is_lock_error(exc):
            raise DatabaseBusyError(str(path)) from None
        raise


def open_reader(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open an existing database read-only; a clear error when it is missing or busy."""
    if not Path(path).exists():
        raise DatabaseMissingError(str(path))
    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.IOException as exc:
        if is_lock_error(exc):
            raise DatabaseBusyError(str(path)) from None
        raise


# --- ingest bookkeeping ----------------------------------------------------------------------


def known_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """``path -> sha256`` of every file the database has loaded or quarantined."""
    return {str(p): str(h) for p, h in con.execute(read_sql("load/known_files")).fetchall()}


def begin_run(con: duckdb.DuckDBPyConnection, *, started_at: Any, workers: int, runner: str) -> int:
    """Mark runs left 'running' by a killed process as interrupted, record a new run."""
    con.begin()
    try:
        con.execute(read_sql("load/mark_interrupted"))
        row = con.execute(read_sql("load/next_run_id")).fetchone()
        run_id = int(row[0]) if row is not None else 1
        con.execute(
            read_sql("load/insert_run"),
            {"run_id": run_id, "started_at": started_at, "workers": workers, "runner": runner},
        )
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return run_id


def finish_run(con: duckdb.DuckDBPyConnection, run_id: int, counts: Mapping[str, Any]) -> None:
    """Store a run's final counts (keys: the ``load/finish_run`` parameters but run_id)."""
    con.execute(read_sql("load/finish_run"), {"run_id": run_id, **counts})


def find_game_owners(
    con: duckdb.DuckDBPyConnection, game_ids: Sequence[str], replaced: Sequence[str]
) -> dict[str, str]:
    """``game_id -> path`` for games already loaded from files other than ``replaced``."""
    if not game_ids:
        return {}
    rows = con.execute(
        read_sql("load/game_owners"), {"game_ids": list(game_ids), "paths": list(replaced)}
    ).fetchall()
    return {str(g): str(p) for g, p in rows}


def forget_files(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> None:
    """Remove every row of these files, bookkeeping included, in one transaction.

    An ingest does this first for the files whose content changed: until their new
    content is loaded they are simply absent (and a killed run processes them again),
    and a game moving from one changed file to another is not taken for a clash.
    """
    if not paths:
        return
    con.begin()
    try:
        _delete_files(con, sorted(paths))
        con.commit()
    except BaseException:
        con.rollback()
        raise


def _delete_files(con: duckdb.DuckDBPyConnection, paths: list[str]) -> None:
    for table in reversed(DATA_TABLES):
        con.execute(read_sql(f"load/delete_{table}"), {"paths": paths})
    con.execute(read_sql("load/delete_files"), {"paths": paths})
    con.execute(read_sql("load/delete_quarantine"), {"paths": paths})


def load_batch(
    con: duckdb.DuckDBPyConnection, outcomes: Sequence[FileOutcome], run_id: int
) -> None:
    """Load one batch in one transaction: the loaded files' rows from their Parquet shards,
    the ``files`` rows of every file of the batch and the ``quarantine`` rows.

    Every file of the batch is new or changed: its earlier rows (if any) are deleted
    first, so a changed file replaces its rows and a file now quarantined leaves none.
    A failure (or a kill) leaves the database as it was before the batch.
    """
    paths = sorted(o.path for o in outcomes)
    loaded = sorted((o for o in outcomes if o.status is FileStatus.LOADED), key=_by_path)
    quarantined = sorted((o for o in outcomes if o.status is FileStatus.QUARANTINED), key=_by_path)
    con.begin()
    try:
        # A file's rows exist exactly when its ``files`` row does (both are written and
        # removed in one transaction), so only paths the database holds need deleting:
        # usually none, since the run forgot changed files first. Skipping the deletes
        # keeps a batch from scanning every table of a large warehouse.
        present = [
            str(row[0])
            for row in con.execute(read_sql("load/present_files"), {"paths": paths}).fetchall()
        ]
        if present:
            _delete_files(con, present)
        if loaded:
            for table in DATA_TABLES:
                shards = [o.shard(table) for o in loaded]
                con.execute(read_sql(f"load/insert_{table}"), {"files": shards})
        _insert_arrow(con, "batch_files", files_table(outcomes, run_id), "load/insert_files")
        if quarantined:
            _insert_arrow(
                con,
                "batch_quarantine",
                quarantine_table(quarantined, run_id),
                "load/insert_quarantine",
            )
        con.commit()
    except BaseException:
        con.rollback()
        raise


def _by_path(outcome: FileOutcome) -> str:
    return outcome.path


def _insert_arrow(
    con: duckdb.DuckDBPyConnection, view: str, table: pa.Table, statement: str
) -> None:
    con.register(view, table)
    try:
        con.execute(read_sql(statement))
    finally:
        con.unregister(view)


# --- reports ---------------------------------------------------------------------------------


def report_names() -> list[str]:
    return sorted(p.stem for p in (SQL_ROOT / "reports").glob("*.sql"))


def report_description(name: str) -> str:
    """The report's first comment lines (``-- ...``), joined."""
    lines: list[str] = []
    for line in read_report(name).splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    return " ".join(lines)


def read_report(name: str) -> str:
    if name not in report_names():
        raise UnknownReportError(name)
    return read_sql(f"reports/{name}")


def report_parameters(name: str) -> tuple[str, ...]:
    """The ``$name`` parameters the report's query binds, in order of first use."""
    text = "\n".join(
        line for line in read_report(name).splitlines() if not line.lstrip().startswith("--")
    )
    seen: dict[str, None] = {}
    for match in _PARAM.finditer(text):
        seen.setdefault(match.group(1), None)
    return tuple(seen)


def run_report(con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, str]) -> QueryResult:
    """Run a report with its parameters bound (values as text; the SQL casts them)."""
    wanted = report_parameters(name)
    missing = [p for p in wanted if p not in params]
    extra = sorted(p for p in params if p not in wanted)
    if missing:
        raise ReportParameterError(
            f"report {name} needs " + ", ".join(f"--param {p}=VALUE" for p in missing)
        )
    if extra:
        taken = ", ".join(wanted) if wanted else "none"
        raise ReportParameterError(
            f"report {name} takes no parameter {', '.join(extra)} (parameters: {taken})"
        )
    return run_query(con, read_report(name), {p: params[p] for p in wanted})


def run_query(
    con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, Any] | None = None
) -> QueryResult:
    relation = con.execute(sql, dict(params) if params else None)
    description = relation.description or []
    columns = tuple(str(d[0]) for d in description)
    return QueryResult(columns=columns, rows=relation.fetchall() if columns else [])
