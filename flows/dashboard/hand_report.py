"""``zhuoji audit FILE --hand N --html OUT.html``: one hand's audit page, to send.

The file is read and audited once, exactly as ``zhuoji ingest`` audits it, with the
settlement's explanation (:data:`zhuoji.flows.dashboard.replay_page.PAGE_AUDIT`, through
:func:`zhuoji.flows.audit.service.generate_audits`), the hand's table after each event
read in that audit's replay. The page is the dashboard's hand page on its own, its context
built from that one result: the rows the warehouse would hold for the hand
(:class:`zhuoji.flows.warehouse.rows.RowBuffer`, in memory, never written) and the replay's
steps; no database, no second read or replay of the file. The same facts, seats, tiles,
ledger, findings, explanation and step-by-step replay as the dashboard's page, with no
link to pages that are not there; the log is named by its file name only. The page is
self-contained (styles, script, data inline) and the same log gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zhuoji.flows.audit.service import FileFault, GameAudit, generate_audits
from zhuoji.flows.dashboard.hand_page import hand_context
from zhuoji.flows.dashboard.render import DashboardError, Links, Row, render_standalone
from zhuoji.flows.dashboard.replay_page import PAGE_AUDIT, ReplayData, hand_why
from zhuoji.flows.ingest.discover import ContentDigest
from zhuoji.flows.ingest.worker import game_error
from zhuoji.flows.warehouse.rows import RowBuffer
from zhuoji.parsers.read import parse_encoding
from zhuoji.rules.glossary import Lang
from zhuoji.rules.messages import Message

__all__ = ["HandReport", "HandReportError", "render_hand_report"]

_SHOWN = 20
"""Game ids and hand numbers named at most in an error."""


class HandReportError(DashboardError):
    """The hand asked for is not in the file, or the file cannot give it; says what exists."""


@dataclass(frozen=True, slots=True)
class HandReport:
    """One hand's page, to write."""

    data: bytes  # the page (UTF-8 HTML)
    game_id: str
    hand_no: int
    findings: bool  # the hand has an illegal move or a settlement finding


def _listed(values: list[str]) -> str:
    shown = ", ".join(values[:_SHOWN])
    if len(values) > _SHOWN:
        return Message("{shown:any} and {n:n} more", shown, len(values) - _SHOWN)
    return shown


def _pick(
    path: str, games: dict[str, list[int]], hand_no: int, game_id: str | None
) -> tuple[str, int]:
    """The game (and hand) of ``path`` the report is about; a clear error naming what the
    file holds when the choice is missing or wrong."""
    if not games:
        raise HandReportError(Message("{path:any}: the file holds no game", path))
    if game_id is None:
        if len(games) > 1:
            raise HandReportError(Message(
                "{path:any} holds {n:n} games; choose one with --game: {ids:any}",
                path, len(games), _listed(sorted(games)),
            ))
        (game_id,) = games
    elif game_id not in games:
        raise HandReportError(Message(
            "{path:any} holds no game {g:any}; its games: {ids:any}", path, repr(game_id),
            _listed(sorted(games)),
        ))
    hands = games[game_id]
    if hand_no not in hands:
        raise HandReportError(Message(
            "game {g:any} of {path:any} has no hand {n:n}; its hands: {ids:any}",
            repr(game_id), path, hand_no, _listed([str(h) for h in sorted(hands)]),
        ))
    return game_id, hand_no


