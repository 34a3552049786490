"""``zhuoji audit FILE --hand N --html OUT.html``: one hand's page, to send.

The page is the dashboard's hand page on its own: the facts, the ledger, the findings and
the step-by-step replay, with no link to another page and nothing loaded from anywhere;
the same log gives the same bytes; a file with several games needs ``--game``, and a
wrong choice is one error line naming what the file holds.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.flows.test_cli_audit import DISPUTES, PLAYERS, _clean_hand
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.flows.cli.audit import write_hand_report
from zhuoji.flows.cli.main import app
from zhuoji.parsers.fast import Game
from zhuoji.parsers.models import Player
from zhuoji.parsers.read import generate_fast_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.snapshot import replay_snapshots

runner = CliRunner()


def _audit(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.stdout, result.stderr


def _replay_data(page: Path) -> dict[str, object]:
    html = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html)
    assert found, "no replay data in the page"
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_the_page_is_written_self_contained_and_byte_stable(tmp_path: Path) -> None:
    log = DISPUTES / "kong_owner_not_ready.json"
    code, out, err = _audit(str(log), "--hand", "1", "--html", str(tmp_path / "a.html"))
    assert code == 1, (out, err)  # the hand is disputed: exit 1, as the audit says
    assert "wrote" in out and "hand 1" in out and "with findings" in out
    html = (tmp_path / "a.html").read_text(encoding="utf-8")
    # nothing from the network, no link to another page of a site
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", html)
    assert 'href="index.html"' not in html and "disputed.html" not in html
    assert "<nav>" not in html and "codes/" not in html
    assert "<style>" in html and 'id="replay-data"' in html and "replay-slider" in html
    # the same log, written again elsewhere (another copy of it): the same bytes
    again = tmp_path / "again"
    code, _, _ = _audit(str(log), "--hand", "1", "--html", str(again / "b.html"))
    assert code == 1
    assert (again / "b.html").read_bytes() == (tmp_path / "a.html").read_bytes()


def test_the_replay_data_is_the_engines_snapshots(tmp_path: Path) -> None:
    log = DISPUTES / "kong_owner_not_ready.json"
    page = write_hand_report(log, 1, tmp_path / "h.html").out
    data = _replay_data(page)
    (game,) = [g for g in generate_fast_games(str(log)) if isinstance(g, Game)]
    record = next(r for r in hand_records(game) if r.hand_no == 1)
    snaps = replay_snapshots(record, resolve_ruleset(game.ruleset, game.rule_overrides))
    steps = data["steps"]
    assert isinstance(steps, list) and len(steps) == len(snaps.steps) == len(record.events) + 1
    final = snaps.steps[-1].table
    shown = steps[-1]
    assert shown["wall_left"] == final["wall_left"] and shown["winners"] == final["winners"]


def test_a_clean_hand_exits_0(tmp_path: Path) -> None:
    game = game_from_records([_clean_hand()], game_id="g1", players=PLAYERS, ruleset="guiyang")
    log = tmp_path / "g.jsonl"
    write_games(log, [game])
    code, out, err = _audit(str(log), "--hand", "1", "--html", str(tmp_path / "h.html"))
    assert code == 0, (out, err)
    assert out.strip().endswith("hand 1, clean")


@pytest.fixture
def two_games(tmp_path: Path) -> Path:
    games = [
        game_from_records(
            [_clean_hand(1), _clean_hand(2)],
            game_id=gid,
            players=[Player(seat=s, id=f"{gid}-p{s}", name=None) for s in range(4)],
            ruleset="guiyang",
        )
        for gid in ("east-1", "west-2")
    ]
    log = tmp_path / "two.jsonl"
    write_games(log, games)
    return log


def test_several_games_need_game(two_games: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "h.html"
    code, out, err = _audit(str(two_games), "--hand", "2", "--html", str(out_file))
    assert code == 2 and not out_file.exists()
    assert "holds 2 games; choose one with --game: east-1, west-2" in err, err
    code, out, err = _audit(
        str(two_games), "--hand", "2", "--game", "north", "--html", str(out_file)
    )
    assert code == 2 and "no game 'north'; its games: east-1, west-2" in err, err
    code, out, err = _audit(
        str(two_games), "--hand", "7", "--game", "west-2", "--html", str(out_file)
    )
    assert code == 2 and "game 'west-2'" in err and "no hand 7; its hands: 1, 2" in err, err
    code, out, err = _audit(
        str(two_games), "--hand", "2", "--game", "west-2", "--html", str(out_file)
    )
    assert code == 0, (out, err)
    html = out_file.read_text(encoding="utf-8")
    assert "west-2" in html and "west-2-p0" in html and "east-1-p0" not in html


def test_usage_errors(two_games: Path, tmp_path: Path) -> None:
    out_file = str(tmp_path / "h.html")
    code, _, err = _audit(str(two_games), "--html", out_file)
    assert code == 2 and "--html needs --hand N" in err
    code, _, err = _audit(str(two_games), str(two_games), "--hand", "1", "--html", out_file)
    assert code == 2 and "one log file" in err
    code, _, err = _audit(str(tmp_path / "nope.jsonl"), "--hand", "1", "--html", out_file)
    assert code == 2 and "nope.jsonl" in err
    code, _, err = _audit(str(two_games), "--hand", "1", "--game", "east-1", "--html",
                          str(tmp_path))
    assert code == 2 and "is a folder" in err


def test_a_changed_or_missing_log_is_said_on_the_dashboard_page(tmp_path: Path) -> None:
    """The hand page reads the events again from the log, only when it still holds the
    bytes the warehouse loaded; otherwise the page says why there is no replay."""
    from zhuoji.flows.dashboard.replay_page import hand_replay

    log = tmp_path / "d.json"
    shutil.copyfile(DISPUTES / "kong_owner_not_ready.json", log)
    digest = hashlib.sha256(log.read_bytes()).hexdigest()
    game_id = json.loads(log.read_text(encoding="utf-8"))["game_id"]
    ok = hand_replay(log.as_posix(), digest, game_id, 1)
    assert ok.snapshots is not None and ok.missing is None
    assert hand_replay(log.as_posix(), digest, game_id, 99).missing == (
        "the hand is not in its log file any more"
    )
    log.write_bytes(log.read_bytes() + b"\n")
    assert hand_replay(log.as_posix(), digest, game_id, 1).missing == (
        "the log file changed since it was loaded"
    )
    log.unlink()
    assert hand_replay(log.as_posix(), digest, game_id, 1).missing == (
        "the log file is no longer there"
    )


SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
# (log, game or None, hand, language): an illegal deal, a replay stopped by a fatal move
# (Changsha), a file of two games, a disputed Guizhou hand, a stream of many games
AGREEING = [
    (SAMPLE / "sim" / "document" / "sim-an-majiang-2026-00001.json", None, 6, "en"),
    (SAMPLE / "changsha" / "sim-changsha-2028-00000.json", None, 5, "zh"),
    (SAMPLE / "t7-20261101.jsonl", "t7-20261101-0003", 1, "en"),
    (DISPUTES / "wrong_charging_chicken.json", None, 1, "zh"),
    (SAMPLE / "sim" / "stream" / "sim-guiyang-2p-2027-0000.jsonl.gz", "sim-guiyang-2p-2027-00001",
     2, "en"),
]


def _dashboard_page(db: Path, log: Path, game_id: str, hand_no: int, lang: str) -> bytes:
    """The dashboard's page of the hand, from the warehouse's rows and the replay read
    again from its log (as ``zhuoji dashboard`` makes it), rendered on its own."""
    from zhuoji.flows.dashboard.hand_page import hand_context
    from zhuoji.flows.dashboard.render import Links, query, render_standalone
    from zhuoji.flows.warehouse.reader import open_reader

    con = open_reader(db)
    try:
        params = {"game_ids": [game_id], "hand_nos": [hand_no]}
        (header,) = query(con, "dashboard_hand_header", **params)
        assert header["path"] == log.as_posix()
        context = hand_context(
            header,
            *(query(con, f"dashboard_hand_{name}", **params)
              for name in ("seats", "tiles", "ledger", "findings")),
            lang="zh" if lang == "zh" else "en",
        )
    finally:
        con.close()
    return render_standalone("hand.html", Links(players={}, hands={}, site=False), context,
                             "zh" if lang == "zh" else "en")


def test_the_page_is_the_dashboard_s_page_of_the_hand(tmp_path: Path) -> None:
    """The page is made from the audit's own result, the dashboard's from the warehouse
    an ingest loaded: for the same hand they are the same bytes."""
    from tests.flows.conftest import ingest_plain

    (tmp_path / "stage").mkdir()
    db = tmp_path / "w.duckdb"
    counts = ingest_plain([log.as_posix() for log, *_ in AGREEING], db, tmp_path / "stage")
    assert counts["loaded"] == len(AGREEING)
    for i, (log, game_id, hand_no, lang) in enumerate(AGREEING):
        out = tmp_path / f"{i}.html"
        args = [str(log), "--hand", str(hand_no), "--html", str(out), "--lang", lang]
        code, stdout, stderr = _audit(*args, *(["--game", game_id] if game_id else []))
        assert code in (0, 1), (stdout, stderr)
        if game_id is None:
            (game,) = [g for g in generate_fast_games(str(log)) if isinstance(g, Game)]
            game_id = game.game_id
        assert out.read_bytes() == _dashboard_page(db, log, game_id, hand_no, lang), log


def test_the_page_writes_no_database_and_imports_none(tmp_path: Path) -> None:
    """``audit --hand N --html OUT`` audits in memory: run with HOME, TMPDIR and the
    working folder empty, nothing but OUT appears in any of them, and DuckDB is never
    imported."""
    home, temp, work = (tmp_path / name for name in ("home", "tmp", "work"))
    for folder in (home, temp, work):
        folder.mkdir()
    root = Path(__file__).resolve().parents[2]
    probe = (
        "import sys; from zhuoji.flows.cli.main import main\n"
        f"sys.argv = ['zhuoji', 'audit', {str(DISPUTES / 'kong_owner_not_ready.json')!r},"
        " '--hand', '1', '--html', 'hand.html']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    print('STATUS', exc.code)\n"
        "print('DUCKDB', 'duckdb' in sys.modules)"
    )
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(temp),
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", probe], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines()[-2:] == ["STATUS 1", "DUCKDB False"], (
        done.stdout + done.stderr)
    assert "wrote" in done.stdout and (work / "hand.html").stat().st_size > 0
    left = sorted(p.relative_to(tmp_path).as_posix() for folder in (home, temp, work)
                  for p in folder.rglob("*"))
    assert left == ["work/hand.html"]
