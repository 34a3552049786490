"""Tiles as HTML: a tile as a box (the rank above its suit's Chinese), a row of tiles and
a seat's melds (each with its kind's Chinese in the family's words)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from markupsafe import Markup

from zhuoji.flows.dashboard.words import esc
from zhuoji.flows.warehouse.rows_tiles import MeldTextError, parse_melds
from zhuoji.rules.glossary import zh
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.tiles import Suit, Tile

__all__ = [
    "meld_chinese",
    "melds_html",
    "tile_html",
    "tiles_html",
]

SUIT_CHINESE: Mapping[Suit, str] = {
    Suit.CHARACTERS: zh("tile", "m"),
    Suit.DOTS: zh("tile", "p"),
    Suit.BAMBOO: zh("tile", "s"),
    Suit.WILD: zh("tile", "wild"),
}
RANK_CHINESE = ("", "一", "二", "三", "四", "五", "六", "七", "八", "九")


@cache
def meld_chinese(kind: MeldKind, family: str | None = None) -> str:
    """A meld kind's Chinese in the family's words (碰, a kong's name ...)."""
    return zh("meld", kind.value, family)


# --- tiles -----------------------------------------------------------------------------------


@cache
def tile_html(
    tile: Tile, *, small: bool = False, chicken: bool = False, won: bool = False
) -> Markup:
    """A tile as a box: the rank above the suit's Chinese character (万/筒/条)."""
    classes = ["tile", "w" if tile.is_wild else tile.suit.value]
    if small:
        classes.append("small")
    if chicken:
        classes.append("chicken")
    if won:
        classes.append("won")
    if tile.is_wild:
        name = f"W {zh('tile', 'wild_chicken')}"
        face = f"<b>{zh('tile', 'wild')}</b>"
    else:
        suit = SUIT_CHINESE[tile.suit]
        name = f"{tile.text} {RANK_CHINESE[tile.rank]}{suit}"
        if tile is Tile.S1:
            name += f" {zh('tile', 'one_bamboo')}"
        face = f"<b>{tile.rank}</b><i>{suit}</i>"
    return Markup(f'<span class="{" ".join(classes)}" title="{name}">{face}</span>')


def tiles_html(
    tiles: Iterable[Tile], *, small: bool = False, chickens: frozenset[Tile] = frozenset()
) -> Markup:
    inner = "".join([tile_html(t, small=small, chicken=t in chickens) for t in tiles])
    return Markup(f'<span class="tiles">{inner}</span>')


def melds_html(text: str, chickens: frozenset[Tile], family: str | None = None) -> Markup:
    """A seat's melds as tile boxes, each with its kind's Chinese in the family's words."""
    try:
        melds = parse_melds(text)
    except MeldTextError:
        return Markup(f"<code>{esc(text)}</code>")
    parts = []
    for kind, tile in melds:
        if kind is MeldKind.CHOW:  # three in rank order from its lowest tile
            run = (tile, Tile(tile + 1), Tile(tile + 2))
            inner = "".join(tile_html(t, chicken=t in chickens) for t in run)
        else:
            size = 3 if kind is MeldKind.PONG else 4
            inner = tile_html(tile, chicken=tile in chickens) * size
        parts.append(
            f'<span class="meld" title="{kind.value}">{inner}'
            f'<span class="kind">{meld_chinese(kind, family)}</span></span>'
        )
    return Markup("".join(parts))
