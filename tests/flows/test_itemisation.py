"""The recorded itemisation through the pipeline: a record whose ``items`` differ from the
recomputed ledger (its deltas right), and one whose items do not add up to its own deltas,
are disputed in the warehouse (``violations``, ``hands``), in the reports
and on the dashboard, like a score mismatch; a correct itemised record is not."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest

from tests.flows.conftest import ingest_plain
from tests.flows.test_dashboard import read, table_rows
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.dashboard.words import page_slug
from zhuoji.flows.warehouse.reader import open_reader
from zhuoji.flows.warehouse.reports import run_report
from zhuoji.parsers.models import Player
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import HandRecord, RecordedItem, RecordedResult
from zhuoji.rules.families.guizhou.simulate import generate_games as simulate_games
from zhuoji.rules.presets import load_preset

WRONG_REASON = ("items", 1)
"""(game, hand) whose items name a wrong reason; deltas and their sums right."""
OFF_DELTAS = ("items", 2)
"""(game, hand) whose first item is one stake too high; the deltas right."""


def _itemised(record: HandRecord) -> tuple[RecordedResult, list[RecordedItem]]:
    result = record.result
    assert result is not None and result.items
    return result, list(result.items)


def _wrong_reason(record: HandRecord) -> HandRecord:
    result, items = _itemised(record)
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount, "concealed_kong")
    return dataclasses.replace(record, result=dataclasses.replace(result, items=tuple(items)))


def _off_deltas(record: HandRecord) -> HandRecord:
    result, items = _itemised(record)
    first = items[0]
    items[0] = RecordedItem(first.payer, first.payee, first.amount + 1, first.reason)
    return dataclasses.replace(record, result=dataclasses.replace(result, items=tuple(items)))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("itemisation")
    ruleset = load_preset("guiyang")
    sims = list(simulate_games(ruleset, seed=177, games=2, hands_per_game=3))
    players = [Player(seat=s, id=f"p{s}") for s in range(4)]
    records = list(sims[0].records)
    records[0] = _wrong_reason(records[0])
    records[1] = _off_deltas(records[1])
    games = [
        game_from_records(records, game_id="items", players=players,
                          started_at="2026-11-20T20:00:00+08:00"),
        game_from_records(sims[1].records, game_id="clean", players=players,
                          started_at="2026-11-20T21:00:00+08:00"),
    ]
    logs = root / "logs"
    logs.mkdir()
    write_games(logs / "items.json", games[:1])
    write_games(logs / "clean.jsonl", games[1:])
    path = root / "w.duckdb"
    counts = ingest_plain([str(logs)], path, root / "stage")
    assert counts["loaded"] == 2 and counts["quarantined"] == 0
    return path


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _report(db: Path, name: str) -> list[dict[str, object]]:
    con = open_reader(db)
    try:
        result = run_report(con, name, {})
    finally:
        con.close()
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def test_the_findings_land_in_violations_and_make_the_hands_disputed(db: Path) -> None:
    found = _rows(db, "SELECT game_id, hand_no, code, settlement, fatal, seat FROM violations "
                      "ORDER BY game_id, hand_no, item_no")
    assert found == [
        ("items", 1, "item_mismatch", True, False, None),
        ("items", 2, "item_mismatch", True, False, None),
        ("items", 2, "item_sum_mismatch", True, False, None),
    ]
    hands = _rows(db, "SELECT game_id, hand_no, violations, mismatches, disputed FROM hands "
                      "ORDER BY game_id, hand_no")
    assert [h for h in hands if h[4]] == [("items", 1, 0, 1, True), ("items", 2, 0, 2, True)]
    assert all(not h[4] and h[3] == 0 for h in hands if h[0] == "clean")
    # the deltas agree: what is wrong is the breakdown alone
    differ = _rows(db, "SELECT count(*) FROM hand_players WHERE game_id = 'items' "
                       "AND delta IS DISTINCT FROM recorded_delta")
    assert differ == [(0,)]


def test_the_reports_list_them(db: Path) -> None:
    disputed = _report(db, "disputed_hands")
    assert [(r["game_id"], r["hand_no"], r["codes"]) for r in disputed] == [
        ("items", 1, ["item_mismatch"]),
        ("items", 2, ["item_mismatch", "item_sum_mismatch"]),
    ]
    assert all(r["recorded_deltas"] == r["recomputed_deltas"] for r in disputed)
    by_code = _report(db, "disputed_by_code")
    assert [(r["code"], r["findings"], r["hands"], r["share_of_recorded"]) for r in by_code] == [
        ("item_mismatch", 2, 2, round(2 / 6, 4)),
        ("item_sum_mismatch", 1, 1, round(1 / 6, 4)),
    ]
    assert _report(db, "illegal_moves_by_code") == []  # not illegal moves


def test_the_dashboard_shows_them(db: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_dashboard(db, site)
    listing = read(site, "disputed.html")
    checks = table_rows(listing, "disputed-by-code")[1:]
    assert [(r[0][0], r[2][0], r[3][0]) for r in checks] == [
        ("item_mismatch 明细不符", "2", "33.3%"),
        ("item_sum_mismatch 明细与分数不符", "1", "16.7%"),
    ]
    assert "differ from the recomputed ledger" in checks[0][1][0]
    hands = table_rows(listing, "disputed-list")[1:]
    assert len(hands) == 2
    assert [r[7][0] for r in hands] == [
        "item_mismatch 明细不符",
        "item_mismatch 明细不符item_sum_mismatch 明细与分数不符",
    ]
    overview = read(site, "index.html")
    assert '<div class="v" id="kpi-disputed">2</div>' in overview
    pages = {
        key: table_rows(read(site, f"hands/{page_slug(key[0])}-h{key[1]}.html"), "findings")[1:]
        for key in (WRONG_REASON, OFF_DELTAS)
    }
    (wrong,) = pages[WRONG_REASON]
    assert wrong[1][0].split()[0] == "item_mismatch"
    assert any("concealed_kong 闷豆: recorded" in cell for cell, _ in wrong)
    item, unbalanced = pages[OFF_DELTAS]
    assert [item[1][0].split()[0], unbalanced[1][0].split()[0]] == [
        "item_mismatch", "item_sum_mismatch"]
    assert any("the recorded items do not add up to the recorded deltas" in cell
               for cell, _ in unbalanced)
