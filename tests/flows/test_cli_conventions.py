"""The command line's conventions: --version, one-line errors (--debug shows the
traceback), exit 2 for every error, --json on validate and ingest, NO_COLOR, a closed pipe,
control characters escaped in every human output, and --help importing no heavy module.

Where stderr, tracebacks or imports matter the tests run the real ``zhuoji`` entry point in
a subprocess; elsewhere typer's CliRunner.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.app import engine_kind, version_text
from zhuoji.flows.cli.main import app
from zhuoji.flows.text.terminal import safe, safe_lines

ROOT = Path(__file__).resolve().parents[2]
DISPUTE = ROOT / "tests" / "data" / "disputes" / "kong_owner_not_ready.json"
SAMPLE = ROOT / "data" / "sample"
runner = CliRunner()

# Clears the screen, moves the cursor home, retitles the window, reverses the line.
HOSTILE = "\x1b[2J\x1b[H\x1b]0;owned\x07mallory\u202e\x9b31m"


def zhuoji(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The console script's entry point in a process of its own."""
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def _no_raw_controls(text: str) -> None:
    for bad in ("\x1b", "\x07", "\u202e", "\x9b"):
        assert bad not in text, f"raw {bad!r} in output"


# --- escaping ----------------------------------------------------------------------------------


def test_safe_escapes_every_control_character_and_keeps_the_rest() -> None:
    assert safe("陈一 ok [red]x") == "陈一 ok [red]x"
    assert safe(HOSTILE) == "\\x1b[2J\\x1b[H\\x1b]0;owned\\x07mallory\\u202e\\x9b31m"
    assert safe("a\nb\tc\rd\x00\x7f\u2028") == "a\\nb\\tc\\rd\\x00\\x7f\\u2028"
    assert safe_lines("one\x1b\ntwo") == "one\\x1b\ntwo"
    assert safe(Path("x\x1by.json")) == "x\\x1by.json"


def _hostile_log(tmp_path: Path) -> Path:
    doc = json.loads(DISPUTE.read_text(encoding="utf-8"))
    doc["game_id"] = "g" + HOSTILE
    doc["players"][2]["name"] = HOSTILE
    path = tmp_path / "hostile\x1b[31m.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_audit_escapes_names_ids_and_paths_json_keeps_them(tmp_path: Path) -> None:
    path = _hostile_log(tmp_path)
    for extra in ([], ["--hand", "1"]):
        result = zhuoji("audit", str(path), *extra)
        assert result.returncode == 1, result.stderr
        _no_raw_controls(result.stdout + result.stderr)
        assert "\\x1b]0;owned\\x07mallory\\u202e" in result.stdout
    as_json = zhuoji("audit", "--json", str(path))
    hand = json.loads(as_json.stdout.splitlines()[0])
    assert hand["game_id"] == "g" + HOSTILE  # the data, exact; JSON escapes it itself
    assert "\\u001b" in as_json.stdout


def test_validate_and_sql_tables_escape(tmp_path: Path) -> None:
    bad = tmp_path / "bad\x1b[2J.jsonl"
    bad.write_text('{"schema": "zhuoji-log/1", "game_id": "x\\u001b]0;t\\u0007"}\n',
                   encoding="utf-8")
    result = zhuoji("validate", str(bad), str(_hostile_log(tmp_path)))
    assert result.returncode == 2
    _no_raw_controls(result.stdout + result.stderr)
    assert "bad\\x1b[2J.jsonl" in result.stdout
    db = tmp_path / "w.duckdb"
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE t AS SELECT ? AS name, 1 AS n", [HOSTILE])
    con.close()
    table = zhuoji("sql", "SELECT name, n, name AS \"h\x1b[1m\" FROM t", "--db", str(db))
    assert table.returncode == 0, table.stderr
    _no_raw_controls(table.stdout)
    assert "\\x1b[2J" in table.stdout
    as_csv = zhuoji("sql", "SELECT name FROM t", "--db", str(db), "-f", "csv")
    assert HOSTILE in as_csv.stdout  # machine formats carry the exact value


# --- version, errors, exit statuses ------------------------------------------------------------


def test_version_names_the_engine_kind_and_the_python() -> None:
    result = zhuoji("--version")
    assert result.returncode == 0
    line = result.stdout.strip()
    assert line == version_text()
    assert line.startswith("zhuoji 0.") and f"engine: {engine_kind()}" in line
    assert f"Python {sys.version.split()[0]}" in line
    import zhuoji.rules.table as table_module

    compiled = table_module.__file__.endswith((".so", ".pyd"))
    assert engine_kind() == ("compiled" if compiled else "pure")


