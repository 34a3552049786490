"""The DuckDB warehouse's writer: checking the database file before DuckDB opens it,
opening it for writing (waiting for another process's lock, the schema brought up to date),
and what an ingest writes: its runs, its batches of rows, the files' bookkeeping (known,
forgotten, renamed).

One process writes the database (the ingest's main process); workers never open it.
Reading it is :mod:`zhuoji.flows.warehouse.reader`, its schema
:mod:`zhuoji.flows.warehouse.schema`, its reports :mod:`zhuoji.flows.warehouse.reports`.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from zhuoji.flows.text.oserrors import STORAGE_ERRNOS, errno_in_text, os_error_text
from zhuoji.flows.warehouse.rows import (
    DATA_TABLES,
    FileOutcome,
    FileStatus,
    files_table,
    quarantine_table,
    rulesets_table,
)
from zhuoji.flows.warehouse.schema import apply_schema
from zhuoji.flows.warehouse.sqlfiles import WarehouseError, _unregister, read_sql, rollback
from zhuoji.rules.messages import Message

_LOCK_TEXT = "Could not set lock on file"
_LOCK_PID = re.compile(r"\(PID (\d+)\)")
LOCK_POLL_SECONDS = 0.2
"""How often a waiting writer tries the database's lock again."""


class DatabaseBusyError(WarehouseError):
    """Another process holds the database: an ingest writing to it (``holder`` is
    ``"writer"``), or read-only readers (``"reader"``: a report, the dashboard, a
    ``duckdb -readonly`` shell) that keep any writer out while they are open."""

    def __init__(
        self,
        path: str,
        holder: str = "writer",
        pid: int | None = None,
        waited: float = 0,
        *,
        can_wait: bool = True,
    ) -> None:
        who = f" (PID {pid})" if pid is not None else ""
        after = Message(" after waiting {s:any} s", f"{waited:g}") if waited > 0 else ""
        if holder == "reader":
            what = Message("a reader{who:external} holds it open read-only, which keeps any "
                           "writer out", who)
            todo = (Message("try again when it is closed, or pass --wait SECONDS to wait for it")
                    if can_wait else Message("try again when it is closed"))
        else:
            what = Message("an ingest{who:external} is writing to it", who)
            todo = (Message("try again when it finishes, or pass --wait SECONDS to wait for it")
                    if can_wait else Message("try again when it finishes"))
        super().__init__(Message("database {path:any} is busy{after:any}: {what:any}; "
                                 "{todo:any}", path, after, what, todo) if after else
                         Message("database {path:any} is busy: {what:any}; {todo:any}", path,
                                 what, todo))
        self.path = path
        self.holder = holder
        self.pid = pid
        self.waited = waited


class DatabaseMissingError(WarehouseError):
    def __init__(self, path: str) -> None:
        super().__init__(Message(
            "database {path:any} does not exist; create it with `zhuoji ingest`", path))
        self.path = path


