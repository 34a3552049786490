"""Parsing speed of both encodings next to the raw JSON floor, measured in one run.

    .venv/bin/python bench/parse.py [--mb 50] [--repeat 3] [--gzip] [--out bench/out]

Generates (once, deterministically, under ``bench/out/``, which git ignores) a corpus of
at least ``--mb`` MB in each encoding: the same games as one document file each and as
one stream file. Then, for each encoding, times

* the floor: ``orjson.loads`` of the same bytes with no validation (each document file
  read whole; each line of the stream file), and
* validated parsing into the fast form: ``parsers.generate_fast_games`` over the same
  files (msgspec structs, :mod:`zhuoji.parsers.fast`: the same games, checks and errors as the
  models; what ``zhuoji ingest``, ``audit`` and ``validate`` read with), and
* validated parsing into the pydantic models: ``parsers.generate_games``,

best of ``--repeat`` runs each (process CPU time, the three runs interleaved, so other
load on the machine skews none of them), and prints MB/s, events/s, hands/s and the ratio
parse time / floor time. ``--gzip`` adds the ``.json.gz`` / ``.jsonl.gz`` forms (their
floors include decompression). Figures are for one process on this machine.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import _checkout  # noqa: F401  (first: the checkout's root on sys.path, for tests.support)
import orjson
import pydantic_core

from tests.support.corpus import Corpus, build_corpus
from zhuoji.parsers import fast
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_fast_games, generate_games


def _floor_documents(paths: tuple[Path, ...], gzipped: bool) -> Callable[[], int]:
    def run() -> int:
        n = 0
        for path in paths:
            data = path.read_bytes()
            if gzipped:
                data = gzip.decompress(data)
            orjson.loads(data)
            n += 1
        return n

    return run


def _floor_stream(path: Path, gzipped: bool) -> Callable[[], int]:
    def run() -> int:
        n = 0
        with open(path, "rb") as raw:
            source = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            loads = orjson.loads
            for line in source:
                if line.strip():
                    loads(line)
                    n += 1
        return n

    return run


def _parse(paths: tuple[Path, ...]) -> Callable[[], int]:
    def run() -> int:
        n = 0
        for path in paths:
            for item in generate_games(path):
                if not isinstance(item, Game):
                    raise SystemExit(f"benchmark corpus failed to parse: {item}")
                n += 1
        return n

    return run


def _parse_fast(paths: tuple[Path, ...]) -> Callable[[], int]:
    def run() -> int:
        n = 0
        for path in paths:
            for item in generate_fast_games(path):
                if not isinstance(item, fast.Game):
                    raise SystemExit(f"benchmark corpus failed to parse: {item}")
                n += 1
        return n

    return run


def _best(runs: list[Callable[[], int]], repeat: int) -> list[float]:
    """Best CPU seconds of each, the runs interleaved so that all see the same load."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for slot, fn in enumerate(runs):
            start = time.process_time()
            fn()
            best[slot] = min(best[slot], time.process_time() - start)
    return best


def _gzip_copies(corpus: Corpus) -> tuple[tuple[Path, ...], Path]:
    folder = corpus.folder / "gz"
    (folder / "documents").mkdir(parents=True, exist_ok=True)
    docs = []
    for path in corpus.documents:
        target = folder / "documents" / (path.name + ".gz")
        if not target.exists():
            target.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
        docs.append(target)
    stream = folder / "stream.jsonl.gz"
    if not stream.exists():
        stream.write_bytes(gzip.compress(corpus.stream.read_bytes(), mtime=0))
    return tuple(docs), stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="corpus size per encoding")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best)")
    parser.add_argument("--gzip", action="store_true", help="also time the .gz forms")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args()

    start = time.perf_counter()
    corpus = build_corpus(args.out, min_mb=args.mb)
    built = time.perf_counter() - start
    print(
        f"corpus: {corpus.games} games, {corpus.hands} hands, {corpus.events} events; "
        f"document {corpus.document_bytes / 1e6:.1f} MB in {len(corpus.documents)} files, "
        f"stream {corpus.stream_bytes / 1e6:.1f} MB in 1 file ({corpus.folder}, {built:.1f} s)"
    )
    print(
        f"python {platform.python_version()}, pydantic-core {pydantic_core.__version__}, "
        f"orjson {orjson.__version__}, {os.cpu_count()} cores; best of {args.repeat}"
    )
    rows: list[tuple[str, int, Callable[[], int], tuple[Path, ...]]] = [
        (
            "document .json",
            corpus.document_bytes,
            _floor_documents(corpus.documents, False),
            corpus.documents,
        ),
        (
            "stream .jsonl",
            corpus.stream_bytes,
            _floor_stream(corpus.stream, False),
            (corpus.stream,),
        ),
    ]
    if args.gzip:
        docs, stream = _gzip_copies(corpus)
        rows.append(
            ("document .json.gz", corpus.document_bytes, _floor_documents(docs, True), docs)
        )
        rows.append(
            ("stream .jsonl.gz", corpus.stream_bytes, _floor_stream(stream, True), (stream,))
        )

    header = (
        f"{'encoding':<18} {'what':<26} {'CPU s':>8} {'MB/s':>7} {'events/s':>11} "
        f"{'hands/s':>9} {'x floor':>8}"
    )
    print()
    print(header)
    print("-" * len(header))
    for name, size, floor, paths in rows:
        floor_s, fast_s, models_s = _best([floor, _parse_fast(paths), _parse(paths)], args.repeat)
        for what, seconds in (
            ("orjson floor", floor_s),
            ("validated, fast form", fast_s),
            ("validated, pydantic models", models_s),
        ):
            ratio = f"{seconds / floor_s:8.2f}"
            print(
                f"{name:<18} {what:<26} {seconds:8.2f} {size / 1e6 / seconds:7.1f} "
                f"{corpus.events / seconds:11,.0f} {corpus.hands / seconds:9,.0f} {ratio}"
            )
    print()
    print("MB are uncompressed bytes; 'x floor' is time / the orjson floor of the same bytes.")
    print("Both validated forms accept the same games with the same values (parsers/fast.py).")


if __name__ == "__main__":
    main()
