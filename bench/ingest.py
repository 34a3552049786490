"""End-to-end ingest speed (parse to DuckDB) with 1 and 2 workers, peak memory, floors.

    .venv/bin/python bench/ingest.py [--hands 200000] [--small 50000] [--out bench/out]

Corpus (built once, deterministically, under ``--out``, which git ignores): a pool of
simulated games (:mod:`rules.simulate`, preset guiyang: legal hands with recorded results)
is replicated under fresh game and player ids into stream files of 1,000 hands each until
``--hands`` hands; every fourth file is gzipped. Replicas cost the pipeline exactly what
new games cost (every hand is parsed, replayed, settled and loaded).

Then, in one run, against one Prefect API (the temporary server, started once and not
timed, unless ``PREFECT_API_URL`` names a server) and one worker fork server
(:mod:`flows.pool`, started once and not timed either: ``zhuoji ingest`` starts it while
the temporary server starts):

* floors on the first ``--small`` hands, one process: ``orjson.loads`` of every line;
  validated parsing (``parsers.generate_fast_games``, what the ingest reads); parse +
  bridge + audit (no rows, no database); a worker's whole work without Prefect (that,
  plus rows and Parquet shards: ``flows.process.process_files``); and validated parsing on
  2 processes;
* ``zhuoji ingest`` (:func:`flows.ingest.run_ingest`) into a new database, on the first
  ``--small`` hands with 2 workers, then on all hands with 1 and with 2 workers: wall time
  of the whole flow run (the workers' start included: their fork, their first imports
  after it, their first task's set-up), hands/s, and the peak resident memory of the
  process tree (the ingest process and its workers; the Prefect server and the fork
  server left out), sampled every 0.2 s. Memory at ``--small`` vs ``--hands`` hands shows
  whether it grows with the corpus.

Figures are wall-clock on a shared machine: the load average is printed beside them, and
the steal and idle shares of the machine's CPU time during that run (:func:`machine_text`,
from ``/proc/stat`` on Linux: steal is the time the host gave to other guests).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import multiprocessing
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

HANDS_PER_GAME = 25
GAMES_PER_FILE = 40  # 1,000 hands per file
POOL_GAMES = 40
PLAYERS = 120
SEED = 20261101


# --- corpus ----------------------------------------------------------------------------


def _simulate_one(game_no: int) -> list[bytes]:
    from flows.bridge import game_from_records
    from parsers.write import generate_stream_lines
    from rules.presets import load_preset
    from rules.simulate import simulate_game

    sim = simulate_game(load_preset("guiyang"), seed=SEED, game_no=game_no, hands=HANDS_PER_GAME)
    game = game_from_records(sim.records, game_id=f"pool-{game_no}", ruleset="guiyang")
    return list(generate_stream_lines(game))


def _pool(out: Path) -> list[list[bytes]]:
    """The simulated games (stream lines each), cached in ``out``."""
    path = out / f"pool-{SEED}-{POOL_GAMES}x{HANDS_PER_GAME}.jsonl"
    if not path.exists():
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            games = pool.map(_simulate_one, range(POOL_GAMES))
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(b"".join(line for game in games for line in game))
        tmp.replace(path)
        print(
            f"simulated {POOL_GAMES * HANDS_PER_GAME:,} pool hands in "
            f"{time.perf_counter() - started:.0f} s"
        )
    games: list[list[bytes]] = []
    for line in path.read_bytes().splitlines(keepends=True):
        if line.startswith(b'{"type":"start_game"'):
            games.append([])
        games[-1].append(line)
    return games


def _relabelled(lines: list[bytes], game_id: str, first_player: int) -> Iterator[bytes]:
    """A pool game under a new id and new players (only its first line changes)."""
    import orjson

    header = orjson.loads(lines[0])
    header["game_id"] = game_id
    header["players"] = [
        {"seat": p["seat"], "id": f"p{(first_player + p['seat']) % PLAYERS:03d}"}
        for p in header["players"]
    ]
    yield orjson.dumps(header) + b"\n"
    yield from lines[1:]


def build_corpus(out: Path, hands: int) -> list[Path]:
    """The corpus files in ingest order (a prefix of them is a smaller corpus)."""
    folder = out / f"ingest-{SEED}-{hands}"
    per_file = HANDS_PER_GAME * GAMES_PER_FILE
    n_files = -(-hands // per_file)
    names = [f"f{i:04d}.jsonl" + (".gz" if i % 4 == 3 else "") for i in range(n_files)]
    files = [folder / name for name in names]
    if all(f.exists() for f in files):
        return files
    pool = _pool(out)
    folder.mkdir(parents=True, exist_ok=True)
    game = 0
    for path in files:
        data = b"".join(
            line
            for k in range(GAMES_PER_FILE)
            for line in _relabelled(pool[(game + k) % len(pool)], f"b{game + k:06d}", game + k)
        )
        game += GAMES_PER_FILE
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(
            gzip.compress(data, compresslevel=6, mtime=0) if path.suffix == ".gz" else data
        )
        tmp.replace(path)
    return files


# --- measuring -------------------------------------------------------------------------


class TreeMeter:
    """Samples this process and its descendants every 0.2 s: the peak of their summed
    resident memory, and their CPU time (the last sample of each process, so workers that
    exit are still counted), in all and per process."""

    def __init__(self, exclude: Callable[[], set[int]] = set) -> None:
        import psutil

        self._me = psutil.Process()
        self._exclude = exclude
        self.peak = 0
        self._cpu: dict[int, float] = {}
        self._cpu_start: dict[int, float] = {}
        self.commands: dict[int, list[str]] = {}
        """Each process's command line, by pid."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        skip = self._exclude()
        total = 0
        procs = [self._me]
        with contextlib.suppress(psutil.Error):
            procs += self._me.children(recursive=True)
        for proc in procs:
            if proc.pid in skip:
                continue
            with contextlib.suppress(psutil.Error), proc.oneshot():
                total += proc.memory_info().rss
                times = proc.cpu_times()
                self._cpu[proc.pid] = times.user + times.system
                if proc.pid not in self.commands:
                    self.commands[proc.pid] = proc.cmdline()
        self.peak = max(self.peak, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.2)

    @property
    def cpu_seconds(self) -> float:
        return sum(self.cpu_by_process().values())

    def cpu_by_process(self) -> dict[int, float]:
        """CPU seconds of each process since the meter was entered, by pid."""
        return {pid: cpu - self._cpu_start.get(pid, 0.0) for pid, cpu in self._cpu.items()}

    def __enter__(self) -> TreeMeter:
        self._sample()
        self._cpu_start = dict(self._cpu)
        self.peak = 0
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


