"""Sichuan golden hands through ``zhuoji audit --json``: every 番 entry and the cap, each kong
payment, 呼叫转移 and its variants, 自摸加底 and its variants, 点杠花 both ways, the checks at
the wall's end (查花猪, 查大叫, 退税), 一炮多响, a 血战 hand with three winners, a 血流 hand
with a player winning twice, a hand under ``sichuan-sbr`` and the next dealer rules (issue
34, ``docs/rules/sichuan.md``).

Each case is a legal log in ``tests/rules/sichuan_golden/<name>.json`` (zhuoji-log/1) whose
recorded result is the expectation worked out by hand in the comment beside the case, from
the rule quoted there (dealer seat 0, base 1, stake 1, cap 4 番 unless said; a win is worth
``base x 2 ** 番``). A clean audit (no finding) means the recomputed ledger is exactly that
result, and the JSON line is checked field by field besides: the ledger items in event order
``(payer, payee, amount, reason)``, the deltas, the next dealer and each win's scored 番.

The logs are written from the compact scripts below (``tests/support/builders.py`` tokens,
plus ``S=X`` for seat S's 定缺, else each seat declares the suit it lacks, and ``~N`` for N
turns from the seat due, each drawing the next front tile and discarding it at once, or a
tile of the seat's declared suit while it holds one; a 血战 winner takes no turn). Rewrite
them after changing a case with ``python -m tests.rules.test_sichuan_golden``; a test checks
they are in step.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.builders import make_hand, parse_event
from zhuoji.flows.audit.bridge import game_from_records
from zhuoji.flows.cli.main import app
from zhuoji.parsers.write import write_games
from zhuoji.rules.events import (
    DeclareSuit,
    Discard,
    Draw,
    Event,
    HandRecord,
    RecordedItem,
    RecordedResult,
    Suit,
)
from zhuoji.rules.tiles import NUM_SUITED, Tile, parse_tiles

FOLDER = Path(__file__).parent / "sichuan_golden"
Item = tuple[int, int, int, str]  # payer, payee, amount, reason
runner = CliRunner()

_DECLARE = re.compile(r"^(\d)=([mps])$")
_TURNS = re.compile(r"^~(\d+)$")
_KONG = re.compile(r"^\d[CEA]")
_DRAW = re.compile(r"^(\d)\+")


@dataclass(frozen=True)
class Case:
    """One golden hand: the hands dealt (every seat), the script, the expected result."""

    name: str
    hands: dict[int, str]
    script: str
    items: tuple[Item, ...]
    deltas: tuple[int, ...]
    next_dealer: int
    scored: tuple[tuple[str, ...], ...] = ()  # each win's 番 names, in win order
    front: str = ""
    back: str = ""
    ruleset: str = "sichuan"
    overrides: dict[str, Any] = field(default_factory=dict)
    dealer: int = 0


def _lacking(text: str) -> str:
    suits = {str(t)[-1] for t in parse_tiles(text)}
    missing = [s for s in "mps" if s not in suits]
    if not missing:
        raise ValueError(f"{text} holds three suits: declare its suit in the script")
    return missing[0]


def _next_seat(events: Sequence[Event], dealer: int) -> int:
    """The seat due to draw after the events (the one after the last discarder or, after
    a win, the last winner)."""
    for ev in reversed(events):
        if type(ev).__name__ in ("Discard", "Win"):
            return (ev.seat + 1) % 4  # type: ignore[attr-defined]
    return (dealer + 1) % 4


def build(case: Case) -> HandRecord:
    """The hand record of a case: every seat declares the suit it lacks unless the script
    says (``S=X`` first), ``~N`` expands to N draw-and-discard turns from the wall's
    current front, and the recorded result is the case's expectation."""
    hands = dealt(case)
    record = make_hand(hands, "", front=case.front, back=case.back, dealer=case.dealer)
    assert record.wall is not None
    tokens = case.script.split()
    declared = {int(m[1]): m[2] for m in map(_DECLARE.match, tokens) if m}
    for seat in range(4):
        if seat not in declared:
            declared[seat] = _lacking(hands[seat])
    events: list[Event] = [DeclareSuit(seat, Suit(declared[seat])) for seat in range(4)]
    held = [[0] * NUM_SUITED for _ in range(4)]
    for seat, text in hands.items():
        for t in parse_tiles(text):
            held[seat][t] += 1
    front = 0
    after_kong = False
    leave = case.ruleset in ("sichuan-xuezhan", "sichuan-sbr")  # 血战: a winner leaves
    out: set[int] = set()

    def add(ev: Event) -> None:
        events.append(ev)
        name, seat = type(ev).__name__, getattr(ev, "seat", None)
        if name == "Win" and leave:
            out.add(ev.seat)  # type: ignore[attr-defined]
        if seat is None or name not in ("Draw", "Discard", "Pong", "Kong"):
            return
        tile = ev.tile  # type: ignore[attr-defined]
        if name == "Kong":
            kind = ev.kind.value  # type: ignore[attr-defined]
        taken = {"Draw": -1, "Discard": 1, "Pong": 2}.get(name) or {
            "concealed": 4, "exposed": 3, "added": 1}[kind]
        held[seat][tile] -= taken

    for token in tokens:
        if _DECLARE.match(token):
            continue
        m = _TURNS.match(token)
        if m:
            turn = _next_seat(events, case.dealer)
            for _ in range(int(m[1])):
                while turn in out:
                    turn = (turn + 1) % 4
                tile = record.wall[front]
                front += 1
                add(Draw(turn, tile))
                void = "mps".index(declared[turn])
                voids = [t for t in range(9 * void, 9 * void + 9) if held[turn][t]]
                if voids and tile not in voids:  # the declared suit goes first
                    tile = Tile(voids[-1])
                add(Discard(turn, tile))
                turn = (turn + 1) % 4
            continue
        if _DRAW.match(token) and not after_kong:
            assert str(record.wall[front]) == token[2:], (case.name, token, record.wall[front])
            front += 1
        after_kong = bool(_KONG.match(token))
        add(parse_event(token))
    items = tuple(RecordedItem(p, q, a, r) for p, q, a, r in case.items)
    return replace(record, events=tuple(events),
                   result=RecordedResult(case.deltas, case.next_dealer, items))


