"""What the Guizhou family adds to the audit's views of a hand (:mod:`zhuoji.rules.referee`):
the flipped tile (翻鸡) and the chickens its settlement counted, in the referee's text
(:func:`text_lines`) and in the hand's JSON object with each winner's penalty (包牌,
:func:`json_keys`)."""

from __future__ import annotations

from typing import Any

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.families.guizhou.settlement import ChickenCount, Settlement
from zhuoji.rules.glossary import text, zh
from zhuoji.rules.referee import (
    JSON_LEDGER,
    JSON_OUTCOME,
    JSON_WINNER,
    TEXT_SETTLEMENT,
    TEXT_TILES,
    HandText,
)
from zhuoji.rules.tiles import TILE_TEXT

__all__ = ["format_chickens", "json_keys", "text_lines"]


def format_chickens(chickens: tuple[ChickenCount, ...], view: HandText) -> list[str]:
    """The chickens a settlement counted, one line each."""
    lang, words = view.lang, view.words
    if not chickens:
        return [text("  none scored", lang, words)]
    return [
        text("  {seat}: {count} x {tile} {kind}", lang, words, seat=view.seat(c.seat),
             count=c.count, tile=view.tile(c.tile),
             kind=zh("chicken", c.kind.value, words) if lang == "zh" else c.kind.value)
        for c in chickens
    ]


def text_lines(place: str, view: HandText) -> list[str]:
    """The flip after the tiles as the hand ended, the chickens before the ledger (both in
    the full view)."""
    lang, words = view.lang, view.words
    if place == TEXT_TILES:
        flip = view.hand.replay.flip
        shown = text("none", lang, words) if flip is None else view.tile(flip)
        return [text("flip: {flip}", lang, words, flip=shown)]
    settlement = view.hand.settlement
    if place == TEXT_SETTLEMENT and view.full and isinstance(settlement, Settlement):
        return [text("chickens:", lang, words), *format_chickens(settlement.chickens, view)]
    return []


def json_keys(place: str, hand: HandAudit, winner: int | None = None) -> dict[str, Any]:
    """``flip`` after the outcome, each winner's ``penalty``, ``chickens`` after the
    ledger."""
    settlement = hand.settlement
    if place == JSON_OUTCOME:
        flip = hand.replay.flip
        return {"flip": None if flip is None else TILE_TEXT[flip]}
    if place == JSON_WINNER and winner is not None:
        seat = hand.replay.winners[winner].seat
        value = None if settlement is None else {w.seat: w for w in settlement.wins}.get(seat)
        return {"penalty": None if value is None else value.penalty}
    if place == JSON_LEDGER:
        return {"chickens": None if settlement is None else [
            {"seat": c.seat, "kind": c.kind.value, "tile": TILE_TEXT[c.tile], "count": c.count}
            for c in getattr(settlement, "chickens", ())
        ]}
    return {}
