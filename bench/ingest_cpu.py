"""Where an ingest's CPU time goes: one ``zhuoji ingest`` run, its CPU time per process.

    .venv/bin/python bench/ingest_cpu.py [--hands 100000] [--workers 2] [--writer-threads N]
                                         [--shape documents] [--spawn]

Runs :func:`zhuoji.flows.ingest.run.run_ingest` on the first ``--hands`` hands of the
``bench/ingest.py`` corpus (built there, under ``--out``) into a new database, against one
temporary Prefect server and the workers' fork server (both started first, not timed),
and prints the wall time, hands/s, the machine's steal and idle shares during the run
(``bench/ingest.py``'s ``machine_text``), and the CPU time of each process (the ingest
process, each worker, the Prefect server, the fork server) sampled every 0.2 s
(``bench/ingest.py``'s ``TreeMeter``). To compare with
another commit, run that checkout's copy of this file with ``PYTHONPATH`` on it and from
that checkout's folder: before ``zhuoji.flows.runtime.fork_server`` gave the fork server
this process's import path, the fork server imported from the current folder first.
``--writer-threads`` sets the loader's DuckDB threads
(:data:`zhuoji.flows.ingest.prefect_run.LOCAL_WRITER_THREADS`; 0: DuckDB's default, a thread
per core), to compare the two. ``--spawn`` runs the workers in Prefect's own process pool instead of
:class:`zhuoji.flows.runtime.pool.ForkServerTaskRunner` (spawned, not forked; tasks handed on in
Prefect's order), to compare the two.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def _role(cmdline: list[str], is_me: bool, is_fork_server: bool) -> str:
    text = " ".join(cmdline)
    if is_me:
        return "ingest process (flow, loader)"
    if is_fork_server:
        return "worker fork server"
    if "uvicorn" in text:
        return "Prefect server"
    if "resource_tracker" in text:
        return "multiprocessing resource tracker"
    if "spawn_main" in text or "forkserver" in text:  # a spawned or a forked worker
        return "worker"
    return text[-60:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--writer-threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument(
        "--shape",
        choices=("streams", "documents"),
        default="streams",
        help="stream files of 1,000 hands, or one 8-hand document file per game",
    )
    parser.add_argument(
        "--spawn",
        action="store_true",
        help="Prefect's own process pool (spawned workers, Prefect's dispatch order), to compare",
    )
    args = parser.parse_args()

    import ingest as corpus  # bench/ingest.py: the corpus (bench/ is first on sys.path)

    import zhuoji.flows.ingest.prefect_run as flow_module
    from zhuoji.flows.ingest.run import run_ingest

    if args.spawn:
        from prefect.task_runners import ProcessPoolTaskRunner

        def spawned_pool(workers: int, dask_address: str | None) -> ProcessPoolTaskRunner:
            return ProcessPoolTaskRunner(max_workers=workers)

        flow_module.make_task_runner = spawned_pool  # type: ignore[assignment]
        flow_module.start_fork_server = lambda: False
    if args.writer_threads is not None:
        flow_module.LOCAL_WRITER_THREADS = args.writer_threads or None
    args.out.mkdir(parents=True, exist_ok=True)
    files = corpus.build_corpus(args.out, max(args.hands, 200_000), args.shape)
    per_file = corpus.HANDS_PER_GAME * (corpus.GAMES_PER_FILE if args.shape == "streams" else 1)
    files = files[: max(1, args.hands // per_file)]
    db = args.out / "bench-cpu.duckdb"
    with flow_module.prefect_api():
        if not args.spawn:
            print(f"worker fork server ready in {corpus.ready_fork_server():.1f} s (not timed)")
        for stale in (db, db.with_name(db.name + ".wal")):
            stale.unlink(missing_ok=True)
        with corpus.TreeMeter() as meter:  # the Prefect server counted too
            ticks = corpus.cpu_ticks()
            started = time.perf_counter()
            summary = run_ingest([str(f) for f in files], db, workers=args.workers)
            seconds = time.perf_counter() - started
            machine = corpus.machine_text(ticks, corpus.cpu_ticks())
    db.unlink(missing_ok=True)
    n = summary.hands
    threads = getattr(flow_module, "LOCAL_WRITER_THREADS", None)  # (older code: none)
    print(
        f"{n:,} hands, {args.workers} worker(s), loader DuckDB threads "
        f"{threads if threads else 'default'}: {seconds:.1f} s, {n / seconds:,.0f} hands/s"
        + (f" (machine: {machine})" if machine else "")
    )
    me = os.getpid()
    for pid, used in sorted(meter.cpu_by_process().items()):
        role = _role(meter.commands.get(pid, []), pid == me, pid == corpus.fork_server_pid())
        print(f"  {role:36} {used:7.2f} CPU s  {1000 * used / n:.3f} ms/hand")
    total = meter.cpu_seconds
    print(f"  {'all':36} {total:7.2f} CPU s  {1000 * total / n:.3f} ms/hand")


if __name__ == "__main__":
    main()
