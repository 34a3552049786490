"""Warehouse rows of audited games (:class:`zhuoji.flows.warehouse.rows.RowBuffer`): every value of
every
table against rows written out plainly from the audits, and the shards it writes."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from zhuoji.flows.simulation.writer import build_game, fault_game
from zhuoji.flows.warehouse.rows import DATA_TABLES, SCHEMAS, SOURCE_COLUMN, RowBuffer
from zhuoji.flows.warehouse.rows_tiles import format_discards, format_melds
from zhuoji.parsers.models import Game
from zhuoji.rules.audit import HandAudit, audit_game
from zhuoji.rules.events import KongKind
from zhuoji.rules.families.changsha.simulate import generate_games as simulate_changsha
from zhuoji.rules.families.guizhou.simulate import generate_games as simulate_games
from zhuoji.rules.presets import load_preset
from zhuoji.rules.tiles import TILE_TEXT, format_tiles
from zhuoji.rules.violations import SETTLEMENT_CODES

Audited = list[tuple[Game, list[HandAudit]]]

PATH = "logs/some-file.jsonl"


@pytest.fixture(scope="module")
def games() -> Audited:
    """Games of presets with chickens of every kind, kongs, wildcards and two or three
    players, half their hands carrying a fault (violations and disputed results)."""
    out: Audited = []
    for name in ("guiyang", "an-majiang", "guiyang-3p", "zunyi"):
        rs = load_preset(name)
        for sim in simulate_games(rs, seed=3, games=2, hands_per_game=5):
            records, _faults = fault_game(sim, rs, 0.5, stream=False, file_damage=False)
            out.append((build_game(sim, records, rs), audit_game(records, rs)))
    return out


def plain_rows(games: Audited) -> dict[str, list[dict[str, Any]]]:
    """Each table's rows, written value by value from the audits."""
    rows: dict[str, list[dict[str, Any]]] = {table: [] for table in DATA_TABLES}
    for game, audits in games:
        gid = game.game_id
        ids = {p.seat: p.id for p in game.players}
        rows["games"].append({
            "game_id": gid, "path": PATH, "ruleset": game.ruleset, "rule_overrides": None,
            "base_stake": game.base_stake,
            "started_at": (game.started_at.astimezone(UTC).replace(tzinfo=None)
                           if game.started_at else None),
            "n_players": len(game.players), "n_hands": len(audits),
        })
        for p in sorted(game.players, key=lambda q: q.seat):
            rows["players"].append({"game_id": gid, "seat": p.seat, "player_id": p.id,
                                    "name": p.name})
        for a in audits:
            hand, replay, s, rec = a.record.hand_no, a.replay, a.settlement, a.record.result
            key = {"game_id": gid, "hand_no": hand}
            in_ledger = [f for f in a.findings if f.code in SETTLEMENT_CODES]
            for i, f in enumerate(a.findings):
                rows["violations"].append({
                    **key, "item_no": i, "event_index": f.event_index, "seat": f.seat,
                    "player_id": None if f.seat is None else ids.get(f.seat),
                    "code": f.code.value, "settlement": f in in_ledger,
                    "message": f.message, "fatal": f.fatal,
                })
            dealt_in = [w.from_seat for w in replay.winners if w.from_seat is not None]
            fatal = replay.fatal
            rows["hands"].append({
                **key, "dealer": a.record.dealer, "dealer_streak": a.record.dealer_streak,
                "n_events": len(a.record.events), "events_applied": replay.events_applied,
                "has_wall": a.record.wall is not None, "wall_left": replay.wall_left,
                "outcome": replay.outcome.value, "winners": len(replay.winners),
                "self_drawn": any(w.self_drawn for w in replay.winners),
                "discarder": min(dealt_in) if dealt_in else None,
                "flip_tile": None if replay.flip is None else TILE_TEXT[replay.flip],
                "settled": s is not None, "next_dealer": s.next_dealer if s else None,
                "recorded": rec is not None,
                "recorded_next_dealer": rec.next_dealer if rec else None,
                "violations": len(a.findings) - len(in_ledger), "fatal": fatal is not None,
                "fatal_code": fatal.code.value if fatal else None,
                "mismatches": len(in_ledger), "disputed": bool(in_ledger),
            })
            for seat in range(a.record.n_players):
                wins = [w for w in replay.winners if w.seat == seat]
                values = [v for v in (s.wins if s else ()) if v.seat == seat]
                facts = next((f for f in replay.seats if f.seat == seat), None)
                row = {
                    **key, "seat": seat, "player_id": ids[seat],
                    "delta": s.deltas[seat] if s else None,
                    "recorded_delta": rec.deltas[seat] if rec else None,
                    "winner": bool(wins), "self_drawn": bool(wins) and wins[-1].self_drawn,
                    "dealt_in": seat in dealt_in,
                    "ready": facts is not None and facts.ready,
                    "declared_ready": facts is not None and facts.declared_ready_at is not None,
                }
                for kind in (KongKind.EXPOSED, KongKind.ADDED, KongKind.CONCEALED):
                    row[f"{kind.value}_kongs"] = facts.kong_count(kind) if facts else 0
                for kind_name in ("standing", "flipped", "gold", "charging", "responsibility"):
                    row[f"chickens_{kind_name}"] = sum(
                        c.count for c in (s.chickens if s else ())
                        if c.seat == seat and c.kind.value == kind_name)
                row["win_value"] = (
                    None if not values else -values[0].value if values[0].penalty
                    else values[0].value)
                row["patterns"] = [p.value for p in wins[-1].patterns] if wins else []
                row["scored_patterns"] = list(values[0].patterns) if values else []
                rows["hand_players"].append(row)
            taken: dict[int, int] = {}
            for win_no, w in enumerate(replay.winners):
                values = [v for v in (s.wins if s else ()) if v.seat == w.seat]
                k = taken[w.seat] = taken.get(w.seat, -1) + 1
                value = values[k] if k < len(values) else None
                discarder = None if w.self_drawn else w.from_seat
                rows["wins"].append({
                    **key, "win_no": win_no, "seat": w.seat, "player_id": ids[w.seat],
                    "source": "self_draw" if w.self_drawn
                    else "robbed_kong" if w.robbed_kong else "discard",
                    "discarder": discarder,
                    "discarder_id": None if discarder is None else ids[discarder],
                    "tile": TILE_TEXT[w.tile],
                    "value": None if value is None else -value.value if value.penalty
                    else value.value,
                    "patterns": [p.value for p in w.patterns],
                    "scored_patterns": list(value.patterns) if value else [],
                })
            placed = getattr(s, "item_events", ())  # a settlement placing its items
            for i, item in enumerate(s.items if s else ()):
                rows["ledger"].append({
                    **key, "item_no": i, "payer_seat": item.payer, "payee_seat": item.payee,
                    "payer_id": ids[item.payer], "payee_id": ids[item.payee],
                    "amount": item.amount, "reason": item.reason.value, "detail": item.detail,
                    "event_index": placed[i] if placed else None,
                })
            won_on = {w.seat: TILE_TEXT[w.tile] for w in replay.winners}
            for facts in sorted(replay.seats, key=lambda f: f.seat):
                rows["hand_tiles"].append({
                    **key, "seat": facts.seat, "concealed": format_tiles(facts.concealed),
                    "melds": format_melds(facts.melds),
                    "discards": format_discards([row[0] for row in facts.river]),
                    "win_tile": won_on.get(facts.seat),
                })
    return rows


