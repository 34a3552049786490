"""The core's rules of each event kind every family plays: draw, discard, pong, kong, win
and the exhaustive draw, each a check (the violation an event would be, or ``None``) and an
apply (the change a legal event makes), as the :class:`~zhuoji.rules.core.state.Kind` of
:data:`CORE_KINDS`.

The plain case of a draw, a discard and a pong (legal as it stands) is the table's own
(:mod:`zhuoji.rules.core.state`); each check here starts from it. An optional mechanic adds
its rules through the state object the table holds for it, or replaces a kind with its
own rules checked first and these after (:mod:`zhuoji.rules.core.wall`).
"""

from __future__ import annotations

from typing import Final

from zhuoji.rules.core.declared import (
    check_claimed_kong,
    check_own_kong,
)
from zhuoji.rules.core.declared import (
    check_discard as check_declared_discard,
)
from zhuoji.rules.core.declared import (
    check_pong as check_declared_pong,
)
from zhuoji.rules.core.state import (
    Kind,
    Phase,
    Table,
    WinPlan,
    WinSource,
    _after,
    _apply_discard,
    _apply_draw,
    _apply_pong,
    _claim_discard,
    _fmt,
    _KongRecord,
    _meld,
    _not_plain,
    _plain_discard,
    _plain_draw,
    _plain_pong,
    _RobOffer,
    _shown,
    _tiles,
    _WonTile,
    holds_flower,
)
from zhuoji.rules.event_registry import describe_event
from zhuoji.rules.events import Discard, Draw, ExhaustiveDraw, Kong, KongKind, Pong, Win
from zhuoji.rules.facts import ClaimKind, PassKind, WinFact
from zhuoji.rules.melds import Meld, MeldKind
from zhuoji.rules.messages import Message
from zhuoji.rules.tiles import EVERY_TILE
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = ["CORE_KINDS"]

_C = ViolationCode
# the phases, kinds and sources as module constants (Final: the compiled engine reads them as
# C statics, not from another module's dict; see state.py)
_DISCARD: Final = Phase.DISCARD
_AFTER_CLAIM: Final = Phase.DISCARD_AFTER_CLAIM
_CLAIM: Final = Phase.CLAIM
_KONG_DRAW: Final = Phase.KONG_DRAW
_WON: Final = Phase.WON
_ENDED: Final = Phase.ENDED
_SEABED: Final = Phase.SEABED
_FLOWER_DRAW: Final = Phase.FLOWER_DRAW
_PLAY_ON: Final = Phase.PLAY_ON
_PONG: Final = MeldKind.PONG
_EXPOSED: Final = KongKind.EXPOSED
_ADDED: Final = KongKind.ADDED
_CONCEALED: Final = KongKind.CONCEALED
_WILD: Final = 27
_WIN_SELF: Final = WinSource.SELF_DRAW
_WIN_DISCARD: Final = WinSource.DISCARD
_WIN_ROB: Final = WinSource.ROBBED_KONG


# ---------------------------------------------------------------------- checks
def _not_your_turn(t: Table, ev: Draw | Discard | Kong | Win) -> Violation:
    return t._v(_C.OUT_OF_TURN, ev.seat, _after(ev, " but {phase}", t._describe_phase()))


def _check_draw(t: Table, ev: Draw) -> Violation | None:
    if _plain_draw(t, ev):
        return None
    ph = t._phase
    if ph is _CLAIM:
        due = t._next[t._disc.seat]
        back = False
    elif ph is _KONG_DRAW:
        due = t._turn
        back = True
    elif ph is _SEABED:
        due = t._turn
        back = False
    elif ph is _FLOWER_DRAW:
        due = t._flower_seat()
        back = True
    elif ph is _PLAY_ON:
        due = t._resume_seat()
        back = False
    else:
        return _not_your_turn(t, ev)
    if ev.seat != due:
        return t._v(_C.OUT_OF_TURN, ev.seat,
                    _after(ev, " but seat {seat} is due to draw ({phase})", due,
                           t._describe_phase()))
    if t._back <= t._front:
        return t._v(_C.WALL_EXHAUSTED, ev.seat, _after(ev, " but the wall is empty"))
    tile = ev.tile
    if t._wall is not None:
        want = t._wall[t._back - 1] if back else t._wall[t._front]
        if tile != want:
            end = ("front" if not back else "back (kong replacement)" if ph is _KONG_DRAW
                   else "back (flower replacement)")
            return t._v(_C.WALL_MISMATCH, ev.seat,
                        _after(ev, " but the next tile at the wall's {end:wallend} is {tile}",
                               Message(end), want))
    elif t._taken[tile] >= t._copies[tile]:
        return t._v(_C.TILE_OVERFLOW, ev.seat,
                    _after(ev, " but all {n} copies of {tile} are already out; {held}",
                           t._copies[tile], tile, t.summary(ev.seat)))
    if ph is _FLOWER_DRAW:
        return None  # the flower replacement (never the plain case)
    raise AssertionError(f"{describe_event(ev)}: a draw neither plain nor illegal")


