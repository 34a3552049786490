"""The 平胡 family's marks on the replay panel (``Family.panel_marks``,
:mod:`zhuoji.rules.marks`): each seat that has won wears a green ``pinghu_won`` badge (已和,
the family's word in its ``glossary.toml``) from its win on."""

from __future__ import annotations

from typing import Any

from zhuoji.rules.marks import Mark


def panel_marks(table: Any) -> tuple[Mark, ...]:
    """A badge for each seat that has won, in the order of the wins."""
    return tuple(Mark("won", label="pinghu_won", seat=win.seat, style="green")
                 for win in table.winners)
