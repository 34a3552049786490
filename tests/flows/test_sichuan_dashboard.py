"""A Sichuan hand's page in a real headless browser: the seats' exchange (换三张) and
declared suits (定缺), the wins in their order, and each kong's and win's payments at the
step of the replay where they happen.

The hand is ``tests/flows/data/sichuan/sc-xuezhan.json`` (血战到底, described in
``tests/flows/test_sichuan_reports.py``): every seat passes three tiles to the next seat
(events 0-3) and declares a suit (events 4-7: p, s, m, m); seat 1 wins by self-draw (event
10); seat 0 makes a concealed kong of 9s (event 16), paid by seats 2 and 3, the two still in
besides it; seats 2 and 3 win on its 3s after the replacement draw (events 19, 20), and the
kong's income goes to seat 2 (呼叫转移). Its record is disputed, so the dashboard writes its
page; ``zhuoji audit --hand 1 --html`` writes the same page on its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scripts.screenshot import HeadlessChromium
from tests.flows.conftest import ingest_plain
from tests.flows.test_dashboard_browser import browser, chromium  # noqa: F401  (fixtures)
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.dashboard.words import page_slug

DATA = Path(__file__).resolve().parent / "data" / "sichuan"
LOG = DATA / "sc-xuezhan.json"
KONG_EVENT = 16
WIN_EVENTS = (10, 19, 20)


@pytest.fixture
def web(request: pytest.FixtureRequest) -> HeadlessChromium:
    """The module's headless Chromium (the dashboard browser test's fixture)."""
    found: HeadlessChromium = request.getfixturevalue("browser")
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sichuan-site")
    (folder / "staging").mkdir()
    db = folder / "warehouse.duckdb"
    counts = ingest_plain([p.as_posix() for p in sorted(DATA.glob("*.json"))], db,
                          folder / "staging")
    assert counts["quarantined"] == 0, counts
    build_dashboard(db, folder / "site")
    return folder / "site"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sichuan-report") / "hand.html"
    result = CliRunner().invoke(app, ["audit", str(LOG), "--hand", "1", "--html", str(out)])
    assert result.exit_code == 1, result.output  # 1: the hand has a finding (its record)
    assert "with findings" in result.output
    return out


def _go(web: HeadlessChromium, step: int) -> None:
    web.evaluate(
        "(() => { const s = document.getElementById('replay-slider');"
        f" s.value = '{step}'; s.dispatchEvent(new Event('input')); }})()"
    )
    assert web.evaluate("document.getElementById('replay-step').textContent") == str(step)


PAID = """Array.from(document.querySelectorAll('#replay-paid li'))
  .filter(li => !li.hidden && !document.getElementById('replay-paid').hidden)
  .map(li => [li.dataset.reason, li.textContent.trim()])"""

BADGES = """Array.from(document.querySelectorAll('#replay-table tbody tr[data-seat]'))
  .map(r => Array.from(r.querySelectorAll('.r-badges .badge.void'))
    .map(b => [b.dataset.suit, b.textContent]))"""


ORDER = """Array.from(document.querySelectorAll('#replay-table tbody tr[data-seat]'))
  .map(r => { const b = r.querySelector('.r-badges .badge.green');
              return b ? b.dataset.order : null; })"""


def _paid(web: HeadlessChromium) -> list[list[str]]:
    found: list[list[str]] = web.evaluate(PAID)
    return found


def _check_page(web: HeadlessChromium, page: Path, shots: Path) -> None:
    load = web.open(page.as_uri())
    assert not load.errors, load.errors
    # the seats' choices: the suit declared, the tiles passed and to whom
    choices: list[dict[str, Any]] = web.evaluate("""Array.from(document.querySelectorAll(
        '#seat-choices tbody tr')).map(r => ({
          seat: r.dataset.seat,
          suit: r.querySelector('.c-suit').dataset.suit,
          suit_text: r.querySelector('.c-suit').textContent.trim(),
          passed: Array.from(r.querySelectorAll('.c-passed .tile')).map(t => t.textContent),
          passed_text: r.querySelector('.c-passed').textContent,
          received_text: r.querySelector('.c-received').textContent}))""")
    assert [(c["seat"], c["suit"]) for c in choices] == [
        ("0", "p"), ("1", "s"), ("2", "m"), ("3", "m")]
    assert choices[0]["suit_text"].startswith("dots")
    assert len(choices[0]["passed"]) == 3
    assert [c["passed_text"].strip().endswith(f"seat {(s + 1) % 4}")
            for s, c in enumerate(choices)] == [True] * 4
    assert choices[0]["received_text"].strip().endswith("seat 3")
    # the wins in their order: winner, how, who dealt in
    wins: list[list[Any]] = web.evaluate("""Array.from(document.querySelectorAll(
        '#wins-in-order tbody tr')).map(r => [r.dataset.seat, r.dataset.source,
        r.dataset.from || null, r.querySelector('a[data-step]').textContent])""")
    assert wins == [["1", "self_draw", None, "10"], ["2", "discard", "0", "19"],
                    ["3", "discard", "0", "20"]]
    # the replay: the exchange's and the declarations' sentences, the declared suit's badge
    _go(web, 1)
    assert "seat 0 passes 1m 2m 3m to seat 1" in web.evaluate(
        "document.getElementById('replay-event').textContent")
    _go(web, 4)
    assert web.evaluate(BADGES) == [[], [], [], []]  # nobody has declared yet
    _go(web, 5)
    assert "seat 0 declares dots" in web.evaluate(
        "document.getElementById('replay-event').textContent")
    badges = web.evaluate(BADGES)
    assert [b[0][0] if b else None for b in badges] == ["p", None, None, None]
    _go(web, 8)
    assert [b[0][0] for b in web.evaluate(BADGES)] == ["p", "s", "m", "m"]
    assert _paid(web) == []
    # the kong's payments at the step of the kong, and not before or after
    _go(web, KONG_EVENT)
    assert _paid(web) == []
    _go(web, KONG_EVENT + 1)
    paid = _paid(web)
    assert [reason for reason, _ in paid] == ["kong", "kong"]
    assert [text.split(":")[1].split("→")[0].strip() for _, text in paid] == [
        "seat 2", "seat 3"]
    assert all("seat 0" in text.split("→")[1] for _, text in paid)
    web.screenshot(shots / f"{page.stem}-kong.png")
    _go(web, KONG_EVENT + 2)
    assert _paid(web) == []
    # each win's payments at its step (the first win: three payers, each its 自摸加底)
    _go(web, WIN_EVENTS[0] + 1)
    assert sorted({reason for reason, _ in _paid(web)}) == ["self_draw", "win"]
    assert web.evaluate(ORDER) == [None, "1", None, None]
    _go(web, WIN_EVENTS[1] + 1)
    assert [reason for reason, _ in _paid(web)] == ["win", "kong_transfer"]
    assert web.evaluate(ORDER) == [None, "1", "2", None]
    _go(web, WIN_EVENTS[2] + 1)
    assert web.evaluate(ORDER) == [None, "1", "2", "3"]
    assert "#3" in web.evaluate("document.querySelector("
                                "'#replay-table tr[data-seat=\"3\"] .badge.green').textContent")
    # a win's event link in the table of wins goes to its step
    web.evaluate("document.querySelector('#wins-in-order tr[data-win=\"1\"] a[data-step]').click()")
    assert web.evaluate("document.getElementById('replay-step').textContent") == str(
        WIN_EVENTS[1] + 1)
    # the last step: the whole settlement, not the step's list
    last = int(web.evaluate("document.getElementById('replay-slider').max"))
    _go(web, last)
    assert _paid(web) == []
    assert web.evaluate("!document.getElementById('replay-ledger').hidden")


def test_the_dashboard_hand_page_shows_choices_wins_and_payments_at_their_steps(
    site: Path, web: HeadlessChromium, tmp_path: Path
) -> None:
    page = site / "hands" / f"{page_slug('sc-xuezhan')}-h1.html"
    assert page.is_file(), sorted(p.name for p in (site / "hands").iterdir())
    _check_page(web, page, tmp_path)


def test_the_audit_html_page_shows_the_same(
    report: Path, web: HeadlessChromium, tmp_path: Path
) -> None:
    _check_page(web, report, tmp_path)


def test_a_page_of_one_win_has_no_table_of_wins(web: HeadlessChromium, tmp_path: Path) -> None:
    """A hand of one win (``sc-wall-end.json``: seat 1's self-draw, then play to the wall's
    end) says it in its seats' table, as a page always did: no table of wins; its seats'
    choices are shown, and the checks at the wall's end (查大叫) are paid at the last event,
    where the whole settlement shows."""
    out = tmp_path / "wall-end.html"
    result = CliRunner().invoke(app, ["audit", str(DATA / "sc-wall-end.json"), "--hand", "1",
                                      "--html", str(out)])
    assert result.exit_code == 0, result.output
    load = web.open(out.as_uri())
    assert not load.errors, load.errors
    assert web.evaluate("document.getElementById('wins-in-order')") is None
    assert web.evaluate("document.querySelectorAll('#seat-choices tbody tr').length") == 4
    last = int(web.evaluate("document.getElementById('replay-slider').max"))
    steps = web.evaluate("Array.from(document.querySelectorAll('#replay-paid li'))"
                         ".map(li => [li.dataset.reason, li.dataset.step])")
    assert ["not_ready", str(last)] in steps
    _go(web, last - 1)
    assert all(reason != "not_ready" for reason, _ in _paid(web))
    _go(web, last)
    assert _paid(web) == []
    assert web.evaluate("!document.getElementById('replay-ledger').hidden")