def _check_discard(t: Table, ev: Discard) -> Violation | None:
    if _plain_discard(t, ev):
        return None
    seat = ev.seat
    ph = t._phase
    if (ph is not _DISCARD and ph is not _AFTER_CLAIM) or t._turn != seat:
        return _not_your_turn(t, ev)
    tile = ev.tile
    if tile == _WILD:
        return t._v(_C.WILDCARD_DISCARD, seat,
                    _after(ev, ": a wildcard may never be discarded; {held}", t.summary(seat)))
    if tile >= len(t._hands[seat]) or not t._hands[seat][tile]:
        return t._v(_C.NOT_IN_HAND, seat, _after(ev, " but {held}", t.summary(seat)))
    if t._flowers and holds_flower(t._hands[seat]):
        return t._v(_C.FLOWER_NOT_SHOWN, seat,
                    _after(ev, " while holding a flower, which is shown and replaced before the "
                               "discard; {held}", t.summary(seat)))
    declared = t._declared
    if declared.frozen[seat] or declared.pending == seat:
        v = check_declared_discard(t, ev, seat, tile)
        if v is not None:
            return v
    for state in t._checks:
        v = state.check_discard(t, seat, tile)
        if v is not None:
            return v
    return None


def _claim_target(t: Table, ev: Pong | Kong, code: ViolationCode) -> Violation | None:
    if t._phase is not _CLAIM:
        return t._v(code, ev.seat, _after(ev, " but there is no discard to claim ({phase})",
                                              t._describe_phase()))
    d, tile = t._disc.seat, t._disc.tile
    if ev.from_seat != d or ev.tile != tile:
        return t._v(code, ev.seat, _after(ev, " but the last discard is {tile} by seat {seat}",
                                              tile, d))
    if ev.seat == d:
        return t._v(code, ev.seat, _after(ev, ": a player cannot claim its own discard"))
    return None


def _check_pong(t: Table, ev: Pong) -> Violation | None:
    if _plain_pong(t, ev):
        return None
    v = _claim_target(t, ev, _C.ILLEGAL_PONG)
    if v is not None:
        return v
    if t._hands[ev.seat][ev.tile] < 2:
        return t._v(_C.ILLEGAL_PONG, ev.seat,
                    _after(ev, " without two {tile}: {held}", ev.tile, t.summary(ev.seat)))
    v = check_declared_pong(t, ev)
    if v is not None:
        return v
    if not t._plain_turn:  # a mechanic's hooks add to the check
        for state in t._checks:
            v = state.check_meld(t, ev.seat, ev.tile, _C.ILLEGAL_PONG, describe_event(ev))
            if v is not None:
                return v
        return None
    raise AssertionError(f"{describe_event(ev)}: a pong neither plain nor illegal")


