"""Write hands compactly in tests.

Events are tokens separated by spaces; ``S`` is a seat digit, ``T`` a tile (``5m``, ``W``),
``F`` the seat a tile comes from. Each kind's letter is its declaration's ``token``
(:mod:`zhuoji.rules.event_kinds`, a family's ``events`` module); the kinds without one
(the wall mechanics', the exchange's) are written out as values:

=============  ==================================
``S+T``        draw                 (``1+5m``)
``S-T``        discard              (``0-9p``)
``SPT<F``      pong                 (``2P9p<0``)
``SET<F``      exposed kong         (``2E9p<0``)
``SAT``        added kong           (``2A9p``)
``SCT``        concealed kong       (``3C4s``)
``SR``         ready (报听)          (``1R``)
``SHT``        self-drawn win       (``3H6p``)
``SHT<F``      win on F's tile      (``1H5m<0``)
``SYTTT<F``    chow                 (``1Y345m<0``)
``FT``         flip                 (``F5m``)
``X``          exhaustive draw
=============  ==================================

:func:`make_hand` builds a :class:`HandRecord` from the hands that matter: seats not
given are filled with spread-out tiles, and the wall is ``front`` (the next draws in
order), then the unused tiles, then ``back`` (kong replacement draws, first one first)
reversed, so that deal plus wall is exactly the full tile set.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from zhuoji.rules.event_kinds import EventKind, FieldKind
from zhuoji.rules.event_registry import all_event_kinds, kind_of
from zhuoji.rules.events import (
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Flip,
    HandRecord,
    Kong,
    Pong,
    Ready,
    Win,
)
from zhuoji.rules.families.guizhou.settings import Ruleset
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import Phase, Table, table_rules_of
from zhuoji.rules.tiles import NUM_KINDS, NUM_SUITED, Tile, parse_tiles


def _tokens() -> tuple[dict[str, tuple[EventKind, int]], dict[str, tuple[EventKind, int]]]:
    """Each declared token letter: the kind and the index of its choice (the kong's
    ``EAC``), for the seated kinds (``1+5m``) and the others (``F5m``, ``X``)."""
    seated: dict[str, tuple[EventKind, int]] = {}
    leading: dict[str, tuple[EventKind, int]] = {}
    for kind in all_event_kinds():
        for i, letter in enumerate(kind.token or ""):
            (seated if kind.seated else leading)[letter] = (kind, i)
    return seated, leading


_SEATED, _LEADING = _tokens()
_TOKEN = re.compile(
    rf"^(?:(?P<seat>\d)(?P<op>[{re.escape(''.join(_SEATED))}])(?P<tiles>(?:\d+[mpszf]|W)*)"
    rf"(?:<(?P<src>\d))?|(?P<lead>[{re.escape(''.join(_LEADING))}])(?P<rest>(?:\d+[mpszf]|W)?))$"
)


def parse_event(token: str) -> Event:
    """The event a token writes, field by field as its kind declares them
    (:mod:`zhuoji.rules.event_kinds`)."""
    m = _TOKEN.match(token)
    if m is None:
        raise ValueError(f"bad event token {token!r}")
    if m["lead"]:
        kind, choice = _LEADING[m["lead"]]
        seat, text, src = None, m["rest"], None
    else:
        kind, choice = _SEATED[m["op"]]
        seat, text = int(m["seat"]), m["tiles"]
        src = int(m["src"]) if m["src"] is not None else None
    tiles = parse_tiles(text) if text else []
    values: list[object] = []
    for f in kind.fields:
        value: object
        if f.name == "seat":
            value = seat
        elif f.kind is FieldKind.TILE:
            if len(tiles) != 1:
                raise ValueError(f"bad event token {token!r}: one tile expected")
            value = tiles[0]
        elif f.kind is FieldKind.TILES:
            value = tuple(tiles)
        elif f.kind is FieldKind.SEAT:
            value = src
        elif f.kind is FieldKind.CHOICE:
            value = f.choices[choice] if f.enum is None else f.enum(f.choices[choice])
        else:
            raise ValueError(f"bad event token {token!r}: its kind has no token")
        if value is None and not f.optional:
            raise ValueError(f"bad event token {token!r}: no {f.name}")
        values.append(value)
    event: Event = kind.cls(*values)
    return event


def parse_events(text: str) -> tuple[Event, ...]:
    return tuple(parse_event(tok) for tok in text.split())


def format_event(ev: Event) -> str:
    """The inverse of :func:`parse_event` (for readable failure messages)."""
    try:
        kind = kind_of(ev)
    except KeyError:
        kind = None
    if kind is None or kind.token is None:
        raise ValueError(f"{ev!r} has no token here")
    op, tiles, src = kind.token, "", ""
    for f in kind.fields:
        value = getattr(ev, f.name)
        if f.kind is FieldKind.CHOICE:
            op = kind.token[f.choices.index(value if f.enum is None else value.value)]
        elif f.kind is FieldKind.TILE:
            tiles = str(value)
        elif f.kind is FieldKind.TILES:
            tiles = "".join(str(t) for t in value)
        elif f.kind is FieldKind.SEAT and f.name != "seat" and value is not None:
            src = f"<{value}"
    return f"{ev.seat}{op}{tiles}{src}" if kind.seated else f"{op}{tiles}"


def test_ruleset(**settings: object) -> Ruleset:
    """A ruleset named ``test`` with the family defaults and ``settings`` replaced."""
    return Ruleset.model_validate({"name": "test", **settings})


test_ruleset.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


_SPREAD = tuple(sorted(range(NUM_SUITED), key=lambda t: ((t * 7) % NUM_SUITED, t)))


def make_hand(
    deal: Sequence[str] | Mapping[int, str],
    events: str = "",
    *,
    front: str = "",
    back: str = "",
    dealer: int = 0,
    hand_no: int = 1,
    n_players: int = 4,
    wildcards: int = 0,
    known_wall: bool = True,
) -> HandRecord:
    """A hand record; ``deal`` maps seats to compact tiles (a sequence: seats 0, 1, ...)."""
    given = dict(enumerate(deal)) if not isinstance(deal, Mapping) else dict(deal)
    pool = [4] * NUM_SUITED + [wildcards]
    hands: dict[int, list[Tile]] = {}
    for seat, text in given.items():
        hands[seat] = parse_tiles(text)
    front_tiles = parse_tiles(front)
    back_tiles = parse_tiles(back)
    for t in [*[t for h in hands.values() for t in h], *front_tiles, *back_tiles]:
        pool[t] -= 1
    if min(pool) < 0:
        over = [Tile(t) for t in range(NUM_KINDS) if pool[t] < 0]
        raise ValueError(f"more than the full set of {over}")
    spread = [Tile(t) for _ in range(4) for t in _SPREAD] + [Tile.W] * wildcards
    rest: list[Tile] = []
    for t in spread:
        if pool[t]:
            pool[t] -= 1
            rest.append(t)
    for seat in range(n_players):
        if seat not in hands:
            size = 14 if seat == dealer else 13
            hands[seat], rest = rest[:size], rest[size:]
    wall = [*front_tiles, *rest, *reversed(back_tiles)]
    return HandRecord(
        hand_no=hand_no,
        n_players=n_players,
        dealer=dealer,
        dealer_streak=0,
        deal=tuple(tuple(hands[s]) for s in sorted(hands)),
        events=parse_events(events),
        wall=tuple(wall) if known_wall else None,
    )


def with_events(record: HandRecord, events: str | Sequence[Event]) -> HandRecord:
    """The same deal and wall with other events."""
    evs = parse_events(events) if isinstance(events, str) else tuple(events)
    return HandRecord(
        hand_no=record.hand_no, n_players=record.n_players, dealer=record.dealer,
        dealer_streak=record.dealer_streak, deal=record.deal, events=evs, wall=record.wall,
    )


def draw_and_discard(record: HandRecord, first_seat: int, count: int, start: int = 0) -> str:
    """Tokens for ``count`` turns from ``first_seat`` on, each drawing the next front tile
    of the known wall (from position ``start``) and discarding it at once."""
    assert record.wall is not None
    n = record.n_players
    out = []
    for k in range(count):
        seat = (first_seat + k) % n
        tile = record.wall[start + k]
        out.append(f"{seat}+{tile} {seat}-{tile}")
    return " ".join(out)


# ---------------------------------------------------------------------- random playouts
@dataclass(frozen=True, slots=True)
class Players:
    """How the playout players choose (probability of taking each kind of opportunity)."""

    win: float = 1.0  # below 1, a declined win leads to 过水不胡 situations
    kong: float = 0.8
    pong: float = 0.5
    ready: float = 0.7


def deal_tiles(
    rng: random.Random, ruleset: RulesetBase, dealer: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]:
    """A shuffled full set dealt to the ruleset's seats: (deal, wall front first)."""
    rules = table_rules_of(ruleset)
    tiles = [Tile(t) for t in range(NUM_SUITED) for _ in range(4)]
    tiles.extend([Tile.W] * rules.wildcards)
    rng.shuffle(tiles)
    deal = []
    pos = 0
    for seat in range(rules.players):
        size = 14 if seat == dealer else 13
        deal.append(tuple(tiles[pos:pos + size]))
        pos += size
    return tuple(deal), tuple(tiles[pos:])


