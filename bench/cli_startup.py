"""Wall time of short ``zhuoji`` commands: ``--help``, ``--version``, ``audit`` of one file.

    .venv/bin/python bench/cli_startup.py [--runs 5] [--zhuoji PATH ...]

Each command runs ``--runs`` times in a fresh process (the console script, as a user runs
it); the best and the median wall times are printed, with a bare ``python -c pass`` for the
interpreter's own start, and the best CPU time (user + system, which a loaded machine
changes least). ``--zhuoji`` names other console scripts to time beside this
checkout's (another checkout's ``.venv/bin/zhuoji``, to compare). Figures are wall-clock on
a shared machine: the load average and the steal and idle shares of the machine's CPU time
during each series are printed beside them (:func:`bench.ingest.machine_text`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import time
from pathlib import Path

from _checkout import ROOT  # first: the checkout's root on sys.path, for bench.ingest

from bench.ingest import cpu_ticks, machine_text

DISPUTE = ROOT / "tests" / "data" / "disputes" / "kong_owner_not_ready.json"
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "--version": ["--version"],
    "audit (one file)": ["audit", str(DISPUTE)],
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_runs(argv: list[str], runs: int) -> tuple[float, float, float, str]:
    """Best and median wall seconds of ``runs`` runs, the best CPU seconds (user + system:
    what a loaded machine changes least), and the machine's shares meanwhile."""
    times, cpus = [], []
    before = cpu_ticks()
    for _ in range(runs):
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
        cpus.append(_children_cpu() - cpu)
    return min(times), statistics.median(times), min(cpus), machine_text(before, cpu_ticks())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--zhuoji", type=Path, action="append", default=[])
    args = parser.parse_args()
    scripts = [ROOT / ".venv" / "bin" / "zhuoji", *args.zhuoji]
    python = ROOT / ".venv" / "bin" / "python"
    best, median, cpu, shares = time_runs([str(python), "-c", "pass"], args.runs)
    print(f"python -c pass: best {best:.3f} s, median {median:.3f} s, CPU {cpu:.3f} s "
          f"(load {os.getloadavg()[0]:.1f}; {shares})")
    for script in scripts:
        print(script)
        for name, cmd in COMMANDS.items():
            best, median, cpu, shares = time_runs([str(script), *cmd], args.runs)
            print(f"  zhuoji {name:18} best {best:.3f} s, median {median:.3f} s, "
                  f"CPU {cpu:.3f} s (load {os.getloadavg()[0]:.1f}; {shares})")


if __name__ == "__main__":
    main()