def _check_kong(t: Table, ev: Kong) -> Violation | None:
    seat, tile, kind = ev.seat, ev.tile, ev.kind
    if kind is _EXPOSED:
        v = _claim_target(t, ev, _C.ILLEGAL_KONG)
        if v is not None:
            return v
        if t._hands[seat][tile] < 3:
            return t._v(_C.ILLEGAL_KONG, seat,
                        _after(ev, " without three {tile}: {held}", tile, t.summary(seat)))
        if t._back <= t._front:
            return t._v(_C.ILLEGAL_KONG, seat,
                        _after(ev, " but the wall is empty (no replacement draw)"))
        v = check_claimed_kong(t, ev)
        if v is not None:
            return v
        return _kong_hooks(t, ev)
    ph = t._phase
    if t._turn != seat or (ph is not _DISCARD and ph is not _AFTER_CLAIM):
        return _not_your_turn(t, ev)
    if ev.from_seat is not None:
        return t._v(_C.ILLEGAL_KONG, seat,
                    _after(ev, ": only an exposed kong names a discarder"))
    if ph is _AFTER_CLAIM:
        return t._v(_C.ILLEGAL_KONG, seat,
                    _after(ev, " but after a pong the player must discard; {held}",
                               t.summary(seat)))
    hand = t._hands[seat]
    if tile == _WILD:
        return t._v(_C.ILLEGAL_KONG, seat, _after(ev, ": wildcards form no melds"))
    if kind is _ADDED:
        if not any(m.kind is _PONG and m.tile == tile for m in t._melds[seat]):
            return t._v(_C.ILLEGAL_KONG, seat,
                        _after(ev, " without a pong of {tile}: {held}", tile, t.summary(seat)))
        if not hand[tile]:
            return t._v(_C.ILLEGAL_KONG, seat,
                        _after(ev, " without the fourth {tile}: {held}", tile, t.summary(seat)))
    elif hand[tile] < 4:
        return t._v(_C.ILLEGAL_KONG, seat,
                    _after(ev, " without four {tile}: {held}", tile, t.summary(seat)))
    if t._back <= t._front:
        return t._v(_C.ILLEGAL_KONG, seat,
                    _after(ev, " but the wall is empty (no replacement draw)"))
    v = check_own_kong(t, ev)
    if v is not None:
        return v
    return _kong_hooks(t, ev)


def _kong_hooks(t: Table, ev: Kong) -> Violation | None:
    for state in t._checks:
        v = state.check_meld(t, ev.seat, ev.tile, _C.ILLEGAL_KONG, describe_event(ev))
        if v is not None:
            return v
    return None


def _check_win(t: Table, ev: Win) -> Violation | None:
    seat, tile, frm = ev.seat, ev.tile, ev.from_seat
    ph = t._phase
    hand = t._hands[seat]
    ready_at = t._declared.at
    if ph is _WON or ph is _PLAY_ON:
        won = t._won_tile
        assert won is not None
        c_from, c_tile = won.from_seat, won.tile
        if won.source is _WIN_SELF:
            if ph is _PLAY_ON:
                return t._v(_C.INVALID_WIN, seat,
                            _after(ev, " but {phase}, after a self-drawn win",
                                   t._describe_phase()))
            return t._v(_C.EVENT_AFTER_END, seat,
                        _after(ev, " after a self-drawn win ended the hand"))
        if t._won[seat] and (not t._stay or _won_on_tile(t, seat, won.offer_index)):
            return t._v(_C.INVALID_WIN, seat, _after(ev, " but seat {seat} already won", seat))
        if frm != c_from or tile != c_tile:
            return t._v(_C.INVALID_WIN, seat,
                        _after(ev, " but only further wins on {tile} from seat {seat} may follow "
                                   "the win", c_tile, c_from))
        if not t._rules.multiple_winners:
            return t._v(_C.INVALID_WIN, seat,
                        _after(ev, " but ruleset {r:ruleset} allows one winner per tile "
                                   "(一炮多响 off)", repr(t._rules.name)))
        if seat == frm:
            return t._v(_C.INVALID_WIN, seat, _after(ev, ": its own tile"))
        plan = WinPlan(ev, won.source, hand[:], won.hot, won.kill, won.offer_index)
        plan.counts[tile] += 1
    elif frm is None:
        if t._turn != seat or ph is not _DISCARD:
            if t._turn == seat and ph is _AFTER_CLAIM:
                return t._v(_C.INVALID_WIN, seat,
                            _after(ev, " but has drawn nothing since its pong; {held}",
                                       t.summary(seat)))
            return _not_your_turn(t, ev)
        if t._last_draw >= 0:
            if tile != t._last_draw:
                return t._v(_C.INVALID_WIN, seat,
                            _after(ev, " but drew {tile}; {held}", EVERY_TILE[t._last_draw],
                                       t.summary(seat)))
        elif not hand[tile]:
            return t._v(_C.INVALID_WIN, seat, _after(ev, " but {held}", t.summary(seat)))
        plan = WinPlan(ev, _WIN_SELF, hand, False, False, -1)
    else:
        kong = t._pending_kong
        if ph is _CLAIM and frm == t._disc.seat and tile == t._disc.tile:
            d_at = ready_at[frm]
            plan = WinPlan(ev, _WIN_DISCARD, hand[:], t._disc.hot, d_at is not None,
                            t._disc.event_index)
        elif (ph is _KONG_DRAW and kong is not None and frm == kong.seat and tile == kong.tile
              and kong.kind is _ADDED):
            if not t._rules.robbing_kong:
                return t._v(_C.INVALID_WIN, seat,
                            _after(ev, " but ruleset {r:ruleset} does not allow robbing a kong "
                                       "(抢杠)", repr(t._rules.name)))
            plan = WinPlan(ev, _WIN_ROB, hand[:], False, ready_at[frm] is not None,
                            kong.event_index)
        else:
            if ph is _CLAIM:
                what = _after(ev, " but the last discard is {tile} by seat {seat}",
                              t._disc.tile, t._disc.seat)
            elif ph is _KONG_DRAW:
                what = _after(ev, " but only an added kong can be robbed, on its own tile")
            else:
                what = _after(ev, " but there is no discard to win on ({phase})",
                              t._describe_phase())
            return t._v(_C.INVALID_WIN, seat, what)
        if seat == frm:
            return t._v(_C.INVALID_WIN, seat, _after(ev, ": its own tile"))
        plan.counts[tile] += 1
    melds = t._melds[seat]
    if not t._complete_at(seat, plan.counts):
        return t._v(_C.INVALID_WIN, seat, _after(ev, " but {s:shown} is not complete",
                                                 _shown(_fmt(plan.counts), melds)))
    if t._rules.win_needs_missing_suit and t._suits(seat, plan.counts) == 3:
        return t._v(_C.MISSING_SUIT, seat,
                    _after(ev, " with all three suits (缺一门 required): {s:shown}",
                           _shown(_fmt(plan.counts), ())))
    for state in t._checks:
        v = state.check_win(t, seat, plan.counts, describe_event(ev))
        if v is not None:
            return v
    t._plan = plan
    if plan.source == _WIN_SELF and not t._rules.check_self_draw:
        return None
    check = t._rules.check_win  # the family's rules of a win on another player's tile
    return None if check is None else check(t, plan)


