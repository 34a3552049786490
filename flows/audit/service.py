"""One log file to its games, audits and faults: the loop every reader of logs shares.

:func:`generate_audits` reads a file once with the fast readers (each game's tiles those of
its family), resolves each game's ruleset (:mod:`zhuoji.flows.audit.rulesets`), audits its
hands and yields, in file order, a :class:`GameAudit` per game or a :class:`FileFault` per
game or file that cannot be read. What a caller needs is said by its
:class:`AuditOptions`:

* ``zhuoji validate`` reads and resolves only (``audit=False``);
* ``zhuoji audit`` audits the games and hands it is asked for, with the settlements'
  explanations, and refuses a game whose amounts leave what JSON tools hold
  (:func:`beyond_range`);
* the ingest worker audits without explanations, resolves the overrides as it stores them,
  turns an engine defect into the game's fault, bounds the amounts by the warehouse's
  columns, and stops auditing at a file's first fault (the file is quarantined: the rest
  is read only to report every malformed game);
* a hand's page keeps the table after each event of its hand (``replay_steps``), taken
  from the audit's own replay of the hand.

:func:`hand_snapshots` gives the replay panel of a hand of a game already read (the
dashboard's hand pages, whose other facts come from the warehouse).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from zhuoji.flows.audit.bridge import hand_records
from zhuoji.flows.audit.rulesets import (
    ResolvedRuleset,
    resolve,
    resolve_stored,
    ruleset_tiles,
    stored_overrides,
)
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.fast import Game
from zhuoji.parsers.read import ByteSink, generate_fast_games, parse_encoding
from zhuoji.rules.audit import HandAudit, audit_game, audit_hand
from zhuoji.rules.events import HandRecord
from zhuoji.rules.families import family_of
from zhuoji.rules.mechanics import mechanics_of
from zhuoji.rules.replay import GameCarry, replay_of_table
from zhuoji.rules.settings import MAX_HAND_VALUE, MAX_STAKE, RulesetBase
from zhuoji.rules.snapshot import HandSnapshots, Snapshot, event_data, replay_snapshots, table_data
from zhuoji.rules.table import Carry, IllegalMoveError, Table, carry_findings
from zhuoji.rules.violations import Violation

__all__ = [
    "MAX_HAND_AMOUNT",
    "AuditOptions",
    "Bound",
    "FileFault",
    "GameAudit",
    "GameFault",
    "audit_read_game",
    "audit_with_steps",
    "beyond_range",
    "generate_audits",
    "hand_snapshots",
    "player_names",
]


@dataclass(frozen=True, slots=True)
class FileFault:
    """A file, or one game in it, that cannot be read (it is malformed)."""

    path: str
    error: MalformedLogError


class GameFault(StrEnum):
    """Why a game that reads has no audit."""

    RULESET = "ruleset"  # its ruleset does not resolve (or cannot replay)
    AUDIT = "audit"  # the engine failed on it (a defect: only when the options catch it)
    RANGE = "range"  # its recomputed amounts leave the bound of the options


@dataclass(frozen=True, slots=True)
class GameAudit:
    """One game of a file: its audited hands, or why it could not be audited."""

    path: str
    game: Game
    ruleset: RulesetBase | None  # None when the game's ruleset cannot be used
    error: str | None  # why the game has no audit (see ``fault``)
    hands: tuple[HandAudit, ...]
    fault: GameFault | None = None
    error_at: str | None = None  # the field ``error`` is about (``ruleset``, ``hands[3]``)
    resolved: ResolvedRuleset | None = None  # the game's ruleset, resolved
    overrides: str | None = None  # its overrides as stored (``as_stored``; None without)
    steps: HandSnapshots | None = None  # the table after each event of the hand asked for

    @property
    def names(self) -> list[str]:
        return player_names(self.game)


def player_names(game: Game) -> list[str]:
    """Each seat's player name (the player id when the log gives no name)."""
    names = [""] * len(game.players)
    for p in game.players:
        names[p.seat] = p.name or p.id
    return names


Bound = Callable[[Sequence[HandAudit]], tuple[str, str | None] | None]
"""The amounts a game's audit may reach: why its hands leave them (a sentence and the
field it is about), or None."""

MAX_HAND_AMOUNT = MAX_HAND_VALUE * MAX_STAKE
"""What one hand may move at most, in points (< 2**62): the settings' bounds keep every
hand within it at any stake the log format takes; only a log's own counts (a 连庄 of
millions) can leave it."""


