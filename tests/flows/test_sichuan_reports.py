"""The warehouse, the reports and the hand page's queries on hands with several winners,
from legal Sichuan logs (``tests/flows/data/sichuan``, all with 换三张 on through
``rule_overrides {"exchange": 3}``; every seat passes three tiles to the next seat, then
declares its suit; the hands are the xuezhan test family's, ``tests/rules/xuezhan_family``):

* ``sc-multiple.json`` (``sichuan``): seat 0 makes an exposed kong of 7s on seat 1's discard
  (event 11), then seats 2 and 3 both win on seat 0's 3s (一炮多响, events 22 and 23);
* ``sc-xuezhan.json`` (``sichuan-xuezhan``, 血战到底): seat 1 wins by self-draw (event 10),
  seat 0 makes a concealed kong of 9s (event 16) and discards 3s after its replacement draw,
  and seats 2 and 3 both win on it (杠上炮, events 19 and 20: the kong's income goes to seat
  2, the winner nearest the discarder); its recorded result moves 2 points from seat 3 to
  seat 2 (a disputed hand);
* ``sc-wall-end.json`` (``sichuan-xuezhan``): seat 1 wins by self-draw, the others play to
  the wall's end (查大叫 at the hand's last event);
* ``sc-xueliu.json`` (``sichuan-xueliu``, 血流成河): seat 1 wins by self-draw, then on seat
  0's 4p, and the others play to the wall's end.

Together with a Guizhou sample game, whose settlement places no transfer at an event.
The expected values are the audits' (:func:`zhuoji.rules.audit.audit_game`), the order of
the wins and who won on whose tile are the logs'.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

import zhuoji.flows.cli.report  # noqa: F401  (registers report and sql on the app)
from tests.flows.conftest import ingest_plain, report_rows
from zhuoji.flows.audit.bridge import hand_records
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.render import query
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import generate_games
from zhuoji.rules.audit import HandAudit, audit_game
from zhuoji.rules.presets import resolve_ruleset

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "sichuan"
GUIZHOU = REPO / "data" / "sample" / "t7-20261101-0001.json"
LOGS = sorted(DATA.glob("*.json"))


def _audits(path: Path) -> list[tuple[str, list[str], HandAudit]]:
    out = []
    for game in generate_games(path):
        assert isinstance(game, Game), game
        ruleset = resolve_ruleset(game.ruleset, game.rule_overrides)
        ids = [p.id for p in sorted(game.players, key=lambda p: p.seat)]
        for audit in audit_game(hand_records(game), ruleset):
            out.append((game.game_id, ids, audit))
    return out


@pytest.fixture(scope="module")
def audits() -> dict[str, tuple[list[str], HandAudit]]:
    found = {}
    for path in LOGS:
        for game_id, ids, audit in _audits(path):
            found[game_id] = (ids, audit)
    return found


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sichuan-wh")
    (folder / "staging").mkdir()
    db = folder / "warehouse.duckdb"
    counts = ingest_plain([p.as_posix() for p in [*LOGS, GUIZHOU]], db, folder / "staging")
    assert counts["loaded"] == len(LOGS) + 1 and counts["quarantined"] == 0, counts
    return db


def _rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def _report(db: Path, name: str, *args: str) -> list[dict[str, Any]]:
    """A report through the command line, as JSON rows."""
    result = CliRunner().invoke(app, ["report", name, *args, "--format", "json", "--db",
                                      str(db)])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.output)
    return rows


def test_the_logs_are_legal_and_the_disputed_one_is_disputed(
    audits: dict[str, tuple[list[str], HandAudit]],
) -> None:
    for game_id in ("sc-multiple", "sc-xuezhan", "sc-wall-end"):
        _, audit = audits[game_id]
        codes = [f.code.value for f in audit.findings]
        assert codes == (["score_mismatch"] if game_id == "sc-xuezhan" else []), (game_id, codes)
        assert audit.settlement is not None


def test_each_win_is_a_row_in_the_order_of_the_hand(
    db: Path, audits: dict[str, tuple[list[str], HandAudit]],
) -> None:
    got = {
        game_id: _rows(db, "SELECT win_no, seat, player_id, source, discarder, discarder_id, "
                           "tile, value FROM wins WHERE game_id = ? ORDER BY win_no", game_id)
        for game_id in ("sc-multiple", "sc-xuezhan")
    }
    values = {game_id: [w.value for w in audits[game_id][1].settlement.wins]  # type: ignore[union-attr]
              for game_id in got}
    # 一炮多响: seat 2 then seat 3 (turn order after the discarder), both on seat 0's 3s
    assert got["sc-multiple"] == [
        (0, 2, "sc3", "discard", 0, "sc1", "3s", values["sc-multiple"][0]),
        (1, 3, "sc4", "discard", 0, "sc1", "3s", values["sc-multiple"][1]),
    ]
    # 血战: seat 1's self-draw first, then the two wins on seat 0's 3s after its kong
    assert got["sc-xuezhan"] == [
        (0, 1, "sc2", "self_draw", None, None, "1p", values["sc-xuezhan"][0]),
        (1, 2, "sc3", "discard", 0, "sc1", "3s", values["sc-xuezhan"][1]),
        (2, 3, "sc4", "discard", 0, "sc1", "3s", values["sc-xuezhan"][2]),
    ]
    # each win its own value: the self-drawn 地胡 at the cap, the 杠上炮 wins at 1 番
    assert values["sc-xuezhan"][0] > values["sc-xuezhan"][1] == values["sc-xuezhan"][2] > 0


def test_the_ledger_places_each_transfer_at_its_event(
    db: Path, audits: dict[str, tuple[list[str], HandAudit]],
) -> None:
    for game_id in ("sc-multiple", "sc-xuezhan", "sc-wall-end"):
        settlement = audits[game_id][1].settlement
        assert settlement is not None
        rows = _rows(db, "SELECT reason, amount, event_index FROM ledger WHERE game_id = ? "
                         "ORDER BY item_no", game_id)
        assert rows == [(str(i.reason), i.amount, e) for i, e in
                        zip(settlement.items, settlement.item_events, strict=True)]
    kongs = _rows(db, "SELECT game_id, event_index, count(*) FROM ledger WHERE reason = 'kong' "
                      "GROUP BY ALL ORDER BY ALL")
    # the exposed kong paid by its discarder alone; the concealed one by the two still in
    assert kongs == [("sc-multiple", 11, 1), ("sc-xuezhan", 16, 2)]
    assert _rows(db, "SELECT DISTINCT event_index FROM ledger WHERE game_id = 'sc-xuezhan' "
                     "AND reason IN ('win', 'kong_transfer') ORDER BY 1") == [(10,), (19,), (20,)]
    # the checks at the wall's end: at the hand's last event
    last = _rows(db, "SELECT n_events - 1 FROM hands WHERE game_id = 'sc-wall-end'")[0][0]
    assert _rows(db, "SELECT DISTINCT event_index FROM ledger WHERE game_id = 'sc-wall-end' "
                     "AND reason = 'not_ready'") == [(last,)]
    # a family whose settlement places no transfer: none placed
    assert _rows(db, "SELECT count(*), count(event_index) FROM ledger JOIN games "
                     "USING (game_id) WHERE family = 'guizhou'")[0][1] == 0


def test_the_hand_page_queries_give_the_wins_in_order_and_the_seats_choices(db: Path) -> None:
    con = open_reader(db)
    try:
        params = {"game_ids": ["sc-xuezhan"], "hand_nos": [1]}
        wins = query(con, "dashboard_hand_wins", **params)
        choices = query(con, "dashboard_hand_choices", **params)
        seats = query(con, "dashboard_hand_seats", **params)
        header = query(con, "dashboard_hand_header", **params)
        ledger = query(con, "dashboard_hand_ledger", **params)
        guizhou = query(con, "dashboard_hand_choices", game_ids=["t7-20261101-0001"],
                        hand_nos=[1])
    finally:
        con.close()
    assert [(w["win_no"], w["seat"], w["source"], w["discarder"]) for w in wins] == [
        (0, 1, "self_draw", None), (1, 2, "discard", 0), (2, 3, "discard", 0)]
    assert [(c["seat"], c["declared_suit"], c["passed"], c["passed_to"], c["received"],
             c["received_from"]) for c in choices] == [
        (0, "p", "123m", 1, "777s", 3),
        (1, "s", "789p", 2, "123m", 0),
        (2, "m", "555s", 3, "789p", 1),
        (3, "m", "777s", 0, "555s", 2),
    ]
    assert guizhou == []
    assert header[0]["winners"] == 3
    assert [(s["seat"], s["winner"], s["self_drawn"], s["dealt_in"]) for s in seats] == [
        (0, False, False, True), (1, True, True, False), (2, True, False, False),
        (3, True, False, False)]
    assert [r["event_index"] for r in ledger if r["reason"] == "kong"] == [16, 16]


def test_the_multiple_wins_report_lists_each_win_in_order(db: Path) -> None:
    """Every win of the hands with several, in order, through the command line; a hand of
    one win is not in it."""
    rows = [r for r in _report(db, "multiple_wins") if r["family"] == "sichuan"]
    assert [(r["game_id"], r["hand_wins"], r["win_no"], r["seat"], r["player_id"], r["source"],
             r["discarder"], r["discarder_id"], r["tile"]) for r in rows] == [
        ("sc-multiple", 2, 0, 2, "sc3", "discard", 0, "sc1", "3s"),
        ("sc-multiple", 2, 1, 3, "sc4", "discard", 0, "sc1", "3s"),
        ("sc-xueliu", 2, 0, 1, "sc2", "self_draw", None, None, "1p"),
        ("sc-xueliu", 2, 1, 1, "sc2", "discard", 0, "sc1", "4p"),
        ("sc-xuezhan", 3, 0, 1, "sc2", "self_draw", None, None, "1p"),
        ("sc-xuezhan", 3, 1, 2, "sc3", "discard", 0, "sc1", "3s"),
        ("sc-xuezhan", 3, 2, 3, "sc4", "discard", 0, "sc1", "3s"),
    ]
    values = _rows(db, "SELECT game_id, win_no, value, scored_patterns FROM wins "
                       "WHERE game_id IN ('sc-multiple', 'sc-xueliu', 'sc-xuezhan') ORDER BY ALL")
    assert [(r["game_id"], r["win_no"], r["value"], r["scored_patterns"]) for r in rows] == [
        (g, n, v, list(p)) for g, n, v, p in values]


def _win_counts(audits: dict[str, tuple[list[str], HandAudit]]) -> Counter[str]:
    """Each player's wins in the Sichuan games, every win counted."""
    out: Counter[str] = Counter()
    for ids, audit in audits.values():
        for w in audit.replay.winners:
            out[ids[w.seat]] += 1
    return out


