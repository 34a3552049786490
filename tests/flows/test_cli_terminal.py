"""The command line on a terminal that is not UTF-8, and with a reader that goes away.

Every command runs in a process of its own (the real ``zhuoji`` entry point): under
``PYTHONIOENCODING=ascii``, ``PYTHONIOENCODING=latin-1`` and the real locale
``LANG=en_US.ISO-8859-1`` (skipped where the locale is not installed) it prints what the
terminal can show, each other character as a ``\\uXXXX`` escape, with its usual exit
status; with its standard output a real pipe whose reader has closed it, it ends with
exit status 0 and nothing on standard error.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from zhuoji.flows.text.terminal import ESCAPE_ERRORS, ESCAPE_KEEP_BYTES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
# Three logs of the Guizhou sample: 4 games, 6 hands, players 张三, 李四, 王五, 赵六.
LOGS = [SAMPLE / "t7-20261101.jsonl", SAMPLE / "t7-20261101-0001.json",
        SAMPLE / "t3-20261102.ndjson.gz"]
ENTRY = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
LATIN1_LOCALE = "en_US.ISO-8859-1"
ZHANG_SAN = "\\u5f20\\u4e09"  # 张三 as the escape a terminal without it shows

# What decides the standard streams' encoding: dropped from the tests' environment first.
_ENCODING_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE", "PYTHONIOENCODING",
                       "PYTHONUTF8", "PYTHONLEGACYWINDOWSSTDIO")


def _environ(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENCODING_VARIABLES}
    env.pop("PREFECT_API_URL", None)
    return {**env, **extra}


def zhuoji(*args: str, env: dict[str, str], cwd: Path = ROOT,
           timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout)


def _stdout_encoding(env: dict[str, str]) -> str:
    probe = "import sys; print(sys.stdout.encoding)"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, timeout=60, check=True)
    return out.stdout.strip().lower()


# --- the error handler -------------------------------------------------------------------------


def _stream(encoding: str) -> tuple[io.BytesIO, io.TextIOWrapper]:
    raw = io.BytesIO()
    return raw, io.TextIOWrapper(raw, encoding=encoding, errors=ESCAPE_ERRORS)


def test_the_handler_writes_json_escapes_and_leaves_the_rest() -> None:
    text = 'é 捉鸡 🀄 "x"'
    raw, out = _stream("ascii")
    out.write(text)
    out.flush()
    assert raw.getvalue() == b'\\u00e9 \\u6349\\u9e21 \\ud83c\\udc04 "x"'
    raw, out = _stream("latin-1")
    out.write(text)
    out.flush()
    assert raw.getvalue() == b'\xe9 \\u6349\\u9e21 \\ud83c\\udc04 "x"'
    # A JSON line written to such a stream is still JSON, with the same value.
    for encoding in ("ascii", "latin-1"):
        raw, out = _stream(encoding)
        out.write(json.dumps({"name": text}, ensure_ascii=False))
        out.flush()
        assert json.loads(raw.getvalue().decode(encoding)) == {"name": text}
    # UTF-8: byte for byte what strict writes; a lone surrogate (a file name that is not
    # UTF-8) is an escape instead of an error.
    raw, out = _stream("utf-8")
    out.write(text + "\udcff")
    out.flush()
    assert raw.getvalue() == text.encode() + b"\\udcff"
    # Where the stream had surrogateescape, such a name's byte is written back as it was.
    assert "x\udcff é".encode("utf-8", ESCAPE_KEEP_BYTES) == b"x\xff \xc3\xa9"
    assert "x\udcff é".encode("ascii", ESCAPE_KEEP_BYTES) == b"x\xff \\u00e9"


def test_a_file_name_that_is_no_utf8(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    name = os.fsencode(folder) + b"/x\xff.jsonl"
    with open(name, "wb") as f:
        f.write(LOGS[0].read_bytes())
    # The C.UTF-8 locale: Python's streams write the byte back (surrogateescape), as before.
    kept = zhuoji("validate", str(folder), env=_environ(LANG="C.UTF-8"))
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith(b"ok    " + name + b": 2 games\n")
    # A strict UTF-8 stream: the escape, where it used to be an unexpected error.
    strict = zhuoji("validate", str(folder), env=_environ(PYTHONIOENCODING="utf-8"))
    assert strict.returncode == 0 and strict.stderr == b"", strict.stderr
    assert strict.stdout.startswith(b"ok    " + name.replace(b"\xff", b"\\udcff"))


# --- encodings ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["ascii", "latin-1", "locale"])
def terminal(request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    """(the stream encoding, the environment giving it)."""
    if request.param == "locale":
        env = _environ(LANG=LATIN1_LOCALE)
        encoding = _stdout_encoding(env)
        if encoding not in ("iso8859-1", "iso-8859-1", "latin-1"):
            pytest.skip(f"the locale {LATIN1_LOCALE} is not installed (streams in {encoding}); "
                        "`localedef -i en_US -f ISO-8859-1 en_US.ISO-8859-1` makes it")
        return "latin-1", env
    return request.param, _environ(PYTHONIOENCODING=request.param)


@cache
def _utf8(*args: str) -> subprocess.CompletedProcess[bytes]:
    """What a UTF-8 terminal gets (once per module's run)."""
    return zhuoji(*args, env=_environ(PYTHONIOENCODING="utf-8"))


def _escaped(utf8: bytes, encoding: str) -> str:
    """The UTF-8 output as a terminal in ``encoding`` shows it."""
    return utf8.decode().encode(encoding, ESCAPE_ERRORS).decode(encoding)


def _shown(result: subprocess.CompletedProcess[bytes], encoding: str) -> tuple[str, str]:
    """stdout and stderr, which must be valid in the terminal's encoding, and no trace of
    an encoding error."""
    out, err = result.stdout.decode(encoding), result.stderr.decode(encoding)
    for bad in ("Traceback", "unexpected error", "UnicodeEncodeError", "report it"):
        assert bad not in out + err, (bad, out[-2000:], err[-2000:])
    return out, err


@pytest.mark.parametrize("command", [[], ["audit"], ["ingest"], ["rules", "show"]])
def test_help_is_text(terminal: tuple[str, dict[str, str]], command: list[str]) -> None:
    encoding, env = terminal
    result = zhuoji(*command, "--help", env=env)
    reference = _utf8(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stderr == b"" and result.stdout.startswith(b"Usage: zhuoji")
    if encoding == "ascii":
        # Click writes its help itself, in UTF-8 when a stream says ASCII (it takes such
        # a stream for a misconfigured one): text all the same.
        assert result.stdout == reference.stdout
    else:
        out, _ = _shown(result, encoding)
        assert out == _escaped(reference.stdout, encoding)
        assert "zh (\\u4e2d\\u6587)" in out


def test_audit_reports_every_hand(terminal: tuple[str, dict[str, str]]) -> None:
    encoding, env = terminal
    logs = list(map(str, LOGS))
    reference = _utf8("audit", *logs)
    summary = reference.stdout.decode().splitlines()[-1]
    assert summary == "3 file(s), 4 game(s), 6 hand(s): 6 clean, 0 with findings"
    result = zhuoji("audit", *logs, env=env)
    out, err = _shown(result, encoding)
    assert result.returncode == reference.returncode == 0, err
    assert out.splitlines()[-1] == summary and err == ""
    assert out == _escaped(reference.stdout, encoding)
    assert f"dealer seat 0 ({ZHANG_SAN})" in out
    zh = zhuoji("audit", "--lang", "zh", *logs, env=env)
    out, err = _shown(zh, encoding)
    assert zh.returncode == 0 and err == ""
    assert out == _escaped(_utf8("audit", "--lang", "zh", *logs).stdout, encoding)
    # JSON lines stay JSON, with the same values.
    as_json = zhuoji("audit", "--lang", "zh", "--json", *logs, env=env)
    out, _ = _shown(as_json, encoding)
    hands = [json.loads(line) for line in out.splitlines()]
    assert as_json.returncode == 0 and len(hands) == 6
    reference_hands = _utf8("audit", "--lang", "zh", "--json", *logs).stdout.splitlines()
    assert hands == [json.loads(line) for line in reference_hands]


def test_validate_in_chinese(terminal: tuple[str, dict[str, str]]) -> None:
    encoding, env = terminal
    logs = list(map(str, LOGS))
    result = zhuoji("validate", "--lang", "zh", *logs, env=env)
    out, err = _shown(result, encoding)
    assert result.returncode == 0 and err == "", err
    lines = out.splitlines()
    assert len(lines) == 4 and all(line.startswith("\\u901a\\u8fc7") for line in lines[:3])
    assert out == _escaped(_utf8("validate", "--lang", "zh", *logs).stdout, encoding)


def test_rules_show(terminal: tuple[str, dict[str, str]]) -> None:
    encoding, env = terminal
    result = zhuoji("rules", "show", "changsha", env=env)
    out, err = _shown(result, encoding)
    assert result.returncode == 0 and err == ""
    assert out.startswith("changsha: Changsha \\u957f\\u6c99\\u9ebb\\u5c06: ")
    assert out == _escaped(_utf8("rules", "show", "changsha").stdout, encoding)


def test_ingest_report_and_sql(terminal: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    encoding, env = terminal
    db = tmp_path / "w.duckdb"
    ingest = zhuoji("ingest", "--lang", "zh", "--quiet", *map(str, LOGS), "--db", str(db),
                    env=env, cwd=tmp_path)
    out, err = _shown(ingest, encoding)
    assert ingest.returncode == 0 and err == "", err
    # The summary table, whole: its rows in escapes (手数 = hands: 6), in ASCII boxes.
    assert "\\u624b\\u6570" in out and out.rstrip().endswith("+")
    assert any("\\u624b\\u6570" in line and line.rstrip(" |").endswith("6")
               for line in out.splitlines())
    report = zhuoji("report", "--lang", "zh", "--db", str(db), "engine_versions",
                    env=env, cwd=tmp_path)
    out, err = _shown(report, encoding)
    assert report.returncode == 0 and err == ""
    assert "\\u6587\\u4ef6\\u6570" in out and out.splitlines()[-1].startswith("\\u5171 ")
    sql = zhuoji("sql", "--db", str(db), "SELECT chr(25417) || chr(40481) AS x, 'é' AS y",
                 env=env, cwd=tmp_path)
    out, err = _shown(sql, encoding)
    assert sql.returncode == 0 and err == ""
    assert "\\u6349\\u9e21" in out
    as_json = zhuoji("sql", "--db", str(db), "SELECT chr(25417) || chr(40481) AS x",
                     "-f", "json", env=env, cwd=tmp_path)
    out, _ = _shown(as_json, encoding)
    assert json.loads(out) == [{"x": "捉鸡"}]


def test_files_are_utf8_whatever_the_locale(terminal: tuple[str, dict[str, str]],
                                            tmp_path: Path) -> None:
    encoding, env = terminal
    db = tmp_path / "w.duckdb"
    assert zhuoji("ingest", "--quiet", str(LOGS[0]), "--db", str(db), env=env,
                  cwd=tmp_path).returncode == 0
    query = "SELECT name FROM players ORDER BY name"
    for suffix in ("csv", "json", "jsonl"):
        out = tmp_path / f"players.{suffix}"
        result = zhuoji("export", "--db", str(db), "--sql", query, "--out", str(out), env=env,
                        cwd=tmp_path)
        _shown(result, encoding)
        assert result.returncode == 0, result.stderr
        assert "张三" in out.read_bytes().decode("utf-8")
    page = tmp_path / "hand.html"
    result = zhuoji("audit", str(LOGS[0]), "--game", "t7-20261101-0002", "--hand", "1",
                    "--html", str(page), env=env,
                    cwd=tmp_path)
    _shown(result, encoding)
    assert result.returncode == 0 and "张三" in page.read_bytes().decode("utf-8")


# --- a closed pipe -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("pipe") / "w.duckdb"
    result = zhuoji("ingest", "--quiet", *map(str, LOGS), "--db", str(db), env=_environ())
    assert result.returncode == 0, result.stderr
    return db


def _closed_pipe(args: list[str], *, read_first: bool, cwd: Path) -> tuple[int, bytes, str]:
    """Run ``zhuoji ARGS`` with its standard output a pipe; close the pipe's reading end,
    at once or after the first line (``| head -1``); the exit status, the first line and
    standard error."""
    proc = subprocess.Popen([sys.executable, "-c", ENTRY, *args], cwd=cwd, env=_environ(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline() if read_first else b""
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=300), first, err


def _commands(db: Path, tmp: Path) -> Iterator[tuple[str, list[str]]]:
    logs = list(map(str, LOGS))
    yield "audit", ["audit", *logs]
    yield "audit --json", ["audit", "--json", *logs]
    yield "validate", ["validate", *logs]
    yield "validate --json", ["validate", "--json", *logs]
    for fmt in ("table", "csv", "json"):
        yield f"report -f {fmt}", ["report", "--db", str(db), "engine_versions", "-f", fmt]
        yield f"sql -f {fmt}", ["sql", "--db", str(db), "SELECT * FROM hands", "-f", fmt]
    yield "report --list", ["report", "--list"]
    yield "rules list", ["rules", "list"]
    yield "rules show", ["rules", "show", "guiyang"]
    yield "rules diff", ["rules", "diff", "guiyang", "zunyi"]
    yield "rules matrix", ["rules", "matrix"]
    yield "schema", ["schema"]
    yield "ingest", ["ingest", "--quiet", *logs, "--db", str(tmp / "i.duckdb")]
    yield "ingest --json", ["ingest", "--json", *logs, "--db", str(tmp / "j.duckdb")]
    yield "--help", ["--help"]
    yield "audit --help", ["audit", "--help"]
    yield "--version", ["--version"]


def test_every_command_ends_quietly_when_the_reader_closes_at_once(
    warehouse: Path, tmp_path: Path
) -> None:
    # The reader is gone before the command writes anything: its first write (or its last
    # flush) meets the closed pipe, whatever the size of its output.
    for name, args in _commands(warehouse, tmp_path):
        status, _, err = _closed_pipe(args, read_first=False, cwd=tmp_path)
        assert (status, err) == (0, ""), name


@pytest.mark.parametrize("kind", ["audit", "audit --json", "sql", "sql -f csv", "schema"])
def test_a_long_output_ends_quietly_after_its_first_line(
    warehouse: Path, tmp_path: Path, kind: str
) -> None:
    # Outputs longer than a pipe holds (64 KiB): the reader takes one line and closes.
    logs = [str(SAMPLE)]
    big = "SELECT h.*, range FROM hands h, range(400)"
    args = {
        "audit": ["audit", *logs],
        "audit --json": ["audit", "--json", *logs],
        "sql": ["sql", "--db", str(warehouse), big],
        "sql -f csv": ["sql", "--db", str(warehouse), big, "-f", "csv"],
        "schema": ["schema"],
    }[kind]
    status, first, err = _closed_pipe(args, read_first=True, cwd=tmp_path)
    assert first and (status, err) == (0, ""), err


def test_both_streams_on_a_closed_pipe(tmp_path: Path) -> None:
    # `zhuoji ... 2>&1 | head -1` with the reader gone: the ingest's progress bar (standard
    # error) goes quiet, the run is recorded whole, the summary is dropped.
    read_end, write_end = os.pipe()
    os.close(read_end)
    db = tmp_path / "w.duckdb"
    try:
        for args in (["ingest", str(LOGS[0]), "--db", str(db)], ["audit", str(SAMPLE)],
                     ["validate", "--lang", "zh", str(SAMPLE)]):
            result = subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=tmp_path,
                                    env=_environ(), stdout=write_end, stderr=write_end,
                                    timeout=300)
            assert result.returncode == 0, args
    finally:
        os.close(write_end)
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = con.execute("SELECT status, hands FROM ingest_runs").fetchall()
    finally:
        con.close()
    assert runs == [("completed", 3)]


def _closing(*fds: int) -> Callable[[], None]:
    def close() -> None:  # in the child, after its standard streams are set up
        for fd in fds:
            os.close(fd)

    return close


def test_closed_standard_streams(tmp_path: Path) -> None:
    # `zhuoji ... >&-`, `2>&-`, `<&- >&- 2>&-`: the command runs, what it prints is dropped,
    # and no file it opens takes a closed descriptor (the ingest's run is whole).
    logs = list(map(str, LOGS))
    for args, closed, status in (
        (["audit", *logs], (1,), 0),
        (["audit", "--json", *logs], (1,), 0),
        (["validate", "--lang", "zh", *logs], (1,), 0),
        (["rules", "show", "guiyang"], (1,), 0),
        (["audit", "missing.json"], (2,), 2),
        (["ingest", *logs, "--db", str(tmp_path / "w.duckdb")], (0, 1, 2), 0),
    ):
        result = subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=tmp_path,
                                env=_environ(), capture_output=True, timeout=300,
                                preexec_fn=_closing(*closed))
        assert result.returncode == status, (args, result.stderr)
        if 2 not in closed:
            assert result.stderr == b"", (args, result.stderr)
    import duckdb

    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        runs = con.execute("SELECT status, hands FROM ingest_runs").fetchall()
    finally:
        con.close()
    assert runs == [("completed", 6)]


def test_a_full_disk_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # Standard output on /dev/full: every write fails with ENOSPC.
    for args in (["--help"], ["--version"], ["rules", "show", "guiyang"],
                 ["audit", str(LOGS[0])]):
        with open("/dev/full", "wb") as full:
            result = subprocess.run([sys.executable, "-c", ENTRY, *args], cwd=tmp_path,
                                    env=_environ(), stdout=full, stderr=subprocess.PIPE,
                                    timeout=300)
        err = result.stderr.decode()
        assert result.returncode == 2, (args, err)
        lines = err.splitlines()
        assert len(lines) == 1 and "no space left on device" in lines[0], (args, err)