def _won_on_tile(t: Table, seat: int, offer_index: int) -> bool:
    """``seat`` has won on the tile last won (offered at ``offer_index``): a winner who
    stays in the hand (血流成河) may win on a later tile, never twice on one."""
    return any([w.seat == seat and w.event_index > offer_index for w in t._winners])


def _check_exhaustive(t: Table, ev: ExhaustiveDraw) -> Violation | None:
    ph = t._phase
    if (ph is not _CLAIM and ph is not _KONG_DRAW and ph is not _FLOWER_DRAW
            and ph is not _PLAY_ON):
        return t._v(_C.PREMATURE_END, None,
                    Message("exhaustive draw while no draw is due ({phase})", t._describe_phase()))
    if t._back > t._front:
        return t._v(_C.PREMATURE_END, None,
                    Message("exhaustive draw with {n} tiles left in the wall", t._back - t._front))
    return None


# ---------------------------------------------------------------------- apply
def _apply_any_draw(t: Table, ev: Draw) -> None:
    """A draw that went through the full check: a flower's replacement (never the plain
    case) or the draw the plain case would have applied."""
    if t._phase is _FLOWER_DRAW:
        t._hands[ev.seat][ev.tile] += 1
        if t._wall is None:
            t._taken[ev.tile] += 1
        assert t._claims is not None
        t._claims.apply_flower_draw(t, ev)
    else:
        _apply_draw(t, ev)