def document(case: Case) -> dict[str, Any]:
    """The case's log as the JSON document written in :data:`FOLDER`."""
    game = game_from_records([build(case)], game_id=case.name, ruleset=case.ruleset,
                             rule_overrides=case.overrides or None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{case.name}.json"
        write_games(path, [game], indent=True)
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


_SPREAD_RANKS = (1, 5, 9, 3, 7, 2, 6, 4, 8)


def dealt(case: Case) -> dict[int, str]:
    """Every seat's dealt tiles: a hand written ``"4p..."`` holds 4p and is filled up with
    tiles of two suits (its own first, then bamboo, dots, characters) spread over the ranks,
    from the tiles no hand, front or back draw names; a seat not given is filled whole."""
    pool = [4] * NUM_SUITED
    for text in [*case.hands.values(), case.front, case.back]:
        for t in parse_tiles(text.removesuffix("...")):
            pool[t] -= 1
    out: dict[int, str] = {}
    for seat in range(4):
        text = case.hands.get(seat, "...")
        if not text.endswith("..."):
            out[seat] = text
            continue
        given = parse_tiles(text.removesuffix("..."))
        suits: list[str] = []
        for s in [*(str(t)[-1] for t in given), "s", "p", "m"]:
            if s not in suits:
                suits.append(s)
        size = 14 if seat == case.dealer else 13
        tiles = list(given)
        while len(tiles) < size:
            before = len(tiles)
            for rank in _SPREAD_RANKS:
                for s in suits[:2]:
                    t = Tile(9 * "mps".index(s) + rank - 1)
                    if len(tiles) < size and pool[t]:
                        pool[t] -= 1
                        tiles.append(t)
            assert len(tiles) > before, (case.name, seat)
        out[seat] = "".join(str(t) for t in tiles)
    return out


# ---------------------------------------------------------------------- the cases
def _sd(winner: int, payers: Sequence[int], win: int, extra: int = 0,
        reason: str = "self_draw") -> tuple[Item, ...]:
    """A self-draw's items: each payer (in turn order after the winner) pays the win and,
    with 自摸加底 (or a doubling), ``extra``."""
    out: list[Item] = []
    for p in payers:
        out.append((p, winner, win, "win"))
        if extra:
            out.append((p, winner, extra, reason))
    return tuple(out)


PLAIN = "123m456m789m23p55p"  # 平胡 waiting on 1p / 4p (declares s)
PLAIN_S = "123s456s789s23p55p"  # the same in bamboo and dots (declares m)


def _on_dealer(name: str, hand: str, tile: str, fan: int, scored: tuple[str, ...],
               **kwargs: Any) -> Case:
    """Seat 1 wins with ``hand`` on the dealer's first discard ``tile``: the dealer pays
    ``2 ** fan`` (capped at 4 番 unless the case says); seat 1 deals next."""
    value = kwargs.pop("value", 2 ** min(fan, 4))
    return Case(name, {0: f"{tile}...", 1: hand}, f"0-{tile} 1H{tile}<0",
                ((0, 1, value, "win"),), (-value, value, 0, 0), 1, (scored,), **kwargs)


def _arranged(hands: dict[int, str], prefix: str, turns: Sequence[int], suit: str,
              seat: int) -> str:
    """A wall front: ``prefix``, then one tile per turn in ``turns`` (the seats drawing in
    order), ``seat`` drawing tiles of ``suit`` while there are any, the others the rest."""
    pool = [4] * NUM_SUITED
    for text in [*hands.values(), prefix]:
        for t in parse_tiles(text):
            pool[t] -= 1
    tiles = [Tile(t) for t in range(NUM_SUITED) for _ in range(pool[t])]
    wanted = [t for t in tiles if str(t)[-1] == suit]
    rest = [t for t in tiles if str(t)[-1] != suit]
    out: list[Tile] = []
    for turn in turns:
        mine = turn == seat
        source = (wanted if wanted else rest) if mine else (rest if rest else wanted)
        out.append(source.pop(0))
    return prefix + "".join(str(t) for t in out)


WALL_END = {0: PLAIN + "9s", 1: "333s666s777p888p5s", 2: "11s22s44s77s88s9s9m9p",
            3: "11m2m45m78m12p45p78p"}
XUEZHAN_KONG = {**WALL_END, 2: "6666p11s2s44s5s78s9s"}
XUEZHAN_KONG_PLAY = "0=s 0-9s 1+2s 1-2s 2+1p 2C6p 2+3s 2-5s 1H5s<2 ~52 X"
XUELIU = {0: "1p3p6p9p9s3s6s9s2s5s8s7p4p6p", 1: PLAIN, 2: "11s22s4s55s7s88s9p9p3p",
          3: "11m2m45m78m12p45p78p"}  # seats 0, 2 and 3 are not ready
XUEZHAN = {0: "9s1p...", 1: PLAIN, 2: "5555s123s789s23p9p", 3: "444s666s888p23p77p"}
XUEZHAN_PLAY = "0-9s ~4 1+4p 1H4p 2+9p 2C5s 2+7m 2-7m 3+5m 3-5m 0+2s 0-1p 2H1p<0 3H1p<0"
XUEZHAN_FRONT = "1m2m3m4m4p9p5m2s"

CASES: list[Case] = [
    # --- each hand name (番), on the dealer's first discard ----------------------------
    # 平胡 0 番: 123m 456m 789m 234p 55p, base x 2**0 = 1
    _on_dealer("plain", PLAIN, "4p", 0, ("plain",)),
    # 对对胡 1: 111m 444m 777p 999p 55p, 2**1 = 2
    _on_dealer("all_pungs", "111m444m777p999p5p", "5p", 1, ("all_pungs",)),
    # 清一色 2: 123m 456m 789m 234m 55m, all characters, 2**2 = 4
    _on_dealer("full_flush", "123m456m789m234m5m", "5m", 2, ("full_flush",)),
    # 七对 2: 11m 33m 55m 77p 99p 22p 44p, 2**2 = 4
    _on_dealer("seven_pairs", "11m33m55m77p99p22p4p", "4p", 2, ("seven_pairs",)),
    # 龙七对 3: seven pairs with 1111m among them, 2**3 = 8; the four inside 龙七对 is no 根
    _on_dealer("dragon_seven_pairs", "1111m33m55m77p99p4p", "4p", 3,
               ("dragon_seven_pairs",)),
    # 龙七对 with a second four (3333m): 3 + 根 1 = 4 番, 2**4 = 16 (the first four is
    # inside the 龙七对, only the further one is a 根)
    _on_dealer("dragon_seven_pairs_root", "1111m3333m55p77p9p", "9p", 4,
               ("dragon_seven_pairs", "root")),
    # 清对 3: 111m 333m 555m 777m 99m, 对对胡 in one suit, 2**3 = 8
    _on_dealer("full_flush_pungs", "111m333m555m777m9m", "9m", 3, ("full_flush_pungs",)),
    # 将对 3: 222m 555m 888p 222p 55p, all pungs of 2, 5 and 8, 2**3 = 8
    _on_dealer("all_258_pungs", "222m555m888p222p5p", "5p", 3, ("all_258_pungs",)),
    # 清七对 4: 11 22 33 44 55 77 99 characters, 2**4 = 16
    _on_dealer("full_flush_seven_pairs", "11m22m33m55m77m99m4m", "4m", 4,
               ("full_flush_seven_pairs",)),
    # 清龙七对 5, capped at 4 番: 2**4 = 16
    _on_dealer("full_flush_dragon_seven_pairs", "1111m22m33m55m77m9m", "9m", 5,
               ("full_flush_dragon_seven_pairs",)),
    # --- the cap: 清龙七对 5 + 根 1 (3333m) = 6 番 -------------------------------------
    # capped at 4 (the default): 16
    _on_dealer("cap_4", "1111m3333m55m77m9m", "9m", 6,
               ("full_flush_dragon_seven_pairs", "root")),
    # fan_cap 3: 2**3 = 8
    _on_dealer("cap_3", "1111m3333m55m77m9m", "9m", 6,
               ("full_flush_dragon_seven_pairs", "root"), value=8,
               overrides={"fan_cap": 3}),
    # fan_cap 5: 2**5 = 32
    _on_dealer("cap_5", "1111m3333m55m77m9m", "9m", 6,
               ("full_flush_dragon_seven_pairs", "root"), value=32,
               overrides={"fan_cap": 5}),
    # no cap (天胡/地胡 and 花猪 then need their own 番): 2**6 = 64
    _on_dealer("cap_none", "1111m3333m55m77m9m", "9m", 6,
               ("full_flush_dragon_seven_pairs", "root"), value=64,
               overrides={"fan_cap": None, "fan.heavenly_earthly_fan": 6,
                          "flower_pig_fan": 6}),
    # --- settings of the patterns ----------------------------------------------------
    # fan.dragon_seven_pairs = 0 (no 龙七对): 七对 2 + 根 1 (the four inside it) = 3 番, 8
    _on_dealer("seven_pairs_four_is_root", "1111m33m55m77p99p4p", "4p", 3,
               ("seven_pairs", "root"), overrides={"fan.dragon_seven_pairs": 0}),
    # fan.full_flush_dragon_seven_pairs = 0 (no 清龙七对): 1111m 22 33 55 77 99m is 清七对 4
    # + 根 1 = 5 番, capped at 4: 16
    _on_dealer("full_flush_seven_pairs_four_is_root", "1111m22m33m55m77m9m", "9m", 5,
               ("full_flush_seven_pairs", "root"),
               overrides={"fan.full_flush_dragon_seven_pairs": 0}),
    # fan.golden_hook_melded = false (the tournament's 金钩): a concealed 对对胡 won on its
    # pair's tile, 5p: 对对胡 1 + 金钩 1 = 2 番, 4 (by default the same hand is 对对胡
    # alone: case all_pungs)
    _on_dealer("golden_hook_concealed", "111m444m777p999p5p", "5p", 2,
               ("all_pungs", "golden_hook"), overrides={"fan.golden_hook_melded": False}),
    # 门清 and 中张 played (+1 each): 234m 567m 345p 678p 66p won on 6p, no pong and no 1
    # or 9: 平胡 + 门清 1 + 中张 1 = 2 番, 4
    _on_dealer("concealed_all_simples", "234m567m345p66p78p", "6p", 2,
               ("plain", "concealed", "all_simples"),
               overrides={"fan.concealed": 1, "fan.all_simples": 1}),
    # 带幺九 played (+2): 123m 789m 111p 789p 99p won on 9p, every set and the pair hold a 1
    # or a 9: 平胡 + 带幺九 2 = 2 番, 4
    _on_dealer("terminals", "123m789m111p99p78p", "9p", 2, ("plain", "terminals"),
               overrides={"fan.terminals": 2}),
    # --- 根 ---------------------------------------------------------------------------
    # a four held: 111m 123m 456p 789p 55p holds 1111m: 平胡 + 根 1 = 1 番, 2
    _on_dealer("root_held", "1111m23m456p789p5p", "5p", 1, ("plain", "root")),
    # 金钩钓: seat 1 pongs 1m (the dealer's), 4m, 7p and 9p (seat 2's) and wins on the
    # pair's 5p from seat 2: 对对胡 1 + 金钩钓 1 = 2 番, seat 2 pays 2**2 = 4
    Case("golden_hook", {0: "1m...", 1: "11m44m77p99p5p2m3m6m8m", 2: "4m7p9p5p..."},
         "0-1m 1P1m<0 1-2m 2+6p 2-4m 1P4m<2 1-3m 2+6p 2-7p 1P7p<2 1-6m 2+8p 2-9p 1P9p<2 "
         "1-8m 2+8p 2-5p 1H5p<2", ((2, 1, 4, "win"),), (0, 4, -4, 0), 1,
         (("all_pungs", "golden_hook"),), front="6p6p8p8p"),
    # a pung with the fourth in hand: seat 1 pongs the dealer's 5p holding 345p, wins on
    # seat 2's 7m: 555p 345p 123m 456m 77m, 平胡 + 根 1 = 1 番, seat 2 pays 2
    Case("root_pung_and_fourth", {0: "5p...", 1: "555p34p123m456m7m9m", 2: "7m..."},
         "0-5p 1P5p<0 1-9m 2+9s 2-7m 1H7m<2", ((2, 1, 2, "win"),), (0, 2, -2, 0), 1,
         (("plain", "root"),), front="9s"),
    # a concealed kong (下雨): seat 1 draws the fourth 5p and makes the kong: 2 bases from
    # each player still in (seats 2, 3, 0 in turn order after it); it discards the
    # replacement 2s and wins on seat 2's 9m: 平胡 + 根 1 (the kong) = 1 番, 2
    Case("kong_concealed", {0: "9s...", 1: "555p123m456m78m99p", 2: "9m..."},
         "0-9s 1+5p 1C5p 1+2s 1-2s 2+1s 2-9m 1H9m<2",
         ((2, 1, 2, "kong"), (3, 1, 2, "kong"), (0, 1, 2, "kong"), (2, 1, 2, "win")),
         (-2, 8, -4, -2), 1, (("plain", "root"),), front="5p1s", back="2s"),
    # an exposed kong (刮风, 直杠) of the dealer's 5p: 2 bases from the discarder alone;
    # then the same win on seat 2's 9m: 2
    Case("kong_exposed", {0: "5p...", 1: "555p123m456m78m99p", 2: "9m..."},
         "0-5p 1E5p<0 1+2s 1-2s 2+1s 2-9m 1H9m<2",
         ((0, 1, 2, "kong"), (2, 1, 2, "win")), (-2, 4, -2, 0), 1, (("plain", "root"),),
         front="1s", back="2s"),
    # an added kong (巴杠): seat 1 pongs the dealer's 5p, draws the fourth later and adds
    # it: 1 base from each player still in (2, 3, 0); it wins on seat 2's 6m: 平胡 + 根 1,
    # 2
    Case("kong_added", {0: "5p...", 1: "55p123m456m78m99p9m", 2: "6m..."},
         "0-5p 1P5p<0 1-9m ~3 1+5p 1A5p 1+6s 1-6s 2+4s 2-6m 1H6m<2",
         ((2, 1, 1, "kong"), (3, 1, 1, "kong"), (0, 1, 1, "kong"), (2, 1, 2, "win")),
         (-1, 5, -3, -1), 1, (("plain", "root"),), front="1s2s3s5p4s", back="6s"),
    # 抢杠胡: seat 2 pongs the dealer's 5p and adds the fourth; seat 1, waiting on 2p / 5p,
    # robs it. The robbed kong is not made and collects nothing; 平胡 + 抢杠胡 1 = 1 番,
    # paid by the robbed seat 2: 2
    Case("robbed_kong", {0: "5p...", 1: "123m456m789m34p99p", 2: "55p9s..."},
         "0-5p 2P5p<0 2-9s ~3 2+5p 2A5p 1H5p<2", ((2, 1, 2, "win"),), (0, 2, -2, 0), 1,
         (("plain", "robbed_kong"),), front="1s2s3s5p"),
    # --- 杠上花 and 点杠花 -------------------------------------------------------------
    # 杠上花: seat 1's concealed kong of 5p (2 from each of 2, 3, 0), then it draws its 9m
    # as the replacement: 平胡 + 根 1 + 杠上花 1 = 2 番 = 4 from each, plus 自摸加底 1
    Case("kong_bloom", {0: "9s...", 1: "555p123m456m78m99p"}, "0-9s 1+5p 1C5p 1+9m 1H9m",
         ((2, 1, 2, "kong"), (3, 1, 2, "kong"), (0, 1, 2, "kong"),
          *_sd(1, (2, 3, 0), 4, 1)), (-7, 21, -7, -7), 1,
         (("plain", "root", "kong_bloom"),), front="5p", back="9m"),
    # 点杠花 paid as a self-draw (the default): the exposed kong of the dealer's 5p (2 from
    # the dealer), the replacement 9m wins: 2 番 = 4 + 1 from each of 2, 3, 0
    Case("exposed_kong_bloom_self_draw", {0: "5p...", 1: "555p123m456m78m99p"},
         "0-5p 1E5p<0 1+9m 1H9m", ((0, 1, 2, "kong"), *_sd(1, (2, 3, 0), 4, 1)),
         (-7, 17, -5, -5), 1, (("plain", "root", "kong_bloom"),), back="9m"),
    # 点杠花 paid by the kong's discarder alone as a win on its discard
    # (exposed_kong_bloom = discarder): the dealer pays 4, no 自摸加底
    Case("exposed_kong_bloom_discarder", {0: "5p...", 1: "555p123m456m78m99p"},
         "0-5p 1E5p<0 1+9m 1H9m", ((0, 1, 2, "kong"), (0, 1, 4, "win")), (-6, 6, 0, 0), 1,
         (("plain", "root", "kong_bloom"),), back="9m",
         overrides={"exposed_kong_bloom": "discarder"}),
    # --- 杠上炮 and its kong's income ----------------------------------------------------
    # seat 2 makes a concealed kong of 6p (2 from each of 3, 0, 1), draws 4p and discards
    # it; seat 1 wins on it: 平胡 + 杠上炮 1 = 1 番, 2 from seat 2; 呼叫转移: the kong's 6
    # goes from seat 2 to seat 1
    Case("kong_discard_transfer", {0: "9s...", 1: PLAIN, 2: "666p..."},
         "0-9s 1+1s 1-1s 2+6p 2C6p 2+4p 2-4p 1H4p<2",
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 2, "win"),
          (2, 1, 6, "kong_transfer")), (-2, 6, -2, -2), 1,
         (("plain", "kong_discard"),), front="1s6p", back="4p"),
    # the refund variant: the kong's money back to each of its payers
    Case("kong_discard_refund", {0: "9s...", 1: PLAIN, 2: "666p..."},
         "0-9s 1+1s 1-1s 2+6p 2C6p 2+4p 2-4p 1H4p<2",
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 2, "win"),
          (2, 3, 2, "kong_refund"), (2, 0, 2, "kong_refund"), (2, 1, 2, "kong_refund")),
         (0, 2, -2, 0), 1, (("plain", "kong_discard"),), front="1s6p", back="4p",
         overrides={"kong_discard_income": "refund"}),
    # neither: the kong's income stays with seat 2
    Case("kong_discard_none", {0: "9s...", 1: PLAIN, 2: "666p..."},
         "0-9s 1+1s 1-1s 2+6p 2C6p 2+4p 2-4p 1H4p<2",
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 2, "win")),
         (-2, 0, 4, -2), 1, (("plain", "kong_discard"),), front="1s6p", back="4p",
         overrides={"kong_discard_income": "none"}),
    # 一炮多响 on the 杠上炮: seats 1 and 3 both win on seat 2's 4p (the log lists seat 1
    # first); the winner nearest the discarder in turn order is seat 3 (3, then 0, then 1),
    # so 呼叫转移 hands seat 3 the 6. Each win 2. The discarder, seat 2, deals next.
    Case("kong_discard_transfer_nearest", {0: "9s...", 1: PLAIN, 2: "666p...",
                                           3: "123s456s789s23p55p"},
         "0-9s 1+1s 1-1s 2+6p 2C6p 2+4p 2-4p 1H4p<2 3H4p<2",
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 2, "win"),
          (2, 3, 2, "win"), (2, 3, 6, "kong_transfer")), (-2, 0, -4, 6), 2,
         (("plain", "kong_discard"), ("plain", "kong_discard")), front="1s6p", back="4p"),
    # --- 天胡 and 地胡: the cap ---------------------------------------------------------
    # 天胡: the dealer's dealt 14 are complete: 4 番 (the cap) = 16 + 自摸加底 1 from each
    Case("heavenly", {0: PLAIN + "4p"}, "0H4p", _sd(0, (1, 2, 3), 16, 1), (51, -17, -17, -17),
         0, (("plain", "heavenly"),)),
    # 地胡: seat 1 self-draws on its first draw, before any claim: the cap, 16 + 1 each
    Case("earthly", {0: "9s...", 1: PLAIN}, "0-9s 1+4p 1H4p", _sd(1, (2, 3, 0), 16, 1),
         (-17, 51, -17, -17), 1, (("plain", "earthly"),), front="4p"),
    # --- 自摸 ---------------------------------------------------------------------------
    # 自摸加底: seat 1's 对对胡 (1 番 = 2) self-drawn on its second draw: each of 2, 3, 0
    # pays 2 + 1 base
    Case("self_draw_add_base", {0: "9s...", 1: "111m444m777p999p5p"},
         "0-9s 1+1s 1-1s ~3 1+5p 1H5p", _sd(1, (2, 3, 0), 2, 1), (-3, 9, -3, -3), 1,
         (("all_pungs",),), front="1s2s3s4s5p"),
    # 自摸加番: one 番 more, 对对胡 1 + 1 = 2 番 = 4 from each
    Case("self_draw_add_fan", {0: "9s...", 1: "111m444m777p999p5p"},
         "0-9s 1+1s 1-1s ~3 1+5p 1H5p", _sd(1, (2, 3, 0), 4), (-4, 12, -4, -4), 1,
         (("all_pungs", "self_draw"),), front="1s2s3s4s5p",
         overrides={"self_draw": "add_fan"}),
    # 自摸 doubles: 2, doubled: 2 more from each
    Case("self_draw_double", {0: "9s...", 1: "111m444m777p999p5p"},
         "0-9s 1+1s 1-1s ~3 1+5p 1H5p", _sd(1, (2, 3, 0), 2, 2), (-4, 12, -4, -4), 1,
         (("all_pungs",),), front="1s2s3s4s5p", overrides={"self_draw": "double"}),
    # --- 海底 ---------------------------------------------------------------------------
    # 海底捞月: the wall's 55 tiles are drawn in turn from seat 1; seat 3 draws the last,
    # 4p, and wins: 平胡 + 海底捞月 1 = 1 番 = 2 + 1 from each of 0, 1, 2
    Case("seabed_draw", {0: "9s...", 3: PLAIN}, "0-9s ~54 3+4p 3H4p",
         _sd(3, (0, 1, 2), 2, 1), (-3, -3, -3, 9), 3, (("plain", "seabed_draw"),),
         back="4p"),
    # 海底炮: seat 3 draws the last tile, 4p, and discards it; seat 1 wins on it: 平胡 +
    # 海底炮 1 = 1 番, 2 from seat 3
    Case("seabed_discard", {0: "9s...", 1: PLAIN, 3: "4p..."}, "0-9s ~54 3+4p 3-4p 1H4p<3",
         ((3, 1, 2, "win"),), (0, 2, 0, -2), 1, (("plain", "seabed_discard"),), back="4p"),
    # --- 一炮多响 and the next dealer ----------------------------------------------------
    # seats 1 and 2 both win on the dealer's 4p: 平胡 each, 1 from the dealer to each; the
    # discarder deals next
    Case("two_winners", {0: "4p...", 1: PLAIN, 2: PLAIN_S}, "0-4p 1H4p<0 2H4p<0",
         ((0, 1, 1, "win"), (0, 2, 1, "win")), (-2, 1, 1, 0), 0,
         (("plain",), ("plain",))),
    # dealer_after_multiple = first_winner: seat 3 discards 4p, seats 2 and 1 win (the log
    # lists seat 2 first); the winner nearest seat 3 in turn order (0, 1, 2) is seat 1
    Case("two_winners_nearest_deals", {0: "9s...", 1: PLAIN, 2: PLAIN_S, 3: "4p..."},
         "0-9s ~2 3+1s 3-4p 2H4p<3 1H4p<3", ((3, 2, 1, "win"), (3, 1, 1, "win")),
         (0, 1, 1, -2), 1, (("plain",), ("plain",)), front="1s2s1s",
         overrides={"dealer_after_multiple": "first_winner"}),
    # the default for the same hand: the discarder, seat 3, deals next
    Case("two_winners_discarder_deals", {0: "9s...", 1: PLAIN, 2: PLAIN_S, 3: "4p..."},
         "0-9s ~2 3+1s 3-4p 2H4p<3 1H4p<3", ((3, 2, 1, "win"), (3, 1, 1, "win")),
         (0, 1, 1, -2), 3, (("plain",), ("plain",)), front="1s2s1s"),
    # --- the wall's end (nobody wins; the 55 tiles drawn in turn from seat 1, each
    # discarded at once, a seat holding its declared suit discarding that first) -------
    # Seat 0 (declares s, discards its 9s first) waits on 1p / 4p: best 平胡, 1. Seat 1
    # waits on 4s (平胡) or 5s (对对胡 1 番): best 2. Seat 3 is not ready. Seat 2 declares
    # s and still holds bamboo with its 9m and 9p at the end: a 花猪.
    # 查花猪: seat 2 pays each player who is not a 花猪 (3, 0, 1) the cap, 16,
    # and nothing else; 查大叫: seat 3 pays seat 0 its 1 and seat 1 its 2. Nobody won:
    # the dealer stays.
    Case("wall_end_flower_pig", WALL_END, "0=s 2=s 0-9s ~55 X",
         ((2, 3, 16, "flower_pig"), (2, 0, 16, "flower_pig"), (2, 1, 16, "flower_pig"),
          (3, 0, 1, "not_ready"), (3, 1, 2, "not_ready")), (17, 18, -48, 13), 0),
    # flower_pig off: seat 2, holding three suits, is not ready: it pays 查大叫 like seat
    # 3 (1 to seat 0, 2 to seat 1); dealer_after_draw = next: seat 1 deals next
    Case("wall_end_no_flower_pig", WALL_END, "0=s 2=s 0-9s ~55 X",
         ((2, 0, 1, "not_ready"), (2, 1, 2, "not_ready"), (3, 0, 1, "not_ready"),
          (3, 1, 2, "not_ready")), (2, 4, -3, -3), 1,
         overrides={"flower_pig": False, "dealer_after_draw": "next"}),
    # 退税: seat 2 makes a concealed kong of 6p on its first turn (2 from each of 3, 0, 1)
    # and is not ready at the end: it pays 查大叫 (1 to seat 0, 2 to seat 1) as seat 3
    # does, and pays back its kong's 2 to each payer
    Case("wall_end_tax_refund", {**WALL_END, 2: "6666p11s2s44s5s78s9s"},
         "0=s 0-9s 1+2s 1-2s 2+1p 2C6p 2+3s 2-3s ~52 X",
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"),
          (2, 0, 1, "not_ready"), (2, 1, 2, "not_ready"), (3, 0, 1, "not_ready"),
          (3, 1, 2, "not_ready"), (2, 3, 2, "tax_refund"), (2, 0, 2, "tax_refund"),
          (2, 1, 2, "tax_refund")), (2, 4, -3, -3), 0, front="2s1p", back="3s"),
    # --- 血战到底 (sichuan-xuezhan): three winners -------------------------------------
    # seat 1 self-draws 4p on its second draw: 平胡 1 + 1 (自摸加底) from each of 2, 3, 0,
    # and leaves; seat 2 draws 9p and makes a concealed kong of 5s: 2 from each player
    # still in, 3 and 0 (not seat 1); the dealer's 1p is won by seats 2 (123s 789s 123p
    # 99p + the kong: 平胡 + 根 1 = 2) and 3 (平胡, 1); seat 0 is left alone: the hand ends.
    # The first winner, seat 1, deals next.
    Case("xuezhan_three_winners", XUEZHAN, XUEZHAN_PLAY,
         (*_sd(1, (2, 3, 0), 1, 1), (3, 2, 2, "kong"), (0, 2, 2, "kong"), (0, 2, 2, "win"),
          (0, 3, 1, "win")), (-7, 6, 4, -3), 1,
         (("plain",), ("plain", "root"), ("plain",)), front=XUEZHAN_FRONT, back="7m",
         ruleset="sichuan-xuezhan"),
    # 血战 to the wall's end: seat 1 self-draws 5s on its second draw (对对胡 1 番 = 2, + 1
    # from each of 2, 3, 0) and leaves; the others play on to the wall's end (50 more
    # tiles; the 花猪 draws bamboo while there is any). 查花猪: the 花猪 seat 2 pays the
    # cap, 16, to each player who is not a 花猪 in turn order after it: 3, 0 and seat 1,
    # who has left after winning (flower_pig_pays_winners, on by default); 查大叫: seat 3,
    # not ready, pays the ready seat 0 its 1 (seat 1 has left: 查大叫 pays the players
    # still in). Seat 1, the first winner, deals next.
    Case("xuezhan_wall_end", WALL_END, "0=s 2=s 0-9s ~4 1+5s 1H5s ~50 X",
         (*_sd(1, (2, 3, 0), 2, 1), (2, 3, 16, "flower_pig"), (2, 0, 16, "flower_pig"),
          (2, 1, 16, "flower_pig"), (3, 0, 1, "not_ready")), (14, 25, -51, 12), 1,
         (("all_pungs",),),
         front=_arranged(WALL_END, "1m2m3m4m5s", [2, 3, 0] * 16 + [2, 3], "s", 2),
         ruleset="sichuan-xuezhan"),
    # the same with flower_pig_pays_winners off: the 花猪 pays the players still in only,
    # 16 to seats 3 and 0, not to seat 1
    Case("xuezhan_wall_end_pig_pays_players_in", WALL_END, "0=s 2=s 0-9s ~4 1+5s 1H5s ~50 X",
         (*_sd(1, (2, 3, 0), 2, 1), (2, 3, 16, "flower_pig"), (2, 0, 16, "flower_pig"),
          (3, 0, 1, "not_ready")), (14, 9, -35, 12), 1, (("all_pungs",),),
         front=_arranged(WALL_END, "1m2m3m4m5s", [2, 3, 0] * 16 + [2, 3], "s", 2),
         ruleset="sichuan-xuezhan", overrides={"flower_pig_pays_winners": False}),
    # 血战, 杠上炮 then the wall's end: seat 2 makes a concealed kong of 6p (2 from each of
    # 3, 0, 1), draws 3s and discards 5s; seat 1 wins on it (333s 666s 777p 888p 55s: 对对胡
    # 1 + 杠上炮 1 = 2 番, 4) and leaves; 呼叫转移 hands it the kong's 6. The others play
    # to the wall's end: seat 0 is ready (平胡, 1), seats 2 and 3 are not: each pays seat 0
    # 1 (查大叫); seat 2's kong income went to seat 1 already, so 退税 returns nothing.
    Case("xuezhan_kong_discard_then_wall_end", XUEZHAN_KONG, XUEZHAN_KONG_PLAY,
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 4, "win"),
          (2, 1, 6, "kong_transfer"), (2, 0, 1, "not_ready"), (3, 0, 1, "not_ready")),
         (0, 8, -5, -3), 1, (("all_pungs", "kong_discard"),), front="2s1p", back="3s",
         ruleset="sichuan-xuezhan"),
    # the same with kong_discard_income = none: the kong's income stays with seat 2, which
    # is not ready at the wall's end: 退税 pays its 2 back to each of 3, 0 and 1
    Case("xuezhan_kong_discard_none_tax_refund", XUEZHAN_KONG, XUEZHAN_KONG_PLAY,
         ((3, 2, 2, "kong"), (0, 2, 2, "kong"), (1, 2, 2, "kong"), (2, 1, 4, "win"),
          (2, 0, 1, "not_ready"), (3, 0, 1, "not_ready"), (2, 3, 2, "tax_refund"),
          (2, 0, 2, "tax_refund"), (2, 1, 2, "tax_refund")),
         (2, 4, -5, -1), 1, (("all_pungs", "kong_discard"),), front="2s1p", back="3s",
         ruleset="sichuan-xuezhan", overrides={"kong_discard_income": "none"}),
    # --- 血流成河 (sichuan-xueliu): a player winning twice ------------------------------
    # seat 1 self-draws 4p on its second draw: 平胡 1 + 1 (自摸加底) from each of 2, 3, 0;
    # the 4p is set aside and seat 1 stays. Play goes on from seat 2; the dealer draws 2p
    # and discards 1p: seat 1 wins again, 平胡, 1 from the dealer. Play goes on from seat 2
    # to the wall's end, everyone still in: seat 1 is ready (平胡, 1), seats 0, 2 and 3 are
    # not and each pays it 1 (查大叫). Seat 1, the first winner, deals next.
    Case("xueliu_winning_twice", XUELIU,
         "0-9s ~4 1+4p 1H4p 2+1m 2-1m 3+9m 3-9m 0+2p 0-1p 1H1p<0 ~47 X",
         (*_sd(1, (2, 3, 0), 1, 1), (0, 1, 1, "win"), (0, 1, 1, "not_ready"),
          (2, 1, 1, "not_ready"), (3, 1, 1, "not_ready")), (-4, 10, -3, -3), 1,
         (("plain",), ("plain",)), front="1s2s3s4s4p1m9m2p", ruleset="sichuan-xueliu"),
    # --- sichuan-sbr (the tournament rules, 血战到底, cap 3) ------------------------------
    # the same play; seat 3 holds 七对 with 4444s among them. Seat 1: 平胡 1 + 1 from each.
    # Seat 2's kong: 2 from 3 and 0; its win: 平胡 + the kong 1 番 (a kong is no 根 here)
    # = 2. Seat 3: 七对 2 + 根 1 (the four inside 七对) = 3 番, within the cap: 8.
    Case("sbr_three_winners", {**XUEZHAN, 3: "4444s66s88p77p33p1p"}, XUEZHAN_PLAY,
         (*_sd(1, (2, 3, 0), 1, 1), (3, 2, 2, "kong"), (0, 2, 2, "kong"), (0, 2, 2, "win"),
          (0, 3, 8, "win")), (-14, 6, 4, 4), 1,
         (("plain",), ("plain", "kong"), ("seven_pairs", "root")), front=XUEZHAN_FRONT,
         back="7m", ruleset="sichuan-sbr"),
]


