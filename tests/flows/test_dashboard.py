"""The static dashboard: pages, figures against the warehouse, caps, escaping, determinism.

The warehouse is the pipeline's test corpus (simulated games with an out-of-turn discard,
a chow, a disputed and a not-zero-sum hand, two quarantined files) plus ``data/sample``,
loaded with the ingest's plain functions; ``hand_tiles`` is filled from the same audits.
Expected figures are read from the warehouse's tables or computed here, never from the
dashboard's own queries.
"""

from __future__ import annotations

import itertools
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.flows.conftest import Corpus, ingest_plain
from zhuoji.flows.dashboard import charts, hand_page, live, pages, render, tiles, words
from zhuoji.flows.dashboard import site as dashboard_site
from zhuoji.flows.dashboard.charts import Bar, nice_ticks, svg_bar_chart
from zhuoji.flows.dashboard.hand_page import ledger_groups
from zhuoji.flows.dashboard.pages import DashboardLimits
from zhuoji.flows.dashboard.render import DashboardError
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.dashboard.tiles import tile_html
from zhuoji.flows.dashboard.words import page_slug
from zhuoji.flows.ingest.discover import generate_log_paths
from zhuoji.flows.warehouse import catalog
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import internal_names, read_query, report_names, run_report
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_games
from zhuoji.rules.tiles import Tile, parse_tiles

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
CORPUS_GAME = "regexp_full_match(game_id, 'g[0-9]{3}')"
"""SQL condition: a game of the test corpus (whose altered hands are known)."""


# --- the warehouse ---------------------------------------------------------------------------


def sample_games() -> list[Game]:
    games: list[Game] = []
    for path in generate_log_paths([SAMPLE]):
        games.extend(g for g in generate_games(path) if isinstance(g, Game))
    return games


def assert_hand_tiles_loaded(db: Path) -> None:
    """The ingest writes one hand_tiles row per seat of every loaded hand, except hands
    whose deal was rejected (no table state to show)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tiles, missing = con.execute(
            "SELECT (SELECT count(*) FROM hand_tiles), count(*) FROM hand_players hp "
            "JOIN hands h USING (game_id, hand_no) "
            "LEFT JOIN hand_tiles t USING (game_id, hand_no, seat) "
            "WHERE t.seat IS NULL "
            "AND coalesce(h.fatal_code, '') NOT IN ('bad_deal', 'tile_overflow')"
        ).fetchall()[0]
    finally:
        con.close()
    assert tiles > 0 and missing == 0


def make_warehouse(root: Path, corpus: Corpus) -> Path:
    """The corpus and the sample logs loaded into ``root/w.duckdb``, hand tiles included."""
    db = root / "w.duckdb"
    ingest_plain([str(corpus.root), str(SAMPLE)], db, root / "stage")
    assert_hand_tiles_loaded(db)
    return db


def rows(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_warehouse(tmp_path_factory.mktemp("dashboard-wh"), corpus)


@pytest.fixture(scope="module")
def site(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dashboard-site") / "site"
    build_dashboard(db, out, workers=2)  # pages rendered by two worker processes
    return out


def copy_db(db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy.duckdb"
    shutil.copyfile(db, target)
    return target


# --- a small HTML reader ---------------------------------------------------------------------


class TableReader(HTMLParser):
    """The rows of one table (by id): each cell's text and its attributes."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.depth = 0  # nesting depth inside the wanted table
        self.section = ""
        self.rows: list[list[tuple[str, dict[str, str | None]]]] = []
        self._cell: list[str] | None = None
        self._attrs: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            if self.depth:
                self.depth += 1
            elif dict(attrs).get("id") == self.table_id:
                self.depth = 1
            return
        if self.depth != 1:
            return
        if tag in ("thead", "tbody"):
            self.section = tag
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
            self._attrs = dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth == 1 and tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((" ".join("".join(self._cell).split()), self._attrs))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: str, table_id: str) -> list[list[tuple[str, dict[str, str | None]]]]:
    reader = TableReader(table_id)
    reader.feed(html)
    assert reader.rows, f"no table #{table_id}"
    return reader.rows


