"""A rule family kept outside zhuoji plugs in from its own folder alone and goes through the
whole pipeline by the command line: the 平胡 test family of ``tests/plugin_family/``.

Every command runs in a process of its own, with the family named only by
``ZHUOJI_FAMILIES=<its folder>`` (or by an entry point of an installed distribution): the
logs its bots write (``zhuoji simulate``, with and without faults), ``zhuoji rules list``,
``zhuoji audit`` under each of its presets, ``zhuoji ingest`` by a Prefect flow run whose
workers are processes of their own (they find the family through the inherited
variable), the reports (the leaderboard and the
pattern frequencies among them) and the dashboard (the family's name, its patterns and a
disputed hand's page, in both languages). A family that cannot be imported is an error
naming its entry and where it is listed, in both languages. No file outside the folder
names the family (:func:`test_nothing_outside_its_folder_names_the_family`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "plugin_family"
DRIVERS = ("tests/plugin_family/", "tests/flows/test_plugin_family", "docs/")
"""The family's folder, the tests that drive it and the docs that show it as the example."""
PRESETS = ("pinghu", "pinghu-double")
GAMES = 4  # per preset
ENTRY = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
PATTERN_ZH = {"ping": "平和", "duidui": "对对和", "qidui": "七对子", "qingyise": "清一色",
              "zimo": "自摸"}

pytestmark = pytest.mark.xdist_group("prefect")


def _env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "ZHUOJI_FAMILIES")}
    return {**base, "NO_COLOR": "1", "COLUMNS": "200", "ZHUOJI_STRICT_GLOSSARY": "1", **extra}


