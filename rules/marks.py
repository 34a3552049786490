"""A family's marks on the pages that show a hand, as plain data the pages draw.

Two hooks of a :class:`~zhuoji.rules.families.Family` give them; the core's views call them
and know nothing of what a mark means:

- ``panel_marks(table)`` -> :class:`Mark` s: what the family's own state shows on the
  step-by-step replay after each event (:func:`zhuoji.rules.snapshot.table_data` puts a
  seat's marks in its row, the others on the table). A seat's mark with a ``label`` is a
  badge in the seat's row, in the page's words (the label is a key of the glossary's
  ``replay`` terms); a mark without one is data the panel does not draw (the page shows it
  otherwise: a tile by its event's sentence).
- ``hand_marks(ruleset, hand)`` -> :class:`HandMarks`: the hand page's marked tiles (drawn
  with a gold edge wherever the page shows them, the replay included), the lines the
  family adds to the page's facts, and the notes that say what the marks mean.

Nothing here depends on a family, on the table or on the pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zhuoji.rules.tiles import Tile

__all__ = ["Fact", "HandMarks", "Mark", "Part"]


@dataclass(frozen=True, slots=True)
class Mark:
    """One mark of the replay panel: ``kind`` names it (what it is, for the data's readers),
    ``label`` is its words (a key of the glossary's ``replay`` terms; None: not drawn),
    ``seat`` the seat it is about (None: the table's), ``tile`` the tile it shows, and
    ``style`` the badge's colour class (``gold``, ``green``, ``red``; empty: plain)."""

    kind: str
    label: str | None = None
    seat: int | None = None
    tile: Tile | None = None
    style: str = ""

    def data(self) -> dict[str, Any]:
        """The mark as plain data (the snapshot's and the page's): ``kind``, then
        ``label``, ``class`` and ``tile`` when it has them (the seat is where it is put)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.label is not None:
            out["label"] = self.label
        if self.style:
            out["class"] = self.style
        if self.tile is not None:
            out["tile"] = self.tile.text
        return out


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a fact's value: literal ``text``, a ``label`` (a key of the glossary's
    ``label`` terms, in the page's words), or ``tiles`` (one tile's face each; a ``row`` of
    faces in one box; ``small`` faces; ``marked``: with the gold edge)."""

    text: str = ""
    label: str = ""
    tiles: tuple[Tile, ...] = ()
    row: bool = False
    small: bool = False
    marked: bool = False


@dataclass(frozen=True, slots=True)
class Fact:
    """A line the family adds to a hand page's facts: its ``label`` (a key of the
    glossary's ``label`` terms) and its value, piece by piece."""

    label: str
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class HandMarks:
    """A family's marks on one hand's page: ``tiles`` drawn with the gold edge (the seats'
    tiles and the replay's), ``facts`` after the page's own, and the page's notes on its
    replay panel and its tiles when the family's say more (English texts of the glossary,
    shown in the page's language; None: the page's own)."""

    tiles: frozenset[Tile] = frozenset()
    facts: tuple[Fact, ...] = ()
    replay_note: str | None = None
    tiles_note: str | None = None
