"""Play after a win, and the state one hand leaves to the next
(``docs/rules/families.md``, ``docs/rules/legality.md``).

* ``play_after_win`` (血战到底): a win does not end the hand; the seat after the winner
  (after the last of several winners on one discard) draws next, a seat that has won
  takes no further part, and the hand ends when one seat is left without a win or the
  wall ends. A table whose family plays it keeps a :class:`PlayOnState`
  (:data:`MECHANIC`).
* ``winners_stay`` with it (血流成河): a seat that has won stays in the hand, takes its
  turns and claims as before and may win again, on any later tile; a self-drawn winning
  tile is set aside (it leaves the hand, which is back to its waiting size), a win on a
  discard or a robbed kong leaves the winner's hand as it was. Play goes on from the seat
  after the last winner, and the hand ends only with the wall (an exhaustive draw).
* ``carry``: the state one hand leaves to the next within a game (荒番 multipliers, 连庄),
  recomputed from the earlier hands by the family's hook and compared with a hand's
  recorded ``carry`` (:class:`Carry`, :func:`carry_findings`; no table state).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from zhuoji.rules.core.mechanic import Mechanic, MechanicState
from zhuoji.rules.core.state import Kind, Phase, Table
from zhuoji.rules.events import HandRecord
from zhuoji.rules.frozen import quick_init
from zhuoji.rules.mechanics import Mechanics
from zhuoji.rules.messages import Message
from zhuoji.rules.violations import Violation, ViolationCode

__all__ = [
    "MECHANIC",
    "Carry",
    "PlayOnState",
    "carry_findings",
    "carry_of",
    "sequence_finding",
]

_C = ViolationCode
_PLAY_ON: Final = Phase.PLAY_ON


# ---------------------------------------------------------------------- carry
@dataclass(frozen=True, slots=True)
class Carry:
    """State carried into a hand from the earlier hands of its game, by name, in name
    order (e.g. ``draw_multiplier`` for 荒番, ``dealer_streak`` for 连庄)."""

    values: tuple[tuple[str, int], ...]

    def __init__(self, values: tuple[tuple[str, int], ...]) -> None:
        # compiled: native stores (past the frozen __setattr__); interpreted: see quick_init
        self.values = values  # type: ignore[misc]

    def get(self, name: str, default: int = 0) -> int:
        for key, value in self.values:
            if key == name:
                return value
        return default

    def as_dict(self) -> dict[str, int]:
        return dict(self.values)


quick_init(Carry)


def carry_of(values: Mapping[str, int]) -> Carry:
    """A :class:`Carry` of a mapping (names sorted: the same state is the same value)."""
    return Carry(tuple(sorted(values.items())))


# ---------------------------------------------------------------------- the state
class PlayOnState(MechanicState):
    """What the table keeps for play after a win: the winners on the tile last won, and
    where play resumes; ``stay``: winners stay in the hand (血流成河)."""

    def __init__(self, stay: bool = False) -> None:
        self.stay = stay
        self.round_winners: list[int] = []  # the winners on the tile last won
        self.resume: int = -1  # after a win: the seat that draws next

    def check_seat(self, t: Table, seat: int, what: str) -> Violation | None:
        return None if self.stay else check_active(t, seat, what)

    def after_win(self, t: Table, seat: int, first: bool) -> None:
        after_win(t, seat, first)

    def describe_phase(self, t: Table) -> str | None:
        return describe_play_on(t) if t._phase is _PLAY_ON else None


def _state(t: Table) -> PlayOnState:
    c = t._play_on
    assert c is not None
    return c


# ---------------------------------------------------------------------- after a win
def check_active(t: Table, seat: int, what: str) -> Violation | None:
    """血战到底: a seat that has won takes no further part in the hand."""
    if not t._won[seat]:
        return None
    at = next(w.event_index for w in t._winners if w.seat == seat)
    return t._v(_C.ACTED_AFTER_WIN, seat,
                Message("{e:event}{r:after_event}", what,
                        Message(" but seat {seat} won at event {n} and takes no further turns "
                                "(血战到底)", seat, at)))


def after_win(t: Table, seat: int, first: bool) -> None:
    """After a win (``first``: the first on its tile): the next seats skip the winners;
    play resumes from the seat after the last winner, unless one seat is left. Winners
    who stay (血流成河) are skipped by nobody, and a self-drawn winning tile is set aside."""
    c = _state(t)
    if first:
        c.round_winners = []
    c.round_winners.append(seat)
    n = t._n
    t._pending_kong = None  # a robbed kong gets no replacement
    won_tile = t._won_tile
    assert won_tile is not None
    if c.stay:
        gone = [False] * n  # nobody leaves the hand
        if won_tile.from_seat < 0:
            set_aside_win(t, seat, won_tile.tile)
    else:
        gone = t._won
        active = [s for s in range(n) if not gone[s]]
        if len(active) <= 1:
            t._phase = Phase.WON  # one seat left without a win: the hand is over
            return
        t._next = tuple([_next_active(gone, s, n) for s in range(n)])
    origin = won_tile.from_seat if won_tile.from_seat >= 0 else seat
    last = max(c.round_winners, key=lambda w: (w - origin) % n)
    c.resume = _next_active(gone, last, n)
    t._phase = Phase.PLAY_ON


def set_aside_win(t: Table, seat: int, tile: int) -> None:
    """血流成河: a self-drawn winning tile leaves the hand, which is back to its waiting
    size (its waits: those before the win, which the win recorded)."""
    t._hands[seat][tile] -= 1
    t._waits[seat] = t._winners[-1].waits


def _next_active(won: list[bool], seat: int, n: int) -> int:
    for k in range(1, n + 1):
        s = (seat + k) % n
        if not won[s]:
            return s
    return seat


def resume_seat(t: Table) -> int:
    """The seat that draws next after a win (血战到底)."""
    return _state(t).resume


def describe_play_on(t: Table) -> str:
    if _state(t).stay:
        return Message("after the win, seat {seat} draws next (血流成河)", resume_seat(t))
    return Message("after the win, seat {seat} draws next (血战到底)", resume_seat(t))


# ---------------------------------------------------------------------- carry findings
def carry_findings(hand_no: int, recorded: tuple[tuple[str, int], ...] | None,
                   ours: Carry | None, carries: bool) -> list[Violation]:
    """``carry_mismatch`` for each value of a hand's recorded ``carry`` the engine does not
    recompute the same (non-fatal; the hand is replayed all the same)."""
    if recorded is None:
        return []
    if not carries:
        return [Violation(_C.CARRY_MISMATCH, hand_no, None, None,
                          Message("the hand records carry {c:any} but its ruleset carries no "
                                  "state from hand to hand (mechanics.carry off)",
                                  dict(recorded)), False)]
    if ours is None:
        return []
    out: list[Violation] = []
    mine = ours.as_dict()
    for name, value in recorded:
        if name not in mine:
            known = sorted(mine)
            if known:
                message = Message("the hand records carry {w:external} = {n}, which the family "
                                  "does not carry (it carries {k:external*, })", name, value, known)
            else:
                message = Message("the hand records carry {w:external} = {n}, which the family "
                                  "does not carry (it carries nothing)", name, value)
            out.append(Violation(_C.CARRY_MISMATCH, hand_no, None, None, message, False))
        elif mine[name] != value:
            out.append(Violation(_C.CARRY_MISMATCH, hand_no, None, None,
                                 Message("the hand records carry {w:external} = {n}, the earlier "
                                         "hands of the game give {m:n}", name, value,
                                         mine[name]), False))
    return out


def sequence_finding(previous: int | None, hand_no: int) -> Violation | None:
    """``hand_sequence`` when a hand does not follow the one before it in the log (the
    state carried is computed from the hands in log order)."""
    if previous is None or hand_no == previous + 1:
        return None
    return Violation(_C.HAND_SEQUENCE, hand_no, None, None,
                     Message("hand {n} follows hand {p:n} in the game, hand {q:n} expected; the "
                             "state carried from hand to hand is computed in log order",
                             hand_no, previous, previous + 1), False)


def _kinds(mech: Mechanics) -> dict[type, Kind]:
    return {}


def _new_state(t: Table, record: HandRecord) -> PlayOnState:
    state = t._play_on = PlayOnState(t._stay)
    return state


MECHANIC = Mechanic("play_on", ("play_after_win",), _kinds, _new_state, plain_turn=False)
"""Play after a win (a discard and a pong always take the full check: a seat that won
takes no part)."""
