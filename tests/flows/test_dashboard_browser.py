"""The dashboard in a real headless browser (Debian's chromium over the DevTools protocol).

The main pages must load from ``file://`` without a console error or a failed resource,
the leaderboard must hold one row per player in each family's table and sort and filter
in the page, and every
page visited is photographed under the test's temporary folder. When no Chromium is
found the test installs it (root with apt-get); it is skipped, saying why, only when
that is impossible.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from scripts.screenshot import (
    INSTALL_HINT,
    BrowserError,
    HeadlessChromium,
    find_chromium,
    install_chromium,
)
from tests.flows.conftest import Corpus
from tests.flows.test_dashboard import make_warehouse
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.dashboard.words import page_slug


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
    """One table per family (the sample's Guizhou, Changsha and Sichuan games), each with a
    row per player of the family; a table sorts on its own, and the filter filters every table,
    each counting its rows shown."""
    load = browser.open((site / "leaderboard.html").as_uri())
    assert not load.errors
    assert browser.evaluate("document.querySelectorAll('table.leaderboard').length") == 3
    total = 0
    for family in ("changsha", "guizhou", "sichuan"):
        players = int(str(_one(
            db, "SELECT count(DISTINCT player_id) FROM players JOIN games USING (game_id) "
                f"WHERE family = '{family}'")[0]))
        total += players
        rows = f"document.querySelectorAll('#leaderboard-{family} tbody tr')"
        assert browser.evaluate(f"{rows}.length") == players, family
    table = "#leaderboard-guizhou"
    first = f"document.querySelector('{table} tbody tr').cells[1].getAttribute('data-v')"
    top = browser.evaluate(first)
    bottom = browser.evaluate(
        f"Array.from(document.querySelectorAll('{table} tbody tr')).pop()"
        ".cells[1].getAttribute('data-v')"
    )
    other = "document.querySelector('#leaderboard-changsha tbody tr').cells[1].textContent"
    before = browser.evaluate(other)
    # Net score (column 5): the first click sorts high to low, the second low to high.
    net = f"document.querySelectorAll('{table} thead th')[4]"
    browser.evaluate(f"{net}.click()")
    assert browser.evaluate(f"{net}.getAttribute('aria-sort')") == "descending"
    assert browser.evaluate(first) == top
    browser.evaluate(f"{net}.click()")
    assert browser.evaluate(f"{net}.getAttribute('aria-sort')") == "ascending"
    assert browser.evaluate(first) == bottom
    assert browser.evaluate(other) == before  # the other family's table is left alone
    # The filter hides the rows that do not match, in every table.
    browser.evaluate(
        "(() => { const i = document.querySelector('input[data-filter]');"
        f" i.value = {top!r}; i.dispatchEvent(new Event('input')); }})()"
    )
    shown = {}
    for family in ("changsha", "guizhou", "sichuan"):
        shown[family] = browser.evaluate(
            f"Array.from(document.querySelectorAll('#leaderboard-{family} tbody tr'))"
            ".filter(r => !r.hidden).length"
        )
        assert browser.evaluate(
            f"document.getElementById('shown-count-{family}').textContent"
        ) == str(shown[family])
    assert shown["guizhou"] >= 1 and 1 <= sum(shown.values()) < total
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


# --- the faults seen in a real browser, each checked where it showed --------------------------


@pytest.fixture(scope="module")
def odd_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A warehouse of two logs ten months apart, one of them (a disputed hand) under a
    very long path: the hand page's header card must hold the path, and the hands-per-day
    chart must show the gap."""
    from tests.flows.conftest import ingest_plain
    from tests.flows.test_cli_audit import DISPUTES, PLAYERS, _clean_hand
    from zhuoji.flows.audit.bridge import game_from_records
    from zhuoji.parsers.write import write_games

    root = tmp_path_factory.mktemp("odd")
    deep = root / "logs"
    for part in ("club-archive-" + "x" * 70, "season-2026-" + "y" * 70, "referee-" + "z" * 60):
        deep = deep / part
    deep.mkdir(parents=True)
    shutil.copyfile(DISPUTES / "kong_owner_not_ready.json", deep / "disputed-hand.json")
    early = game_from_records(
        [_clean_hand()], game_id="early-1", players=PLAYERS, ruleset="guiyang",
        started_at="2026-01-05T20:00:00+08:00",
    )
    write_games(root / "logs" / "early.jsonl", [early])
    db = root / "odd.duckdb"
    ingest_plain([str(root / "logs")], db, root / "stage")
    out = root / "site"
    build_dashboard(db, out)
    return db, out


def test_a_long_path_stays_inside_the_hand_header(
    odd_site: tuple[Path, Path], browser: HeadlessChromium, tmp_path: Path
) -> None:
    db, site = odd_site
    game, hand, path = _one(
        db, "SELECT h.game_id, h.hand_no, g.path FROM hands h JOIN games g USING (game_id) "
        "WHERE h.disputed"
    )
    assert len(str(path)) > 200
    load = browser.open((site / f"hands/{page_slug(str(game))}-h{hand}.html").as_uri())
    assert not load.errors
    box = browser.evaluate(
        "(() => { const card = document.querySelector('.panel.facts');"
        " const code = Array.from(card.querySelectorAll('code')).pop();"
        " const c = card.getBoundingClientRect(), p = code.getBoundingClientRect();"
        " return {text: code.textContent, scroll: card.scrollWidth, width: card.clientWidth,"
        " right: p.right, cardRight: c.right, page: document.documentElement.scrollWidth,"
        " view: window.innerWidth}; })()"
    )
    # the file by its name: the page goes to the players, the folders are the sender's
    assert box["text"] == Path(str(path)).name
    assert str(Path(str(path)).parent) not in browser.evaluate("document.documentElement.outerHTML")
    assert box["scroll"] <= box["width"], box
    assert box["right"] <= box["cardRight"], box
    assert box["page"] <= box["view"], box  # no sideways scrolling of the page either
    browser.screenshot(tmp_path / "long-path.png")


def test_hands_per_day_is_a_time_axis(
    odd_site: tuple[Path, Path], browser: HeadlessChromium
) -> None:
    _, site = odd_site
    load = browser.open((site / "index.html").as_uri())
    assert not load.errors
    cols = browser.evaluate(
        "Array.from(document.querySelectorAll('svg.days rect.col'))"
        ".map(r => [r.dataset.day, r.getBoundingClientRect().left,"
        " r.getBoundingClientRect().width])"
    )
    assert [c[0] for c in cols] == ["2026-01-05", "2026-11-04"]
    plot = browser.evaluate(
        "(() => { const r = document.querySelector('svg.days').getBoundingClientRect();"
        " return r.width; })()"
    )
    # ten months apart: the two bars sit at the two ends of the axis, not side by side
    assert cols[1][1] - cols[0][1] > 0.9 * (plot - 64)
    assert cols[0][2] < 0.01 * plot  # a day is a thin column on a 304-day axis
    labels = browser.evaluate(
        "Array.from(document.querySelectorAll('svg.days text.tick')).map(t => t.textContent)"
    )
    assert {"2026-03", "2026-06", "2026-09"} <= set(labels), labels


def test_illegal_moves_by_player_fit_their_card(
    db: Path, site: Path, browser: HeadlessChromium, tmp_path: Path
) -> None:
    expected: dict[str, dict[str, int]] = {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        for pid, code, n in con.execute(
            "SELECT player_id, code, count(*) FROM violations WHERE NOT settlement "
            "AND player_id IS NOT NULL GROUP BY ALL"
        ).fetchall():
            expected.setdefault(str(pid), {})[str(code)] = int(n)
    finally:
        con.close()
    assert expected
    browser.resize(900, 900)  # a narrow window
    try:
        browser.open((site / "illegal.html").as_uri())
        shown = browser.evaluate(
            "(() => { const t = document.getElementById('illegal-by-player');"
            " const card = t.closest('.panel').getBoundingClientRect();"
            " const panel = t.closest('.panel');"
            " return {scroll: panel.scrollWidth, width: panel.clientWidth,"
            " rows: Array.from(t.tBodies[0].rows).map(r => [r.cells[0].textContent.trim(),"
            "   Array.from(r.querySelectorAll('.badge')).map(b => [b.dataset.code, +b.dataset.n,"
            "   b.getBoundingClientRect().right <= card.right"
            "   && b.getBoundingClientRect().width > 0])])};"
            " })()"
        )
        browser.screenshot(tmp_path / "illegal.png")
    finally:
        browser.resize(1280, 900)
    assert shown["scroll"] <= shown["width"], shown
    got = {pid: {code: n for code, n, _ in badges} for pid, badges in shown["rows"]}
    assert got == expected
    assert all(visible for _, badges in shown["rows"] for _, _, visible in badges)


def test_disputed_list_marks_the_seats_that_differ(
    db: Path, site: Path, browser: HeadlessChromium
) -> None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        differing = {
            (str(g), int(h)): sorted(int(s) for s in seats)
            for g, h, seats in con.execute(
                "SELECT game_id, hand_no, list(seat) FROM hand_players JOIN hands "
                "USING (game_id, hand_no) WHERE disputed AND recorded_delta IS DISTINCT FROM delta "
                "GROUP BY ALL"
            ).fetchall()
        }
    finally:
        con.close()
    assert differing
    browser.open((site / "disputed.html").as_uri())
    rows = browser.evaluate(
        "Array.from(document.querySelectorAll('#disputed-list tbody tr')).map(r => ["
        " r.cells[1].textContent.trim(),"
        " Array.from(r.cells[4].querySelectorAll('.bad')).map(b => b.title),"
        " Array.from(r.cells[5].querySelectorAll('.bad')).map(b => b.title)])"
    )
    assert rows
    for hand, recorded, recomputed in rows:
        game, _, number = hand.rpartition(" #")
        seats = [f"seat {s} differs" for s in differing.get((game, int(number)), [])]
        assert recorded == recomputed == seats, hand


def test_player_rates_are_bars_of_100_percent(
    db: Path, site: Path, browser: HeadlessChromium
) -> None:
    """The rates of a player's section of each family are of that family's hands."""
    player, family, hands, wins = _one(
        db, "SELECT player_id, family, count(*), count(*) FILTER (WHERE winner) "
        "FROM hand_players JOIN games USING (game_id) "
        "WHERE player_id IN (SELECT player_id FROM players JOIN games USING (game_id) "
        "GROUP BY ALL HAVING count(DISTINCT family) = 2) "
        "GROUP BY ALL ORDER BY 4 DESC, 1, 2 LIMIT 1"
    )
    browser.open((site / f"players/{page_slug(str(player))}.html").as_uri())
    bars = browser.evaluate(
        f"(() => {{ const svg = Array.from(document.querySelectorAll('#rates-{family} svg.chart'))"
        ".find(s => s.querySelector('title').textContent === 'Rates');"
        " return [Array.from(svg.querySelectorAll('rect.bar')).map(r => +r.getAttribute('width')),"
        " Array.from(svg.querySelectorAll('rect.track')).map(r => +r.getAttribute('width'))]; })()"
    )
    widths, tracks = bars
    assert len(widths) == len(tracks) == 4 and len(set(tracks)) == 1
    assert widths[0] / tracks[0] == pytest.approx(int(wins) / int(hands), abs=0.002)


def test_code_pages_show_their_rule(db: Path, site: Path, browser: HeadlessChromium) -> None:
    code = str(_one(db, "SELECT code FROM violations WHERE NOT settlement ORDER BY 1 LIMIT 1")[0])
    load = browser.open((site / f"codes/{page_slug(code)}.html").as_uri())
    assert not load.errors
    rule = browser.evaluate("document.getElementById('code-rule').textContent")
    assert "what it means exactly" in rule and "fatal" in rule and "seed" in rule
    # every link of the page leads to a file of the site
    hrefs = browser.evaluate("Array.from(document.querySelectorAll('a')).map(a => a.href)")
    for href in hrefs:
        assert href.startswith("file://"), href
        assert Path(href.removeprefix("file://").split("#")[0]).exists(), href