def test_the_games_cover_what_the_rows_hold(games: Audited) -> None:
    rows = plain_rows(games)
    players = rows["hand_players"]
    assert rows["violations"] and any(r["settlement"] for r in rows["violations"])
    assert any(r["fatal"] for r in rows["hands"]) and any(r["winners"] for r in rows["hands"])
    assert any(r["scored_patterns"] for r in players) and any(r["patterns"] for r in players)
    for column in ("exposed_kongs", "chickens_standing", "chickens_flipped", "chickens_gold",
                   "chickens_charging"):
        assert any(r[column] for r in players), column
    assert any(r["melds"] for r in rows["hand_tiles"])
    assert any("W" in r["concealed"] for r in rows["hand_tiles"])


def test_every_value_of_every_table(games: Audited, tmp_path: Path) -> None:
    buffer = RowBuffer(tmp_path / "shards")
    counts = [buffer.add_game(game, PATH, audits) for game, audits in games]
    expected = plain_rows(games)
    for table in DATA_TABLES:
        got = buffer.arrow(table)
        assert got.schema == SCHEMAS[table]
        assert got.to_pylist() == expected[table], table
    assert sum(c.hands for c in counts) == len(expected["hands"]) == buffer.pending_hands
    assert sum(c.mismatches for c in counts) == sum(r["mismatches"] for r in expected["hands"])
    assert sum(c.violations for c in counts) == sum(r["violations"] for r in expected["hands"])