def read(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def signed(text: str) -> int:
    return int(text.replace(",", "").replace("+", ""))


# --- pages -----------------------------------------------------------------------------------


def test_every_page_is_written(db: Path, site: Path) -> None:
    for page in (
        "index.html",
        "leaderboard.html",
        "patterns.html",
        "disputed.html",
        "illegal.html",
        "illegal-hands.html",
    ):
        assert (site / page).is_file(), page
    players = [str(r[0]) for r in rows(db, "SELECT DISTINCT player_id FROM players")]
    assert sorted(p.name for p in (site / "players").iterdir()) == sorted(
        f"{page_slug(p)}.html" for p in players
    )
    flagged = rows(db, "SELECT game_id, hand_no FROM hands WHERE disputed OR violations > 0")
    assert len(flagged) >= 4
    assert sorted(p.name for p in (site / "hands").iterdir()) == sorted(
        f"{page_slug(str(g))}-h{h}.html" for g, h in flagged
    )
    codes = rows(db, "SELECT DISTINCT code FROM violations WHERE NOT settlement")
    assert sorted(p.name for p in (site / "codes").iterdir()) == sorted(
        f"{page_slug(str(c))}.html" for (c,) in codes
    )


def test_pages_are_self_contained(site: Path) -> None:
    """No external resource: no http(s) or protocol-relative URL in src/href, no link tag."""
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r'(src|href)="(https?:)?//', html), page
        assert "<link" not in html, page
        assert "<style>" in html and "<script>" in html, page
        # Tiles are boxes with the suit's character, never mahjong glyphs most fonts lack.
        assert not re.search("[\U0001f000-\U0001f02f]", html), page


def test_overview_counts(db: Path, site: Path) -> None:
    html = read(site, "index.html")

    def kpi(name: str) -> int:
        match = re.search(rf'id="kpi-{name}">([\d,]+)<', html)
        assert match, name
        return int(match.group(1).replace(",", ""))

    assert kpi("games") == rows(db, "SELECT count(*) FROM games")[0][0]
    assert kpi("hands") == rows(db, "SELECT count(*) FROM hands")[0][0]
    assert kpi("players") == rows(db, "SELECT count(DISTINCT player_id) FROM players")[0][0]
    disputed = rows(db, "SELECT count(*) FROM hands WHERE disputed")[0][0]
    assert kpi("disputed") == disputed >= 2
    illegal = rows(db, "SELECT count(*) FROM violations WHERE NOT settlement")[0][0]
    assert kpi("illegal") == illegal >= 2
    assert kpi("quarantined") == rows(db, "SELECT count(*) FROM quarantine")[0][0] >= 2
    for path in rows(db, "SELECT path FROM quarantine"):
        assert str(path[0]) in html


FAMILY_NET = (
    "SELECT g.family, hp.player_id, sum(coalesce(hp.delta, 0)) AS net "
    "FROM hand_players hp JOIN games g USING (game_id) "
    "GROUP BY ALL ORDER BY g.family, net DESC, hp.player_id"
)
"""Each player's net score in each family, ranked within the family."""