def beyond_range(audits: Sequence[HandAudit]) -> tuple[str, str | None] | None:
    """Why a game's recomputed amounts are refused: the first hand that moves more than
    :data:`MAX_HAND_AMOUNT` points (its items, deltas and sum would not all fit the signed
    64-bit integers of the warehouse and of JSON tools), or None."""
    for audit in audits:
        settlement = audit.settlement
        if settlement is None:
            continue
        moved = sum(abs(item[2]) for item in settlement.items)
        if moved > MAX_HAND_AMOUNT:
            return (f"hand {audit.record.hand_no}: the recomputed settlement moves {moved:,} "
                    f"points, beyond what one hand may move ({MAX_HAND_AMOUNT:,}: "
                    "2**31 values at the largest stake)"), None
    return None


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """What :func:`generate_audits` does with each game of a file."""

    game_id: str | None = None
    """Only the game with this id (the others are read, not yielded)."""
    hand_no: int | None = None
    """Only this hand of each game is audited (a game is yielded when none matches)."""
    audit: bool = True
    """Replay, settle and check the hands; False: read and resolve only (a game whose
    preset and overrides resolve is good, whether or not its family can replay)."""
    explain: bool = True
    """The settlements' explanations (the warehouse stores none)."""
    as_stored: bool = False
    """Resolve the overrides as the warehouse stores them
    (:func:`zhuoji.flows.audit.rulesets.resolve_stored`), not as the log gives them."""
    bound: Bound = beyond_range
    """The amounts a game's audit may reach (:data:`Bound`)."""
    catch: bool = False
    """An exception of the engine on a game is that game's fault (``the audit failed:
    ...``) instead of the caller's."""
    after_fault: bool = True
    """Go on with the games after a fault; False: after the first fault (a malformed game
    or a game without an audit) only the faults are yielded."""
    replay_steps: tuple[str | None, int] | None = None
    """The game id (None: every game) and hand number whose table after each event is kept
    (:attr:`GameAudit.steps`), from the audit's replay of that hand."""


_DEFAULT = AuditOptions()


def generate_audits(
    path: str | os.PathLike[str],
    options: AuditOptions | None = None,
    *,
    sink: ByteSink | None = None,
) -> Iterator[GameAudit | FileFault]:
    """Every game of one log file, read once and audited as ``options`` say, in file
    order; a file whose name is no log file's is one :class:`FileFault`. ``sink`` gets
    the file's bytes as they are read (:func:`zhuoji.parsers.read.generate_fast_games`).
    Exceptions other than the engine's (``options.catch``) are the caller's."""
    options = _DEFAULT if options is None else options
    name = os.fspath(path)
    try:
        parse_encoding(name)
    except ValueError as exc:
        yield FileFault(name, MalformedLogError(str(exc).split(": ", 1)[-1], path=name))
        return
    faulted = False
    for item in generate_fast_games(name, sink=sink, tiles=ruleset_tiles):
        if isinstance(item, MalformedLogError):
            faulted = True
            yield FileFault(name, item)
            continue
        if faulted and not options.after_fault:
            continue
        if options.game_id is not None and item.game_id != options.game_id:
            continue
        audited = _game_audit(name, item, options)
        faulted = faulted or audited.error is not None
        yield audited


def audit_read_game(path: str, game: Game, options: AuditOptions | None = None) -> GameAudit:
    """One game of ``path`` already read, resolved and audited as ``options`` say, as
    :func:`generate_audits` does each game it reads (a hand's page, which reads its file
    once for the replay, audits only the game it shows)."""
    return _game_audit(path, game, _DEFAULT if options is None else options)