CHICKEN_COLUMNS = tuple(
    f"chickens_{kind}" for kind in ("standing", "flipped", "gold", "charging", "responsibility")
)


def test_a_family_without_chickens_has_null_chicken_columns(
    games: Audited, tmp_path: Path
) -> None:
    """A Changsha game's hand_players rows hold NULL chickens (not 0: there is nothing to
    count, and an average leaves them out); its other columns and a Guizhou game's rows
    are as ever, whatever the flag of the other games of the buffer."""
    rs = load_preset("changsha")
    changsha: Audited = []
    for sim in simulate_changsha(rs, seed=5, games=2, hands_per_game=4):
        records, _ = fault_game(sim, rs, 0.5, stream=False, file_damage=False)
        changsha.append((build_game(sim, records, rs), audit_game(records, rs)))
    buffer = RowBuffer(tmp_path / "shards")
    for game, audits in changsha:
        buffer.add_game(game, PATH, audits, chickens=False)
    for game, audits in games:
        buffer.add_game(game, PATH, audits)
    rows = buffer.arrow("hand_players").to_pylist()
    ids = {game.game_id for game, _ in changsha}
    mine = [r for r in rows if r["game_id"] in ids]
    assert len(mine) == sum(len(a) * len(g.players) for g, a in changsha) > 0
    assert all(r[c] is None for r in mine for c in CHICKEN_COLUMNS)
    assert any(r["delta"] for r in mine) and any(r["winner"] for r in mine)
    assert [r for r in rows if r["game_id"] not in ids] == plain_rows(games)["hand_players"]
    # the same game with chickens counted: zeros, and nothing else differs
    again = RowBuffer(tmp_path / "again")
    for game, audits in changsha:
        again.add_game(game, PATH, audits)
    counted = again.arrow("hand_players").to_pylist()
    assert all(r[c] == 0 for r in counted for c in CHICKEN_COLUMNS)
    assert [{**r, **dict.fromkeys(CHICKEN_COLUMNS)} for r in counted] == mine


def test_shards_hold_the_rows_in_order_one_row_group_per_flush(
    games: Audited, tmp_path: Path
) -> None:
    buffer = RowBuffer(tmp_path / "shards")
    half = len(games) // 2
    for game, audits in games[:half]:
        buffer.add_game(game, PATH, audits)
    buffer.flush()
    assert buffer.pending_hands == 0
    assert all(buffer.arrow(table).num_rows == 0 for table in DATA_TABLES)
    for game, audits in games[half:]:
        buffer.add_game(game, PATH, audits)
    buffer.close()
    expected = plain_rows(games)
    for table in DATA_TABLES:
        shard = pq.ParquetFile(tmp_path / "shards" / f"{table}.parquet")
        assert shard.metadata.num_row_groups == 2
        rows = [{**row, SOURCE_COLUMN: PATH} for row in expected[table]]
        assert shard.read().to_pylist() == rows, table
    assert [p.name for p in tmp_path.iterdir()] == ["shards"], "no partial folder is left"


def _file_rows(games: Audited, path: str) -> dict[str, list[dict[str, Any]]]:
    out = {
        table: [{**row, SOURCE_COLUMN: path} for row in rows]
        for table, rows in plain_rows(games).items()
    }
    out["games"] = [{**row, "path": path} for row in out["games"]]
    return out


def test_one_buffer_holds_several_files_each_row_with_its_file(
    games: Audited, tmp_path: Path
) -> None:
    buffer = RowBuffer(tmp_path / "shards")
    first, second, third = games[:3], games[3:5], games[5:]
    for game, audits in first:
        buffer.add_game(game, "a.jsonl", audits)
    buffer.flush()  # a's rows are written: a flush between files
    for game, audits in second:
        buffer.add_game(game, "b.jsonl", audits)
    for game, audits in third:
        buffer.add_game(game, "c.jsonl", audits)
    buffer.close()
    want = [_file_rows(first, "a.jsonl"), _file_rows(second, "b.jsonl"),
            _file_rows(third, "c.jsonl")]
    for table in DATA_TABLES:
        got = pq.read_table(tmp_path / "shards" / f"{table}.parquet").to_pylist()
        assert got == [row for rows in want for row in rows[table]], table