def test_leaderboard_has_one_section_per_family_ranked_by_net_score(
    db: Path, site: Path
) -> None:
    """The sample holds Guizhou, Changsha and Sichuan games: a ranking per family, each of
    its family's own scores, a player of both Guizhou and Changsha in each; chickens per
    hand in the Guizhou table only."""
    html = read(site, "leaderboard.html")
    expected: dict[str, list[tuple[str, int]]] = {}
    for family, player, net in rows(db, FAMILY_NET):
        expected.setdefault(str(family), []).append((str(player), int(net)))
    assert sorted(expected) == ["changsha", "guizhou", "sichuan"]
    assert html.index('id="family-changsha"') < html.index('id="family-guizhou"')
    assert "<h2>Changsha <span" in html and "<h2>Guizhou <span" in html
    for family, ranking in expected.items():
        table = table_rows(html, f"leaderboard-{family}")
        head = [cell for cell, _ in table[0]]
        assert any(h.startswith("Chickens / hand") for h in head) == (family == "guizhou")
        # each table in its family's words: a kong is 豆 in Guizhou, 杠 in Changsha
        assert ("Kongs / hand 每手豆" if family == "guizhou" else "Kongs / hand 每手杠") in head
        body = table[1:]
        assert len(body) == len(ranking) == rows(
            db, "SELECT count(DISTINCT player_id) FROM players JOIN games USING (game_id) "
            "WHERE family = ?", [family])[0][0]
        for rank, (row, (player, net)) in enumerate(zip(body, ranking, strict=True), start=1):
            assert row[0][0] == str(rank)
            assert row[1][1]["data-v"] == player
            assert signed(row[4][0]) == net
            assert row[4][1]["data-v"] == str(net)
    both = set(dict(expected["changsha"])) & set(dict(expected["guizhou"]))
    assert both, "the sample has players of both families"
    # one filter for every table
    assert 'data-filter="leaderboard-changsha leaderboard-guizhou leaderboard-sichuan"' in html


def test_player_pages(db: Path, site: Path) -> None:
    """A player page has a section per family played: the family's hands and net score,
    its own score chart, chickens only in a Guizhou section."""
    totals = rows(
        db,
        "SELECT hp.player_id, g.family, count(*), sum(coalesce(hp.delta, 0)) "
        "FROM hand_players hp JOIN games g USING (game_id) GROUP BY ALL ORDER BY ALL",
    )
    by_player: dict[str, list[tuple[str, int, int]]] = {}
    for player, family, hands, net in totals:
        by_player.setdefault(str(player), []).append((str(family), int(hands), int(net)))
    assert any(len(families) == 2 for families in by_player.values())
    for player, families in by_player.items():
        html = read(site, f"players/{page_slug(player)}.html")
        for family, hands, net in families:
            assert re.search(rf'id="kpi-hands-{family}">{hands:,}<', html), (player, family)
            assert f'id="kpi-net-{family}">{"+" if net > 0 else ""}{net:,}<' in html
        assert re.findall(r'<section class="family" id="family-([a-z]+)">', html) == [
            f for f, _, _ in families
        ]
        assert html.count('<polyline class="line"') == len(families)  # a score chart each
        played = [f for f, _, _ in families]
        assert html.count("<h2>chicken <span") == played.count("guizhou")
        # 报听 is Guizhou's: only its section counts the declarations
        assert html.count("declared ready <span") == played.count("guizhou")
    # The player at fault in the chow hand: its page links the hand's audit page.
    ((player, game, hand),) = rows(
        db,
        "SELECT player_id, game_id, hand_no FROM violations "
        f"WHERE code = 'chow_not_allowed' AND {CORPUS_GAME}",
    )
    html = read(site, f"players/{page_slug(str(player))}.html")
    assert f'href="../hands/{page_slug(str(game))}-h{hand}.html"' in html
    assert "chow_not_allowed" in html


def _seat_rows(db: Path, game: str, hand: int) -> list[tuple[Any, ...]]:
    return rows(
        db,
        "SELECT seat, player_id, delta, recorded_delta FROM hand_players "
        "WHERE game_id = ? AND hand_no = ? ORDER BY seat",
        [game, hand],
    )


