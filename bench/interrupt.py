"""How long ``zhuoji ingest`` takes to end after one Ctrl-C.

    .venv/bin/python bench/interrupt.py [--hands 20000] [--workers 2] [--runs 3]
                                        [--after 2] [--out bench/out]

Builds (once, under ``--out``) a corpus of ``--hands`` simulated hands (``zhuoji simulate``:
one 8-hand document file per game), then runs ``zhuoji ingest CORPUS --workers N --quiet``
``--runs`` times, each into a new database, as a user's terminal would: in a session of
its own. Once the run is demonstrably under way (its staging folder's run marker exists:
the plan is made, the run recorded and the workers given their tasks) and ``--after``
seconds more have passed, ``SIGINT`` goes to the whole process group, as a terminal sends
Ctrl-C. Prints, per run, the seconds from the signal to the command's exit, its exit
status, the lines it printed on standard error (and whether any was a traceback) and the
run's ``ingest_runs`` status; then the median. A run still going ``--give-up`` seconds
(600) after the signal gets a second ``SIGINT``, and ``SIGKILL`` 30 s later; its time is
then at least that (the median says so).

``--workers 0`` leaves ``--workers`` out (the default worker count).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _checkout  # first: the checkout's root on sys.path

from zhuoji.flows.ingest.steps import RUN_MARKER, staging_dir_for

ROOT = _checkout.ROOT
HANDS_PER_GAME = 8
GIVE_UP = 600.0


def corpus(out: Path, hands: int) -> Path:
    """The corpus of ``hands`` hands under ``out`` (written once by ``zhuoji simulate``)."""
    folder = out / f"interrupt-{hands}"
    if not (folder / ".complete").exists():
        subprocess.run(
            [
                sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
                "simulate", "--out", str(folder), "--games", str(-(-hands // HANDS_PER_GAME)),
                "--hands-per-game", str(HANDS_PER_GAME), "--workers", "2", "--lang", "en",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (folder / ".complete").write_text("", encoding="utf-8")
    return folder


def run_status(db: Path) -> str:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT status FROM ingest_runs ORDER BY run_id").fetchall()
    finally:
        con.close()
    return ",".join(str(r[0]) for r in rows) or "(no run)"


def one_run(
    folder: Path, workers: int, after: float, work: Path, give_up: float = GIVE_UP
) -> tuple[float, str]:
    """Seconds from the SIGINT to the exit, and a line describing the run."""
    db = work / "interrupt.duckdb"
    marker = staging_dir_for(db) / RUN_MARKER
    command = [
        sys.executable, "-c", "from zhuoji.flows.cli.main import main; main()",
        "ingest", str(folder), "--db", str(db), "--quiet", "--lang", "en",
    ]
    if workers:
        command += ["--workers", str(workers)]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + GIVE_UP
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the ingest ended or stalled before it began: {proc.stderr.read()!r}")  # type: ignore[union-attr]
        time.sleep(0.02)
    time.sleep(after)
    if proc.poll() is not None:
        raise SystemExit("the ingest ended before the signal: give it more hands")
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(give_up)
        seconds = time.monotonic() - sent
    except subprocess.TimeoutExpired:
        seconds = float("inf")
        os.killpg(proc.pid, signal.SIGINT)  # a second Ctrl-C
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stderr = proc.stderr.read().decode(errors="replace")  # type: ignore[union-attr]
    lines = stderr.splitlines()
    traceback = "Traceback" in stderr or "Exception ignored" in stderr
    first = lines[0] if lines else ""
    with_status = run_status(db) if db.exists() else "(no database)"
    return seconds, (
        f"{seconds:6.2f} s  exit {proc.returncode}  {len(lines)} stderr line(s)"
        f"{'  TRACEBACKS' if traceback else ''}  ingest_runs: {with_status}  first: {first[:100]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--after", type=float, default=2.0)
    parser.add_argument("--give-up", type=float, default=GIVE_UP)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = parser.parse_args()
    folder = corpus(args.out, args.hands)
    times: list[float] = []
    for n in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="zhuoji-interrupt-") as work:
            seconds, text = one_run(folder, args.workers, args.after, Path(work), args.give_up)
        times.append(seconds)
        print(f"run {n}: {text}", flush=True)
    median = statistics.median(times)
    shown = f"over {args.give_up:g}" if median == float("inf") else f"{median:.2f}"
    hung = sum(t == float("inf") for t in times)
    print(
        f"Ctrl-C to exit, {args.hands:,} hands, --workers {args.workers or 'default'}: "
        f"median {shown} s over {len(times)} runs"
        + (f" ({hung} still running {args.give_up:g} s after the Ctrl-C)" if hung else "")
    )


if __name__ == "__main__":
    main()