def _server_pids() -> set[int]:
    """The temporary Prefect server's processes (this process's children running Prefect's
    server app) and the worker fork server (not its children, the workers), left out of
    the figures: the run starts neither."""
    import psutil

    pids: set[int] = set()
    fork_server = fork_server_pid()
    if fork_server is not None:
        pids.add(fork_server)
    with contextlib.suppress(psutil.Error):
        for proc in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "prefect.server.api.server:create_app" in proc.cmdline():
                    pids |= {proc.pid, *(c.pid for c in proc.children(recursive=True))}
    return pids


def fork_server_pid() -> int | None:
    """The worker fork server's process id (None when none runs)."""
    from multiprocessing import forkserver

    return forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined,no-any-return]


def ready_fork_server() -> float:
    """Start the workers' fork server and wait until it forks (its imports done): the
    seconds it took."""
    from flows.fork_server import METHOD, start_fork_server

    started = time.perf_counter()
    if start_fork_server():
        child = multiprocessing.get_context(METHOD).Process(target=os.getpid)
        child.start()  # answered once the fork server has imported its modules
        child.join()
    return time.perf_counter() - started


def _count_hands(files: Sequence[Path]) -> int:
    from parsers.read import generate_fast_games

    return sum(
        len(g.hands) for f in files for g in generate_fast_games(f) if not isinstance(g, Exception)
    )


def _lines(path: Path) -> Iterator[bytes]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        yield from handle


def floor_orjson(files: Sequence[Path]) -> None:
    import orjson

    loads = orjson.loads
    for f in files:
        for line in _lines(f):
            loads(line)


def floor_parse(files: Sequence[Path]) -> None:
    from parsers.read import generate_fast_games

    for f in files:
        for _ in generate_fast_games(f):
            pass


def _parse_file(path: str) -> int:
    from parsers.read import generate_fast_games

    return sum(1 for _ in generate_fast_games(path))


def floor_parse_2(files: Sequence[Path]) -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_parse_file, [str(f) for f in files])


def floor_audit(files: Sequence[Path]) -> None:
    """The engine's part of a worker's work: parse, bridge and audit as
    :func:`flows.process.process_file` calls them (no explanations, its garbage-collector
    policy), with no rows written."""
    from flows.bridge import hand_records
    from flows.process import rare_collections
    from parsers.read import generate_fast_games
    from rules.audit import audit_game
    from rules.presets import resolve_ruleset

    with rare_collections():
        for f in files:
            for g in generate_fast_games(f):
                assert not isinstance(g, Exception)
                ruleset = resolve_ruleset(g.ruleset, g.rule_overrides)
                audit_game(hand_records(g), ruleset, explain=False)


def floor_worker(files: Sequence[Path]) -> None:
    """What one worker does with its files, without Prefect: parse, bridge, audit, rows
    and Parquet shards (:func:`flows.process.process_files`, its garbage-collector policy
    included)."""
    import tempfile

    from flows.discover import hash_file
    from flows.process import process_files

    with tempfile.TemporaryDirectory() as staging:
        process_files([hash_file(str(f)) for f in files], staging)


