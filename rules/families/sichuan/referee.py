"""What the Sichuan family adds to the audit's views of a hand (:mod:`zhuoji.rules.referee`).

In the referee's text (:func:`text_lines`): the declared suits (定缺) and the exchange (换三
张) in the full view, and, for each seat whose recorded amount is disputed (its recorded
delta differs from the recomputed one, or a recorded item of it does), which kong or win
(or the wall's end) moved which amount of it: each event with the seat's net, then each of
its ledger items (the reason and its detail: the kong, or the win's 番 itemised and capped).
In the hand's JSON object (:func:`json_keys`; the declared suits and the exchanges are the
core's mechanics' keys): each winner's ``fan`` (its patterns, their sum, the 番 counted and
the cap), and after the ledger the event of each ledger item (``item_events``) and the disputed
seats with the same moves (``disputed``).

The settlement's items carry the event that moved them (``Settlement.item_events``) and each
win's itemised 番 (``Settlement.fans``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.families.sichuan.settlement import Settlement
from zhuoji.rules.glossary import render, text, tiles_zh
from zhuoji.rules.ledger import LedgerItem, generate_item_differences
from zhuoji.rules.referee import (
    JSON_LEDGER,
    JSON_WINNER,
    TEXT_SETTLEMENT,
    TEXT_TABLE,
    HandText,
)
from zhuoji.rules.tiles import TILE_TEXT, format_tiles

__all__ = ["Move", "disputed_seats", "fan_of", "json_keys", "moves_of", "text_lines"]

WALL_END = "wall_end"
"""What moved an item that is neither a kong's nor a win's: the checks at the wall's end."""


def _settled(hand: HandAudit) -> Settlement | None:
    settlement = hand.settlement
    return settlement if isinstance(settlement, Settlement) else None


# --- what moved an amount ----------------------------------------------------------------

class Move:
    """One ledger item as it moved one seat's amount: the event, what the event was
    (``kong``, ``win`` or ``wall_end``), the item, the amount signed for the seat."""

    __slots__ = ("event", "item", "kind", "signed")

    def __init__(self, event: int, kind: str, item: LedgerItem, signed: int) -> None:
        self.event = event
        self.kind = kind
        self.item = item
        self.signed = signed


def _event_kinds(hand: HandAudit) -> dict[int, str]:
    kinds: dict[int, str] = {}
    for seat in hand.replay.seats:
        for kong in seat.kongs:
            kinds[kong.event_index] = "kong"
    for win in hand.replay.winners:
        kinds[win.event_index] = "win"
    return kinds


def moves_of(hand: HandAudit, seat: int) -> list[Move]:
    """The ledger items that moved ``seat``'s amount, in event order, each with its event."""
    settlement = _settled(hand)
    if settlement is None:
        return []
    kinds = _event_kinds(hand)
    events = settlement.item_events
    out = []
    for index, item in enumerate(settlement.items):
        if seat not in (item.payer, item.payee):
            continue
        event = events[index] if index < len(events) else -1
        signed = item.amount if item.payee == seat else -item.amount
        out.append(Move(event, kinds.get(event, WALL_END), item, signed))
    return out


def disputed_seats(hand: HandAudit) -> list[tuple[int, int | None, int]]:
    """The seats whose recorded amount is disputed, each with its recorded delta (None when
    the record has none for it) and the recomputed one: a recorded delta that differs, or a
    recorded item of the seat that does (payer or payee); none when the hand has no record
    or no settlement."""
    settlement, recorded = _settled(hand), hand.record.result
    if settlement is None or recorded is None:
        return []
    ours = settlement.deltas
    theirs = recorded.deltas
    seats = {s for s in range(len(ours)) if s >= len(theirs) or theirs[s] != ours[s]}
    for (payer, payee, _), _a, _b in generate_item_differences(settlement, recorded):
        seats.update(s for s in (payer, payee) if 0 <= s < len(ours))
    return [(s, theirs[s] if s < len(theirs) else None, ours[s]) for s in sorted(seats)]


# --- a win's 番, as its ledger items write it ----------------------------------------------

def fan_of(hand: HandAudit, winner: int) -> dict[str, Any] | None:
    """The itemised 番 of the hand's ``winner``-th win: ``{"items": [...], "total",
    "counted", "cap", "capped"}`` (``cap`` the ruleset's, None: no cap)."""
    settlement = _settled(hand)
    if settlement is None or not 0 <= winner < len(settlement.fans):
        return None
    fan = settlement.fans[winner]
    return {"items": [{"pattern": item.pattern.value, "count": item.count, "fan": item.fan}
                      for item in fan.items],
            "total": fan.total, "counted": fan.counted, "cap": fan.cap, "capped": fan.capped}


# --- the referee's text ------------------------------------------------------------------

