"""The reports: one query per file of ``sql/reports/``, its description and ``$name``
parameters read from the file, run with the parameters bound."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

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
