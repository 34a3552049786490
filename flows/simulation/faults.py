"""Fault injection: one realistic defect in a simulated hand, and the manifest row for it.

Here the kinds of fault, what each must give and which a ruleset can take; a hand's
faults are made by :mod:`zhuoji.flows.simulation.hand_faults`, file damage by
:mod:`zhuoji.flows.simulation.file_damage`.

Three families of defect:

- **illegal moves**: an edit of a legal hand (a tile changed, an event inserted, replaced
  or appended, the deal or the wall altered) or, for the faults only another course of
  play can show (a missed win, and a family's own: :func:`zhuoji.rules.faults.deviation`),
  the hand played again with one player breaking that rule (the ``Deviation`` of the
  family's bots, reached through the registry: :func:`zhuoji.rules.bots.bots_of`). The edit
  point is the hand's first deviation from a legal log, so the audit's first finding is
  the fault.
- **tampered results**: a wrong delta, a wrong next dealer, deltas that do not sum to zero
  (and a family's own: a payment of its scoring left out ...).
- **file damage**: a truncated file, a broken JSON line in a stream, a tile written as
  text no parser accepts. The game (or file) becomes malformed and is quarantined.

Every hand-level fault is checked when it is made: :func:`zhuoji.rules.audit.audit_hand` must
report exactly the fault's codes, in order, the first at the fault's event. An edit that
does not give exactly that is discarded, and the injector tries another place or kind.
(A tampered result of a family whose settlement compares only what it keeps,
``FamilyFaults.exact_results`` off, gives the kind's first code, then only result codes.)

Here are the family-neutral kinds (:class:`CoreFault`): those any family's hands can take,
and those of the optional mechanics a ruleset plays (:func:`zhuoji.rules.mechanics.mechanics_of`):
a chow by a seat other than the discarder's next player (``illegal_chow``), a 海底 offer
out of order (``bad_seabed``), a draw kept after the 开杠 dice (``locked_hand``), the dice
thrown after a kong by a hand that is not ready (``bad_roll``), wrong birds (``bad_bird``);
and a missed win (``missed_win``) where the ruleset has the rule. A family adds its own kinds
and their injectors, and orders the kinds a hand of its rulesets can take, through its
registered ``faults`` (:class:`zhuoji.rules.faults.FamilyFaults`, in its folder's
``faults.py``): :func:`fault_kinds` asks it. :data:`FaultKind` holds every kind, the
families' with the neutral ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import cast

from zhuoji.rules.families import families, family_of
from zhuoji.rules.faults import FamilyFaults, Injector
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.violations import ViolationCode

__all__ = [
    "MALFORMED",
    "CoreFault",
    "Fault",
    "FaultKind",
    "expected_codes",
    "family_faults",
    "fault_kinds",
    "fault_rng",
    "is_file_fault",
    "is_result_fault",
]

MALFORMED = "malformed"
"""The expected finding of file damage: the game does not parse and is quarantined."""


class CoreFault(StrEnum):
    """The family-neutral kinds of fault."""

    # illegal moves: the finding has the same name
    BAD_DEAL = "bad_deal"
    TILE_OVERFLOW = "tile_overflow"
    OUT_OF_TURN = "out_of_turn"
    NOT_IN_HAND = "not_in_hand"
    ILLEGAL_PONG = "illegal_pong"
    ILLEGAL_KONG = "illegal_kong"
    INVALID_WIN = "invalid_win"
    MISSED_WIN = "missed_win"
    WALL_MISMATCH = "wall_mismatch"
    WALL_EXHAUSTED = "wall_exhausted"
    PREMATURE_END = "premature_end"
    EVENT_AFTER_END = "event_after_end"
    # tampered results
    WRONG_DELTA = "wrong_delta"
    WRONG_NEXT_DEALER = "wrong_next_dealer"
    UNBALANCED_DELTAS = "unbalanced_deltas"
    # file damage
    TRUNCATED_FILE = "truncated_file"
    BROKEN_JSON_LINE = "broken_json_line"
    BAD_TILE_TEXT = "bad_tile_text"
    # illegal moves of the optional mechanics: chow, 海底, 开杠 dice, birds
    ILLEGAL_CHOW = "illegal_chow"
    BAD_SEABED = "bad_seabed"
    LOCKED_HAND = "locked_hand"
    BAD_ROLL = "bad_roll"
    BAD_BIRD = "bad_bird"


_C = ViolationCode
_CODES: dict[str, tuple[str, ...]] = {
    # a delta changed alone no longer matches the record's own items
    CoreFault.WRONG_DELTA: (_C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    CoreFault.WRONG_NEXT_DEALER: (_C.DEALER_MISMATCH,),
    CoreFault.UNBALANCED_DELTAS: (_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_SUM_MISMATCH),
    CoreFault.TRUNCATED_FILE: (MALFORMED,),
    CoreFault.BROKEN_JSON_LINE: (MALFORMED,),
    CoreFault.BAD_TILE_TEXT: (MALFORMED,),
}
_FILE_KINDS = frozenset({CoreFault.TRUNCATED_FILE, CoreFault.BROKEN_JSON_LINE,
                         CoreFault.BAD_TILE_TEXT})
_RESULT_KINDS = frozenset({CoreFault.WRONG_DELTA, CoreFault.WRONG_NEXT_DEALER,
                           CoreFault.UNBALANCED_DELTAS})
RESULT_CODES = frozenset({_C.NOT_ZERO_SUM, _C.SCORE_MISMATCH, _C.ITEM_MISMATCH,
                          _C.ITEM_SUM_MISMATCH, _C.DEALER_MISMATCH})
"""The findings of the checks of a recorded result."""
_ANY_FAMILY = frozenset({
    CoreFault.BAD_DEAL, CoreFault.TILE_OVERFLOW, CoreFault.OUT_OF_TURN,
    CoreFault.NOT_IN_HAND, CoreFault.ILLEGAL_PONG, CoreFault.ILLEGAL_KONG,
    CoreFault.INVALID_WIN, CoreFault.WALL_MISMATCH, CoreFault.WALL_EXHAUSTED,
    CoreFault.PREMATURE_END, CoreFault.EVENT_AFTER_END, CoreFault.WRONG_DELTA,
    CoreFault.WRONG_NEXT_DEALER, CoreFault.UNBALANCED_DELTAS,
})
"""The kinds any family's hands can take (the rest follow a ruleset's mechanics and
settings)."""


def family_faults() -> tuple[FamilyFaults, ...]:
    """The faults every registered family adds (by family name)."""
    return tuple(f.faults for f in families() if f.faults is not None)


def _every_kind() -> type[StrEnum]:
    names = [k.value for k in CoreFault]
    for faults in family_faults():
        names.extend(k for k in faults.kinds if k not in names)
    # the functional form makes a class (typeshed reads the call as a member's lookup)
    return cast("type[StrEnum]", StrEnum("FaultKind", [(n.upper(), n) for n in names]))


FaultKind = _every_kind()
"""Every kind of fault: the family-neutral ones (:class:`CoreFault`), then each registered
family's own (``FaultKind.BAD_DEAL``, ``FaultKind("bad_deal")``)."""


