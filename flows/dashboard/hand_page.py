"""A hand's audit page: its facts, seats, tiles, ledger by reason, findings and the
step-by-step replay (:func:`hand_context`, :func:`replay_context`), and the job that writes
the site's hand pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from zhuoji.flows.audit.rulesets import resolve_stored
from zhuoji.flows.dashboard.render import Row, Site, group_rows, query
from zhuoji.flows.dashboard.replay_page import (
    HandWhy,
    ReplayData,
    finding_step,
    hand_replay,
    replay_json,
)
from zhuoji.flows.dashboard.tiles import melds_html, tile_html, tiles_html
from zhuoji.flows.dashboard.words import code_chinese, esc, label, label_text, page_text
from zhuoji.flows.text.verdict import explanation_lines, hand_verdict
from zhuoji.flows.warehouse.rows_tiles import parse_discards
from zhuoji.rules.families import UnknownFamilyError, family_named
from zhuoji.rules.glossary import Lang, glossary, render, tile_zh
from zhuoji.rules.marks import Fact, HandMarks, Part
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import Tile, parse_tiles

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "LedgerGroup",
    "SeatTiles",
    "choice_rows",
    "facts_html",
    "hand_context",
    "hand_marks",
    "ledger_groups",
    "moments_context",
    "replay_context",
    "seat_tiles",
    "why_context",
]

# --- hand pages ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerGroup:
    reason: str
    items: tuple[Row, ...]
    per_seat: tuple[int, ...]  # the group's net for each seat
    total: int  # points moved


@dataclass(frozen=True, slots=True)
class SeatTiles:
    concealed: Markup
    melds: Markup
    win_tile: Markup | None
    discards: Markup


_REASON_ORDER = {r: i for i, r in enumerate(glossary().terms["reason"])}
"""The ledger reasons in the glossary's order: each family's reasons in its own order."""


def ledger_groups(items: Sequence[Row], n_players: int) -> list[LedgerGroup]:
    """The ledger grouped by reason (in the order of the glossary's reasons, each family's
    in its settlement's order, unknown names last by name), with
    each seat's net from that reason."""
    grouped = group_rows(items, "reason")
    groups = []
    for reason in sorted(grouped, key=lambda r: (_REASON_ORDER.get(r, len(_REASON_ORDER)), r)):
        rows = grouped[reason]
        per_seat = [0] * n_players
        for r in rows:
            per_seat[int(r["payer_seat"])] -= int(r["amount"])
            per_seat[int(r["payee_seat"])] += int(r["amount"])
        groups.append(
            LedgerGroup(
                reason=reason,
                items=tuple(rows),
                per_seat=tuple(per_seat),
                total=sum(int(r["amount"]) for r in rows),
            )
        )
    return groups


@cache
def _ruleset(ruleset: str, overrides: str | None) -> RulesetBase | None:
    """A game's ruleset as the warehouse stored it, resolved; None when it cannot be."""
    try:
        return resolve_stored(ruleset, overrides or None).resolved
    except ValueError:  # stored text that is no JSON
        return None


def hand_marks(h: Row) -> HandMarks:
    """The marks of the hand's family on its page (``Family.hand_marks``): none for a
    family without them or that the registry does not know."""
    try:
        hook = family_named(str(h["family"])).hand_marks
    except UnknownFamilyError:
        return HandMarks()
    if hook is None:
        return HandMarks()
    return hook(_ruleset(str(h["ruleset"]), h["rule_overrides"]), h)


def _part_html(part: Part, lang: Lang, family: str | None) -> Markup:
    if part.label:
        return label(part.label, lang, family)
    if part.row:
        return tiles_html(part.tiles, small=part.small,
                          chickens=frozenset(part.tiles) if part.marked else frozenset())
    if part.tiles:
        return Markup("").join(tile_html(t, small=part.small, chicken=part.marked)
                               for t in part.tiles)
    return Markup(esc(part.text))


def facts_html(facts: Sequence[Fact], lang: Lang, family: str | None) -> Markup:
    """The lines a family adds to a hand page's facts, one ``<div>`` each."""
    return Markup("\n").join(
        Markup("<div><b>{}</b>: {}</div>").format(
            label(f.label, lang, family),
            Markup("").join(_part_html(p, lang, family) for p in f.parts))
        for f in facts)


def _parse_tile(text: str | None) -> Tile | None:
    if text is None:
        return None
    try:
        return Tile.parse(text)
    except ValueError:
        return None


def seat_tiles(row: Row, marked: frozenset[Tile], family: str | None = None) -> SeatTiles:
    """A ``hand_tiles`` row as tile boxes (the melds' kinds in the family's words; the
    ``marked`` tiles with the gold edge); a self-drawn winning tile is shown apart."""
    try:
        concealed = parse_tiles(str(row["concealed"]))
        discards = parse_discards(str(row["discards"]))
    except ValueError:
        concealed, discards = [], []
    won = _parse_tile(row["win_tile"])
    if won is not None and won in concealed:
        concealed.remove(won)
    return SeatTiles(
        concealed=tiles_html(concealed, chickens=marked),
        melds=melds_html(str(row["melds"]), marked, family),
        win_tile=None if won is None else tile_html(won, chicken=won in marked, won=True),
        discards=tiles_html(discards, small=True, chickens=marked),
    )


def _hand_pages(
    site: Site,
    con: duckdb.DuckDBPyConnection,
    picked: Sequence[tuple[str, int]],
    *,
    has_tiles: bool,
) -> None:
    if not picked:
        return
    params = {"game_ids": [g for g, _ in picked], "hand_nos": [h for _, h in picked]}
    headers = query(con, "dashboard_hand_header", **params)
    seats = group_rows(query(con, "dashboard_hand_seats", **params), "game_id", "hand_no")
    ledger = group_rows(query(con, "dashboard_hand_ledger", **params), "game_id", "hand_no")
    found = group_rows(query(con, "dashboard_hand_findings", **params), "game_id", "hand_no")
    wins = group_rows(query(con, "dashboard_hand_wins", **params), "game_id", "hand_no")
    choices = group_rows(query(con, "dashboard_hand_choices", **params), "game_id", "hand_no")
    tiles = (
        group_rows(query(con, "dashboard_hand_tiles", **params), "game_id", "hand_no")
        if has_tiles
        else {}
    )
    # by log file: a worker then reads each file once for the pages of its batch (the
    # replay's events come from the file); the pages' bytes do not depend on the order
    for h in sorted(headers, key=lambda r: (str(r["path"] or ""), r["game_id"], r["hand_no"])):
        key = (str(h["game_id"]), int(h["hand_no"]))
        site.build(
            site.links.hands[key],
            "hand.html",
            hand_context,
            h,
            seats.get(key, []),
            tiles.get(key, []),
            ledger.get(key, []),
            found.get(key, []),
            wins.get(key, []),
            choices.get(key, []),
        )


def hand_context(
    h: Row,
    seats: Sequence[Row],
    tiles: Sequence[Row],
    ledger: Sequence[Row],
    findings: Sequence[Row],
    wins: Sequence[Row] = (),
    choices: Sequence[Row] = (),
    *,
    lang: Lang = "en",
    replay: ReplayData | None = None,
) -> dict[str, Any]:
    """The hand audit page's context from the hand's rows (run where the page renders),
    in ``lang`` and in the words of its ruleset's family (``family`` in the context).
    ``wins``: the hand's wins in their order (``dashboard_hand_wins``); ``choices``: each
    seat's exchange and declared suit (``dashboard_hand_choices``, a family with them).
    ``replay``: the hand's steps when the caller has them (:func:`replay_context`)."""
    family = h["family"]
    marks = hand_marks(h)
    by_seat = {int(r["seat"]): seat_tiles(r, marks.tiles, family) for r in tiles}
    diffs = [
        None
        if s["delta"] is None or s["recorded_delta"] is None
        else s["recorded_delta"] - s["delta"]
        for s in seats
    ]
    names = {int(s["seat"]): s["player_id"] for s in seats}
    data = replay if replay is not None else _replay_data(h)
    path = h.get("path")
    panel = replay_context(h, findings, marks.tiles, names, lang, family, data)
    last = panel.get("replay_steps")
    return {
        **panel,
        **moments_context(ledger, wins, data, last),
        "choices": choice_rows(choices, lang, family),
        **why_context(data.why, lang, family),
        "family": family,
        # the log file by its name only: the page is sent to the players, and the folder
        # it was audited in is the sender's
        "file_name": None if path is None else PurePosixPath(str(path)).name,
        "title": f"{h['game_id']} #{h['hand_no']} · {label_text('hand_audit', lang, family)}",
        "here": "disputed" if h["disputed"] else "illegal",
        "h": h,
        "seats": seats,
        "names": names,
        "tiles": by_seat,
        "has_tiles": bool(by_seat),
        "groups": ledger_groups(ledger, int(h["n_players"])),
        "diffs": diffs,
        "findings": findings,
        # the family's marks: its lines of facts, its notes on the replay and the tiles
        "hand_facts": facts_html(marks.facts, lang, family),
        "replay_note": marks.replay_note,
        "tiles_note": marks.tiles_note,
    }


def _win_steps(data: ReplayData) -> list[int]:
    """The replay's step after each win event, in event order (the wins' order)."""
    snapshots = data.snapshots
    if snapshots is None:
        return []
    return [step.step for step in snapshots.steps
            if step.event is not None and step.event.get("kind") in _WIN_KINDS]


_WIN_KINDS = frozenset({"win", "self_draw_win"})
"""The kinds of a win's event in a snapshot (:mod:`zhuoji.rules.event_kinds`)."""


def moments_context(
    ledger: Sequence[Row], wins: Sequence[Row], data: ReplayData, last: int | None
) -> dict[str, Any]:
    """When things happened, for the page: each ledger item's replay step (the step after
    the event that moved it, ``ledger.event_index``; the last step for an item of the hand
    as a whole) in ``item_steps``, the items placed at an event in ``placed_items`` (the
    replay shows them at their step: a kong's payment when it is made), and the wins in
    their order with the step of each (``wins``, each row with ``step``: None without a
    replay, and its tile's face ``tile_face``; ``several_wins`` when there are more than
    one)."""
    item_steps: dict[Any, int] = {}
    placed: list[Row] = []
    for item in ledger:
        index = item.get("event_index")
        if last is not None:
            item_steps[item["item_no"]] = finding_step(index, last)
        if index is not None:
            placed.append(item)
    steps = _win_steps(data) if last is not None else []
    shown = [{**w, "step": steps[k] if k < len(steps) else None,
              "tile_face": _tiles_of(w.get("tile"))}
             for k, w in enumerate(sorted(wins, key=lambda r: int(r["win_no"])))]
    return {
        "item_steps": item_steps,
        "placed_items": placed if last is not None else [],
        "item_events": any(item.get("event_index") is not None for item in ledger),
        "wins": shown,
        "several_wins": len(shown) > 1,
    }


def _tiles_of(text: Any) -> Markup | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return tiles_html(parse_discards(text), small=True)
    except ValueError:
        return Markup(esc(text))


def choice_rows(choices: Sequence[Row], lang: Lang, family: str | None) -> list[Row]:
    """Each seat's exchange and declared suit as the page shows them (empty when no seat
    exchanged or declared: a family without those mechanics): the suit's name, the tiles
    passed and received as tile boxes."""
    if not any(c.get("declared_suit") is not None or c.get("passed") is not None
               for c in choices):
        return []
    out = []
    for c in choices:
        suit = c.get("declared_suit")
        out.append({
            **c,
            "suit_name": (None if suit is None else label(f"suit_{suit}", lang, family)
                          if suit in ("m", "p", "s") else Markup(esc(str(suit)))),
            "passed_tiles": _tiles_of(c.get("passed")),
            "received_tiles": _tiles_of(c.get("received")),
        })
    return out


def _tile_texts(data: Any, into: set[str]) -> None:
    """Every tile text in a snapshot's data (the values of ``tile``, ``tiles``, ``concealed``)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "tile" and isinstance(value, str):
                into.add(value)
            elif key in ("tiles", "concealed") and isinstance(value, list):
                into.update(v for v in value if isinstance(v, str))
            else:
                _tile_texts(value, into)
    elif isinstance(data, list):
        for value in data:
            _tile_texts(value, into)


def _tile_face(text: str, *, marked: bool) -> str:
    tile = Tile.parse(text)
    html = str(tile_html(tile, chicken=marked))
    return html.replace('<span class="tile', f'<span data-t="{esc(text)}" class="tile', 1)


_NO_PATH = "the hand's log file is not known"


def _replay_data(h: Row) -> ReplayData:
    """The hand's replay and audit, read again from its log file
    (:func:`zhuoji.flows.dashboard.replay_page.hand_replay`), or why there are none."""
    path = h.get("path")
    if path is None:
        return ReplayData(None, _NO_PATH)
    return hand_replay(str(path), h.get("file_sha256"), str(h["game_id"]), int(h["hand_no"]))


def why_context(why: HandWhy | None, lang: Lang = "en",
                family: str | None = None) -> dict[str, Any]:
    """What settles a dispute about the hand, in ``lang`` and in the family's words, as
    ``zhuoji audit --hand N`` says it (:mod:`zhuoji.flows.text.verdict`): the
    settlement's explanation, each seat followed by its player's name (``explanation``:
    its lines, None without a settlement), and each ledger item the record has wrong with
    the explanation's lines that say why (``verdict``)."""
    if why is None or why.audit.settlement is None:
        return {"explanation": None, "verdict": None}
    verdict = hand_verdict(why.audit, why.names, lang, family)
    return {
        "explanation": explanation_lines(why.audit.settlement, why.names, lang, family),
        "verdict": verdict if verdict else None,
    }


def replay_context(
    h: Row,
    findings: Sequence[Row],
    marked: frozenset[Tile],
    names: Mapping[int, Any],
    lang: Lang = "en",
    family: str | None = None,
    replay: ReplayData | None = None,
) -> dict[str, Any]:
    """The replay panel of a hand page: the data its script draws (its sentences and
    labels in the family's words), or why there is none. Its steps are ``replay`` when
    given (the audit that made the page read them), else they are read again from the
    hand's log file (:func:`zhuoji.flows.dashboard.replay_page.hand_replay`)."""
    data = replay if replay is not None else _replay_data(h)
    snapshots = data.snapshots
    if snapshots is None:
        missing = (page_text(data.missing, lang, family) if data.missing == _NO_PATH
                   else render(data.missing or "", lang, family))
        return {"replay": None, "replay_missing": missing, "finding_steps": {}}
    if not snapshots.steps:
        return {"replay": None,
                "replay_missing": page_text("the deal is illegal, so no table to show", lang,
                                            family),
                "finding_steps": {}}
    texts: set[str] = set()
    for step in snapshots.steps:
        _tile_texts(step.table, texts)
        _tile_texts(step.event, texts)
    _tile_texts(snapshots.stopped_at, texts)
    words = {key: pair[lang == "zh"]
             for key, pair in glossary(family).terms["replay"].items()}
    if lang == "zh":  # the tiles' and the codes' Chinese names, for the panel's sentences
        words.update({f"tile:{t}": tile_zh(t, family) for t in sorted(texts)})
        words.update({f"code:{f['code']}": code_chinese(str(f["code"]), family)
                      for f in findings})
    n = int(h["n_players"])
    return {
        "replay": Markup(
            replay_json(
                snapshots,
                findings=[{**f, "message": render(str(f["message"]), lang, family)}
                          if f.get("message") else f for f in findings],
                tiles={t: _tile_face(t, marked=False) for t in texts},
                marked_tiles={
                    t: _tile_face(t, marked=True) for t in texts if Tile.parse(t) in marked
                },
                labels=words,
                names=[str(names.get(seat, "")) for seat in range(n)],
            )
        ),
        "replay_steps": len(snapshots.steps) - 1,
        "replay_missing": None,
        "finding_steps": {
            f["item_no"]: finding_step(f["event_index"], len(snapshots.steps) - 1)
            for f in findings
            if f["event_index"] is not None
        },
    }
