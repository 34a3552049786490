"""Names and ids from the logs in the pages: shown, never obeyed.

A log whose player ids and names, game id and file name hold a right-to-left override
(U+202E), an isolate (U+2066, U+2069), NUL, ESC, BEL, DEL, a C1 CSI, a line separator and
HTML is ingested; the dashboard (``zhuoji dashboard``) and the one-hand page (``zhuoji
audit FILE --hand N --html``) are written from it. No file written may hold any of those
characters raw: each is a visible escape (``\\u202e``, the terminal's rule), names and ids
are isolated in ``<bdi>``, the replay's JSON keeps ``</script>`` and U+2028 out, and in a
real headless Chromium the replay panel shows the escaped ids and runs no script of theirs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from markupsafe import escape
from typer.testing import CliRunner

from scripts.screenshot import HeadlessChromium
from tests.flows.conftest import _disputed, _out_of_turn, ingest_plain
from tests.flows.test_dashboard_browser import browser, chromium  # noqa: F401  (fixtures)
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.audit.rulesets import ruleset_tiles
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.replay_page import script_json
from zhuoji.flows.dashboard.words import page_slug
from zhuoji.flows.text.terminal import safe
from zhuoji.parsers.fast import Game
from zhuoji.parsers.models import Player
from zhuoji.parsers.read import generate_fast_games
from zhuoji.parsers.write import write_games
from zhuoji.rules.families.guizhou.simulate import generate_games
from zhuoji.rules.presets import load_preset

runner = CliRunner()

# A script of a name that ran would set window.owned.
IDS = (
    "ev\u202eil",
    "iso\u2066<b>x</b>",
    "nul\x00z\x7f\x9b",
    "esc\x1b[31mred\x07</script><script>window.owned=1</script>",
)
NAMES = (
    "bel\x07\u202e",
    '<img src="x" onerror="window.owned=2">\u2069',
    "n\x00\u2028line",
    "</script>\u200f\x1b]0;title\x07",
)
GAME_ID = "g\u202e\x1b\x00\x07</script>"


def raw(text: str, allowed: str = "") -> set[str]:
    """The characters of ``text`` the terminal escapes (:func:`safe`), but ``allowed``."""
    return {c for c in set(text) if c not in allowed and safe(c) != c}


def test_raw_finds_every_kind() -> None:
    kinds = "\x00\x07\x1b\x7f\x9b\u061c\u200e\u200f\u202a\u202e\u2066\u2069\u2028\u2029\t\n"
    assert raw("ok 陈一 " + kinds) == set(kinds)
    assert raw(kinds, "\t\n") == set(kinds) - {"\t", "\n"}


@dataclass(frozen=True)
class Written:
    log: Path
    site: Path
    hand_page: Path


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    root = tmp_path_factory.mktemp("names")
    sim = next(iter(generate_games(load_preset("guiyang"), seed=7, games=1, hands_per_game=3)))
    records = list(sim.records)
    records[0] = _out_of_turn(records[0])  # an illegal move: a hand page
    records[1] = _disputed(records[1])  # a disputed hand: another
    game = game_from_records(
        records,
        game_id=GAME_ID,
        players=[Player(seat=s, id=IDS[s], name=NAMES[s]) for s in range(4)],
        ruleset="guiyang",
        started_at="2026-11-01T20:00:00+08:00",
    )
    log = root / "logs" / "log\u202e\x1b[2J.json"
    log.parent.mkdir()
    write_games(log, [game])
    db = root / "w.duckdb"
    counts = ingest_plain([str(log.parent)], db, root / "stage")
    assert counts["loaded"] == 1, counts
    site = root / "site"
    result = runner.invoke(app, ["dashboard", "--db", str(db), "--out", str(site),
                                 "--workers", "1"])
    assert result.exit_code == 0, result.output
    hand_page = root / "hand.html"
    result = runner.invoke(app, ["audit", str(log), "--hand", "1", "--html", str(hand_page)])
    assert result.exit_code == 1, result.output  # the hand has findings
    return Written(log, site, hand_page)


def _pages(written: Written) -> Iterator[Path]:
    yield written.hand_page
    yield from sorted(p for p in written.site.rglob("*") if p.is_file())


def test_the_parser_keeps_the_characters(written: Written) -> None:
    """The test's premise: the log gives them to the pages as they are."""
    (game,) = generate_fast_games(str(written.log), tiles=ruleset_tiles)
    assert isinstance(game, Game)
    assert game.game_id == GAME_ID
    assert [(p.id, p.name) for p in game.players] == list(zip(IDS, NAMES, strict=True))


