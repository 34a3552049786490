"""The family's marks on the pages that show a hand (``Family.panel_marks`` and
``Family.hand_marks``, :mod:`zhuoji.rules.marks`).

On the replay panel: a seat that declared ready (报听) wears a gold badge from its
declaration on; the flipped tile (翻牌) is the table's mark (data: the panel shows it by
the flip's sentence). On a hand's page: the chickens (the ruleset's standing ones and the
flip's chicken) have a gold edge wherever a tile is shown, the facts say which tile was
flipped, its chicken and the standing chickens, and the notes say what the gold edge means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.marks import Fact, HandMarks, Mark, Part
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.tiles import Tile

if TYPE_CHECKING:
    from zhuoji.rules.table import Table

__all__ = ["hand_marks", "panel_marks"]

REPLAY_NOTE = ("Keys: ← → step, Home / End. Tiles as the replay engine holds them after each "
               "event; a dimmed discard was claimed. 金边为鸡。")
"""The replay panel's note, with what the gold edge means (a text of the glossary)."""
TILES_NOTE = (". Gold edge: a chicken (standing, or the flip chicken); red outline: the "
              "winning tile. 金边为鸡，红框为胡牌张。")
"""The end of the seats' tiles' note, with what the gold edge means (a text of the glossary)."""


def panel_marks(table: Table) -> tuple[Mark, ...]:
    """The seats that declared ready (a gold ``declared`` badge), then the flipped tile."""
    marks = [
        Mark("declared", label="declared", seat=seat, style="gold")
        for seat in range(table.n_players)
        if table.declared_ready_at(seat) is not None
    ]
    if table.flip is not None:
        marks.append(Mark("flip", tile=table.flip))
    return tuple(marks)


def _tile(text: object) -> Tile | None:
    if not isinstance(text, str):
        return None
    try:
        return Tile.parse(text)
    except ValueError:
        return None


def hand_marks(ruleset: RulesetBase | None, hand: Mapping[str, Any]) -> HandMarks:
    """The chickens of a hand's page: the ruleset's standing chickens (none when the
    ruleset cannot be resolved) and the chicken of the tile flipped (the hand's
    ``flip_tile``; a wildcard flipped makes none)."""
    standing = (frozenset(Tile(c.tile) for c in ruleset.chickens.standing)
                if isinstance(ruleset, Ruleset) else frozenset[Tile]())
    flip = _tile(hand.get("flip_tile"))
    flip_chicken = None if flip is None or flip.is_wild else flip.next_in_suit()
    flipped: tuple[Part, ...] = (Part(text="–"),)
    if flip is not None:
        # a wildcard flipped makes no chicken: the page has always printed None there
        chicken = (Part(text="None") if flip_chicken is None
                   else Part(tiles=(flip_chicken,), marked=True))
        flipped = (Part(tiles=(flip,)), Part(text=" → "), Part(label="flip_chicken"),
                   Part(text=" "), chicken)
    return HandMarks(
        tiles=standing if flip_chicken is None else standing | {flip_chicken},
        facts=(
            Fact("flip", flipped),
            Fact("standing", (Part(tiles=tuple(sorted(standing)), row=True, small=True),)),
        ),
        replay_note=REPLAY_NOTE,
        tiles_note=TILES_NOTE,
    )
