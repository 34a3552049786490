"""``zhuoji report`` and ``zhuoji sql``: read-only queries of the warehouse."""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import duckdb
import orjson
import typer
from rich.console import Console
from rich.table import Table

from flows.app import app
from flows.warehouse import (
    QueryResult,
    WarehouseError,
    open_reader,
    report_description,
    report_names,
    report_parameters,
    run_query,
    run_report,
)


class OutputFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"
    JSON = "json"


DbOption = Annotated[Path, typer.Option("--db", help="the DuckDB file")]
FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="table, csv or json")]


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``k=v`` texts to a mapping; raises ``WarehouseError`` for a malformed one."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise WarehouseError(f"expected --param KEY=VALUE, got {item!r}")
        params[key.strip()] = value
    return params


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e15 else str(value)
    if isinstance(value, list | tuple):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _json_default(value: Any) -> Any:
    return str(value)


def write_result(result: QueryResult, fmt: OutputFormat) -> None:
    """Print a result to standard output in the chosen format."""
    if fmt is OutputFormat.CSV:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_cell(v) for v in row])
        return
    if fmt is OutputFormat.JSON:
        records = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
        sys.stdout.write(
            orjson.dumps(
                records,
                default=_json_default,
                option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS,
            ).decode()
            + "\n"
        )
        return
    table = Table(show_lines=False)
    for i, column in enumerate(result.columns):
        values = [row[i] for row in result.rows if row[i] is not None]
        numeric = bool(values) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        )
        table.add_column(column, justify="right" if numeric else "left")
    for row in result.rows:
        table.add_row(*(_cell(v) for v in row))
    # On a terminal rich fits the table to its width; elsewhere (a pipe, a file) nothing
    # is cut: the table takes the width it needs.
    console = Console() if sys.stdout.isatty() else Console(width=100_000)
    console.print(table)
    console.print(f"{len(result.rows)} rows", style="dim")


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(1)


@app.command("report")
def report_command(
    name: Annotated[str | None, typer.Argument(help="the report (see --list)")] = None,
    db: DbOption = Path("zhuoji.duckdb"),
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="a parameter, KEY=VALUE")
    ] = None,
    fmt: FormatOption = OutputFormat.TABLE,
    list_reports: Annotated[
        bool, typer.Option("--list", help="list the reports and their parameters")
    ] = False,
) -> None:
    """Run one of the SQL reports of sql/reports/ against the database (read-only)."""
    if list_reports or name is None:
        for report in report_names():
            wanted = " ".join(f"--param {p}=..." for p in report_parameters(report))
            typer.echo(
                f"{report:24} {report_description(report)}" + (f"  [{wanted}]" if wanted else "")
            )
        if name is None and not list_reports:
            raise typer.Exit(2)
        return
    try:
        params = parse_params(param or [])
        con = open_reader(db)
        try:
            result = run_report(con, name, params)
        finally:
            con.close()
    except (WarehouseError, duckdb.Error) as exc:
        raise _fail(exc) from None
    write_result(result, fmt)


@app.command("sql")
def sql_command(
    query: Annotated[str, typer.Argument(help="one SQL statement")],
    db: DbOption = Path("zhuoji.duckdb"),
    fmt: FormatOption = OutputFormat.TABLE,
) -> None:
    """Run one SQL statement against the database, opened read-only."""
    try:
        con = open_reader(db)
        try:
            result = run_query(con, query)
        finally:
            con.close()
    except (WarehouseError, duckdb.Error) as exc:
        raise _fail(exc) from None
    write_result(result, fmt)