def test_dropping_the_last_file_takes_back_its_rows_and_only_its(
    games: Audited, tmp_path: Path
) -> None:
    buffer = RowBuffer(tmp_path / "shards")
    kept, dropped = games[:4], games[4:]
    for game, audits in kept:
        buffer.add_game(game, "a.jsonl", audits)
    hands = buffer.pending_hands
    for game, audits in dropped:
        buffer.add_game(game, "b.jsonl", audits)
    assert buffer.drop_file("b.jsonl") is True  # nothing of it was written
    assert buffer.pending_hands == hands
    buffer.close()
    want = _file_rows(kept, "a.jsonl")
    for table in DATA_TABLES:
        got = pq.read_table(tmp_path / "shards" / f"{table}.parquet").to_pylist()
        assert got == want[table], table


def test_a_file_partly_written_cannot_be_taken_back_whole(
    games: Audited, tmp_path: Path
) -> None:
    buffer = RowBuffer(tmp_path / "shards")
    for game, audits in games[:2]:
        buffer.add_game(game, "a.jsonl", audits)
    buffer.flush()
    for game, audits in games[2:4]:
        buffer.add_game(game, "a.jsonl", audits)
    assert buffer.drop_file("a.jsonl") is False  # its first rows are in the shards
    assert all(buffer.arrow(table).num_rows == 0 for table in DATA_TABLES)
    for game, audits in games[4:5]:
        buffer.add_game(game, "a.jsonl", audits)
    for game, audits in games[5:6]:
        buffer.add_game(game, "b.jsonl", audits)
    with pytest.raises(ValueError, match=r"a\.jsonl: only the file added last"):
        buffer.drop_file("a.jsonl")
    buffer.abort()
    assert not any(tmp_path.iterdir())


def test_every_win_of_a_hand_that_plays_on_after_a_win_is_a_row(tmp_path: Path) -> None:
    """A hand of the test family that plays on after a win (a self-draw, then two winners on
    one discard), with its exchange and declared suits: ``wins`` keeps the three wins in
    order, ``seat_choices`` each seat's exchange and suit; ``hands`` and ``hand_players``
    are written as ever."""
    from types import SimpleNamespace

    from tests.rules.test_xuezhan import RULES, hand
    from tests.rules.xuezhan_family import FAMILY
    from tests.rules.xuezhan_family.hands import CLEAN
    from zhuoji.rules.replay import replay_hand

    record = hand(CLEAN)
    replay = replay_hand(record, RULES)
    assert len(replay.winners) == 3 and not replay.violations
    players = [SimpleNamespace(seat=s, id=f"p{s}", name=None) for s in range(4)]
    game = SimpleNamespace(game_id="g", players=players, ruleset="xuezhan-test",
                           rule_overrides=None, base_stake=1, started_at=None)
    buffer = RowBuffer(tmp_path / "shards")
    buffer.add_game(game, PATH, [HandAudit(record, replay, None, ())],  # type: ignore[arg-type]
                    chickens=False, family=FAMILY)
    wins = [(r["win_no"], r["seat"], r["source"], r["discarder"], r["discarder_id"], r["tile"],
             r["value"], r["patterns"]) for r in buffer.arrow("wins").to_pylist()]
    assert wins == [
        (0, 1, "self_draw", None, None, "1p", None, ["win"]),
        (1, 2, "discard", 0, "p0", "3s", None, ["win"]),
        (2, 3, "discard", 0, "p0", "3s", None, ["win"]),
    ]
    choices = [(r["seat"], r["declared_suit"], r["passed"], r["passed_to"], r["received"],
                r["received_from"]) for r in buffer.arrow("seat_choices").to_pylist()]
    assert choices == [
        (0, "p", "123m", 1, "777s", 3),
        (1, "s", "789p", 2, "123m", 0),
        (2, "m", "555s", 3, "789p", 1),
        (3, "m", "777s", 0, "555s", 2),
    ]
    (row,) = buffer.arrow("hands").to_pylist()
    assert (row["winners"], row["self_drawn"], row["discarder"]) == (3, True, 0)
