"""Why a hand is settled as it is, in words a referee reads out: the settlement's
explanation with each seat's player named, and each ledger item the record has wrong with
the lines of the explanation that say why (:func:`hand_verdict`).

The same sentences serve ``zhuoji audit --hand N`` (:mod:`zhuoji.flows.cli.audit_text`
prints them) and the hand's page (:mod:`zhuoji.flows.dashboard.hand_page` shows them), in
English or in Chinese (``lang``; the Chinese from the glossary, in the words of the hand's
``family``; :func:`seat_text` is :mod:`zhuoji.rules.referee`'s, which a family's own lines
use too). Nothing is escaped here: the command passes every line through
:func:`zhuoji.flows.text.terminal.safe`, the page escapes what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zhuoji.rules.audit import HandAudit
from zhuoji.rules.glossary import Lang, render, text, with_names_zh, zh
from zhuoji.rules.ledger import Ledger, generate_item_differences, with_names
from zhuoji.rules.referee import seat_text

__all__ = [
    "Verdict",
    "WrongItem",
    "explanation_lines",
    "hand_verdict",
    "name_zh",
    "seat_text",
]


def name_zh(name: str, family: str | None = None) -> str:
    """The Chinese of a pattern, bonus or ledger reason name (the name when it has none)."""
    from zhuoji.rules.glossary import glossary

    terms = glossary(family).terms
    for section in ("pattern", "reason"):
        if name in terms[section]:
            return terms[section][name][1]
    return name


def _because(settlement: Ledger, reason: str, payer: int, payee: int) -> list[str]:
    """Explanation lines about ``reason``: those naming its Chinese term or, for a family
    whose lines name the reason (``...: small_win (...)``), those; for the hand and the
    chickens of a family that scores them, the win and the chicken lines; the payee's
    first."""
    if reason not in settlement.reasons:
        return []
    if reason == "hand":
        lines = [line for line in settlement.explanation if " won " in line]
    elif reason == "chicken":
        lines = [line for line in settlement.explanation if "chickens" in line]
    else:
        term = zh("reason", reason)  # as the engine writes it (the base words)
        named = f": {reason} ("
        lines = [line for line in settlement.explanation
                 if term in line or (named in line and f"seat {payer} pays" in line)]
    return sorted(lines, key=lambda line: f"seat {payee}" not in line)[:3]


def _named(lines: Sequence[str], names: Sequence[str], lang: Lang,
           family: str | None = None) -> list[str]:
    """Explanation lines in ``lang``, each seat followed by its player's name."""
    if lang == "en":
        return list(with_names(lines, names))
    return [with_names_zh(render(line, lang, family), list(names)) for line in lines]


def explanation_lines(settlement: Ledger, names: Sequence[str], lang: Lang = "en",
                      family: str | None = None) -> list[str]:
    """The settlement's explanation in ``lang``, each seat followed by its player's name."""
    return _named(settlement.explanation, names, lang, family)


@dataclass(frozen=True, slots=True)
class WrongItem:
    """A ledger item the record has wrong: what is wrong, and the explanation's lines that
    say why."""

    head: str  # ``  seat 0 (王芳) -> seat 2 (周婷) chicken 鸡: the rules give 3, ...``
    because: str  # the word before each reason (``      because ``)
    reasons: tuple[str, ...]  # the explanation's lines about the item


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the record of a hand has wrong (empty when nothing, or when there is no
    settlement or no recorded result to compare)."""

    items: tuple[WrongItem, ...]
    note: str | None  # the deltas differ with no item to blame: why, in one line

    def __bool__(self) -> bool:
        return bool(self.items) or self.note is not None

    def lines(self) -> list[str]:
        """The verdict as ``zhuoji audit --hand N`` prints it."""
        out: list[str] = []
        for item in self.items:
            out.append(item.head)
            out.extend(item.because + line for line in item.reasons)
        if self.note is not None:
            out.append(self.note)
        return out


def hand_verdict(hand: HandAudit, names: Sequence[str], lang: Lang = "en",
                 family: str | None = None) -> Verdict:
    """Each ledger item the record has wrong, with the lines of the explanation that say
    why (what a referee reads out)."""
    settlement, recorded = hand.settlement, hand.record.result
    if settlement is None or recorded is None:
        return Verdict((), None)
    items: list[WrongItem] = []
    for (payer, payee, reason), ours, theirs in generate_item_differences(settlement, recorded):
        if lang == "zh":
            name = name_zh(reason, family)
        else:
            name = (f"{reason} {zh('reason', reason, family)}" if reason in settlement.reasons
                    else reason)
        head = f"  {seat_text(payer, names, lang)} -> {seat_text(payee, names, lang)} {name}: "
        if lang == "zh":
            head = f"  {seat_text(payer, names, lang)} → {seat_text(payee, names, lang)} {name}："
        if theirs is None:
            head += text("the rules give {ours}, the record has nothing", lang, family,
                         ours=ours)
        elif ours is None:
            head += text("the record has {theirs}, the rules give nothing", lang, family,
                         theirs=theirs)
        else:
            head += text("the record has {theirs}, the rules give {ours}", lang, family,
                         theirs=theirs, ours=ours)
        reasons = _named(_because(settlement, reason, payer, payee), names, lang, family)
        items.append(WrongItem(head, text("      because ", lang, family), tuple(reasons)))
    note = None
    if not items and recorded.deltas != settlement.deltas:
        if recorded.items is None:
            note = text("  the recorded deltas differ (the record is not itemised): "
                        "see findings", lang, family)
        else:
            note = text("  the recorded deltas differ, and its items, which are right, do "
                        "not add up to them: see findings", lang, family)
    return Verdict(tuple(items), note)
