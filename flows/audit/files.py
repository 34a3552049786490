"""Audit log files: parse, replay, settle and check every hand; results as JSON objects.

Plain functions (no Prefect): :func:`generate_file_audits` yields, for one file, a
:class:`GameAudit` per game (or a :class:`FileFault` per game or file that cannot be read),
through the loop every reader of logs shares (:mod:`zhuoji.flows.audit.service`);
:func:`hand_json`, :func:`fault_json` and :func:`game_error_json` give the objects that
``zhuoji audit --json`` prints one per line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

from zhuoji.flows.audit.service import (
    AuditOptions,
    FileFault,
    GameAudit,
    generate_audits,
    player_names,
)
from zhuoji.rules.audit import HandAudit
from zhuoji.rules.facts import WallFacts
from zhuoji.rules.families import family_of
from zhuoji.rules.glossary import Lang, render
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.referee import JSON_END, JSON_LEDGER, JSON_OUTCOME, JSON_WINNER
from zhuoji.rules.replay import HandReplay
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import TILE_TEXT

__all__ = [
    "FileFault",
    "GameAudit",
    "fault_json",
    "format_json_line",
    "game_error_json",
    "generate_file_audits",
    "hand_json",
    "player_names",
    "wall_json",
]


def generate_file_audits(
    path: str | os.PathLike[str], *, game_id: str | None = None, hand_no: int | None = None
) -> Iterator[GameAudit | FileFault]:
    """Every game of one log file, audited as ``zhuoji audit`` shows it (the settlements
    explained, every game's ruleset as the log gives it); ``game_id`` and ``hand_no`` keep
    only the games and hands they name (a game is still yielded when no hand of it
    matches). The loop is :func:`zhuoji.flows.audit.service.generate_audits`."""
    return generate_audits(path, AuditOptions(game_id=game_id, hand_no=hand_no))


def fault_json(fault: FileFault) -> dict[str, Any]:
    """``{"file": ..., "error": {...}}`` for a malformed file or game."""
    err = fault.error
    error: dict[str, Any] = {"message": err.reason, "sentence": str(err)}
    for key in ("line", "column", "json_path", "game_id"):
        value = getattr(err, key)
        if value is not None:
            error[key] = value
    return {"file": fault.path, "error": error}


def game_error_json(audit: GameAudit) -> dict[str, Any]:
    """``{"file": ..., "game_id": ..., "error": {...}}`` for a game whose ruleset cannot be
    resolved (an unknown preset, a bad override)."""
    return {
        "file": audit.path,
        "game_id": audit.game.game_id,
        "ruleset": audit.game.ruleset,
        "error": {"message": audit.error, "json_path": "ruleset"},
    }


def hand_json(audit: GameAudit, hand: HandAudit, lang: Lang = "en") -> dict[str, Any]:
    """The JSON object of one audited hand (see ``zhuoji audit --help``), with the keys of
    the ruleset's family where it adds them (``Family.json_keys``:
    :mod:`zhuoji.rules.referee`); in Chinese (``lang="zh"``) each finding also has
    ``message_zh`` and each ledger item ``detail_zh`` (in the words of the ruleset's
    family), the English fields staying as they are."""
    record, replay, settlement = hand.record, hand.replay, hand.settlement
    assert audit.ruleset is not None
    family = family_of(audit.ruleset)
    own = family.json_keys or _no_keys
    values = {} if settlement is None else {w.seat: w for w in settlement.wins}
    winners = []
    for index, win in enumerate(replay.winners):
        value = values.get(win.seat)
        winners.append({
            "seat": win.seat,
            "tile": TILE_TEXT[win.tile],
            "from": win.from_seat,
            "self_drawn": win.self_drawn,
            "patterns": [str(p) for p in win.patterns],
            "scored": None if value is None else list(value.patterns),
            "value": None if value is None else value.value,
            **own(JSON_WINNER, hand, index),
        })
    recorded = record.result
    out: dict[str, Any] = {
        "file": audit.path,
        "game_id": audit.game.game_id,
        "hand_no": record.hand_no,
        "ruleset": audit.ruleset.name,
        "base_stake": record.base_stake,
        "dealer": record.dealer,
        "dealer_streak": record.dealer_streak,
        "outcome": replay.outcome.value,
        **own(JSON_OUTCOME, hand),
        "violations": [
            {
                "code": v.code.value,
                "event_index": v.event_index,
                "seat": v.seat,
                "message": v.message,
                "fatal": v.fatal,
            }
            for v in hand.findings
        ],
        "winners": winners,
        "next_dealer": None if settlement is None else settlement.next_dealer,
        "recorded_next_dealer": None if recorded is None else recorded.next_dealer,
        "deltas": None if settlement is None else list(settlement.deltas),
        "recorded_deltas": None if recorded is None else list(recorded.deltas),
        "ledger": None if settlement is None else [
            {
                "payer": i.payer,
                "payee": i.payee,
                "amount": i.amount,
                "reason": str(i.reason),
                "detail": i.detail,
            }
            for i in settlement.items
        ],
        **own(JSON_LEDGER, hand),
        **({} if replay.wall_facts is None else {"wall": wall_json(replay.wall_facts)}),
    }
    add_mechanics_json(out, audit.ruleset, replay)
    out.update(own(JSON_END, hand))
    if lang == "zh":
        words = family.name
        rows: list[dict[str, Any]] = out["violations"]
        for v, row in zip(hand.findings, rows, strict=True):
            row["message_zh"] = render(v.message, family=words)
        if settlement is not None:
            items: list[dict[str, Any]] = out["ledger"]
            for i, row in zip(settlement.items, items, strict=True):
                row["detail_zh"] = render(i.detail, family=words)
    return out


def wall_json(facts: WallFacts) -> dict[str, Any]:
    """The wall mechanics' record of a hand (dice after kongs, the last tile's offers, the
    birds and the seat each counts to); only in the hands of a family that plays them."""
    return {
        "rolls": [
            {"seat": r.seat, "dice": list(r.dice), "event_index": r.event_index,
             "kong_index": r.kong_index, "stack": r.stack,
             "tile": None if r.tile is None else TILE_TEXT[r.tile]}
            for r in facts.rolls
        ],
        "locked": list(facts.locked),
        "seabed_offers": [
            {"seat": o.seat, "take": o.take, "event_index": o.event_index}
            for o in facts.offers
        ],
        "seabed_taker": facts.seabed_taker,
        "seabed_tile": None if facts.seabed_tile is None else TILE_TEXT[facts.seabed_tile],
        "seabed_replaced_by": facts.seabed_replaced_by,
        "seabed_win": facts.seabed_win,
        "birds": [
            {"tile": TILE_TEXT[tile], "seat": seat}
            for tile, seat in zip(facts.birds, facts.bird_seats, strict=True)
        ],
    }


def _no_keys(place: str, hand: HandAudit, winner: int | None = None) -> dict[str, Any]:
    return {}


def add_mechanics_json(out: dict[str, Any], ruleset: RulesetBase, replay: HandReplay) -> None:
    """The facts of the optional mechanics the ruleset plays (the exchange 换三张, the
    declared suit 定缺, play after a win, state carried from hand to hand), added to a
    hand's JSON object (``winners`` already in it) only then: the object of a hand that
    plays none is as it was."""
    mech = mechanics_of(ruleset)
    if mech.play_after_win:
        for entry, win in zip(out["winners"], replay.winners, strict=True):
            entry["event_index"] = win.event_index
    if mech.exchange:
        out["exchanges"] = [
            {"seat": x.seat, "tiles": [TILE_TEXT[t] for t in x.tiles], "to": x.to,
             "event_index": x.event_index}
            for x in replay.exchanges
        ]
    if mech.declare_suit:
        out["declared_suits"] = [None if s is None else s.value for s in replay.declared_suits]
    if mech.carry:
        out["carry"] = None if replay.carry is None else replay.carry.as_dict()


def format_json_line(obj: dict[str, Any]) -> str:
    """One JSON object on one line (UTF-8 text, keys in the order given)."""
    return orjson.dumps(obj).decode()
