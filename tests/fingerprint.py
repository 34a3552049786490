"""The fingerprint of the warehouse built from ``data/sample``: one digest per table and report.

The engine may be rewritten (its structure, its speed) without changing a single result:
every table of the warehouse ``data/sample`` gives, exported row by row in key order, and
every report over it, must stay byte for byte what it was. :func:`fingerprint` builds the
warehouse (the ingest's own steps, plan, process and load, in this process and without
Prefect), exports each table and report to CSV and hashes each export with SHA-256;
``tests/sample_fingerprint.json`` holds the digests committed, and
``tests/flows/test_fingerprint.py`` compares.

What the fingerprint leaves out, and why (nothing else is left out):

* :data:`CLOCK_COLUMNS`: wall-clock times of the bookkeeping (when a run started and
  finished, when a schema file was applied), and :data:`REPORT_CLOCK_COLUMNS`, the report
  columns computed from them.
* :data:`VERSION_COLUMNS`: the engine version (``rules/version.py``), a digest of the
  engine's own source; it changes with every edit of the engine, which is the point of
  recording it and the opposite of what the fingerprint compares.
* The absolute folder of the sample: paths are stored absolute, so the checkout's
  location is written as ``<sample>`` (the same clone elsewhere gives the same digests).
* The games of other families than Guizhou (:data:`OTHER_FAMILIES`, ``data/sample/changsha``
  and ``data/sample/sichuan``):
  the fingerprint holds the Guizhou warehouse byte for byte while another family's engine
  is still being written; their own tests audit those games against their manifest.

The reports are those without parameters, and ``player_history`` once per player (in id
order), and the dashboard's own queries without parameters (``sql/internal/``, under the
``report:`` labels they had when they were reports); their columns are filtered by the
same names.

When the sample data or the engine's results change on purpose, regenerate the file with

    .venv/bin/python -m tests.fingerprint --update

and review the tables it names as changed (``--show`` prints the digests without writing).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"
FINGERPRINT_FILE = Path(__file__).resolve().with_name("sample_fingerprint.json")
PLACEHOLDER = "<sample>"
CLOCK_COLUMNS = frozenset({"started_at", "finished_at", "applied_at"})
"""Wall-clock columns of the bookkeeping tables (``ingest_runs``, ``schema_version``).
``games.started_at`` is the log's own time and is kept."""
CLOCK_TABLES = frozenset({"ingest_runs", "schema_version"})
VERSION_COLUMNS = frozenset({"engine_version"})
"""Columns holding the engine version digest, in every table and report."""
REPORT_CLOCK_COLUMNS = frozenset({"last_ingest"})
"""Report columns computed from the run clocks (``dashboard_overview.last_ingest``)."""
OTHER_FAMILIES = frozenset({"changsha", "sichuan"})
"""The folders of ``data/sample`` holding games of other families than Guizhou, left out."""


def sample_paths(sample: Path = SAMPLE) -> list[str]:
    """What the fingerprinted warehouse ingests: ``sample``'s entries but the folders of
    :data:`OTHER_FAMILIES` (the Guizhou games)."""
    return [p.as_posix() for p in sorted(sample.iterdir()) if p.name not in OTHER_FAMILIES]


def _excluded(table: str, column: str) -> bool:
    if column in VERSION_COLUMNS:
        return True
    return table in CLOCK_TABLES and column in CLOCK_COLUMNS


def build(db: Path, staging: Path, sample: Path = SAMPLE) -> None:
    """The warehouse of ``sample`` at ``db``: plan, process and load, one run."""
    from zhuoji.flows.cli.main import build_app
    from zhuoji.flows.ingest.load import add_counts, load_outcomes
    from zhuoji.flows.ingest.planning import plan_files
    from zhuoji.flows.ingest.worker import process_file
    from zhuoji.flows.warehouse import store as warehouse
    from zhuoji.rules.version import ENGINE_VERSION

    build_app()  # every command registered, as the console script has them
    con = warehouse.open_writer(db)
    try:
        plan = plan_files(sample_paths(sample), warehouse.known_files(con))
        run_id = warehouse.begin_run(
            con, started_at=datetime(2026, 1, 1), workers=1, runner="fingerprint",
            engine_version=ENGINE_VERSION,
        )
        counts: dict[str, int] | None = {"files_seen": plan.seen,
                                         "files_skipped": plan.skipped}
        for digest in sorted(plan.to_process, key=lambda d: d.path):
            outcome = process_file(digest.path, digest.sha256, staging.as_posix())
            counts = add_counts(counts, load_outcomes(con, [outcome], run_id, counts))
        assert counts is not None
        warehouse.finish_run(con, run_id, {**counts, "finished_at": datetime(2026, 1, 1)})
    finally:
        con.close()


def _key_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    row = con.execute(
        "SELECT constraint_column_names FROM duckdb_constraints() "
        "WHERE table_name = ? AND constraint_type = 'PRIMARY KEY'",
        [table],
    ).fetchone()
    return [str(c) for c in row[0]] if row else []