@pytest.mark.parametrize(
    "args",
    [
        ["audit"],
        ["audit", "--bogus", "x"],
        ["report", "leaderboard", "--format", "xml"],
        ["ingest", "x", "--workers", "0"],
        ["ingest", "x", "--dask-address", "not an address"],
        ["nosuchcommand"],
        ["export", "--out", "x.unknown", "--sql", "SELECT 1"],
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    result = zhuoji(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "--help" in lines[0] and result.stdout == ""


def test_input_errors_go_to_stderr_exit_2(tmp_path: Path) -> None:
    for args in (
        ["audit", "missing.json"],
        ["validate", "missing.json"],
        ["convert", "missing.json", "out.jsonl"],
        ["sql", "SELECT 1", "--db", "missing.duckdb"],
        ["report", "nosuch", "--db", "missing.duckdb"],
        ["audit", str(DISPUTE), "--hand", "99"],
        ["rules", "show", "nowhere"],
    ):
        result = zhuoji(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "error" in result.stderr and "Traceback" not in result.stderr, args
        assert "no such file" not in result.stdout and "does not exist" not in result.stdout


def test_an_unexpected_error_is_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = str(blocker / "sim")  # a folder under a file: the OS refuses to create it
    result = zhuoji("simulate", "--out", out, "--games", "1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: {out}: not a directory"]
    debug = zhuoji("--debug", "simulate", "--out", out, "--games", "1")
    assert debug.returncode == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1] == f"error: {out}: not a directory"
    env = zhuoji("simulate", "--out", out, "--games", "1", env={"ZHUOJI_DEBUG": "1"})
    assert "Traceback" in env.stderr


def test_an_unreachable_prefect_api_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api"
    db = tmp_path / "w.duckdb"
    env = {"PREFECT_API_URL": url, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    result = zhuoji("ingest", str(SAMPLE), "--db", str(db), env=env, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: ingest into {db}: cannot reach the Prefect API at {url} (PREFECT_API_URL): "
        "start the server (`prefect server start`) or unset PREFECT_API_URL for a temporary one"
    ]


def test_a_closed_pipe_ends_quietly() -> None:
    code = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "audit", "--json", str(SAMPLE)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert json.loads(first)["file"]
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert proc.returncode == 0


# --- --json ------------------------------------------------------------------------------------


def test_validate_json_gives_a_line_per_file_and_a_summary(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": "zhuoji-log/1"}\n', encoding="utf-8")
    result = runner.invoke(app, ["validate", "--json", str(DISPUTE), str(bad), "gone.json"])
    assert result.exit_code == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    by_file = {obj.get("file"): obj for obj in lines[:-1]}
    assert by_file[str(DISPUTE)]["status"] == "valid" and by_file[str(DISPUTE)]["games"] == 1
    assert by_file[str(bad)]["status"] == "malformed"
    assert by_file[str(bad)]["errors"][0]["line"] == 1
    assert by_file["gone.json"]["status"] == "missing"
    assert lines[-1] == {"summary": {"files": 2, "valid": 1, "malformed": 1, "missing": 1,
                                     "skipped": 0, "games": 1, "malformed_games": 1}}
    ok = runner.invoke(app, ["validate", "--json", str(DISPUTE)])
    assert ok.exit_code == 0


def test_audit_json_reports_an_unreadable_file_and_goes_on(tmp_path: Path) -> None:
    # Reading /proc/self/mem from its start fails with EIO (root reads any file, so
    # permissions cannot make one unreadable here).
    unreadable = tmp_path / "unreadable.json"
    os.symlink("/proc/self/mem", unreadable)
    good = tmp_path / "copy.json"
    good.write_bytes(DISPUTE.read_bytes())
    result = zhuoji("audit", "--json", str(unreadable), str(good))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    fault = next(o for o in objs if o["file"] == str(unreadable))
    assert "Input/output error" in fault["error"]["message"]
    assert any(o.get("hand_no") == 1 and o["file"] == str(good) for o in objs)
    checked = runner.invoke(app, ["validate", "--json", str(unreadable), str(good)])
    lines = [json.loads(line) for line in checked.stdout.splitlines()]
    assert checked.exit_code == 2 and lines[-1]["summary"]["valid"] == 1


def test_no_color_is_honoured(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{\n", encoding="utf-8")
    colour = zhuoji("validate", str(bad), env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in colour.stdout
    plain = zhuoji("validate", str(bad), env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout and "error" in plain.stdout


# --- imports -----------------------------------------------------------------------------------

_HEAVY = (
    "prefect", "duckdb", "polars", "pyarrow", "pydantic", "rich", "zhuoji.flows.ingest.prefect_run"
)


def test_help_imports_no_heavy_module() -> None:
    probe = (
        "import sys; from zhuoji.flows.cli.main import main; sys.argv = ['zhuoji', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', [m for m in {_HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "LOADED []", out.stdout + out.stderr


def test_audit_imports_no_warehouse_or_flow() -> None:
    probe = (
        "import sys; from zhuoji.flows.cli.main import main\n"
        f"sys.argv = ['zhuoji', 'audit', {str(DISPUTE)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', [m for m in ('prefect', 'duckdb', 'polars',"
        " 'zhuoji.flows.ingest.prefect_run')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "LOADED []", out.stdout + out.stderr


def test_the_light_defaults_match_the_modules_they_stand_for() -> None:
    from zhuoji.flows.cli.dashboard import DEFAULT_HAND_PAGES, DEFAULT_LIST_ROWS
    from zhuoji.flows.cli.simulate import EncodingChoice
    from zhuoji.flows.dashboard.pages import DashboardLimits
    from zhuoji.parsers.read import Encoding

    limits = DashboardLimits()
    assert limits.hand_pages == DEFAULT_HAND_PAGES and limits.list_rows == DEFAULT_LIST_ROWS
    assert [e.value for e in EncodingChoice] == [e.value for e in Encoding]


@pytest.mark.parametrize("command", [[], ["audit"], ["ingest"], ["sql"], ["export"], ["validate"]])
def test_help_is_wrapped_to_the_terminal(command: list[str]) -> None:
    result = zhuoji(*command, "--help", env={"COLUMNS": "60"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 60, result.stdout
    assert "Usage: zhuoji" in lines[0] and "\x1b" not in result.stdout