def test_the_reports_count_each_win(
    db: Path, audits: dict[str, tuple[list[str], HandAudit]],
) -> None:
    hands = len(audits)
    wins = _win_counts(audits)
    self_draws: Counter[str] = Counter()
    dealt: Counter[str] = Counter()
    for ids, audit in audits.values():
        for w in audit.replay.winners:
            if w.self_drawn:
                self_draws[ids[w.seat]] += 1
        for seat in {w.from_seat for w in audit.replay.winners if not w.self_drawn}:
            assert seat is not None
            dealt[ids[seat]] += 1  # a hand dealt in: one, however many won on it
    board = {r["player_id"]: r for r in _report(db, "leaderboard") if r["family"] == "sichuan"}
    assert set(board) == {"sc1", "sc2", "sc3", "sc4"}
    for player, row in board.items():
        assert row["hands"] == hands
        assert row["win_rate"] == pytest.approx(wins[player] / hands), player
        assert row["self_draw_rate"] == pytest.approx(self_draws[player] / hands), player
        assert row["deal_in_rate"] == pytest.approx(dealt[player] / hands), player
    con = open_reader(db)
    try:
        players = {r["player_id"]: r for r in query(con, "dashboard_players")
                   if r["family"] == "sichuan"}
    finally:
        con.close()
    for player, row in players.items():
        assert (row["wins"], row["self_draws"], row["deal_ins"]) == (
            wins[player], self_draws[player], dealt[player]), player
    # three hands: two winners on one discard in sc-multiple and sc-xuezhan, and in
    # sc-xueliu seat 1's second win on sc1's 4p
    assert players["sc1"]["deal_ins"] == 3


