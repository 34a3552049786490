"""Hostile inputs through the command line: what is no regular file, inputs past the limits,
and one verdict for one file from ``validate``, ``audit`` and ``ingest``.

What could hang (a named pipe, a link to ``/dev/zero``) or take unbounded memory (a gzip
bomb, a line of hundreds of megabytes) runs the real command in a child process with a
timeout; its peak memory is read from the operating system (``ru_maxrss``).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from tests.support.factories import doc_bytes, game_dict, stream_bytes
from zhuoji.flows.cli.main import app
from zhuoji.flows.ingest.discover import find_log_paths

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
DOCUMENT = SAMPLE / "t7-20261101-0001.json"
STREAM = SAMPLE / "t3-20261102.ndjson.gz"
runner = CliRunner()

# Runs the command as its only child and reports the child's peak resident memory (KiB).
_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(f'peak-kib {peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)
_ZHUOJI = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"


def _zhuoji(
    args: Sequence[str], env: dict[str, str] | None = None, timeout: float = 120
) -> tuple[subprocess.CompletedProcess[str], int]:
    """``zhuoji ARGS`` in a child process: its result and its peak memory in MiB."""
    full_env = {**os.environ, **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-c", _ZHUOJI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=ROOT,
    )
    peak = next(
        int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak-kib ")
    )
    return done, peak // 1024


def _gzip_of_repeats(path: Path, piece: bytes, times: int) -> None:
    """A gzip file of ``piece`` repeated: one member compressed once, written ``times``
    times (a gzip file may hold many members), so gigabytes cost nothing to make."""
    member = gzip.compress(piece, compresslevel=9, mtime=0)
    with open(path, "wb") as out:
        for _ in range(times):
            out.write(member)


# --- what is no regular file -----------------------------------------------------------------


def _hostile_folder(root: Path) -> Path:
    folder = root / "logs"
    folder.mkdir()
    shutil.copy(DOCUMENT, folder / DOCUMENT.name)
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "zero.json").symlink_to("/dev/zero")
    (folder / "gone.jsonl").symlink_to(folder / "nothing-here.jsonl")
    (folder / "loop").symlink_to(folder)
    os.mkfifo(folder / "not-a-log.txt")  # no log name: never looked at
    return folder


def test_validate_and_audit_walk_past_a_fifo_and_a_link_to_dev_zero(tmp_path: Path) -> None:
    folder = _hostile_folder(tmp_path)
    done, _ = _zhuoji(["validate", str(folder)], timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"ok    {folder / DOCUMENT.name}: 1 game" in out
    assert (
        f"skip  {folder / 'pipe.jsonl'}: not a regular file (a named pipe (FIFO)), not read" in out
    )
    assert (
        f"skip  {folder / 'zero.json'}: not a regular file (a symbolic link to character "
        "device), not read"
    ) in out
    assert f"skip  {folder / 'gone.jsonl'}: a broken symbolic link (not read)" in out
    assert f"skip  {folder / 'loop'}: a symbolic link to a folder (not followed)" in out
    assert "1 file: 1 valid, 0 malformed; 1 game parsed, 0 malformed; 4 skipped" in out

    done, _ = _zhuoji(["audit", str(folder)], timeout=60)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # findings are the sample's
    assert f"skipped: {folder / 'pipe.jsonl'}: not a regular file" in done.stdout
    assert "1 file(s), 1 game(s)" in done.stdout


def test_a_fifo_or_device_named_on_the_command_line_is_not_a_regular_file(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json.gz"
    zero.symlink_to("/dev/zero")
    done, _ = _zhuoji(["validate", str(fifo), str(zero)], timeout=60)
    assert done.returncode == 2
    assert f"error {fifo}: not a regular file (a named pipe (FIFO))" in done.stderr
    assert f"error {zero}: not a regular file (a character device)" in done.stderr
    assert "0 files: 0 valid, 0 malformed; 0 games parsed, 0 malformed; 2 not found" in done.stdout
    done, _ = _zhuoji(["audit", "--json", str(fifo)], timeout=60)
    assert done.returncode == 2
    line = json.loads(done.stdout.splitlines()[0])
    assert line == {
        "file": str(fifo),
        "error": {"message": "not a regular file (a named pipe (FIFO))"},
    }
    result = runner.invoke(app, ["ingest", str(fifo), "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 2
    assert f"error: {fifo}: not a regular file (a named pipe (FIFO))" in result.output
    assert not (tmp_path / "w.duckdb").exists()


def test_the_readers_refuse_a_fifo_at_once_even_when_given_it_directly(tmp_path: Path) -> None:
    from zhuoji.parsers.read import generate_fast_games, generate_games

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for reader in (generate_games, generate_fast_games):
        (error,) = list(reader(fifo))
        assert str(error) == f"{fifo}: not a regular file (a named pipe (FIFO))"
    paths = find_log_paths([tmp_path])
    assert paths.files == [] and [s.path for s in paths.skipped] == [str(fifo)]


# --- memory and time bounded by the limits ---------------------------------------------------


@pytest.fixture(scope="module")
def baseline_mib() -> int:
    """Peak memory of ``zhuoji validate`` on one small valid file."""
    done, peak = _zhuoji(["validate", str(DOCUMENT)])
    assert done.returncode == 0, done.stderr
    return peak


def test_a_gzip_bomb_document_stops_at_the_game_limit(tmp_path: Path, baseline_mib: int) -> None:
    bomb = tmp_path / "bomb.json.gz"
    _gzip_of_repeats(bomb, b" " * (16 << 20), 64)  # 1 GiB once decompressed
    assert bomb.stat().st_size < 2 << 20
    done, peak = _zhuoji(["validate", str(bomb)], env={"ZHUOJI_MAX_GAME_BYTES": "8MiB"})
    assert done.returncode == 2
    assert (
        f"error {bomb}: the document (decompressed) holds more than 8 MiB, the limit for one "
        "game (ZHUOJI_MAX_GAME_BYTES)"
    ) in done.stdout
    assert peak < baseline_mib + 100, (peak, baseline_mib)


def test_a_gzip_bomb_stream_of_blank_lines_stops_at_the_file_limit(
    tmp_path: Path, baseline_mib: int
) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    _gzip_of_repeats(bomb, b"\n" * (16 << 20), 64)  # 1 GiB of blank lines
    done, peak = _zhuoji(["validate", str(bomb)], env={"ZHUOJI_MAX_FILE_BYTES": "256MiB"})
    assert done.returncode == 2
    assert (
        f"error {bomb}: the file holds more than 256 MiB (decompressed), the limit for one file "
        "(ZHUOJI_MAX_FILE_BYTES)"
    ) in done.stdout
    assert peak < baseline_mib + 100, (peak, baseline_mib)


def test_a_line_of_256_mib_costs_no_more_than_the_line_limit(
    tmp_path: Path, baseline_mib: int
) -> None:
    path = tmp_path / "long.jsonl.gz"
    head = stream_bytes(game_dict(game_id="g-1"))
    lines = head.count(b"\n")
    with open(path, "wb") as out:
        out.write(gzip.compress(head))
        out.write(gzip.compress(b'{"type":"start_game","game_id":"g-2","players":['))
        member = gzip.compress(b"9" * (16 << 20), compresslevel=9)
        for _ in range(16):
            out.write(member)
        out.write(gzip.compress(b"]}\n" + stream_bytes(game_dict(game_id="g-3"))))
    done, peak = _zhuoji(["validate", str(path)])
    assert done.returncode == 2
    assert (
        f"error {path} line {lines + 1}: the line is longer than 1 MiB, the limit for one line "
        "(ZHUOJI_MAX_LINE_BYTES)"
    ) in done.stdout
    assert "1 file: 0 valid, 1 malformed; 2 games parsed, 1 malformed" in done.stdout
    assert peak < baseline_mib + 100, (peak, baseline_mib)


def test_a_bad_limit_setting_stops_every_command_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZHUOJI_MAX_LINE_BYTES", "a lot")
    db = tmp_path / "w.duckdb"
    for command in (
        ["validate", str(DOCUMENT)],
        ["audit", str(DOCUMENT)],
        ["ingest", str(DOCUMENT), "--db", str(db)],
    ):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, command
        assert "error: ZHUOJI_MAX_LINE_BYTES: not a size: 'a lot'" in result.output
    assert not db.exists()


# --- one verdict for one file ----------------------------------------------------------------


def _verdict_folder(root: Path) -> tuple[Path, dict[str, str | None]]:
    """A folder of files, each with the reason it must be refused (``None``: loaded)."""
    folder = root / "verdicts"
    folder.mkdir()
    shutil.copy(DOCUMENT, folder / "good.json")
    shutil.copy(STREAM, folder / "good.ndjson.gz")
    sample = json.loads(DOCUMENT.read_bytes())
    sample["game_id"] += "-bom"
    (folder / "bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(sample).encode())
    dup = stream_bytes(game_dict(game_id="x-1"), game_dict(game_id="x-1"))
    (folder / "dup-game.jsonl").write_bytes(dup)
    twice = game_dict(game_id="x-2", hands=2)
    twice["hands"][1]["hand_no"] = twice["hands"][0]["hand_no"]
    (folder / "dup-hand.json").write_bytes(doc_bytes(twice))
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "blank.jsonl").write_bytes(b"\n \n")
    (folder / "empty.json").write_bytes(b"")
    numeric = game_dict(game_id="x-3")
    numeric["started_at"] = 1_700_000_000
    (folder / "numeric-start.jsonl").write_bytes(stream_bytes(numeric))
    inner_bom = (
        stream_bytes(game_dict(game_id="x-4"))
        + b"\xef\xbb\xbf"
        + stream_bytes(game_dict(game_id="x-5"))
    )
    (folder / "inner-bom.jsonl").write_bytes(inner_bom)
    huge = game_dict(game_id="x-6")
    huge["players"][0]["id"] = "p" * 20_000_000
    (folder / "huge-id.json").write_bytes(doc_bytes(huge))
    _gzip_of_repeats(folder / "bomb.json.gz", b" " * (16 << 20), 6)  # 96 MiB
    unknown = game_dict(game_id="x-7")
    unknown["ruleset"] = "no-such-preset"
    (folder / "unknown-ruleset.json").write_bytes(doc_bytes(unknown))
    os.mkfifo(folder / "pipe.jsonl")
    expected: dict[str, str | None] = {
        "good.json": None,
        "good.ndjson.gz": None,
        "bom.json": None,
        "dup-game.jsonl": "the game id 'x-1' appears twice in the file (first at line 1)",
        "dup-hand.json": "hand_no 1 appears twice in the game",
        "empty.jsonl": "the file holds no game (a log holds at least one)",
        "blank.jsonl": "the file holds no game (a log holds at least one)",
        "empty.json": "the file is empty",
        "numeric-start.jsonl": "a date-time text such as '2026-11-01T20:00:00+08:00' is "
        "expected, not a number (no Unix time is read) (got 1700000000)",
        "inner-bom.jsonl": "a byte order mark (U+FEFF) inside the file: only the first bytes "
        "may hold one",
        "huge-id.json": "the player id is 20,000,000 characters long, more than the limit of "
        "256 (ZHUOJI_MAX_TEXT_LENGTH)",
        "unknown-ruleset.json": "game 'x-7', field ruleset: no usable ruleset: ",
        "bomb.json.gz": "the document (decompressed) holds more than 64 MiB, the limit for one "
        "game (ZHUOJI_MAX_GAME_BYTES)",
    }
    return folder, expected


def test_validate_audit_and_ingest_give_each_file_one_verdict(
    tmp_path: Path, prefect_harness: str
) -> None:
    folder, expected = _verdict_folder(tmp_path)
    refused = {name for name, reason in expected.items() if reason is not None}

    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 2
    for name, reason in expected.items():
        path = folder / name
        if reason is None:
            assert f"ok    {path}: " in result.output, name
        else:
            lines = [ln for ln in result.output.splitlines() if ln.startswith(f"error {path}")]
            assert lines and reason in lines[0], (name, lines)
    assert f"skip  {folder / 'pipe.jsonl'}: not a regular file" in result.output

    result = runner.invoke(app, ["audit", "--json", str(folder)])
    assert result.exit_code == 2
    audited_bad = {
        Path(obj["file"]).name
        for obj in map(json.loads, result.output.splitlines())
        if "error" in obj
    }
    assert audited_bad == refused

    db = tmp_path / "w.duckdb"
    result = runner.invoke(
        app, ["ingest", str(folder), "--db", str(db), "--quiet", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert f"skipped {folder / 'pipe.jsonl'}: not a regular file" in result.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.sql("SELECT path, status FROM files ORDER BY path").fetchall()
    finally:
        con.close()
    status = {Path(p).name: s for p, s in rows}
    assert status == {
        name: ("loaded" if reason is None else "quarantined") for name, reason in expected.items()
    }
    for name in refused:
        assert f"quarantined {(folder / name).as_posix()}" in result.output, name


def test_duplicate_keys_read_the_last_value_everywhere(tmp_path: Path) -> None:
    game = game_dict()
    document = doc_bytes(game).replace(b'"ruleset":"guiyang"', b'"ruleset":"x","ruleset":"zunyi"')
    assert document != doc_bytes(game)
    stream = stream_bytes(game).replace(
        b'{"type":"discard","seat":0,', b'{"type":"discard","seat":3,"seat":0,', 1
    )
    assert stream != stream_bytes(game)
    from zhuoji.parsers.read import (
        Encoding,
        generate_fast_games_from_bytes,
        generate_games_from_bytes,
    )

    for data, encoding in ((document, Encoding.DOCUMENT), (stream, Encoding.STREAM)):
        (slow,) = list(generate_games_from_bytes(data, encoding))
        (quick,) = list(generate_fast_games_from_bytes(data, encoding))
        assert not isinstance(slow, Exception) and not isinstance(quick, Exception)
        assert slow.ruleset == quick.ruleset
        assert slow.hands[0].events[0].seat == quick.hands[0].events[0].seat
    (doc_game,) = list(generate_fast_games_from_bytes(document, Encoding.DOCUMENT))
    assert doc_game.ruleset == "zunyi"  # type: ignore[union-attr]
    path = tmp_path / "dup-keys.json"
    path.write_bytes(document)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
