"""What the Changsha family adds to the audit's views of a hand (:mod:`zhuoji.rules.referee`):
the 起手小胡 declared, in the referee's text (:func:`text_lines`) and in the hand's JSON
object (``small_wins``, :func:`json_keys`)."""

from __future__ import annotations

from typing import Any

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.events import SmallWin
from zhuoji.rules.glossary import text
from zhuoji.rules.referee import JSON_END, TEXT_TABLE, HandText
from zhuoji.rules.tiles import TILE_TEXT

__all__ = ["json_keys", "text_lines"]


def _declared(hand: HandAudit) -> list[SmallWin]:
    return [ev for ev in hand.replay.noted if isinstance(ev, SmallWin)]


def text_lines(place: str, view: HandText) -> list[str]:
    """The opening small wins declared, before the birds."""
    opening = _declared(view.hand) if place == TEXT_TABLE else []
    if not opening:
        return []
    lang = view.lang
    return [text("opening small wins: {wins}", lang, view.words, wins=view.comma.join(
        view.seat(ev.seat) + ("" if lang == "zh" else " ") + view.term("pattern", ev.kind)
        for ev in opening))]


def json_keys(place: str, hand: HandAudit, winner: int | None = None) -> dict[str, Any]:
    """``small_wins`` at the end, when a hand has 起手小胡 declared."""
    opening = _declared(hand) if place == JSON_END else []
    if not opening:
        return {}
    return {"small_wins": [
        {"seat": ev.seat, "kind": ev.kind, "tiles": [TILE_TEXT[t] for t in ev.tiles]}
        for ev in opening
    ]}
