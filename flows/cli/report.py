"""``zhuoji report``, ``zhuoji sql`` and ``zhuoji export``: read-only queries of the warehouse.

Each runs on a sealed read-only connection (:func:`zhuoji.flows.warehouse.reader.open_reader`): a
query
reads the database and nothing else, and writes nothing. ``zhuoji export`` writes a
result to a file itself, never through the query. DuckDB and Rich are imported when a
command runs.

A result is never held whole: its rows are fetched from DuckDB a batch at a time and
written as they come (CSV, JSON and JSON lines from DuckDB's Python rows, Parquet from its
Arrow record batches), so a result of any size takes the memory of one batch. A table,
made for reading, shows its first ``--max-rows`` rows and counts the rest.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from itertools import repeat
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from zhuoji.flows.cli.errors import EXIT_ERROR, fail, fail_sql
from zhuoji.flows.cli.jsonout import JsonOption, print_json, use_json
from zhuoji.flows.cli.lang import LangOption, current_lang, t, use_lang
from zhuoji.flows.text.terminal import echo, make_console, safe

if TYPE_CHECKING:
    import duckdb

    from zhuoji.rules.glossary import Lang


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

DEFAULT_MAX_ROWS = 1000
"""The rows a table shows unless ``--max-rows`` says otherwise."""

MaxRowsOption = Annotated[
    int,
    typer.Option(
        "--max-rows",
        min=0,
        help="The rows a table shows (the rest are counted; 0 shows all, up to 100,000). CSV "
        "and JSON hold every row.",
    ),
]

TABLE_ROWS_LIMIT = 100_000
"""The most rows a table holds: rich sizes its columns over every row, so the rows are
kept in memory (a few KB each as rich draws them; 100,000 rows take about 350 MB and
16 s); more is refused, pointing to CSV and JSON, which
stream every row."""

BATCH_ROWS = 10_000
"""The rows fetched from DuckDB at a time (CSV, JSON, a table)."""

ARROW_BATCH_ROWS = 65_536
"""The rows of one Arrow record batch written to a Parquet file."""


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``k=v`` texts to a mapping; raises ``WarehouseError`` for a malformed one."""
    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            from zhuoji.rules.messages import Message

            raise WarehouseError(Message("expected --param KEY=VALUE, got {q:any}", repr(item)))
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


# DuckDB's types whose Python values the csv module writes as _cell writes them (str(),
# None as ""): a column of one of these is written as it comes, any other through _cell.
_PLAIN_TYPES = frozenset({
    "boolean", "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint",
    "usmallint", "uinteger", "ubigint", "uhugeint", "decimal", "varchar", "blob", "enum",
    "uuid", "date", "time", "time with time zone", "timestamp", "timestamp with time zone",
    "timestamp_s", "timestamp_ms", "timestamp_ns", "interval",
})


def _cells(batch: list[tuple[Any, ...]], plain: Sequence[bool]) -> Iterable[Sequence[Any]]:
    """A batch's rows as ``zhuoji sql`` writes them to CSV (``_cell`` of each value),
    converting only the columns that need it."""
    if all(plain):
        return batch
    columns: list[Sequence[Any]] = list(zip(*batch, strict=True))
    for i, as_is in enumerate(plain):
        if not as_is:
            columns[i] = list(map(_cell, columns[i]))
    return zip(*columns, strict=True)


