"""The Sichuan bots: plain but plausible players of a Sichuan hand, legal by construction.

Pure and deterministic: the game's generator (:func:`zhuoji.rules.bots.game_rng`) shuffles the
108 tiles and throws the hand's opening dice; the direction of 换三张 when the dice choose it
comes from a generator seeded by the hand's number and its wall, so a dealt hand always
plays out the same (fault injection plays a dealt hand again). The players choose with
fixed tie-breaks.

At every step a player proposes the events it wants, in its order of preference, and plays
the first the table's ``check`` accepts, so a simulated log is legal by construction. The
players:

- **exchange** (换三张, when ``mechanics.exchange`` is 3): each passes three tiles of its
  shortest suit holding three or more (the suit it is likeliest to declare), its least
  connected ones, every seat the same way (the direction ``mechanics.exchange_to`` names,
  or one the dice choose);
- **declare** (定缺) the suit they hold fewest tiles of (a suit they lack when they lack
  one), ties to the suit whose tiles are least connected;
- **discard** their declared suit first (its least connected tile), then toward the nearest
  hand: the lowest shanten after the discard (the declared suit left out of the count),
  then the least connected tile, then the higher tile;
- **win** whenever the table allows it: self-draw, on a discard (every player who can,
  一炮多响, nearest seat first), robbing an added kong;
- **pong and kong** when the claim does not worsen the hand, kong first; concealed and
  added kongs likewise (never of the declared suit);
- after a win, **leave** (血战到底: the table gives a winner no further turn) or **stay**
  (血流成河: the winner plays on and may win again), as the ruleset's mechanics say.

The recorded result of a hand is its family's settlement (``family_of(ruleset).settle``),
which also names the next dealer. The family's faults are edits of a played hand
(:mod:`zhuoji.rules.families.sichuan.faults`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Any

from zhuoji.rules.bots import (
    HandTracker,
    PlayedHand,
    SimulatedGame,
    SimulatedHand,
    SimulationError,
    deal_at_table,
    generate_games_of,
    recorded_result,
    simulate_game_of,
    simulate_hand_of,
)
from zhuoji.rules.events import (
    DeclareSuit,
    Discard,
    Draw,
    Event,
    Exchange,
    ExhaustiveDraw,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Suit,
    Win,
)
from zhuoji.rules.families.sichuan.settings import Ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.replay import replay_hand, replay_of_table
from zhuoji.rules.shanten import discard_shanten, drop_shanten, shanten_of_keys
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import ALL_TILES, NUM_SUITED, Tile
from zhuoji.rules.view import TableView

__all__ = [
    "Deviation",
    "deal_hand",
    "exchange_rng",
    "generate_games",
    "play_record",
    "recorded_result",
    "simulate_game",
    "simulate_hand",
]

_POW5 = tuple(5**r for r in range(9))
_SUITS = (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)
_MAX_EVENTS = 1000  # a hand the bots cannot finish within this is a bug
_FAR = 99


class Deviation(StrEnum):
    """A rule one player breaks on purpose: none (the family's faults are edits of a played
    hand, :mod:`zhuoji.rules.families.sichuan.faults`); the bots' interface has it."""


# --------------------------------------------------------------------------------------
# dealing
# --------------------------------------------------------------------------------------


def deal_hand(
    ruleset: Ruleset, rng: random.Random, *, hand_no: int, dealer: int,
    dealer_streak: int = 0, base_stake: int = 1,
) -> tuple[HandRecord, tuple[int, int]]:
    """Shuffle the 108 tiles and deal one hand: a record with the deal and the wall and no
    events yet, and the opening dice (informational, as in the log)."""
    tiles = [ALL_TILES[t] for t in range(NUM_SUITED) for _ in range(4)]
    rng.shuffle(tiles)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    hands, wall = deal_at_table(tiles, ruleset.players, dealer)
    record = HandRecord(
        hand_no=hand_no, n_players=ruleset.players, dealer=dealer,
        dealer_streak=dealer_streak, deal=tuple(tuple(sorted(h)) for h in hands),
        events=(), wall=tuple(wall), base_stake=base_stake,
    )
    return record, dice


def exchange_rng(dealt: HandRecord) -> random.Random:
    """The generator of the dice that choose 换三张's direction in a dealt hand (its number
    and wall)."""
    wall = ",".join(str(int(t)) for t in dealt.wall or ())
    return random.Random(f"zhuoji-exchange-dice/{dealt.hand_no}/{wall}")


