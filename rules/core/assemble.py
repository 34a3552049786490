"""What a table plays, put together once per ruleset: the core's event kinds, those of the
optional mechanics the family switches on, and the family's own.

A family's ``table_rules`` makes a :class:`TableRules` (the settings in the core's names,
its kinds and hooks); :meth:`TableRules._assemble` then adds, from the explicit list of the
core's mechanics below, the kinds and the state each mechanic it switches on plays. Nothing
here runs per event: a table reads the assembled kinds and state makers from its rules.
"""

from __future__ import annotations

from zhuoji.rules.core import claims, wall
from zhuoji.rules.core.continuing import (
    Continuing,
    apply_declare,
    apply_exchange,
    check_declare,
    check_exchange,
)
from zhuoji.rules.core.play import CORE_KINDS
from zhuoji.rules.core.state import Kind, Table, TableRulesBase, _not_plain
from zhuoji.rules.events import DeclareSuit, Exchange, HandRecord
from zhuoji.rules.mechanics import Mechanics

__all__ = ["TableRules"]

_EXCHANGE_KINDS: dict[type, Kind] = {
    Exchange: Kind(_not_plain, check_exchange, apply_exchange)}
_DECLARE_KINDS: dict[type, Kind] = {
    DeclareSuit: Kind(_not_plain, check_declare, apply_declare)}


def _mechanic_kinds(mech: Mechanics) -> dict[type, Kind]:
    """The kinds of the mechanics ``mech`` switches on, in the order listed."""
    out: dict[type, Kind] = {}
    if mech.exchange:
        out.update(_EXCHANGE_KINDS)
    if mech.declare_suit:
        out.update(_DECLARE_KINDS)
    if mech.chow:
        out.update(claims.CHOW_KINDS)
    if mech.flowers:
        out.update(claims.FLOWER_KINDS)
    for name in ("kong_dice", "seabed", "birds"):
        if getattr(mech, name):
            out.update(wall.own_kinds(name))
    return out


def _wall_state(t: Table, record: HandRecord) -> wall.WallState:
    return wall.WallState(t, record)


def _claims_state() -> claims.ClaimsState:
    return claims.ClaimsState()


class TableRules(TableRulesBase):
    """What the table of one ruleset plays (:class:`TableRulesBase`), put together with the
    core's kinds and the mechanics' the family switches on."""

    def _assemble(self) -> None:
        mech = self.mechanics
        table = dict(CORE_KINDS)
        table.update(_mechanic_kinds(mech))
        table.update(self.kinds)  # the family's own kinds last
        self.kinds = table
        if mech.kong_dice or mech.seabed or mech.birds:
            self.wall_state = _wall_state
        if mech.chow or mech.flowers:
            self.claims_state = _claims_state
        if mech.exchange or mech.declare_suit or mech.play_after_win:
            def continuing_state(n: int) -> Continuing:
                return Continuing(mech, n)

            self.continuing_state = continuing_state
