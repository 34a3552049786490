"""``zhuoji export``: a query's result as a file (``--out``), or the whole warehouse as a
DuckDB file that DuckDB 1.x and the BI tools built on it open (``--database``).

``--out`` is :func:`zhuoji.flows.cli.report.export_command`, unchanged. ``--database``
writes through :func:`zhuoji.flows.warehouse.export.export_database` as every file the
command line writes is written (:mod:`zhuoji.flows.cli.outputs`): never over the warehouse
or its write-ahead log (however spelt), never over a folder, a device or a named pipe, an
existing file only with ``--force`` (and not while a DuckDB client holds it open for
writing), whole or not at all (a ``.partial-PID-NAME`` beside it, renamed into place once
the copy is checked; removed on an error, Ctrl-C, SIGTERM or SIGHUP).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, NoReturn

import typer

from zhuoji.flows.cli.errors import fail, set_json_errors
from zhuoji.flows.cli.jsonout import JsonOption
from zhuoji.flows.cli.lang import LangOption, use_lang
from zhuoji.flows.cli.report import DbOption, ExportFormat
from zhuoji.flows.text.terminal import echo, safe

if TYPE_CHECKING:
    from zhuoji.flows.warehouse.export import ExportResult
    from zhuoji.rules.glossary import Lang

__all__ = ["export_command"]


def _t(english: str, lang: Lang, **fields: object) -> str:
    from zhuoji.rules.glossary import text

    return text(english, lang, **fields)


def database_target(out: Path, db: Path, force: bool) -> Path:
    """The file ``export --database out`` writes: ``out``, or the file it links to.
    Refused (one line, exit 2): the warehouse or its write-ahead log, anything but a
    regular file or a new path, an existing file without ``force`` or while a DuckDB
    client may write to it, a missing folder."""
    from zhuoji.flows.cli.outputs import output_target
    from zhuoji.flows.warehouse.export import check_out_file

    wal_names = [Path(f"{db}.wal"), Path(f"{os.path.realpath(db)}.wal")]
    inputs = [("the database", [db]), ("the database's write-ahead log", wal_names)]
    target = output_target(out, command="export", option="--database", inputs=inputs,
                           force=force)
    check_out_file(out, target)
    return target


def _result_json(out: Path, db: Path, result: ExportResult, size: int) -> dict[str, object]:
    import duckdb

    return {
        "database": str(out),
        "db": str(db),
        "storage_version": result.storage_version,
        "readable_from": result.readable_from,
        "written_by": f"DuckDB {duckdb.__version__}",
        "bytes": size,
        "rows": result.rows,
        "tables": [{"schema": t.schema, "table": t.table, "rows": t.rows}
                   for t in result.tables],
        "views": list(result.views),
    }


def export_whole_database(
    out_text: str, db: Path, storage_version: str, force: bool, json_output: bool,
    lang: Lang,
) -> None:
    """``zhuoji export --database OUT``: the warehouse ``db`` copied whole into OUT."""
    from zhuoji.flows.cli.outputs import remove_stale_partials, write_whole
    from zhuoji.flows.warehouse.export import check_storage_version, export_database
    from zhuoji.flows.warehouse.sqlfiles import WarehouseError

    if not out_text:
        raise fail(_t("--database is empty; name the DuckDB file to write", lang))
    out = Path(out_text)
    try:
        version = check_storage_version(storage_version)
        target = database_target(out, db, force)
        # what an export killed mid-copy (SIGKILL) left: its copy's write-ahead log
        remove_stale_partials(Path(f"{target}.wal"))

        def write(partial: Path, _f: IO[bytes]) -> ExportResult:
            os.unlink(partial)  # DuckDB makes the file itself (it refuses an empty one)
            return export_database(db, partial, version)

        result = write_whole(target, out, write, lambda: database_target(out, db, force))
    except WarehouseError as exc:  # an ExportError among them
        raise fail(exc) from None
    size = os.path.getsize(target)
    if json_output:
        import orjson

        sys.stdout.write(orjson.dumps(_result_json(out, db, result, size)).decode() + "\n")
        return
    echo(_t(
        "wrote {out}: {tables} tables ({rows} rows) and {views} views, DuckDB storage "
        "version {version} (DuckDB {readable} and later open it)",
        lang, out=safe(out), tables=len(result.tables), rows=f"{result.rows:,}",
        views=len(result.views), version=result.storage_version,
        readable=result.readable_from,
    ))


def export_command(
    ctx: typer.Context,
    out: Annotated[
        str | None,
        typer.Option(
            "--out", "-o", metavar="<path>",
            help="The file to write (.parquet, .csv, .json or .jsonl): a new path or a "
            "regular file, never the database.",
        ),
    ] = None,
    query: Annotated[
        str | None, typer.Option("--sql", help="One SQL statement that reads (as zhuoji sql).")
    ] = None,
    report: Annotated[
        str | None, typer.Option("--report", help="A report of sql/reports/ (see report --list).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A report parameter, KEY=VALUE.")
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database", metavar="<path>",
            help="Write the whole warehouse (every table, view and comment) to this DuckDB "
            "file, in a storage format DuckDB 1.x and BI tools open: a new path or a "
            "regular file, never the database.",
        ),
    ] = None,
    storage_version: Annotated[
        str | None,
        typer.Option(
            "--storage-version", metavar="<vX.Y.Z>",
            help="With --database: the oldest DuckDB release that must open the file "
            "(v1.0.0, the default, opens in DuckDB 0.10 and later; v1.4.0; latest).",
        ),
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
    """Write the result of a query or a report to a file (--out), or the whole
    warehouse to a DuckDB file BI tools open (--database).

    --out: the query runs as `zhuoji sql` runs it (read-only, one statement, no file
    access); this command writes the file, a batch of rows at a time, whole or not at
    all.

    --database: every schema, table, view and comment of the warehouse, copied into a
    DuckDB file in an older storage format (--storage-version, v1.0.0 by default), so that
    DuckDB 1.x and the BI tools built on it (Evidence, DBeaver, Metabase) open it; the
    copy is checked against the warehouse (rows, views, comments) before it is put in
    place.

    An existing file is kept unless --force is given. Refused: the database itself (or
    its .wal), and anything that is not a regular file (a folder, a device such as
    /dev/null, a named pipe).

    Exit status: 0 when the file is written, 2 on an error.
    """
    from zhuoji.flows.cli.report import export_command as export_query
    from zhuoji.flows.warehouse.export import DEFAULT_STORAGE_VERSION

    language = use_lang(lang)
    set_json_errors(json_output)
    if database is not None:
        given = [name for name, value in (("--out", out), ("--sql", query),
                                          ("--report", report), ("--param", param),
                                          ("--format", fmt)) if value]
        if given:
            raise fail(_t(
                "{options} and --database do not go together: --database writes the whole "
                "warehouse, {options} a query's result", language, options=", ".join(given),
            ))
        export_whole_database(database, db, storage_version or DEFAULT_STORAGE_VERSION,
                              force, json_output, language)
        return
    if storage_version:
        raise fail(_t("{option} goes with --database", language, option="--storage-version"))
    if out is None:
        if query is None and report is None:
            raise fail(_t(
                "give --database OUT.duckdb (the whole warehouse) or --out FILE with --sql "
                "or --report (a query's result)", language,
            ))
        _missing_out(ctx)
    export_query(out=out, query=query, report=report, param=param, db=db, fmt=fmt,
                 force=force, json_output=json_output, lang=lang)


def _missing_out(ctx: typer.Context) -> NoReturn:
    """A query's export without ``--out``: Click's own usage error, as when ``--out``
    was required."""
    try:
        from typer._click.exceptions import MissingParameter
    except ImportError:  # pragma: no cover - an older typer (click's classes)
        from click.exceptions import MissingParameter  # type: ignore[assignment]
    param = next(p for p in ctx.command.params if p.name == "out")
    raise MissingParameter(ctx=ctx, param=param)  # type: ignore[arg-type]
