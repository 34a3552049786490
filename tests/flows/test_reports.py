"""Each report against figures computed here, in Python, from the same logs.

The expected values are derived from the audits of the corpus's games
(:func:`zhuoji.rules.audit.audit_game`), not from the warehouse's tables.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import zhuoji.flows.cli.report  # noqa: F401  (registers report and sql on the app)
from tests.flows.conftest import Corpus, ingest_plain, report_rows
from zhuoji.flows.audit.bridge import hand_records
from zhuoji.flows.cli.main import app
from zhuoji.flows.warehouse.reports import report_names
from zhuoji.parsers.models import Game
from zhuoji.rules.audit import HandAudit, audit_game
from zhuoji.rules.presets import resolve_ruleset
from zhuoji.rules.violations import SETTLEMENT_CODES, ViolationCode


@dataclass(frozen=True)
class Seat:
    game: Game
    audit: HandAudit
    seat: int

    @property
    def player(self) -> str:
        return next(p.id for p in self.game.players if p.seat == self.seat)


def _audits(game: Game) -> list[HandAudit]:
    return audit_game(hand_records(game), resolve_ruleset(game.ruleset, game.rule_overrides))


def _seats(corpus: Corpus) -> Iterator[Seat]:
    for game in corpus.all_games():
        for audit in _audits(game):
            for seat in range(len(game.players)):
                yield Seat(game, audit, seat)


def _won(s: Seat) -> bool:
    return any(w.seat == s.seat for w in s.audit.replay.winners)


def _self_drawn(s: Seat) -> bool:
    return any(w.seat == s.seat and w.self_drawn for w in s.audit.replay.winners)


def _dealt_in(s: Seat) -> bool:
    return any(w.from_seat == s.seat for w in s.audit.replay.winners)


def _win_value(s: Seat) -> int:
    assert s.audit.settlement is not None
    value = next(v for v in s.audit.settlement.wins if v.seat == s.seat)
    return -value.value if value.penalty else value.value


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reports") / "w.duckdb"
    ingest_plain([str(corpus.root)], path, path.parent / "stage")
    return path


def test_the_corpus_exercises_everyreport_rows(corpus: Corpus) -> None:
    seats = list(_seats(corpus))
    codes = {f.code for s in seats for f in s.audit.findings}
    assert {ViolationCode.OUT_OF_TURN, ViolationCode.CHOW_NOT_ALLOWED} <= codes
    assert codes & SETTLEMENT_CODES
    assert any(_won(s) and not _self_drawn(s) for s in seats)
    assert any(_self_drawn(s) for s in seats) or any(_dealt_in(s) for s in seats)


def test_leaderboard(corpus: Corpus, db: Path) -> None:
    by_player: dict[str, list[Seat]] = defaultdict(list)
    for s in _seats(corpus):
        by_player[s.player].append(s)
    expected = []
    for player, seats in by_player.items():
        n = len(seats)
        settled = [s for s in seats if s.audit.settlement is not None]
        wins = [s for s in settled if _won(s)]
        kongs = sum(
            1
            for s in seats
            for seat in s.audit.replay.seats
            if seat.seat == s.seat
            for k in seat.kongs
            if not k.robbed
        )
        chickens = sum(
            c.count
            for s in settled
            for c in s.audit.settlement.chickens  # type: ignore[union-attr]
            if c.seat == s.seat
        )
        expected.append(
            {
                "player_id": player,
                "player_name": None,  # the corpus's logs name no player
                "hands": n,
                "net_score": sum(s.audit.settlement.deltas[s.seat] for s in settled),  # type: ignore[union-attr]
                "win_rate": sum(_won(s) for s in seats) / n,
                "self_draw_rate": sum(_self_drawn(s) for s in seats) / n,
                "deal_in_rate": sum(_dealt_in(s) for s in seats) / n,
                "avg_win_value": (sum(_win_value(s) for s in wins) / len(wins)) if wins else None,
                "kongs_per_hand": kongs / n,
                "chickens_per_hand": chickens / n,
            }
        )
    expected.sort(key=lambda r: (-int(r["net_score"]), str(r["player_id"])))  # type: ignore[call-overload]
    # the corpus is of one family: one ranking
    expected = [{"family": "guizhou", "rank": i, **r} for i, r in enumerate(expected, 1)]
    got = report_rows(db, "leaderboard")
    assert [r["player_id"] for r in got] == [r["player_id"] for r in expected]
    for g, e in zip(got, expected, strict=True):
        assert g == pytest.approx(e), g["player_id"]


def test_pattern_frequencies(corpus: Corpus, db: Path) -> None:
    wins = []
    for game in corpus.all_games():
        for audit in _audits(game):
            for w in audit.replay.winners:
                scored = (
                    ()
                    if audit.settlement is None
                    else next(v.patterns for v in audit.settlement.wins if v.seat == w.seat)
                )
                # a self-drawn win qualifies for self_draw (the settlement adds it)
                own = [p.value for p in w.patterns] + (["self_draw"] if w.self_drawn else [])
                wins.append((own, list(scored)))
    qualifying = Counter(p for q, _ in wins for p in set(q))
    scored = Counter(p for _, s in wins for p in s)
    by_rule = Counter(p for q, s in wins for p in s if p not in q)  # e.g. 抢杠 valued as 清一色
    expected = sorted(
        ((p, qualifying[p], scored[p], by_rule[p]) for p in set(qualifying) | set(scored)),
        key=lambda r: (-r[2], -r[1], r[0]),
    )
    got = report_rows(db, "pattern_frequencies")
    assert [
        (r["pattern"], r["qualifying_wins"], r["scored_wins"], r["valued_wins"]) for r in got
    ] == expected
    # once the wins valued by a rule are set apart, no pattern is scored more than it qualifies
    assert all(r["scored_wins"] - r["valued_wins"] <= r["qualifying_wins"] for r in got)
    for r in got:
        assert r["scored_share"] == pytest.approx(scored[str(r["pattern"])] / len(wins))
    assert scored["plain"] > 0 and qualifying["plain"] >= scored["plain"]


def test_disputed_hands(corpus: Corpus, db: Path) -> None:
    expected = []
    for game in corpus.all_games():
        for audit in _audits(game):
            codes = [f.code.value for f in audit.findings if f.code in SETTLEMENT_CODES]
            if not codes:
                continue
            recorded = audit.record.result
            settlement = audit.settlement
            expected.append(
                (
                    game.game_id,
                    audit.record.hand_no,
                    None if recorded is None else list(recorded.deltas),
                    None if settlement is None else list(settlement.deltas),
                    list(codes),
                )
            )
    got = [
        (
            r["game_id"],
            r["hand_no"],
            None if all(v is None for v in r["recorded_deltas"]) else r["recorded_deltas"],  # type: ignore[union-attr]
            None if all(v is None for v in r["recomputed_deltas"]) else r["recomputed_deltas"],  # type: ignore[union-attr]
            r["codes"],
        )
        for r in report_rows(db, "disputed_hands")
    ]
    assert got == sorted(expected)
    # The corpus's two altered records are among them.
    assert {(g, h) for g, h, *_ in got} >= {("g016", 2), ("g017", 3)}


def test_disputed_by_code(corpus: Corpus, db: Path) -> None:
    per_code: dict[str, list[tuple[str, int]]] = defaultdict(list)
    recorded = 0
    for game in corpus.all_games():
        for audit in _audits(game):
            recorded += audit.record.result is not None
            for f in audit.findings:
                if f.code in SETTLEMENT_CODES:
                    per_code[f.code.value].append((game.game_id, audit.record.hand_no))
    expected = sorted(
        (
            (code, len(hands), len(set(hands)), round(len(set(hands)) / recorded, 4))
            for code, hands in per_code.items()
        ),
        key=lambda r: (-r[2], r[0]),
    )
    got = [
        (r["code"], r["findings"], r["hands"], r["share_of_recorded"])
        for r in report_rows(db, "disputed_by_code")
    ]
    assert got == expected
    assert {"score_mismatch", "not_zero_sum"} <= {r[0] for r in got}


def test_illegal_moves_by_code(corpus: Corpus, db: Path) -> None:
    findings = [
        (game.game_id, audit.record.hand_no, f)
        for game in corpus.all_games()
        for audit in _audits(game)
        for f in audit.findings
        if f.code not in SETTLEMENT_CODES
    ]
    per_code: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for game_id, hand_no, f in findings:
        per_code[f.code.value].append((game_id, hand_no, f.fatal))
    expected = sorted(
        (
            (code, len(rows), len({(g, h) for g, h, _ in rows}), sum(fatal for *_, fatal in rows))
            for code, rows in per_code.items()
        ),
        key=lambda r: (-r[1], r[0]),
    )
    got = [
        (r["code"], r["findings"], r["hands"], r["fatal"])
        for r in report_rows(db, "illegal_moves_by_code")
    ]
    assert got == expected
    assert {"out_of_turn", "chow_not_allowed"} <= {r[0] for r in got}


def test_illegal_moves_by_player(corpus: Corpus, db: Path) -> None:
    per: dict[tuple[str, str], list[tuple[str, int, bool]]] = defaultdict(list)
    for game in corpus.all_games():
        ids = {p.seat: p.id for p in game.players}
        for audit in _audits(game):
            for f in audit.findings:
                if f.code in SETTLEMENT_CODES or f.seat is None:
                    continue
                per[(ids[f.seat], f.code.value)].append(
                    (game.game_id, audit.record.hand_no, f.fatal)
                )
    expected = sorted(
        (
            (player, code, len(rows), len({(g, h) for g, h, _ in rows}), sum(x for *_, x in rows))
            for (player, code), rows in per.items()
        ),
        key=lambda r: (r[0], -r[2], r[1]),
    )
    got = [
        (r["player_id"], r["code"], r["findings"], r["hands"], r["fatal"])
        for r in report_rows(db, "illegal_moves_by_player")
    ]
    assert got == expected
    assert got, "the corpus has illegal moves with a player at fault"


@pytest.mark.parametrize("player", ["ana", "dai"])
def test_player_history(corpus: Corpus, db: Path, player: str) -> None:
    rows = []
    for game in sorted(corpus.all_games(), key=lambda g: (g.started_at, g.game_id)):
        seat = next((p.seat for p in game.players if p.id == player), None)
        if seat is None:
            continue
        for audit in sorted(_audits(game), key=lambda a: a.record.hand_no):
            settlement = audit.settlement
            recorded = audit.record.result
            own = sum(
                1 for f in audit.findings if f.seat == seat and f.code not in SETTLEMENT_CODES
            )
            rows.append(
                (
                    game.game_id,
                    audit.record.hand_no,
                    seat,
                    None if settlement is None else settlement.deltas[seat],
                    None if recorded is None else recorded.deltas[seat],
                    own,
                )
            )
    running, expected = 0, []
    for row in rows:
        running += row[3] or 0
        expected.append((*row, running))
    got = [
        (
            r["game_id"],
            r["hand_no"],
            r["seat"],
            r["delta"],
            r["recorded_delta"],
            r["own_findings"],
            r["running_score"],
        )
        for r in report_rows(db, "player_history", player=player)
    ]
    assert got == expected and got


def test_report_command_formats(db: Path) -> None:
    runner = CliRunner()
    as_json = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    records = json.loads(as_json.output)
    as_csv = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "--format", "csv"])
    lines = as_csv.output.strip().splitlines()
    assert lines[0].split(",")[:6] == [
        "family", "rank", "player_id", "player_name", "hands", "net_score"]
    assert [line.split(",")[2] for line in lines[1:]] == [r["player_id"] for r in records]
    table = runner.invoke(app, ["report", "player_history", "--db", str(db), "-p", "player=ana"])
    assert table.exit_code == 0 and "running_score" in table.output
    listing = runner.invoke(app, ["report", "--list"])
    assert listing.exit_code == 0
    assert [
        line.split()[0] for line in listing.output.strip().splitlines()
    ] == report_names()
    sql = runner.invoke(
        app, ["sql", "SELECT count(*) AS n FROM games", "--db", str(db), "-f", "csv"]
    )
    assert sql.exit_code == 0 and sql.output.splitlines()[0] == "n"
    bad = runner.invoke(app, ["report", "player_history", "--db", str(db)])
    assert bad.exit_code == 2 and "--param player=VALUE" in bad.output
