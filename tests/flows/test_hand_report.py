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
from html.parser import HTMLParser
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


class _Text(HTMLParser):
    """The text of the element with id ``wanted`` of a page, tags dropped, one line per
    list item."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr"})

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted, self.depth, self.found = wanted, 0, False
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        if self.depth:
            self.depth += 1
            if tag == "li":
                self.parts.append("\n")
        elif dict(attrs).get("id") == self.wanted:
            self.depth, self.found = 1, True

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in self.VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def element_text(page: str, element_id: str) -> str:
    parser = _Text(element_id)
    parser.feed(page)
    assert parser.found, f"no element #{element_id} in the page"
    return "".join(parser.parts)


def _under(text: str, head: str, stop: str | None) -> list[str]:
    """The lines of ``zhuoji audit --hand N``'s text under the line ``head``, up to the
    line ``stop`` (or the first empty line), each stripped."""
    lines = text.splitlines()
    start = lines.index(head) + 1
    out = []
    for line in lines[start:]:
        if line == stop or not line.strip():
            break
        out.append(line.strip())
    return out


WHY_HEADS = {"en": ("explanation:", "what the record has wrong:"), "zh": ("说明：", "记录的错误：")}
# what settles the dispute of kong_owner_not_ready.json hand 1 (a concealed kong of a seat
# that neither won nor is ready scores nothing), as the audit's text says it
SETTLES = {
    "en": "seat 2 (黄三)'s concealed kong 闷豆 of 9m does not score: seat 2 (黄三) neither "
          "won nor is ready (双杀)",
    "zh": "座位2（黄三）的9万闷豆不计分：座位2（黄三）既没胡也没叫牌（双杀）",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_why_as_the_audit_does_and_names_the_file_only(
    tmp_path: Path, lang: str
) -> None:
    """The page shows the explanation and what the record has wrong with the lines that
    say why, in the words ``zhuoji audit --hand N`` prints (the same sentences, line by
    line), beside the findings and in the replay's last step; the log file is named by its
    name, its folder (the sender's) appears nowhere in the page or its data."""
    folder = tmp_path / "sender-private-folder"
    folder.mkdir()
    log = folder / "kong_owner_not_ready.json"
    shutil.copyfile(DISPUTES / "kong_owner_not_ready.json", log)
    out = tmp_path / "page.html"
    code, stdout, stderr = _audit(str(log), "--hand", "1", "--html", str(out), "--lang", lang)
    assert code == 1, (stdout, stderr)
    code, text, _ = _audit(str(log), "--hand", "1", "--lang", lang)
    assert code == 1 and SETTLES[lang] in text, text
    explained, wrong = WHY_HEADS[lang]
    explanation = _under(text, explained, wrong)
    verdict = _under(text, wrong, None)
    assert len(explanation) == 6 and len(verdict) == 6, text  # 3 items, each with its reason
    page = out.read_text(encoding="utf-8")
    for element in ("why", "replay-why"):  # beside the findings; the replay's last step
        shown = element_text(page, element)
        assert SETTLES[lang] in shown
        lines = [line.strip() for line in shown.splitlines() if line.strip()]
        assert lines == [wrong, *verdict, explained, *explanation], (element, lines)
    # the replay's block is in the part the page shows at the last step only
    assert element_text(page, "replay-ledger").count(SETTLES[lang]) == 4
    # the file by its name; its folder nowhere (the replay's data included)
    assert "<code><bdi>kong_owner_not_ready.json</bdi></code>" in page
    assert "sender-private-folder" not in page and str(tmp_path) not in page
    assert "sender-private-folder" not in json.dumps(_replay_data(out), ensure_ascii=False)


def test_a_page_without_a_settlement_has_no_why(tmp_path: Path) -> None:
    """A hand the replay stopped in is not settled: no explanation, no verdict (the
    findings say what stopped it)."""
    log = SAMPLE / "changsha" / "sim-changsha-2028-00000.json"
    page = write_hand_report(log, 5, tmp_path / "h.html").out.read_text(encoding="utf-8")
    assert 'id="why"' not in page and 'id="replay-why"' not in page
    assert "<code><bdi>sim-changsha-2028-00000.json</bdi></code>" in page
    assert str(SAMPLE) not in page


def test_the_dashboard_s_hand_page_says_why_and_names_the_file_only(tmp_path: Path) -> None:
    """The dashboard's page of the disputed hand (read again from its log, audited as the
    ingest did) says why as the sent page does, and names the file by its name."""
    from tests.flows.conftest import ingest_plain
    from zhuoji.flows.dashboard.site import build_dashboard
    from zhuoji.flows.dashboard.words import page_slug

    folder = tmp_path / "sender-private-folder"
    folder.mkdir()
    log = folder / "kong_owner_not_ready.json"
    shutil.copyfile(DISPUTES / "kong_owner_not_ready.json", log)
    (tmp_path / "stage").mkdir()
    db = tmp_path / "w.duckdb"
    assert ingest_plain([log.as_posix()], db, tmp_path / "stage")["loaded"] == 1
    build_dashboard(db, tmp_path / "site", workers=1, lang="en")
    game_id = json.loads(log.read_text(encoding="utf-8"))["game_id"]
    for lang, prefix in (("en", ""), ("zh", "zh/")):
        page = (tmp_path / "site" / prefix / "hands" / f"{page_slug(game_id)}-h1.html"
                ).read_text(encoding="utf-8")
        for element in ("why", "replay-why"):
            assert SETTLES[lang] in element_text(page, element)
        assert "<code><bdi>kong_owner_not_ready.json</bdi></code>" in page
        assert "sender-private-folder" not in page
