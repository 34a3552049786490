"""Opening the warehouse read-only (a database an older zhuoji wrote brought up to date
first), sealed for ``zhuoji sql``, and the check that a query of ``zhuoji sql`` only reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from zhuoji.flows.warehouse.schema import (
    SchemaVersionError,
    catalog_current,
    latest_schema_version,
    schema_version_of,
)
from zhuoji.flows.warehouse.sqlfiles import WarehouseError
from zhuoji.flows.warehouse.store import (
    _LOCK_PID,
    NO_EXTENSIONS,
    DatabaseBusyError,
    _check_opened,
    _configured,
    check_database_file,
    is_lock_error,
    open_error,
    open_writer,
)
from zhuoji.rules.messages import Message


class QueryNotAllowedError(WarehouseError):
    """A query ``zhuoji sql`` does not run: not one statement, or not one that reads."""


def open_reader(
    path: str | Path, *, sealed: bool = False
) -> duckdb.DuckDBPyConnection:
    """Open an existing database read-only; a clear error when it is missing, busy, no
    DuckDB file or cut short (:func:`check_database_file`, :func:`check_blocks`).

    A database an older zhuoji wrote is first brought up to date (opened for writing
    once, as the next ingest would: its new columns filled, its views made from this
    zhuoji's files); one a newer zhuoji wrote, or one of an older schema that cannot be
    written now (busy, a read-only disk), is a :class:`SchemaVersionError`. One whose
    schema is current but whose views are not (:func:`catalog_current`) is read as it
    is when it cannot be written now.

    ``sealed``: the connection reaches nothing but this database (no file is read or
    written, no extension loaded, no setting changed): what ``zhuoji sql`` runs a
    user's query on.
    """
    check_database_file(path)
    config: dict[str, Any] = dict(_SEALED) if sealed else {}
    con = _connect_reader(path, config)
    try:
        _check_opened(con, path)
    except BaseException:
        con.close()
        raise
    version = schema_version_of(con)
    latest = latest_schema_version()
    if version < 0:  # no schema_version table: not ours to upgrade
        return con
    try:
        current = version == latest and catalog_current(con)
    except BaseException:
        con.close()
        raise
    if current:
        return con
    con.close()
    if version > latest:
        raise SchemaVersionError(str(path), version, latest)
    # written by an older zhuoji (its schema, or its views: a report reading a view it
    # lacks, as internal.player_names), brought up to date once, as the next ingest would
    try:
        open_writer(path).close()
    except (WarehouseError, duckdb.Error) as exc:
        if version < latest:
            if isinstance(exc, WarehouseError):
                raise SchemaVersionError(str(path), version, latest, str(exc)) from None
            raise
        # only its views are older and it cannot be written now (busy, a read-only
        # disk): read it as it is
    return _connect_reader(path, config)


def _connect_reader(path: str | Path, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    # The session's settings cannot be given to connect: they are set, then the
    # configuration locked (DuckDB draws a progress bar on standard output for a query
    # running over 2 s, in the middle of the CSV or JSON of a long ``zhuoji sql``).
    lock = bool(config.get("lock_configuration"))
    opened = {k: v for k, v in config.items() if k != "lock_configuration"}
    try:
        con = duckdb.connect(str(path), read_only=True, config=opened)
        if lock:
            con.execute("SET enable_progress_bar = false")
            con.execute("SET lock_configuration = true")
    except (duckdb.Error, OSError) as exc:
        if is_lock_error(exc):
            match = _LOCK_PID.search(str(exc))
            pid = int(match.group(1)) if match else None
            raise DatabaseBusyError(str(path), "writer", pid, can_wait=False) from None
        clear = open_error(path, exc)
        if clear is not None:
            raise clear from exc
        raise
    return _configured(con)


_SEALED = {
    **NO_EXTENSIONS,
    "enable_external_access": False,
    "lock_configuration": True,
}

# What a query of ``zhuoji sql`` may be (DESCRIBE, SHOW, SUMMARIZE, FROM and VALUES are
# SELECT statements to DuckDB).
_READING = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})


def check_query(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise :class:`QueryNotAllowedError` unless ``sql`` is exactly one statement that
    reads (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA, CALL)."""
    statements = con.extract_statements(sql)
    if not statements:
        raise QueryNotAllowedError(Message("the query is empty: give one SQL statement"))
    if len(statements) > 1:
        raise QueryNotAllowedError(Message(
            "the query holds {n:n} statements; zhuoji sql runs exactly one", len(statements)
        ))
    kind = statements[0].type.name
    if kind not in _READING:
        raise QueryNotAllowedError(Message(
            "zhuoji sql only reads (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, "
            "PRAGMA, CALL); this is a {k:any} statement", kind,
        ))
