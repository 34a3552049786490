"""The engine's core as one import: the table of one hand and what its rules are written
against.

The core is the package ``rules/core/`` (:mod:`zhuoji.rules.core`): the table's state, its
public read-only view and the plain case at the bottom (:mod:`zhuoji.rules.core.state`), the
core rules of each event kind above it (:mod:`zhuoji.rules.core.play`), each optional
mechanic a module of its own, and the assembler that lists them
(:mod:`zhuoji.rules.core.assemble`). This module re-exports the names the rest of the
engine, the families and the flows read.
"""

from __future__ import annotations

from zhuoji.rules.core.assemble import TableRules
from zhuoji.rules.core.play import CORE_KINDS as _KINDS
from zhuoji.rules.core.play_on import Carry, carry_findings, carry_of, sequence_finding
from zhuoji.rules.core.setup import ExchangeFact
from zhuoji.rules.core.state import (
    ExtraShapes,
    IllegalMoveError,
    Kind,
    Phase,
    Table,
    TableRulesBase,
    WinCheck,
    WinFilter,
    WinNames,
    WinPlan,
    WinSource,
    _after,
    _not_plain,
    _tiles,
    table_rules_of,
)
from zhuoji.rules.core.wall import bird_seat, dice_stack

__all__ = [
    "_KINDS",
    "Carry",
    "ExchangeFact",
    "ExtraShapes",
    "IllegalMoveError",
    "Kind",
    "Phase",
    "Table",
    "TableRules",
    "TableRulesBase",
    "WinCheck",
    "WinFilter",
    "WinNames",
    "WinPlan",
    "WinSource",
    "_after",
    "_not_plain",
    "_tiles",
    "bird_seat",
    "carry_findings",
    "carry_of",
    "dice_stack",
    "sequence_finding",
    "table_rules_of",
]
