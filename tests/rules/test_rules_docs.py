"""The worked examples of ``docs/rules/settlement.md``: each ```settlement block is replayed
and settled, and its items, deltas and next dealer must be what the page says."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from tests.rules.test_settlement import _exhaustive, ledger_of, settle_record
from tests.support.builders import make_hand
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.families.guizhou.settlement import Reason, Settlement
from zhuoji.rules.presets import load_preset
from zhuoji.rules.settings import apply_overrides
from zhuoji.rules.violations import ViolationCode

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "settlement.md"
_BLOCK = re.compile(r"^```settlement\n(.*?)^```", re.DOTALL | re.MULTILINE)
_ITEM = re.compile(r"^(?P<reason>[a-z_]+)\s+(?P<payers>\d+(?:,\d+)*)\s*->\s*(?P<payee>\d+)\s+"
                   r"(?P<amount>\d+)(?:\s.*)?$")
NOT_SETTLED: set[Reason] = set()  # every reason is settled by some preset


@dataclass
class Example:
    line: int  # where the block starts in the page
    preset: str = ""
    overrides: dict[str, object] = field(default_factory=dict)
    deal: dict[int, str] = field(default_factory=dict)
    front: str = ""
    back: str = ""
    events: str = ""
    exhaust: str | None = None
    streak: int = 0
    stake: int = 1
    allow: tuple[ViolationCode, ...] = ()
    items: list[tuple[Reason, tuple[int, ...], int, int]] = field(default_factory=list)
    deltas: tuple[int, ...] = ()
    next_dealer: int | None = None

    @property
    def ruleset(self) -> Ruleset:
        rs = load_preset(self.preset)
        return apply_overrides(rs, self.overrides) if self.overrides else rs


def _fields(body: str) -> dict[str, list[str]]:
    """Each ``key  value`` line, continuation lines (indented) appended to the key."""
    out: dict[str, list[str]] = {}
    key = ""
    for raw in body.splitlines():
        if not raw.strip():
            continue
        if raw[0].isspace():
            if not key:
                raise ValueError(f"a continuation line with no key: {raw!r}")
            out[key].append(raw.strip())
            continue
        key, _, rest = raw.partition(" ")
        out.setdefault(key, []).append(rest.strip())
    return out


def parse_examples(text: str) -> list[Example]:
    examples = []
    for m in _BLOCK.finditer(text):
        ex = Example(line=text.count("\n", 0, m.start()) + 1)
        f = _fields(m[1])
        known = {"preset", "set", "deal", "front", "back", "events", "streak", "stake",
                 "allow", "items", "deltas", "next"}
        unknown = set(f) - known
        if unknown:
            raise ValueError(f"line {ex.line}: unknown keys {sorted(unknown)}")
        (ex.preset,) = f["preset"]
        for entry in f.get("set", []):
            key, _, value = entry.partition("=")
            ex.overrides[key.strip()] = json.loads(value)
        for entry in f["deal"]:
            seat, _, tiles = entry.partition(":")
            ex.deal[int(seat)] = tiles.strip()
        ex.front = " ".join(f.get("front", []))
        ex.back = " ".join(f.get("back", []))
        events = " ".join(f["events"])
        if events.startswith("exhaust "):
            ex.exhaust = events.split()[1]
        else:
            ex.events = events
        ex.streak = int(f.get("streak", ["0"])[0])
        ex.stake = int(f.get("stake", ["1"])[0])
        ex.allow = tuple(ViolationCode(c) for c in " ".join(f.get("allow", [])).split())
        for entry in f.get("items", []):
            if entry == "none":
                continue
            im = _ITEM.match(entry)
            if im is None:
                raise ValueError(f"line {ex.line}: bad item {entry!r}")
            payers = tuple(int(p) for p in im["payers"].split(","))
            ex.items.append((Reason(im["reason"]), payers, int(im["payee"]), int(im["amount"])))
        ex.deltas = tuple(int(d) for d in f["deltas"][0].split())
        ex.next_dealer = int(f["next"][0])
        examples.append(ex)
    return examples


def _settle(ex: Example) -> Settlement:
    rs = ex.ruleset
    if ex.exhaust is not None:
        record = _exhaustive(rs, ex.deal, ex.exhaust)
    else:
        record = make_hand(ex.deal, ex.events, front=ex.front, back=ex.back,
                           n_players=rs.players, wildcards=rs.wildcards)
    record = replace(record, dealer_streak=ex.streak, base_stake=ex.stake)
    _, s = settle_record(record, rs, allow=ex.allow)
    return s


EXAMPLES = parse_examples(DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: f"line{ex.line}")
def test_worked_example(ex: Example) -> None:
    s = _settle(ex)
    want: dict[str, int] = {}
    for reason, payers, payee, amount in ex.items:
        for payer in payers:
            key = f"{payer}>{payee} {reason.value}"
            want[key] = want.get(key, 0) + amount
    assert ledger_of(s) == want, "\n".join(s.explanation)
    assert s.deltas == ex.deltas
    assert sum(ex.deltas) == 0
    assert s.next_dealer == ex.next_dealer


def test_every_reason_has_a_worked_example() -> None:
    shown = {reason for ex in EXAMPLES for reason, *_ in ex.items}
    assert shown == set(Reason) - NOT_SETTLED
    assert len(EXAMPLES) >= len(Reason) - len(NOT_SETTLED)


def test_every_reason_is_described_on_the_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    for reason in Reason:
        assert f"`{reason.value}`" in text and reason.chinese in text, reason


def test_the_block_parser_rejects_what_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        parse_examples("```settlement\npreset guiyang\ncolour red\n```\n")
    with pytest.raises(ValueError, match="bad item"):
        parse_examples("```settlement\npreset guiyang\ndeal 0: 1m\nevents 0-1m\n"
                       "items hand two -> 1\ndeltas 0\nnext 0\n```\n")
