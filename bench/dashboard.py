"""Dashboard build time and page sizes on a large warehouse (1,000 players, 200,000 hands).

    .venv/bin/python bench/dashboard.py [--hands 200000] [--players 1000] [--out bench/out]

The warehouse (built once under ``--out``, which git ignores, and reused) is made in two
steps. First a base of real audited hands: simulated games
(:mod:`zhuoji.rules.families.guizhou.simulate`, preset guiyang, fixed seed), about 2 % of hands
given a recorded result that differs from the recomputation and about 1 % an illegal chow,
written as log files and loaded with the ingest's plain functions (parse, audit, Parquet
shards, load), ``hand_tiles`` included. Then DuckDB replicates the base's rows in SQL under
fresh game ids, start times and player ids until ``--hands`` hands shared by ``--players``
players (every row of every table is a real audited row; only the ids and times differ).

Then ``zhuoji dashboard`` (:func:`zhuoji.flows.dashboard.site.build_dashboard`, default workers: the
cores, at most 4) renders the whole site three times into the same folder; the script
prints the wall time of each call (opening the warehouse included), the page count, the
total and the largest page size, and fails (exit 1) if a run takes 30 s or more or a page
is 5 MB or more. ``--workers 1`` renders in one process.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import time
from pathlib import Path

from _checkout import ROOT  # first: the checkout's root on sys.path

SEED = 20261107
BASE_GAMES = 500
HANDS_PER_GAME = 4
TIME_LIMIT = 30.0
PAGE_LIMIT = 5_000_000

# Replication: base game ``o`` (0-based, game_id order) in copy ``k`` becomes game
# ``gi = k * G + o``; seat ``s`` of game ``gi`` is player ``(gi * 7 + s * P / 4) % P``
# (four distinct players per game, each player in about 4 of every P games).
_MAP = """
CREATE TEMP TABLE copies AS
SELECT
    b.game_id AS old_game_id,
    k.k * n.g + b.o AS gi,
    printf('bench-%07d', k.k * n.g + b.o) AS game_id,
    TIMESTAMP '2025-06-01 12:00:00' + to_minutes(CAST((k.k * n.g + b.o) * 10 AS BIGINT))
        AS started_at
FROM (SELECT game_id, row_number() OVER (ORDER BY game_id) - 1 AS o FROM base.games) AS b
CROSS JOIN (SELECT count(*) AS g FROM base.games) AS n
CROSS JOIN (SELECT range AS k FROM range(CAST($copies AS BIGINT))) AS k
"""
_PLAYER = "printf('p%04d', (c.gi * 7 + {seat} * CAST($players AS BIGINT) // 4) % $players)"
_COPY = {
    "games": "SELECT t.* REPLACE (c.game_id AS game_id, c.started_at AS started_at) "
    "FROM base.games AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "players": f"SELECT t.* REPLACE (c.game_id AS game_id, {_PLAYER.format(seat='t.seat')} "
    f"AS player_id, '玩家' || {_PLAYER.format(seat='t.seat')} AS name) "
    "FROM base.players AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "hands": "SELECT t.* REPLACE (c.game_id AS game_id) "
    "FROM base.hands AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "hand_players": f"SELECT t.* REPLACE (c.game_id AS game_id, "
    f"{_PLAYER.format(seat='t.seat')} AS player_id) "
    "FROM base.hand_players AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "ledger": f"SELECT t.* REPLACE (c.game_id AS game_id, "
    f"{_PLAYER.format(seat='t.payer_seat')} AS payer_id, "
    f"{_PLAYER.format(seat='t.payee_seat')} AS payee_id) "
    "FROM base.ledger AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "violations": f"SELECT t.* REPLACE (c.game_id AS game_id, CASE WHEN t.player_id IS NULL "
    f"THEN NULL ELSE {_PLAYER.format(seat='t.seat')} END AS player_id) "
    "FROM base.violations AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "hand_tiles": "SELECT t.* REPLACE (c.game_id AS game_id) "
    "FROM base.hand_tiles AS t JOIN copies AS c ON c.old_game_id = t.game_id",
    "files": "SELECT * FROM base.files",
    "quarantine": "SELECT * FROM base.quarantine",
    "ingest_runs": "SELECT * FROM base.ingest_runs",
}


def build_base(folder: Path, games: int) -> Path:
    """Simulated, partly altered games loaded through the ingest's plain functions."""
    from datetime import datetime

    from zhuoji.flows.audit.bridge import game_from_records
    from zhuoji.flows.ingest.load import load_outcomes
    from zhuoji.flows.ingest.planning import plan_files
    from zhuoji.flows.ingest.worker import process_file
    from zhuoji.flows.warehouse import store as warehouse
    from zhuoji.parsers.models import Player
    from zhuoji.parsers.write import write_games
    from zhuoji.rules.events import Chow, Discard, HandRecord, RecordedResult
    from zhuoji.rules.families.guizhou.simulate import generate_games
    from zhuoji.rules.presets import load_preset

    def disputed(record: HandRecord) -> HandRecord:
        assert record.result is not None
        deltas = list(record.result.deltas)
        deltas[0], deltas[1] = deltas[0] + 2, deltas[1] - 2
        return dataclasses.replace(record, result=RecordedResult(tuple(deltas)))

    def chow(record: HandRecord) -> HandRecord:
        events = list(record.events)
        first = next(i for i, e in enumerate(events) if isinstance(e, Discard))
        d = events[first]
        assert isinstance(d, Discard)
        events.insert(first + 1, Chow((d.seat + 1) % record.n_players, (d.tile,), d.seat))
        return dataclasses.replace(record, events=tuple(events))

    ruleset = load_preset("guiyang")
    logs = folder / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    built = []
    for i, sim in enumerate(
        generate_games(ruleset, seed=SEED, games=games, hands_per_game=HANDS_PER_GAME)
    ):
        records = list(sim.records)
        for h, record in enumerate(records):
            n = i * HANDS_PER_GAME + h
            if n % 50 == 7 and record.result is not None:
                records[h] = disputed(record)
            elif n % 97 == 11:
                records[h] = chow(record)
        game = game_from_records(
            records,
            game_id=f"base-{i:05d}",
            players=[Player(seat=s, id=f"b{s}", name=None) for s in range(4)],
            ruleset="guiyang",
            started_at=f"2025-06-01T{i % 24:02d}:00:00+08:00",
        )
        built.append(game)
    for f in range(0, len(built), 50):
        write_games(logs / f"base-{f // 50:03d}.jsonl", built[f : f + 50])

    db = folder / "base.duckdb"
    db.unlink(missing_ok=True)
    con = warehouse.open_writer(db)
    try:
        plan = plan_files([str(logs)], warehouse.known_files(con))
        run_id = warehouse.begin_run(
            con, started_at=datetime(2026, 1, 1), workers=1, runner="bench"
        )
        outcomes = [
            process_file(d.path, d.sha256, (folder / "stage").as_posix())
            for d in plan.to_process
        ]
        loaded = load_outcomes(con, outcomes, run_id)
        warehouse.finish_run(
            con,
            run_id,
            {
                "finished_at": datetime(2026, 1, 1, 0, 5),
                "files_seen": plan.seen,
                "files_loaded": len(loaded),
                "files_skipped": 0,
                "files_quarantined": 0,
                "games": sum(o.games for o in loaded),
                "hands": sum(o.hands for o in loaded),
                "violations": sum(o.violations for o in loaded),
                "mismatches": sum(o.mismatches for o in loaded),
            },
        )
    finally:
        con.close()
    return db


