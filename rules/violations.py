"""Illegal-move and settlement codes: stable strings that users filter on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.frozen import quick_init


class ViolationCode(StrEnum):
    BAD_DEAL = "bad_deal"
    TILE_OVERFLOW = "tile_overflow"
    OUT_OF_TURN = "out_of_turn"
    NOT_IN_HAND = "not_in_hand"
    ILLEGAL_PONG = "illegal_pong"
    ILLEGAL_KONG = "illegal_kong"
    CHOW_NOT_ALLOWED = "chow_not_allowed"
    INVALID_WIN = "invalid_win"
    NO_PASS = "no_pass"
    MISSED_WIN = "missed_win"
    FROZEN_HAND = "frozen_hand"
    FALSE_READY = "false_ready"
    WALL_MISMATCH = "wall_mismatch"
    WALL_EXHAUSTED = "wall_exhausted"
    PREMATURE_END = "premature_end"
    EVENT_AFTER_END = "event_after_end"
    WILDCARD_DISCARD = "wildcard_discard"
    MISSING_SUIT = "missing_suit"
    BAD_FLIP = "bad_flip"
    FALSE_HAND = "false_hand"
    # --- the exchange, the declared suits, play after a win, state carried between hands
    BAD_EXCHANGE = "bad_exchange"
    BAD_DECLARATION = "bad_declaration"
    DECLARED_SUIT_FIRST = "declared_suit_first"
    ACTED_AFTER_WIN = "acted_after_win"
    CARRY_MISMATCH = "carry_mismatch"
    HAND_SEQUENCE = "hand_sequence"
    EVENT_NOT_IN_FAMILY = "event_not_in_family"
    # --- wallend: the end of the wall and kong draws (rules/core/wall.py)
    BAD_ROLL = "bad_roll"
    LOCKED_HAND = "locked_hand"
    BAD_SEABED = "bad_seabed"
    BAD_BIRD = "bad_bird"
    # settlement checks against the recorded result
    SCORE_MISMATCH = "score_mismatch"
    DEALER_MISMATCH = "dealer_mismatch"
    NOT_ZERO_SUM = "not_zero_sum"
    ITEM_MISMATCH = "item_mismatch"
    ITEM_SUM_MISMATCH = "item_sum_mismatch"
    # --- claims: chow and flowers
    ILLEGAL_CHOW = "illegal_chow"
    BAD_FLOWER = "bad_flower"
    FLOWER_NOT_SHOWN = "flower_not_shown"
    # --- a family's dealt-hand wins (起手小胡) and the 2-5-8 pair (its legality module)
    BAD_SMALL_WIN = "bad_small_win"
    NO_258_PAIR = "no_258_pair"


SETTLEMENT_CODES = frozenset({
    ViolationCode.SCORE_MISMATCH,
    ViolationCode.DEALER_MISMATCH,
    ViolationCode.NOT_ZERO_SUM,
    ViolationCode.ITEM_MISMATCH,
    ViolationCode.ITEM_SUM_MISMATCH,
})
"""The checks of a hand's recorded result: a hand with any of them is disputed."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One finding. ``event_index`` is the 0-based index into the hand's events (``None``
    for findings about the deal or the settlement); ``seat`` is the player at fault, if any."""

    code: ViolationCode
    hand_no: int
    event_index: int | None
    seat: int | None
    message: str
    fatal: bool = True

    def __init__(
        self,
        code: ViolationCode,
        hand_no: int,
        event_index: int | None,
        seat: int | None,
        message: str,
        fatal: bool = True,
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.code = code  # type: ignore[misc]
        self.hand_no = hand_no  # type: ignore[misc]
        self.event_index = event_index  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.message = message  # type: ignore[misc]
        self.fatal = fatal  # type: ignore[misc]


quick_init(Violation)