def _usefulness(counts: tuple[int, ...], tile: int) -> int:
    """Copies and neighbours of a tile in its suit: low means a good discard."""
    rank = tile % 9
    score = 4 * counts[tile]
    for d, weight in ((1, 2), (2, 1)):
        if rank - d >= 0:
            score += weight * counts[tile - d]
        if rank + d <= 8:
            score += weight * counts[tile + d]
    return score


def choose(rng: random.Random, table: Table, actions: list[Event], players: Players) -> Event:
    """One of ``actions`` (the table's legal actions) by the simple players' policy."""
    wins = [a for a in actions if isinstance(a, Win)]
    if wins and rng.random() < players.win:
        return wins[0]
    kongs = [a for a in actions if isinstance(a, Kong)]
    if kongs and rng.random() < players.kong:
        return rng.choice(kongs)
    pongs = [a for a in actions if isinstance(a, Pong)]
    if pongs and rng.random() < players.pong:
        return rng.choice(pongs)
    readies = [a for a in actions if isinstance(a, Ready)]
    if readies and rng.random() < players.ready:
        return readies[0]
    for a in actions:
        if isinstance(a, Flip):
            return a
    discards = [a for a in actions if isinstance(a, Discard)]
    if discards:
        counts = table.counts(discards[0].seat)
        best = min(_usefulness(counts, a.tile) for a in discards)
        return rng.choice([a for a in discards if _usefulness(counts, a.tile) == best])
    for a in actions:
        if isinstance(a, (Draw, ExhaustiveDraw)):
            return a
    return actions[0]


