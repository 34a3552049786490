"""Ingest speed as users meet it: two shapes of the same hands, the start-up, floors.

    .venv/bin/python bench/ingest.py [--hands 200000] [--small 50000] [--out bench/out]
                                     [--runs 3] [--only startup|floors|ingest ...]
                                     [--no-one-worker]

Corpus (built once, deterministically, under ``--out``, which git ignores): a pool of
simulated games of 8 hands (:mod:`zhuoji.rules.families.guizhou.simulate`, preset guiyang: legal
hands with
recorded results) is replicated under fresh game and player ids until ``--hands`` hands,
in two shapes holding the same games: **streams**, files of 125 games (1,000 hands) each,
and **documents**, one document file per game (8 hands: the platform of issue 19 that
exports one file per game); every fourth file of each is gzipped. Replicas cost the
pipeline exactly what new games cost (every hand is parsed, replayed, settled and
loaded).

Then:

* **start-up** (:func:`startup`): ``zhuoji ingest`` of one 8-hand document file as a user
  runs it (a new process, no ``PREFECT_API_URL``: no Prefect), beside ``zhuoji audit``
  of the same file: the first run on a new ``PREFECT_HOME``, then ``--runs`` rounds, in
  turns, of an ingest into a new database, a rerun that skips the file, and an audit;
  the best of each, and the time the ingest summary shows beside the wall time; then
  the same file as a flow run (``--prefect``: the local Prefect server started on a new
  ``PREFECT_HOME``, then reused), and the seconds from the summary to the exit;
* **floors** on the first ``--small`` hands of the streams, one process: ``orjson.loads``
  of every line; validated parsing (``parsers.generate_fast_games``, what the ingest
  reads); parse + bridge + audit (no rows, no database); a worker's whole work without
  Prefect (that, plus rows and Parquet shards: ``zhuoji.flows.ingest.worker.process_files``); and
  validated parsing on 2 processes;
* **ingest** (:func:`zhuoji.flows.ingest.run.run_ingest`) into a new database, against one
Prefect
  API (the local server, started once and not timed, unless ``PREFECT_API_URL`` names a
  server) and one worker fork server (:mod:`zhuoji.flows.runtime.pool`, started once and not timed
  either): all hands as documents and as streams with 2 workers, the first ``--small``
  hands of each shape with 2 workers, all the streams with 1 worker, the shapes in
  turns. Wall time of the whole flow run (the workers' start included), hands/s, CPU
  ms per hand, and the peak resident memory of the process tree (the ingest process and
  its workers; the Prefect server and the fork server left out), sampled every 0.2 s.
  The summary gives documents / streams, and memory at ``--small`` vs ``--hands``
  hands: whether it grows with the corpus.

Figures are wall-clock on a shared machine: the load average is printed beside them, and
the steal and idle shares of the machine's CPU time during that run (:func:`machine_text`,
from ``/proc/stat`` on Linux: steal is the time the host gave to other guests). Dated
runs are kept in ``bench/RESULTS.md``.
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
from typing import Any

os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

HANDS_PER_GAME = 8  # the one-game files of the platform: 8 hands a game
GAMES_PER_FILE = 125  # 1,000 hands per stream file
POOL_GAMES = 125
SHAPES = ("streams", "documents")
PLAYERS = 120
SEED = 20261101


# --- corpus ----------------------------------------------------------------------------


def _simulate_one(game_no: int) -> list[bytes]:
    from zhuoji.flows.audit.bridge import game_from_records
    from zhuoji.parsers.write import generate_stream_lines
    from zhuoji.rules.families.guizhou.simulate import simulate_game
    from zhuoji.rules.presets import load_preset

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


def _pool_documents(out: Path) -> list[dict[str, Any]]:
    """The pool's games as document objects (``zhuoji.parsers.write``'s form of a game)."""
    from zhuoji.parsers.read import generate_games
    from zhuoji.parsers.write import _game_dict

    _pool(out)
    path = out / f"pool-{SEED}-{POOL_GAMES}x{HANDS_PER_GAME}.jsonl"
    games = []
    for game in generate_games(path):
        assert not isinstance(game, Exception), game
        games.append(_game_dict(game))
    return games


def _relabelled_document(doc: dict[str, Any], game_id: str, first_player: int) -> bytes:
    """A pool game as a document file's bytes, under a new id and new players (as
    :func:`_relabelled` does to its stream lines)."""
    import orjson

    players = [
        {**p, "id": f"p{(first_player + p['seat']) % PLAYERS:03d}"} for p in doc["players"]
    ]
    return orjson.dumps({**doc, "game_id": game_id, "players": players}) + b"\n"


def build_corpus(out: Path, hands: int, shape: str = "streams") -> list[Path]:
    """The corpus files in ingest order (a prefix of them is a smaller corpus).

    ``streams``: stream files of :data:`GAMES_PER_FILE` games; ``documents``: one
    document file per game (:data:`HANDS_PER_GAME` hands). Both shapes hold the same
    games, under the same ids; every fourth file is gzipped."""
    folder = out / f"ingest-{SEED}-{hands}-{shape}"
    per_file = HANDS_PER_GAME * (GAMES_PER_FILE if shape == "streams" else 1)
    n_files = -(-hands // per_file)
    suffix = ".jsonl" if shape == "streams" else ".json"
    names = [f"f{i:05d}{suffix}" + (".gz" if i % 4 == 3 else "") for i in range(n_files)]
    files = [folder / name for name in names]
    if all(f.exists() for f in files):
        return files
    folder.mkdir(parents=True, exist_ok=True)
    if shape == "streams":
        pool = _pool(out)
        game = 0
        for path in files:
            data = b"".join(
                line
                for k in range(GAMES_PER_FILE)
                for line in _relabelled(
                    pool[(game + k) % len(pool)], f"b{game + k:06d}", game + k
                )
            )
            game += GAMES_PER_FILE
            _write(path, data)
    else:
        docs = _pool_documents(out)
        for game, path in enumerate(files):
            _write(path, _relabelled_document(docs[game % len(docs)], f"b{game:06d}", game))
    return files


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(
        gzip.compress(data, compresslevel=6, mtime=0) if path.suffix == ".gz" else data
    )
    tmp.replace(path)


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
    from zhuoji.flows.runtime.fork_server import METHOD, start_fork_server

    started = time.perf_counter()
    if start_fork_server():
        child = multiprocessing.get_context(METHOD).Process(target=os.getpid)
        child.start()  # answered once the fork server has imported its modules
        child.join()
    return time.perf_counter() - started


def _count_hands(files: Sequence[Path]) -> int:
    from zhuoji.parsers.read import generate_fast_games

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
    from zhuoji.parsers.read import generate_fast_games

    for f in files:
        for _ in generate_fast_games(f):
            pass


def _parse_file(path: str) -> int:
    from zhuoji.parsers.read import generate_fast_games

    return sum(1 for _ in generate_fast_games(path))


def floor_parse_2(files: Sequence[Path]) -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_parse_file, [str(f) for f in files])


def floor_audit(files: Sequence[Path]) -> None:
    """The engine's part of a worker's work: parse, bridge and audit as
    :func:`zhuoji.flows.ingest.worker.process_file` calls them (no explanations, its
    garbage-collector
    policy), with no rows written."""
    from zhuoji.flows.audit.bridge import hand_records
    from zhuoji.flows.ingest.worker import rare_collections
    from zhuoji.parsers.read import generate_fast_games
    from zhuoji.rules.audit import audit_game
    from zhuoji.rules.presets import resolve_ruleset

    with rare_collections():
        for f in files:
            for g in generate_fast_games(f):
                assert not isinstance(g, Exception)
                ruleset = resolve_ruleset(g.ruleset, g.rule_overrides)
                audit_game(hand_records(g), ruleset, explain=False)


def floor_worker(files: Sequence[Path]) -> None:
    """What one worker does with its files, without Prefect: parse, bridge, audit, rows
    and Parquet shards (:func:`zhuoji.flows.ingest.worker.process_files`, its garbage-collector
    policy
    included)."""
    import tempfile

    from zhuoji.flows.ingest.discover import hash_file
    from zhuoji.flows.ingest.worker import process_files

    with tempfile.TemporaryDirectory() as staging:
        process_files([hash_file(str(f)) for f in files], staging)


def _import_floor_modules() -> None:
    import importlib

    for name in ("zhuoji.flows.audit.bridge", "zhuoji.flows.ingest.discover",
                 "zhuoji.flows.ingest.worker", "zhuoji.parsers.read",
                 "zhuoji.rules.audit", "zhuoji.rules.presets"):
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


def _zhuoji(args: Sequence[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of one ``zhuoji`` command (a new process, as a user runs it) and its
    output; exit codes other than 0 and 1 (1: violations found) are an error."""
    seconds, out, _ = _zhuoji_timed(args, env)
    return seconds, out


