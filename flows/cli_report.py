"""``zhuoji report``, ``zhuoji sql`` and ``zhuoji export``: read-only queries of the warehouse.

Each runs on a sealed read-only connection (:func:`flows.warehouse.open_reader`): a query
reads the database and nothing else, and writes nothing. ``zhuoji export`` writes a
result to a file itself, never through the query. DuckDB and Rich are imported when a
command runs.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.app import app
from flows.cli_errors import EXIT_ERROR, fail
from flows.cli_lang import LangOption, use_lang
from flows.cli_text import echo, make_console, safe

if TYPE_CHECKING:
    from flows.warehouse import QueryResult
    from rules.glossary import Lang


class OutputFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"
    JSON = "json"


DbOption = Annotated[Path, typer.Option("--db", help="The DuckDB file.")]
FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format", "-f", help="table (control characters escaped), csv or json (exact values)."
    ),
]


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``k=v`` texts to a mapping; raises ``WarehouseError`` for a malformed one."""
    from flows.warehouse import WarehouseError

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


def column_title(column: str, lang: Lang) -> str:
    """A column's header in a table: its name in English, its Chinese from the glossary
    (the name when the glossary has none)."""
    if lang == "en":
        return column
    from rules.glossary import glossary

    pair = glossary().terms["column"].get(column)
    return column if pair is None else pair[1]


def write_result(result: QueryResult, fmt: OutputFormat, lang: Lang = "en") -> None:
    """Print a result to standard output in the chosen format (a table's headers in
    ``lang``; CSV and JSON keep the columns' names)."""
    if fmt is OutputFormat.CSV:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_cell(v) for v in row])
        return
    if fmt is OutputFormat.JSON:
        import orjson

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
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False)
    for i, column in enumerate(result.columns):
        values = [row[i] for row in result.rows if row[i] is not None]
        numeric = bool(values) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        )
        table.add_column(Text(safe(column_title(column, lang))),
                         justify="right" if numeric else "left")
    for row in result.rows:
        # Text, not markup: a cell "[red]x" is printed as it is; escapes made visible.
        table.add_row(*(Text(safe(_cell(v))) for v in row))
    # On a terminal rich fits the table to its width; elsewhere (a pipe, a file) nothing
    # is cut: the table takes the width it needs.
    console = make_console() if sys.stdout.isatty() else make_console(width=100_000)
    console.print(table)
    from rules.glossary import text

    console.print(text("{n} rows", lang, n=len(result.rows)), style="dim")


def _fail(exc: Exception) -> typer.Exit:
    return fail(str(exc))


def _list_reports() -> None:
    from flows.warehouse import report_description, report_names, report_parameters

    for report in report_names():
        wanted = " ".join(f"--param {p}=..." for p in report_parameters(report))
        echo(
            f"{report:24} {report_description(report)}" + (f"  [{wanted}]" if wanted else "")
        )


def query_report(db: Path, name: str, param: Sequence[str]) -> QueryResult:
    """A report's result, on a sealed read-only connection."""
    from flows.warehouse import open_reader, run_report

    params = parse_params(param)
    con = open_reader(db, sealed=True)
    try:
        return run_report(con, name, params)
    finally:
        con.close()


def query_sql(db: Path, query: str) -> QueryResult:
    """The result of one statement that reads, on a sealed read-only connection."""
    from flows.warehouse import check_query, open_reader, run_query

    con = open_reader(db, sealed=True)
    try:
        check_query(con, query)
        return run_query(con, query)
    finally:
        con.close()


def _run(job: Any, *args: Any) -> QueryResult:
    import duckdb

    from flows.warehouse import WarehouseError

    try:
        result: QueryResult = job(*args)
    except (WarehouseError, duckdb.Error) as exc:
        raise _fail(exc) from None
    return result


