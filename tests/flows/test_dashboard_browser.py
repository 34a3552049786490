"""The dashboard in a real headless browser (Debian's chromium over the DevTools protocol).

The main pages must load from ``file://`` without a console error or a failed resource,
the leaderboard must hold one row per player and sort and filter in the page, and every
page visited is photographed under the test's temporary folder. When no Chromium is
found the test installs it (root with apt-get); it is skipped, saying why, only when
that is impossible.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from flows.dashboard import build_dashboard, page_slug
from scripts.screenshot import (
    INSTALL_HINT,
    BrowserError,
    HeadlessChromium,
    find_chromium,
    install_chromium,
)
from tests.flows.conftest import Corpus
from tests.flows.test_dashboard import make_warehouse


@pytest.fixture(scope="module")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        outcome = install_chromium()
        found = find_chromium()
        if found is None:
            pytest.skip(
                f"no Chromium on this machine and it could not be installed ({outcome}); "
                f"install it with: {INSTALL_HINT}"
            )
    return found


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_warehouse(tmp_path_factory.mktemp("browser-wh"), corpus)


@pytest.fixture(scope="module")
def site(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser-site") / "site"
    build_dashboard(db, out)
    return out


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[HeadlessChromium]:
    try:
        with HeadlessChromium(chromium) as b:
            yield b
    except BrowserError as exc:
        pytest.fail(f"{chromium} could not be driven: {exc}")


def _one(db: Path, sql: str) -> tuple[object, ...]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()[0]
    finally:
        con.close()


def test_main_pages_load_without_console_errors(
    db: Path, site: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    player = str(_one(db, "SELECT player_id FROM hand_players ORDER BY ALL LIMIT 1")[0])
    disputed = _one(db, "SELECT game_id, hand_no FROM hands WHERE disputed ORDER BY ALL LIMIT 1")
    illegal = _one(
        db, "SELECT game_id, hand_no FROM hands WHERE violations > 0 ORDER BY ALL LIMIT 1"
    )
    code = str(_one(db, "SELECT code FROM violations WHERE NOT settlement LIMIT 1")[0])
    pages = [
        "index.html",
        "leaderboard.html",
        "patterns.html",
        "disputed.html",
        "illegal.html",
        "illegal-hands.html",
        f"players/{page_slug(player)}.html",
        f"hands/{page_slug(str(disputed[0]))}-h{disputed[1]}.html",
        f"hands/{page_slug(str(illegal[0]))}-h{illegal[1]}.html",
        f"codes/{page_slug(code)}.html",
    ]
    charted = {"index.html", "patterns.html", "illegal.html", pages[6]}
    for page in pages:
        load = browser.open((site / page).as_uri())
        assert not load.errors, f"{page}: {load.errors}"
        assert browser.evaluate("document.querySelector('main h1') !== null"), page
        if page in charted:
            assert browser.evaluate("document.querySelectorAll('svg.chart').length") >= 1, page
        shot = browser.screenshot(tmp_path / "screenshots" / (page.replace("/", "_") + ".png"))
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, page


def test_console_errors_are_seen(browser: HeadlessChromium, tmp_path: Path) -> None:
    """The check above can fail: a script error and a missing file are reported."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><h1>x</h1><img src="missing.png">'
        "<script>console.error('boom'); notDefined();</script></body></html>",
        encoding="utf-8",
    )
    load = browser.open(page.as_uri())
    texts = " | ".join(m.text for m in load.errors)
    assert "boom" in texts and "notDefined" in texts and "missing.png" in texts, texts


def test_leaderboard_has_one_row_per_player_and_sorts(
    db: Path, site: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    players = int(str(_one(db, "SELECT count(DISTINCT player_id) FROM players")[0]))
    load = browser.open((site / "leaderboard.html").as_uri())
    assert not load.errors
    assert browser.evaluate("document.querySelectorAll('#leaderboard tbody tr').length") == players
    first = "document.querySelector('#leaderboard tbody tr').cells[1].getAttribute('data-v')"
    top = browser.evaluate(first)
    bottom = browser.evaluate(
        "Array.from(document.querySelectorAll('#leaderboard tbody tr')).pop()"
        ".cells[1].getAttribute('data-v')"
    )
    # Net score (column 5): the first click sorts high to low, the second low to high.
    net = "document.querySelectorAll('#leaderboard thead th')[4]"
    browser.evaluate(f"{net}.click()")
    assert browser.evaluate(f"{net}.getAttribute('aria-sort')") == "descending"
    assert browser.evaluate(first) == top
    browser.evaluate(f"{net}.click()")
    assert browser.evaluate(f"{net}.getAttribute('aria-sort')") == "ascending"
    assert browser.evaluate(first) == bottom
    # The filter hides the rows that do not match.
    browser.evaluate(
        "(() => { const i = document.querySelector('input[data-filter]');"
        f" i.value = {top!r}; i.dispatchEvent(new Event('input')); }})()"
    )
    shown = browser.evaluate(
        "Array.from(document.querySelectorAll('#leaderboard tbody tr'))"
        ".filter(r => !r.hidden).length"
    )
    assert 1 <= shown < players
    assert browser.evaluate("document.getElementById('shown-count').textContent") == str(shown)
    browser.screenshot(tmp_path / "leaderboard-filtered.png")
    assert (tmp_path / "leaderboard-filtered.png").stat().st_size > 10_000


def test_disputed_page_explains_each_settlement_check(
    db: Path, site: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    """The sample logs hold records with wrong items and items off their deltas: the
    disputed page's by-check panel counts them as the warehouse does."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        expected = {
            str(code): int(hands)
            for code, hands in con.execute(
                "SELECT code, count(DISTINCT (game_id, hand_no)) FROM violations "
                "WHERE settlement GROUP BY code"
            ).fetchall()
        }
    finally:
        con.close()
    assert {"item_mismatch", "item_sum_mismatch"} <= set(expected)
    load = browser.open((site / "disputed.html").as_uri())
    assert not load.errors
    shown = browser.evaluate(
        "Array.from(document.querySelectorAll('#disputed-by-code tbody tr'))"
        ".map(r => [r.cells[0].textContent.trim().split(' ')[0], r.cells[2].textContent.trim(),"
        " r.cells[1].textContent.trim()])"
    )
    assert {code: int(hands) for code, hands, _ in shown} == expected
    assert all(what for _, _, what in shown)
    # the list's badges name the same codes
    badges = browser.evaluate(
        "Array.from(new Set(Array.from(document.querySelectorAll('#disputed-list .badge'))"
        ".map(b => b.textContent.trim().split(' ')[0])))"
    )
    assert {"item_mismatch", "item_sum_mismatch"} <= set(badges) <= set(expected)
    browser.screenshot(tmp_path / "disputed.png")
