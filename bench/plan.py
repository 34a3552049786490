"""What an ingest's planning costs before any file is processed, on a large warehouse.

A warehouse of ``--files`` bookkeeping rows and ``--games-per-file`` games each (synthetic
rows, no hands: the planning reads only ``files``, ``quarantine`` and ``games``) is built
in a temporary folder; then the planning's database steps are timed: reading the known
files (``warehouse.known_files``) and finding the stale ones (``ingest.stale_files``:
engine versions, and the rulesets' fingerprints, resolved once per distinct ruleset).
One run has every file current, one has a new engine version (every file stale).

    .venv/bin/python bench/plan.py --files 100000 --games-per-file 10
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from zhuoji.flows.ingest.planning import stale_files
from zhuoji.flows.ingest.worker import ruleset_use_of
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.rules.presets import preset_names
from zhuoji.rules.version import ENGINE_VERSION


def build(db: Path, files: int, games_per_file: int) -> None:
    con = warehouse.open_writer(db)
    presets = preset_names("guizhou")
    try:
        con.execute(
            "INSERT INTO files SELECT format('/logs/{:08d}.jsonl', i), sha256(i::VARCHAR),"
            " 1000, 'loaded', $g, $g * 8, 1, $engine FROM range($n) t(i)",
            {"n": files, "g": games_per_file, "engine": ENGINE_VERSION},
        )
        fingerprints = [ruleset_use_of(p, None).fingerprint for p in presets]
        con.execute(
            "INSERT INTO games SELECT format('g{:010d}', i), format('/logs/{:08d}.jsonl', i // $g),"
            " list_extract($presets, (i % $k) + 1), NULL, 1, NULL, 4, 8, $engine,"
            " list_extract($prints, (i % $k) + 1) FROM range($n * $g) t(i)",
            {
                "n": files,
                "g": games_per_file,
                "k": len(presets),
                "presets": presets,
                "prints": fingerprints,
                "engine": ENGINE_VERSION,
            },
        )
    finally:
        con.close()


def timed(db: Path, engine: str) -> tuple[float, float, int]:
    con = warehouse.open_writer(db)
    try:
        start = time.perf_counter()
        known = warehouse.known_files(con)
        middle = time.perf_counter()
        stale = stale_files(con, known, engine)
        end = time.perf_counter()
    finally:
        con.close()
    return middle - start, end - middle, len(stale)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--games-per-file", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "plan.duckdb"
        build(db, args.files, args.games_per_file)
        print(f"warehouse: {args.files:,} files, {args.files * args.games_per_file:,} games")
        for label, engine in (("current engine", ENGINE_VERSION), ("new engine", "bench+new")):
            known_s, stale_s, n_stale = timed(db, engine)
            print(
                f"{label:>15}: known_files {known_s:.2f} s, stale_files {stale_s:.2f} s,"
                f" {n_stale:,} stale files"
            )


if __name__ == "__main__":
    main()
