"""Guizhou's rules at the table: what the family adds to the core's table, and how.

The core's table (:mod:`zhuoji.rules.table`) plays the turns, the claims, the kongs and their
replacement draws, the wall and the wins; a Guizhou ruleset gives it, once per ruleset
(:func:`table_rules`), a :class:`~zhuoji.rules.table.TableRules` holding:

* the Guizhou settings in the core's names (``players``, ``wildcards``, ``set_aside``,
  一炮多响, 抢杠, 不可先碰后杠, a kong after 报听, 缺一门, the 相公 deal tolerance) and the
  tiles whose first discard is kept (the standing chickens 幺鸡 乌骨鸡 挖挖鸡);
* the family's event kinds: ``ready`` (报听: 硬报 and 软听, the frozen hand the core then
  keeps), ``flip`` (翻鸡, and the flip chosen among the set-aside tiles of 暗麻将) and
  ``chow``, which Guizhou never allows (``chow_not_allowed``);
* its hooks: the 通行证 pass and 过水不胡 on a win on another player's tile, the Guizhou
  pattern names and passes of a win, the flip that is due after a win, the ``ready`` and
  ``flip`` candidates of :meth:`~zhuoji.rules.table.Table.legal_actions`, and the 相公 findings of
  a deal.

``docs/rules/legality.md`` describes each rule; ``docs/rules/families.md`` the split.
"""

from __future__ import annotations

from typing import Final, cast

from zhuoji.rules.events import Chow, Event, Flip, HandRecord, Ready
from zhuoji.rules.facts import PassKind
from zhuoji.rules.families.guizhou.patterns import (
    SHAPE_PATTERNS,
    Pattern,
    in_pattern_order,
    shape_patterns,
    shape_patterns_of_complete,
)
from zhuoji.rules.families.guizhou.settings import MissedWinRule, Ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.messages import Message
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Kind, Phase, TableRules, WinPlan, WinSource
from zhuoji.rules.tiles import ALL_TILES, NUM_KINDS, Tile, format_tiles
from zhuoji.rules.view import TableEdit, TableView, never_plain
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = ["FALSE_HAND_SLACK", "STANDING_CHICKENS", "GuizhouTable", "table_rules"]

STANDING_CHICKENS: tuple[Tile, ...] = (Tile.S1, Tile.P8, Tile.P7)
"""Tiles whose first discard is tracked (冲锋鸡 / 责任鸡): 幺鸡, 乌骨鸡, 挖挖鸡."""

FALSE_HAND_SLACK: Final = 2
"""Tiles a 相公 deal may be off by (多牌少牌); a count further off stays a ``bad_deal``."""

_C = ViolationCode
_DISCARD: Final = Phase.DISCARD
_WON: Final = Phase.WON
_ENDED: Final = Phase.ENDED
_PONG: Final = MeldKind.PONG
_WIN_SELF: Final = WinSource.SELF_DRAW
_WIN_ROB: Final = WinSource.ROBBED_KONG
_SITUATIONS = (Pattern.HEAVENLY, Pattern.EARTHLY, Pattern.KONG_BLOOM, Pattern.HOT_DISCARD,
               Pattern.ROBBING_KONG, Pattern.DECLARED_READY)


def _big_patterns(ruleset: Ruleset) -> frozenset[Pattern]:
    """Shape patterns worth more than plain 平胡 in the ruleset (a 通行证 on their own)."""
    values = ruleset.patterns
    return frozenset(p for p in SHAPE_PATTERNS if values.value_of(p.value) > values.plain)


class HandState:
    """Guizhou's own state of one hand at the table (the table's ``family_state``): the flip."""

    def __init__(self) -> None:
        self.flip: Tile | None = None


def _hand(t: TableView) -> HandState:
    return cast(HandState, t.family_state)