def test_disputed_hand_pages_show_recomputed_against_recorded(db: Path, site: Path) -> None:
    disputed = rows(db, "SELECT game_id, hand_no FROM hands WHERE disputed ORDER BY ALL")
    listing = read(site, "disputed.html")
    for game, hand in disputed:
        page = f"hands/{page_slug(str(game))}-h{hand}.html"
        assert f'href="{page}"' in listing
        html = read(site, page)
        seats = _seat_rows(db, str(game), int(hand))
        body = table_rows(html, "seat-deltas")[1:]
        assert len(body) == len(seats)
        differs = False
        for row, (seat, player, delta, recorded) in zip(body, seats, strict=True):
            assert row[0][0] == str(seat) and row[1][0].startswith(str(player))
            assert signed(row[3][0]) == delta and signed(row[4][0]) == recorded
            assert isinstance(delta, int) and isinstance(recorded, int)
            if delta != recorded:
                differs = True
                assert signed(row[5][0]) == recorded - delta
                assert "bad" in (row[5][1]["class"] or "")
        score_codes = rows(
            db,
            "SELECT code FROM violations WHERE game_id = ? AND hand_no = ? "
            "AND code IN ('score_mismatch', 'not_zero_sum')",
            [game, hand],
        )
        assert differs == bool(score_codes)  # a dealer_mismatch alone leaves deltas equal
        # The ledger grouped by reason: each seat's column adds up to its recomputed delta.
        ledger = table_rows(html, "ledger")
        reasons = rows(
            db, "SELECT DISTINCT reason FROM ledger WHERE game_id = ? AND hand_no = ?", [game, hand]
        )
        groups = ledger[1 : 1 + len(reasons)]
        assert sorted(r[0][0].split()[0] for r in groups) == sorted(str(r[0]) for r in reasons)
        for i, (_, _, delta, _) in enumerate(seats):
            column = sum(signed(r[2 + i][0]) for r in groups if r[2 + i][0])
            assert column == delta
        codes = [
            str(c)
            for (c,) in rows(
                db, "SELECT code FROM violations WHERE game_id = ? AND hand_no = ?", [game, hand]
            )
        ]
        findings = table_rows(html, "findings")[1:]
        assert [r[1][0].split()[0] for r in findings] == codes


def test_hand_pages_draw_the_tiles(db: Path, site: Path) -> None:
    ((game, hand),) = rows(
        db, f"SELECT game_id, hand_no FROM violations WHERE code = 'out_of_turn' AND {CORPUS_GAME}"
    )
    html = read(site, f"hands/{page_slug(str(game))}-h{hand}.html")
    tiles = rows(
        db,
        "SELECT seat, concealed FROM hand_tiles WHERE game_id = ? AND hand_no = ? ORDER BY seat",
        [game, hand],
    )
    assert len(tiles) == 4
    section = html.split('<table class="seat-tiles">', 1)[1].split("</table>", 1)[0]
    for seat, concealed in tiles:
        row = section.split(f"<tr><td>{seat} · ", 1)[1].split("</tr>", 1)[0]
        expected = parse_tiles(str(concealed))
        assert row.count('<span class="tile ') == len(expected) >= 13
        for tile in set(expected):
            suit = {"m": "万", "p": "筒", "s": "条"}[tile.suit.value]
            assert f"<b>{tile.rank}</b><i>{suit}</i>" in row


def test_hand_page_without_tile_rows(db: Path, tmp_path: Path) -> None:
    copy = copy_db(db, tmp_path)
    ((game, hand),) = rows(
        copy,
        f"SELECT game_id, hand_no FROM violations WHERE code = 'out_of_turn' AND {CORPUS_GAME}",
    )
    page = f"hands/{page_slug(str(game))}-h{hand}.html"
    con = duckdb.connect(str(copy))
    con.execute("DELETE FROM hand_tiles WHERE game_id = ?", [game])
    con.close()
    build_dashboard(copy, tmp_path / "a")
    html = read(tmp_path / "a", page)
    assert "Tiles not stored for this hand" in html and 'class="seat-tiles"' not in html
    # A warehouse made before the hand_tiles table existed renders too.
    con = duckdb.connect(str(copy))
    con.execute("DROP TABLE hand_tiles")
    con.close()
    build_dashboard(copy, tmp_path / "b")
    assert "Tiles not stored for this hand" in read(tmp_path / "b", page)