def _what(hand: HandAudit, event: int, view: HandText) -> str:
    """The event that moved an amount, in words."""
    lang, words = view.lang, view.words
    for win in hand.replay.winners:
        if win.event_index == event:
            tile = view.tile(TILE_TEXT[win.tile])
            if win.self_drawn:
                return text("{seat}'s win on {tile} by self-draw", lang, words,
                            seat=view.seat(win.seat), tile=tile)
            if win.robbed_kong:
                return text("{seat}'s win on {tile} robbing {other}'s kong", lang, words,
                            seat=view.seat(win.seat), tile=tile, other=view.seat(win.from_seat))
            return text("{seat}'s win on {tile} from {other}", lang, words,
                        seat=view.seat(win.seat), tile=tile, other=view.seat(win.from_seat))
    for seat in hand.replay.seats:
        for kong in seat.kongs:
            if kong.event_index == event:
                return text("{seat}'s kong ({kind}) of {tile}", lang, words,
                            seat=view.seat(kong.seat), kind=view.term("kong", kong.kind.value),
                            tile=view.tile(TILE_TEXT[kong.tile]))
    return text("the checks at the wall's end", lang, words)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def dispute_lines(view: HandText) -> list[str]:
    """For each disputed seat, which kong or win moved which amount of it."""
    hand = view.hand
    disputed = disputed_seats(hand)
    if not disputed:
        return []
    lang, words = view.lang, view.words
    out = [text("what moved each disputed seat's amount:", lang, words)]
    for seat, recorded, ours in disputed:
        out.append(text("  {seat}: recorded {recorded}, recomputed {ours}", lang, words,
                        seat=view.seat(seat),
                        recorded="-" if recorded is None else _signed(recorded),
                        ours=_signed(ours)))
        for event, grouped in groupby(moves_of(hand, seat), key=lambda m: m.event):
            group = list(grouped)
            out.append(text("    event {event}, {what}: {amount}", lang, words, event=event,
                            what=_what(hand, event, view),
                            amount=_signed(sum(m.signed for m in group))))
            for m in group:
                item = m.item
                incoming = m.signed > 0
                out.append(text(
                    "      {amount} from {other}: {reason} ({detail})" if incoming else
                    "      {amount} to {other}: {reason} ({detail})", lang, words,
                    amount=_signed(m.signed),
                    other=view.seat(item.payer if incoming else item.payee),
                    reason=view.term("reason", str(item.reason)),
                    detail=render(item.detail, lang, words)))
    return out


def _setup_lines(view: HandText) -> list[str]:
    """The declared suits and the exchange (the full view)."""
    replay = view.hand.replay
    lang, words = view.lang, view.words
    space = "" if lang == "zh" else " "
    out = []
    if replay.exchanges:
        out.append(text("exchange (换三张): {passes}", lang, words, passes=view.comma.join(
            text("{seat} passes {tiles} to {other}", lang, words, seat=view.seat(x.seat),
                 tiles=_tiles(x.tiles, lang, words), other=view.seat(x.to))
            for x in replay.exchanges)))
    suits = [(seat, suit) for seat, suit in enumerate(replay.declared_suits) if suit is not None]
    if suits:
        out.append(text("declared suits (定缺): {suits}", lang, words, suits=view.comma.join(
            view.seat(seat) + space + view.term("tile", suit.value) for seat, suit in suits)))
    return out


def _tiles(tiles: Sequence[int], lang: str, words: str) -> str:
    compact = format_tiles(tuple(tiles))
    return tiles_zh(compact, words) if lang == "zh" else compact


def text_lines(place: str, view: HandText) -> list[str]:
    """The exchange and the declared suits after the winners (the full view); before the
    ledger, what moved each disputed seat's amount."""
    if place == TEXT_TABLE and view.full:
        return _setup_lines(view)
    if place == TEXT_SETTLEMENT:
        return dispute_lines(view)
    return []


# --- the hand's JSON object --------------------------------------------------------------

def _move_json(m: Move) -> dict[str, Any]:
    item = m.item
    return {"event": m.event, "by": m.kind, "payer": item.payer, "payee": item.payee,
            "amount": m.signed, "reason": str(item.reason), "detail": str(item.detail)}


def json_keys(place: str, hand: HandAudit, winner: int | None = None) -> dict[str, Any]:
    """Each winner's ``fan``; ``item_events`` and ``disputed`` after the ledger."""
    if place == JSON_WINNER and winner is not None:
        return {"fan": fan_of(hand, winner)}
    if place == JSON_LEDGER:
        settlement = _settled(hand)
        if settlement is None:
            return {"item_events": None, "disputed": []}
        return {
            "item_events": list(settlement.item_events),
            "disputed": [
                {"seat": seat, "recorded": recorded, "recomputed": ours,
                 "moves": [_move_json(m) for m in moves_of(hand, seat)]}
                for seat, recorded, ours in disputed_seats(hand)
            ],
        }
    return {}
