"""The family's own event kind, declared once: ``flip`` (翻鸡, the tile turned up after the
hand to find the chicken), registered through the family (``event_declarations``)."""

from __future__ import annotations

from zhuoji.rules.event_kinds import EventField, EventKind, FieldKind
from zhuoji.rules.events import Flip
from zhuoji.rules.messages import Message

FLIP = EventKind(
    "flip", Flip, (EventField("tile", FieldKind.TILE),), token="F",
    describe=lambda ev: Message("flip {tile}", ev.tile),
)
"""``flip``: the tile turned up (翻鸡); token ``F5m``."""

EVENT_KINDS: tuple[EventKind, ...] = (FLIP,)