def _import_floor_modules() -> None:
    import importlib

    for name in ("flows.bridge", "flows.discover", "flows.process", "parsers.read",
                 "rules.audit", "rules.presets"):
        importlib.import_module(name)


def _timed(fn: Callable[[], None]) -> tuple[float, float]:
    """Wall seconds and CPU seconds of this process (children included) for ``fn()``."""
    started, cpu = time.perf_counter(), _cpu_now()
    fn()
    return time.perf_counter() - started, _cpu_now() - cpu


def _cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def cpu_ticks() -> list[int] | None:
    """The machine's CPU time so far, in ticks, by state: user, nice, system, idle, iowait,
    irq, softirq, steal (``/proc/stat``); None where there is no such file."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    return [int(v) for v in fields[1:9]]


def machine_text(before: list[int] | None, after: list[int] | None) -> str:
    """``"steal 12 %, idle 3 %"``: between two :func:`cpu_ticks` readings, the share of the
    machine's CPU time that its virtual CPUs were ready to run but the host ran something
    else (another guest), and the share they had nothing to run. A run with much steal is
    slow because the machine was, not the code; ``""`` where that cannot be read."""
    if before is None or after is None:
        return ""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(spent)
    if total <= 0:
        return ""
    return f"steal {100 * spent[7] / total:.0f} %, idle {100 * (spent[3] + spent[4]) / total:.0f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--small", type=int, default=50_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    files = build_corpus(args.out, args.hands)
    per_file = HANDS_PER_GAME * GAMES_PER_FILE
    small = files[: max(1, args.small // per_file)]
    total_hands = len(files) * per_file
    small_hands = len(small) * per_file
    assert _count_hands(files[:1]) == per_file
    size = sum(f.stat().st_size for f in files)
    print(
        f"corpus: {len(files)} files, {total_hands:,} hands, {size / 1e6:,.0f} MB on disk "
        f"({sum(1 for f in files if f.suffix == '.gz')} gzipped); cores: {os.cpu_count()}"
    )

    rows: list[tuple[str, str, str]] = []

    def row(label: str, value: str, note: str = "") -> None:
        rows.append((label, value, note))
        print(f"  {label:52} {value:>16}  {note}", flush=True)

    print(f"floors on {small_hands:,} hands:")
    for label, fn, subset in (
        ("orjson.loads per line, 1 process", floor_orjson, small),
        ("validated parse (generate_fast_games), 1 process", floor_parse, small),
        ("validated parse, 2 processes", floor_parse_2, small),
        (
            "parse + bridge + audit, no rows/DB, 1 process",
            floor_audit,
            small[: max(1, len(small) // 5)],
        ),
        (
            "a worker's work (+ rows, Parquet), 1 process",
            floor_worker,
            small[: max(1, len(small) // 5)],
        ),
    ):
        n = len(subset) * per_file
        _import_floor_modules()  # no floor times a first import (Prefect's takes 1-2 s)
        ticks = cpu_ticks()
        seconds, cpu = _timed(lambda fn=fn, subset=subset: fn(subset))  # type: ignore[misc]
        row(
            label,
            f"{n / seconds:,.0f} hands/s",
            f"{n:,} hands, {seconds:.1f} s, {1000 * cpu / n:.2f} CPU ms/hand, {_load()}, "
            f"{machine_text(ticks, cpu_ticks())}",
        )

    from flows.ingest import prefect_api, run_ingest

    started = time.perf_counter()
    with prefect_api() as url:
        print(f"Prefect API {url} ready in {time.perf_counter() - started:.1f} s (not timed below)")
        print(f"worker fork server ready in {ready_fork_server():.1f} s (not timed below)")
        runs = ((small, 2, "small"), (files, 1, "all"), (files, 2, "all"))
        for subset, workers, tag in runs:
            db = args.out / f"bench-{tag}-{workers}.duckdb"
            for stale in (db, db.with_name(db.name + ".wal")):
                stale.unlink(missing_ok=True)
            shutil.rmtree(db.with_name(db.name + ".staging"), ignore_errors=True)
            with TreeMeter(_server_pids) as meter:
                ticks = cpu_ticks()
                started = time.perf_counter()
                summary = run_ingest([str(f) for f in subset], db, workers=workers)
                seconds = time.perf_counter() - started
                machine = machine_text(ticks, cpu_ticks())
            assert summary.files_loaded == len(subset), summary
            n = summary.hands
            print(f"ingest {n:,} hands, {workers} worker(s):")
            row(
                f"end to end, {workers} worker(s), {n:,} hands",
                f"{n / seconds:,.0f} hands/s",
                f"{seconds:.1f} s, {1000 * meter.cpu_seconds / n:.2f} CPU ms/hand, {_load()}, "
                f"{machine}",
            )
            row(
                f"peak RSS, {workers} worker(s), {n:,} hands",
                f"{meter.peak / 2**20:,.0f} MiB",
                "ingest process + workers",
            )
            db.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