def test_a_player_who_wins_twice_in_a_hand_counts_twice(db: Path, tmp_path: Path) -> None:
    """血流成河: a seat that wins twice in a hand has two ``wins`` rows; every per-player
    figure counts both (a copy of the warehouse given seat 1's second win in sc-wall-end, a
    discard win on seat 0's 4p, as a 血流 hand loads it)."""
    copy = tmp_path / "twice.duckdb"
    shutil.copyfile(db, copy)
    before = {r["player_id"]: r for r in report_rows(copy, "leaderboard")
              if r["family"] == "sichuan"}
    con = duckdb.connect(str(copy))
    try:
        con.execute("INSERT INTO wins SELECT game_id, hand_no, 1, seat, player_id, 'discard', 0, "
                    "'sc1', '4p', 2, patterns, scored_patterns FROM wins "
                    "WHERE game_id = 'sc-wall-end' AND win_no = 0")
        first = con.execute("SELECT value FROM wins WHERE game_id = 'sc-wall-end' AND win_no = 0"
                            ).fetchone()
    finally:
        con.close()
    assert first is not None
    hands = before["sc2"]["hands"]
    after = {r["player_id"]: r for r in _report(copy, "leaderboard") if r["family"] == "sichuan"}
    assert after["sc2"]["win_rate"] == pytest.approx(before["sc2"]["win_rate"] + 1 / hands)
    assert after["sc2"]["self_draw_rate"] == pytest.approx(before["sc2"]["self_draw_rate"])
    assert after["sc1"]["deal_in_rate"] == pytest.approx(before["sc1"]["deal_in_rate"] + 1 / hands)
    history = {r["game_id"]: r for r in _report(copy, "player_history", "-p", "player=sc2")}
    assert history["sc-wall-end"]["winner"] is True
    assert history["sc-wall-end"]["win_value"] == first[0] + 2  # both wins' values
    assert len(history["sc-wall-end"]["patterns"]) == 2 * len(
        _rows(copy, "SELECT patterns FROM wins WHERE game_id = 'sc-wall-end' AND win_no = 0"
              )[0][0])
    con = open_reader(copy)
    try:
        players = {r["player_id"]: r for r in query(con, "dashboard_players")
                   if r["family"] == "sichuan"}
        seats = query(con, "dashboard_hand_seats", game_ids=["sc-wall-end"], hand_nos=[1])
    finally:
        con.close()
    old = {r["player_id"]: r for r in _players(db)}
    assert players["sc2"]["wins"] == old["sc2"]["wins"] + 1
    assert players["sc2"]["self_draws"] == old["sc2"]["self_draws"]
    assert seats[1]["win_value"] == first[0] + 2


def _players(db: Path) -> list[dict[str, Any]]:
    con = open_reader(db)
    try:
        return [r for r in query(con, "dashboard_players") if r["family"] == "sichuan"]
    finally:
        con.close()


def test_a_xueliu_seat_winning_twice_counts_twice(
    db: Path, audits: dict[str, tuple[list[str], HandAudit]],
) -> None:
    """The 血流 log through the whole chain: seat 1 wins twice (a self-draw, then on seat
    0's 4p), and its two wins are two rows, in order, counted twice."""
    _, audit = audits["sc-xueliu"]
    assert [w.seat for w in audit.replay.winners][:2] == [1, 1], audit.findings
    rows = _rows(db, "SELECT win_no, seat, source, discarder, tile FROM wins "
                     "WHERE game_id = 'sc-xueliu' ORDER BY win_no")
    assert rows[:2] == [(0, 1, "self_draw", None, "1p"), (1, 1, "discard", 0, "4p")]
    players = {r["player_id"]: r for r in _players(db)}
    assert players["sc2"]["wins"] == _win_counts(audits)["sc2"]
