"""The warehouse's SQL files and what every statement on it shares.

The SQL lives in ``sql/`` (``schema/`` numbered DDL files, ``load/`` the loader's statements,
``reports/`` one query per report), one statement per file (a schema file may hold a few
that belong together, applied in one transaction), parameters bound. Here: reading them,
the schema files in order, :class:`WarehouseError` (the base of the warehouse's errors) and
the transaction helpers every writer uses.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

SQL_ROOT = Path(__file__).resolve().parent.parent / "sql"
"""``sql/``: ``flows/sql`` is a link to it in the source tree and a folder of the package
when installed, so an installed zhuoji finds its SQL from any folder."""
_SCHEMA_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


class WarehouseError(ValueError):
    """A database that cannot be used as asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SchemaFile:
    version: int
    name: str
    path: Path


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
            # a programming error, never a user's: not translated
            raise WarehouseError(f"{path}: schema files are named NNN_name.sql")
        yield SchemaFile(version=int(match.group(1)), name=match.group(2), path=path)


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if there still is one.

    When a commit fails (a full disk, a read-only file system), DuckDB has already ended
    the transaction: a rollback then raises "cannot rollback - no transaction is active",
    which would hide the error that matters. That one is swallowed here, so the caller's
    ``raise`` re-raises the original.
    """
    try:
        con.rollback()
    except duckdb.TransactionException as exc:
        if "no transaction is active" not in str(exc):
            raise
    except duckdb.Error:
        # A connection invalidated by the failure cannot roll back; the write-ahead log
        # lets the next open recover the last committed state.
        pass


def _unregister(con: duckdb.DuckDBPyConnection, view: str) -> None:
    """Drop a registered view; in a transaction a failed statement aborted, DuckDB refuses
    even that, and the error that matters is the one on its way up (the rollback that
    follows drops the view with the transaction)."""
    with contextlib.suppress(duckdb.TransactionException):
        con.unregister(view)
