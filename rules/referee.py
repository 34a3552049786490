"""What a family adds to the audit's views of a hand: its lines in the referee's text
(``zhuoji audit``, registered as the family's ``text_lines``) and its keys in the hand's
JSON object (``zhuoji audit --json``, registered as ``json_keys``), each asked for at a
place of the view the core writes (:data:`TEXT_PLACES`, :data:`JSON_PLACES`).

Here the family-neutral means a family writes its lines with: :class:`HandText` (the hand,
the players' names, the language and the words of the family) and :func:`seat_text`. The
lines are in English or in Chinese, their Chinese from the glossary
(:func:`zhuoji.rules.glossary.text`), as the core's are; nothing is escaped here (the
command passes every line through its terminal filter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.glossary import Lang, text, tile_zh, zh

__all__ = [
    "JSON_END",
    "JSON_LEDGER",
    "JSON_OUTCOME",
    "JSON_PLACES",
    "JSON_WINNER",
    "TEXT_PLACES",
    "TEXT_SETTLEMENT",
    "TEXT_TABLE",
    "TEXT_TILES",
    "HandText",
    "seat_text",
]

TEXT_TILES = "tiles"
"""In the full view (``--hand N``), after each seat's tiles as the hand ended."""
TEXT_TABLE = "table"
"""After the winners, before the lines of the wall mechanics (the birds)."""
TEXT_SETTLEMENT = "settlement"
"""When the hand is settled: before the recomputed ledger."""
TEXT_PLACES = (TEXT_TILES, TEXT_TABLE, TEXT_SETTLEMENT)
"""The places of the referee's text a family's ``text_lines(place, view)`` is asked for, in
the order the view shows them."""

JSON_OUTCOME = "outcome"
"""Keys after ``outcome``."""
JSON_WINNER = "winner"
"""Keys at the end of each winner's object (``json_keys(place, hand, index)``, the index
of the winner in the replay's winners)."""
JSON_LEDGER = "ledger"
"""Keys after ``ledger``, before ``wall``."""
JSON_END = "end"
"""Keys at the end of the object, after the optional mechanics' keys."""
JSON_PLACES = (JSON_OUTCOME, JSON_WINNER, JSON_LEDGER, JSON_END)
"""The places of a hand's JSON object a family's ``json_keys`` is asked for."""


def seat_text(seat: int | None, names: Sequence[str], lang: Lang = "en") -> str:
    """``seat 2 (周婷)``, ``seat 2`` when the seat has no name, ``-`` for no seat."""
    if seat is None:
        return "-"
    if seat < len(names) and names[seat]:
        return text("seat {seat} ({name})", lang, seat=seat, name=names[seat])
    return text("seat {seat}", lang, seat=seat)


@dataclass(frozen=True, slots=True)
class HandText:
    """One hand as the referee's text shows it: what a family's ``text_lines`` reads."""

    hand: HandAudit
    names: Sequence[str]
    """The players' names, by seat (empty strings where the log names none)."""
    lang: Lang
    words: str
    """The family whose words the Chinese is in (its name)."""
    full: bool
    """The full view of one hand (``--hand N``)."""

    def seat(self, seat: int | None) -> str:
        """A seat and its player's name, in the language."""
        return seat_text(seat, self.names, self.lang)

    def tile(self, tile: object) -> str:
        """A tile, in the language (``5p``, ``五筒``)."""
        return tile_zh(str(tile)) if self.lang == "zh" else str(tile)

    def term(self, section: str, key: str) -> str:
        """``full_flush 清一色`` in English (the name and its Chinese), ``清一色`` in
        Chinese."""
        chinese = zh(section, key, self.words)
        return chinese if self.lang == "zh" else f"{key} {chinese}"

    @property
    def comma(self) -> str:
        """The separator of a list, in the language."""
        return "、" if self.lang == "zh" else ", "