def build_large(base: Path, db: Path, hands: int, players: int) -> None:
    """Replicate the base's rows until ``hands`` hands shared by ``players`` players."""
    from zhuoji.flows.warehouse import store as warehouse

    db.unlink(missing_ok=True)
    con = warehouse.open_writer(db)
    try:
        con.execute(f"ATTACH '{base.as_posix()}' AS base (READ_ONLY)")
        base_hands = con.execute("SELECT count(*) FROM base.hands").fetchall()[0][0]
        copies = -(-hands // base_hands)
        con.execute(_MAP, {"copies": copies})
        for table, select in _COPY.items():
            params = {"players": players} if "$players" in select else None
            con.execute(f"INSERT INTO {table} {select}", params)
        con.execute("DETACH base")
    finally:
        con.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--base-games", type=int, default=BASE_GAMES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="render processes")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    if args.players % 4:
        parser.error("--players must be a multiple of 4")

    from zhuoji.flows.dashboard.site import build_dashboard
    from zhuoji.flows.warehouse.reader import open_reader

    folder = args.out / f"dashboard-{args.hands}-{args.players}"
    db = folder / "large.duckdb"
    if not db.exists():
        started = time.perf_counter()
        folder.mkdir(parents=True, exist_ok=True)
        base = build_base(folder / "base", args.base_games)
        base_seconds = time.perf_counter() - started
        build_large(base, db, args.hands, args.players)
        print(
            f"warehouse built in {time.perf_counter() - started:.1f} s "
            f"(base of {args.base_games * HANDS_PER_GAME:,} audited hands {base_seconds:.1f} s)"
        )
    con = open_reader(db)
    try:
        counts = {
            t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
            for t in ("games", "hands", "hand_players", "ledger", "violations", "hand_tiles")
        }
        people = con.execute("SELECT count(DISTINCT player_id) FROM players").fetchall()[0][0]
        flagged = con.execute(
            "SELECT count(*) FILTER (WHERE disputed), count(*) FILTER (WHERE violations > 0) "
            "FROM hands"
        ).fetchall()[0]
    finally:
        con.close()
    print(
        f"warehouse {db} ({db.stat().st_size / 1e6:.0f} MB): {people:,} players, "
        + ", ".join(f"{v:,} {k}" for k, v in counts.items())
        + f"; {flagged[0]:,} disputed hands, {flagged[1]:,} with illegal moves"
    )
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    site = folder / "site"
    shutil.rmtree(site, ignore_errors=True)
    worst = 0.0
    largest = 0
    for run in range(1, args.runs + 1):
        started = time.perf_counter()
        summary = build_dashboard(db, site, workers=args.workers)
        seconds = time.perf_counter() - started
        worst = max(worst, seconds)
        largest = max(largest, summary.largest_bytes)
        print(
            f"run {run}: {seconds:.1f} s, {summary.pages:,} pages "
            f"({summary.players:,} player pages, {summary.hand_pages:,} hand audit pages), "
            f"{summary.total_bytes / 1e6:.1f} MB in all, largest {summary.largest_page} "
            f"{summary.largest_bytes / 1e6:.2f} MB"
        )
    ok = worst < TIME_LIMIT and largest < PAGE_LIMIT
    print(
        f"slowest run {worst:.1f} s (limit {TIME_LIMIT:.0f} s), largest page "
        f"{largest / 1e6:.2f} MB (limit {PAGE_LIMIT / 1e6:.0f} MB): {'ok' if ok else 'FAILED'}"
    )
    shutil.rmtree(site, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