class GuizhouTable:
    """The Guizhou rules of one ruleset at the table (made once per ruleset by
    :func:`table_rules`; its methods are the :class:`~zhuoji.rules.table.TableRules` hooks and the
    checks and applies of the family's event kinds)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.name = ruleset.name
        self.pass_rule = ruleset.pass_rule
        self.declared_ready = ruleset.declared_ready
        self.flip_chicken = ruleset.flip_chicken
        self.kill_ready = ruleset.ready.kill_ready
        self.missed_win = ruleset.penalties.missed_win is not MissedWinRule.NONE
        self.missing_suit = ruleset.missing_suit_required
        self.false_hand = ruleset.penalties.false_hand > 0
        self.big = _big_patterns(ruleset)

    # ------------------------------------------------------------------ the deal
    def deal_findings(self, record: HandRecord) -> list[Violation]:
        """The non-fatal ``false_hand`` findings of a deal the core accepted: a seat dealt
        too many or too few tiles (相公) under a ruleset with ``penalties.false_hand``.
        Such a seat plays on but can never be ready or win; settlement charges it."""
        out: list[Violation] = []
        if not self.false_hand:
            return out
        for seat, tiles in enumerate(record.deal):
            want = 14 if seat == record.dealer else 13
            if len(tiles) != want:
                role = Message("the dealer" if seat == record.dealer else "a non-dealer")
                how = ("seat {seat} ({role:role}) is dealt {n} tiles, {m:n} expected: "
                       + ("too many" if len(tiles) > want else "too few")
                       + " (相公, 多牌少牌): it can neither be ready nor win, and pays under "
                       "penalties.false_hand")
                out.append(Violation(
                    _C.FALSE_HAND, record.hand_no, None, seat,
                    Message(how, seat, role, len(tiles), want), fatal=False))
        return out

    # ------------------------------------------------------------------ 报听
    def check_ready(self, t: TableView, ev: Ready) -> Violation | None:
        seat = ev.seat
        if not self.declared_ready:
            return t.violation(_C.FALSE_READY, seat,
                               t.after_event(ev, " but ruleset {r:ruleset} has no 报听",
                                             repr(self.name)))
        if t.declared_ready[seat] is not None:
            return t.violation(_C.FALSE_READY, seat,
                               t.after_event(ev, " again (already at event {n})",
                                             t.declared_ready[seat]))
        ph = t.phase
        # untouched: no discard and no meld yet, so the seat is in or before its first turn
        untouched = not t.rivers[seat] and not t.seat_melds[seat]
        in_turn = t.turn == seat and ph is _DISCARD
        if seat == t.dealer:
            timely = untouched and in_turn and t.last_draw < 0
            hard = True
            when = Message("the dealer declares on its dealt hand, before its first discard")
        elif not in_turn:
            timely = untouched and not t.rivers[t.dealer] and not t.claimed_any
            hard = True
            when = Message("a non-dealer declares on its dealt hand before the dealer's first "
                           "discard (硬报), or right after its first draw (软听)")
        else:
            timely = untouched
            hard = False
            when = Message("a non-dealer declares right after its first draw (软听)")
        if not timely:
            return t.violation(_C.FALSE_READY, seat,
                               t.after_event(ev, " too late: {when}; {held}", when,
                                             t.summary(seat)))
        if hard and seat != t.dealer:
            if not t.ready_now(seat):
                return t.violation(_C.FALSE_READY, seat,
                                   t.after_event(ev, " but the hand is not ready; {held}",
                                                 t.summary(seat)))
            return None
        hand = t.hands[seat]
        if not any(hand[x] and x != Tile.W and t.ready_after_discard(seat, x)
                   for x in range(NUM_KINDS)):
            return t.violation(_C.FALSE_READY, seat,
                               t.after_event(ev, " but no discard leaves a ready hand; {held}",
                                             t.summary(seat)))
        return None

    def apply_ready(self, t: TableEdit, ev: Ready) -> None:
        seat = ev.seat
        if seat != t.dealer and not (t.turn == seat and t.phase is _DISCARD):
            # 硬报: the dealt hand is frozen at once
            t.declare_ready(seat, hard=True, frozen_now=True)
        else:  # frozen by the discard that follows
            t.declare_ready(seat, hard=seat == t.dealer, frozen_now=False)

    # ------------------------------------------------------------------ a win
    def check_win(self, t: TableView, plan: WinPlan) -> Violation | None:
        """A win on another player's tile, once the core found it complete: the 通行证
        (``no_pass``), then 过水不胡 (``missed_win``, not fatal)."""
        ev = plan.event
        seat, tile = ev.seat, ev.tile
        waits = t.seat_waits(seat)
        plan.waits = waits
        shape = shape_patterns_of_complete(plan.counts, t.seat_melds[seat], tile, waits)
        plan.shape = shape
        passes = self._passes(t, seat, shape, plan.source is _WIN_ROB, plan.hot, plan.kill)
        plan.passes = passes
        if self.pass_rule and not passes:
            return t.violation(_C.NO_PASS, seat,
                               t.after_event(ev, ": a plain hand with no kong and no 报听 needs "
                                             "a pass (通行证) to win on a discard; {held}",
                                             t.summary(seat)))
        if not self.missed_win:
            return None  # the table has no 过水 rule
        return self._missed_win(t, seat, waits, plan.offer_index, ev)

    def _passes(self, t: TableView, seat: int, shape: frozenset[Pattern], rob: bool, hot: bool,
                kill: bool) -> tuple[PassKind, ...]:
        """Every reason a win on another player's tile needs no further pass."""
        out: list[PassKind] = []
        if rob:
            out.append(PassKind.ROBBING_KONG)
        if hot:
            out.append(PassKind.HOT_DISCARD)
        if kill and self.kill_ready:
            out.append(PassKind.KILL_READY)
        if any(m.kind is not _PONG for m in t.seat_melds[seat]):
            out.append(PassKind.KONG)
        if t.declared_ready[seat] is not None:
            out.append(PassKind.DECLARED_READY)
        if not self.big.isdisjoint(shape):
            out.append(PassKind.BIG_HAND)
        return tuple(out)

    def _missed_win(self, t: TableView, seat: int, waits: tuple[Tile, ...], current: int,
                    ev: Event) -> Violation | None:
        """过水不胡 / 包牌: a win on another player's tile after letting a win pass since the
        seat's own last discard (its hand has not changed since then)."""
        since = t.rivers[seat][-1].event_index if t.rivers[seat] else -1
        ready_at = t.declared_ready
        # (event index, tile, from seat, hot, robbing): the tiles the seat could have won on
        missed: list[tuple[int, Tile, int, bool, bool]] = []
        for river in t.rivers:
            for entry in reversed(river):
                if entry.event_index <= since:
                    break
                missed.append((entry.event_index, entry.tile, entry.seat, entry.hot, False))
        for offer in reversed(t.rob_offers):
            if offer.event_index <= since:
                break
            missed.append((offer.event_index, offer.tile, offer.seat, False, True))
        melds = t.seat_melds[seat]
        for idx, tile, frm, hot, rob in sorted(missed):
            if idx == current or frm == seat or tile not in waits:
                continue
            counts = list(t.hands[seat])
            counts[tile] += 1
            if self.missing_suit and t.suits_held(seat, counts) == 3:
                continue
            d_at = ready_at[frm]
            kill = d_at is not None and d_at < idx
            if self.pass_rule and not self._passes(
                    t, seat, shape_patterns(counts, melds, tile, waits), rob, hot, kill):
                continue
            how = (" but let a win on {tile} pass (robbing the kong by seat {seat}, event {n}) "
                   "and has not drawn since (过水不胡); {held}" if rob else
                   " but let a win on {tile} pass (the discard by seat {seat}, event {n}) and "
                   "has not drawn since (过水不胡); {held}")
            return t.violation(_C.MISSED_WIN, seat,
                               t.after_event(ev, how, tile, frm, idx, t.summary(seat)),
                               fatal=False)
        return None

    def win_patterns(self, t: TableView, plan: WinPlan, heavenly: bool, earthly: bool,
                     kong_bloom: bool, declared: bool
                     ) -> tuple[tuple[PassKind, ...], tuple[str, ...], tuple[str, ...]]:
        """The passes, the shape patterns and the situational patterns of a legal win, in
        :class:`~zhuoji.rules.families.guizhou.patterns.Pattern` order."""
        seat, tile = plan.event.seat, plan.event.tile
        waits = plan.waits if plan.waits is not None else ()
        if plan.source is _WIN_SELF:
            passes: tuple[PassKind, ...] = (PassKind.SELF_DRAW,)
        else:
            passes = plan.passes if plan.passes is not None else ()
        known = plan.shape
        shape = (shape_patterns_of_complete(plan.counts, t.seat_melds[seat], tile, waits)
                 if known is None else cast(frozenset[Pattern], known))
        if not self.pass_rule:
            passes = (PassKind.NO_PASS_RULE, *passes)
        situational: tuple[str, ...] = ()
        robbed = plan.source is _WIN_ROB
        if heavenly or earthly or kong_bloom or plan.hot or robbed or declared:
            flags = (heavenly, earthly, kong_bloom, plan.hot, robbed, declared)
            situational = tuple([p for p, on in zip(_SITUATIONS, flags, strict=True) if on])
        return passes, in_pattern_order(shape), situational

    # ------------------------------------------------------------------ 翻鸡
    def closing_due(self, t: TableView) -> bool:
        """The flip is due: the hand was won, the ruleset flips, no flip yet, and a tile to
        flip (the wall's, or the set-aside ones)."""
        return (self.flip_chicken and _hand(t).flip is None
                and (t.wall_left > 0 or bool(t.set_aside)))

    def closing_missing(self, t: TableView) -> Violation:
        return t.violation(_C.BAD_FLIP, None,
                           Message("the log ends without the flip after the win ({n} tiles left "
                                   "in the wall)", t.wall_left), at_event=False)

    def check_flip(self, t: TableView, ev: Flip) -> Violation | None:
        ph = t.phase
        if ph is not _WON:
            shown = _hand(t).flip
            if shown is not None:
                why: str = t.after_event(ev, " but the flip was already shown ({tile})", shown)
            elif ph is _ENDED:  # (a clause the glossary has no Chinese for)
                why = f"{t.describe_event(ev)} but the hand ended without a win"
            else:
                why = t.after_event(ev, " but there was no win ({phase})", t.describe_phase())
            return t.violation(_C.BAD_FLIP, None, why)
        if not self.flip_chicken:
            return t.violation(_C.BAD_FLIP, None,
                               t.after_event(ev, " but ruleset {r:ruleset} has no 翻鸡",
                                             repr(self.name)))
        aside = t.set_aside
        if aside:
            # 暗麻将: the winner chooses the flip among the set-aside tiles, wherever the
            # wall stands
            if ev.tile not in aside:
                return t.violation(_C.BAD_FLIP, None,
                                   t.after_event(ev, " but the flip is chosen among the set-aside "
                                                 "tiles {t:tiles}", format_tiles(aside)))
            return None
        if t.wall_left <= 0:
            return t.violation(_C.BAD_FLIP, None, t.after_event(ev, " but the wall is empty"))
        tile = ev.tile
        if t.known_wall is not None:
            want = t.known_wall[t.wall_front]
            if tile != want:
                return t.violation(_C.BAD_FLIP, None,
                                   t.after_event(ev, " but the next tile at the wall's front is "
                                                 "{tile}", want))
        elif t.taken[tile] >= t.copies[tile]:
            return t.violation(_C.BAD_FLIP, None,
                               t.after_event(ev, " but all {n} copies of {tile} are out",
                                             t.copies[tile], tile))
        return None

    def apply_flip(self, t: TableEdit, ev: Flip) -> None:
        _hand(t).flip = ev.tile
        t.end_hand()

    # ------------------------------------------------------------------ 不可吃牌
    def check_chow(self, t: TableView, ev: Chow) -> Violation | None:
        return t.violation(_C.CHOW_NOT_ALLOWED, ev.seat,
                           t.after_event(ev, ": chow (吃) is never allowed"))

    def apply_chow(self, t: TableView, ev: Chow) -> None:
        # its check always rejects it
        raise AssertionError(f"{t.describe_event(ev)} is never legal")

    # ------------------------------------------------------------------ legal_actions
    def candidates(self, t: TableView, out: list[Event]) -> None:
        """The ``ready`` candidates of a turn (the player to act, and, before the dealer's
        first discard, the untouched others), and the ``flip`` candidates after a win."""
        ph = t.phase
        if ph is _DISCARD:
            if not self.declared_ready:
                return
            s, n = t.turn, t.n_players
            if not t.rivers[s] and not t.seat_melds[s]:
                out.append(Ready(s))
            if not t.rivers[t.dealer] and not t.claimed_any:
                out.extend(Ready(o) for o in ((s + k) % n for k in range(1, n))
                           if not t.rivers[o] and not t.seat_melds[o])
        elif ph is _WON and self.closing_due(t):
            if t.set_aside:
                out.extend(Flip(x) for x in sorted(set(t.set_aside)))
            elif t.known_wall is not None:
                out.append(Flip(t.known_wall[t.wall_front]))
            else:
                out.extend(Flip(x) for x in ALL_TILES if t.taken[x] < t.copies[x])