def test_illegal_moves_by_code_and_by_player(db: Path, site: Path) -> None:
    html = read(site, "illegal.html")
    by_player = table_rows(html, "illegal-by-player")
    expected = rows(
        db,
        "SELECT player_id, count(*) FROM violations WHERE NOT settlement AND player_id IS NOT NULL "
        "GROUP BY player_id ORDER BY 2 DESC, 1",
    )
    assert [(r[0][0], int(r[1][0])) for r in by_player[1:]] == [(str(p), n) for p, n in expected]
    for code, game, hand in rows(
        db, "SELECT code, game_id, hand_no FROM violations WHERE NOT settlement"
    ):
        assert f'href="codes/{page_slug(str(code))}.html"' in html
        code_page = read(site, f"codes/{page_slug(str(code))}.html")
        assert f'href="../hands/{page_slug(str(game))}-h{hand}.html"' in code_page


def test_patterns_page(db: Path, site: Path) -> None:
    """One section per family, each counting its own family's wins."""
    html = read(site, "patterns.html")
    scored = rows(
        db,
        # every win (a 血流成河 player may win twice in a hand)
        "SELECT g.family, p, count(*) FROM (SELECT game_id, unnest(scored_patterns) AS p "
        "FROM wins) JOIN games g USING (game_id) GROUP BY ALL",
    )
    assert {str(f) for f, _, _ in scored} == {"changsha", "guizhou", "sichuan"}
    sections = {
        m.group(1): m.group(2)
        for m in re.finditer(r'<section class="family" id="family-([a-z]+)">(.*?)</section>',
                             html, flags=re.S)
    }
    for family, pattern, wins in scored:
        assert re.search(rf"<code>{pattern}</code>.*?data-v=\"{wins}\"", sections[family]), (
            family, pattern)
    assert "平胡" in sections["guizhou"]  # the Chinese term beside the English name
    assert "plain" not in sections["changsha"]


def test_output_is_deterministic(db: Path, site: Path, tmp_path: Path) -> None:
    """The same bytes again, whether the pages are rendered by workers or in-process."""
    again = tmp_path / "again"
    build_dashboard(db, again, workers=1)

    def contents(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
        }

    assert contents(again) == contents(site)


def test_text_from_logs_is_escaped(db: Path, tmp_path: Path) -> None:
    copy = copy_db(db, tmp_path)
    evil = '<script>alert("x")</script> & 张三'
    con = duckdb.connect(str(copy))
    ((player,),) = con.execute("SELECT player_id FROM players ORDER BY ALL LIMIT 1").fetchall()
    con.execute("UPDATE players SET name = ? WHERE player_id = ?", [evil, player])
    con.close()
    build_dashboard(copy, tmp_path / "site")
    for page in ("leaderboard.html", f"players/{page_slug(str(player))}.html"):
        html = read(tmp_path / "site", page)
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; 张三" in html
        assert '<script>alert("x")' not in html