def test_no_page_holds_a_raw_control_or_bidirectional_character(written: Written) -> None:
    pages = list(_pages(written))
    assert len(pages) > 20
    found = {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        # the pages' own markup is made of lines: tabs and newlines are its
        hits = raw(text, "\t\n")
        if hits:
            found[page.name] = sorted(hits)
    assert not found, found
    # the dashboard's pages of these players and hands are there, in both languages
    for player in IDS:
        assert (written.site / "players" / f"{page_slug(player)}.html").exists()
        assert (written.site / "zh" / "players" / f"{page_slug(player)}.html").exists()
    for hand in (1, 2):
        assert (written.site / "hands" / f"{page_slug(GAME_ID)}-h{hand}.html").exists()


def _isolated(value: str) -> str:
    return f"<bdi>{escape(safe(value))}</bdi>"


def test_names_and_ids_are_shown_escaped_and_isolated(written: Written) -> None:
    site = written.site
    hand = (site / "hands" / f"{page_slug(GAME_ID)}-h1.html").read_text(encoding="utf-8")
    for page in (hand, written.hand_page.read_text(encoding="utf-8")):
        assert _isolated(GAME_ID) in page.split("</h1>", 1)[0]
        for seat, (player, name) in enumerate(zip(IDS, NAMES, strict=True)):
            assert f'<td class="r-who">{seat} · {_isolated(player)}<span' in page
            assert f'<span class="zh">{_isolated(name)}</span>' in page
        # the log by its name only (the page is sent to players; the folder is the sender's)
        assert f"<code>{_isolated(written.log.name)}</code>" in page
        assert written.log.resolve().parent.as_posix() not in page
        assert "ev\\u202eil" in page and "\\x00" in page and "\\x1b[31m" in page
        # HTML in a name is text: no tag of a name's reaches the page
        assert "<img" not in page and "<b>x" not in page
    leaderboard = (site / "leaderboard.html").read_text(encoding="utf-8")
    for player in IDS:
        href = f"players/{page_slug(player)}.html"
        assert f'<a href="{href}">{_isolated(player)}</a>' in leaderboard
        page = (site / href).read_text(encoding="utf-8")
        assert f"<h1>{_isolated(player)}" in page
    illegal = (site / "illegal-hands.html").read_text(encoding="utf-8")
    assert _isolated(IDS[1]) in illegal  # the seat after the dealer discarded out of turn
    index = (site / "index.html").read_text(encoding="utf-8")
    assert all(_isolated(player) in index for player in IDS)


def test_the_replay_data_is_safe_in_its_script_element(written: Written) -> None:
    page = written.hand_page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>',
                      page, re.S)
    assert found
    text = found.group(1)
    assert not raw(text) and "<" not in text and ">" not in text
    data = json.loads(text)
    assert data["names"] == [safe(player) for player in IDS]


@pytest.fixture
def web(request: pytest.FixtureRequest) -> HeadlessChromium:
    found: HeadlessChromium = request.getfixturevalue("browser")
    return found


WHO = """Array.from(document.querySelectorAll('#replay-table tr[data-seat] .r-who')).map(c => ({
  text: c.textContent,
  bdi: Array.from(c.querySelectorAll('bdi')).map(b => b.textContent),
  direction: getComputedStyle(c.querySelector('bdi')).unicodeBidi,
}))"""


def test_the_replay_panel_shows_the_escaped_ids_and_runs_no_script_of_theirs(
    written: Written, web: HeadlessChromium
) -> None:
    pages = [
        written.hand_page,
        written.site / "hands" / f"{page_slug(GAME_ID)}-h2.html",
        written.site / "leaderboard.html",
        written.site / "players" / f"{page_slug(IDS[3])}.html",
    ]
    for page in pages:
        load = web.open(page.as_uri())
        assert not load.errors, (page.name, load.errors)
        assert web.evaluate("typeof window.owned") == "undefined", page.name
        # no element of a name's: no <img>, no <b>x</b>
        assert web.evaluate("document.querySelectorAll('img').length") == 0, page.name
        assert not web.evaluate(
            "Array.from(document.querySelectorAll('b')).some(b => b.textContent === 'x')"
        ), page.name
    for page in pages[:2]:
        web.open(page.as_uri())
        # the replay ran: the last step shows every seat's tiles
        web.evaluate("document.getElementById('replay-last').click()")
        assert web.evaluate("document.querySelectorAll('#replay-table .r-concealed .tile')"
                            ".length") > 0
        cells = web.evaluate(WHO)
        assert [c["bdi"] for c in cells] == [[safe(player)] for player in IDS], cells
        for seat, (cell, player) in enumerate(zip(cells, IDS, strict=True)):
            assert cell["text"].startswith(f"{seat} · {safe(player)}"), cell  # then its badges
        assert {c["direction"] for c in cells} == {"isolate"}
        # the page's only scripts are its own three (the table sorter, the replay's data
        # and the replay)
        assert web.evaluate("document.querySelectorAll('script').length") == 3


def test_script_json_keeps_every_unsafe_character_out_and_means_the_same() -> None:
    value = {"k\u202e": ["</script><!--", "a\u2028b\u2029c", "\x00\x07\x1b\x7f\x9b\u2066&"]}
    text = script_json(value)
    assert not raw(text)
    assert not set(text) & set("<>&")
    assert json.loads(text) == value
    assert script_json({"plain": "ana 陈一"}) == '{"plain":"ana 陈一"}'