class DatabaseFileError(WarehouseError):
    """The path given as the database is no DuckDB file zhuoji can open: a FIFO, a folder,
    a device, a SQLite database, some other file, or a DuckDB file cut short. Found from
    the path's kind and the file's first bytes, before DuckDB opens it (DuckDB would
    block on a FIFO, or load an extension to read a SQLite file)."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(Message("database {path:any} {what:said}", path, what))
        self.path = path


class DatabaseStorageError(WarehouseError):
    """The database's disk is full, read-only or refuses access: the message says which
    (``errno`` is ``ENOSPC``, ``EROFS``, ``EACCES`` ...) and that nothing was half-written."""

    def __init__(self, path: str, code: int, detail: str) -> None:
        what = os_error_text(code)
        super().__init__(Message("database {path:any}: {why:oserror} ({d:external})", path, what,
                                 detail))
        self.path = path
        self.errno = code


@dataclass(frozen=True, slots=True)
class KnownFile:
    """A file the database holds: how it was when loaded or quarantined, and by which
    engine (``None``: before engine versions were recorded)."""

    path: str
    sha256: str
    size: int
    status: FileStatus
    engine_version: str | None = None
    clashes_with: tuple[str, ...] = ()  # a quarantined file: the files its game ids clash with


@dataclass(frozen=True, slots=True)
class StoredRuleset:
    """A ruleset games were audited under, as the ``games`` table holds it."""

    ruleset: str
    rule_overrides: str | None
    fingerprint: str | None


def is_lock_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.IOException) and _LOCK_TEXT in str(exc)


def storage_errno(exc: BaseException) -> int | None:
    """``ENOSPC``, ``EROFS``, ``EACCES`` or ``EDQUOT`` when ``exc`` (a duckdb error or an
    ``OSError``) says the disk refused, else None."""
    if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
        return exc.errno
    if not isinstance(exc, duckdb.Error | OSError):
        return None
    return errno_in_text(str(exc))


def storage_error(path: str | Path, exc: BaseException) -> DatabaseStorageError | None:
    """The clear error for a disk that refused, or None when ``exc`` is something else."""
    code = storage_errno(exc)
    if code is None:
        return None
    return DatabaseStorageError(str(path), code, str(exc).split("\n", 1)[0])


# --- opening ---------------------------------------------------------------------------------


NO_EXTENSIONS: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}
"""Every connection zhuoji opens: no extension is installed or loaded behind its back (a
download, on a machine that may have no network). What it uses (Parquet, JSON, ICU) is
built into DuckDB."""


def refuse_extensions(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Set :data:`NO_EXTENSIONS` on a connection just opened (returned).

    Set, not given to ``duckdb.connect``: DuckDB refuses a second connection to a file
    whose configuration differs from the first's, and an analyst may open the warehouse
    with plain ``duckdb.connect`` in the same process. The settings are the database's
    (``SET GLOBAL``), so such a connection has them too. A sealed connection has them
    from its configuration (which it locks).
    """
    if con.execute("SELECT current_setting('lock_configuration')").fetchone() == (True,):
        return con
    for name, value in NO_EXTENSIONS.items():
        con.execute(f"SET GLOBAL {name} = {str(value).lower()}")
    return con


DUCKDB_MAGIC = b"DUCK"
"""A DuckDB file's magic bytes, at :data:`_MAGIC_OFFSET` of its main header."""
_MAGIC_OFFSET = 8
_HEADER_SIZE = 4096
_HEADERS_SIZE = 3 * _HEADER_SIZE  # the main header, then the two database headers
_SQLITE_MAGIC = b"SQLite format 3\x00"
_KINDS = (
    (stat.S_ISDIR, Message("a folder")),
    (stat.S_ISFIFO, Message("a FIFO (named pipe)")),
    (stat.S_ISCHR, Message("a character device")),
    (stat.S_ISBLK, Message("a block device")),
    (stat.S_ISSOCK, Message("a socket")),
)


def check_database_file(path: str | os.PathLike[str], *, missing_ok: bool = False) -> None:
    """Raise :class:`DatabaseFileError` unless ``path`` is a regular file that starts as a
    DuckDB file (:class:`DatabaseMissingError` when there is none, unless ``missing_ok``:
    a writer creates it). Called before DuckDB opens the file; :func:`check_blocks` checks
    its length once it is open.

    Nothing here blocks or has a side effect: the path's kind comes from ``os.stat``,
    and only a regular file is opened (non-blocking, then checked again on the open
    file) to read its headers. A file DuckDB's own checks should judge (one this process
    cannot read, say) is left to them.
    """
    name = os.fspath(path)
    _check_wal(name)
    try:
        info = os.stat(name)
    except (FileNotFoundError, NotADirectoryError):
        if missing_ok:
            return
        raise DatabaseMissingError(name) from None
    except OSError:
        return  # DuckDB's open says why (too long a name, a loop of links ...)
    _check_kind(name, info.st_mode)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return  # no permission and the like: DuckDB's open reports it as before
    try:
        info = os.fstat(fd)
        _check_kind(name, info.st_mode)  # the path was replaced since the stat
        head = os.pread(fd, _HEADERS_SIZE, 0)
    except OSError:
        return
    finally:
        os.close(fd)
    _check_header(name, head, info.st_size)


