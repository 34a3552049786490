"""``--json`` on every command that prints data, and a query's error printed with the
place DuckDB points at (its LINE and caret lines).

Each command runs as the console script runs it, in a process of its own (standard
output and standard error apart, exit statuses as a shell sees them): its standard
output must be one JSON document, whose values are checked against what the command did
(the files on disk, the warehouse's rows, the rulesets' settings).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
import unicodedata
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
import pytest

from zhuoji.flows.cli.sqlerror import split_sql_error

ROOT = Path(__file__).resolve().parents[2]
ENTRY = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
BOUND = 300  # seconds: a bound on a command on a loaded machine, never a wait


def _env(**more: str) -> dict[str, str]:
    # no Prefect server configured: a small ingest runs in its own process
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(more)
    return env


def zhuoji(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args], cwd=cwd, capture_output=True, text=True,
        timeout=BOUND, env=env or _env(),
    )  # fmt: skip


def document(done: subprocess.CompletedProcess[str], code: int = 0) -> dict[str, Any]:
    """The one JSON document a command printed (nothing else on standard output)."""
    assert done.returncode == code, (done.stdout, done.stderr)
    assert done.stdout.endswith("\n") and done.stdout.count("\n") == 1, done.stdout
    found = json.loads(done.stdout)
    assert isinstance(found, dict)
    return found


# --- a query's error: LINE and caret ------------------------------------------------------------


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE games AS SELECT range AS n, 'g' || range AS game_id FROM range(5)")
    con.close()
    return path


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _caret(stderr: str) -> tuple[str, str, str]:
    """The error line, the LINE line and what the caret line points at in it (by terminal
    columns: a CJK character takes two)."""
    lines = stderr.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("LINE ")]
    shown, caret = lines[at], lines[at + 1]
    start = len(caret) - len(caret.lstrip(" "))
    assert set(caret[start:]) == {"^"}, caret
    # the characters of `shown` under the carets
    col, under = 0, []
    for ch in shown:
        if start <= col < len(caret):
            under.append(ch)
        col += _width(ch)
    return lines[0], shown, "".join(under)


def test_a_syntax_error_prints_the_caret_under_the_token(db: Path) -> None:
    done = zhuoji("sql", "SELECT n, game_id FRM games", "--db", str(db))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        'error: Parser Error: syntax error at or near "games"\n'
        "LINE 1: SELECT n, game_id FRM games\n"
        "                              ^^^^^\n"
    )
    # the error of a later line of the query names it
    done = zhuoji("sql", "SELECT n,\n  game_id\nFROM games WHERE", "--db", str(db))
    first, shown, under = _caret(done.stderr)
    assert done.returncode == 2 and first.startswith("error: Parser Error: syntax error")
    assert shown == "LINE 3: FROM games WHERE" and under == "WHERE"


def test_the_caret_stays_under_its_token_in_an_escaped_or_wide_line(db: Path) -> None:
    # a tab is printed \t (two columns, DuckDB counts none), a CJK character takes two
    # columns, an escape sequence is printed as text: the caret still points at the token
    for query in (
        "SELECT\tn FRM games",
        "SELECT '张三张三' FRM games",
        "SELECT '\x1b[2J' FRM games",
    ):
        done = zhuoji("sql", query, "--db", str(db))
        assert done.returncode == 2 and done.stdout == ""
        first, _, under = _caret(done.stderr)
        assert first == 'error: Parser Error: syntax error at or near "games"', done.stderr
        assert under == "games", (query, done.stderr)
        assert "\x1b" not in done.stderr and "\t" not in done.stderr


def test_a_binder_error_keeps_its_hint_and_its_caret(db: Path) -> None:
    done = zhuoji("sql", "SELECT nn FROM games", "--db", str(db))
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith('error: Binder Error: Referenced column "nn" not found')
    assert any(line.startswith("Candidate bindings:") for line in lines), done.stderr
    assert _caret(done.stderr)[2] == "nn"


def test_export_json_keeps_the_place_of_a_query_error(db: Path, tmp_path: Path) -> None:
    query = "SELECT " + ", ".join(["n"] * 60) + " FRM games"
    out = tmp_path / "x.csv"
    done = zhuoji("export", "--sql", query, "--out", str(out), "--db", str(db), "--json")
    error = document(done, 2)["error"]
    assert error["message"] == 'Parser Error: syntax error at or near "games"'
    # DuckDB shows a window of the long line; the column is the token's in the query
    column = error["position"]["column"]
    assert error["position"] == {"line": 1, "column": column, "length": 5}
    assert query[column - 1 : column - 1 + 5] == "games"
    shown, caret = error["caret"]
    assert shown.startswith("LINE 1: ...") and caret.strip(" ") == "^^^^^"
    assert shown[len(caret) - 5 : len(caret)] == "games"
    assert _caret(done.stderr)[2] == "games"  # and on standard error as without --json
    assert not out.exists()


def test_split_sql_error_without_a_place_is_the_message_alone() -> None:
    split = split_sql_error("Catalog Error: Table with name x does not exist!")
    assert (split.message, split.lines, split.fields) == (
        "Catalog Error: Table with name x does not exist!", (), {},
    )


# --- simulate, ingest, forget, dashboard, serve, export, convert -------------------------------


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("json")
    done = zhuoji("simulate", "--out", "logs", "--games", "2", "--ruleset", "guiyang,changsha",
                  "--seed", "7", "--faults", "0.2", "--json", cwd=folder)
    return folder, document(done)


def test_simulate_json_says_what_it_wrote(simulated: tuple[Path, dict[str, Any]]) -> None:
    folder, found = simulated
    logs = folder / "logs"
    on_disk = sorted(p.name for p in logs.iterdir() if p.name != "faults.jsonl")
    manifest = (logs / "faults.jsonl").read_text(encoding="utf-8").splitlines()
    kinds: dict[str, int] = {}
    for line in manifest:
        kind = json.loads(line)["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    assert found == {
        "out": "logs",
        "presets": ["guiyang", "changsha"],
        "seed": 7,
        "encoding": "document",
        "gzip": False,
        "files": 4,
        "games": 4,
        "hands": 32,
        "written": on_disk,
        "faults": len(manifest),
        "faults_manifest": "faults.jsonl",
        "faults_by_kind": dict(sorted(kinds.items())),
    }
    # the same run, the same document
    again = zhuoji("simulate", "--out", "again", "--games", "2", "--ruleset",
                   "guiyang,changsha", "--seed", "7", "--faults", "0.2", "--json", cwd=folder)
    assert document(again) == {**found, "out": "again"}


@pytest.fixture(scope="module")
def ingested(simulated: tuple[Path, dict[str, Any]]) -> Path:
    folder, _ = simulated
    # the faults manifest is no log file; only the logs are ingested
    logs = [str(p) for p in sorted((folder / "logs").glob("*.json"))]
    done = zhuoji("ingest", *logs, "--db", "w.duckdb", "--json", cwd=folder)
    assert document(done)["files_seen"] == 4
    return folder / "w.duckdb"


def _rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_forget_json_says_what_it_removed(ingested: Path, tmp_path: Path) -> None:
    db = tmp_path / "f.duckdb"
    db.write_bytes(ingested.read_bytes())
    (path, games, hands) = _rows(db, "SELECT path, games, hands FROM files ORDER BY path")[0]
    missing = str(tmp_path / "never.json")
    done = zhuoji("forget", path, missing, "--db", str(db), "--json")
    found = document(done, 2)  # a path named no file: exit 2, as without --json
    (run_id,) = _rows(db, "SELECT max(run_id) FROM ingest_runs WHERE command = 'forget'")[0]
    assert found == {
        "run_id": run_id,
        "db": str(db),
        "forgotten": [path],
        "unknown": [missing],
        "games": games,
        "hands": hands,
    }
    assert done.stderr == f"error: not in the warehouse {db}: {missing}\n"
    assert _rows(db, f"SELECT count(*) FROM games WHERE path = '{path}'") == [(0,)]
    assert _rows(db, f"SELECT count(*) FROM files WHERE path = '{path}'") == [(0,)]
    # nothing left to forget: no run, exit 2, the document says so
    again = document(zhuoji("forget", path, "--db", str(db), "--json"), 2)
    assert again == {"run_id": None, "db": str(db), "forgotten": [], "unknown": [path],
                     "games": 0, "hands": 0}


def test_a_json_command_error_is_a_json_object_too(tmp_path: Path) -> None:
    done = zhuoji("forget", "x.json", "--db", str(tmp_path / "nope.duckdb"), "--json")
    error = document(done, 2)["error"]
    assert "does not exist" in error["message"]
    assert done.stderr == f"error: {error['message']}\n"


def test_dashboard_json_says_what_it_wrote(ingested: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    found = document(zhuoji("dashboard", "--db", str(ingested), "--out", str(out),
                            "--workers", "1", "--json"))
    pages = sorted(out.rglob("*.html"))
    assert found["pages"] == len(pages) > 0
    assert found["bytes"] == sum(p.stat().st_size for p in pages)
    largest = max(pages, key=lambda p: p.stat().st_size)
    assert found["largest_bytes"] == largest.stat().st_size
    assert (out / found["largest_page"]).stat().st_size == found["largest_bytes"]
    assert found["db"] == str(ingested) and found["out"] == str(out.resolve())
    assert found["lang"] == "en" and found["index"] == str(out.resolve() / "index.html")
    assert found["indexes"] == {"en": found["index"],
                                "zh": str(out.resolve() / "zh" / "index.html")}
    assert all(Path(p).is_file() for p in found["indexes"].values())
    assert found["players"] == len(list((out / "players").glob("*.html")))
    assert found["hand_pages"] == len(list((out / "hands").glob("*.html")))
    assert list(found) == ["db", "out", "lang", "index", "indexes", "pages", "bytes",
                           "largest_page", "largest_bytes", "players", "hand_pages"]


def _first_line(process: subprocess.Popen[str], seconds: float) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if selector.select(timeout=1.0):
                return process.stdout.readline()
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
    raise AssertionError(f"nothing on standard output after {seconds} s")


def test_serve_json_says_where_it_serves_once_ready(ingested: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "serve", "--db", str(ingested), "--port", "0",
         "--workers", "1", "--json"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )  # fmt: skip
    try:
        found = json.loads(_first_line(process, BOUND))
        assert list(found) == ["db", "address", "lang", "pages"]
        assert found["db"] == str(ingested) and found["lang"] == "en" and found["pages"] > 0
        with urllib.request.urlopen(found["address"] + "index.html", timeout=BOUND) as answer:
            assert answer.status == 200
    finally:
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=BOUND)
    assert process.returncode == 0 and stdout == ""  # the one document, nothing after it


def test_export_and_convert_json_say_what_they_wrote(ingested: Path, tmp_path: Path) -> None:
    out = tmp_path / "hands.jsonl"
    found = document(zhuoji("export", "--sql", "SELECT * FROM hands", "--out", str(out),
                            "--db", str(ingested), "--json"))
    (hands,) = _rows(ingested, "SELECT count(*) FROM hands")[0]
    assert found == {"out": str(out), "format": "jsonl", "rows": hands, "db": str(ingested)}
    assert len(out.read_text(encoding="utf-8").splitlines()) == hands
    source = ROOT / "data" / "sample" / "t7-20261101-0001.json"
    target = tmp_path / "t7.jsonl.gz"
    found = document(zhuoji("convert", str(source), str(target), "--json"))
    assert found == {"source": str(source), "target": str(target), "encoding": "stream",
                     "gzip": True, "games": 1}
    assert target.is_file()
    refused = zhuoji("convert", str(source), str(target), "--json")
    assert "exists" in document(refused, 2)["error"]["message"]


# --- rules, server ------------------------------------------------------------------------------


def test_rules_json_gives_the_presets_and_settings_as_data() -> None:
    from zhuoji.rules.presets import DEFAULT_PRESET, load_preset, presets_by_family
    from zhuoji.rules.settings import diff_settings, settings_of

    listed = document(zhuoji("rules", "list", "--json"))
    assert listed["default"] == DEFAULT_PRESET
    assert {f["family"]: [p["name"] for p in f["presets"]] for f in listed["families"]} == (
        presets_by_family()
    )
    (guiyang,) = [p for f in listed["families"] for p in f["presets"] if p["name"] == "guiyang"]
    assert guiyang["default"] is True and guiyang["title"] == load_preset("guiyang").title

    shown = document(zhuoji("rules", "show", "changsha", "--set", "players=3", "--json"))
    preset = load_preset("changsha")
    assert shown["name"] == "changsha" and shown["family"] == preset.family
    assert list(shown["settings"]) == list(type(preset).setting_paths())
    assert shown["settings"]["players"]["value"] == 3 and shown["settings"]["players"]["set"]
    assert [p for p, s in shown["settings"].items() if s["set"]] == ["players"]
    for path, value in settings_of(preset).items():
        if isinstance(value, bool | int | str) and path != "players":
            assert shown["settings"][path]["value"] == value, path

    diff = document(zhuoji("rules", "diff", "guiyang", "zunyi", "--json"))
    expected = diff_settings(load_preset("guiyang"), load_preset("zunyi"))
    assert [d["setting"] for d in diff["differences"]] == [p for p, _, _ in expected]
    assert (diff["a"], diff["b"]) == ("guiyang", "zunyi")

    matrix = document(zhuoji("rules", "matrix", "--json"))
    by_family = {f["family"]: f for f in matrix["families"]}
    assert {k: v["presets"] for k, v in by_family.items()} == presets_by_family()
    assert by_family["guizhou"]["settings"]["patterns.plain"]["zunyi"] == 2

    unknown = zhuoji("rules", "show", "nope", "--json")
    assert "unknown preset 'nope'" in document(unknown, 2)["error"]["message"]


def test_server_status_and_stop_json_when_no_server_runs(tmp_path: Path) -> None:
    env = _env(PREFECT_HOME=str(tmp_path / "home"))
    status = document(zhuoji("server", "status", "--json", env=env), 1)
    assert status == {
        "running": False,
        "prefect_home": str((tmp_path / "home").resolve()),
        "url": None,
        "pid": None,
        "prefect_version": None,
        "up_seconds": None,
        "last_used_seconds": None,
        "idle_timeout_seconds": status["idle_timeout_seconds"],
    }
    stop = document(zhuoji("server", "stop", "--json", env=env))
    assert stop == {"stopped": False, "prefect_home": status["prefect_home"], "url": None,
                    "pid": None}
