"""A worker's instructions per hand, counted by valgrind: a figure that the machine's pace
does not move, for comparing small changes.

    .venv/bin/python bench/instructions.py [--out bench/out]

Runs one process under ``valgrind --tool=callgrind`` with counting off; the process hands a
first stream file of the ``bench/ingest.py`` corpus to
:func:`zhuoji.flows.ingest.worker.process_file`
(imports, caches and the first Parquet writers warm up there), turns counting on with
``callgrind_control``, hands it a second file of 1,000 hands, and turns counting off. Prints
the instructions counted and the instructions per hand. The same code and corpus give the
same count to within about 0.1 %. About a minute; needs valgrind.

Counts are not times. valgrind's virtual CPU has no SHA instructions, so the SHA-256 of
the file's bytes takes about 6 % of the count here and about 1 % of the time natively;
memory and cache effects are not counted at all.

To compare with another commit, check it out elsewhere and run this file with
``PYTHONPATH=<that checkout>``: the process under valgrind then imports that code.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _child(warm: str, measured: str) -> None:
    try:
        from zhuoji.flows.ingest.worker import process_file, rare_collections
    except ImportError:  # a checkout from before zhuoji.flows.ingest.worker (PYTHONPATH, see above)
        from zhuoji.flows.ingest.prefect_run import process_file, rare_collections  # type: ignore[no-redef]

    staging = tempfile.mkdtemp()
    try:
        with rare_collections():
            process_file(warm, None, staging)
            control = ["callgrind_control", "-i"]
            subprocess.run([*control, "on", str(os.getpid())], capture_output=True, check=True)
            outcome = process_file(measured, None, staging)
            subprocess.run([*control, "off", str(os.getpid())], capture_output=True, check=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"hands {outcome.hands}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("valgrind (with callgrind_control) is not installed")

    import ingest as corpus  # bench/ingest.py: the corpus (bench/ is first on sys.path)

    args.out.mkdir(parents=True, exist_ok=True)
    files = [f for f in corpus.build_corpus(args.out, 200_000) if f.suffix == ".jsonl"][:2]
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={Path(tmp) / 'callgrind.out'}",
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                str(files[0]),
                str(files[1]),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    counted = re.search(r"Collected : (\d+)", run.stderr)
    hands = re.search(r"^hands (\d+)$", run.stdout, re.MULTILINE)
    if counted is None or hands is None:
        sys.exit(f"no count in valgrind's output:\n{run.stderr[-2000:]}")
    n, total = int(hands.group(1)), int(counted.group(1))
    print(f"{files[1].name}: {n:,} hands, {total:,} instructions, {total / n:,.0f} a hand")


if __name__ == "__main__":
    main()
