"""The whole warehouse as a DuckDB file that DuckDB 1.x opens (``zhuoji export --database``).

The warehouse is written by the DuckDB release the project pins (2.x), in that release's
storage format (storage version 69); DuckDB 1.x, and the BI tools built on it (Evidence's
DuckDB connector, DBeaver's, Metabase's), refuse to open it. DuckDB 2 still writes the
older formats: :func:`export_database` attaches a new file with ``STORAGE_VERSION`` (by
default :data:`DEFAULT_STORAGE_VERSION`) and copies the warehouse into it with
``COPY FROM DATABASE``: every schema, table and row, view, comment (of tables, views and
columns), macro, sequence, type and index.

The warehouse is only read: it is opened read-only (:func:`open_reader`, which refuses a
missing, busy or damaged file as every reading command does), and the copy is checked
against it before the command puts the file in place: the same objects with the same
comments, each table the same number of rows, each view binding. A comment or a view the
copy lacks is given to it again from the warehouse's catalogue; anything else missing
is an error, and nothing is written.

Measured with DuckDB 2.0.1 writing and DuckDB 1.5.6 reading the warehouse of
``data/sample`` (docs/pipeline.md, "Opening the warehouse in BI tools"): every storage
version from v1.0.0 to v1.5.0 keeps everything above (each table's rows identical, the
views' results identical, all its comments); v1.0.0, the oldest DuckDB 2 writes, is
what every DuckDB from 0.10 on opens, hence the default. DuckDB records what a file
needs as a tag (``v1.0.0+``), reported as :attr:`ExportResult.readable_from`.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from zhuoji.flows.warehouse.sqlfiles import WarehouseError, read_sql
from zhuoji.rules.messages import Message

if TYPE_CHECKING:
    from collections.abc import Callable

    import duckdb

__all__ = [
    "DEFAULT_STORAGE_VERSION",
    "ExportError",
    "ExportResult",
    "TableRows",
    "check_out_file",
    "check_storage_version",
    "export_database",
]

DEFAULT_STORAGE_VERSION = "v1.0.0"
"""The storage version of an export unless ``--storage-version`` says otherwise: the
oldest DuckDB 2 writes, opened by DuckDB 0.10 and every 1.x release, and one that keeps
everything the warehouse holds (measured: see the module's text)."""

OLDEST_READABLE = (0, 10, 0)
"""The oldest DuckDB release that opens a file DuckDB 2 writes (storage version 64, which
DuckDB tags ``v1.0.0+``); an older version asked for would silently give that one."""

_VERSION = re.compile(r"v(\d{1,4})\.(\d{1,4})\.(\d{1,4})")


class ExportError(WarehouseError):
    """An export refused or failed (raised with a :class:`~zhuoji.rules.messages.Message`
    that says why)."""


@dataclass(frozen=True, slots=True)
class TableRows:
    schema: str
    table: str
    rows: int


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote: the storage version asked for, the DuckDB release from
    which the file opens (DuckDB's own tag, ``v1.0.0`` for ``v1.0.0+``), each table and
    its rows, the views (``schema.name``)."""

    storage_version: str
    readable_from: str
    tables: tuple[TableRows, ...]
    views: tuple[str, ...]

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)


def _duckdb_version() -> str:
    import duckdb

    return str(duckdb.__version__)


def check_storage_version(version: str) -> str:
    """``version`` when this DuckDB writes a file in that release's format that the
    release opens (``v1.4.0``, ``latest``), else :class:`ExportError`. Checked on an
    in-memory database: no file is made."""
    import duckdb

    match = _VERSION.fullmatch(version)
    if version != "latest" and match is None:
        raise ExportError(Message(
            "--storage-version {version:any} is no DuckDB release; give one such as "
            "{default:any} (the default), v1.4.0 or latest",
            version, DEFAULT_STORAGE_VERSION,
        ))
    if match is not None and tuple(int(n) for n in match.groups()) < OLDEST_READABLE:
        raise ExportError(Message(
            "--storage-version {version:any}: no DuckDB before v0.10.0 opens a file DuckDB "
            "{duckdb:any} writes; the oldest format it writes is {default:any} (the default)",
            version, _duckdb_version(), DEFAULT_STORAGE_VERSION,
        ))
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH ':memory:' AS probe (STORAGE_VERSION '{version}')")
    except duckdb.Error:
        raise ExportError(Message(
            "--storage-version {version:any} is not a DuckDB release DuckDB {duckdb:any} "
            "knows; give one such as {default:any} (the default), v1.4.0 or latest",
            version, _duckdb_version(), DEFAULT_STORAGE_VERSION,
        )) from None
    finally:
        con.close()
    return version


def check_out_file(out: Path, target: Path) -> None:
    """Refuse to replace ``target`` (the file ``out`` names) while a DuckDB client may
    still write to it: another program holds it open for writing (its lock), or its
    write-ahead log ``<file>.wal`` is there, which DuckDB would apply to the new file."""
    import fcntl

    wal = Path(f"{target}.wal")
    if os.path.lexists(wal):
        raise ExportError(Message(
            "{out:any} has a write-ahead log {wal:any}: a DuckDB client has it open for "
            "writing, or was stopped while writing; close the client (or remove {wal2:any}) "
            "and export again",
            str(out), str(wal), str(wal),
        ))
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return  # a new path (or one the write reports as it goes)
    try:
        # DuckDB's lock on a file it writes is a POSIX record lock (fcntl), which a shared
        # lock here cannot take while it is held; taking it and closing the file is free.
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        raise ExportError(Message(
            "{out:any} is open for writing in another program (a DuckDB client); close it "
            "and export again",
            str(out),
        )) from None
    finally:
        os.close(fd)


T = TypeVar("T")


def _run_interruptibly(con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """``work()`` (statements on ``con``), stopped at once by Ctrl-C or SIGTERM.

    DuckDB looks at Python's signals between the statements it runs, not inside one:
    measured, a ``COPY FROM DATABASE`` of 60,000,000 rows (25 s) ran to its end after a
    SIGTERM, and a signal inside a shorter statement ends it as a ``RuntimeError``. The
    work runs in a thread of its own; the main thread waits for it, and when its wait is
    interrupted (KeyboardInterrupt: Ctrl-C, or SIGTERM and SIGHUP under
    :func:`zhuoji.flows.cli.outputs.interruptible`) it interrupts DuckDB's statement
    until the work has ended (a statement that began after an interrupt is interrupted
    again), then raises the KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    results: list[T] = []
    failed: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            results.append(work())
        except BaseException as exc:  # handed to the main thread
            failed.append(exc)
        finally:
            done.set()

    # An Event, not Thread.join: a join interrupted by a signal's exception marks the
    # thread ended while it still runs (Python 3.11, bpo-45274), and the next join
    # returns at once.
    threading.Thread(target=run, name="zhuoji-export", daemon=True).start()
    try:
        done.wait()  # a signal's handler runs (and may raise) while it waits
    except BaseException:
        while True:
            try:
                con.interrupt()
                if done.wait(0.1):
                    break
            except KeyboardInterrupt:  # a second Ctrl-C: the work still has to end
                continue
        raise
    if failed:
        raise failed[0]
    return results[0]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


Catalog = dict[tuple[str, str, str, str | None], tuple[str | None, str | None]]
"""(kind, schema, name, column) -> (comment, definition): what a database holds."""


def _catalog(con: duckdb.DuckDBPyConnection, database: str) -> Catalog:
    rows = con.execute(read_sql("export/catalog"), {"database": database}).fetchall()
    return {(kind, schema, name, column): (comment, definition)
            for kind, schema, name, column, comment, definition in rows}


def _table_rows(
    con: duckdb.DuckDBPyConnection, database: str, catalog: Catalog
) -> tuple[TableRows, ...]:
    tables = sorted((schema, name) for kind, schema, name, _ in catalog if kind == "table")
    counted = []
    for schema, name in tables:
        found = con.execute(
            f"SELECT count(*) FROM {_quote(database)}.{_quote(schema)}.{_quote(name)}"
        ).fetchone()
        counted.append(TableRows(schema, name, int(found[0]) if found else 0))
    return tuple(counted)


def _restore(
    con: duckdb.DuckDBPyConnection, source: Catalog, copy: Catalog, into: str, home: str
) -> None:
    """Give the copy (database ``into``) a view or a comment of the warehouse's that it
    lacks. A view is made from the warehouse's definition, bound in the copy."""
    for (kind, schema, name, column), (_, definition) in sorted(source.items()):
        if kind == "view" and (kind, schema, name, column) not in copy and definition:
            con.execute(f"USE {_quote(into)}.{_quote(schema)}")
            try:
                con.execute(definition)
            finally:
                con.execute(f"USE {_quote(home)}")
    for (kind, schema, name, column), (comment, _) in sorted(source.items()):
        if comment is None or kind not in ("table", "view", "column"):
            continue
        found = copy.get((kind, schema, name, column))
        if found is not None and found[0] == comment:
            continue
        where = f"{_quote(into)}.{_quote(schema)}.{_quote(name)}"
        if kind == "column":
            assert column is not None
            what = f"COLUMN {where}.{_quote(column)}"
        else:
            what = f"{'VIEW' if kind == 'view' else 'TABLE'} {where}"
        con.execute(f"COMMENT ON {what} IS {_literal(comment)}")


def _describe(key: tuple[str, str, str, str | None]) -> str:
    kind, schema, name, column = key
    return f"{kind} {schema}.{name}" + (f".{column}" if column is not None else "")


def _differences(source: Catalog, copy: Catalog) -> list[str]:
    """What the copy lacks, has more of, or holds otherwise (a comment); a view's
    definition is not compared: DuckDB writes it again from its parsed form."""
    out = [f"no {_describe(k)}" for k in sorted(source.keys() - copy.keys())]
    out += [f"an extra {_describe(k)}" for k in sorted(copy.keys() - source.keys())]
    out += [f"another comment on {_describe(k)}" for k in sorted(source.keys() & copy.keys())
            if source[k][0] != copy[k][0]]
    return out


def export_database(db: Path, partial: Path, storage_version: str) -> ExportResult:
    """Copy the warehouse ``db`` (opened read-only) into a new DuckDB file at ``partial``
    (which must not exist) in ``storage_version``'s format, and check the copy against
    it. On any error or interruption the copy's write-ahead log is removed (the caller
    removes the copy); the warehouse is never written."""
    from zhuoji.flows.warehouse.reader import open_reader

    con = open_reader(db)
    wal = Path(f"{partial}.wal")
    try:
        return _run_interruptibly(con, lambda: _copy(con, db, partial, storage_version))
    except BaseException:
        con.close()
        wal.unlink(missing_ok=True)
        raise
    finally:
        con.close()


def _copy(
    con: duckdb.DuckDBPyConnection, db: Path, partial: Path, storage_version: str
) -> ExportResult:
    import duckdb

    # DuckDB draws a progress bar on standard output for a statement running over 2 s
    con.execute("SET enable_progress_bar = false")
    home = str(con.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
    into = f"zhuoji_export_{os.getpid()}"
    path = os.path.abspath(partial)
    # READ_WRITE: the warehouse's connection is read-only, and so would an attached
    # database be by default
    con.execute(
        f"ATTACH {_literal(path)} AS {_quote(into)} "
        f"(STORAGE_VERSION '{storage_version}', READ_WRITE)"
    )
    con.execute(f"COPY FROM DATABASE {_quote(home)} TO {_quote(into)}")
    source = _catalog(con, home)
    copy = _catalog(con, into)
    if _differences(source, copy):
        _restore(con, source, copy, into, home)
        copy = _catalog(con, into)
    wrong = _differences(source, copy)
    theirs = _table_rows(con, home, source)
    ours = _table_rows(con, into, copy)
    wrong += [f"{t.schema}.{t.table} has {c.rows:,} rows, not {t.rows:,}"
              for t, c in zip(theirs, ours, strict=False) if t != c]
    views = tuple(sorted(f"{schema}.{name}" for kind, schema, name, _ in copy
                         if kind == "view"))
    for view in views:
        schema, name = view.split(".", 1)
        try:
            con.execute(
                f"SELECT * FROM {_quote(into)}.{_quote(schema)}.{_quote(name)} LIMIT 0"
            ).fetchall()
        except duckdb.Error as exc:
            wrong.append(f"view {view} does not run: {str(exc).splitlines()[0]}")
    if wrong:
        shown = "; ".join(wrong[:3]) + (f" (and {len(wrong) - 3} more)"
                                         if len(wrong) > 3 else "")
        raise ExportError(Message(
            "the copy of {db:any} is not the warehouse ({what:any}); nothing was written",
            str(db), shown,
        ))
    tags = con.execute(
        "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = ?",
        [into],
    ).fetchone()
    tag = str(tags[0]) if tags and tags[0] else storage_version
    con.execute(f"CHECKPOINT {_quote(into)}")
    con.execute(f"DETACH {_quote(into)}")
    if Path(f"{partial}.wal").exists():
        raise ExportError(Message(
            "the copy of {db:any} kept a write-ahead log; nothing was written", str(db)
        ))
    return ExportResult(storage_version, tag.rstrip("+"), ours, views)