def zhuoji(*args: str, families: str | None = str(FOLDER), timeout: float = 600,
           **extra: str) -> subprocess.CompletedProcess[str]:
    """``zhuoji ARGS`` in a process of its own, the family named by ``ZHUOJI_FAMILIES``."""
    env = _env(**extra) if families is None else _env(ZHUOJI_FAMILIES=families, **extra)
    return subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT, check=False)


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def write_logs(out: Path) -> Path:
    """The family's logs in ``out``, written by its bots through ``zhuoji simulate`` (two
    worker processes): GAMES games of each preset, and one game whose recorded result of a
    won hand is tampered with (a disputed hand)."""
    made = zhuoji("simulate", "--out", str(out), "--games", str(GAMES), "--ruleset",
                  ",".join(PRESETS), "--hands-per-game", "4", "--workers", "2", "--json")
    assert _json(made)["files"] == GAMES * len(PRESETS)
    game = json.loads((out / "sim-pinghu-0-00000.json").read_text(encoding="utf-8"))
    won = next(h for h in game["hands"] if any(e["type"] == "win" for e in h["events"]))
    deltas = won["result"]["deltas"]
    deltas[0] += 1
    deltas[1] -= 1  # still zero-sum: the recorded result differs from the recomputed one
    game["game_id"] = "pinghu-disputed"
    (out / "pinghu-disputed.json").write_text(json.dumps(game, ensure_ascii=False),
                                              encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The family's logs (:func:`write_logs`)."""
    return write_logs(tmp_path_factory.mktemp("pinghu-logs"))


@pytest.fixture(scope="module")
def warehouse(logs: Path, tmp_path_factory: pytest.TempPathFactory,
              prefect_harness: str) -> tuple[Path, dict[str, Any]]:
    """The logs ingested by a Prefect flow run with two worker processes (the one ingest
    of this module)."""
    db = tmp_path_factory.mktemp("pinghu-db") / "w.duckdb"
    result = zhuoji("ingest", str(logs), "--db", str(db), "--workers", "2", "--json",
                    PREFECT_API_URL=prefect_harness, PREFECT_LOGGING_LEVEL="WARNING")
    return db, _json(result)


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------------- finding the family
def test_the_family_is_found_from_its_folder() -> None:
    listed = _json(zhuoji("rules", "list", "--json"))
    family = next(f for f in listed["families"] if f["family"] == "pinghu")
    assert [p["name"] for p in family["presets"]] == list(PRESETS)
    assert family["tiles"] == 108
    shown = _json(zhuoji("rules", "show", "pinghu-double", "--json"))
    assert json.dumps(shown).count("multiple_winners") >= 1
    # without the variable the family and its presets are unknown, the others unchanged
    plain = _json(zhuoji("rules", "list", "--json", families=None))
    assert {f["family"] for f in plain["families"]} == {"changsha", "guizhou", "sichuan"}


def test_the_family_is_found_by_an_entry_point(logs: Path, tmp_path: Path) -> None:
    """The family installed as a distribution of its own: its folder as the package
    ``pinghu_plugin`` and an entry point of the group ``zhuoji.families``."""
    site = tmp_path / "site"
    shutil.copytree(FOLDER, site / "pinghu_plugin",
                    ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "pinghu_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pinghu-plugin\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[zhuoji.families]\npinghu = pinghu_plugin.family\n", encoding="utf-8")
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    listed = _json(zhuoji("rules", "list", "--json", families=None, PYTHONPATH=path))
    assert "pinghu" in {f["family"] for f in listed["families"]}
    audited = zhuoji("audit", str(logs / "sim-pinghu-0-00001.json"), "--json",
                     families=None, PYTHONPATH=path)
    assert audited.returncode == 0, audited.stderr
    # an entry point naming no module: an error naming it and its distribution
    (info / "entry_points.txt").write_text(
        "[zhuoji.families]\nbroken = pinghu_plugin.no_such_module\n", encoding="utf-8")
    broken = zhuoji("rules", "list", families=None, PYTHONPATH=path)
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.splitlines() == [
        "error: the family 'pinghu_plugin.no_such_module' (entry point 'broken' of "
        "pinghu-plugin) cannot be imported: ModuleNotFoundError: No module named "
        "'pinghu_plugin.no_such_module'"]


@pytest.mark.parametrize(("entry", "english", "chinese"), [
    ("no_such_family_module",
     "error: the family 'no_such_family_module' (environment variable ZHUOJI_FAMILIES) "
     "cannot be imported: ModuleNotFoundError: No module named 'no_such_family_module'",
     "错误：无法导入玩法 'no_such_family_module'（环境变量 ZHUOJI_FAMILIES）："
     "ModuleNotFoundError: No module named 'no_such_family_module'"),
    ("{missing}",
     "error: the family '{missing}' (environment variable ZHUOJI_FAMILIES) cannot be "
     "imported: FileNotFoundError: {missing}: no such folder",
     "错误：无法导入玩法 '{missing}'（环境变量 ZHUOJI_FAMILIES）：FileNotFoundError: "
     "{missing}: no such folder"),
    ("{empty}",
     "error: the family '{empty}' (environment variable ZHUOJI_FAMILIES) cannot be "
     "imported: FileNotFoundError: {empty}: no __init__.py in the folder",
     "错误：无法导入玩法 '{empty}'（环境变量 ZHUOJI_FAMILIES）：FileNotFoundError: "
     "{empty}: no __init__.py in the folder"),
    ("{bare}",
     "error: the family '{bare}' (environment variable ZHUOJI_FAMILIES) cannot be "
     "imported: FileNotFoundError: {bare}: no family.py in the folder",
     "错误：无法导入玩法 '{bare}'（环境变量 ZHUOJI_FAMILIES）：FileNotFoundError: "
     "{bare}: no family.py in the folder"),
    ("{broken}",
     "error: the family '{broken}' (environment variable ZHUOJI_FAMILIES) cannot be "
     "imported: ZeroDivisionError: division by zero",
     "错误：无法导入玩法 '{broken}'（环境变量 ZHUOJI_FAMILIES）：ZeroDivisionError: "
     "division by zero"),
    ("zhuoji.rules.tiles",
     "error: the family 'zhuoji.rules.tiles' (environment variable ZHUOJI_FAMILIES) "
     "registers no family",
     "错误：玩法 'zhuoji.rules.tiles'（环境变量 ZHUOJI_FAMILIES）没有注册任何玩法"),
])
def test_a_family_that_cannot_be_imported_is_named(
        entry: str, english: str, chinese: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty_family"
    empty.mkdir()
    bare = tmp_path / "bare_family"  # a package, but no registration module
    bare.mkdir()
    (bare / "__init__.py").write_text("", encoding="utf-8")
    broken = tmp_path / "broken_family"  # its registration fails as it runs
    broken.mkdir()
    (broken / "__init__.py").write_text("", encoding="utf-8")
    (broken / "family.py").write_text("1 / 0\n", encoding="utf-8")
    names = {"missing": str(tmp_path / "gone"), "empty": str(empty), "bare": str(bare),
             "broken": str(broken)}
    entry, english, chinese = (s.format(**names) for s in (entry, english, chinese))
    listed = f"{FOLDER},{entry}"  # the good family first: the bad one still fails
    for lang, line in (("en", english), ("zh", chinese)):
        result = zhuoji("rules", "list", "--lang", lang, families=listed)
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines() == [line]
    # the audit of a log (of another family): its game has no usable ruleset, and says why
    audited = zhuoji("audit", str(ROOT / "data" / "sample" / "t7-20261101-0001.json"),
                     "--json", families=listed)
    assert audited.returncode == 2, audited.stderr
    (record,) = [json.loads(line) for line in audited.stdout.splitlines()]
    assert record["error"]["message"] == english.removeprefix("error: ")


def test_a_folder_named_as_a_module_is_refused(tmp_path: Path) -> None:
    """A folder is imported as the package named after it: one named as a module on the
    path (``duckdb``) would shadow it in the process, and is refused instead."""
    folder = tmp_path / "duckdb"
    shutil.copytree(FOLDER, folder, ignore=shutil.ignore_patterns("__pycache__"))
    result = zhuoji("rules", "list", families=str(folder))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: the family '{folder}' (environment variable "
                           "ZHUOJI_FAMILIES) cannot be imported: ImportError: the name "
                           "'duckdb' is already a module's ("), line


# ---------------------------------------------------------------------- the pipeline
@pytest.mark.parametrize("preset", PRESETS)
def test_zhuoji_audit_under_each_preset(logs: Path, preset: str) -> None:
    files = sorted(str(p) for p in logs.glob(f"sim-{preset}-0-*.json"))
    assert len(files) == GAMES
    result = zhuoji("audit", *files, "--json")
    assert result.returncode == 0, result.stderr  # every hand clean
    records = [json.loads(line) for line in result.stdout.splitlines()]
    hands = [r for r in records if "hand_no" in r]
    assert len(hands) == GAMES * 4
    assert {h["ruleset"] for h in hands} == {preset}
    assert all(h["violations"] == [] for h in hands)
    patterns = {p for h in hands for w in h.get("winners", []) for p in w["patterns"]}
    assert patterns and patterns <= set(PATTERN_ZH)
    text = zhuoji("audit", files[0], "--lang", "zh")
    assert text.returncode == 0, text.stderr
    assert any(zh in text.stdout for zh in PATTERN_ZH.values())


def test_zhuoji_audit_finds_the_disputed_hand(logs: Path) -> None:
    result = zhuoji("audit", str(logs / "pinghu-disputed.json"), "--json")
    assert result.returncode == 1, result.stderr
    codes = {f["code"] for line in result.stdout.splitlines()
             for f in json.loads(line).get("violations", [])}
    assert "score_mismatch" in codes


def test_zhuoji_simulate_with_faults_and_the_audit_finds_them(tmp_path: Path) -> None:
    """The simulator's family-neutral faults on the family's hands: each one the manifest
    lists is found by ``zhuoji audit`` with one of its codes."""
    out = tmp_path / "faulted"
    made = _json(zhuoji("simulate", "--out", str(out), "--games", "3", "--ruleset", "pinghu",
                        "--hands-per-game", "4", "--faults", "0.5", "--no-file-damage",
                        "--json"))
    assert made["faults"] > 0
    audited = zhuoji("audit", str(out), "--json")
    assert audited.returncode == 1, audited.stderr
    records = [json.loads(line) for line in audited.stdout.splitlines()]
    for fault in map(json.loads, (out / "faults.jsonl").read_text().splitlines()):
        found = {v["code"] for r in records if (r.get("game_id"), r.get("hand_no")) == (
            fault["game_id"], fault["hand_no"]) for v in r.get("violations", [])}
        assert found & set(fault["codes"]), fault


def test_zhuoji_ingest_loads_every_game_by_workers(
        warehouse: tuple[Path, dict[str, Any]]) -> None:
    db, summary = warehouse
    assert summary["runner"] != "local" and summary["workers"] == 2
    assert summary["files_loaded"] == GAMES * len(PRESETS) + 1
    assert summary["files_quarantined"] == 0 and summary["disputed_hands"] == 1
    assert _rows(db, "SELECT DISTINCT family FROM games") == [("pinghu",)]
    assert {r for (r,) in _rows(db, "SELECT DISTINCT ruleset FROM games")} == set(PRESETS)
    # each win is a row of wins, with the family's patterns and its source
    ((wins, winners),) = _rows(db, "SELECT (SELECT count(*) FROM wins), "
                                   "(SELECT count(*) FROM hand_players WHERE winner)")
    assert wins == winners > 0
    sources = {r for (r,) in _rows(db, "SELECT DISTINCT source FROM wins")}
    assert sources <= {"self_draw", "discard", "robbed_kong"} and "discard" in sources
    patterns = {p for (ps,) in _rows(db, "SELECT patterns FROM wins") for p in ps}
    assert patterns and patterns <= set(PATTERN_ZH)


def test_the_reports(warehouse: tuple[Path, dict[str, Any]]) -> None:
    db, _ = warehouse
    board = _json(zhuoji("report", "leaderboard", "--db", str(db), "-f", "json"))
    assert board and {r["family"] for r in board} == {"pinghu"}
    assert [r["rank"] for r in board] == list(range(1, len(board) + 1))
    assert sum(r["net_score"] for r in board) == 0
    assert all(r["chickens_per_hand"] is None for r in board)
    patterns = _json(zhuoji("report", "pattern_frequencies", "--db", str(db), "-f", "json"))
    assert patterns and {r["family"] for r in patterns} == {"pinghu"}
    assert {r["pattern"] for r in patterns} <= set(PATTERN_ZH)
    assert "ping" in {r["pattern"] for r in patterns}
    disputed = _json(zhuoji("report", "disputed_hands", "--db", str(db), "-f", "json"))
    assert [r["game_id"] for r in disputed] == ["pinghu-disputed"]
    engines = _json(zhuoji("report", "engine_versions", "--db", str(db), "-f", "json"))
    assert {r["ruleset"] for r in engines} == set(PRESETS)
    zh = zhuoji("report", "pattern_frequencies", "--db", str(db), "--lang", "zh")
    assert zh.returncode == 0, zh.stderr


def test_the_dashboard(warehouse: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db, _ = warehouse
    out = tmp_path / "site"
    built = _json(zhuoji("dashboard", "--db", str(db), "--out", str(out), "--json",
                         "--workers", "2", "--quiet"))
    assert built["hand_pages"] >= 1
    board = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert "Pinghu" in board
    assert "平胡麻将" in (out / "zh" / "leaderboard.html").read_text(encoding="utf-8")
    patterns = (out / "patterns.html").read_text(encoding="utf-8")
    assert "ping" in patterns and "平和" in patterns  # its pattern, in its words
    # the disputed hand's page, with its replay, in the family's words
    (page,) = (out / "zh" / "hands").glob("pinghu-disputed-h*.html")
    text = page.read_text(encoding="utf-8")
    assert "平和" in text and "和牌" in text and "replay" in text
    assert '"pinghu_won"' in text and "已和" in text  # its badge on the replay panel
    assert (out / "hands" / page.name).is_file()


# ---------------------------------------------------------------------- its folder alone
def _files_naming(word: str) -> list[str]:
    listed = subprocess.run(["git", "grep", "-li", word, "--", "."], capture_output=True,
                            text=True, cwd=ROOT, check=False)
    assert listed.returncode in (0, 1), listed.stderr
    return sorted(listed.stdout.split())


def test_nothing_outside_its_folder_names_the_family() -> None:
    """The family is named by its folder's files and the tests that drive it only (and
    the docs that show it as the example): no list, glossary, preset folder, package
    setting or test set-up of zhuoji holds it."""
    outside = [f for f in _files_naming("pinghu") if not f.startswith(DRIVERS)]
    assert outside == []


def test_the_folder_holds_the_familys_own_files_only() -> None:
    """Nothing in the folder changes zhuoji: each module is one of the family's own parts,
    and none reads a private name of zhuoji's modules."""
    modules = sorted(p.name for p in FOLDER.glob("*.py"))
    assert modules == ["__init__.py", "family.py", "legality.py", "panel.py", "patterns.py",
                       "settings.py", "settlement.py", "simulate.py"]
    for path in FOLDER.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "._" not in text.replace("__", ""), path
    assert sorted(p.name for p in (FOLDER / "presets").iterdir()) == sorted(
        f"{p}.toml" for p in PRESETS)
    assert (FOLDER / "glossary.toml").is_file()
