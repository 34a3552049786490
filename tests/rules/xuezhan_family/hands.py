"""Hands of the xuezhan test family in compact notation (``tests/support/builders.py``) with
two more tokens: ``S>TTT>D`` (seat S passes the tiles TTT to seat D, 换三张) and ``S=X``
(seat S declares suit X, 定缺).

The hand used by most tests (dealer seat 0; every seat passes three tiles of one suit to
the next seat; after the exchange):

* seat 0: 346689m 9p 3s 777s 999s (14; declares p and holds 9p: it discards 9p first)
* seat 1: 123456789m 11p 23p   (declares s; waits on 1p and 4p)
* seat 2: 123456789p 11s 45s   (declares m; waits on 3s and 6s)
* seat 3: 234567p 88p 12s 555s (declares m; waits on 3s)

and the wall's front is 1p 1m 2m 5m: seat 1 draws 1p and wins (自摸), seats 2 and 3 draw
and discard, seat 0 draws 5m and discards 3s, which seats 2 and 3 both win on; seat 0 is
the one seat left, and the hand ends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tests.support.builders import make_hand, parse_event
from zhuoji.rules.events import DeclareSuit, Event, Exchange, HandRecord, Suit
from zhuoji.rules.tiles import parse_tiles

DEAL = {  # before the exchange
    0: "123346689m9p3s999s",
    1: "456789m789p11p23p",
    2: "123456p11s45s555s",
    3: "234567p88p12s777s",
}
FRONT = "1p1m2m5m"
EXCHANGE = "0>123m>1 1>789p>2 2>555s>3 3>777s>0"
DECLARE = "0=p 1=s 2=m 3=m"
SETUP = f"{EXCHANGE} {DECLARE}"
PLAY = "0-9p 1+1p 1H1p 2+1m 2-1m 3+2m 3-2m 0+5m 0-3s 2H3s<0 3H3s<0"
CLEAN = f"{SETUP} {PLAY}"
FIRST_PLAY = 8  # the index of the first event after the setup

_EXCHANGE = re.compile(r"^(\d)>((?:\d+[mps])+)>(\d)$")
_DECLARE = re.compile(r"^(\d)=([mps])$")


def parse(text: str) -> tuple[Event, ...]:
    out: list[Event] = []
    for token in text.split():
        m = _EXCHANGE.match(token)
        if m:
            out.append(Exchange(int(m[1]), tuple(parse_tiles(m[2])), int(m[3])))
            continue
        m = _DECLARE.match(token)
        if m:
            out.append(DeclareSuit(int(m[1]), Suit(m[2])))
            continue
        out.append(parse_event(token))
    return tuple(out)


def hand(events: str = CLEAN, deal: Mapping[int, str] | None = None, *, front: str = FRONT,
         **kwargs: Any) -> HandRecord:
    """A hand of the family: ``deal`` (default :data:`DEAL`) and ``events`` in notation."""
    record = make_hand(deal or DEAL, "", front=front, **kwargs)
    return HandRecord(
        hand_no=record.hand_no, n_players=record.n_players, dealer=record.dealer,
        dealer_streak=record.dealer_streak, deal=record.deal, events=parse(events),
        wall=record.wall,
    )


def with_carry(record: HandRecord, carry: Mapping[str, int] | None,
               hand_no: int | None = None) -> HandRecord:
    """The same hand recording ``carry`` (and numbered ``hand_no``)."""
    return HandRecord(
        hand_no=record.hand_no if hand_no is None else hand_no, n_players=record.n_players,
        dealer=record.dealer, dealer_streak=record.dealer_streak, deal=record.deal,
        events=record.events, wall=record.wall, result=record.result,
        base_stake=record.base_stake,
        carry=None if carry is None else tuple(sorted(carry.items())),
    )


def play_out(record: HandRecord, events: str, seats: list[int], start: int) -> str:
    """Tokens after ``events``: the ``seats`` in turn, each drawing the wall's next front
    tile (from ``start``) and discarding it, until the wall is empty, then ``X``."""
    assert record.wall is not None
    out = [events]
    for k, tile in enumerate(record.wall[start:]):
        seat = seats[k % len(seats)]
        out.append(f"{seat}+{tile} {seat}-{tile}")
    out.append("X")
    return " ".join(out)
