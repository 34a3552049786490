"""``zhuoji audit FILE --hand N --html OUT.html``: one hand's audit page, to send.

The file is audited exactly as ``zhuoji ingest`` audits it, into a warehouse in a
temporary folder, and the dashboard's hand page is rendered from it on its own: the same
facts, seats, tiles, ledger, findings and step-by-step replay, with no link to pages that
are not there. The page is self-contained (styles, script, data inline) and the same
log gives the same bytes.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from zhuoji.flows.audit.bridge import ruleset_tiles
from zhuoji.flows.dashboard.hand_page import hand_context
from zhuoji.flows.dashboard.render import DashboardError, Links, query, render_standalone
from zhuoji.flows.ingest.load import load_outcomes
from zhuoji.flows.ingest.worker import process_file
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.read import generate_fast_games
from zhuoji.rules.glossary import Lang

__all__ = ["HandReportError", "HandReportSummary", "pick_hand", "write_hand_report"]

_SHOWN = 20
"""Game ids and hand numbers named at most in an error."""


class HandReportError(DashboardError):
    """The hand asked for is not in the file, or the file cannot give it; says what exists."""


@dataclass(frozen=True, slots=True)
class HandReportSummary:
    out: Path
    game_id: str
    hand_no: int
    bytes: int
    findings: bool  # the hand has an illegal move or a settlement finding


def _listed(values: list[str]) -> str:
    shown = ", ".join(values[:_SHOWN])
    return shown + (f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else "")


def pick_hand(path: str, hand_no: int, game_id: str | None) -> tuple[str, int]:
    """The game (and hand) of ``path`` the report is about; a clear error naming what the
    file holds when the choice is missing or wrong."""
    games: dict[str, list[int]] = {}
    for item in generate_fast_games(path, tiles=ruleset_tiles):
        if isinstance(item, MalformedLogError):
            raise HandReportError(f"{path}: {item}")
        games[item.game_id] = [h.hand_no for h in item.hands]
    if not games:
        raise HandReportError(f"{path}: the file holds no game")
    if game_id is None:
        if len(games) > 1:
            raise HandReportError(
                f"{path} holds {len(games)} games; choose one with --game: "
                f"{_listed(sorted(games))}"
            )
        (game_id,) = games
    elif game_id not in games:
        raise HandReportError(
            f"{path} holds no game {game_id!r}; its games: {_listed(sorted(games))}"
        )
    hands = games[game_id]
    if hand_no not in hands:
        raise HandReportError(
            f"game {game_id!r} of {path} has no hand {hand_no}; its hands: "
            f"{_listed([str(h) for h in sorted(hands)])}"
        )
    return game_id, hand_no


def write_hand_report(
    path: str | Path,
    hand_no: int,
    out: str | Path,
    *,
    game_id: str | None = None,
    lang: Lang = "en",
    force: bool = False,
) -> HandReportSummary:
    """Audit ``path`` and write the page of one of its hands to ``out``, in ``lang``.

    ``out`` is refused at once (:func:`zhuoji.flows.cli.outputs.output_target`, before the audit)
    when it is the log itself, anything but a regular file or a new path, or an existing
    file without ``force``; its folder is created when missing. The page is written whole
    or not at all (:func:`zhuoji.flows.cli.outputs.write_whole`)."""
    from zhuoji.flows.cli.outputs import output_target, write_whole

    given = Path(out)

    def check() -> Path:
        return output_target(
            given, command="audit --html", option="--html",
            inputs=[("the log file", [Path(path)])], force=force, make_folder=True,
        )

    target = check()
    source = Path(path).resolve().as_posix()
    game, hand = pick_hand(source, hand_no, game_id)
    with tempfile.TemporaryDirectory(prefix="zhuoji-hand-") as folder:
        db = Path(folder) / "hand.duckdb"
        con = warehouse.open_writer(db, threads=1)
        try:
            run_id = warehouse.begin_run(
                con, started_at=datetime(1970, 1, 1), workers=1, runner="audit", command="audit"
            )
            outcome = process_file(source, None, (Path(folder) / "stage").as_posix())
            (loaded,) = load_outcomes(con, [outcome], run_id)
            if loaded.status.value != "loaded":
                reasons = "; ".join(e.sentence for e in loaded.errors)
                raise HandReportError(f"{source} cannot be audited: {reasons}")
            params = {"game_ids": [game], "hand_nos": [hand]}
            (header,) = query(con, "dashboard_hand_header", **params)
            context = hand_context(
                header,
                query(con, "dashboard_hand_seats", **params),
                query(con, "dashboard_hand_tiles", **params),
                query(con, "dashboard_hand_ledger", **params),
                query(con, "dashboard_hand_findings", **params),
                lang=lang,
            )
        finally:
            con.close()
    data = render_standalone(
        "hand.html", Links(players={}, hands={}, site=False), context, lang
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    write_whole(target, given, lambda _partial, f: f.write(data), check)
    findings = bool(header["violations"]) or bool(header["disputed"]) or bool(header["fatal"])
    return HandReportSummary(given, game, hand, len(data), findings)