def _audit(
    source: str, hand_no: int, game_id: str | None
) -> tuple[GameAudit, int, str]:
    """Read and audit ``source`` once, as the ingest does: the game audited (with the
    steps of the hand asked for), the hand's number and the file's SHA-256. A malformed
    game, a wrong choice of game or hand, then a game the ingest would quarantine the file
    for, in that order, are a :class:`HandReportError`."""
    parse_encoding(source)  # a name no reader takes: its ValueError, before anything is read
    content = ContentDigest()
    # every game read to the end, to name them all when the choice is wrong
    options = replace(PAGE_AUDIT, after_fault=True, replay_steps=(game_id, hand_no))
    games: dict[str, list[int]] = {}
    audited: dict[str, GameAudit] = {}
    fault: GameAudit | None = None
    for item in generate_audits(source, options, sink=content):
        if isinstance(item, FileFault):
            raise HandReportError(Message("{path:any}: {reason:said}", source,
                                          item.error.args[0]))
        games[item.game.game_id] = [h.hand_no for h in item.game.hands]
        audited[item.game.game_id] = item
        if item.error is not None and fault is None:
            fault = item
    game, hand = _pick(source, games, hand_no, game_id)
    if fault is not None:
        raise HandReportError(Message("{path:any} cannot be audited: {why:said}", source,
                                      game_error(fault).sentence))
    return audited[game], hand, content.hexdigest()


HandRows = tuple[Row, list[Row], list[Row], list[Row], list[Row], list[Row], list[Row]]
"""A hand's header, seats, tiles, ledger, findings, wins and seat choices
(:func:`hand_context`'s rows)."""


def _rows(item: GameAudit, hand_no: int, sha256: str) -> HandRows:
    """The hand's rows as the dashboard's reports give them from a warehouse
    (``dashboard_hand_header``, ``_seats``, ``_tiles``, ``_ledger``, ``_findings``,
    ``_wins``, ``_choices``): the
    rows the ingest's row buffer makes of the game, kept in memory."""
    assert item.resolved is not None and item.resolved.family is not None
    buffer = RowBuffer(Path(item.path))  # nothing is flushed: no shard is ever written
    buffer.add_game(item.game, item.path, item.hands, chickens=item.resolved.family.chickens)

    def rows(table: str) -> list[Row]:
        out: list[Row] = buffer.arrow(table).to_pylist()
        return out if table in ("games", "players") else [
            r for r in out if r["hand_no"] == hand_no
        ]

    (game,) = rows("games")
    (hand,) = rows("hands")
    header: Row = {
        "game_id": hand["game_id"],
        "hand_no": hand["hand_no"],
        "path": game["path"],
        "file_sha256": sha256,
        "ruleset": game["ruleset"],
        "family": item.resolved.family.name,
        "rule_overrides": game["rule_overrides"],
        "base_stake": game["base_stake"],
        "started_at": game["started_at"],
        "n_players": game["n_players"],
        **{k: v for k, v in hand.items() if k not in ("game_id", "hand_no")},
    }
    names = {p["seat"]: p["name"] for p in rows("players")}
    seats = []
    for row in rows("hand_players"):
        seat: dict[str, Any] = {}
        for key, value in row.items():
            seat[key] = value
            if key == "player_id":
                seat["name"] = names.get(row["seat"])
        seats.append(seat)
    return (header, seats, rows("hand_tiles"), rows("ledger"), rows("violations"),
            rows("wins"), rows("seat_choices"))


def render_hand_report(
    path: str | Path, hand_no: int, *, game_id: str | None = None, lang: Lang = "en"
) -> HandReport:
    """Audit ``path`` once and render the page of one of its hands, in ``lang``; a
    :class:`HandReportError` when the file cannot give it. (Writing it is the command's:
    ``zhuoji audit --html``.)"""
    source = Path(path).resolve().as_posix()
    item, hand, sha256 = _audit(source, hand_no, game_id)
    header, seats, tiles, ledger, findings, wins, choices = _rows(item, hand, sha256)
    context = hand_context(header, seats, tiles, ledger, findings, wins, choices, lang=lang,
                          replay=ReplayData(item.steps, None, hand_why(item, hand)))
    data = render_standalone(
        "hand.html", Links(players={}, hands={}, site=False), context, lang
    )
    found = bool(header["violations"]) or bool(header["disputed"]) or bool(header["fatal"])
    return HandReport(data, item.game.game_id, hand, found)
