"""The family's own event kind, declared once: ``small_win`` (起手小胡, a small win shown on
the dealt hand, after which play goes on), registered through the family
(``event_declarations``)."""

from __future__ import annotations

from typing import Any

from zhuoji.rules.event_kinds import Data, EventField, EventKind, FieldKind
from zhuoji.rules.events import SmallWin
from zhuoji.rules.families.changsha.patterns import SmallWinKind
from zhuoji.rules.messages import Message


def _snapshot(ev: Any) -> Data:
    return {"kind": "small_win", "seat": ev.seat, "small_win": ev.kind,
            "tiles": [t.text for t in ev.tiles]}


SMALL_WIN = EventKind(
    "small_win", SmallWin,
    (EventField("seat", FieldKind.SEAT),
     EventField("kind", FieldKind.CHOICE, choices=tuple(k.value for k in SmallWinKind),
                description="起手小胡 declared on the dealt hand: four_of_a_kind 四喜, no_258 "
                "板板胡, missing_suit 缺一色, two_triplets 六六顺"),
     EventField("tiles", FieldKind.TILES, min_length=1, description="the tiles shown")),
    snapshot=_snapshot,
    describe=lambda ev: Message("seat {seat}: small_win", ev.seat),
)
"""``small_win``: no token in the tests' notation; its snapshot names the small win; the
core's messages call it ``seat N: small_win`` (the family's own checks say more)."""

EVENT_KINDS: tuple[EventKind, ...] = (SMALL_WIN,)