def test_caps_and_pages_are_stated(db: Path, tmp_path: Path) -> None:
    newest = (
        "SELECT h.game_id, h.hand_no FROM hands h JOIN games g USING (game_id) WHERE {} "
        "ORDER BY g.started_at DESC NULLS LAST, h.game_id, h.hand_no LIMIT 1"
    )
    disputed = rows(db, newest.format("h.disputed"))[0]
    illegal = rows(db, newest.format("h.violations > 0"))[0]
    total = rows(db, "SELECT count(*) FROM hands WHERE disputed")[0][0]
    assert total >= 2
    out = tmp_path / "site"
    summary = build_dashboard(db, out, DashboardLimits(hand_pages=1, list_rows=1))
    listing = read(out, "disputed.html")
    assert f"Showing the 1 most recent of {total} disputed hands" in listing
    assert not (out / "disputed-2.html").exists()
    assert f'href="hands/{page_slug(str(disputed[0]))}-h{disputed[1]}.html"' in listing
    pages = sorted(p.name for p in (out / "hands").iterdir())
    assert pages == sorted({f"{page_slug(str(g))}-h{h}.html" for g, h in (disputed, illegal)})
    assert summary.hand_pages == len(pages)
    # Pages of one row each: every disputed hand is listed, one per page.
    paged = tmp_path / "paged"
    build_dashboard(db, paged, DashboardLimits(list_rows=1))
    first, second = read(paged, "disputed.html"), read(paged, "disputed-2.html")
    assert 'href="disputed-2.html"' in first and 'href="disputed.html"' in second
    assert len(table_rows(first, "disputed-list")) == len(table_rows(second, "disputed-list")) == 2
    assert (paged / f"disputed-{total}.html").exists()
    assert not (paged / f"disputed-{total + 1}.html").exists()


