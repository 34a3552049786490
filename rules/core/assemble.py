"""What a table plays, put together once per ruleset: the core's event kinds, those of the
optional mechanics the family switches on, and the family's own.

The mechanics are the explicit list :data:`MECHANICS`, each a
:class:`~zhuoji.rules.core.mechanic.Mechanic` plugged in the same way: the switches that turn
it on, the kinds it adds or wraps, the state a table keeps for it (whose hooks the core
calls). A family's ``table_rules`` makes a :class:`TableRules` (the settings in the core's
names, its kinds and hooks); :meth:`TableRules._assemble` keeps the mechanics it switches
on, their kinds, and whether the plain case stays. Nothing here runs per event, and a
ruleset with no mechanic has no hook to call.

A hand frozen by a declaration (:mod:`zhuoji.rules.core.declared`) is not in the list: it
is always on, with no switch and no kind of its own (the declaration is the family's kind,
applied through ``Table.declare_ready``). The plain discard and pong read its records, so
every table makes them (a :class:`~zhuoji.rules.core.declared.DeclaredHands` in one slot,
compiled with the core) and a family that never declares leaves them empty.
"""

from __future__ import annotations

from zhuoji.rules.core import claims, play_on, setup, wall
from zhuoji.rules.core.mechanic import Mechanic
from zhuoji.rules.core.play import CORE_KINDS
from zhuoji.rules.core.state import TableRulesBase

__all__ = ["MECHANICS", "TableRules"]

MECHANICS: tuple[Mechanic, ...] = (
    setup.MECHANIC,  # the exchange and the declared suits
    claims.MECHANIC,  # chow and flowers
    wall.MECHANIC,  # the end of the wall and kong draws: dice, the last tile, birds
    play_on.MECHANIC,  # play after a win
)
"""Every optional mechanic of the core, in the order their kinds, states and hooks go."""


class TableRules(TableRulesBase):
    """What the table of one ruleset plays (:class:`TableRulesBase`), put together with the
    core's kinds and the mechanics' the family switches on."""

    def _assemble(self) -> None:
        mech = self.mechanics
        played = tuple([m for m in MECHANICS if m.plays(mech)])
        table = dict(CORE_KINDS)
        for mechanic in played:
            table.update(mechanic.kinds(mech))
        table.update(self.kinds)  # the family's own kinds last
        self.kinds = table
        self.mechanic_list = played
        self.plain_cases = all([m.plain_cases for m in played])
        self.plain_turn = all([m.plain_turn for m in played])