def _check_wal(name: str) -> None:
    """DuckDB opens the write-ahead log beside the file (``<file>.wal``) when there is one:
    a FIFO there would block it as one in the file's place."""
    wal = f"{name}.wal"
    try:
        mode = os.stat(wal).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        what = next((text for test, text in _KINDS if test(mode)), Message("not a regular file"))
        raise DatabaseFileError(name, Message("has {wal:any} beside it, its write-ahead log, and "
                                              "that is {what:any}, not a file", wal, what))


def _check_kind(name: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    what = next((text for test, text in _KINDS if test(mode)), Message("not a regular file"))
    raise DatabaseFileError(name, Message("is {what:any}, not a DuckDB file", what))


def _check_header(name: str, head: bytes, size: int) -> None:
    if size == 0:
        raise DatabaseFileError(name, Message("is an empty file, not a DuckDB file"))
    if head.startswith(_SQLITE_MAGIC):
        raise DatabaseFileError(name, Message(
            "is a SQLite database, not a DuckDB file (zhuoji reads only the DuckDB "
            "files `zhuoji ingest` writes)"
        ))
    if head[_MAGIC_OFFSET : _MAGIC_OFFSET + len(DUCKDB_MAGIC)] != DUCKDB_MAGIC:
        raise DatabaseFileError(
            name, Message("is not a DuckDB file (its header has no DuckDB magic)"))
    if size < _HEADERS_SIZE:
        raise DatabaseFileError(name, Message(
            "is damaged: {n:n} bytes, shorter than a DuckDB file's headers ({h:n} bytes); "
            "{todo:said}", f"{size:,}", f"{_HEADERS_SIZE:,}", _CUT_SHORT,
        ))


_CUT_SHORT = Message(
    "restore it from a backup, or remove it and build it again with `zhuoji ingest`")
_MAX_BLOCK = 1 << 62  # DuckDB's block ids from here up are not blocks of the file


def check_blocks(con: duckdb.DuckDBPyConnection, path: str | Path) -> None:
    """Raise :class:`DatabaseFileError` when the open database's file is shorter than the
    blocks it uses: a copy cut short, a disk that filled while it was copied. DuckDB
    itself opens such a file and answers every query that reads none of the missing
    blocks.

    A file that holds every block its header counts is whole (the usual case, one
    query); one shorter than the blocks in use is cut short. In between, DuckDB may have
    cut free blocks off the end (it keeps counting them): then the highest block the
    tables' column segments (``pragma_storage_info``) and the metadata
    (``pragma_metadata_info``) use must be in the file. That reads the catalog's
    metadata, no table data. A missing block these do not list (an index's) fails the
    query that reads it.
    """
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # no file of that name (":memory:"): nothing to cut
    row = con.execute(read_sql("load/database_blocks")).fetchone()
    if row is None or not row[0]:
        return
    block_size, counted, used = (int(v) for v in row)
    held = max(size - _HEADERS_SIZE, 0) // block_size
    if held >= counted:
        return
    if held < used:
        _cut_short(path, size, _HEADERS_SIZE + used * block_size)
    last = -1
    for (table,) in con.execute(read_sql("load/stored_tables")).fetchall():
        found = con.execute(
            read_sql("load/last_table_block"), {"table": table, "limit": _MAX_BLOCK}
        ).fetchone()
        if found is not None and found[0] is not None:
            last = max(last, int(found[0]))
    found = con.execute(read_sql("load/last_metadata_block")).fetchone()
    if found is not None and found[0] is not None:
        last = max(last, int(found[0]))
    if last >= held:
        _cut_short(path, size, _HEADERS_SIZE + (last + 1) * block_size)


def _cut_short(path: str | Path, size: int, needed: int) -> None:
    raise DatabaseFileError(str(path), Message(
        "is damaged: {n:n} bytes, but its blocks in use need at least {m:n} (the file was "
        "cut short); {todo:said}", f"{size:,}", f"{needed:,}", _CUT_SHORT,
    ))


def _check_opened(con: duckdb.DuckDBPyConnection, path: str | Path) -> None:
    """:func:`check_blocks`, with DuckDB's own error on a damaged file made clear."""
    try:
        check_blocks(con, path)
    except duckdb.Error as exc:
        clear = open_error(path, exc)
        if clear is not None:
            raise clear from None
        raise


def open_error(path: str | Path, exc: BaseException) -> WarehouseError | None:
    """The clear error for a database DuckDB could not open (``exc`` raised by
    ``duckdb.connect``): its disk refused, or DuckDB found it damaged; None for anything
    else (a lock: see :func:`is_lock_error`)."""
    clear = storage_error(path, exc)
    if clear is not None:
        return clear
    if isinstance(exc, duckdb.IOException | duckdb.SerializationException):
        first = str(exc).split("\n", 1)[0]
        if "Could not read enough bytes" in first:
            return DatabaseFileError(str(path), Message(
                "is damaged: a block it uses lies past its end (the file was cut short); "
                "{todo:said}", _CUT_SHORT,
            ))
        return DatabaseFileError(str(path), Message("cannot be opened: {d:external}", first))
    return None


def open_writer(
    path: str | Path, *, threads: int | None = None, wait: float = 0
) -> duckdb.DuckDBPyConnection:
    """Open (or create) the database for writing and bring its schema up to date.

    ``threads`` caps DuckDB's threads for this connection (its default: one per core).
    While another process holds the database, try again for up to ``wait`` seconds,
    then raise :class:`DatabaseBusyError` (which says whether a writer or readers hold
    it). Raises :class:`DatabaseStorageError` when its disk is full or read-only.
    """
    check_database_file(path, missing_ok=True)
    config: dict[str, Any] = {} if threads is None else {"threads": threads}
    con = _connect_waiting(path, config, wait)
    try:
        _check_opened(con, path)
        apply_schema(con)
    except (duckdb.Error, OSError) as exc:
        con.close()
        clear = storage_error(path, exc)
        if clear is not None:
            raise clear from exc
        raise
    except WarehouseError:
        con.close()
        raise
    return con


def check_writable(path: str | os.PathLike[str], *, wait: float = 0) -> None:
    """Raise :class:`DatabaseBusyError` if another process holds the database now, or
    still holds it after ``wait`` seconds, and :class:`DatabaseStorageError` if it (or,
    for a new one, its folder) cannot be written: a read-only file system, no permission."""
    check_database_file(path, missing_ok=True)
    target = Path(path)
    if not target.exists():
        folder = target.parent if str(target.parent) else Path(".")
        if folder.is_dir() and not os.access(folder, os.W_OK):
            code = errno.EROFS if _is_read_only_mount(folder) else errno.EACCES
            raise DatabaseStorageError(str(path), code,
                                       Message("cannot create files in {f:any}", folder))
        return
    _connect_waiting(Path(path), {}, wait).close()


def _connect_waiting(
    path: str | Path, config: dict[str, Any], wait: float
) -> duckdb.DuckDBPyConnection:
    start = time.monotonic()
    while True:
        try:
            con = duckdb.connect(str(path), config=config)
        except (duckdb.Error, OSError) as exc:
            if not is_lock_error(exc):
                clear = open_error(path, exc)
                if clear is not None:
                    raise clear from exc
                raise
            waited = time.monotonic() - start
            if waited >= wait:
                raise lock_holder_error(path, exc, waited if wait > 0 else 0) from None
        else:
            return _configured(con)
        time.sleep(min(LOCK_POLL_SECONDS, max(wait - waited, 0.01)))


def lock_holder_error(path: str | Path, exc: BaseException, waited: float = 0) -> DatabaseBusyError:
    """The error for a write lock that ``exc`` says another process holds: readers hold it
    when this process can still open it read-only (a writer's lock keeps readers out too)."""
    match = _LOCK_PID.search(str(exc))
    pid = int(match.group(1)) if match else None
    try:
        duckdb.connect(str(path), read_only=True).close()
    except duckdb.IOException:
        return DatabaseBusyError(str(path), "writer", pid, waited)
    return DatabaseBusyError(str(path), "reader", pid, waited)


def _is_read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _configured(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    try:
        return refuse_extensions(con)
    except BaseException:
        con.close()
        raise


# --- ingest bookkeeping ----------------------------------------------------------------------


LOADER_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("engine_version", "ruleset_fingerprint", "family")
}
"""Columns the loader adds to a table's shard rows (from the workers' outcomes)."""


_STATUS: dict[str, FileStatus] = {status.value: status for status in FileStatus}


def known_files(con: duckdb.DuckDBPyConnection) -> dict[str, KnownFile]:
    """Every file the database has loaded or quarantined, by path."""
    clashes = {
        str(p): tuple(str(c) for c in owners)
        for p, owners in con.execute(read_sql("load/known_clashes")).fetchall()
    }
    return {
        path: KnownFile(path, sha256, size, _STATUS[status], engine, clashes.get(path, ()))
        for path, sha256, size, status, engine in con.execute(
            read_sql("load/known_files")
        ).fetchall()
    }


def stored_rulesets(con: duckdb.DuckDBPyConnection) -> list[StoredRuleset]:
    """Each ruleset the loaded games were audited under, with its fingerprint then."""
    return [
        StoredRuleset(str(r), None if o is None else str(o), None if f is None else str(f))
        for r, o, f in con.execute(read_sql("load/ruleset_fingerprints")).fetchall()
    ]


def files_of_rulesets(
    con: duckdb.DuckDBPyConnection, rulesets: Sequence[StoredRuleset]
) -> list[tuple[str, StoredRuleset]]:
    """``(path, ruleset)`` for each file holding games audited under these rulesets."""
    if not rulesets:
        return []
    table = pa.table(
        {
            "ruleset": [r.ruleset for r in rulesets],
            "rule_overrides": [r.rule_overrides for r in rulesets],
            "ruleset_fingerprint": [r.fingerprint for r in rulesets],
        },
        schema=pa.schema([(n, pa.string()) for n in RULESET_KEY_COLUMNS]),
    )
    by_key = {(r.ruleset, r.rule_overrides): r for r in rulesets}
    con.register("stale_rulesets", table)
    try:
        rows = con.execute(read_sql("load/ruleset_files")).fetchall()
    finally:
        con.unregister("stale_rulesets")
    return [(str(p), by_key[(str(r), None if o is None else str(o))]) for p, r, o in rows]


RULESET_KEY_COLUMNS = ("ruleset", "rule_overrides", "ruleset_fingerprint")


def begin_run(
    con: duckdb.DuckDBPyConnection,
    *,
    started_at: Any,
    workers: int,
    runner: str,
    command: str = "ingest",
    engine_version: str | None = None,
) -> int:
    """Mark runs left 'running' by a killed process as interrupted, record a new run."""
    con.begin()
    try:
        con.execute(read_sql("load/mark_interrupted"))
        row = con.execute(read_sql("load/next_run_id")).fetchone()
        run_id = int(row[0]) if row is not None else 1
        con.execute(
            read_sql("load/insert_run"),
            {
                "run_id": run_id,
                "started_at": started_at,
                "workers": workers,
                "runner": runner,
                "command": command,
                "engine_version": engine_version,
            },
        )
        con.commit()
    except BaseException:
        rollback(con)
        raise
    return run_id


RUN_COUNTS_DEFAULTS: dict[str, int] = {
    "files_renamed": 0,
    "files_reaudited": 0,
    "files_forgotten": 0,
}
"""Counts of ``load/finish_run`` a caller may leave out (runs that renamed, re-audited
or forgot nothing)."""


def finish_run(con: duckdb.DuckDBPyConnection, run_id: int, counts: Mapping[str, Any]) -> None:
    """Store a run's final counts (keys: the ``load/finish_run`` parameters but run_id;
    those of :data:`RUN_COUNTS_DEFAULTS` may be left out)."""
    con.execute(read_sql("load/finish_run"), {**RUN_COUNTS_DEFAULTS, "run_id": run_id, **counts})


def find_game_owners(
    con: duckdb.DuckDBPyConnection, game_ids: Sequence[str], replaced: Sequence[str]
) -> dict[str, str]:
    """``game_id -> path`` for games already loaded from files other than ``replaced``."""
    if not game_ids:
        return {}
    rows = con.execute(
        read_sql("load/game_owners"), {"game_ids": list(game_ids), "paths": list(replaced)}
    ).fetchall()
    return {str(g): str(p) for g, p in rows}


def forget_files(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> None:
    """Remove every row of these files, bookkeeping included, in one transaction.

    An ingest does this first for the files it processes again (changed, re-audited):
    until their new content is loaded they are simply absent (and a killed run processes
    them again), and a game moving from one changed file to another is not taken for a
    clash. ``ingest --prune`` and ``zhuoji forget`` do it for files that are gone.
    """
    if not paths:
        return
    con.begin()
    try:
        _delete_files(con, sorted(paths))
        con.commit()
    except BaseException:
        rollback(con)
        raise


def file_totals(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> tuple[int, int]:
    """The games and hands the database holds from these files."""
    row = con.execute(read_sql("load/file_totals"), {"paths": list(paths)}).fetchone()
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)


def rename_files(con: duckdb.DuckDBPyConnection, moves: Sequence[tuple[str, str]]) -> None:
    """Move the rows of files found at a new path (``(old, new)`` pairs; the new paths
    unknown to the database), in one transaction: their bookkeeping rows and games take
    the new path, and files quarantined for clashing with them name it."""
    if not moves:
        return
    con.begin()
    try:
        for old, new in sorted(moves):
            params = {"old": old, "new": new}
            for statement in ("files", "games", "quarantine", "clashes"):
                con.execute(read_sql(f"load/rename_{statement}"), params)
        con.commit()
    except BaseException:
        rollback(con)
        raise


def _delete_files(con: duckdb.DuckDBPyConnection, paths: list[str]) -> None:
    for table in reversed(DATA_TABLES):
        con.execute(read_sql(f"load/delete_{table}"), {"paths": paths})
    con.execute(read_sql("load/delete_files"), {"paths": paths})
    con.execute(read_sql("load/delete_quarantine"), {"paths": paths})


def load_batch(
    con: duckdb.DuckDBPyConnection,
    outcomes: Sequence[FileOutcome],
    run_id: int,
    run_counts: Mapping[str, int] | None = None,
) -> None:
    """Load one batch in one transaction: the loaded files' rows from their tasks' Parquet
    shards (picked by each row's file, :data:`zhuoji.flows.warehouse.rows.SOURCE_COLUMN`), the
    ``files``
    rows of every file of the batch and the ``quarantine`` rows; and, given
    ``run_counts``, the run's counts so far in its ``ingest_runs`` row.

    Every file of the batch is new or changed: its earlier rows (if any) are deleted
    first, so a changed file replaces its rows and a file now quarantined leaves none.
    A failure (or a kill) leaves the database as it was before the batch.
    """
    paths = sorted(o.path for o in outcomes)
    loaded = sorted((o for o in outcomes if o.status is FileStatus.LOADED), key=_by_path)
    quarantined = sorted((o for o in outcomes if o.status is FileStatus.QUARANTINED), key=_by_path)
    con.begin()
    try:
        # A file's rows exist exactly when its ``files`` row does (both are written and
        # removed in one transaction), so only paths the database holds need deleting:
        # usually none, since the run forgot changed files first. Skipping the deletes
        # keeps a batch from scanning every table of a large warehouse.
        present = [
            str(row[0])
            for row in con.execute(read_sql("load/present_files"), {"paths": paths}).fetchall()
        ]
        if present:
            _delete_files(con, present)
        if loaded:
            # A task's shards hold the rows of all its files: only the loaded files'
            # rows are taken (a file of the task may be quarantined).
            kept = [o.path for o in loaded]
            con.register("batch_rulesets", rulesets_table(loaded))
            try:
                for table in DATA_TABLES:
                    shards = sorted({o.shard(table) for o in loaded})
                    con.execute(
                        read_sql(f"load/insert_{table}"), {"files": shards, "paths": kept}
                    )
            finally:
                _unregister(con, "batch_rulesets")
        _insert_arrow(con, "batch_files", files_table(outcomes, run_id), "load/insert_files")
        if quarantined:
            _insert_arrow(
                con,
                "batch_quarantine",
                quarantine_table(quarantined, run_id),
                "load/insert_quarantine",
            )
        if run_counts is not None:
            con.execute(read_sql("load/update_run_counts"), {**run_counts, "run_id": run_id})
        con.commit()
    except BaseException:
        rollback(con)
        raise


def _by_path(outcome: FileOutcome) -> str:
    return outcome.path


def _insert_arrow(
    con: duckdb.DuckDBPyConnection, view: str, table: pa.Table, statement: str
) -> None:
    con.register(view, table)
    try:
        con.execute(read_sql(statement))
    finally:
        _unregister(con, view)