def test_output_folder_rules(db: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(DashboardError, match="not written by `zhuoji dashboard`"):
        build_dashboard(db, foreign)
    assert (foreign / "notes.txt").read_text() == "mine"
    out = tmp_path / "site"
    build_dashboard(db, out)
    stale = out / "players" / "gone.html"
    stale.write_text("old")
    build_dashboard(db, out)
    assert not stale.exists() and (out / "index.html").exists()


def failing_hand_context(*args: object, lang: str = "en") -> dict[str, object]:
    raise RuntimeError("hand page failed")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_page_fails_the_build(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(hand_page, "hand_context", failing_hand_context)
    with pytest.raises(RuntimeError, match="hand page failed"):
        build_dashboard(db, tmp_path / "site", workers=workers)


def test_missing_warehouse(tmp_path: Path) -> None:
    with pytest.raises(warehouse.DatabaseMissingError):
        build_dashboard(tmp_path / "none.duckdb", tmp_path / "site")


def test_queries_come_from_sql_reports(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every query of sql/internal/ is run (or read by one that is, as
    ``internal.player_names``), and reports besides, nothing else, and the modules hold
    no SQL."""
    ran: list[str] = []
    real = render.query

    def recording(
        con: duckdb.DuckDBPyConnection, name: str, **params: object
    ) -> list[dict[str, object]]:
        ran.append(name)
        return real(con, name, **params)

    for module in (dashboard_site, pages, hand_page):
        monkeypatch.setattr(module, "query", recording)
    build_dashboard(db, tmp_path / "site")
    assert set(ran) <= set(report_names()) | set(internal_names())
    read = {n for r in ran for n in catalog.view_reads(read_query(r), catalog.INTERNAL_SCHEMA)}
    assert "player_names" in read
    assert set(internal_names()) <= set(ran) | read
    source = "".join(
        Path(module.__file__).read_text(encoding="utf-8")
        for module in (words, tiles, charts, render, pages, hand_page, dashboard_site, live)
    )
    assert not re.search(r"\b(SELECT|INSERT|CREATE)\b", source)


def test_player_series_matches_player_history(db: Path) -> None:
    con = open_reader(db)
    try:
        series = render.group_rows(
            render.query(con, "dashboard_player_series", points="3"), "player_id", "family"
        )
        assert {family for _, family in series} == {"changsha", "guizhou", "sichuan"}
        for (player, family), points in series.items():
            history = run_report(con, "player_history", {"player": str(player)})
            family_at = history.columns.index("family")
            running = [
                r[history.columns.index("running_score")] for r in history.rows
                if r[family_at] == family
            ]
            assert len(points) <= 3
            assert points[-1]["hand_index"] == len(running)
            assert points[-1]["score"] == running[-1]
            start = 0
            for p in points:
                stretch = running[start : p["hand_index"]]
                assert (p["low"], p["high"], p["score"]) == (
                    min(stretch),
                    max(stretch),
                    stretch[-1],
                )
                start = p["hand_index"]
    finally:
        con.close()


# --- units -----------------------------------------------------------------------------------


def test_page_slug_is_safe_and_unique() -> None:
    ids = ["ana", "Ana", "a/b", "a_b", "../x", "张三", "x" * 80, "x" * 81, "p1001"]
    slugs = [page_slug(i) for i in ids]
    assert len({s.lower() for s in slugs}) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9_.-]+", s) for s in slugs)
    assert page_slug("p1001") == "p1001"


def test_tile_boxes() -> None:
    assert "<b>5</b><i>万</i>" in tile_html(Tile.M5)
    assert "<b>8</b><i>筒</i>" in tile_html(Tile.P8)
    assert "<b>1</b><i>条</i>" in tile_html(Tile.S1) and "幺鸡" in tile_html(Tile.S1)
    assert "万能" in tile_html(Tile.W)
    assert "chicken" in tile_html(Tile.S1, chicken=True)


def test_ledger_groups_net_per_seat_in_reason_order() -> None:
    items = [
        {"reason": "chicken", "payer_seat": 1, "payee_seat": 0, "amount": 2, "item_no": 2},
        {"reason": "hand", "payer_seat": 1, "payee_seat": 0, "amount": 5, "item_no": 0},
        {"reason": "chicken", "payer_seat": 0, "payee_seat": 2, "amount": 1, "item_no": 3},
        {"reason": "hand", "payer_seat": 2, "payee_seat": 0, "amount": 5, "item_no": 1},
        {"reason": "local_bonus", "payer_seat": 3, "payee_seat": 2, "amount": 4, "item_no": 4},
    ]
    groups = ledger_groups(items, 4)
    assert [g.reason for g in groups] == ["hand", "chicken", "local_bonus"]
    assert groups[0].per_seat == (10, -5, -5, 0)
    assert groups[1].per_seat == (1, -2, 1, 0)
    assert groups[2].per_seat == (0, 0, 4, -4)
    assert [g.total for g in groups] == [10, 3, 4]


def test_nice_ticks_cover_the_range() -> None:
    for low, high in [(0, 7), (-23, 118), (0, 1), (-5, -1), (0, 199_999)]:
        ticks = nice_ticks(low, high)
        assert ticks[0] <= low and ticks[-1] >= high
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1 and len(ticks) <= 12


def test_bar_chart_scales_bars_to_the_largest() -> None:
    svg = svg_bar_chart(
        [Bar("a", 10.0, "10"), Bar("b", 5.0, "5"), Bar("<c>", 0.0, "0")],
        title="t",
        width=500,
        label_width=100,
    )
    widths = [float(w) for w in re.findall(r'<rect class="bar" [^>]*width="([\d.]+)"', str(svg))]
    assert widths == [330.0, 165.0, 0.0]  # plot width 500 - 100 - 70
    assert "&lt;c&gt;" in str(svg)


def test_limits_must_be_positive() -> None:
    with pytest.raises(DashboardError):
        DashboardLimits(hand_pages=0)


def test_every_code_has_its_rule_from_the_docs(db: Path, site: Path) -> None:
    """The code pages and rules.html show each code's row of docs/rules/legality.md,
    which ships with the dashboard's assets (the page names no file it does not link)."""
    from zhuoji.flows.dashboard.words import code_rules
    from zhuoji.rules.violations import ViolationCode

    rules = code_rules()
    assert set(rules) == {c.value for c in ViolationCode}
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "legality.md").read_text(
        encoding="utf-8"
    )
    row = next(line for line in doc.splitlines() if line.startswith("| `missed_win` |"))
    cells = dict(rules["missed_win"])
    assert cells["fatal"] == "<b>no</b>" and "**no**" in row  # Markdown made HTML
    assert str(cells["seed"]) in row
    listing = read(site, "rules.html")
    for code in ViolationCode:
        assert f'<h2 id="{code.value}">' in listing, code
    for (code,) in rows(db, "SELECT DISTINCT code FROM violations WHERE NOT settlement"):
        page = read(site, f"codes/{page_slug(str(code))}.html")
        assert 'id="code-rule"' in page and f'href="../rules.html#{code}"' in page
        assert f'<h2 id="{code}">' in listing and f'href="codes/{page_slug(str(code))}.html"' in (
            listing
        )


def test_lists_of_hands_of_both_families_name_each_rows_codes_in_its_words(
    db: Path, tmp_path: Path
) -> None:
    """漏胡 is Changsha's name of the rule Guizhou calls 过水不胡 (``missed_win``): in the
    Chinese list of hands with illegal moves, each row's badge is in its own family's
    words. The findings of one Changsha and one Guizhou hand are renamed here to it."""
    copy = copy_db(db, tmp_path)
    con = duckdb.connect(str(copy))
    try:
        for family in ("changsha", "guizhou"):
            con.execute(
                "UPDATE violations SET code = 'missed_win' WHERE (game_id, hand_no) IN ("
                "SELECT (v.game_id, v.hand_no) FROM violations v JOIN games g USING (game_id) "
                "WHERE g.family = ? AND NOT v.settlement ORDER BY ALL LIMIT 1)", [family])
        picked = con.execute(
            "SELECT DISTINCT g.family, v.game_id, v.hand_no FROM violations v "
            "JOIN games g USING (game_id) WHERE v.code = 'missed_win' ORDER BY 1").fetchall()
    finally:
        con.close()
    assert [f for f, _, _ in picked] == ["changsha", "guizhou"]
    build_dashboard(copy, tmp_path / "s")
    pages = sorted((tmp_path / "s" / "zh").glob("illegal-hands*.html")) or sorted(
        (tmp_path / "s" / "zh").glob("illegal_hands*.html"))
    html = "".join(p.read_text(encoding="utf-8") for p in pages)
    for family, game, hand in picked:
        slug = f"{page_slug(str(game))}-h{hand}.html"
        row = next(r for r in html.split("<tr>") if slug in r)
        word, other = ("漏胡", "过水不胡") if family == "changsha" else ("过水不胡", "漏胡")
        assert word in row and other not in row, (family, row)


def test_a_family_s_marks_on_a_hand_page() -> None:
    """``Family.hand_marks``: the chicken family's hand page marks its chickens (the
    standing ones and the flip's) and adds the tile flipped and the standing chickens to its
    facts, in the markup the page always had; a family without the hook marks nothing."""
    from zhuoji.flows.dashboard.words import label

    header = {"family": "guizhou", "ruleset": "guiyang", "rule_overrides": None,
              "flip_tile": "1p"}
    marks = hand_page.hand_marks(header)
    assert marks.tiles == {Tile.S1, Tile.P2}
    facts = hand_page.facts_html(marks.facts, "en", "guizhou")
    assert facts == (
        f'<div><b>{label("flip", "en", "guizhou")}</b>: {tile_html(Tile.P1)} → '
        f'{label("flip_chicken", "en", "guizhou")} {tile_html(Tile.P2, chicken=True)}</div>\n'
        f'<div><b>{label("standing", "en", "guizhou")}</b>: '
        f'{tiles.tiles_html([Tile.S1], small=True)}</div>'
    )
    unflipped = hand_page.hand_marks({**header, "flip_tile": None})
    assert unflipped.tiles == {Tile.S1}
    assert "</b>: –</div>" in hand_page.facts_html(unflipped.facts, "zh", "guizhou")
    for family in ("changsha", "no-such-family"):
        plain = hand_page.hand_marks({**header, "family": family, "ruleset": "changsha"})
        assert plain.tiles == frozenset() and plain.facts == ()
        assert plain.replay_note is None and plain.tiles_note is None
