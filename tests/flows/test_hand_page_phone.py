"""A hand's page on a phone, in a real headless web 390 px wide (a phone's screen, as the
players open the page in a chat app).

The page written by ``zhuoji audit --hand N --html`` (the dashboard's hand page on its
own) must read as a hand there: nothing wider than the screen (no element beyond its
edges, nothing scrolled or cut off inside a panel), each seat's tiles in a row or two
(a 14-tile hand included), the tables stacked, and the page not much taller than on a
desktop. The replay's last step shows why the hand is settled so. Each page is
photographed (under the test's temporary folder), in English and in Chinese.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scripts.screenshot import HeadlessChromium
from tests.flows.test_dashboard_browser import browser, chromium  # noqa: F401  (fixtures)
from tests.flows.test_hand_report import SETTLES
from zhuoji.flows.cli.audit import write_hand_report

ROOT = Path(__file__).resolve().parents[2]
PHONE = (390, 844)
DESKTOP = (1280, 900)
# a disputed four-player hand with a full table of melds (its dealer holds 14 tiles at
# the deal), and the dispute of kong_owner_not_ready.json
DISPUTED = ROOT / "data" / "sample" / "sim" / "document" / "sim-guiyang-1-5-10-2026-00000.json"
KONG = ROOT / "tests" / "data" / "disputes" / "kong_owner_not_ready.json"

LAYOUT = r"""(() => {
  const width = document.documentElement.clientWidth;
  const outside = [], scrolled = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) { continue; }  // not shown
    const classes = typeof el.className === 'string' ? el.className.trim() : '';
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (classes ? '.' + classes.split(/\s+/).join('.') : '');
    if (r.left < -0.5 || r.right > width + 0.5) {
      outside.push(name + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
    if (getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
      scrolled.push(name + ' ' + el.scrollWidth + ' > ' + el.clientWidth);
    }
  }
  function rows(cell) {  // the lines a cell's tiles take
    return new Set(Array.from(cell.querySelectorAll('.tile'))
      .map(t => Math.round(t.getBoundingClientRect().top))).size;
  }
  const tables = Array.from(document.querySelectorAll('main table')).filter(t => t.offsetParent)
    .map(t => [t.id || t.className, Math.round(t.getBoundingClientRect().right),
               t.scrollWidth, t.clientWidth]);
  return {
    width: width,
    scrollWidth: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    outside: outside,
    scrolled: scrolled,
    tables: tables,
    replay: Array.from(document.querySelectorAll('#replay-table .r-concealed'))
      .map(c => [c.querySelectorAll('.tile').length, rows(c)]),
    hands: Array.from(document.querySelectorAll(
        'table.seat-tiles tbody tr:not(.more) > td:nth-child(2)'))
      .map(c => [c.querySelectorAll('.tile').length, rows(c)]),
    melds: Array.from(document.querySelectorAll('#replay-table .r-melds, table.seat-tiles td'))
      .filter(c => c.querySelector('.meld')).map(rows),
    stacked: getComputedStyle(document.querySelector('#seat-deltas thead')).display,
  };
})()"""


@pytest.fixture
def web(request: pytest.FixtureRequest) -> HeadlessChromium:
    """The module's headless Chromium (the dashboard browser test's fixture)."""
    found: HeadlessChromium = request.getfixturevalue("browser")
    return found


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    folder = tmp_path_factory.mktemp("phone-pages")
    return {
        (name, lang): write_hand_report(log, hand, folder / f"{name}-{lang}.html", lang=lang).out
        for name, log, hand in (("disputed", DISPUTED, 3), ("kong", KONG, 1))
        for lang in ("en", "zh")
    }


def layout(web: HeadlessChromium) -> dict[str, Any]:
    found: dict[str, Any] = web.evaluate(LAYOUT)
    return found


def assert_fits(shown: dict[str, Any], where: str) -> None:
    width = PHONE[0]
    assert shown["width"] == width, where
    assert shown["scrollWidth"] <= width, (where, shown["scrollWidth"])
    assert not shown["outside"], (where, shown["outside"][:10])
    assert not shown["scrolled"], (where, shown["scrolled"][:10])
    for name, right, scroll, client in shown["tables"]:
        assert right <= width and scroll <= client, (where, name, right, scroll, client)
    assert shown["stacked"] == "none", where  # the seats table is a card per seat
    # each seat's tiles read as a hand: a row or two, whatever their count
    for count, rows in shown["replay"] + shown["hands"]:
        assert rows <= (1 if count <= 8 else 2), (where, count, rows)
    assert all(rows <= 3 for rows in shown["melds"]), (where, shown["melds"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hand_reads_as_a_hand_on_a_phone(
    pages: dict[tuple[str, str], Path], web: HeadlessChromium, lang: str, tmp_path: Path
) -> None:
    page = pages["disputed", lang].as_uri()
    try:
        web.resize(*DESKTOP)
        assert not web.open(page).errors
        desktop = layout(web)["height"]
        web.resize(*PHONE)
        load = web.open(page)
        assert not load.errors, load.errors
        deal = layout(web)
        assert_fits(deal, f"{lang}: the deal")
        assert deal["replay"][0] == [14, 1], deal["replay"]  # the dealer's 14 tiles: one row
        # not much taller than on a desktop (the tiles one or two to a line made it twice
        # as tall, over 5,000 px)
        assert deal["height"] <= 1.5 * desktop, (deal["height"], desktop)
        shot = web.screenshot(tmp_path / f"phone-{lang}-deal.png", max_height=8000)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # the last step: the settlement, and why, under the table
        web.evaluate("document.getElementById('replay-last').click()")
        end = layout(web)
        assert_fits(end, f"{lang}: the last step")
        assert web.evaluate("!document.getElementById('replay-ledger').hidden")
        web.screenshot(tmp_path / f"phone-{lang}-end.png", max_height=8000)
        # every ledger group opened: its items stacked too
        web.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        assert_fits(layout(web), f"{lang}: the ledger's items")
    finally:
        web.resize(*DESKTOP)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_last_step_says_why(
    pages: dict[tuple[str, str], Path], web: HeadlessChromium, lang: str, tmp_path: Path
) -> None:
    """The sentence that settles the dispute is under the replay at its last step (and
    only there in the replay), and beside the findings, in the page's language."""
    try:
        web.resize(*PHONE)
        load = web.open(pages["kong", lang].as_uri())
        assert not load.errors, load.errors
        visible = "(id) => !!(document.getElementById(id) || {}).offsetParent"
        assert not web.evaluate(f"({visible})('replay-why')")  # the deal: not yet
        assert web.evaluate(f"({visible})('why')")
        assert SETTLES[lang] in web.evaluate("document.getElementById('why').innerText")
        web.evaluate("document.getElementById('replay-last').click()")
        assert web.evaluate(f"({visible})('replay-why')")
        assert SETTLES[lang] in web.evaluate("document.getElementById('replay-why').innerText")
        assert_fits(layout(web), f"{lang}: the last step")
        web.screenshot(tmp_path / f"why-{lang}.png", max_height=8000)
    finally:
        web.resize(*DESKTOP)
