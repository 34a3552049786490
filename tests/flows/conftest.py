"""Shared fixtures of the pipeline tests: a log corpus, a Prefect harness, warehouses.

The corpus is simulated (legal hands from :mod:`zhuoji.rules.families.guizhou.simulate`), then a
few hands are altered so that every table and report has something to show: an out-of-turn discard,
a chow, a recorded result that disagrees with the recomputation, one that is not zero-sum.
Two files are malformed and must be quarantined.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app  # noqa: F401  (every command on the app, as the console script has them)
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.planning import plan_files
from zhuoji.flows.ingest.worker import process_file, process_files
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import run_report
from zhuoji.parsers.models import Game, Player
from zhuoji.parsers.write import generate_stream_lines, write_games
from zhuoji.rules.events import Chow, Discard, HandRecord, RecordedResult
from zhuoji.rules.families.guizhou.simulate import generate_games as simulate_games
from zhuoji.rules.presets import load_preset

PLAYER_POOL = ("ana", "bo", "chen", "dai", "eli", "fan")
RUN_COLUMNS = frozenset({"run_id"})
"""Bookkeeping columns that differ between runs that load the same data."""


@dataclass(frozen=True)
class Corpus:
    root: Path
    games: dict[str, list[Game]]  # file (absolute posix path) -> its games, for loaded files
    quarantined: tuple[str, ...]  # files that must be quarantined
    bad_line: int  # the line of the malformed event in broken.jsonl

    @property
    def files(self) -> list[str]:
        return sorted([*self.games, *self.quarantined])

    def all_games(self) -> list[Game]:
        return [g for path in sorted(self.games) for g in self.games[path]]


def _players(index: int) -> list[Player]:
    return [
        Player(seat=s, id=PLAYER_POOL[(index + s) % len(PLAYER_POOL)], name=None) for s in range(4)
    ]


def _out_of_turn(record: HandRecord) -> HandRecord:
    """Seat after the dealer discards before the dealer's first move: out of turn."""
    seat = (record.dealer + 1) % record.n_players
    bad = Discard(seat, record.deal[seat][0])
    return dataclasses.replace(record, events=(bad, *record.events))


def _chow_after_first_discard(record: HandRecord) -> HandRecord:
    events = list(record.events)
    first = next(i for i, e in enumerate(events) if isinstance(e, Discard))
    d = events[first]
    assert isinstance(d, Discard)
    seat = (d.seat + 1) % record.n_players
    events.insert(first + 1, Chow(seat, (d.tile,), d.seat))
    return dataclasses.replace(record, events=tuple(events))


def _disputed(record: HandRecord) -> HandRecord:
    assert record.result is not None
    deltas = list(record.result.deltas)
    deltas[0] += 2
    deltas[1] -= 2
    return dataclasses.replace(record, result=RecordedResult(deltas=tuple(deltas)))


def _not_zero_sum(record: HandRecord) -> HandRecord:
    assert record.result is not None
    deltas = list(record.result.deltas)
    deltas[2] += 1
    return dataclasses.replace(
        record, result=RecordedResult(deltas=tuple(deltas), next_dealer=record.result.next_dealer)
    )


def build_corpus(root: Path, *, clean_files: int = 8, games_per_file: int = 2) -> Corpus:
    """Write the test corpus under ``root`` (deterministic)."""
    ruleset = load_preset("guiyang")
    n_games = clean_files * games_per_file + 5
    simulated = list(simulate_games(ruleset, seed=20261101, games=n_games, hands_per_game=3))
    games: list[Game] = []
    for i, sim in enumerate(simulated):
        records = list(sim.records)
        if i == clean_files * games_per_file:
            records[0] = _out_of_turn(records[0])
            records[1] = _disputed(records[1])
        elif i == clean_files * games_per_file + 1:
            records[1] = _chow_after_first_discard(records[1])
            records[2] = _not_zero_sum(records[2])
        games.append(
            game_from_records(
                records,
                game_id=f"g{i:03d}",
                players=_players(i),
                ruleset="guiyang",
                started_at=f"2026-11-{1 + i // 8:02d}T20:{(i % 8) * 5:02d}:00+08:00",
            )
        )
    root.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[Game]] = {}
    suffixes = (".jsonl", ".ndjson.gz", ".jsonl.gz", ".ndjson")
    for f in range(clean_files):
        path = root / "streams" / f"s{f:02d}{suffixes[f % len(suffixes)]}"
        path.parent.mkdir(parents=True, exist_ok=True)
        chunk = games[f * games_per_file : (f + 1) * games_per_file]
        write_games(path, chunk)
        by_file[path.resolve().as_posix()] = chunk
    base = clean_files * games_per_file
    for j, name in enumerate(("d00.json", "d01.json.gz")):
        path = root / name
        write_games(path, [games[base + j]])
        by_file[path.resolve().as_posix()] = [games[base + j]]
    # broken.jsonl: a good game, a game with an unknown tile, another good game.
    broken = root / "bad" / "broken.jsonl"
    broken.parent.mkdir(parents=True, exist_ok=True)
    lines = list(generate_stream_lines(games[base + 2]))
    bad_lines = list(generate_stream_lines(games[base + 3]))
    index = next(k for k, line in enumerate(bad_lines) if b'"type":"discard"' in line)
    head, sep, tail = bad_lines[index].partition(b'"tile":"')
    bad_lines[index] = head + sep + b"10m" + tail[tail.index(b'"') :]
    bad_line = len(lines) + index + 1
    lines.extend(bad_lines)
    lines.extend(generate_stream_lines(games[base + 4]))
    broken.write_bytes(b"".join(lines))
    garbage = root / "bad" / "garbage.json"
    garbage.write_bytes(b"\x00\x01\x02 this is not a log")
    return Corpus(
        root=root,
        games=by_file,
        quarantined=(broken.resolve().as_posix(), garbage.resolve().as_posix()),
        bad_line=bad_line,
    )


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("corpus"))


