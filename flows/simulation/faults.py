"""Fault injection: one realistic defect in a simulated hand, and the manifest row for it.

Here the kinds of fault, what each must give and which a ruleset can take; a hand's
faults are made by :mod:`zhuoji.flows.simulation.hand_faults`, file damage by
:mod:`zhuoji.flows.simulation.file_damage`.

Three families of defect:

- **illegal moves**: an edit of a legal hand (a tile changed, an event inserted, replaced
  or appended, the deal or the wall altered) or, for the faults only another course of
  play can show (no_pass, missing_suit, missed_win, no_258_pair), the hand played again
  with one player breaking that rule (the ``Deviation`` of the family's bots, reached
  through the registry: :func:`zhuoji.rules.bots.bots_of`). The edit point is the hand's first
  deviation from a legal log, so the audit's first finding is the fault.
- **tampered results**: a wrong delta, a chicken payment left out, a kong paid to a
  player who was not ready, a wrong next dealer, deltas that do not sum to zero.
- **file damage**: a truncated file, a broken JSON line in a stream, a tile written as
  text no parser accepts. The game (or file) becomes malformed and is quarantined.

Every hand-level fault is checked when it is made: :func:`zhuoji.rules.audit.audit_hand` must
report exactly the fault's codes, in order, the first at the fault's event. An edit that
does not give exactly that is discarded, and the injector tries another place or kind.
(A tampered result of a family other than Guizhou gives the checks its own settlement
makes: the kind's first code, then only result codes.)

Which kinds a preset can take follows its family and settings (:func:`fault_kinds`): a
family with chow, 起手小胡, 海底 and 开杠 dice adds a chow by a seat other than the
discarder's next player (``illegal_chow``), a 小胡 without a 2-5-8 pair
(``no_258_pair``), a false 起手小胡 (``bad_small_win``), a 海底 offer out of order
(``bad_seabed``), a draw kept after the dice (``locked_hand``), 漏胡 (``missed_win``),
the dice thrown after a kong by a hand that is not ready (``bad_roll``) and wrong birds
(``bad_bird``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from zhuoji.rules.families.guizhou.settings import Ruleset as GuizhouRuleset
from zhuoji.rules.families.guizhou.settings import guizhou_ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.violations import ViolationCode

__all__ = [
    "MALFORMED",
    "Fault",
    "FaultKind",
    "fault_kinds",
    "fault_rng",
    "is_file_fault",
]

MALFORMED = "malformed"
"""The expected finding of file damage: the game does not parse and is quarantined."""


class FaultKind(StrEnum):
    # illegal moves: the finding has the same name
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
    # tampered results
    WRONG_DELTA = "wrong_delta"
    MISSING_CHICKEN = "missing_chicken"
    KONG_TO_UNREADY = "kong_to_unready"
    WRONG_NEXT_DEALER = "wrong_next_dealer"
    UNBALANCED_DELTAS = "unbalanced_deltas"
    # file damage
    TRUNCATED_FILE = "truncated_file"
    BROKEN_JSON_LINE = "broken_json_line"
    BAD_TILE_TEXT = "bad_tile_text"
    # illegal moves of the families with chow, 起手小胡, 海底 and 开杠 dice
    ILLEGAL_CHOW = "illegal_chow"
    NO_258_PAIR = "no_258_pair"
    BAD_SMALL_WIN = "bad_small_win"
    BAD_SEABED = "bad_seabed"
    LOCKED_HAND = "locked_hand"
    BAD_ROLL = "bad_roll"
    BAD_BIRD = "bad_bird"


_C = ViolationCode
_CODES: dict[FaultKind, tuple[str, ...]] = {
    # a delta changed alone no longer matches the record's own items
    FaultKind.WRONG_DELTA: (_C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    FaultKind.MISSING_CHICKEN: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
    FaultKind.KONG_TO_UNREADY: (_C.SCORE_MISMATCH, _C.ITEM_MISMATCH),
    FaultKind.WRONG_NEXT_DEALER: (_C.DEALER_MISMATCH,),
    FaultKind.UNBALANCED_DELTAS: (_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    FaultKind.TRUNCATED_FILE: (MALFORMED,),
    FaultKind.BROKEN_JSON_LINE: (MALFORMED,),
    FaultKind.BAD_TILE_TEXT: (MALFORMED,),
}
_FILE_KINDS = frozenset({FaultKind.TRUNCATED_FILE, FaultKind.BROKEN_JSON_LINE,
                         FaultKind.BAD_TILE_TEXT})
_RESULT_KINDS = frozenset({FaultKind.WRONG_DELTA, FaultKind.MISSING_CHICKEN,
                           FaultKind.KONG_TO_UNREADY, FaultKind.WRONG_NEXT_DEALER,
                           FaultKind.UNBALANCED_DELTAS})
_RESULT_CODES = frozenset({_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_MISMATCH,
                           _C.ITEM_SUM_MISMATCH, _C.DEALER_MISMATCH})
_GUIZHOU = "guizhou"
_ANY_FAMILY = (
    FaultKind.BAD_DEAL, FaultKind.TILE_OVERFLOW, FaultKind.OUT_OF_TURN,
    FaultKind.NOT_IN_HAND, FaultKind.ILLEGAL_PONG, FaultKind.ILLEGAL_KONG,
    FaultKind.INVALID_WIN, FaultKind.WALL_MISMATCH, FaultKind.WALL_EXHAUSTED,
    FaultKind.PREMATURE_END, FaultKind.EVENT_AFTER_END, FaultKind.WRONG_DELTA,
    FaultKind.WRONG_NEXT_DEALER, FaultKind.UNBALANCED_DELTAS,
)
"""The kinds any family's hands can take (the rest follow a family's rules)."""
_GUIZHOU_ONLY = frozenset({
    FaultKind.CHOW_NOT_ALLOWED, FaultKind.NO_PASS, FaultKind.FROZEN_HAND,
    FaultKind.FALSE_READY, FaultKind.WILDCARD_DISCARD, FaultKind.MISSING_SUIT,
    FaultKind.BAD_FLIP, FaultKind.MISSING_CHICKEN, FaultKind.KONG_TO_UNREADY,
})
_NEW_KINDS = frozenset({FaultKind.ILLEGAL_CHOW, FaultKind.NO_258_PAIR,
                        FaultKind.BAD_SMALL_WIN, FaultKind.BAD_SEABED, FaultKind.LOCKED_HAND,
                        FaultKind.BAD_ROLL, FaultKind.BAD_BIRD})


def expected_codes(kind: FaultKind) -> tuple[str, ...]:
    """The findings a fault of ``kind`` gives, in order (the first is the fault's own)."""
    return _CODES.get(kind) or (str(ViolationCode(kind.value)),)


def is_file_fault(kind: FaultKind) -> bool:
    return kind in _FILE_KINDS


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: where it is and what the audit must find.

    ``event_index`` is the index (in the faulted hand's events) of the first finding, or
    of the damaged event for file damage; None for faults in the deal or the result.
    ``codes`` are the hand's findings in order; file damage has ``("malformed",)``.
    """

    kind: FaultKind
    hand_no: int
    event_index: int | None
    codes: tuple[str, ...]
    note: str

    @property
    def expected(self) -> str:
        return self.codes[0]


def fault_kinds(
    ruleset: RulesetBase, *, stream: bool, file_damage: bool = True
) -> tuple[FaultKind, ...]:
    """The kinds that can occur under ``ruleset`` in files of the given encoding
    (without the file-level damage kinds when ``file_damage`` is off)."""
    if ruleset.family != _GUIZHOU:
        return _other_family_kinds(ruleset, stream=stream, file_damage=file_damage)
    return _guizhou_kinds(guizhou_ruleset(ruleset), stream=stream, file_damage=file_damage)


def _guizhou_kinds(
    ruleset: GuizhouRuleset, *, stream: bool, file_damage: bool
) -> tuple[FaultKind, ...]:
    out: list[FaultKind] = []
    for kind in FaultKind:
        if kind in _NEW_KINDS or (not file_damage and kind in _FILE_KINDS):
            continue
        if kind is FaultKind.WILDCARD_DISCARD and not ruleset.wildcards:
            continue
        if kind is FaultKind.MISSING_SUIT and not ruleset.missing_suit_required:
            continue
        if kind is FaultKind.NO_PASS and not ruleset.pass_rule:
            continue
        if kind is FaultKind.BAD_FLIP and not ruleset.flip_chicken:
            continue
        if kind is FaultKind.KONG_TO_UNREADY and not ruleset.kongs.need_ready:
            continue
        if kind is FaultKind.BROKEN_JSON_LINE and not stream:
            continue
        out.append(kind)
    return tuple(out)


def _other_family_kinds(
    ruleset: RulesetBase, *, stream: bool, file_damage: bool
) -> tuple[FaultKind, ...]:
    """The kinds of a family other than Guizhou: those of any family, and those its
    settings and mechanics give rules for."""
    mech = mechanics_of(ruleset)
    wanted = set(_ANY_FAMILY)
    for kind, on in (
        (FaultKind.ILLEGAL_CHOW, mech.chow),
        (FaultKind.NO_258_PAIR, getattr(ruleset, "pair_258", False)),
        (FaultKind.BAD_SMALL_WIN, getattr(ruleset, "small_wins", False)),
        (FaultKind.BAD_SEABED, mech.seabed),
        (FaultKind.LOCKED_HAND, mech.kong_dice and mech.kong_dice_locks_hand),
        (FaultKind.MISSED_WIN, getattr(ruleset, "missed_win", False)),
        (FaultKind.BAD_ROLL, mech.kong_dice and mech.kong_dice_needs_ready),
        (FaultKind.BAD_BIRD, mech.birds > 0),
        (FaultKind.TRUNCATED_FILE, file_damage),
        (FaultKind.BAD_TILE_TEXT, file_damage),
        (FaultKind.BROKEN_JSON_LINE, file_damage and stream),
    ):
        if on:
            wanted.add(kind)
    return tuple(k for k in FaultKind if k in wanted and k not in _GUIZHOU_ONLY)


def fault_rng(seed: int, ruleset: str, game_no: int, hand_no: int) -> random.Random:
    """The generator deciding whether, and how, one hand is faulted."""
    return random.Random(f"zhuoji-faults/{seed}/{ruleset}/{game_no}/{hand_no}")
