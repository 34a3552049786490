"""The analyst's entry point: a warehouse's tables and reports as polars frames.

::

    from zhuoji.flows.warehouse.analyst import open_warehouse

    with open_warehouse("zhuoji.duckdb") as wh:
        wh.tables()                        # ['files', 'games', 'hand_players', ...]
        hands = wh.table("hands")          # a polars DataFrame, in primary-key order
        wh.report("leaderboard")           # the report of sql/reports/leaderboard.sql
        wh.report("player_history", player="p1001")
        wh.sql("SELECT ruleset, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL")

The database is opened read-only (several analysts can read at once; an ingest writing
it makes :func:`open_warehouse` fail with :class:`~zhuoji.flows.warehouse.store.DatabaseBusyError`).
Reports run from their files in ``sql/reports/``, the same text the ``reports.<name>``
views are made from (:mod:`zhuoji.flows.warehouse.catalog`), so a report gives the same rows here,
in
``zhuoji report``, and in a BI tool reading its view.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import polars as pl

from zhuoji.flows.warehouse import catalog
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import (
    bind_report_parameters,
    read_report,
    report_description,
    report_names,
    report_parameters,
)
from zhuoji.flows.warehouse.sqlfiles import WarehouseError, read_sql
from zhuoji.rules.messages import Message

__all__ = ["ReportInfo", "UnknownTableError", "Warehouse", "open_warehouse"]


class UnknownTableError(WarehouseError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(Message("unknown table {q:any} (tables: {known:any})", repr(name),
                                 ", ".join(known)))
        self.name = name


@dataclass(frozen=True, slots=True)
class ReportInfo:
    """A report: its name, what it shows, the parameters it takes, whether it is a view."""

    name: str
    description: str
    parameters: tuple[str, ...]

    @property
    def view(self) -> str | None:
        """The report's view (``reports.<name>``), None for a report with parameters."""
        return None if self.parameters else f"{catalog.REPORT_SCHEMA}.{self.name}"


class Warehouse:
    """A warehouse opened read-only. Use as a context manager, or call :meth:`close`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str) -> None:
        self._con = con
        self.path = path

    # --- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Warehouse({self.path!r})"

    # --- tables ------------------------------------------------------------------------------

    def tables(self) -> list[str]:
        """The warehouse's tables, by name."""
        return sorted({str(t) for t, _, _ in self._catalog_rows()})

    def describe(self, name: str | None = None) -> pl.DataFrame:
        """The comments of the tables (``name`` None: one row per table, its comment and
        its column count) or of one table's columns (column, type, comment), in order."""
        if name is None:
            rows = self._catalog_rows()
            comments = {str(t): c for t, col, c in rows if col is None}
            counts: dict[str, int] = {}
            for t, col, _ in rows:
                if col is not None:
                    counts[str(t)] = counts.get(str(t), 0) + 1
            names = sorted(comments)
            return pl.DataFrame(
                {
                    "table": names,
                    "columns": [counts.get(n, 0) for n in names],
                    "comment": [comments[n] for n in names],
                },
                schema={"table": pl.String, "columns": pl.Int64, "comment": pl.String},
            )
        self._check_table(name)
        return self._frame(read_sql("load/catalog_columns"), {"table": name})

    def table(self, name: str, *, limit: int | None = None) -> pl.DataFrame:
        """Every row of a table (the first ``limit`` rows when given), in primary-key
        order (all columns for a table without a key), so the frame is the same on every
        call."""
        self._check_table(name)
        if limit is not None and limit < 0:
            raise WarehouseError(Message("limit must be 0 or more, not {n:any}", limit))
        keys = [
            str(k)
            for (k,) in self._con.execute(read_sql("load/catalog_keys"), {"table": name})
            .fetchall()
        ]
        order = ", ".join(catalog.quote_identifier(k) for k in keys) if keys else "ALL"
        query = f"SELECT * FROM main.{catalog.quote_identifier(name)} ORDER BY {order}"
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        return self._frame(query)

    # --- reports -----------------------------------------------------------------------------

    def reports(self) -> list[ReportInfo]:
        """Every report of ``sql/reports/``, by name."""
        return [
            ReportInfo(n, report_description(n), report_parameters(n)) for n in report_names()
        ]

    def report(self, name: str, **params: Any) -> pl.DataFrame:
        """Run a report with its parameters (``player="p1001"``) bound; a missing or
        unknown parameter is a :class:`~zhuoji.flows.warehouse.reports.ReportParameterError`."""
        text = read_report(name)  # UnknownReportError for a name that is no report
        return self._frame(text, bind_report_parameters(name, params, "{}=..."))

    def sql(self, query: str, **params: Any) -> pl.DataFrame:
        """Any read-only query (``$name`` parameters bound from ``params``)."""
        return self._frame(query, params or None)

    # --- internals ---------------------------------------------------------------------------

    def _catalog_rows(self) -> list[tuple[Any, ...]]:
        return self._con.execute(read_sql("load/catalog_comments")).fetchall()

    def _check_table(self, name: str) -> None:
        known = self.tables()
        if name not in known:
            raise UnknownTableError(name, known)

    def _frame(self, query: str, params: Mapping[str, Any] | None = None) -> pl.DataFrame:
        relation = self._con.sql(query, params=dict(params) if params else None)
        if relation is None:  # a statement without a result (SET, PRAGMA ...)
            return pl.DataFrame()
        frame = relation.pl()
        assert isinstance(frame, pl.DataFrame)
        return frame


def open_warehouse(path: str | os.PathLike[str] = "zhuoji.duckdb") -> Warehouse:
    """Open a warehouse read-only; :class:`~zhuoji.flows.warehouse.store.DatabaseMissingError` when
    the
    file does not exist, :class:`~zhuoji.flows.warehouse.store.DatabaseFileError` when the path is
    no
    DuckDB file (a FIFO, a folder, a SQLite database ...) or the file was cut short,
    :class:`~zhuoji.flows.warehouse.store.DatabaseBusyError` while an ingest writes it. No DuckDB
    extension is installed or loaded on its connection."""
    name = os.fspath(path)
    return Warehouse(open_reader(Path(name)), name)