def table_rules(ruleset: RulesetBase) -> TableRules:
    """The :class:`~zhuoji.rules.table.TableRules` of a Guizhou ruleset (the family's
    ``table_rules``, called once per ruleset)."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"ruleset {ruleset.name!r} is not a Guizhou ruleset")
    g = GuizhouTable(ruleset)
    return TableRules(
        "guizhou",
        ruleset.name,
        players=ruleset.players,
        wildcards=ruleset.wildcards,
        set_aside=ruleset.set_aside,
        multiple_winners=ruleset.multiple_winners,
        robbing_kong=ruleset.robbing_kong,
        pong_then_kong_delayed=ruleset.kongs.pong_then_kong_delayed,
        kong_when_frozen=ruleset.ready.kong_after_ready,
        no_frozen_kong=Message("ruleset {r:ruleset} allows no kong after 报听 "
                               "(ready.kong_after_ready)", repr(ruleset.name)),
        win_needs_missing_suit=ruleset.missing_suit_required,
        deal_slack=FALSE_HAND_SLACK if g.false_hand else 0,
        tracked=STANDING_CHICKENS,
        mechanics=mechanics_of(ruleset),  # none in Guizhou; a model extending it may add some
        kinds={
            Ready: Kind(never_plain, g.check_ready, g.apply_ready),
            Flip: Kind(never_plain, g.check_flip, g.apply_flip, seated=False,
                       after_win=True, after_end=True),
            Chow: Kind(never_plain, g.check_chow, g.apply_chow),
        },
        deal_findings=g.deal_findings,
        check_win=g.check_win,
        win_patterns=g.win_patterns,
        closing_due=g.closing_due,
        closing_missing=g.closing_missing,
        candidates=g.candidates,
        family_state=HandState,
    )
