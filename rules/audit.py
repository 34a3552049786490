"""The audit of a hand: replay, settlement and the checks against the recorded result.

:func:`audit_hand` replays a :class:`~zhuoji.rules.events.HandRecord` with full legality checks,
settles it with its family's settlement (unless a fatal violation stopped it) and compares
the settlement with the record's ``result`` by the family's ``audit_result``. Its findings
list the replay's violations first (in event order), then the settlement checks (``not_zero_sum``,
``score_mismatch``, ``item_mismatch``, ``item_sum_mismatch``, ``dealer_mismatch``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zhuoji.rules.events import HandRecord
from zhuoji.rules.families import family_of
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.replay import GameCarry, HandReplay, replay_hand
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Carry
from zhuoji.rules.violations import Violation

__all__ = ["HandAudit", "audit_game", "audit_hand"]


@dataclass(frozen=True, slots=True)
class HandAudit:
    """One audited hand."""

    record: HandRecord
    replay: HandReplay
    settlement: Any  # the family's settlement (its ``settle`` hook's value); None when a
    # fatal violation stopped the replay
    findings: tuple[Violation, ...]  # replay violations, then the settlement checks

    @property
    def is_clean(self) -> bool:
        return not self.findings

    def __init__(
        self,
        record: HandRecord,
        replay: HandReplay,
        settlement: Any,
        findings: tuple[Violation, ...],
    ) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.record = record  # type: ignore[misc]
        self.replay = replay  # type: ignore[misc]
        self.settlement = settlement  # type: ignore[misc]
        self.findings = findings  # type: ignore[misc]


quick_init(HandAudit)


def audit_hand(
    record: HandRecord,
    ruleset: RulesetBase,
    *,
    explain: bool = True,
    carry: Carry | None = None,
    before: tuple[Violation, ...] = (),
) -> HandAudit:
    """Replay, settle (at the record's stake and 连庄 count) and check one hand;
    ``explain=False`` leaves the settlement's explanation empty (see the family's
    ``settle``). ``carry`` and ``before``: as for :func:`~zhuoji.rules.replay.replay_hand` (given
    by :func:`audit_game` to a family that carries state from hand to hand)."""
    family = ruleset.derived(family_of)
    replay = replay_hand(record, ruleset, carry=carry, before=before)
    settlement = family.settle(
        replay, ruleset, record.base_stake, dealer_streak=record.dealer_streak, explain=explain
    )
    checks: tuple[Violation, ...] = tuple(
        family.audit_result(settlement, record.result, record.hand_no))
    return HandAudit(record, replay, settlement, (*replay.violations, *checks))


def audit_game(
    records: Sequence[HandRecord], ruleset: RulesetBase, *, explain: bool = True
) -> list[HandAudit]:
    """Audit every hand of a game; a fatal violation stops only its own hand. A family
    that carries state from hand to hand gets it threaded through, as in
    :func:`~zhuoji.rules.replay.replay_game`."""
    if not mechanics_of(ruleset).carry:
        return [audit_hand(record, ruleset, explain=explain) for record in records]
    out: list[HandAudit] = []
    thread = GameCarry(ruleset)
    for record in records:
        carry, before = thread.before(record)
        audit = audit_hand(record, ruleset, explain=explain, carry=carry, before=before)
        thread.after(audit.replay)
        out.append(audit)
    return out