def _zhuoji_timed(args: Sequence[str], env: dict[str, str]) -> tuple[float, str, float]:
    """:func:`_zhuoji`, and the seconds from the last line of its output to its exit (the
    command's end: its exit handlers and the interpreter's finalization)."""
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("zhuoji")
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines = []
    last = started
    for line in proc.stdout:
        lines.append(line)
        last = time.perf_counter()
    err = proc.stderr.read()
    code = proc.wait()
    ended = time.perf_counter()
    if code not in (0, 1):
        raise RuntimeError(f"zhuoji {' '.join(args)}: exit {code}\n{err}")
    return ended - started, "".join(lines), ended - last


def _shown_time(stdout: str) -> str:
    """The time the ingest summary shows."""
    import re

    found = re.findall(r"time\s+│\s+([\d.]+ s)", stdout)
    return found[-1] if found else "?"


def startup(out: Path, log: Path, runs: int, row: Callable[[str, str, str], None]) -> None:
    """``zhuoji ingest`` of one small file against ``zhuoji audit`` of it, with no Prefect
    server configured: the first run on a new ``PREFECT_HOME`` (what a fresh machine
    sees), ``runs`` runs each into a new database, ``runs`` reruns that skip the file,
    and ``runs`` audits, in turns; best of each. Such a run takes no Prefect
    (:mod:`zhuoji.flows.ingest.local_run`). Then the same as a flow run (``--prefect``): its first
    run
    on a new ``PREFECT_HOME`` (the local Prefect server starts and creates its
    database), and ``runs`` runs into a new database (the server reused), with the
    seconds between the summary and the command's exit. The local server is stopped at
    the end."""
    home = out / f"startup-home-{os.getpid()}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_HOME=str(home), COLUMNS="200")
    try:
        ticks = cpu_ticks()
        db = home / "first.duckdb"
        first, first_out = _zhuoji(["ingest", str(log), "--db", str(db), "--quiet"], env)
        machine = machine_text(ticks, cpu_ticks())
        row(
            "first ingest on a new PREFECT_HOME",
            f"{first:.2f} s",
            f"summary shows {_shown_time(first_out)}, {_load()}, {machine}",
        )
        figures: dict[str, list[float]] = {"ingest": [], "rerun": [], "audit": [], "flow": []}
        shown: dict[str, list[str]] = {"ingest": [], "rerun": [], "flow": []}
        ends: dict[str, list[float]] = {"ingest": [], "flow": []}
        ticks = cpu_ticks()
        for k in range(runs):  # in turns, so that the machine's pace moves them alike
            db = home / f"run-{k}.duckdb"
            seconds, text, end = _zhuoji_timed(
                ["ingest", str(log), "--db", str(db), "--quiet"], env
            )
            figures["ingest"].append(seconds)
            shown["ingest"].append(_shown_time(text))
            ends["ingest"].append(end)
            seconds, text = _zhuoji(["ingest", str(log), "--db", str(db), "--quiet"], env)
            figures["rerun"].append(seconds)
            shown["rerun"].append(_shown_time(text))
            figures["audit"].append(_zhuoji(["audit", str(log)], env)[0])
        machine = machine_text(ticks, cpu_ticks())
        audit = min(figures["audit"])
        row(
            "zhuoji audit of the file, best",
            f"{audit:.2f} s",
            "runs " + ", ".join(f"{s:.2f}" for s in figures["audit"]),
        )
        for key, label in (
            ("ingest", "ingest of the file (no Prefect), best"),
            ("rerun", "rerun that skips it, best"),
        ):
            best = min(figures[key])
            row(
                label,
                f"{best:.2f} s",
                f"{best / audit:.1f}x the audit; runs "
                + ", ".join(f"{s:.2f}" for s in figures[key])
                + "; summary shows "
                + ", ".join(shown[key]),
            )
        print(f"  ({_load()}, {machine})")
        ticks = cpu_ticks()
        db = home / "flow-first.duckdb"
        flow_args = ["ingest", str(log), "--quiet", "--prefect", "--db"]
        first, first_out = _zhuoji([*flow_args, str(db)], env)
        row(
            "flow run (--prefect): first on the new PREFECT_HOME",
            f"{first:.2f} s",
            f"summary shows {_shown_time(first_out)}, {_load()}, "
            f"{machine_text(ticks, cpu_ticks())}",
        )
        ticks = cpu_ticks()
        for k in range(runs):
            seconds, text, end = _zhuoji_timed([*flow_args, str(home / f"flow-{k}.duckdb")], env)
            figures["flow"].append(seconds)
            shown["flow"].append(_shown_time(text))
            ends["flow"].append(end)
        best = min(figures["flow"])
        row(
            "flow run (--prefect, server reused), best",
            f"{best:.2f} s",
            f"{best / audit:.1f}x the audit; runs "
            + ", ".join(f"{s:.2f}" for s in figures["flow"])
            + "; summary shows "
            + ", ".join(shown["flow"]),
        )
        for key, label in (("ingest", "no Prefect"), ("flow", "flow run")):
            row(
                f"summary to exit, {label}",
                f"{min(ends[key]):.2f} s",
                "runs " + ", ".join(f"{s:.2f}" for s in ends[key]),
            )
        print(f"  ({_load()}, {machine_text(ticks, cpu_ticks())})")
    finally:
        _zhuoji(["server", "stop"], env)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--small", type=int, default=50_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--runs", type=int, default=3, help="runs of each start-up figure")
    parser.add_argument(
        "--no-one-worker", action="store_true", help="leave out the 1-worker run of the streams"
    )
    parser.add_argument(
        "--only", choices=("startup", "floors", "ingest"), action="append",
        help="run only these parts (repeatable; default: all)",
    )
    args = parser.parse_args()
    parts = set(args.only or ("startup", "floors", "ingest"))
    args.out.mkdir(parents=True, exist_ok=True)

    corpora = {shape: build_corpus(args.out, args.hands, shape) for shape in SHAPES}
    for shape, files in corpora.items():
        size = sum(f.stat().st_size for f in files)
        print(
            f"corpus {shape}: {len(files):,} files, {args.hands:,} hands, {size / 1e6:,.0f} MB "
            f"on disk ({sum(1 for f in files if f.suffix == '.gz'):,} gzipped); "
            f"cores: {os.cpu_count()}"
        )
    streams, documents = corpora["streams"], corpora["documents"]
    stream_hands = HANDS_PER_GAME * GAMES_PER_FILE
    assert _count_hands(streams[:1]) == stream_hands
    assert _count_hands(documents[:1]) == HANDS_PER_GAME

    rows: list[tuple[str, str, str]] = []

    def row(label: str, value: str, note: str = "") -> None:
        rows.append((label, value, note))
        print(f"  {label:52} {value:>16}  {note}", flush=True)

    if "startup" in parts:
        print(f"start-up, one {HANDS_PER_GAME}-hand document file ({documents[0].name}), "
              "no Prefect server configured:")
        startup(args.out, documents[0], args.runs, row)

    small = streams[: max(1, args.small // stream_hands)]
    small_hands = len(small) * stream_hands
    if "floors" in parts:
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
        if "floors" not in parts:
            break
        n = len(subset) * stream_hands
        _import_floor_modules()  # no floor times a first import (Prefect's takes 1-2 s)
        ticks = cpu_ticks()
        seconds, cpu = _timed(lambda fn=fn, subset=subset: fn(subset))  # type: ignore[misc]
        row(
            label,
            f"{n / seconds:,.0f} hands/s",
            f"{n:,} hands, {seconds:.1f} s, {1000 * cpu / n:.2f} CPU ms/hand, {_load()}, "
            f"{machine_text(ticks, cpu_ticks())}",
        )
    if "ingest" not in parts:
        return

    from zhuoji.flows.ingest.run import run_ingest
    from zhuoji.flows.runtime.prefect_api import prefect_api

    started = time.perf_counter()
    with prefect_api() as url:
        print(f"Prefect API {url} ready in {time.perf_counter() - started:.1f} s (not timed below)")
        print(f"worker fork server ready in {ready_fork_server():.1f} s (not timed below)")
        # The runs are given folders, as a user would: a flow run's parameters must stay
        # under 512 kB (Prefect's limit), which 25,000 paths pass. The smaller corpus is
        # a folder of its own, built the same way (its games are the first ones).
        small_docs = build_corpus(args.out, small_hands, "documents")
        small_streams = build_corpus(args.out, small_hands, "streams")
        runs = (  # the two shapes in turns
            (documents, 2, "documents"),
            (streams, 2, "streams"),
            (small_docs, 2, "documents"),
            (small_streams, 2, "streams"),
            *(() if args.no_one_worker else ((streams, 1, "streams"),)),
        )
        rates: dict[tuple[str, int, int], float] = {}
        peaks: dict[tuple[str, int, int], float] = {}
        for subset, workers, shape in runs:
            db = args.out / f"bench-{shape}-{len(subset)}-{workers}.duckdb"
            for stale in (db, db.with_name(db.name + ".wal")):
                stale.unlink(missing_ok=True)
            shutil.rmtree(db.with_name(db.name + ".staging"), ignore_errors=True)
            with TreeMeter(_server_pids) as meter:
                ticks = cpu_ticks()
                started = time.perf_counter()
                summary = run_ingest([str(subset[0].parent)], db, workers=workers)
                seconds = time.perf_counter() - started
                machine = machine_text(ticks, cpu_ticks())
            assert summary.files_loaded == len(subset), summary
            n = summary.hands
            rates[shape, n, workers] = n / seconds
            peaks[shape, n, workers] = meter.peak / 2**20
            print(f"ingest {n:,} hands, {shape}, {len(subset):,} files, {workers} worker(s):")
            row(
                f"end to end, {shape}, {workers} worker(s), {n:,} hands",
                f"{n / seconds:,.0f} hands/s",
                f"{seconds:.1f} s, {1000 * meter.cpu_seconds / n:.2f} CPU ms/hand, {_load()}, "
                f"{machine}",
            )
            row(
                f"peak RSS, {shape}, {workers} worker(s), {n:,} hands",
                f"{meter.peak / 2**20:,.0f} MiB",
                "ingest process + workers",
            )
            db.unlink(missing_ok=True)
    total = len(streams) * stream_hands
    print("summary:")
    row(
        f"documents / streams, 2 workers, {total:,} hands",
        f"{rates['documents', total, 2] / rates['streams', total, 2]:.2f}x",
        f"{rates['documents', total, 2]:,.0f} against {rates['streams', total, 2]:,.0f} hands/s",
    )
    for shape in SHAPES:
        row(
            f"peak RSS {small_hands:,} -> {total:,} hands, {shape}",
            f"{peaks[shape, small_hands, 2]:,.0f} -> {peaks[shape, total, 2]:,.0f} MiB",
        )


if __name__ == "__main__":
    main()
