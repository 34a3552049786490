"""Changsha's rules at the table: what the family adds to the core's table.

A Changsha ruleset gives the core's table (:mod:`zhuoji.rules.table`), once per ruleset
(:func:`table_rules`), a :class:`~zhuoji.rules.table.TableRules` holding:

* its settings in the core's names (``players``, 通炮 several winners, 抢杠胡 on an added
  kong) and its core mechanics (chow by the discarder's next player, 开杠 dice only when
  ready and the hand locked after them, 海底漫游, 扎鸟), which the core plays;
* the family's event kind ``small_win`` (起手小胡: 四喜, 板板胡, 缺一色, 六六顺), checked
  against the dealt hand (``bad_small_win``);
* its hooks: the 2-5-8 pair of a 小胡 on every win (``no_258_pair``), 漏胡 on a win on
  another player's tile (``missed_win``), and the pattern names of a legal win.

``docs/rules/changsha.md`` describes each rule with the seed's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from zhuoji.rules.events import SmallWin
from zhuoji.rules.facts import PassKind
from zhuoji.rules.families.changsha.patterns import (
    ALL_258,
    BIG_PATTERNS,
    Pattern,
    SmallWinKind,
    has_258_pair,
    is_258,
    shape_patterns,
)
from zhuoji.rules.families.changsha.settings import Ruleset
from zhuoji.rules.hand import is_seven_pairs
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Kind, Phase, TableRules, WinPlan, WinSource
from zhuoji.rules.tiles import Tile, format_tiles
from zhuoji.rules.view import TableEdit, TableView, never_plain
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = ["ChangshaTable", "table_rules", "win_shape"]

_C = ViolationCode
_SUITED = 27
_WIN_SELF = WinSource.SELF_DRAW
_WIN_ROB = WinSource.ROBBED_KONG
_KINDS = frozenset(k.value for k in SmallWinKind)


def _all_pungs(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """The concealed tiles are pungs and one pair, and no meld is a chow."""
    if any(m.kind is MeldKind.CHOW for m in melds):
        return False
    pairs = 0
    for i in range(_SUITED):
        c = counts[i]
        if c == 2:
            pairs += 1
        elif c not in (0, 3):
            return False
    return pairs == 1


def win_shape(counts: Sequence[int], melds: Sequence[Meld]) -> tuple[Pattern, ...]:
    """The shape patterns of a complete hand (its concealed counts with the winning tile):
    the big shapes, else ``small`` with a 2-5-8 pair, else none."""
    return shape_patterns(counts, melds, is_seven_pairs(counts, len(melds)),
                          _all_pungs(counts, melds))


def _is_win(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """A complete hand is a Changsha win: a big shape (any pair), or a 小胡 with a 2-5-8
    pair (the table's ``win_filter`` under ``pair_258``: a hand waiting only on tiles that
    make neither is not ready, 「二五八做将」)."""
    return has_258_pair(counts) or _big_shape(counts, melds)  # the 小胡 first: most


def _big_shape(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """A complete hand is one of the big shapes that take any pair (碰碰胡, 将将胡, 清一色,
    七小对): what :func:`win_shape` finds beyond ``small``, in one pass over the tiles."""
    if is_seven_pairs(counts, len(melds)) or _all_pungs(counts, melds):
        return True
    suits = 0
    only_258 = True
    for i in range(_SUITED):
        if counts[i]:
            suits |= 1 << (i // 9)
            if only_258 and not is_258(i):
                only_258 = False
    for m in melds:
        for x in m.tiles:
            suits |= 1 << (x // 9)
            if only_258 and not is_258(x):
                only_258 = False
        if m.kind is MeldKind.CHOW:
            only_258 = False
    return suits in (1, 2, 4) or (only_258 and suits != 0)


_WORD_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_WORD = _WORD_START | frozenset("0123456789_")


def _describe_small(ev: SmallWin) -> Message:
    kind = ev.kind
    if kind[:1] in _WORD_START and all(c in _WORD for c in kind):  # a name, as patterns are
        return Message("seat {seat} declares {k:pattern} (起手小胡) showing {t:tiles}", ev.seat,
                       kind, format_tiles(ev.tiles))
    return Message("seat {seat} declares {k:any} (起手小胡) showing {t:tiles}", ev.seat, kind,
                   format_tiles(ev.tiles))


def _after(what: Message, clause: str, *values: object) -> Message:
    """A ``small_win``'s illegal-move message: the event, then what is wrong with it."""
    return Message("{e:event}{r:after_event}", what, Message(clause, *values))


