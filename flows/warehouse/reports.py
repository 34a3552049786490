"""The reports: one query per file of ``sql/reports/``, its description and ``$name``
parameters read from the file, run with the parameters bound.

The dashboard's own queries are in ``sql/internal/`` (:data:`INTERNAL_FOLDER`), read the
same way: they are not reports (``zhuoji report`` and the analyst's ``reports()`` do not
list or run them, their columns follow the pages), and their views are in the
``internal`` schema, apart from the ``reports`` one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from zhuoji.flows.warehouse.catalog import ZH_LINE, split_comment
from zhuoji.flows.warehouse.sqlfiles import SQL_ROOT, WarehouseError, read_sql
from zhuoji.rules.messages import Message

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class UnknownReportError(WarehouseError):
    def __init__(self, name: str) -> None:
        known = ", ".join(report_names())
        super().__init__(Message("unknown report {q:any} (reports: {known:any})", repr(name),
                                 known))
        self.name = name


class ReportParameterError(WarehouseError):
    pass


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


# --- reports ---------------------------------------------------------------------------------


REPORTS_FOLDER = "reports"
"""The folder of ``sql/`` holding the reports."""

INTERNAL_FOLDER = "internal"
"""The folder of ``sql/`` holding the dashboard's queries (no report)."""


def query_names(folder: str) -> list[str]:
    """The queries of ``sql/<folder>/``, by name."""
    return sorted(p.stem for p in (SQL_ROOT / folder).glob("*.sql"))


def report_names() -> list[str]:
    return query_names(REPORTS_FOLDER)


def internal_names() -> list[str]:
    """The dashboard's queries (``sql/internal/``)."""
    return query_names(INTERNAL_FOLDER)


def sql_description(text: str) -> str:
    """A query file's first comment lines (``-- ...``), joined (its ``-- zh:`` lines left
    out: :func:`sql_description_zh`)."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        if not line.startswith(ZH_LINE):
            lines.append(line[2:].strip())
    return " ".join(lines)


def sql_description_zh(text: str) -> str | None:
    """The Chinese description of a query file: its first comment lines that start with
    ``-- zh:``, joined; None when it has none."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        if line.startswith(ZH_LINE):
            lines.append(line[len(ZH_LINE):].strip())
    return "".join(lines) or None


def report_description(name: str, lang: str = "en") -> str:
    """The report's first comment lines (``-- ...``), joined; in Chinese its ``-- zh:``
    lines (the English when it has none)."""
    text = read_report(name)
    if lang == "zh":
        zh = sql_description_zh(text)
        if zh is not None:
            return zh
    return sql_description(text)


def read_report(name: str) -> str:
    if name not in report_names():
        raise UnknownReportError(name)
    return read_sql(f"{REPORTS_FOLDER}/{name}")


def read_query(name: str) -> str:
    """The text of the dashboard's query ``name`` (``sql/internal/``) or of the report
    ``name``; an :class:`UnknownReportError` when it is neither."""
    if name in internal_names():
        return read_sql(f"{INTERNAL_FOLDER}/{name}")
    return read_report(name)


def sql_parameters(text: str) -> tuple[str, ...]:
    """The ``$name`` parameters a query's text binds, in order of first use (none is read
    in a ``--`` comment)."""
    code = "\n".join(split_comment(line)[0] for line in text.splitlines())
    seen: dict[str, None] = {}
    for match in _PARAM.finditer(code):
        seen.setdefault(match.group(1), None)
    return tuple(seen)


def report_parameters(name: str) -> tuple[str, ...]:
    """The ``$name`` parameters the report's query binds, in order of first use."""
    return sql_parameters(read_report(name))


def run_report(con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, str]) -> QueryResult:
    """Run a report with its parameters bound (values as text; the SQL casts them)."""
    bound = bind_report_parameters(name, params, "--param {}=VALUE")
    return run_query(con, read_report(name), bound)


def bind_report_parameters(
    name: str, params: Mapping[str, Any], spelling: str
) -> dict[str, Any]:
    """The parameters ``params`` gives report ``name``, in its order; a
    :class:`ReportParameterError` for one missing (named as ``spelling`` shows a
    parameter to the caller's user) or one the report does not take."""
    wanted = report_parameters(name)
    missing = [p for p in wanted if p not in params]
    extra = sorted(p for p in params if p not in wanted)
    if missing:
        raise ReportParameterError(Message(
            "report {name:any} needs {p:any}", name, ", ".join(spelling.format(p) for p in missing)
        ))
    if extra:
        if wanted:
            raise ReportParameterError(Message(
                "report {name:any} takes no parameter {p:any} (parameters: {taken:any})",
                name, ", ".join(extra), ", ".join(wanted),
            ))
        raise ReportParameterError(Message(
            "report {name:any} takes no parameter {p:any} (parameters: none)", name,
            ", ".join(extra),
        ))
    return {p: params[p] for p in wanted}


def run_query(
    con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, Any] | None = None
) -> QueryResult:
    relation = con.execute(sql, dict(params) if params else None)
    description = relation.description or []
    columns = tuple(str(d[0]) for d in description)
    return QueryResult(columns=columns, rows=relation.fetchall() if columns else [])