def _csv(con: duckdb.DuckDBPyConnection, sql: str, root: str,
         params: dict[str, str] | None = None) -> bytes:
    """The result of ``sql`` as CSV bytes (a header, then one line per row; ``None`` as an
    empty field, every other value as ``str`` gives it), the sample's folder written as
    the placeholder."""
    cursor = con.execute(sql, params) if params else con.execute(sql)
    header = [str(d[0]) for d in cursor.description or []]
    rows = cursor.fetchall()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([["" if v is None else str(v) for v in row] for row in rows])
    return buffer.getvalue().replace(root, PLACEHOLDER).encode()


def export(db: Path, sample: Path = SAMPLE) -> dict[str, bytes]:
    """Every table (``table:NAME``, rows by key, then by every column) and report
    (``report:NAME``) as CSV bytes, the excluded columns left out."""
    from zhuoji.flows.warehouse.reports import (
        internal_names,
        read_query,
        report_names,
        sql_parameters,
    )

    root = sample.resolve().as_posix()
    exports: dict[str, bytes] = {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [str(r[0]) for r in con.execute(
            "SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()]
        for table in tables:
            columns = [str(r[0]) for r in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index", [table]).fetchall()]
            kept = [c for c in columns if not _excluded(table, c)]
            keys = [c for c in _key_columns(con, table) if c in kept]
            order = ", ".join(f'"{c}"' for c in [*keys, *[c for c in kept if c not in keys]])
            select = ", ".join(f'"{c}"' for c in kept)
            exports[f"table:{table}"] = _csv(
                con, f'SELECT {select} FROM "{table}" ORDER BY {order}', root)
        players = [str(r[0]) for r in con.execute(
            "SELECT player_id FROM players ORDER BY player_id").fetchall()]
        for name in sorted([*report_names(), *internal_names()]):
            wanted = sql_parameters(read_query(name))
            if wanted == ("player",):
                bindings = [{"player": p} for p in players]
            elif not wanted:
                bindings = [{}]
            else:
                continue  # the dashboard's paged reports: views over the tables above
            for params in bindings:
                sql = read_query(name).rstrip().rstrip(";") + "\n"  # (a last line's comment)
                probe = con.execute(f"SELECT * FROM ({sql}) LIMIT 0", params or None)
                kept = [str(d[0]) for d in probe.description or []
                        if str(d[0]) not in VERSION_COLUMNS | REPORT_CLOCK_COLUMNS]
                probe.fetchall()
                inner = ", ".join(f'"{c}"' for c in kept)
                label = f"report:{name}" + "".join(f"?{k}={v}" for k, v in params.items())
                exports[label] = _csv(con, f"SELECT {inner} FROM ({sql})", root, params or None)
    finally:
        con.close()
    return exports


def fingerprint(sample: Path = SAMPLE) -> dict[str, str]:
    """``{table:NAME | report:NAME: "rows sha256"}`` of the warehouse built from ``sample``."""
    with tempfile.TemporaryDirectory(prefix="zhuoji-fingerprint-") as tmp:
        folder = Path(tmp)
        db = folder / "warehouse.duckdb"
        (folder / "staging").mkdir()
        build(db, folder / "staging", sample)
        exports = export(db, sample)
    return {
        name: f"{_rows(data)} {hashlib.sha256(data).hexdigest()}"
        for name, data in sorted(exports.items())
    }


def _rows(data: bytes) -> int:
    """Rows of a CSV export with its header (a row may span lines: count quoted newlines
    too, the digest decides; the count is for the reader)."""
    return data.count(b"\n") - 1


def committed() -> dict[str, str]:
    data: dict[str, str] = json.loads(FINGERPRINT_FILE.read_text(encoding="utf-8"))
    return data


def differences(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per export whose digest differs (or that only one side has)."""
    out = []
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            out.append(f"{name}: {old.get(name, 'absent')} -> {new.get(name, 'absent')}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The fingerprint of data/sample's warehouse.")
    parser.add_argument("--update", action="store_true",
                        help=f"write the fingerprint to {FINGERPRINT_FILE.relative_to(ROOT)}")
    parser.add_argument("--show", action="store_true", help="print the digests")
    args = parser.parse_args(argv)
    new = fingerprint()
    if args.show:
        for name, value in new.items():
            print(f"{name:<48} {value}")
    if args.update:
        changed = differences(committed(), new) if FINGERPRINT_FILE.exists() else []
        FINGERPRINT_FILE.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n",
                                    encoding="utf-8")
        print(f"wrote {FINGERPRINT_FILE.relative_to(ROOT)} ({len(new)} exports, "
              f"{len(changed)} changed)")
        for line in changed:
            print("  " + line)
        return 0
    if not FINGERPRINT_FILE.exists():
        print(f"error: no {FINGERPRINT_FILE.relative_to(ROOT)}; run with --update",
              file=sys.stderr)
        return 2
    diff = differences(committed(), new)
    for line in diff:
        print(line)
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