class ChangshaTable:
    """The Changsha rules of one ruleset at the table (made once per ruleset by
    :func:`table_rules`; its methods are the hooks and the ``small_win`` kind's rule)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.name = ruleset.name
        self.pair_258 = ruleset.pair_258
        self.small_wins = ruleset.small_wins
        self.missed_win = ruleset.missed_win

    # ------------------------------------------------------------------ 起手小胡
    def check_small_win(self, t: TableView, ev: SmallWin) -> Violation | None:
        """A ``small_win``: the ruleset plays 起手小胡, the kind is one of the four, it
        comes on the dealt hand (before the dealer's first discard, no claim and no kong
        yet), the tiles shown are in the hand and show the kind (四喜: the four tiles;
        六六顺: the two triplets; 板板胡 and 缺一色: the whole hand)."""
        seat = ev.seat
        what = _describe_small(ev)
        if not self.small_wins:
            return t.violation(
                _C.BAD_SMALL_WIN, seat,
                _after(what, " but ruleset {r:ruleset} has no 起手小胡 (small_wins off)",
                       repr(self.name)))
        if ev.kind not in _KINDS:
            return t.violation(
                _C.BAD_SMALL_WIN, seat,
                _after(what, ": unknown kind {q:quoted}; the kinds are: {k:pattern*, }",
                       repr(ev.kind), sorted(_KINDS)))
        if (t.rivers[t.dealer] or t.claimed_any or any(t.seat_melds)
                or t.phase is not Phase.DISCARD):
            return t.violation(
                _C.BAD_SMALL_WIN, seat,
                _after(what, " too late: 起手小胡 are declared on the dealt hand, before "
                       "the dealer's first discard"))
        kind = SmallWinKind(ev.kind)
        for prev in t.noted:  # the same kind again: a whole-hand kind once, the others
            # on other tiles only (a second 四喜 of another quad adds up, 「小胡…组合累计」)
            if (isinstance(prev, SmallWin) and prev.seat == seat and prev.kind == ev.kind
                    and (kind is SmallWinKind.NO_258 or kind is SmallWinKind.MISSING_SUIT
                         or set(prev.tiles) & set(ev.tiles))):
                return t.violation(
                    _C.BAD_SMALL_WIN, seat,
                    _after(what, " but declared {k:pattern} on those tiles already",
                           ev.kind))
        hand = t.hands[seat]
        shown = [0] * _SUITED
        for x in ev.tiles:
            if x >= _SUITED:
                return t.violation(
                    _C.BAD_SMALL_WIN, seat,
                    _after(what, ": {tile} is not a suited tile", x))
            shown[x] += 1
        if any(shown[i] > hand[i] for i in range(_SUITED)):
            return t.violation(
                _C.BAD_SMALL_WIN, seat,
                _after(what, " but the tiles are not in its hand; {held}",
                       t.summary(seat)))
        held = [i for i in range(_SUITED) if shown[i]]
        if kind is SmallWinKind.FOUR_OF_A_KIND:
            ok = len(held) == 1 and shown[held[0]] == 4
            want = Message("four of one tile (四喜)")
        elif kind is SmallWinKind.TWO_TRIPLETS:
            ok = len(held) == 2 and all(shown[i] == 3 for i in held)
            want = Message("two triplets (六六顺), six tiles")
        else:
            whole = shown == list(hand[:_SUITED])
            if kind is SmallWinKind.NO_258:
                ok = whole and not any(is_258(i) for i in held)
                want = Message("the whole hand, holding no 2, 5 or 8 (板板胡)")
            else:
                ok = whole and len({i // 9 for i in held}) < 3
                want = Message("the whole hand, missing a suit (缺一色)")
        if not ok:
            return t.violation(
                _C.BAD_SMALL_WIN, seat,
                _after(what, " but it shows {w:smallwant} only; {held}", want,
                       t.summary(seat)))
        return None

    def apply_small_win(self, t: TableEdit, ev: SmallWin) -> None:
        """A declared 起手小胡 changes nothing at the table: the table keeps it for the
        settlement, which pays it (:attr:`~zhuoji.rules.replay.HandReplay.noted`)."""
        t.note(ev)

    # ------------------------------------------------------------------ a win
    def check_win(self, t: TableView, plan: WinPlan) -> Violation | None:
        """Every win, once the core found the hand complete: the 2-5-8 pair of a 小胡
        (``no_258_pair``), then 漏胡 on a win on another player's tile (``missed_win``)."""
        ev = plan.event
        seat = ev.seat
        shape = win_shape(plan.counts, t.seat_melds[seat])
        if not shape and not self.pair_258:
            shape = (Pattern.SMALL,)
        plan.shape = frozenset(p.value for p in shape)
        if not shape:
            return t.violation(
                _C.NO_258_PAIR, seat,
                Message("seat {seat} wins on {tile} but a 小胡 needs a pair of 2, 5 "
                        "or 8 (二五八做将) and the hand is none of 碰碰胡, 将将胡, "
                        "清一色, 七小对; {h:held}",
                        seat, ev.tile, t.summary(seat)))
        if plan.source is _WIN_SELF or not self.missed_win:
            return None
        return self._missed_win(t, seat, ev.tile, plan.offer_index)

    def _missed_win(self, t: TableView, seat: int, tile: Tile, current: int) -> Violation | None:
        """漏胡: the seat let a win on ``tile`` from another player (a discard, or an added
        kong's tile) pass, and has not played since: its hand is the one that could have
        won then, and it has drawn nothing. (A seat that claimed a tile since has a hand
        other than the one it passed with, which the table does not keep: it is not held
        to the pass.)"""
        river = t.rivers[seat]
        since = river[-1].event_index if river else -1
        passed: list[tuple[int, int]] = []  # (event index, from seat)
        for other in t.rivers:
            for entry in reversed(other):
                if entry.event_index <= since:
                    break
                if (entry.tile == tile and entry.seat != seat
                        and entry.event_index < current):
                    passed.append((entry.event_index, entry.seat))
        for offer in t.rob_offers:
            if offer.tile == tile and offer.seat != seat and since < offer.event_index < current:
                passed.append((offer.event_index, offer.seat))
        if not passed:
            return None
        idx, frm = min(passed)
        return t.violation(
            _C.MISSED_WIN, seat,
            Message("seat {seat} wins on {tile} from another player but let a win on "
                    "{t2:tile} pass (seat {s2:seat}, event {n}) and has drawn no tile "
                    "since (漏胡); {h:held}", seat, tile, tile, frm, idx, t.summary(seat)))

    def win_patterns(self, t: TableView, plan: WinPlan, heavenly: bool, earthly: bool,
                     kong_bloom: bool, declared: bool
                     ) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
        """The shape patterns and the situational patterns of a legal win: 天胡, 地胡 (on
        the dealer's first discard),
        海底捞月, 海底炮, 杠上开花 and 杠上炮 (each after the dice only: a replacement
        drawn without them wins as a plain self-draw), 抢杠胡. A 小胡 with a 大胡 counts as
        the 大胡: ``small`` is left out then."""
        ev = plan.event
        seat, tile = ev.seat, ev.tile
        known = plan.shape
        shape = (tuple(p.value for p in win_shape(plan.counts, t.seat_melds[seat]))
                 if known is None else tuple(p.value for p in Pattern if p.value in known))
        w = t.wall_mechanics
        rolled = False
        seabed_draw = seabed_discard = kong_discard = False
        if w is not None:
            if w.rolls and t.kong_records:
                roll = w.rolls[-1]
                # the dice of the latest kong only: a later kong replaced without them
                # (补) that draws the same tile again is a plain replacement
                latest = roll.kong_index == t.kong_records[-1].event_index
                if plan.source is _WIN_SELF:
                    rolled = latest and roll.seat == seat and roll.tile == tile
                elif plan.source is not _WIN_ROB:
                    disc = t.last_discard
                    kong_discard = (latest and plan.hot and roll.seat == disc.seat
                                    and roll.tile == tile)
            if w.last_tile is not None and w.replaced_by < 0 and tile == w.last_tile:
                if plan.source is _WIN_SELF:
                    seabed_draw = seat == w.last_drawer
                elif plan.source is not _WIN_ROB:
                    disc = t.last_discard
                    seabed_discard = (disc.seat == w.last_drawer
                                      and disc.event_index == w.last_draw_at + 1)
        # 地胡 here is a non-dealer's win on the dealer's first discard (「当庄家打出第一张牌时
        # 给闲家点炮」), not the core's first-round self-draw
        earthly = (plan.source is not _WIN_SELF and plan.source is not _WIN_ROB
                   and seat != t.dealer and t.last_discard.seat == t.dealer
                   and len(t.rivers[t.dealer]) == 1 and not t.claimed_any)
        flags = (
            (Pattern.HEAVENLY, heavenly), (Pattern.EARTHLY, earthly),
            (Pattern.SEABED_DRAW, seabed_draw), (Pattern.SEABED_DISCARD, seabed_discard),
            (Pattern.KONG_BLOOM, kong_bloom and rolled),
            (Pattern.ROBBING_KONG, plan.source is _WIN_ROB),
            (Pattern.KONG_DISCARD, kong_discard),
        )
        situational = tuple(p.value for p, on in flags if on)
        if situational or any(Pattern(p) in BIG_PATTERNS for p in shape):
            shape = tuple(p for p in shape if p != Pattern.SMALL.value)
        passes: tuple[PassKind, ...] = (
            (PassKind.SELF_DRAW,) if plan.source is _WIN_SELF else ())
        return (PassKind.NO_PASS_RULE, *passes), shape, situational


def table_rules(ruleset: RulesetBase) -> TableRules:
    """The :class:`~zhuoji.rules.table.TableRules` of a Changsha ruleset (called once per
    ruleset)."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"ruleset {ruleset.name!r} is not a Changsha ruleset")
    c = ChangshaTable(ruleset)
    return TableRules(
        "changsha",
        ruleset.name,
        players=ruleset.players,
        multiple_winners=ruleset.multiple_winners,
        robbing_kong=ruleset.robbing_kong,
        mechanics=mechanics_of(ruleset),
        kinds={SmallWin: Kind(never_plain, c.check_small_win, c.apply_small_win)},
        check_win=c.check_win,
        check_self_draw=True,
        win_patterns=c.win_patterns,
        extra_shapes=ALL_258,
        win_filter=_is_win if ruleset.pair_258 else None,
    )