def _audit(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    """Every golden log, audited by one ``zhuoji audit --json`` of the folder."""
    code, out = _audit("--json", str(FOLDER))
    found = {row["game_id"]: row for row in map(json.loads, out.splitlines())}
    assert code == 0, [(k, r["violations"]) for k, r in found.items() if r["violations"]]
    return found


def test_the_logs_are_the_scripts() -> None:
    """Each file of the folder is its case's script, written (no file left over)."""
    names = sorted(p.stem for p in FOLDER.glob("*.json"))
    assert names == sorted(c.name for c in CASES)
    for case in CASES:
        on_disk = json.loads((FOLDER / f"{case.name}.json").read_text(encoding="utf-8"))
        assert on_disk == document(case), case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_recomputed_ledger_is_the_rule(case: Case, rows: dict[str, dict[str, Any]]
                                          ) -> None:
    row = rows[case.name]
    assert row["violations"] == []
    assert [(i["payer"], i["payee"], i["amount"], i["reason"]) for i in row["ledger"]] == list(
        case.items)
    assert row["deltas"] == list(case.deltas) == row["recorded_deltas"]
    assert sum(row["deltas"]) == 0
    assert row["next_dealer"] == case.next_dealer == row["recorded_next_dealer"]
    if case.scored:
        assert [tuple(w["scored"]) for w in row["winners"]] == list(case.scored)


def _flat(value: Any) -> bool:
    """A value written on one line: a scalar, or a list or object of scalars (a tile list,
    an event, a ledger item)."""
    if isinstance(value, list):
        return all(not isinstance(v, (list, dict)) for v in value)
    if isinstance(value, dict):
        return all(not isinstance(v, (list, dict))
                   or (isinstance(v, list) and len(v) <= 3 and _flat(v))
                   for v in value.values())
    return True


def dump(value: Any, pad: str = "") -> str:
    """JSON for reading: each event, item, player and tile list on one line."""
    if _flat(value):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    inner = pad + " "
    if isinstance(value, list):
        return "[\n" + ",\n".join(inner + dump(v, inner) for v in value) + "\n" + pad + "]"
    parts = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dump(v, inner)}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(parts) + "\n" + pad + "}"


def write_all() -> None:
    """Write every case's log into :data:`FOLDER` (and remove the files of no case)."""
    FOLDER.mkdir(exist_ok=True)
    keep = set()
    for case in CASES:
        path = FOLDER / f"{case.name}.json"
        path.write_text(dump(document(case)) + "\n", encoding="utf-8")
        keep.add(path.name)
    for path in FOLDER.glob("*.json"):
        if path.name not in keep:
            path.unlink()


if __name__ == "__main__":
    write_all()
    sys.exit(0)