@app.command("report")
def report_command(
    name: Annotated[str | None, typer.Argument(help="The report (see --list).")] = None,
    db: DbOption = Path("zhuoji.duckdb"),
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A parameter, KEY=VALUE.")
    ] = None,
    fmt: FormatOption = OutputFormat.TABLE,
    list_reports: Annotated[
        bool, typer.Option("--list", help="List the reports and their parameters.")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Run one of the SQL reports of sql/reports/ against the database (read-only).

    Exit status: 0 on success, 2 on an error (an unknown report, a missing parameter, a
    missing or busy database).
    """
    language = use_lang(lang)
    if list_reports or name is None:
        _list_reports()
        if name is None and not list_reports:
            raise typer.Exit(EXIT_ERROR)
        return
    write_result(_run(query_report, db, name, param or []), fmt, language)


@app.command("sql")
def sql_command(
    query: Annotated[str, typer.Argument(help="One SQL statement that reads.")],
    db: DbOption = Path("zhuoji.duckdb"),
    fmt: FormatOption = OutputFormat.TABLE,
    lang: LangOption = None,
) -> None:
    """Run one SQL statement against the database, opened read-only.

    The statement is one SELECT (or WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE,
    EXPLAIN, PRAGMA, CALL); several statements, or one that writes, are refused. The
    query reaches only the database: no file is read or written (read_csv, COPY, ATTACH
    are refused), no extension is loaded, no setting is changed. To write a result to a
    file, use `zhuoji export`.

    Exit status: 0 on success, 2 on an error.
    """
    write_result(_run(query_sql, db, query), fmt, use_lang(lang))


class ExportFormat(StrEnum):
    PARQUET = "parquet"
    CSV = "csv"
    JSON = "json"
    JSONL = "jsonl"


_SUFFIX_FORMATS = {
    ".parquet": ExportFormat.PARQUET,
    ".csv": ExportFormat.CSV,
    ".json": ExportFormat.JSON,
    ".jsonl": ExportFormat.JSONL,
    ".ndjson": ExportFormat.JSONL,
}


def export_format(out: Path, fmt: ExportFormat | None) -> ExportFormat:
    """The format asked for, else the one the file's suffix names."""
    if fmt is not None:
        return fmt
    found = _SUFFIX_FORMATS.get(out.suffix.lower())
    if found is None:
        known = ", ".join(_SUFFIX_FORMATS)
        raise typer.BadParameter(
            f"cannot tell the format from {out.name!r} (suffixes: {known}); give --format",
            param_hint="--out",
        )
    return found


def write_export(result: QueryResult, out: Path, fmt: ExportFormat) -> None:
    """Write a result to ``out`` whole or not at all (a temporary file in the same
    folder, renamed into place)."""
    partial = out.with_name(f".partial-{os.getpid()}-{out.name}")
    try:
        if fmt is ExportFormat.PARQUET:
            import pyarrow as pa
            import pyarrow.parquet as pq

            columns = list(zip(*result.rows, strict=True)) if result.rows else [
                () for _ in result.columns
            ]
            table = pa.table({c: list(v) for c, v in zip(_unique(result.columns), columns,
                                                          strict=True)})
            pq.write_table(table, partial)
        elif fmt is ExportFormat.CSV:
            with partial.open("w", encoding="utf-8", newline="") as f:
                writer = csv.writer(f, lineterminator="\n")
                writer.writerow(result.columns)
                writer.writerows([_csv_cell(v) for v in row] for row in result.rows)
        else:
            import orjson

            records = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
            with partial.open("wb") as f:
                if fmt is ExportFormat.JSON:
                    f.write(orjson.dumps(records, default=_json_default,
                                         option=orjson.OPT_NON_STR_KEYS) + b"\n")
                else:
                    for record in records:
                        f.write(orjson.dumps(record, default=_json_default,
                                             option=orjson.OPT_NON_STR_KEYS) + b"\n")
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _unique(columns: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for column in columns:
        n = seen.get(column, 0)
        seen[column] = n + 1
        out.append(column if n == 0 else f"{column}_{n}")
    return out


def _csv_cell(value: Any) -> Any:
    return "" if value is None else value


@app.command("export")
def export_command(
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="The file to write (.parquet, .csv, .json or .jsonl)."
        ),
    ],
    query: Annotated[
        str | None, typer.Option("--sql", help="One SQL statement that reads (as zhuoji sql).")
    ] = None,
    report: Annotated[
        str | None, typer.Option("--report", help="A report of sql/reports/ (see report --list).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A report parameter, KEY=VALUE.")
    ] = None,
    db: DbOption = Path("zhuoji.duckdb"),
    fmt: Annotated[
        ExportFormat | None,
        typer.Option("--format", "-f", help="parquet, csv, json or jsonl (default: from --out)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the file when it exists.")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Write the result of a query or a report to a file.

    The query runs as `zhuoji sql` runs it (read-only, one statement, no file access);
    this command writes the file, whole or not at all. An existing file is kept unless
    --force is given.

    Exit status: 0 when the file is written, 2 on an error.
    """
    use_lang(lang)
    if (query is None) == (report is None):
        raise typer.BadParameter("give exactly one of --sql and --report", param_hint="--sql")
    if param and report is None:
        raise typer.BadParameter("--param goes with --report", param_hint="--param")
    chosen = export_format(out, fmt)
    if out.exists() and not force:
        raise fail(f"{out} exists; give --force to replace it")
    if report is not None:
        result = _run(query_report, db, report, param or [])
    else:
        assert query is not None
        result = _run(query_sql, db, query)
    write_export(result, out, chosen)
    echo(f"wrote {len(result.rows):,} rows to {safe(out)}")
