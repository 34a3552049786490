"""The compiled and the pure engine build the same warehouse, byte for byte.

Ingests ``data/sample`` (or the given paths) twice, each in a fresh folder and its own
process: once with the engine the installation runs (compiled, where it was built so) and
once with ``ZHUOJI_PURE=1``. Then exports every table of both databases, rows in order
(``ORDER BY ALL``), to CSV and compares the bytes. The bookkeeping columns that hold
wall-clock times (``ingest_runs.started_at``, ``finished_at``, ``schema_version.applied_at``)
are left out; nothing else is.

    .venv/bin/python scripts/compare_engines.py [PATHS...] [--require-compiled]

Exit 0 when every table is identical, 1 when one differs (its name and first differing
line are printed), 2 when an ingest fails or ``--require-compiled`` finds no compiled engine.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
CLOCK_COLUMNS = {
    ("ingest_runs", "started_at"),
    ("ingest_runs", "finished_at"),
    ("schema_version", "applied_at"),
}


def zhuoji() -> str:
    """The ``zhuoji`` command beside this interpreter."""
    return str(Path(sys.executable).with_name("zhuoji"))


def engine_of(env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import zhuoji.rules.engine as e; print(e.engine_kind())"],
        env=env, capture_output=True, text=True, check=True,
    )
    return out.stdout.strip()


def ingest(paths: Sequence[Path], folder: Path, env: dict[str, str]) -> Path:
    db = folder / "warehouse.duckdb"
    done = subprocess.run(
        [zhuoji(), "ingest", *map(str, paths), "--db", str(db), "--quiet"],
        cwd=folder, env=env, capture_output=True, text=True,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"error: ingest in {folder} exited {done.returncode}")
    return db


def export(db: Path, out: Path) -> dict[str, Path]:
    """Every table as CSV, rows in order; returns table -> file."""
    out.mkdir()
    files: dict[str, Path] = {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [
            str(r[0])
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() ORDER BY table_name"
            ).fetchall()
        ]
        for table in tables:
            columns = [
                str(r[0])
                for r in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                    "ORDER BY column_index",
                    [table],
                ).fetchall()
                if (table, str(r[0])) not in CLOCK_COLUMNS
            ]
            select = ", ".join(f'"{c}"' for c in columns)
            target = out / f"{table}.csv"
            con.execute(
                f"COPY (SELECT {select} FROM \"{table}\" ORDER BY ALL) TO '{target}' "
                "(HEADER, DELIMITER ',')"
            )
            files[table] = target
    finally:
        con.close()
    return files


def first_difference(a: Path, b: Path) -> str:
    left, right = a.read_text().splitlines(), b.read_text().splitlines()
    for i, (x, y) in enumerate(zip(left, right, strict=False), 1):
        if x != y:
            return f"line {i}:\n    compiled: {x[:200]}\n    pure:     {y[:200]}"
    return f"{len(left)} lines against {len(right)}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "data" / "sample"])
    parser.add_argument("--require-compiled", action="store_true",
                        help="fail when the installation has no compiled engine")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.paths]

    base = {k: v for k, v in os.environ.items() if k != "ZHUOJI_PURE"}
    pure = {**base, "ZHUOJI_PURE": "1"}
    kinds = engine_of(base), engine_of(pure)
    print(f"engines: {kinds[0]} against {kinds[1]}")
    if kinds[1] != "pure" or (args.require_compiled and kinds[0] != "compiled"):
        print("error: the two runs would not use a compiled and a pure engine", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="zhuoji-engines-") as tmp:
        folder = Path(tmp)
        exports = []
        for name, env in (("compiled", base), ("pure", pure)):
            (folder / name).mkdir()
            db = ingest(paths, folder / name, env)
            exports.append(export(db, folder / name / "tables"))
        compiled, interpreted = exports
        if sorted(compiled) != sorted(interpreted):
            print(f"error: tables differ: {sorted(compiled)} / {sorted(interpreted)}")
            return 1
        failed = 0
        for table in sorted(compiled):
            a, b = compiled[table], interpreted[table]
            same = a.read_bytes() == b.read_bytes()
            digest = hashlib.sha256(a.read_bytes()).hexdigest()[:16]
            rows = a.read_text().count("\n") - 1
            print(f"{table:<16} {rows:>7} rows  {digest}  {'same' if same else 'DIFFERENT'}")
            if not same:
                failed += 1
                print("  first difference at " + first_difference(a, b))
        return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
