"""The step-by-step replay of a hand page, in a real headless web.

A simulated hand with a kong and a pong is written to a log file, its page written by
``zhuoji audit --hand N --html`` (the dashboard's hand page on its own), and the page is
stepped through with its buttons, its slider, the keyboard and its finding marks. At each
step looked at, the tiles the page shows (every seat's concealed tiles, melds and
discards), the wall count and the seat to act must be those of a :class:`Table` that the
test plays through the same events itself.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from scripts.screenshot import HeadlessChromium
from tests.flows.test_dashboard_browser import browser, chromium  # noqa: F401  (fixtures)
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.audit import write_hand_report
from zhuoji.parsers.models import Player
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import Discard, HandRecord, Kong, Pong, RecordedResult
from zhuoji.rules.families.guizhou.simulate import generate_games
from zhuoji.rules.presets import load_preset
from zhuoji.rules.table import Table
from zhuoji.rules.tiles import Tile

RULESET = load_preset("guiyang")


@pytest.fixture
def web(request: pytest.FixtureRequest) -> HeadlessChromium:
    """The module's headless Chromium (the dashboard browser test's fixture)."""
    found: HeadlessChromium = request.getfixturevalue("browser")
    return found


def _kong_and_pong_hand() -> HandRecord:
    for sim in generate_games(RULESET, seed=7, games=3, hands_per_game=4):
        for record in sim.records:
            kinds = {type(e) for e in record.events}
            if Kong in kinds and Pong in kinds and record.result is not None:
                return record
    raise AssertionError("the simulator gave no hand with a kong and a pong")


@dataclasses.dataclass(frozen=True)
class Hands:
    log: Path
    clean: HandRecord  # hand 1: a kong and a pong, its recorded deltas altered
    stopped: HandRecord  # hand 2: the same deal, stopped by a discard of a tile not held
    bad_event: int


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory) -> Hands:
    record = _kong_and_pong_hand()
    assert record.result is not None
    deltas = list(record.result.deltas)
    deltas[0], deltas[1] = deltas[0] + 3, deltas[1] - 3
    clean = dataclasses.replace(record, hand_no=1, result=RecordedResult(tuple(deltas)))
    # hand 2: after the first pong, its ponger discards a tile nobody holds five of
    first_pong = next(i for i, e in enumerate(record.events) if isinstance(e, Pong))
    table = Table.from_record(record, RULESET)
    for event in record.events[: first_pong + 1]:
        assert table.step(event) is None
    ponger = record.events[first_pong]
    assert isinstance(ponger, Pong)
    held = set(table.concealed(ponger.seat))
    missing = next(t for t in Tile if not t.is_wild and t not in held)
    bad_event = first_pong + 1
    stopped = dataclasses.replace(
        record,
        hand_no=2,
        events=(*record.events[:bad_event], Discard(ponger.seat, missing)),
        result=None,
    )
    game = game_from_records(
        [clean, stopped],
        game_id="replay-1",
        players=[Player(seat=s, id=f"p{s}", name=None) for s in range(4)],
        ruleset="guiyang",
        started_at="2026-11-20T20:00:00+08:00",
    )
    log = tmp_path_factory.mktemp("replay") / "hands.jsonl"
    write_games(log, [game])
    return Hands(log, clean, stopped, bad_event)


def table_states(record: HandRecord) -> list[dict[str, Any]]:
    """The test's own replay: the table's tiles after the deal and after each event
    applied (up to the first fatal one), read from ``Table``."""
    table = Table.from_record(record, RULESET)

    def state() -> dict[str, Any]:
        return {
            "wall": table.wall_left,
            "turn": table.turn,
            "seats": [
                {
                    "concealed": [t.text for t in table.concealed(s)],
                    "melds": [[m.kind.value, m.tile.text] for m in table.melds(s)],
                    "discards": [
                        [d.tile.text, d.claimed_by is not None] for d in table.discards(s)
                    ],
                }
                for s in range(record.n_players)
            ],
        }

    states = [state()]
    for event in record.events:
        if table.step(event) is not None:
            break
        states.append(state())
    return states


PAGE_STATE = """(() => ({
  step: parseInt(document.getElementById('replay-step').textContent, 10),
  wall: parseInt(document.getElementById('replay-wall').textContent, 10),
  turn: document.getElementById('replay-turn').textContent,
  event: document.getElementById('replay-event').textContent,
  ledger: !document.getElementById('replay-ledger').hidden,
  seats: Array.from(document.querySelectorAll('#replay-table tbody tr[data-seat]')).map(r => ({
    concealed: Array.from(r.querySelectorAll('.r-concealed .tile')).map(t => t.dataset.t),
    melds: Array.from(r.querySelectorAll('.r-melds .meld')).map(m => [m.dataset.kind, m.dataset.t]),
    discards: Array.from(r.querySelectorAll('.r-discards .tile'))
      .map(t => [t.dataset.t, t.classList.contains('claimed')]),
  })),
}))()"""


def page_state(web: HeadlessChromium) -> dict[str, Any]:
    state: dict[str, Any] = web.evaluate(PAGE_STATE)
    return state


def assert_step(web: HeadlessChromium, states: list[dict[str, Any]], step: int) -> None:
    shown = page_state(web)
    assert shown["step"] == step
    expected = states[step]
    assert shown["wall"] == expected["wall"], step
    assert shown["turn"] == f"seat {expected['turn']}", step
    assert shown["seats"] == expected["seats"], step


def press(web: HeadlessChromium, key: str) -> None:
    web.evaluate(
        f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: {key!r}, bubbles: true}}))"
    )


@pytest.fixture(scope="module")
def pages(hands: Hands, tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("replay-pages")
    return {
        n: write_hand_report(hands.log, n, folder / f"hand-{n}.html").out for n in (1, 2)
    }


def test_stepping_shows_the_tables_of_the_engine(
    hands: Hands, pages: dict[int, Path], web: HeadlessChromium, tmp_path: Path
) -> None:
    states = table_states(hands.clean)
    last = len(states) - 1
    assert last == len(hands.clean.events)  # the whole hand replays
    kong = next(i for i, e in enumerate(hands.clean.events) if isinstance(e, Kong)) + 1
    pong = next(i for i, e in enumerate(hands.clean.events) if isinstance(e, Pong)) + 1
    load = web.open(pages[1].as_uri())
    assert not load.errors, load.errors
    assert web.evaluate("document.getElementById('replay-slider').max") == str(last)
    assert_step(web, states, 0)  # the deal
    assert not page_state(web)["ledger"]
    # the next button, three times
    for _ in range(3):
        web.evaluate("document.getElementById('replay-next').click()")
    assert_step(web, states, 3)
    # the slider to the step after the first claim (a pong: the discard is marked claimed)
    web.evaluate(
        "(() => { const s = document.getElementById('replay-slider');"
        f" s.value = '{pong}'; s.dispatchEvent(new Event('input')); }})()"
    )
    assert_step(web, states, pong)
    assert any(claimed for seat in page_state(web)["seats"] for _, claimed in seat["discards"])
    web.screenshot(tmp_path / "pong.png")
    # the keyboard: one step back, one forward, then on to the kong
    press(web, "ArrowLeft")
    assert_step(web, states, pong - 1)
    press(web, "ArrowRight")
    assert_step(web, states, pong)
    for _ in range(abs(kong - pong)):
        press(web, "ArrowRight" if kong > pong else "ArrowLeft")
    assert_step(web, states, kong)
    assert any(
        kind.endswith("kong") for seat in page_state(web)["seats"] for kind, _ in seat["melds"]
    )
    assert "kong" in page_state(web)["event"]
    # End: the last step, where the settlement items appear
    press(web, "End")
    assert_step(web, states, last)
    assert page_state(web)["ledger"]
    assert web.evaluate("document.querySelectorAll('#replay-ledger li').length") > 0
    press(web, "ArrowRight")  # past the end: stays
    assert_step(web, states, last)
    press(web, "Home")
    assert_step(web, states, 0)
    # the settlement finding (no event) is a mark on the last step, one click away
    marks = web.evaluate(
        "Array.from(document.querySelectorAll('#replay-marks button'))"
        ".map(b => [b.textContent, b.dataset.step])"
    )
    assert ["score_mismatch", str(last)] in marks, marks
    web.evaluate("document.querySelector('#replay-marks button').click()")
    assert_step(web, states, last)


def test_a_fatal_finding_is_marked_and_its_event_not_applied(
    hands: Hands, pages: dict[int, Path], web: HeadlessChromium
) -> None:
    states = table_states(hands.stopped)
    last = len(states) - 1
    assert last == hands.bad_event  # the illegal discard is not applied
    load = web.open(pages[2].as_uri())
    assert not load.errors, load.errors
    marks = web.evaluate(
        "Array.from(document.querySelectorAll('#replay-marks button'))"
        ".map(b => [b.textContent, b.dataset.step])"
    )
    assert marks == [[f"event {hands.bad_event} · not_in_hand", str(last)]]
    # the event column of the findings table jumps to the same step
    web.evaluate("document.querySelector('#findings a[data-step]').click()")
    assert_step(web, states, last)
    event = page_state(web)["event"]
    assert "not applied" in event and "discards" in event, event
    assert not page_state(web)["ledger"] or web.evaluate(
        "document.querySelectorAll('#replay-ledger li').length"
    ) == 0


def test_a_chow_is_drawn_by_its_three_tiles(web: HeadlessChromium, tmp_path: Path) -> None:
    """A Changsha sample hand with chows, stepped to its end: each chow in the replay's
    table shows its three tiles in rank order (not four of its lowest), each kong four."""
    log = Path(__file__).resolve().parents[2] / "data" / "sample" / "changsha" / (
        "sim-changsha-2028-00000.json")
    page = write_hand_report(log, 1, tmp_path / "chow.html").out
    load = web.open(page.as_uri())
    assert not load.errors, load.errors
    web.evaluate("document.getElementById('replay-last').click()")
    melds = web.evaluate(
        "Array.from(document.querySelectorAll('#replay-table .r-melds .meld')).map(m =>"
        " [m.dataset.kind, Array.from(m.querySelectorAll('.tile')).map(t => t.dataset.t)])")
    chows = [tiles for kind, tiles in melds if kind == "chow"]
    assert chows, melds
    for tiles in chows:
        first = Tile.parse(tiles[0])
        assert tiles == [first.text, Tile(first + 1).text, Tile(first + 2).text], tiles
    assert all(len(tiles) == 4 for kind, tiles in melds if kind.endswith("kong")), melds
