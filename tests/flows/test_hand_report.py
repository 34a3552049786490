"""``zhuoji audit FILE --hand N --html OUT.html``: one hand's page, to send.

The page is the dashboard's hand page on its own: the facts, the ledger, the findings and
the step-by-step replay, with no link to another page and nothing loaded from anywhere;
the same log gives the same bytes; a file with several games needs ``--game``, and a
wrong choice is one error line naming what the file holds.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.flows.test_cli_audit import DISPUTES, PLAYERS, _clean_hand
from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.hand_report import write_hand_report
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