def random_playout(
    rng: random.Random,
    ruleset: RulesetBase,
    *,
    hand_no: int = 1,
    dealer: int = 0,
    players: Players | None = None,
    known_wall: bool = True,
    observe: Callable[[Table, Event | None], None] | None = None,
) -> HandRecord:
    """A hand played to its end through ``Table.legal_actions()`` only (legal by
    construction). ``observe(table, event)`` is called after the deal (event None) and
    after every applied event."""
    players = players or Players()
    deal, wall = deal_tiles(rng, ruleset, dealer)
    n_players = table_rules_of(ruleset).players
    record = HandRecord(hand_no=hand_no, n_players=n_players, dealer=dealer,
                        dealer_streak=0, deal=deal, events=(),
                        wall=wall if known_wall else None)
    table = Table.from_record(record, ruleset)
    if observe is not None:
        observe(table, None)
    events: list[Event] = []
    front_drawn = back_drawn = 0
    while True:
        actions = table.legal_actions()
        if table.is_over:
            actions = [a for a in actions if isinstance(a, Win)]
            if not actions or rng.random() >= players.win:
                break
        if not actions:
            break
        if not known_wall:
            # without a wall the table lists every unseen tile: draw as the hidden wall says
            back = table.phase is Phase.KONG_DRAW
            nxt = wall[len(wall) - 1 - back_drawn] if back else wall[front_drawn]
            actions = [a for a in actions if not isinstance(a, (Draw, Flip)) or a.tile == nxt]
        event = choose(rng, table, actions, players)
        if isinstance(event, Draw):
            if table.phase is Phase.KONG_DRAW:
                back_drawn += 1
            else:
                front_drawn += 1
        table.apply(event)
        events.append(event)
        if observe is not None:
            observe(table, event)
    return HandRecord(hand_no=hand_no, n_players=n_players, dealer=dealer,
                      dealer_streak=0, deal=deal, events=tuple(events),
                      wall=wall if known_wall else None)


def random_hands(seed: int, count: int, ruleset: Ruleset,
                 players: Players | None = None) -> list[HandRecord]:
    """``count`` playout hands from one seed, the deal passing round the table."""
    rng = random.Random(seed)
    return [random_playout(rng, ruleset, hand_no=i + 1, dealer=i % ruleset.players,
                           players=players) for i in range(count)]