os.environ.setdefault("ZHUOJI_SERVER_IDLE_SECONDS", "60")
"""A local Prefect server an ingest of the tests starts and keeps stops a minute after
its last use (and at the end of the session, below)."""


@pytest.fixture(scope="session", autouse=True)
def _no_server_left() -> Iterator[None]:
    """At the end of the session, stop the reused local servers this process started
    (each once the runs using it have ended)."""
    yield
    from zhuoji.flows.runtime.prefect_server import _DETACHED, ReusedPrefectServer

    homes: set[str] = set()
    for process in _DETACHED:
        if process.poll() is None:
            with suppress(OSError):
                environ = Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0")
                homes.update(
                    e.split(b"=", 1)[1].decode() for e in environ
                    if e.startswith(b"ZHUOJI_SERVER_HOME=")
                )
    for home in sorted(homes):
        ReusedPrefectServer(timeout=0, idle=1, home=Path(home)).stop_running()
    for process in _DETACHED:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[str]:
    """One Prefect test server for the session; yields its API URL."""
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        url = PREFECT_API_URL.value()
        assert url
        yield str(url)


@pytest.fixture(scope="session")
def clean_db(
    corpus: Corpus, prefect_harness: str, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The corpus ingested once by the flow on one worker: the reference warehouse."""
    from zhuoji.flows.ingest.run import run_ingest

    db = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    summary = run_ingest([str(corpus.root)], db, workers=1, batch_size=3)
    assert summary.files_loaded == len(corpus.games)
    return db


def report_rows(db: Path, name: str, **params: str) -> list[dict[str, Any]]:
    """The rows of report ``name`` of the warehouse ``db`` (opened read-only), each a
    column -> value dict."""
    con = open_reader(db)
    try:
        result = run_report(con, name, params)
    finally:
        con.close()
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def ingest_plain(
    paths: list[str], db: Path, staging: Path, batch: int = 4, *, one_task: bool = False
) -> dict[str, int]:
    """The flow's steps without Prefect: plan, process, load in batches (each file a task
    of its own, or with ``one_task`` each batch one task, as the flow's chunks)."""
    con = warehouse.open_writer(db)
    try:
        known = warehouse.known_files(con)
        plan = plan_files(paths, known)
        warehouse.forget_files(con, [d.path for d in plan.to_process if d.path in known])
        run_id = warehouse.begin_run(con, started_at=datetime(2026, 1, 1), workers=1, runner="t")
        counts = {"seen": plan.seen, "skipped": plan.skipped, "loaded": 0, "quarantined": 0}
        todo = list(plan.to_process)
        for i in range(0, len(todo), batch):
            chunk = todo[i : i + batch]
            if one_task:
                outcomes = process_files(chunk, staging.as_posix())
            else:
                outcomes = [process_file(d.path, d.sha256, staging.as_posix()) for d in chunk]
            for o in load_outcomes(con, outcomes, run_id):
                counts[o.status.value] += 1
        return counts
    finally:
        con.close()


def copy_db(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst


def table_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        str(r[0])
        for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    ]


def snapshot(
    db: Path, skip: Sequence[str] = ("ingest_runs", "schema_version")
) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows in key order, run bookkeeping columns left out."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out: dict[str, list[tuple[object, ...]]] = {}
        for table in table_names(con):
            if table in skip:
                continue
            columns = [
                str(r[0])
                for r in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                    "ORDER BY column_index",
                    [table],
                ).fetchall()
                if str(r[0]) not in RUN_COLUMNS
            ]
            select = ", ".join(f'"{c}"' for c in columns)
            rows = con.execute(f"SELECT {select} FROM {table} ORDER BY ALL").fetchall()
            out[table] = rows
        return out
    finally:
        con.close()


def flow_runs_of(db: Path) -> list[Any]:
    """The Prefect flow runs tagged with the database (newest first), with the API the
    current settings point at."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags
    from prefect.client.schemas.sorting import FlowRunSort

    from zhuoji.flows.ingest.prefect_run import run_tags

    with get_client(sync_client=True) as client:
        runs: list[Any] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=run_tags(db))),
            sort=FlowRunSort.START_TIME_DESC,
        )
    return runs


def task_runs_of(flow_run_id: Any) -> list[Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    with get_client(sync_client=True) as client:
        runs: list[Any] = client.read_task_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
        )
    return runs


HEALTH_ONLY_SERVER = textwrap.dedent(
    """
    import http.server, sys
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/api/health" else 404)
            self.end_headers()
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
    """
)
"""A server (``python -c HEALTH_ONLY_SERVER PORT``) answering Prefect's health route only:
something on a port that is no Prefect server, or a server that answers and nothing more."""
