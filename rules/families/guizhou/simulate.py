"""The simulator: bot players play complete, legal hands and games under a ruleset.

Pure and deterministic: every random choice comes from a :class:`random.Random` seeded
from the caller's seed (never the global generator), and the players choose with fixed
tie-breaks, so a seed gives the same games, event for event.

A hand is played on a :class:`~zhuoji.rules.table.Table`: at every step a player picks one of
the table's legal events, so a simulated log is legal by construction. (The players
propose only the events they could want and the table's ``check`` confirms each, the same
test :meth:`~zhuoji.rules.table.Table.legal_actions` filters with; ``verify=True`` also lists the
legal events at every step and requires the same choice among them.) The players are
plain but plausible:

- **win** whenever the table allows it (self-draw, on a discard, robbing a kong; every
  player who can win on a discard does, where several winners are allowed);
- **declare ready** (报听) whenever the table allows it;
- **discard** toward the fastest hand: the lowest shanten (:mod:`zhuoji.rules.shanten`) after the
  discard, then the least connected tile (isolated and terminal tiles first, standing
  chickens kept a little longer), then the higher tile; never a wildcard. Under 缺一门
  each player picks the suit it holds fewest of at the deal and sheds it first;
- **pong / kong** when the claim does not worsen the shanten.

The finished hand (which the table found clean) is settled by
:func:`~zhuoji.rules.families.guizhou.settlement.settle`; the settlement is the hand's recorded
result and fixes the next hand's dealer and 连庄 count. For fault injection,
:func:`play_record` can replay
a dealt hand with one player breaking a rule on purpose (:class:`Deviation`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from enum import StrEnum

from zhuoji.rules.bots import (
    HandTracker,
    PlayedHand,
    SimulatedGame,
    SimulatedHand,
    SimulationError,
    deal_at_table,
    game_rng,
    generate_games_of,
    recorded_result,
    simulate_game_of,
    simulate_hand_of,
    with_result,
)
from zhuoji.rules.events import (
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Flip,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Ready,
    Win,
)
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.melds import MeldKind
from zhuoji.rules.memo import Memo
from zhuoji.rules.replay import replay_hand, replay_of_table
from zhuoji.rules.shanten import discard_shanten, drop_shanten, shanten_of_keys
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import ALL_TILES, NUM_KINDS, NUM_SUITED, Tile
from zhuoji.rules.view import TableView

__all__ = [
    "Deviation",
    "PlayedHand",
    "SimulatedGame",
    "SimulatedHand",
    "SimulationError",
    "deal_hand",
    "game_rng",
    "generate_games",
    "play_hand",
    "play_record",
    "recorded_result",
    "simulate_game",
    "simulate_hand",
    "with_result",
]

_POW5 = tuple(5**r for r in range(9))
_NO_SUIT = -1
# Standing chickens (幺鸡 1s, 乌骨鸡 8p, 挖挖鸡 7p) are kept a little longer than other tiles.
_KEEP_LONGER = frozenset({Tile.S1, Tile.P8, Tile.P7})
# A hand the bots cannot finish within this many events is a bug in a ruleset or table.
_MAX_EVENTS = 1000


# --------------------------------------------------------------------------------------
# dealing
# --------------------------------------------------------------------------------------


def _shuffled_tiles(ruleset: Ruleset, rng: random.Random) -> list[Tile]:
    tiles = [ALL_TILES[t] for t in range(NUM_SUITED) for _ in range(4)]
    tiles.extend([Tile.W] * ruleset.wildcards)
    rng.shuffle(tiles)
    return tiles


# --------------------------------------------------------------------------------------
# the players
# --------------------------------------------------------------------------------------


def _neighbours(tile: int) -> tuple[tuple[int, int], ...]:
    rank = tile % 9
    out = [(tile + d, w) for d, w in ((-1, 2), (1, 2), (-2, 1), (2, 1)) if 0 <= rank + d <= 8]
    return tuple(out)


def _base(tile: int) -> int:
    rank = tile % 9
    score = -1 if rank in (0, 8) else (0 if rank in (1, 7) else 1)
    return score + (1 if tile in _KEEP_LONGER else 0)


# How useful a tile is beside its neighbours: 4 per other copy held, 2 per tile one rank
# away, 1 per tile two ranks away; terminals count one less, middle tiles one more, and a
# standing chicken one more. Lower is discarded first.
_NEIGHBOURS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    _neighbours(t) for t in range(NUM_SUITED))
_BASE: tuple[int, ...] = tuple(_base(t) for t in range(NUM_SUITED))


_Ranked = tuple[int, int, Tile]
_ORDERS: Memo[tuple[int, int], tuple[_Ranked, ...]] = Memo("simulate.orders", 1 << 16)


def _suit_order(suit: int, key: int) -> tuple[_Ranked, ...]:
    """``(connection, -tile, tile)`` of each tile held in one suit (its key), sorted."""
    got = _ORDERS.data.get((suit, key))
    if got is None:
        counts = [(key // _POW5[r]) % 5 for r in range(9)]
        base = 9 * suit
        out = []
        for r in range(9):
            if counts[r]:
                t = base + r
                score = 4 * (counts[r] - 1) + _BASE[t]
                for n, w in _NEIGHBOURS[t]:
                    score += w * counts[n - base]
                out.append((score, -t, ALL_TILES[t]))
        got = _ORDERS.put((suit, key), tuple(sorted(out)))
    return got


def _ranked(keys: Sequence[int], options: Sequence[Tile]) -> list[_Ranked]:
    """The options in discard order for ties: least connected first, then higher tiles."""
    merged = sorted((*_suit_order(0, keys[0]), *_suit_order(1, keys[1]),
                     *_suit_order(2, keys[2])))
    if len(merged) != len(options):
        wanted = set(options)
        merged = [x for x in merged if x[2] in wanted]
    return merged


class _Player:
    """One bot: its hand (a :class:`~zhuoji.rules.bots.HandTracker`, followed as events are
    played), and the suit it sheds first under 缺一门 (``void``)."""

    __slots__ = ("hand", "void")

    def __init__(self, seat: int, deal: Sequence[Tile], void: int) -> None:
        self.void = void
        self.hand = HandTracker(seat, deal)

    # --- evaluating
    def _policy_keys(self) -> list[int]:
        keys = self.hand.keys[:]
        if self.void != _NO_SUIT:
            keys[self.void] = 0  # the shed suit counts for nothing
        return keys

    def best_discard(self, options: Sequence[Tile]) -> Tile:
        """The discard among ``options`` (legal discards of distinct tiles) to make."""
        hand = self.hand
        void = self.void
        if void != _NO_SUIT:
            shed = [t for t in options if t // 9 == void]
            if shed:
                return _ranked(hand.keys, shed)[0][2]
        # The choice is the least (shanten after the discard, connection, -tile). No
        # discard goes below the shanten of the whole hand (a tile more never raises it),
        # so candidates are tried in (connection, -tile) order and the first that keeps
        # the whole hand's shanten is the choice; if none does, all are compared.
        keys = self._policy_keys()
        wild = hand.counts[Tile.W]
        melds = hand.melds
        floor = shanten_of_keys(keys[0], keys[1], keys[2], wild, melds)
        ranked = _ranked(hand.keys, options)
        after = []
        for _, _, t in ranked:
            s = drop_shanten(keys, t, wild, melds)
            if s <= floor:
                return t
            after.append(s)
        return ranked[after.index(min(after))][2]

    def _after_discard(self, keys: list[int], counts: Sequence[int], melds: int) -> int:
        """The best shanten one discard reaches from a full turn's hand."""
        void = self.void
        wild = counts[Tile.W]
        held = [t for t in range(NUM_SUITED) if counts[t] and t // 9 != void]
        best = min(discard_shanten(keys, held, wild, melds), default=99)
        if void != _NO_SUIT and any(counts[9 * void : 9 * void + 9]):
            best = min(best, shanten_of_keys(keys[0], keys[1], keys[2], wild, melds))
        return best

    def wants_claim(self, tile: Tile, kong: bool) -> bool:
        """Pong (or exposed kong) the discard ``tile`` if that does not worsen the hand."""
        if tile // 9 == self.void:
            return False
        hand = self.hand
        keys = self._policy_keys()
        wild = hand.counts[Tile.W]
        now = shanten_of_keys(keys[0], keys[1], keys[2], wild, hand.melds)
        suit, step = tile // 9, _POW5[tile % 9]
        if kong:
            keys[suit] -= 3 * step
            return shanten_of_keys(keys[0], keys[1], keys[2], wild, hand.melds + 1) <= now
        keys[suit] -= 2 * step
        counts = hand.counts[:]
        counts[tile] -= 2
        return self._after_discard(keys, counts, hand.melds + 1) <= now

    def wants_kong(self, tile: Tile, kind: KongKind) -> bool:
        """A concealed or added kong on the player's own turn, unless it worsens the hand."""
        if tile // 9 == self.void:
            return True  # the suit is shed anyway: the kong only adds value
        hand = self.hand
        keys = self._policy_keys()
        wild = hand.counts[Tile.W]
        keep = self._after_discard(keys, hand.counts, hand.melds)
        suit, step = tile // 9, _POW5[tile % 9]
        if kind is KongKind.CONCEALED:
            keys[suit] -= 4 * step
            return shanten_of_keys(keys[0], keys[1], keys[2], wild, hand.melds + 1) <= keep
        keys[suit] -= step
        return shanten_of_keys(keys[0], keys[1], keys[2], wild, hand.melds) <= keep


def _void_suit(deal: Sequence[Tile], ruleset: Ruleset) -> int:
    if not ruleset.missing_suit_required:
        return _NO_SUIT
    held = [0, 0, 0]
    for t in deal:
        if t < NUM_SUITED:
            held[t // 9] += 1
    return min(range(3), key=lambda s: (held[s], s))


def _choose(table: TableView, players: Sequence[_Player], actions: list[Event]) -> Event:
    """The players' policy over the table's legal events ``actions``: the reference
    definition of what the simulator plays (:class:`_FastChooser` makes the same choice
    without listing every legal event)."""
    phase = table.phase
    wins = [a for a in actions if isinstance(a, Win)]
    if wins:
        return wins[0]  # a win always; on a discard the nearest seat first
    if phase is Phase.DISCARD or phase is Phase.DISCARD_AFTER_CLAIM:
        seat = table.turn
        readies = [a for a in actions if isinstance(a, Ready)]
        if readies:
            others = [a for a in readies if a.seat != seat]
            return others[0] if others else readies[0]
        player = players[seat]
        for a in actions:
            if isinstance(a, Kong) and player.wants_kong(a.tile, a.kind):
                return a
        discards = [a.tile for a in actions if isinstance(a, Discard)]
        if not discards:
            raise SimulationError(f"hand {table.hand_no}: seat {seat} has no legal discard")
        return Discard(seat, player.best_discard(discards))
    if phase is Phase.CLAIM:
        claims: list[Kong | Pong] = [a for a in actions if isinstance(a, Kong)]
        claims += [a for a in actions if isinstance(a, Pong)]
        for a in claims:
            if players[a.seat].wants_claim(a.tile, isinstance(a, Kong)):
                return a
    for a in actions:
        if isinstance(a, Draw | Flip | ExhaustiveDraw):
            return a
    raise SimulationError(
        f"hand {table.hand_no}: nothing to play in phase {phase} among {len(actions)} events"
    )


class Deviation(StrEnum):
    """A rule one player breaks on purpose: the simulator's own fault scenarios, for the
    faults that only a different course of play can show (see ``flows/simulation/faults.py``)."""

    NO_PASS = "no_pass"  # wins on a discard without a 通行证 (the hand then stops)
    MISSING_SUIT = "missing_suit"  # keeps all three suits and wins with them under 缺一门
    MISSED_WIN = "missed_win"  # lets a win pass, then wins on the next tile offered (过水)


class _FastChooser:
    """The same policy as :func:`_choose`, without listing every legal event.

    It proposes, in the policy's order of preference, only the events the players could
    want (a win only for a hand the tile can complete, a ready only for a seat that has
    not discarded yet, the best discard first), and plays the first one the table's
    :meth:`~zhuoji.rules.table.Table.check` accepts; where a preferred discard is refused it falls
    back to the full list. ``check`` is the very test ``legal_actions`` filters with, so the
    log stays legal by construction; the tests play hands both ways, event for event.

    A ``deviant`` seat breaks its :class:`Deviation` once, at its first chance.
    """

    __slots__ = ("aside", "back", "before_draw", "deviant", "deviation", "discarded", "front",
                 "last", "n", "passed", "players", "ruleset", "table", "waiting", "wall")

    def __init__(self, table: TableView, players: Sequence[_Player], wall: Sequence[Tile],
                 ruleset: Ruleset, deviant: int = -1,
                 deviation: Deviation | None = None) -> None:
        self.table = table
        self.players = players
        self.wall = wall
        self.ruleset = ruleset
        # the flip a winner chooses among set-aside tiles: the first in tile order
        self.aside: Tile | None = None
        self.n = table.n_players
        self.front = 0
        self.back = len(wall)
        self.discarded = [False] * self.n
        self.last: Event | None = None
        # shanten of each seat's hand as it waits for others' tiles (None: not known)
        self.waiting: list[int | None] = [None] * self.n
        # the seat's waiting shanten just before its last draw (None: not known)
        self.before_draw: list[int | None] = [None] * self.n
        self.deviant = deviant
        self.deviation = deviation
        self.passed = False  # MISSED_WIN: the deviant has let a win pass

    def played(self, event: Event) -> None:
        """Follow the wall, the discards and the hands as ``event`` is applied."""
        if isinstance(event, Draw):
            if isinstance(self.last, Kong):  # the replacement draw, from the back
                self.back -= 1
            else:
                self.front += 1
        elif isinstance(event, Discard):
            self.discarded[event.seat] = True
        seat = getattr(event, "seat", None)
        if seat is not None:
            self.before_draw[seat] = self.waiting[seat] if isinstance(event, Draw) else None
            self.waiting[seat] = None
            self.players[seat].hand.played(event)
        self.last = event

    def _legal(self, event: Event) -> bool:
        return self.table.check(event) is None

    def _deviant_win(self, win: Win) -> bool | None:
        """For the deviant seat: True to play ``win`` although the table refuses it,
        False to let a win pass, None to follow the table."""
        deviation = self.deviation
        if win.seat != self.deviant or deviation is None:
            return None
        v = self.table.check(win)
        if deviation is Deviation.MISSED_WIN:
            # let every win pass until the table calls one a missed win (过水不胡), then
            # take that one and play on as usual
            if v is None:
                return False
            if v.code == deviation.value:
                self.deviation = None
                return True
            return None
        return v is not None and v.code == deviation.value

    def _win_on(self, tile: Tile, source: int) -> Win | None:
        """The first win on ``tile`` (discarded or added to a kong by ``source``)."""
        n = self.n
        for k in range(1, n):
            o = (source + k) % n
            hand = self.players[o].hand
            waiting = self.waiting[o]
            if waiting is None:
                waiting = self.waiting[o] = hand.shanten()
            if waiting > 0:
                continue  # no tile completes a hand two or more tiles away
            if hand.complete_with(tile):
                win = Win(o, tile, source)
                if self._take(win):
                    return win
        return None

    def _take(self, win: Win) -> bool:
        """Whether the player plays ``win`` (a complete hand): when the table allows it,
        unless the deviant decides otherwise."""
        deviant = self._deviant_win(win) if win.seat == self.deviant else None
        if deviant is None:
            return self._legal(win)
        return deviant

    def choose(self) -> Event:
        table = self.table
        phase = table.phase
        n = self.n
        if phase is Phase.DISCARD or phase is Phase.DISCARD_AFTER_CLAIM:
            seat = table.turn
            player = self.players[seat]
            hand = player.hand
            counts = hand.counts
            if phase is Phase.DISCARD:
                # a hand that waited two or more tiles away cannot be complete after one
                before = self.before_draw[seat]
                if (before is None or before <= 0) and hand.shanten() < 0 and (
                        hand.complete_with(None)):
                    last = self.last
                    if isinstance(last, Draw):
                        tiles: Sequence[int] = (last.tile,)
                    else:
                        tiles = [t for t in range(NUM_KINDS) if counts[t]]
                    for t in tiles:
                        win = Win(seat, ALL_TILES[t])
                        if self._take(win):
                            return win
                if self.ruleset.declared_ready and not all(self.discarded):
                    # only a seat that has not discarded may declare, and only a hand
                    # within one tile of ready can be ready (shanten is a lower bound)
                    for k in (*range(1, n), 0):
                        o = (seat + k) % n
                        if (not self.discarded[o] and self.players[o].hand.shanten() <= 0
                                and self._legal(Ready(o))):
                            return Ready(o)
                kongs: list[Kong] = []
                if 4 in counts:
                    kongs = [
                        Kong(seat, ALL_TILES[t], KongKind.CONCEALED)
                        for t in range(NUM_SUITED) if counts[t] == 4
                    ]
                if hand.pongs:
                    kongs.extend(
                        Kong(seat, m.tile, KongKind.ADDED)
                        for m in table.melds(seat)
                        if m.kind is MeldKind.PONG and counts[m.tile]
                    )
                for kong in kongs:
                    if self._legal(kong) and player.wants_kong(kong.tile, kong.kind):
                        return kong
            held = [ALL_TILES[t] for t in range(NUM_SUITED) if counts[t]]
            best = Discard(seat, player.best_discard(held))
            if self._legal(best):
                return best
            return _choose(table, self.players, table.legal_actions())
        if phase is Phase.CLAIM:
            last = self.last
            assert isinstance(last, Discard)
            d, tile = last.seat, last.tile
            claimed = self._win_on(tile, d)
            if claimed is not None:
                return claimed
            claims: list[Kong | Pong] = []
            pongs: list[Kong | Pong] = []
            for k in range(1, n):
                o = (d + k) % n
                held_n = self.players[o].hand.counts[tile]
                if held_n >= 3:
                    claims.append(Kong(o, tile, KongKind.EXPOSED, d))
                if held_n >= 2:
                    pongs.append(Pong(o, tile, d))
            for claim in claims + pongs:
                if self._legal(claim) and self.players[claim.seat].wants_claim(
                        tile, isinstance(claim, Kong)):
                    return claim
            if self.front < self.back:
                return Draw((d + 1) % n, self.wall[self.front])
            return ExhaustiveDraw()
        if phase is Phase.KONG_DRAW:
            last = self.last
            assert isinstance(last, Kong)
            if last.kind is KongKind.ADDED:
                robbed = self._win_on(last.tile, last.seat)
                if robbed is not None:
                    return robbed
            if self.front < self.back:
                return Draw(last.seat, self.wall[self.back - 1])
            return ExhaustiveDraw()
        if phase is Phase.WON:
            last = self.last
            assert isinstance(last, Win)
            if last.from_seat is not None:
                another = self._win_on(last.tile, last.from_seat)
                if another is not None:
                    return another
            if self.aside is not None:
                return Flip(self.aside)
            return Flip(self.wall[self.front])
        raise SimulationError(f"hand {table.hand_no}: nothing to play after the end")


# --------------------------------------------------------------------------------------
# hands and games
# --------------------------------------------------------------------------------------


def deal_hand(
    ruleset: Ruleset,
    rng: random.Random,
    *,
    hand_no: int,
    dealer: int,
    dealer_streak: int = 0,
    base_stake: int = 1,
) -> tuple[HandRecord, tuple[int, int]]:
    """Shuffle and deal one hand: a record with the deal and the wall and no events yet,
    and the dice thrown for it (informational, as in the log)."""
    tiles = _shuffled_tiles(ruleset, rng)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    aside: tuple[Tile, ...] | None = None
    if ruleset.set_aside:
        # 暗麻将: 「系统随机抽出两张普通麻将，然后将两张"万能鸡"替换到其中」: the first ordinary
        # tiles of the shuffle are set aside, the rest is dealt
        picked = [i for i, t in enumerate(tiles) if t is not Tile.W][:ruleset.set_aside]
        aside = tuple(tiles[i] for i in picked)
        tiles = [t for i, t in enumerate(tiles) if i not in picked]
    hands, wall = deal_at_table(tiles, ruleset.players, dealer)
    record = HandRecord(
        hand_no=hand_no,
        n_players=ruleset.players,
        dealer=dealer,
        dealer_streak=dealer_streak,
        deal=tuple(tuple(sorted(h)) for h in hands),
        events=(),
        wall=tuple(wall),
        base_stake=base_stake,
        set_aside=aside,
    )
    return record, dice


def play_record(
    ruleset: Ruleset,
    dealt: HandRecord,
    *,
    deviant: int = -1,
    deviation: Deviation | None = None,
    verify: bool = False,
) -> PlayedHand:
    """Play a dealt hand (its deal and wall; its events are ignored) to the end.

    The players are deterministic, so the same deal always gives the same hand. With a
    ``deviation``, seat ``deviant`` breaks that rule at its first chance; a fatal break
    ends the play there (the log then shows the flip a careless server would show).
    With ``verify``, every step also lists the table's legal events and checks that the
    choice is the policy's choice among them, and that each player followed its hand.
    """
    if dealt.wall is None:
        raise SimulationError(f"hand {dealt.hand_no}: the simulator needs the wall")
    wall = dealt.wall
    table = Table.from_record(dealt, ruleset)
    players = [
        _Player(s, dealt.deal[s],
                _NO_SUIT if (s == deviant and deviation is Deviation.MISSING_SUIT)
                else _void_suit(dealt.deal[s], ruleset))
        for s in range(dealt.n_players)
    ]
    chooser = _FastChooser(table, players, wall, ruleset, deviant, deviation)
    if dealt.set_aside:
        chooser.aside = min(dealt.set_aside)
    events: list[Event] = []
    fatal = None
    while not table.is_over:
        event = chooser.choose()
        if verify and (deviation is None or not isinstance(event, Win)):
            _verify_choice(table, players, event, len(events))
        fatal = table.step(event)
        events.append(event)
        if fatal is not None:
            if chooser.aside is not None:
                events.append(Flip(chooser.aside))
            elif chooser.front < chooser.back:
                events.append(Flip(wall[chooser.front]))
            break
        chooser.played(event)
        if len(events) > _MAX_EVENTS:
            raise SimulationError(f"hand {dealt.hand_no}: no end after {_MAX_EVENTS} events")
    record = HandRecord(
        hand_no=dealt.hand_no,
        n_players=dealt.n_players,
        dealer=dealt.dealer,
        dealer_streak=dealt.dealer_streak,
        deal=dealt.deal,
        events=tuple(events),
        wall=wall,
        base_stake=dealt.base_stake,
        set_aside=dealt.set_aside,
    )
    if fatal is None:
        fatal = table.finish()
    replay = replay_of_table(record, table, fatal)
    if verify and replay != replay_hand(record, ruleset):
        raise SimulationError(f"hand {dealt.hand_no}: the table and the replay disagree")
    return PlayedHand(record, replay)


def _verify_choice(table: TableView, players: Sequence[_Player], event: Event, at: int) -> None:
    actions = table.legal_actions()
    reference = _choose(table, players, actions) if actions else None
    if event != reference or event not in actions:
        raise SimulationError(
            f"hand {table.hand_no}, event {at}: the fast choice {event} differs from the "
            f"policy's choice {reference} among the legal events"
        )
    for p in players:
        hand = p.hand
        if tuple(hand.counts) != table.counts(hand.seat) or hand.melds != len(
                table.melds(hand.seat)):
            raise SimulationError(
                f"hand {table.hand_no}, event {at}: seat {hand.seat} lost track of its hand"
            )


def play_hand(
    ruleset: Ruleset,
    rng: random.Random,
    *,
    hand_no: int,
    dealer: int,
    dealer_streak: int = 0,
    base_stake: int = 1,
    verify: bool = False,
) -> tuple[HandRecord, tuple[int, int]]:
    """Deal and play one hand; the record has no result yet. Returns the record and the
    dice thrown for it."""
    dealt, dice = deal_hand(
        ruleset, rng, hand_no=hand_no, dealer=dealer, dealer_streak=dealer_streak,
        base_stake=base_stake,
    )
    return play_record(ruleset, dealt, verify=verify).record, dice


def simulate_hand(
    ruleset: Ruleset, rng: random.Random, *, hand_no: int, dealer: int,
    dealer_streak: int = 0, base_stake: int = 1, verify: bool = False,
) -> SimulatedHand:
    """Deal and play one hand, and record its settlement as the hand's result
    (:func:`zhuoji.rules.bots.simulate_hand_of`)."""
    return simulate_hand_of(deal_hand, play_record, ruleset, rng, hand_no=hand_no,
                            dealer=dealer, dealer_streak=dealer_streak,
                            base_stake=base_stake, verify=verify)


def simulate_game(
    ruleset: Ruleset, *, seed: int, game_no: int, hands: int, base_stake: int = 1,
    verify: bool = False,
) -> SimulatedGame:
    """Play ``hands`` consecutive hands at one table (:func:`zhuoji.rules.bots.
    simulate_game_of`): seat 0 deals first, each next dealer and 连庄 count follow the
    settlement of the hand before."""
    return simulate_game_of(deal_hand, play_record, ruleset, seed=seed, game_no=game_no,
                            hands=hands, base_stake=base_stake, verify=verify)


def generate_games(
    ruleset: Ruleset, *, seed: int, games: int, hands_per_game: int, start: int = 0,
    base_stake: int = 1,
) -> Iterator[SimulatedGame]:
    """Games ``start`` .. ``start + games - 1`` of a run, in order."""
    return generate_games_of(simulate_game, ruleset, seed=seed, games=games,
                             hands_per_game=hands_per_game, start=start,
                             base_stake=base_stake)