def _kind(name: str) -> str:
    """The member of :data:`FaultKind` named ``name`` (the name itself for a kind of a
    family registered after this module was imported)."""
    try:
        return FaultKind(name)
    except ValueError:
        return name


def expected_codes(kind: str) -> tuple[str, ...]:
    """The findings a fault of ``kind`` gives, in order (the first is the fault's own)."""
    codes = _CODES.get(kind)
    if codes is None:
        codes = next((f.codes[kind] for f in family_faults() if kind in f.codes), None)
    return codes or (str(ViolationCode(kind)),)


def is_file_fault(kind: str) -> bool:
    return kind in _FILE_KINDS


def is_result_fault(kind: str) -> bool:
    """``kind`` tampers with a recorded result."""
    return kind in _RESULT_KINDS or any(kind in f.results for f in family_faults())


def injector_of(kind: str) -> Injector | None:
    """A family's injector of one of its own kinds (None for any other)."""
    return next((f.injectors[kind] for f in family_faults() if kind in f.injectors), None)


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: where it is and what the audit must find.

    ``event_index`` is the index (in the faulted hand's events) of the first finding, or
    of the damaged event for file damage; None for faults in the deal or the result.
    ``codes`` are the hand's findings in order; file damage has ``("malformed",)``.
    """

    kind: str
    hand_no: int
    event_index: int | None
    codes: tuple[str, ...]
    note: str

    @property
    def expected(self) -> str:
        return self.codes[0]


def fault_kinds(
    ruleset: RulesetBase, *, stream: bool, file_damage: bool = True
) -> tuple[str, ...]:
    """The kinds (members of :data:`FaultKind`) that can occur under ``ruleset`` in files
    of the given encoding (without the file-level damage kinds when ``file_damage`` is
    off), in the order the simulator draws among them: the family's
    (``FamilyFaults.drawn``), or the family-neutral kinds in their order."""
    mech = mechanics_of(ruleset)
    core = set(_ANY_FAMILY)
    for kind, on in (
        (CoreFault.ILLEGAL_CHOW, mech.chow),
        (CoreFault.BAD_SEABED, mech.seabed),
        (CoreFault.LOCKED_HAND, mech.kong_dice and mech.kong_dice_locks_hand),
        (CoreFault.MISSED_WIN, getattr(ruleset, "missed_win", False)),
        (CoreFault.BAD_ROLL, mech.kong_dice and mech.kong_dice_needs_ready),
        (CoreFault.BAD_BIRD, mech.birds > 0),
        (CoreFault.TRUNCATED_FILE, file_damage),
        (CoreFault.BAD_TILE_TEXT, file_damage),
        (CoreFault.BROKEN_JSON_LINE, file_damage and stream),
    ):
        if on:
            core.add(kind)
    faults: FamilyFaults | None = family_of(ruleset).faults
    if faults is None:
        return tuple(_kind(k) for k in CoreFault if k in core)
    return tuple(_kind(k) for k in faults.drawn(ruleset, frozenset(core)))


def fault_rng(seed: int, ruleset: str, game_no: int, hand_no: int) -> random.Random:
    """The generator deciding whether, and how, one hand is faulted."""
    return random.Random(f"zhuoji-faults/{seed}/{ruleset}/{game_no}/{hand_no}")