def _game_audit(path: str, game: Game, options: AuditOptions) -> GameAudit:
    stored: str | None = None
    if options.as_stored:
        stored = stored_overrides(game.rule_overrides)
        resolved = resolve_stored(game.ruleset, stored)
    else:
        resolved = resolve(game.ruleset, game.rule_overrides)
    if not options.audit:
        if resolved.error is not None:
            return GameAudit(path, game, None, resolved.error, (), GameFault.RULESET, "ruleset",
                             resolved, stored)
        return GameAudit(path, game, resolved.resolved, None, (), resolved=resolved,
                         overrides=stored)
    if resolved.replay_error is not None:
        return GameAudit(path, game, None, resolved.replay_error, (), GameFault.RULESET,
                         "ruleset", resolved, stored)
    ruleset = resolved.ruleset
    steps_of = options.replay_steps
    steps: HandSnapshots | None = None
    try:
        records = hand_records(game)
        if options.hand_no is not None:
            records = [r for r in records if r.hand_no == options.hand_no]
        if steps_of is not None and steps_of[0] in (None, game.game_id):
            audits, steps = audit_with_steps(records, ruleset, steps_of[1],
                                              explain=options.explain)
        else:
            audits = audit_game(records, ruleset, explain=options.explain)
    except Exception as exc:
        if not options.catch:
            raise
        reason = f"the audit failed: {type(exc).__name__}: {exc}"
        return GameAudit(path, game, None, reason, (), GameFault.AUDIT, None, resolved, stored)
    beyond = options.bound(audits)
    if beyond is not None:
        reason, where = beyond
        return GameAudit(path, game, None, reason, (), GameFault.RANGE, where, resolved, stored)
    return GameAudit(path, game, ruleset, None, tuple(audits), resolved=resolved,
                     overrides=stored, steps=steps)


def audit_with_steps(
    records: Sequence[HandRecord], ruleset: RulesetBase, hand_no: int, *, explain: bool
) -> tuple[list[HandAudit], HandSnapshots | None]:
    """:func:`zhuoji.rules.audit.audit_game`, with the table after each event of hand
    ``hand_no`` read in the same replay (None when the game has no such hand)."""
    if not any(r.hand_no == hand_no for r in records):
        return audit_game(records, ruleset, explain=explain), None
    thread = GameCarry(ruleset) if mechanics_of(ruleset).carry else None
    audits: list[HandAudit] = []
    steps: HandSnapshots | None = None
    for record in records:
        carry, before = (None, ()) if thread is None else thread.before(record)
        if record.hand_no == hand_no and steps is None:
            audit, steps = _audit_hand_steps(record, ruleset, explain, carry, before)
        else:
            audit = audit_hand(record, ruleset, explain=explain, carry=carry, before=before)
        if thread is not None:
            thread.after(audit.replay)
        audits.append(audit)
    return audits, steps


def _audit_hand_steps(
    record: HandRecord,
    ruleset: RulesetBase,
    explain: bool,
    carry: Carry | None,
    before: tuple[Violation, ...],
) -> tuple[HandAudit, HandSnapshots]:
    """:func:`zhuoji.rules.audit.audit_hand` of one hand, its events played one at a time
    on the table to read it after each (:func:`zhuoji.rules.snapshot.replay_snapshots`'
    steps): the replay is :func:`zhuoji.rules.replay.replay_hand`'s, the settlement and
    the checks :func:`audit_hand`'s."""
    try:
        table = Table.from_record(record, ruleset)
    except IllegalMoveError as exc:  # the deal itself: no table, nothing to replay
        audit = audit_hand(record, ruleset, explain=explain, carry=carry, before=before)
        return audit, HandSnapshots((), exc.violation, None)
    snapshots = [Snapshot(0, None, table_data(table))]
    fatal: Violation | None = None
    stopped = None
    for event in record.events:
        fatal = table.step(event)
        if fatal is not None:
            stopped = event_data(event)
            break
        snapshots.append(Snapshot(table.event_index, event_data(event), table_data(table)))
    if fatal is None:
        fatal = table.finish()
    found = (*before, *carry_findings(record.hand_no, record.carry, carry,
                                      mechanics_of(ruleset).carry))
    replay = replay_of_table(record, table, fatal, carry=carry, before=found)
    family = ruleset.derived(family_of)
    settlement = family.settle(
        replay, ruleset, record.base_stake, dealer_streak=record.dealer_streak, explain=explain
    )
    checks = tuple(family.audit_result(settlement, record.result, record.hand_no))
    audit = HandAudit(record, replay, settlement, (*replay.violations, *checks))
    return audit, HandSnapshots(tuple(snapshots), fatal, stopped)


def hand_snapshots(game: Game, hand_no: int) -> HandSnapshots | None:
    """The table after each event of hand ``hand_no`` of a game already read (its ruleset
    as the log gives it); None when the ruleset cannot replay or the game has no such
    hand."""
    resolved = resolve(game.ruleset, game.rule_overrides)
    if resolved.replay_error is not None:
        return None
    for record in hand_records(game):
        if record.hand_no == hand_no:
            return replay_snapshots(record, resolved.ruleset)
    return None