def _apply_kong(t: Table, ev: Kong) -> None:
    seat, tile, kind = ev.seat, ev.tile, ev.kind
    hand = t._hands[seat]
    melds = t._melds[seat]
    pong: Meld | None = None
    position = -1
    delayed = False
    if kind is _EXPOSED:
        hand[tile] -= 3
        melds.append(_meld(MeldKind.EXPOSED_KONG, tile, ev.from_seat, False))
        _claim_discard(t, seat, ClaimKind.EXPOSED_KONG)
        t._turn = seat
    else:
        delayed = tile in t._passed_kongs[seat]
        if kind is _ADDED:
            hand[tile] -= 1
            for i, m in enumerate(melds):
                if m.kind is _PONG and m.tile == tile:
                    pong, position = m, i
                    break
            assert pong is not None
            melds[position] = _meld(MeldKind.ADDED_KONG, tile, pong.from_seat, delayed)
            t._pong_tiles[seat].remove(tile)
        else:
            hand[tile] -= 4
            melds.append(_meld(MeldKind.CONCEALED_KONG, tile, None, delayed))
    idx = t._index
    kong = _KongRecord(seat, tile, kind, idx, ev.from_seat, delayed, pong, position)
    t._kongs.append(kong)
    t._pending_kong = kong
    t._phase = _KONG_DRAW
    t._kong_turn = True
    t._claimed_any = True
    t._last_draw = -1
    t._waits[seat] = None
    if kind is _ADDED and t._rules.robbing_kong:
        t._rob_offers.append(_RobOffer(idx, tile, seat))


def _apply_win(t: Table, ev: Win) -> None:
    plan = t._plan
    if plan is None or plan.event is not ev:
        _check_win(t, ev)
        plan = t._plan
    assert plan is not None
    t._plan = None
    seat, tile = ev.seat, ev.tile
    source = plan.source
    dealer = t._dealer
    self_drawn = source is _WIN_SELF
    concealed_counts = t._hands[seat][:]
    if self_drawn:
        concealed_counts[tile] -= 1
        waits = t._waits_before(seat, tile)
        again = t._won[seat]  # a second win (血流成河) is neither 天胡 nor 地胡
        heavenly = seat == dealer and t._last_draw < 0 and not again
        earthly = (seat != dealer and not t._rivers[seat] and not t._melds[seat]
                   and not t._claimed_any and not again)
        kong_bloom = t._replaced
    else:
        waits = plan.waits if plan.waits is not None else t._seat_waits(seat)
        heavenly = earthly = kong_bloom = False
    melds = t._melds[seat]
    plan.waits = waits
    declared = t._declared.at[seat] is not None
    robbed = source is _WIN_ROB
    named = t._rules.win_patterns  # the family's passes and pattern names of the win
    passes: tuple[PassKind, ...] = ()
    shape: tuple[str, ...] = ()
    situational: tuple[str, ...] = ()
    if named is not None:
        passes, shape, situational = named(t, plan, heavenly, earthly, kong_bloom, declared)
    t._winners.append(WinFact(
        seat, tile, t._index, ev.from_seat, self_drawn, robbed, kong_bloom, plan.hot,
        heavenly, earthly, declared, plan.kill, passes, shape,
        situational, _tiles(concealed_counts), tuple(melds), waits,
    ))
    t._won[seat] = True
    first = t._phase is not _WON and t._phase is not _PLAY_ON
    if first:
        if source is _WIN_DISCARD:
            _claim_discard(t, seat, ClaimKind.WIN)
            t._won_tile = _WonTile(t._disc.seat, tile, source, plan.hot, plan.kill,
                                   plan.offer_index)
        elif robbed:
            kong = t._pending_kong
            assert kong is not None and kong.pong is not None
            k_seat = kong.seat
            t._melds[k_seat][kong.position] = kong.pong  # the kong does not stand: a pong again
            t._pong_tiles[k_seat].append(tile)
            kong.robbed = True
            t._robbed_tiles += 1
            t._waits[k_seat] = None
            t._won_tile = _WonTile(k_seat, tile, source, False, plan.kill, plan.offer_index)
        else:
            t._won_tile = _WonTile(-1, tile, source, False, False, -1)
        t._phase = _WON
    for state in t._checks:
        state.after_win(t, seat, first)


def _apply_exhaustive(t: Table, ev: ExhaustiveDraw) -> None:
    t._phase = _ENDED


CORE_KINDS: dict[type, Kind] = {
    Discard: Kind(_plain_discard, _check_discard, _apply_discard),
    Draw: Kind(_plain_draw, _check_draw, _apply_any_draw),
    Pong: Kind(_plain_pong, _check_pong, _apply_pong),
    Kong: Kind(_not_plain, _check_kong, _apply_kong),
    Win: Kind(_not_plain, _check_win, _apply_win, after_win=True),
    ExhaustiveDraw: Kind(_not_plain, _check_exhaustive, _apply_exhaustive, seated=False),
}
"""The core's event kinds (every family plays them): plain case, check and apply."""
