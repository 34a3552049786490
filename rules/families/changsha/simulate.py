"""The Changsha bots: plain but plausible players of a Changsha hand, legal by construction.

Pure and deterministic: the game's generator (:func:`zhuoji.rules.bots.game_rng`) shuffles the
108 tiles and throws the hand's opening dice; the dice thrown after a kong come from a
generator seeded by the hand's number and its wall, so a dealt hand always plays out the
same (fault injection plays a dealt hand again). The players choose with fixed tie-breaks.

At every step a player proposes the events it wants, in its order of preference, and plays
the first the table's ``check`` accepts (the test ``legal_actions`` filters with), so a
simulated log is legal by construction. The players:

- **win** whenever the table allows it: self-draw, on a discard (every player who can,
  通炮, nearest seat first), robbing an added kong, on the 海底. A player proposes a win
  for every hand complete in a shape the table plays (the core's, and the family's own
  将将胡, which needs no sets: :meth:`zhuoji.rules.bots.HandTracker.complete_at`), and the
  table's ``check`` decides, so every legal win is seen;
- **declare every 起手小胡** their dealt hand has (四喜 showing its first four of a kind,
  板板胡 and 缺一色 the whole hand, 六六顺 its first two triplets), before the dealer's
  first discard;
- **chow, pong and kong** when the claim does not worsen the hand (its distance, below),
  kong first, then pong, then chow; concealed and added kongs likewise;
- **throw the dice** after a kong whenever the table allows it (a ready hand), and then
  discard every tile they draw until they win, as the table requires;
- **take the 海底** when the table finds the hand ready (and otherwise decline it): a taker
  that does not win shows the tile, and the others may win on it (海底炮), the risk of
  taking it;
- **discard** toward the nearest hand: the lowest distance after the discard, then the
  least connected tile, 2, 5 and 8 kept a little longer (a 小胡 needs a 2-5-8 pair), then
  the higher tile. The distance is the shanten or, while the melds allow a 将将胡, the
  tiles that are no 2, 5 or 8 less two (a 大胡 is worth chasing from a little further), so
  a player near a 将将胡 sheds its other tiles and pongs 2s, 5s and 8s.

The recorded result of a hand is its family's settlement (``family_of(ruleset).settle``),
which also names the next dealer. For fault injection :func:`play_record` replays a dealt
hand with one player breaking a rule on purpose (:class:`Deviation`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from enum import StrEnum
from functools import lru_cache

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
    Bird,
    Chow,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRecord,
    Kong,
    KongKind,
    Pong,
    Roll,
    Seabed,
    SmallWin,
    Win,
)
from zhuoji.rules.families.changsha.patterns import SmallWinKind, is_258
from zhuoji.rules.families.changsha.settings import Ruleset
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.replay import replay_hand, replay_of_table
from zhuoji.rules.shanten import discard_shanten, drop_shanten, shanten_of_keys
from zhuoji.rules.table import Phase, Table
from zhuoji.rules.tiles import ALL_TILES, NUM_SUITED, Tile
from zhuoji.rules.view import TableView

__all__ = [
    "Deviation",
    "deal_hand",
    "dice_rng",
    "generate_games",
    "play_record",
    "recorded_result",
    "simulate_game",
    "simulate_hand",
]

_POW5 = tuple(5**r for r in range(9))
_MAX_EVENTS = 1000  # a hand the bots cannot finish within this is a bug


class Deviation(StrEnum):
    """A rule one player breaks on purpose (the faults only another course of play shows)."""

    MISSED_WIN = "missed_win"  # lets wins on others' tiles pass, then takes one 漏胡 forbids
    NO_258_PAIR = "no_258_pair"  # wins a 小胡 without a 2-5-8 pair (the hand then stops)


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


def dice_rng(dealt: HandRecord) -> random.Random:
    """The generator of the dice thrown after kongs in a dealt hand (its number and wall)."""
    wall = ",".join(str(int(t)) for t in dealt.wall or ())
    return random.Random(f"zhuoji-kong-dice/{dealt.hand_no}/{wall}")


# --------------------------------------------------------------------------------------
# the players
# --------------------------------------------------------------------------------------


def _base(tile: int) -> int:
    rank = tile % 9
    score = -1 if rank in (0, 8) else (0 if rank in (1, 7) else 1)
    return score + (1 if is_258(tile) else 0)


_BASE = tuple(_base(t) for t in range(NUM_SUITED))
_NOT_258 = tuple(t for t in range(NUM_SUITED) if not is_258(t))


@lru_cache(maxsize=1 << 16)
def _suit_order(suit: int, key: int) -> tuple[tuple[int, int, int], ...]:
    """``(connection, -tile, tile)`` of each tile held in one suit (its key), sorted: 4 per
    other copy, 2 per tile one rank away, 1 per tile two ranks away, plus the tile's base
    (terminals less, middle tiles and 2-5-8 more)."""
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


_FAR = 99  # the tiles off a 将将胡 of a hand whose melds rule one out
_BIG_BONUS = 2
"""How much nearer a 将将胡 (a 大胡, every tile a 2, 5 or 8) counts than its tiles that are
no 2, 5 or 8: a player chases one from two tiles further than its nearest hand (about one
win in seventy-five is then a 将将胡, nearly always in no other shape)."""


class _Player:
    """One bot: its hand (a :class:`~zhuoji.rules.bots.HandTracker`, followed as events are
    played) and the policy over it. The policy's distance of a hand is the lower of its
    shanten and, while its melds allow a 将将胡 (no chow, every pong and kong of a 2, 5 or
    8: ``all_258``), the number of its concealed tiles that are no 2, 5 or 8 (13 tiles
    with none wait on every 2, 5 and 8) less :data:`_BIG_BONUS`."""

    __slots__ = ("all_258", "hand")

    def __init__(self, seat: int, deal: Sequence[Tile]) -> None:
        self.hand = HandTracker(seat, deal)
        self.all_258 = True

    def played(self, event: Event, claimed: int = -1) -> None:
        """Follow an event of this seat: the hand, and whether a 将将胡 is still open."""
        self.hand.played(event, claimed)
        if isinstance(event, Chow) or (isinstance(event, Pong | Kong) and not is_258(
                event.tile)):
            self.all_258 = False

    def _off_258(self, counts: Sequence[int]) -> int:
        """The tiles of ``counts`` that are no 2, 5 or 8 (``_FAR`` when the player's melds
        rule a 将将胡 out)."""
        if not self.all_258:
            return _FAR
        return sum(counts[t] for t in _NOT_258)

    def best_discard(self, options: Sequence[int]) -> Tile:
        """The discard among ``options`` (held tiles): the lowest distance after it, then
        the least connected, then the higher tile."""
        hand = self.hand
        keys = hand.keys
        merged = sorted((*_suit_order(0, keys[0]), *_suit_order(1, keys[1]),
                         *_suit_order(2, keys[2])))
        wanted = set(options)
        ranked = [x for x in merged if x[2] in wanted]
        # no discard goes below the whole hand's distance: the first candidate (in
        # connection order) that reaches it is the choice
        off = self._off_258(hand.counts) - _BIG_BONUS
        floor = min(shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds),
                    max(off - 1, -_BIG_BONUS))
        after = []
        for _, _, t in ranked:
            s = min(drop_shanten(keys, t, 0, hand.melds), off if is_258(t) else off - 1)
            if s <= floor:
                return ALL_TILES[t]
            after.append(s)
        return ALL_TILES[ranked[after.index(min(after))][2]]

    def _after_discard(self, keys: list[int], counts: Sequence[int], melds: int,
                       off: int) -> int:
        """The best distance one discard reaches from a full turn's hand (``off``: its
        tiles that are no 2, 5 or 8, or ``_FAR``)."""
        held = [t for t in range(NUM_SUITED) if counts[t] > 0]
        best = min(discard_shanten(keys, held, 0, melds), default=_FAR)
        return min(best, max(off - 1, 0) - _BIG_BONUS)

    def wants_claim(self, tile: int, taken: Sequence[int], kong: bool) -> bool:
        """Pong, chow (``taken``: the tiles from the hand) or exposed kong the discard
        ``tile`` if that does not worsen the hand."""
        hand = self.hand
        keys = hand.keys[:]
        now = min(shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds),
                  self._off_258(hand.counts) - _BIG_BONUS)
        counts = hand.counts[:]
        for t in taken:
            keys[t // 9] -= _POW5[t % 9]
            counts[t] -= 1
        # a chow, or a set of another tile than a 2, 5 or 8, rules a 将将胡 out
        same = len(taken) > 1 and taken[0] == taken[1]
        off = self._off_258(counts) if same and is_258(tile) else _FAR
        if kong:
            return min(shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds + 1),
                       off - _BIG_BONUS) <= now
        return self._after_discard(keys, counts, hand.melds + 1, off) <= now

    def wants_kong(self, tile: int, kind: KongKind) -> bool:
        """A concealed or added kong on the player's own turn, unless it worsens the hand."""
        hand = self.hand
        keys = hand.keys[:]
        counts = hand.counts
        keep = self._after_discard(keys, counts, hand.melds, self._off_258(counts))
        # the kong's tiles leave the concealed hand: of a 2, 5 or 8, the rest is as far
        off = (self._off_258(counts) if is_258(tile) else _FAR) - _BIG_BONUS
        if kind is KongKind.CONCEALED:
            keys[tile // 9] -= 4 * _POW5[tile % 9]
            return min(shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds + 1),
                       off) <= keep
        keys[tile // 9] -= _POW5[tile % 9]
        return min(shanten_of_keys(keys[0], keys[1], keys[2], 0, hand.melds), off) <= keep

    def small_wins(self) -> list[SmallWin]:
        """Every 起手小胡 the dealt hand has (one declaration per kind)."""
        c = self.hand.counts
        seat = self.hand.seat
        held = [t for t in range(NUM_SUITED) if c[t]]
        whole = tuple(ALL_TILES[t] for t in held for _ in range(c[t]))
        out: list[SmallWin] = []
        quads = [t for t in held if c[t] == 4]
        if quads:
            q = ALL_TILES[quads[0]]
            out.append(SmallWin(seat, SmallWinKind.FOUR_OF_A_KIND.value, (q, q, q, q)))
        if not any(is_258(t) for t in held):
            out.append(SmallWin(seat, SmallWinKind.NO_258.value, whole))
        if len({t // 9 for t in held}) < 3:
            out.append(SmallWin(seat, SmallWinKind.MISSING_SUIT.value, whole))
        triplets = [ALL_TILES[t] for t in held if c[t] >= 3]
        if len(triplets) >= 2:
            a, b = triplets[:2]
            out.append(SmallWin(seat, SmallWinKind.TWO_TRIPLETS.value,
                                (a, a, a, b, b, b)))
        return out


# --------------------------------------------------------------------------------------
# choosing
# --------------------------------------------------------------------------------------


class _Chooser:
    """The players' choice at each step of one hand."""

    def __init__(self, table: TableView, players: list[_Player], dice: random.Random,
                 deviant: int, deviation: Deviation | None) -> None:
        self.table = table
        self.seabed = mechanics_of(table.ruleset).seabed
        self.kong: Kong | None = None  # the last kong, whose replacement may be due
        self.players = players
        self.n = len(players)
        self.dice = dice
        self.deviant = deviant
        self.deviation = deviation
        self.locked = [False] * self.n
        self.last: Event | None = None
        self.opening: list[SmallWin] = [
            w for k in range(self.n)
            for w in players[(table.dealer + k) % self.n].small_wins()]
        self.dealer_discarded = False

    def legal(self, event: Event) -> bool:
        return self.table.check(event) is None

    def played(self, event: Event) -> None:
        last = self.last
        self.last = event
        if isinstance(event, Draw | Discard | Pong | Kong | Chow):
            claimed = int(last.tile) if isinstance(event, Chow) and isinstance(
                last, Discard) else -1
            self.players[event.seat].played(event, claimed)
            if isinstance(event, Kong):
                self.kong = event
            if isinstance(event, Discard) and event.seat == self.table.dealer:
                self.dealer_discarded = True
        elif isinstance(event, Roll):
            self.locked[event.seat] = True

    def _take(self, win: Win) -> bool:
        """Whether the player plays ``win`` (its hand is complete with the tile)."""
        deviation = self.deviation
        if win.seat != self.deviant or deviation is None:
            return self.legal(win)
        v = self.table.check(win)
        if deviation is Deviation.MISSED_WIN:
            if win.from_seat is None:
                return v is None
            if v is None:
                return False  # let it pass
            if v.code == deviation.value:
                self.deviation = None
                return True
            return False
        return v is None or v.code == deviation.value

    def _win_on(self, tile: Tile, source: int) -> Win | None:
        """The first win on ``tile`` (discarded or added to a kong by ``source``) by a seat
        that has not won yet, nearest seat first."""
        won = {w.seat for w in self.table.winners}
        for k in range(1, self.n):
            o = (source + k) % self.n
            if o in won:
                continue
            if self.players[o].hand.complete_at(self.table, int(tile)):
                win = Win(o, tile, source)
                if self._take(win):
                    return win
        return None

    def _pick(self, candidates: Sequence[Event], *types: type) -> Event | None:
        for c in candidates:
            if isinstance(c, types) and self.legal(c):
                return c
        return None

    def choose(self) -> Event:
        table = self.table
        phase = table.phase
        if phase is Phase.DISCARD or phase is Phase.DISCARD_AFTER_CLAIM:
            return self._turn(phase)
        if phase is Phase.CLAIM:
            return self._claim()
        if phase is Phase.SEABED:
            return self._seabed(table.legal_actions())
        if phase is Phase.KONG_DRAW:
            pending = self.kong
            assert pending is not None
            if pending.kind is KongKind.ADDED:
                robbed = self._win_on(pending.tile, pending.seat)
                if robbed is not None:
                    return robbed
            seat = table.turn
            if not isinstance(self.last, Roll):  # the dice, once per kong
                roll = Roll(seat, (self.dice.randint(1, 6), self.dice.randint(1, 6)))
                if self.legal(roll):
                    return roll
            return self._draw(seat, back=True)
        if phase is Phase.WON:
            won = table.winners[-1]
            if won.from_seat is not None:
                another = self._win_on(won.tile, won.from_seat)
                if another is not None:
                    return another
            got = self._pick(table.legal_actions(), Bird)
            if got is not None:
                return got
        raise SimulationError(f"hand {table.hand_no}: nothing to play ({phase})")

    def _turn(self, phase: Phase) -> Event:
        table = self.table
        seat = table.turn
        player = self.players[seat]
        while self.opening and not self.dealer_discarded:
            declared = self.opening.pop(0)
            if self.legal(declared):
                return declared
        last = self.last
        drawn = last.tile if isinstance(last, Draw) and last.seat == seat else None
        if phase is Phase.DISCARD and player.hand.complete_at(table, None):
            tiles = [drawn] if drawn is not None else [
                ALL_TILES[t] for t in range(NUM_SUITED) if player.hand.counts[t]]
            for t in tiles:
                win = Win(seat, t)
                if self._take(win):
                    return win
        if phase is Phase.DISCARD and not self.locked[seat]:
            counts = player.hand.counts
            kongs = [Kong(seat, ALL_TILES[t], KongKind.CONCEALED)
                     for t in range(NUM_SUITED) if counts[t] == 4]
            kongs += [Kong(seat, m.tile, KongKind.ADDED) for m in table.melds(seat)
                      if m.kind.value == "pong" and counts[m.tile]]
            for kong in kongs:
                if player.wants_kong(kong.tile, kong.kind) and self.legal(kong):
                    return kong
        if drawn is not None and self.locked[seat]:
            keep = Discard(seat, drawn)
            if self.legal(keep):
                return keep
        held = [t for t in range(NUM_SUITED) if player.hand.counts[t]]
        best = Discard(seat, player.best_discard(held))
        if self.legal(best):
            return best
        if drawn is not None:
            shown = Discard(seat, drawn)  # the 海底 taker shows the last tile
            if self.legal(shown):
                return shown
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
        claims: list[Event] = []
        pongs: list[Event] = []
        for k in range(1, n):
            o = (d + k) % n
            held = self.players[o].hand.counts[tile]
            if held >= 3 and table.wall_left > 1:
                claims.append(Kong(o, tile, KongKind.EXPOSED, d))
            if held >= 2:
                pongs.append(Pong(o, tile, d))
        for claim in (*claims, *pongs):
            assert isinstance(claim, Kong | Pong)
            taken: list[int] = [int(tile)] * (3 if isinstance(claim, Kong) else 2)
            if self.players[claim.seat].wants_claim(tile, taken, isinstance(claim, Kong)) \
                    and self.legal(claim):
                return claim
        nxt = (d + 1) % n
        player = self.players[nxt]
        at = int(tile)
        rank = at % 9
        for low in (at - 2, at - 1, at):
            if low < at - rank or low + 2 > at - rank + 8:
                continue
            run = [low, low + 1, low + 2]
            taken = [t for t in run if t != at]
            if all(player.hand.counts[t] for t in taken) and player.wants_claim(tile, taken, False):
                chow = Chow(nxt, tuple(ALL_TILES[t] for t in run), d)
                if self.legal(chow):
                    return chow
        nxt = (d + 1) % n
        if self.seabed and table.wall_left == 1:
            return self._seabed([Seabed(nxt, True)])  # the last tile is offered, from nxt
        return self._draw(nxt, back=False)

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

    def _seabed(self, candidates: Sequence[Event]) -> Event:
        """The 海底 offer: a ready player takes it, others decline; then the taker draws."""
        for c in candidates:
            if isinstance(c, Seabed):
                take = self.table.is_ready(c.seat)
                choice = Seabed(c.seat, take)
                if self.legal(choice):
                    return choice
        got = self._pick(candidates, Draw, ExhaustiveDraw)
        if got is None:
            raise SimulationError(f"hand {self.table.hand_no}: nothing to play at the 海底")
        return got


# --------------------------------------------------------------------------------------
# hands and games
# --------------------------------------------------------------------------------------


def play_record(
    ruleset: Ruleset, dealt: HandRecord, *, deviant: int = -1,
    deviation: Deviation | None = None, verify: bool = False,
) -> PlayedHand:
    """Play a dealt hand (its deal and wall; its events are ignored) to the end. With a
    ``deviation``, seat ``deviant`` breaks that rule at its first chance (a fatal break
    ends the play there). With ``verify``, every choice is also found among the table's
    legal events and the replay of the log must equal the table's."""
    if dealt.wall is None:
        raise SimulationError(f"hand {dealt.hand_no}: the simulator needs the wall")
    table = Table.from_record(dealt, ruleset)
    players = [_Player(s, dealt.deal[s]) for s in range(dealt.n_players)]
    chooser = _Chooser(table, players, dice_rng(dealt), deviant, deviation)
    events: list[Event] = []
    fatal = None
    while not table.is_over:
        event = chooser.choose()
        if verify and (deviation is None or not isinstance(event, Win)) and (
                table.check(event) is not None if isinstance(event, Roll | SmallWin)
                else event not in table.legal_actions()):
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