def _exchange_offset(ruleset: Ruleset, dice: random.Random, n: int) -> int:
    """How many seats on each seat passes its tiles (the same for every seat)."""
    to = mechanics_of(ruleset).exchange_to
    if to == "next":
        return 1
    if to == "previous":
        return n - 1
    if to == "across":
        return n // 2
    return 1 + (dice.randint(1, 6) + dice.randint(1, 6)) % (n - 1)


# --------------------------------------------------------------------------------------
# the players
# --------------------------------------------------------------------------------------


def _base(tile: int) -> int:
    rank = tile % 9
    return -1 if rank in (0, 8) else (0 if rank in (1, 7) else 1)


_BASE = tuple(_base(t) for t in range(NUM_SUITED))


@lru_cache(maxsize=1 << 16)
def _suit_order(suit: int, key: int) -> tuple[tuple[int, int, int], ...]:
    """``(connection, -tile, tile)`` of each tile held in one suit (its key), sorted: 4 per
    other copy, 2 per tile one rank away, 1 per tile two ranks away, plus the tile's base
    (terminals less, middle tiles more)."""
    counts = [(key // _POW5[r]) % 5 for r in range(9)]
    out = []
    for r in range(9):
        if counts[r]:
            t = 9 * suit + r
            score = 4 * (counts[r] - 1) + _BASE[t]
            for d, w in ((-1, 2), (1, 2), (-2, 1), (2, 1)):
                if 0 <= r + d <= 8:
                    score += w * counts[r + d]
            out.append((score, -t, t))
    return tuple(sorted(out))


def _connection(suit: int, key: int) -> int:
    return sum(x[0] for x in _suit_order(suit, key))


class _Player:
    """One bot: its hand (a :class:`~zhuoji.rules.bots.HandTracker`, followed as events are
    played), its declared suit and the policy over them. The policy's distance of a hand
    is its shanten with the declared suit left out (those tiles are on their way out)."""

    __slots__ = ("hand", "void")

    def __init__(self, seat: int, deal: Sequence[Tile]) -> None:
        self.hand = HandTracker(seat, deal)
        self.void = -1

    def resync(self, table: TableView) -> None:
        """Take the hand from the table (after the exchange, or a win the player stays
        after)."""
        seat = self.hand.seat
        hand = HandTracker(seat, table.concealed(seat))
        melds = table.melds(seat)
        hand.melds = len(melds)
        hand.pongs = [m.tile for m in melds if m.kind.value == "pong"]
        self.hand = hand

    def _keys(self) -> list[int]:
        keys = self.hand.keys[:]
        if self.void >= 0:
            keys[self.void] = 0
        return keys

    def distance(self) -> int:
        k = self._keys()
        return shanten_of_keys(k[0], k[1], k[2], 0, self.hand.melds)

    # ---------------------------------------------------------------- before play
    def exchange_tiles(self, size: int, one_suit: bool) -> tuple[Tile, ...]:
        """The ``size`` tiles passed: the least connected of the shortest suit holding as
        many (of the whole hand when no suit does and one suit is not required)."""
        keys = self.hand.keys
        counts = self.hand.counts
        lengths = [sum(counts[9 * s:9 * s + 9]) for s in range(3)]
        suits = sorted((s for s in range(3) if lengths[s] >= size),
                       key=lambda s: (lengths[s], _connection(s, keys[s]), s))
        if suits:
            order = _suit_order(suits[0], keys[suits[0]])
        elif one_suit:
            return ()
        else:
            order = tuple(sorted((*_suit_order(0, keys[0]), *_suit_order(1, keys[1]),
                                  *_suit_order(2, keys[2]))))
        out: list[Tile] = []
        left = list(counts)
        for _, _, t in order:
            while left[t] and len(out) < size:
                out.append(ALL_TILES[t])
                left[t] -= 1
        return tuple(sorted(out))

    def declaration(self) -> int:
        """The suit declared: the fewest tiles (a suit it lacks when it lacks one), then the
        least connected."""
        keys = self.hand.keys
        counts = self.hand.counts
        lengths = [sum(counts[9 * s:9 * s + 9]) for s in range(3)]
        return min(range(3), key=lambda s: (lengths[s], _connection(s, keys[s]), s))

    # ---------------------------------------------------------------- play
    def void_held(self) -> list[int]:
        v = self.void
        if v < 0:
            return []
        return [t for t in range(9 * v, 9 * v + 9) if self.hand.counts[t]]

    def best_discard(self) -> Tile:
        """The declared suit's least connected tile while any is held; then the tile after
        which the hand is nearest, the least connected, the higher."""
        hand = self.hand
        void = self.void_held()
        if void:
            return ALL_TILES[_suit_order(self.void, hand.keys[self.void])[0][2]]
        keys = hand.keys
        merged = sorted((*_suit_order(0, keys[0]), *_suit_order(1, keys[1]),
                         *_suit_order(2, keys[2])))
        floor = shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds)
        after = []
        for _, _, t in merged:
            s = drop_shanten(keys, t, 0, hand.melds)
            if s <= floor:
                return ALL_TILES[t]
            after.append(s)
        return ALL_TILES[merged[after.index(min(after))][2]]

    def _after_discard(self, keys: list[int], counts: Sequence[int], melds: int) -> int:
        """The best distance one discard reaches from a full turn's hand."""
        held = [t for t in range(NUM_SUITED) if counts[t] > 0]
        if self.void >= 0:
            keys = keys[:]
            keys[self.void] = 0
            held = [t for t in held if t // 9 != self.void] or held
        return min(discard_shanten(keys, held, 0, melds), default=_FAR)

    def wants_claim(self, tile: int, kong: bool) -> bool:
        """Pong or exposed kong the discard ``tile`` if that does not worsen the hand."""
        hand = self.hand
        now = self.distance()
        keys = self._keys()
        counts = hand.counts[:]
        take = 3 if kong else 2
        keys[tile // 9] -= take * _POW5[tile % 9]
        counts[tile] -= take
        if kong:
            return shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds + 1) <= now
        return self._after_discard(keys, counts, hand.melds + 1) <= now

    def wants_kong(self, tile: int, kind: KongKind) -> bool:
        """A concealed or added kong on the player's own turn, unless it worsens the hand."""
        hand = self.hand
        keys = self._keys()
        keep = self._after_discard(keys, hand.counts, hand.melds)
        if kind is KongKind.CONCEALED:
            keys[tile // 9] -= 4 * _POW5[tile % 9]
            return shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds + 1) <= keep
        keys[tile // 9] -= _POW5[tile % 9]
        return shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds) <= keep


# --------------------------------------------------------------------------------------
# choosing
# --------------------------------------------------------------------------------------


class _Chooser:
    """The players' choice at each step of one hand."""

    def __init__(self, table: Table, players: list[_Player], dice: random.Random) -> None:
        self.table = table
        ruleset = table.ruleset
        assert isinstance(ruleset, Ruleset)
        self.ruleset = ruleset
        mech = mechanics_of(ruleset)
        self.exchange = mech.exchange
        self.one_suit = mech.exchange_one_suit
        self.players = players
        self.n = len(players)
        self.dice = dice
        self.offset = 0
        self.kong: Kong | None = None  # the last kong, whose replacement may be due
        self.last: Event | None = None
        self.in_setup = table.phase is Phase.SETUP

    def legal(self, event: Event) -> bool:
        return self.table.check(event) is None

    def played(self, event: Event) -> None:
        self.last = event
        table = self.table
        if self.in_setup:
            if table.phase is not Phase.SETUP:  # the exchange arrived, every suit declared
                self.in_setup = False
                for p in self.players:
                    p.resync(table)
            if isinstance(event, DeclareSuit):
                self.players[event.seat].void = "mps".index(event.suit.value)
            elif isinstance(event, Exchange) and all(
                    p is not None for p in self._passed()):
                for p in self.players:
                    p.resync(table)
            return
        if isinstance(event, Draw | Discard | Pong | Kong):
            self.players[event.seat].hand.played(event)
            if isinstance(event, Kong):
                self.kong = event
        elif isinstance(event, Win):
            self.players[event.seat].resync(table)
            kong = self.kong
            if kong is not None and kong.kind is KongKind.ADDED and event.tile == kong.tile \
                    and event.from_seat == kong.seat:
                self.players[kong.seat].resync(table)  # a robbed kong: a pong again

    def _passed(self) -> list[Any]:
        got: list[Any] = [None] * self.n
        for fact in self.table.exchanges():
            got[fact.seat] = fact
        return got

    def _complete(self, seat: int, tile: int | None) -> bool:
        """The seat's hand is complete with ``tile`` (None: as it is) and holds no tile of
        its declared suit."""
        player = self.players[seat]
        return not player.void_held() and player.hand.complete_at(self.table, tile)

    def _win_on(self, tile: Tile, source: int) -> Win | None:
        """The first win on ``tile`` (discarded or added to a kong by ``source``) by a seat
        that may win on it, nearest seat first."""
        for k in range(1, self.n):
            o = (source + k) % self.n
            if self._complete(o, int(tile)):
                win = Win(o, tile, source)
                if self.legal(win):
                    return win
        return None

    def _pick(self, candidates: Sequence[Event], *types: type) -> Event | None:
        for c in candidates:
            if isinstance(c, types) and self.legal(c):
                return c
        return None

    def more_wins(self) -> Event | None:
        """After a win that may end the hand, a further win on the same tile (一炮多响, or
        a second robber of the same kong)."""
        return self._another_win() if self.table.phase is Phase.WON else None

    def _another_win(self) -> Win | None:
        """A further win on the tile last won on, when it was another player's."""
        winners = self.table.winners
        if not winners:
            return None
        won = winners[-1]
        source = won.from_seat
        return None if source is None else self._win_on(won.tile, source)

    def choose(self) -> Event:
        table = self.table
        phase = table.phase
        if phase is Phase.SETUP:
            return self._setup()
        if phase is Phase.DISCARD or phase is Phase.DISCARD_AFTER_CLAIM:
            return self._turn(phase)
        if phase is Phase.CLAIM:
            return self._claim()
        if phase is Phase.KONG_DRAW:
            pending = self.kong
            assert pending is not None
            if pending.kind is KongKind.ADDED:
                robbed = self._win_on(pending.tile, pending.seat)
                if robbed is not None:
                    return robbed
            return self._draw(table.turn, back=True)
        if phase is Phase.PLAY_ON or phase is Phase.WON:
            another = self._another_win()
            if another is not None:
                return another
            got = self._pick(table.legal_actions(), Draw, ExhaustiveDraw)
            if got is not None:
                return got
        raise SimulationError(f"hand {table.hand_no}: nothing to play ({phase})")

    def _setup(self) -> Event:
        table = self.table
        n = self.n
        dealer = table.dealer
        order = [(dealer + k) % n for k in range(n)]
        if self.exchange:
            passed = self._passed()
            if not self.offset:
                self.offset = _exchange_offset(self.ruleset, self.dice, n)
            for seat in order:
                if passed[seat] is not None:
                    continue
                tiles = self.players[seat].exchange_tiles(self.exchange, self.one_suit)
                passing = Exchange(seat, tiles, (seat + self.offset) % n)
                if self.legal(passing):
                    return passing
                got = self._pick([e for e in table.legal_actions()
                                  if isinstance(e, Exchange) and e.seat == seat], Exchange)
                if got is not None:
                    return got
        declared = table.declared_suits()
        for seat in order:
            if declared[seat] is not None:
                continue
            suit = self.players[seat].declaration()
            event = DeclareSuit(seat, _SUITS[suit])
            if self.legal(event):
                return event
            got = self._pick([e for e in table.legal_actions()
                              if isinstance(e, DeclareSuit) and e.seat == seat], DeclareSuit)
            if got is not None:
                return got
        raise SimulationError(f"hand {table.hand_no}: no exchange or declaration is legal")

    def _turn(self, phase: Phase) -> Event:
        table = self.table
        seat = table.turn
        player = self.players[seat]
        last = self.last
        drawn = last.tile if isinstance(last, Draw) and last.seat == seat else None
        if phase is Phase.DISCARD and self._complete(seat, None):
            tiles = [drawn] if drawn is not None else [
                ALL_TILES[t] for t in range(NUM_SUITED) if player.hand.counts[t]]
            for t in tiles:
                win = Win(seat, t)
                if self.legal(win):
                    return win
        if phase is Phase.DISCARD and table.wall_left > 0:
            counts = player.hand.counts
            kongs = [Kong(seat, ALL_TILES[t], KongKind.CONCEALED)
                     for t in range(NUM_SUITED) if counts[t] == 4 and t // 9 != player.void]
            kongs += [Kong(seat, m.tile, KongKind.ADDED) for m in table.melds(seat)
                      if m.kind.value == "pong" and counts[m.tile]]
            for kong in kongs:
                if player.wants_kong(kong.tile, kong.kind) and self.legal(kong):
                    return kong
        best = Discard(seat, player.best_discard())
        if self.legal(best):
            return best
        got = self._pick(table.legal_actions(), Discard)
        if got is None:
            raise SimulationError(f"hand {table.hand_no}: seat {seat} has no legal discard")
        return got

    def _claim(self) -> Event:
        table = self.table
        last = self.last
        assert isinstance(last, Discard)
        d, tile = last.seat, last.tile
        won = self._win_on(tile, d)
        if won is not None:
            return won
        n = self.n
        claims: list[Kong | Pong] = []
        pongs: list[Kong | Pong] = []
        for k in range(1, n):
            o = (d + k) % n
            player = self.players[o]
            if tile // 9 == player.void:
                continue
            held = player.hand.counts[tile]
            if held >= 3 and table.wall_left > 0:
                claims.append(Kong(o, tile, KongKind.EXPOSED, d))
            if held >= 2:
                pongs.append(Pong(o, tile, d))
        for claim in (*claims, *pongs):
            if self.players[claim.seat].wants_claim(int(tile), isinstance(claim, Kong)) \
                    and self.legal(claim):
                return claim
        got = self._pick(table.legal_actions(), Draw, ExhaustiveDraw)
        if got is None:
            raise SimulationError(f"hand {table.hand_no}: no draw after seat {d}'s discard")
        return got

    def _draw(self, seat: int, *, back: bool) -> Event:
        """The draw due (a kong's replacement from the back), or the exhaustive draw."""
        wall = self.table.wall
        event: Event = ExhaustiveDraw()
        if wall:
            event = Draw(seat, wall[-1] if back else wall[0])
        if self.legal(event):
            return event
        got = self._pick(self.table.legal_actions(), Draw, ExhaustiveDraw)
        if got is None:
            raise SimulationError(f"hand {self.table.hand_no}: no draw for seat {seat}")
        return got


# --------------------------------------------------------------------------------------
# hands and games
# --------------------------------------------------------------------------------------


def play_record(
    ruleset: Ruleset, dealt: HandRecord, *, deviant: int = -1,
    deviation: Deviation | None = None, verify: bool = False,
) -> PlayedHand:
    """Play a dealt hand (its deal and wall; its events are ignored) to the end
    (``deviant`` and ``deviation``: the bots' interface; the family's bots break no rule).
    With ``verify``, every choice is also found among the table's legal events and the
    replay of the log must equal the table's."""
    if dealt.wall is None:
        raise SimulationError(f"hand {dealt.hand_no}: the simulator needs the wall")
    table = Table.from_record(dealt, ruleset)
    players = [_Player(s, dealt.deal[s]) for s in range(dealt.n_players)]
    chooser = _Chooser(table, players, exchange_rng(dealt))
    events: list[Event] = []
    fatal = None
    while True:
        if table.is_over:
            extra = chooser.more_wins()
            if extra is None:
                break
            event = extra
        else:
            event = chooser.choose()
        if verify and (deviation is None or not isinstance(event, Win)) and (
                event not in table.legal_actions()):
            raise SimulationError(
                f"hand {dealt.hand_no}, event {len(events)}: {event} is not a legal event")
        fatal = table.step(event)
        events.append(event)
        if fatal is not None:
            break
        chooser.played(event)
        if len(events) > _MAX_EVENTS:
            raise SimulationError(f"hand {dealt.hand_no}: no end after {_MAX_EVENTS} events")
    record = HandRecord(
        hand_no=dealt.hand_no, n_players=dealt.n_players, dealer=dealt.dealer,
        dealer_streak=dealt.dealer_streak, deal=dealt.deal, events=tuple(events),
        wall=dealt.wall, base_stake=dealt.base_stake,
    )
    if fatal is None:
        fatal = table.finish()
    replay = replay_of_table(record, table, fatal)
    if verify and replay != replay_hand(record, ruleset):
        raise SimulationError(f"hand {dealt.hand_no}: the table and the replay disagree")
    return PlayedHand(record, replay)


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