def _records(columns: Sequence[str], batch: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    return list(map(dict, map(zip, repeat(columns), batch)))


def column_title(column: str, lang: Lang) -> str:
    """A column's header in a table: its name in English, its Chinese from the glossary
    (the name when the glossary has none)."""
    if lang == "en":
        return column
    from zhuoji.rules.glossary import glossary

    pair = glossary().terms["column"].get(column)
    return column if pair is None else pair[1]


# --- running a query ---------------------------------------------------------------------------


def _fail(exc: Exception) -> typer.Exit:
    return fail(exc)


@contextmanager
def _clear_errors(query: str | None = None) -> Iterator[None]:
    """A warehouse or DuckDB error inside ends the command as one line; DuckDB's with
    the place in ``query`` under it (``LINE 1: ...`` and the caret)."""
    import duckdb

    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    try:
        yield
    except WarehouseError as exc:
        raise _fail(exc) from None
    except duckdb.Error as exc:
        raise fail_sql(exc, query) from None


class Query:
    """A statement ready to run on an open sealed connection: a user's query (checked to
    be one statement that reads) or a report with its parameters bound."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, text: str, params: Mapping[str, Any] | None
    ) -> None:
        self.con = con
        self.text = text
        self.params = dict(params) if params else None
        self.types: tuple[str, ...] = ()

    def rows(self) -> tuple[tuple[str, ...], Iterator[list[tuple[Any, ...]]]]:
        """The result's columns, and its rows a batch at a time (never all at once)."""
        with _clear_errors(self.text):
            self.con.execute(self.text, self.params)
            description = self.con.description or []
        columns = tuple(str(d[0]) for d in description)
        self.types = tuple(str(getattr(d[1], "id", "")) for d in description)
        return columns, self._batches(bool(columns))

    def _batches(self, any_columns: bool) -> Iterator[list[tuple[Any, ...]]]:
        if not any_columns:
            return
        while True:
            with _clear_errors(self.text):
                batch = self.con.fetchmany(BATCH_ROWS)
            if not batch:
                return
            yield batch


@contextmanager
def open_query(
    db: Path, *, sql: str | None = None, report: str | None = None, param: Sequence[str] = ()
) -> Iterator[Query]:
    """The connection and statement of ``zhuoji sql`` (``sql``) or ``zhuoji report``
    (``report``, ``param``); the connection is closed on leaving."""
    from zhuoji.flows.warehouse.reader import check_query, open_reader
    from zhuoji.flows.warehouse.reports import bind_report_parameters, read_report

    with _clear_errors():
        params = parse_params(param) if report is not None else {}
        con = open_reader(db, sealed=True)
    try:
        with _clear_errors(sql):
            if report is not None:
                text = read_report(report)
                bound: Mapping[str, Any] | None = bind_report_parameters(
                    report, params, "--param {}=VALUE"
                )
            else:
                assert sql is not None
                check_query(con, sql)
                text, bound = sql, None
        yield Query(con, text, bound)
    finally:
        con.close()


# --- sql and report: standard output -------------------------------------------------------------


def write_result(
    query: Query, fmt: OutputFormat, lang: Lang = "en", max_rows: int = DEFAULT_MAX_ROWS
) -> None:
    """Print a result to standard output in the chosen format, a batch at a time (a
    table's headers in ``lang``, its first ``max_rows`` rows, 0 for all; CSV and JSON keep
    the columns' names and hold every row)."""
    columns, batches = query.rows()
    if fmt is OutputFormat.CSV:
        plain = [t in _PLAIN_TYPES for t in query.types]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for batch in batches:
            writer.writerows(_cells(batch, plain))
            sys.stdout.write(buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
        sys.stdout.write(buffer.getvalue())
        return
    if fmt is OutputFormat.JSON:
        import orjson

        # One array, indented as orjson indents it whole: each batch is dumped as an array
        # and its items joined to the ones before.
        option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
        first = True
        for batch in batches:
            dumped = orjson.dumps(_records(columns, batch), default=_json_default, option=option)
            sys.stdout.write(dumped[:-2].decode() if first else ",\n" + dumped[2:-2].decode())
            first = False
        sys.stdout.write("[]\n" if first else "\n]\n")
        return
    _write_table(columns, batches, lang, max_rows)


def _write_table(
    columns: tuple[str, ...],
    batches: Iterator[list[tuple[Any, ...]]],
    lang: Lang,
    max_rows: int,
) -> None:
    from rich.table import Table
    from rich.text import Text

    from zhuoji.rules.glossary import text

    shown: list[tuple[Any, ...]] = []
    total = 0
    wanted = max_rows or None
    for batch in batches:
        total += len(batch)
        if wanted is None or len(shown) < wanted:
            shown.extend(batch if wanted is None else batch[: wanted - len(shown)])
        if len(shown) > TABLE_ROWS_LIMIT:
            from zhuoji.rules.messages import Message

            raise fail(Message(
                "a table shows at most {n:n} rows and this result has more; "
                "--format csv or json writes every row (--max-rows N shows the first N)",
                f"{TABLE_ROWS_LIMIT:,}",
            ))
    table = Table(show_lines=False)
    for i, column in enumerate(columns):
        values = [row[i] for row in shown if row[i] is not None]
        numeric = bool(values) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        )
        table.add_column(Text(safe(column_title(column, lang))),
                         justify="right" if numeric else "left")
    for row in shown:
        # Text, not markup: a cell "[red]x" is printed as it is; escapes made visible.
        table.add_row(*(Text(safe(_cell(v))) for v in row))
    # On a terminal rich fits the table to its width; elsewhere (a pipe, a file) nothing
    # is cut: the table takes the width it needs.
    console = make_console() if sys.stdout.isatty() else make_console(width=100_000)
    console.print(table)
    console.print(text("{n} rows", lang, n=total), style="dim")
    if total > len(shown):
        console.print(
            text(
                "the first {shown} shown, {left} left out (--max-rows N shows more, 0 all; "
                "--format csv or json holds every row)",
                lang,
                shown=f"{len(shown):,}",
                left=f"{total - len(shown):,}",
            ),
            style="dim",
        )


def _list_reports(fmt: OutputFormat = OutputFormat.TABLE) -> None:
    """The reports of ``sql/reports/`` (the dashboard's own queries are none): one line
    each; with ``--format json`` an array of ``{"name", "description", "parameters",
    "view"}`` (``view``: ``reports.NAME``, null for a report with parameters), with
    ``csv`` those as columns (the parameters separated by spaces)."""
    from zhuoji.flows.warehouse.catalog import REPORT_SCHEMA
    from zhuoji.flows.warehouse.reports import report_description, report_names, report_parameters

    listed = [
        (name, report_description(name), report_parameters(name)) for name in report_names()
    ]
    views = [None if wanted else f"{REPORT_SCHEMA}.{name}" for name, _, wanted in listed]
    if fmt is OutputFormat.JSON:
        import orjson

        records = [
            {"name": name, "description": text, "parameters": list(wanted), "view": view}
            for (name, text, wanted), view in zip(listed, views, strict=True)
        ]
        sys.stdout.write(orjson.dumps(records, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    if fmt is OutputFormat.CSV:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["name", "description", "parameters", "view"])
        writer.writerows(
            [name, text, " ".join(wanted), view or ""]
            for (name, text, wanted), view in zip(listed, views, strict=True)
        )
        sys.stdout.write(buffer.getvalue())
        return
    lang = current_lang()  # the table in the invocation's language (the data stay English)
    for name, _, wanted in listed:
        text = report_description(name, lang)
        options = " ".join(f"--param {p}=..." for p in wanted)
        echo(f"{name:24} {text}" + (f"  [{options}]" if options else ""))


def report_command(
    name: Annotated[str | None, typer.Argument(help="The report (see --list).")] = None,
    db: DbOption = Path("zhuoji.duckdb"),
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A parameter, KEY=VALUE.")
    ] = None,
    fmt: FormatOption = OutputFormat.TABLE,
    max_rows: MaxRowsOption = DEFAULT_MAX_ROWS,
    list_reports: Annotated[
        bool, typer.Option("--list", help="List the reports and their parameters.")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Run one of the SQL reports of sql/reports/ against the database (read-only).

    The rows are written as DuckDB yields them, a batch at a time; a table shows the first
    --max-rows of them (1000 by default) and counts the rest.

    Exit status: 0 on success, 2 on an error (an unknown report, a missing parameter, a
    missing or busy database).
    """
    language = use_lang(lang)
    if list_reports or name is None:
        _list_reports(fmt)
        if name is None and not list_reports:
            raise typer.Exit(EXIT_ERROR)
        return
    with open_query(db, report=name, param=param or []) as query:
        write_result(query, fmt, language, max_rows)


def sql_command(
    query: Annotated[str, typer.Argument(help="One SQL statement that reads.")],
    db: DbOption = Path("zhuoji.duckdb"),
    fmt: FormatOption = OutputFormat.TABLE,
    max_rows: MaxRowsOption = DEFAULT_MAX_ROWS,
    lang: LangOption = None,
) -> None:
    """Run one SQL statement against the database, opened read-only.

    The statement is one SELECT (or WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE,
    EXPLAIN, PRAGMA, CALL); several statements, or one that writes, are refused. The
    query reaches only the database: no file is read or written (read_csv, COPY, ATTACH
    are refused), no extension is loaded, no setting is changed. To write a result to a
    file, use `zhuoji export`.

    The rows are written as DuckDB yields them, a batch at a time; a table shows the first
    --max-rows of them (1000 by default) and counts the rest.

    Exit status: 0 on success, 2 on an error.
    """
    language = use_lang(lang)
    with open_query(db, sql=query) as ready:
        write_result(ready, fmt, language, max_rows)


# --- export: a file ----------------------------------------------------------------------------


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
        from zhuoji.rules.messages import Message

        raise typer.BadParameter(
            Message("cannot tell the format from {name:any} (suffixes: {known:any}); give "
                    "--format", repr(out.name), known),
            param_hint="--out",
        )
    return found


def export_target(out: Path, db: Path, force: bool) -> Path:
    """The file ``zhuoji export`` writes for ``--out out``: ``out``, or the file it links
    to. Refused (one line, exit 2): the database or its WAL, anything but a regular file
    (a folder, a device, a named pipe, a socket), an existing file without ``force``, a
    missing folder."""
    from zhuoji.flows.cli.outputs import output_target

    wal_names = [Path(f"{db}.wal"), Path(f"{os.path.realpath(db)}.wal")]
    inputs = [("the database", [db]), ("the database's write-ahead log", wal_names)]
    return output_target(out, command="export", option="--out", inputs=inputs, force=force)


def write_export(query: Query, target: Path, fmt: ExportFormat, out: Path, db: Path,
                 force: bool) -> int:
    """Write the result to ``target`` whole or not at all
    (:func:`zhuoji.flows.cli.outputs.write_whole`:
    a locked ``.partial-PID-NAME`` beside it, renamed into place once complete and once
    ``target`` is checked again). Returns the rows written."""
    from zhuoji.flows.cli.outputs import write_whole

    return write_whole(
        target, out,
        lambda _partial, f: _write_format(query, f, fmt, out),
        lambda: export_target(out, db, force),
    )


def _write_format(query: Query, f: IO[bytes], fmt: ExportFormat, out: Path) -> int:
    if fmt is ExportFormat.PARQUET:
        return _write_parquet(query, f, out)
    columns, batches = query.rows()
    rows = 0
    if fmt is ExportFormat.CSV:
        # The csv module writes None as an empty field, and every value exactly.
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for batch in batches:
            writer.writerows(batch)
            f.write(buffer.getvalue().encode())
            buffer.seek(0)
            buffer.truncate()
            rows += len(batch)
        f.write(buffer.getvalue().encode())
        return rows
    import orjson

    option = orjson.OPT_NON_STR_KEYS
    if fmt is ExportFormat.JSON:
        for batch in batches:
            dumped = orjson.dumps(_records(columns, batch), default=_json_default, option=option)
            f.write(dumped[:-1] if rows == 0 else b"," + dumped[1:-1])
            rows += len(batch)
        f.write(b"]\n" if rows else b"[]\n")
        return rows
    for batch in batches:
        f.write(b"".join(
            orjson.dumps(record, default=_json_default, option=option) + b"\n"
            for record in _records(columns, batch)
        ))
        rows += len(batch)
    return rows


def _write_parquet(query: Query, f: IO[bytes], out: Path) -> int:
    """Arrow record batches straight from DuckDB (its own column types), a batch at a
    time; repeated column names get ``_1``, ``_2``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 0
    try:
        with _clear_errors(query.text):
            relation = query.con.sql(query.text, params=query.params)
            reader = None if relation is None else relation.to_arrow_reader(ARROW_BATCH_ROWS)
        found = pa.schema([]) if reader is None else reader.schema
        schema = pa.schema([
            field.with_name(name) for field, name in zip(found, _unique(found.names),
                                                         strict=True)
        ])
        with pq.ParquetWriter(f, schema) as writer:
            while reader is not None:
                with _clear_errors(query.text):
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        break
                writer.write_batch(pa.RecordBatch.from_arrays(batch.columns, schema=schema))
                rows += batch.num_rows
    except pa.ArrowException as exc:
        from zhuoji.rules.messages import Message

        raise fail(Message("cannot write {out:any} as Parquet: {d:external}", safe(out),
                           str(exc).splitlines()[0])) from None
    return rows


def _unique(columns: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for column in columns:
        n = seen.get(column, 0)
        seen[column] = n + 1
        out.append(column if n == 0 else f"{column}_{n}")
    return out


def export_command(
    out: Annotated[
        str,
        typer.Option(
            "--out", "-o", metavar="<path>",
            help="The file to write (.parquet, .csv, .json or .jsonl): a new path or a "
            "regular file, never the database.",
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
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Write the result of a query or a report to a file.

    The query runs as `zhuoji sql` runs it (read-only, one statement, no file access);
    this command writes the file, a batch of rows at a time, whole or not at all. An
    existing file is kept unless --force is given. Refused: the database itself (or its
    .wal), and anything that is not a regular file (a folder, a device such as /dev/null,
    a named pipe).

    Exit status: 0 when the file is written, 2 on an error.
    """
    use_lang(lang)
    from zhuoji.rules.messages import Message

    use_json(json_output)
    if not out:
        raise typer.BadParameter(Message("is empty; name the file to write"),
                                 param_hint="--out")
    if (query is None) == (report is None):
        raise typer.BadParameter(Message("give exactly one of --sql and --report"),
                                 param_hint="--sql")
    if param and report is None:
        raise typer.BadParameter(Message("--param goes with --report"), param_hint="--param")
    path = Path(out)
    chosen = export_format(path, fmt)
    target = export_target(path, db, force)
    from zhuoji.flows.cli.outputs import interruptible

    with (
        interruptible(),
        open_query(db, sql=query, report=report, param=param or []) as ready,
    ):
        rows = write_export(ready, target, chosen, path, db, force)
    if json_output:
        print_json({"out": out, "format": chosen.value, "rows": rows, "db": str(db)})
        return
    echo(t("wrote {rows} rows to {path}", rows=f"{rows:,}", path=safe(path)))
