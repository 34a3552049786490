"""Mutated game logs and the robustness fuzz target (parse -> bridge -> ruleset -> audit).

One copy, used by ``tests/rules/test_fuzz.py`` (hypothesis drives the random choices
through ``st.randoms()``) and by ``bench/fuzz.py`` (a seeded run over a million inputs,
input ``i`` drawn from ``random.Random(f"zhuoji-fuzz/{seed}/{i}")``).

**Seeds** (:func:`generate_seed_games`): every game of the sample logs (``data/sample``,
``data/sample/changsha``) and of the dispute logs (``tests/data/disputes``), plus legal
games that :mod:`zhuoji.rules.families.guizhou.simulate` and
:mod:`zhuoji.rules.families.changsha.simulate`
play under every shipped preset of their family.

**Mutations**, stacked at four levels (:func:`generate_input` picks them):

* semantic, on the game as a JSON tree that still follows the format: events dropped,
  duplicated, swapped, moved, shuffled, cut off, retyped, inserted or spliced in from
  another hand; seats, tiles, ``from`` and kong kinds changed; optional fields removed;
  the deal and the wall edited; the dealer, 连庄 count, hand numbers, player count,
  stake, preset name, ``rule_overrides`` (odd values, values at and past the settings'
  bounds) and the recorded result changed;
* JSON tree, blind to the format: keys deleted or added, values of the wrong type,
  extreme numbers, junk text, lists emptied, duplicated or nested;
* stream lines (stream encoding only): control and event lines dropped, duplicated,
  swapped, moved, joined, blank or junk lines, a second game appended;
* bytes: truncation, bit flips, inserted, deleted or duplicated ranges, splices of
  other logs, number and string literals replaced (huge, NaN, lone surrogates, invalid
  UTF-8), deep nesting, a byte-order mark, CRLF; and gzip members truncated, corrupted
  or concatenated.

**Outcomes** (:class:`Outcome`, :func:`run_input`). An input is read twice, by
``zhuoji.parsers.read.generate_fast_games_from_bytes`` (the form the ingest and the audit read)
and by ``zhuoji.parsers.read.generate_games_from_bytes`` (the pydantic models): the two must
yield the same games with the same values and the same errors, else the input has
``diverged``. Each game read goes through
``zhuoji.flows.audit.bridge.hand_records``, ``zhuoji.rules.presets.resolve_ruleset`` and
``zhuoji.rules.audit.audit_hand``. Acceptable: a :class:`~zhuoji.parsers.errors.MalformedLogError`
for
a game or the input (``malformed``); a
:class:`~zhuoji.rules.families.guizhou.settings.RulesetError` (an unknown preset, a bad override)
from resolving the game's ruleset (``ruleset_error``); a
:class:`~zhuoji.rules.audit.HandAudit` per hand, with findings (``violations``) or none
(``clean``). Anything else raised is a ``crash``; an audit that breaks one of the
documented invariants (:func:`find_broken_invariant`) is ``broken``. An input the engine
does not fail on then goes as a file through ``zhuoji audit --json`` and ``zhuoji audit``
in this process (:func:`run_cli_audit`); a command that fails (an exit status other than
0, 1 or 2, an "unexpected error", a ``--json`` line that is no JSON object) is a
``crash`` too.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import gzip
import io
import json
import random
import re
import shutil
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from zhuoji.flows.audit.bridge import game_from_records, hand_records
from zhuoji.parsers import fast
from zhuoji.parsers.errors import MalformedLogError
from zhuoji.parsers.models import Game
from zhuoji.parsers.read import (
    Encoding,
    generate_fast_games_from_bytes,
    generate_games,
    generate_games_from_bytes,
    is_log_path,
)
from zhuoji.parsers.write import format_document
from zhuoji.rules.audit import HandAudit, audit_hand
from zhuoji.rules.events import HandRecord
from zhuoji.rules.facts import Outcome as HandOutcome
from zhuoji.rules.families import family_named
from zhuoji.rules.families.changsha.settings import Ruleset as ChangshaRuleset
from zhuoji.rules.families.changsha.simulate import simulate_game as simulate_changsha_game
from zhuoji.rules.families.guizhou.simulate import simulate_game
from zhuoji.rules.presets import load_preset, preset_names, resolve_ruleset
from zhuoji.rules.settings import RulesetError
from zhuoji.rules.violations import SETTLEMENT_CODES, Violation, ViolationCode

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS: tuple[str, ...] = ("data/sample", "data/sample/changsha", "tests/data/disputes")
"""Folders (relative to the repository) whose log files are seeds."""

Json = Any  # a JSON value as orjson / json give it (dict, list, str, int, float, bool, None)
Op = Callable[[Json, random.Random, "Context"], str | None]


def _fresh(value: Json) -> Json:
    """A copy of a pool value before it goes into a tree (pools are shared constants)."""
    return copy.deepcopy(value) if isinstance(value, list | dict) else value


# --- outcomes ----------------------------------------------------------------------------


class Outcome(StrEnum):
    """What one input led to; an input with several games takes the first class that
    applies, in this order: crash, diverged, broken, malformed, ruleset_error, violations, clean."""

    CRASH = "crash"  # an exception other than MalformedLogError / RulesetError escaped
    DIVERGED = "diverged"  # the fast form and the pydantic models read the input apart
    BROKEN = "broken"  # an audit returned but broke a documented invariant
    MALFORMED = "malformed"  # the parser reported the input or a game as malformed
    RULESET_ERROR = "ruleset_error"  # a game's preset or rule_overrides cannot be used
    VIOLATIONS = "violations"  # every hand audited; at least one finding
    CLEAN = "clean"  # every hand audited without a finding


FAILURES = frozenset({Outcome.CRASH, Outcome.DIVERGED, Outcome.BROKEN})


@dataclass(frozen=True, slots=True)
class Failure:
    """A crash or a broken invariant: ``key`` deduplicates (exception type and the
    innermost project frame, or the invariant), ``detail`` is the traceback or message."""

    key: str
    detail: str


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    games: int  # games the parser read
    malformed: int  # MalformedLogError items (games or the whole input)
    ruleset_errors: int
    hands: int  # hands audited
    codes: tuple[str, ...]  # distinct finding codes, sorted
    failure: Failure | None = None


def _project_frame(tb: traceback.StackSummary) -> str:
    """``path:line (function)`` of the innermost frame in the project's code (not this
    harness), else of the innermost frame."""
    chosen = tb[-1] if tb else None
    for frame in reversed(tb):
        path = Path(frame.filename)
        if path == Path(__file__).resolve():
            continue
        try:
            rel = path.resolve().relative_to(ROOT)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] in ("rules", "parsers", "flows"):
            chosen = frame
            break
    if chosen is None:
        return "?"
    try:
        name = str(Path(chosen.filename).resolve().relative_to(ROOT))
    except ValueError:
        name = chosen.filename
    return f"{name}:{chosen.lineno} ({chosen.name})"


def describe_crash(exc: BaseException) -> Failure:
    """A crash's deduplication key and its traceback."""
    tb = traceback.extract_tb(exc.__traceback__)
    key = f"{type(exc).__name__} at {_project_frame(tb)}"
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return Failure(key, detail)


@dataclass(frozen=True, slots=True)
class BrokenInvariant:
    """An invariant an audit broke: a stable ``name`` and a message with the values."""

    name: str
    message: str


def find_broken_invariant(record: HandRecord, audit: HandAudit) -> BrokenInvariant | None:
    """The first documented invariant an audit breaks, or ``None``.

    Findings are violations of the hand; at most one fatal one, last among the replay's;
    the audit's findings start with the replay's; a fatal violation means no settlement
    and an incomplete outcome, and no fatal violation a settlement; settlement checks
    appear only with a recorded result; a settlement has one delta per seat, deltas that
    sum to zero, are multiples of the stake and equal the sums of its ledger items (each
    between two different seats, a non-zero multiple of the stake); the next dealer is
    a seat.
    """
    replay, settlement = audit.replay, audit.settlement
    n = record.n_players

    def broken(name: str, message: str) -> BrokenInvariant:
        return BrokenInvariant(name, message)

    for v in audit.findings:
        if not isinstance(v, Violation) or not isinstance(v.code, ViolationCode):
            return broken("finding_type", f"a finding is not a Violation with a code: {v!r}")
        if v.hand_no != record.hand_no:
            return broken("finding_hand", f"{v.code} names hand {v.hand_no}, not {record.hand_no}")
    if audit.findings[: len(replay.violations)] != replay.violations:
        return broken("findings_prefix", "the findings do not start with the replay's violations")
    fatals = [i for i, v in enumerate(replay.violations) if v.fatal]
    if len(fatals) > 1 or (fatals and fatals[0] != len(replay.violations) - 1):
        return broken("fatal_last", f"fatal violations at {fatals} of {len(replay.violations)}")
    incomplete = replay.outcome is HandOutcome.INCOMPLETE
    if incomplete != bool(fatals):
        return broken("outcome_fatal", f"outcome {replay.outcome} with {len(fatals)} fatal")
    if (settlement is None) != incomplete:
        state = "absent" if settlement is None else "present"
        return broken("outcome_settlement", f"outcome {replay.outcome}, settlement {state}")
    if record.result is None and any(v.code in SETTLEMENT_CODES for v in audit.findings):
        return broken("check_without_result", "a settlement check without a recorded result")
    if settlement is None:
        return None
    stake = record.base_stake
    deltas = list(settlement.deltas)
    if len(deltas) != n:
        return broken("delta_count", f"{len(deltas)} deltas for {n} players")
    if sum(deltas) != 0:
        return broken("zero_sum", f"deltas {deltas} do not sum to zero")
    if any(d % stake for d in deltas):
        return broken("stake_multiple", f"deltas {deltas} are not multiples of {stake}")
    totals = [0] * n
    for item in settlement.items:
        if not (0 <= item.payer < n and 0 <= item.payee < n) or item.payer == item.payee:
            return broken("item_seats", f"ledger item from {item.payer} to {item.payee}")
        if item.amount == 0 or item.amount % stake:
            return broken("item_amount", f"ledger item of {item.amount} at stake {stake}")
        totals[item.payer] -= item.amount
        totals[item.payee] += item.amount
    if totals != deltas:
        return broken("ledger_sums", f"deltas {deltas} are not the ledger's sums {totals}")
    if not 0 <= settlement.next_dealer < n:
        return broken("next_dealer", f"next dealer {settlement.next_dealer} of {n} players")
    return None


_CLI_DIR: list[Path] = []


def _cli_dir() -> Path:
    """A folder of this process's own for the files ``zhuoji audit`` reads."""
    if not _CLI_DIR:
        folder = Path(tempfile.mkdtemp(prefix="zhuoji-fuzz-cli-"))
        atexit.register(shutil.rmtree, folder, True)
        _CLI_DIR.append(folder)
    return _CLI_DIR[0]


def suffix_of(encoding: Encoding, gzipped: bool) -> str:
    """A file name ending under which ``zhuoji audit`` reads an input as ``encoding``."""
    return (".json" if encoding is Encoding.DOCUMENT else ".jsonl") + (".gz" if gzipped else "")


def run_cli_audit(data: bytes, suffix: str) -> Failure | None:
    """The input as a file through the ``zhuoji audit`` command, in this process, with
    ``--json`` and as text, its output captured: it must end with exit status 0, 1 or 2,
    print no "unexpected error" (with the debug switch on, the traceback goes to the
    captured stderr), and with ``--json`` print JSON objects only. The failure, or None."""
    import typer

    from zhuoji.flows.cli.audit import audit_command
    from zhuoji.flows.cli.errors import set_debug

    path = _cli_dir() / f"input{suffix}"
    path.write_bytes(data)
    set_debug(True)
    for json_lines in (True, False):
        out, err = io.StringIO(), io.StringIO()
        code: int | None = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                audit_command([str(path)], json_lines=json_lines, hand_no=None, game_id=None,
                              html=None, lang=None)
            except typer.Exit as exc:
                code = exc.exit_code
        mode = "--json" if json_lines else "text"
        printed, said = out.getvalue(), err.getvalue()
        if code not in (0, 1, 2):
            return Failure(f"audit {mode}: exit status {code}", printed[-2000:] + said[-2000:])
        if "unexpected error" in printed or "unexpected error" in said:
            where = said.strip().splitlines()[-1:] or ["?"]
            return Failure(f"audit {mode}: unexpected error: {where[0][:200]}",
                           said[-4000:] or printed[-2000:])
        if json_lines:
            for line in printed.splitlines():
                try:
                    obj = orjson.loads(line)
                except orjson.JSONDecodeError:
                    return Failure(f"audit {mode}: a line that is no JSON", line[:2000])
                if not isinstance(obj, dict):
                    return Failure(f"audit {mode}: a line that is no object", line[:2000])
    return None


def run_input(
    data: bytes, encoding: Encoding, gzipped: bool, *, cli: bool = True
) -> Verdict:
    """Feed one input through the whole audit path and classify what happened; with
    ``cli``, then through ``zhuoji audit --json`` and ``zhuoji audit`` (:func:`run_cli_audit`):
    a failure there is a ``crash``."""
    verdict = _run_engine(data, encoding, gzipped)
    if not cli or verdict.outcome in FAILURES:
        return verdict
    try:
        failure = run_cli_audit(data, suffix_of(encoding, gzipped))
    except Exception as exc:  # the harness's own fault would show here too
        failure = describe_crash(exc)
    if failure is None:
        return verdict
    return Verdict(Outcome.CRASH, verdict.games, verdict.malformed, verdict.ruleset_errors,
                   verdict.hands, verdict.codes, failure)


def _run_engine(data: bytes, encoding: Encoding, gzipped: bool) -> Verdict:
    """The input through the parsers and the engine, in memory."""
    games = malformed = ruleset_errors = hands = 0
    codes: set[str] = set()
    any_findings = False
    try:
        items = list(generate_fast_games_from_bytes(data, encoding, gzipped=gzipped))
        models = list(generate_games_from_bytes(data, encoding, gzipped=gzipped))
        apart = find_divergence(items, models)
        if apart is not None:
            return Verdict(
                Outcome.DIVERGED, 0, 0, 0, 0, (), Failure("fast form != models", apart)
            )
        for item in items:
            if isinstance(item, MalformedLogError):
                malformed += 1
                continue
            games += 1
            try:
                ruleset = resolve_ruleset(item.ruleset, item.rule_overrides)
            except RulesetError:
                ruleset_errors += 1
                continue
            for record in hand_records(item):
                audit = audit_hand(record, ruleset)
                hands += 1
                broken = find_broken_invariant(record, audit)
                if broken is not None:
                    return Verdict(
                        Outcome.BROKEN, games, malformed, ruleset_errors, hands,
                        tuple(sorted(codes)),
                        Failure(f"invariant {broken.name}", broken.message),
                    )
                for v in audit.findings:
                    codes.add(v.code.value)
                any_findings = any_findings or bool(audit.findings)
    except Exception as exc:  # the point of the fuzzer: anything else is a crash
        return Verdict(
            Outcome.CRASH, games, malformed, ruleset_errors, hands, tuple(sorted(codes)),
            describe_crash(exc),
        )
    if malformed:
        outcome = Outcome.MALFORMED
    elif ruleset_errors:
        outcome = Outcome.RULESET_ERROR
    elif any_findings:
        outcome = Outcome.VIOLATIONS
    else:
        outcome = Outcome.CLEAN
    return Verdict(outcome, games, malformed, ruleset_errors, hands, tuple(sorted(codes)))


def find_divergence(
    items: Sequence[fast.Game | MalformedLogError], models: Sequence[Game | MalformedLogError]
) -> str | None:
    """How the two forms read one input apart, or ``None`` when they agree."""
    if len(items) != len(models):
        return f"{len(items)} items in the fast form, {len(models)} from the models"
    for i, (item, model) in enumerate(zip(items, models, strict=True)):
        if isinstance(item, MalformedLogError) or isinstance(model, MalformedLogError):
            if str(item) != str(model):
                return f"item {i}: {item!s} != {model!s}"
        elif item != fast.from_model(model):
            return f"item {i}: game {model.game_id!r} holds other values in the fast form"
    return None


# --- seeds -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeedGame:
    """One seed game: a name saying where it comes from and its document (JSON bytes)."""

    name: str
    document: bytes

    def tree(self) -> Json:
        """A fresh copy of the game as a JSON tree."""
        return orjson.loads(self.document)


def _document_of(game: Game) -> bytes:
    return format_document(game).rstrip(b"\n")


def generate_seed_games(*, simulated: int = 10, seed: int = 20261101) -> list[SeedGame]:
    """The seed corpus: the games of the log files in :data:`SEED_DIRS`, then ``simulated``
    games (of one to three hands) per shipped preset of the Guizhou and Changsha families.
    Deterministic."""
    seeds: list[SeedGame] = []
    for folder in SEED_DIRS:
        for path in sorted((ROOT / folder).iterdir()):
            if not is_log_path(path):
                continue
            for i, item in enumerate(generate_games(path)):
                if isinstance(item, Game):
                    name = f"{path.relative_to(ROOT)}#{i}"
                    seeds.append(SeedGame(name, _document_of(item)))
    for preset in preset_names("guizhou"):
        ruleset = load_preset(preset)
        for game_no in range(simulated):
            played = simulate_game(
                ruleset, seed=seed, game_no=game_no, hands=1 + game_no % 3,
                base_stake=1 + game_no % 2,
            )
            game = game_from_records(
                played.records, game_id=f"sim-{preset}-{game_no}", ruleset=preset,
                started_at="2026-11-01T20:15:00+08:00",
            )
            seeds.append(SeedGame(f"simulated/{preset}/{game_no}", _document_of(game)))
    for preset in preset_names("changsha"):
        changsha = load_preset(preset)
        assert isinstance(changsha, ChangshaRuleset)
        for game_no in range(simulated):
            table = simulate_changsha_game(
                changsha, seed=seed, game_no=game_no, hands=1 + game_no % 3,
                base_stake=1 + game_no % 2,
            )
            game = game_from_records(
                [hand.record for hand in table.hands], game_id=f"sim-{preset}-{game_no}",
                ruleset=preset, started_at="2026-11-01T20:15:00+08:00",
            )
            seeds.append(SeedGame(f"simulated/{preset}/{game_no}", _document_of(game)))
    return seeds


# --- the pools mutations draw from ---------------------------------------------------------

SUITED_TILES: tuple[str, ...] = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10))
TILES: tuple[str, ...] = (*SUITED_TILES, "W")
OTHER_SPELLINGS: tuple[str, ...] = (
    "五万", "幺鸡", "9筒", "一条", "七筒", "\U0001f007", "\U0001f021",
)
ODD_TILES: tuple[Json, ...] = (
    "0m", "10p", "5z", "", "w", " 1s", "1S", "1s ", "11s", "W1", "鸡", "\U0001f004", 5, None,
    ["1s"], {"tile": "1s"},
)
EXTREME_INTS: tuple[int, ...] = (
    0, -1, 1, 2, 3, 4, 5, 13, 14, 27, 108, 255, 2**31 - 1, 2**31, 2**53 + 1, 2**62,
    2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30,
)
JUNK_TEXT: tuple[str, ...] = (
    "", " ", "\u0000", "\u202e\u202d", "\ufeff", "💥🀄", "é" * 3, "A" * 5000, "\\", '"', "\n",
    "null", "guiyang ", "GUIYANG", "guiyang\u0000", "𝔤𝔲𝔦𝔶𝔞𝔫𝔤",
)
JUNK_VALUES: tuple[Json, ...] = (
    None, True, False, 0, -1, 1.5, -0.0, 1e308, "", "junk", "1s", [], {}, [0], [None],
    {"type": "draw"}, 2**63 - 1, 2**64, *JUNK_TEXT[:6],
)
EVENT_TYPES: tuple[str, ...] = (
    "draw", "discard", "pong", "kong", "ready", "win", "flip", "exhaustive_draw", "chow",
)
KONG_KINDS: tuple[str, ...] = ("exposed", "added", "concealed")
REASONS: tuple[str, ...] = (
    "hand", "self_draw", "kong_bloom", "exposed_kong", "concealed_kong", "added_kong",
    "chicken", "charging_chicken", "responsibility_chicken", "chicken_penalty", "hot_discard",
    "robbed_kong", "ready_check", "dealer", "dealer_streak", "declared_ready", "kill_ready",
    "false_hand", "bogus_reason", "",
)
ODD_PRESETS: tuple[str, ...] = (
    "guiyang-9", "", "Guiyang", "guiyang ", "../guiyang", "贵阳", "x" * 300,
)
ODD_SETTING_KEYS: tuple[str, ...] = (
    "no_such_setting", "name", "title", "chickens", "chickens.", ".players", "patterns.plain.x",
    "chicken_scop", "", "players ", "k" * 100_000,
)
BOUND_INTS: tuple[int, ...] = (
    8, 9, 16, 17, 255, 256, 257, 9_999, 10_000, 10_001, 65_536, 2**31 - 1, 2**40, 2**62,
)
"""Values at and past the settings' bounds (``le=`` of the families' settings models)."""


FAMILIES: tuple[str, ...] = ("guizhou", "changsha")
"""The families whose presets and settings the mutations draw from."""


def _setting_values() -> dict[str, dict[str, tuple[Json, ...]]]:
    """Each family's settings' values across its shipped presets, as JSON (deduplicated,
    in preset order): family -> setting path -> values."""
    out: dict[str, dict[str, tuple[Json, ...]]] = {}
    for family in FAMILIES:
        paths = family_named(family).settings.setting_paths()
        values: dict[str, list[Json]] = {path: [] for path in paths}
        for name in preset_names(family):
            dumped = load_preset(name).model_dump(mode="json")
            for path in paths:
                value: Json = dumped
                for part in path.split("."):
                    value = value[part]
                if value not in values[path]:
                    values[path].append(value)
        out[family] = {path: tuple(v) for path, v in values.items()}
    return out


@dataclass(frozen=True, slots=True)
class Context:
    """What mutations may draw from beyond their own game: the other seeds (for splices)
    and every setting's values across the presets (for overrides)."""

    seeds: tuple[SeedGame, ...]
    setting_values: dict[str, dict[str, tuple[Json, ...]]]  # family -> path -> values
    presets: tuple[str, ...]
    family_of: dict[str, str]  # preset -> family

    @classmethod
    def from_seeds(cls, seeds: Sequence[SeedGame]) -> Context:
        presets = tuple(name for family in FAMILIES for name in preset_names(family))
        family_of = {name: load_preset(name).family for name in presets}
        return cls(tuple(seeds), _setting_values(), presets, family_of)

    def other_tree(self, rng: random.Random) -> Json:
        return rng.choice(self.seeds).tree()


# --- helpers over a game tree --------------------------------------------------------------


def _hands(game: Json) -> list[dict[str, Json]]:
    hands = game.get("hands") if isinstance(game, dict) else None
    return [h for h in hands if isinstance(h, dict)] if isinstance(hands, list) else []


def _pick_hand(game: Json, rng: random.Random) -> dict[str, Json] | None:
    hands = _hands(game)
    return rng.choice(hands) if hands else None


def _events(game: Json, rng: random.Random) -> list[Json] | None:
    """The events list of a random hand, if it has one."""
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    events = hand.get("events")
    return events if isinstance(events, list) else None


def _pick_event(game: Json, rng: random.Random, *keys: str) -> dict[str, Json] | None:
    """A random event (a dict) of a random hand, having every key in ``keys``."""
    events = _events(game, rng)
    if not events:
        return None
    fits = [e for e in events if isinstance(e, dict) and all(k in e for k in keys)]
    return rng.choice(fits) if fits else None


def _n_players(game: Json) -> int:
    players = game.get("players") if isinstance(game, dict) else None
    return len(players) if isinstance(players, list) and players else 4


def _seat(game: Json, rng: random.Random, *, odd: float = 0.1) -> int:
    """A seat of the game, or (with probability ``odd``) one out of range."""
    if rng.random() < odd:
        return rng.choice((_n_players(game), 4, 5, -1, 2**31))
    return rng.randrange(_n_players(game))


def _tile(rng: random.Random) -> Json:
    roll = rng.random()
    if roll < 0.85:
        return rng.choice(SUITED_TILES)
    if roll < 0.92:
        return "W"
    if roll < 0.97:
        return rng.choice(OTHER_SPELLINGS)
    return _fresh(rng.choice(ODD_TILES))


def _neighbour(tile: Json, rng: random.Random) -> Json:
    if isinstance(tile, str) and tile in SUITED_TILES:
        rank = int(tile[0]) + rng.choice((-1, 1))
        if 1 <= rank <= 9:
            return f"{rank}{tile[1]}"
    return _tile(rng)


def _random_event(game: Json, rng: random.Random) -> dict[str, Json]:
    """A well-formed event of a random type with seats in range."""
    kind = rng.choice(EVENT_TYPES)
    event: dict[str, Json] = {"type": kind}
    if kind in ("flip", "exhaustive_draw"):
        if kind == "flip":
            event["tile"] = _tile(rng)
        return event
    event["seat"] = _seat(game, rng, odd=0.02)
    if kind == "chow":
        start = rng.randrange(7)
        suit = rng.choice("mps")
        event["tiles"] = [f"{start + k + 1}{suit}" for k in range(rng.choice((3, 3, 2, 1)))]
        event["from"] = _seat(game, rng, odd=0.02)
        return event
    if kind != "ready":
        event["tile"] = _tile(rng)
    if kind == "pong" or (kind == "kong" and rng.random() < 0.5):
        event["from"] = _seat(game, rng, odd=0.02)
    if kind == "kong":
        event["kind"] = rng.choice(KONG_KINDS)
    if kind == "win" and rng.random() < 0.5:
        event["from"] = _seat(game, rng, odd=0.02)
    if rng.random() < 0.2:
        event["t"] = rng.randrange(10**6)
    return event


# --- semantic mutations: events ------------------------------------------------------------


def drop_event(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if not events:
        return None
    del events[rng.randrange(len(events))]
    return "drop_event"


def duplicate_event(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if not events:
        return None
    i = rng.randrange(len(events))
    at = i + 1 if rng.random() < 0.7 else rng.randrange(len(events) + 1)
    events.insert(at, _fresh(events[i]))
    return "duplicate_event"


def swap_events(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if events is None or len(events) < 2:
        return None
    i = rng.randrange(len(events) - 1)
    j = i + 1 if rng.random() < 0.7 else rng.randrange(len(events))
    events[i], events[j] = events[j], events[i]
    return "swap_events"


def move_event(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if events is None or len(events) < 2:
        return None
    event = events.pop(rng.randrange(len(events)))
    events.insert(rng.randrange(len(events) + 1), event)
    return "move_event"


def shuffle_events(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if events is None or len(events) < 2:
        return None
    start = rng.randrange(len(events) - 1)
    end = min(len(events), start + rng.randint(2, 8))
    window = events[start:end]
    rng.shuffle(window)
    events[start:end] = window
    return "shuffle_events"


def truncate_events(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if not events:
        return None
    del events[rng.randrange(len(events)):]
    return "truncate_events"


def change_seat(game: Json, rng: random.Random, ctx: Context) -> str | None:
    event = _pick_event(game, rng, "seat")
    if event is None:
        return None
    event["seat"] = _seat(game, rng)
    return "change_seat"


def change_tile(game: Json, rng: random.Random, ctx: Context) -> str | None:
    event = _pick_event(game, rng, "tile")
    if event is None:
        return None
    event["tile"] = _neighbour(event["tile"], rng) if rng.random() < 0.4 else _tile(rng)
    return "change_tile"


_FROM_TYPES = frozenset({"pong", "kong", "win", "chow"})


def change_from(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """Set or remove ``from``; mostly on the types that carry it (elsewhere it is an
    unknown field)."""
    events = _events(game, rng)
    if not events:
        return None
    fits = [e for e in events if isinstance(e, dict) and "seat" in e]
    takes = [e for e in fits if e.get("type") in _FROM_TYPES]
    pool = takes if takes and rng.random() < 0.85 else fits
    if not pool:
        return None
    event = rng.choice(pool)
    roll = rng.random()
    if roll < 0.3 and "from" in event:
        del event["from"]
        return "change_from:remove"
    event["from"] = event["seat"] if roll < 0.45 else _seat(game, rng)
    return "change_from:set"


def change_type(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """Turn an event into a well-formed one of another type, keeping its seat and tile."""
    events = _events(game, rng)
    if not events:
        return None
    i = rng.randrange(len(events))
    old = events[i]
    if not isinstance(old, dict):
        return None
    new = _random_event(game, rng)
    for key in ("seat", "tile", "from"):
        if key in old and key in new:
            new[key] = old[key]
    events[i] = new
    return f"change_type:{old.get('type')}->{new['type']}"


def change_kong_kind(game: Json, rng: random.Random, ctx: Context) -> str | None:
    event = _pick_event(game, rng, "kind")
    if event is None:
        return None
    event["kind"] = rng.choice(KONG_KINDS)
    if rng.random() < 0.5:
        if event["kind"] == "exposed":
            event["from"] = _seat(game, rng, odd=0.02)
        else:
            event.pop("from", None)
    return "change_kong_kind"


def insert_event(game: Json, rng: random.Random, ctx: Context) -> str | None:
    events = _events(game, rng)
    if events is None:
        return None
    event = _random_event(game, rng)
    events.insert(rng.randrange(len(events) + 1), event)
    return f"insert_event:{event['type']}"


def remove_event_field(game: Json, rng: random.Random, ctx: Context) -> str | None:
    event = _pick_event(game, rng)
    if event is None:
        return None
    keys = [k for k in event if k != "type"]
    if not keys:
        return None
    key = rng.choice(keys)
    del event[key]
    return f"remove_event_field:{key}"


def splice_events(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """Copy a run of events from a hand of any seed game into a hand of this one."""
    events = _events(game, rng)
    source = _events(ctx.other_tree(rng), rng)
    if events is None or not source:
        return None
    start = rng.randrange(len(source))
    run = source[start : start + rng.randint(1, 12)]
    at = rng.randrange(len(events) + 1)
    if rng.random() < 0.5:
        events[at:at] = run
    else:
        events[at : at + len(run)] = run
    return "splice_events"


def change_time(game: Json, rng: random.Random, ctx: Context) -> str | None:
    event = _pick_event(game, rng)
    if event is None:
        return None
    event["t"] = rng.choice(EXTREME_INTS)
    return "change_time"


def extend_hand(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """Play on past the end: a hand's last event becomes (or is followed by) a draw by
    the seat after the last discarder, which an exhausted wall or a finished hand
    forbids."""
    events = _events(game, rng)
    if not events:
        return None
    discarders = [
        e["seat"] for e in events
        if isinstance(e, dict) and e.get("type") == "discard" and isinstance(e.get("seat"), int)
    ]
    seat = (discarders[-1] + 1) % _n_players(game) if discarders else 0
    draw = {"type": "draw", "seat": seat, "tile": _tile(rng)}
    last = events[-1]
    if isinstance(last, dict) and last.get("type") == "exhaustive_draw":
        events[-1] = draw
        return "extend_hand:past_exhaustive_draw"
    events.append(draw)
    return "extend_hand:after_end"


def _is_event(e: Json, kind: str) -> bool:
    return isinstance(e, dict) and e.get("type") == kind


def break_ready(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """After a player declared ready (报听), make one of its later discards a tile it has
    kept since the deal instead of the tile it drew (a frozen hand may not change)."""
    hand = _pick_hand(game, rng)
    events = hand.get("events") if hand is not None else None
    if hand is None or not isinstance(events, list):
        return None
    readies = [
        (i, e["seat"]) for i, e in enumerate(events)
        if _is_event(e, "ready") and isinstance(e.get("seat"), int)  # not mutated away
    ]
    if not readies:
        return None
    at, seat = rng.choice(readies)
    later = [
        i for i in range(at + 2, len(events))
        if _is_event(events[i], "discard") and events[i].get("seat") == seat
    ]
    deal = hand.get("deal")
    if not later or not isinstance(deal, list) or not 0 <= seat < len(deal):
        return None
    used = {
        e.get("tile") for e in events
        if isinstance(e, dict) and e.get("seat") == seat and e.get("type") != "draw"
    }
    kept = [t for t in deal[seat] if t not in used] if isinstance(deal[seat], list) else []
    if not kept:
        return None
    events[rng.choice(later)]["tile"] = rng.choice(kept)
    return "break_ready"


def _front_draws(events: Sequence[Json]) -> int:
    """How many draws of ``events`` come from the wall's front (a draw right after a kong
    is a replacement draw from the back)."""
    front = 0
    for i, e in enumerate(events):
        if _is_event(e, "draw") and not (i and _is_event(events[i - 1], "kong")):
            front += 1
    return front


def pass_win(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """Let a win on a discard pass (过水): the winner takes no tile, the next player draws
    the same tile and discards it, and the winner wins on that discard before drawing
    again, which the rules forbid."""
    hand = _pick_hand(game, rng)
    events = hand.get("events") if hand is not None else None
    if hand is None or not isinstance(events, list):
        return None
    wins = [
        k for k in range(1, len(events))
        if _is_event(events[k], "win") and isinstance(events[k].get("from"), int)
        and _is_event(events[k - 1], "discard")
    ]
    if not wins:
        return None
    k = rng.choice(wins)
    win = events[k]
    seat, tile, frm = win.get("seat"), win.get("tile"), win["from"]
    nxt = (frm + 1) % _n_players(game)
    if nxt == seat or not isinstance(seat, int):
        return None
    tail: list[Json] = [
        {"type": "draw", "seat": nxt, "tile": tile},
        {"type": "discard", "seat": nxt, "tile": tile},
        {"type": "win", "seat": seat, "tile": tile, "from": nxt},
    ]
    wall = hand.get("wall")
    if isinstance(wall, list):
        front = _front_draws(events[:k])
        back = sum(1 for e in events[:k] if _is_event(e, "kong"))
        spots = [j for j in range(front, len(wall) - back) if wall[j] == tile]
        if not spots:
            return None
        j = spots[0]
        wall[front], wall[j] = wall[j], wall[front]
        if front + 1 < len(wall) - back:
            tail.append({"type": "flip", "tile": wall[front + 1]})
    else:
        tail.extend(e for e in events[k + 1 :] if _is_event(e, "flip"))
    events[k:] = tail
    return "pass_win"


# --- semantic mutations: one hand ----------------------------------------------------------


def _deal_rows(hand: dict[str, Json]) -> list[list[Json]]:
    deal = hand.get("deal")
    if not isinstance(deal, list):
        return []
    return [row for row in deal if isinstance(row, list)]


def edit_deal(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    rows = _deal_rows(hand)
    filled = [row for row in rows if row]
    if not filled:
        return None
    row = rng.choice(filled)
    i = rng.randrange(len(row))
    wall = hand.get("wall") if isinstance(hand.get("wall"), list) else None
    variant = rng.choice(
        ("swap_seats", "drop", "add", "replace", "swap_rows", "to_wall", "from_wall",
         "empty_row", "wildcard")
    )
    if variant == "swap_seats":
        other = rng.choice(filled)
        j = rng.randrange(len(other))
        row[i], other[j] = other[j], row[i]
    elif variant == "drop":
        del row[i]
    elif variant == "add":
        row.insert(i, _tile(rng))
    elif variant == "replace":
        row[i] = _neighbour(row[i], rng) if rng.random() < 0.5 else _tile(rng)
    elif variant == "swap_rows" and len(rows) >= 2:
        a, b = rng.sample(range(len(rows)), 2)
        rows[a][:], rows[b][:] = list(rows[b]), list(rows[a])
    elif variant == "to_wall" and wall is not None:
        wall.insert(0 if rng.random() < 0.5 else len(wall), row.pop(i))
    elif variant == "from_wall" and wall:
        row.append(wall.pop(0 if rng.random() < 0.5 else len(wall) - 1))
    elif variant == "empty_row":
        row.clear()
    elif variant == "wildcard":
        row[i] = "W"
    else:
        return None
    return f"edit_deal:{variant}"


def edit_wall(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    wall = hand.get("wall")
    variant = rng.choice(
        ("remove", "empty", "drop", "swap", "insert", "truncate", "reverse", "replace",
         "wildcard", "rotate")
    )
    if variant == "remove":
        if "wall" not in hand:
            return None
        del hand["wall"]
        return "edit_wall:remove"
    if not isinstance(wall, list):
        return None
    if variant == "empty":
        wall.clear()
    elif not wall:
        return None
    elif variant == "drop":
        del wall[rng.randrange(len(wall))]
    elif variant == "swap":
        i, j = rng.randrange(len(wall)), rng.randrange(len(wall))
        wall[i], wall[j] = wall[j], wall[i]
    elif variant == "insert":
        wall.insert(rng.randrange(len(wall) + 1), _tile(rng))
    elif variant == "truncate":
        del wall[rng.randrange(len(wall)):]
    elif variant == "reverse":
        wall.reverse()
    elif variant == "replace":
        i = rng.randrange(len(wall))
        wall[i] = _neighbour(wall[i], rng)
    elif variant == "wildcard":
        wall[rng.randrange(len(wall))] = "W"
    else:
        k = rng.randrange(len(wall))
        wall[:] = wall[k:] + wall[:k]
    return f"edit_wall:{variant}"


def change_dealer(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    hand["dealer"] = _seat(game, rng)
    return "change_dealer"


def change_hand_numbers(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    key = rng.choice(("dealer_streak", "hand_no"))
    hand[key] = rng.choice(EXTREME_INTS)
    return f"change_hand_numbers:{key}"


def edit_result(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    result = hand.get("result")
    variant = rng.choice(
        ("remove", "remove_items", "remove_next_dealer", "shift", "break_sum", "next_dealer",
         "item_amount", "item_seats", "item_reason", "drop_item", "duplicate_item",
         "add_item", "huge", "zero")
    )
    if variant == "remove":
        if "result" not in hand:
            return None
        del hand["result"]
        return "edit_result:remove"
    if not isinstance(result, dict):
        if variant != "add_item":
            return None
        result = hand["result"] = {"deltas": [0] * _n_players(game)}
    deltas = result.get("deltas")
    items = result.get("items")
    n = _n_players(game)
    if variant == "remove_items":
        if result.pop("items", None) is None:
            return None
    elif variant == "remove_next_dealer":
        if result.pop("next_dealer", None) is None:
            return None
    elif variant in ("shift", "break_sum", "huge", "zero"):
        if not isinstance(deltas, list) or not deltas:
            return None
        i = rng.randrange(len(deltas))
        if variant == "zero":
            deltas[:] = [0] * len(deltas)
        elif variant == "huge":
            deltas[i] = rng.choice((2**31 - 1, -(2**31), 2**30))  # the bounds of a recorded delta
        elif not isinstance(deltas[i], int):
            return None
        else:
            amount = rng.choice((1, 2, 5, 10))
            deltas[i] += amount
            if variant == "shift":
                j = rng.randrange(len(deltas))
                if isinstance(deltas[j], int):
                    deltas[j] -= amount
    elif variant == "next_dealer":
        result["next_dealer"] = _seat(game, rng)
    elif variant == "add_item":
        if not isinstance(items, list):
            items = result["items"] = []
        items.append({
            "payer": _seat(game, rng, odd=0.02), "payee": _seat(game, rng, odd=0.02),
            "amount": rng.choice((1, 2, 3, 10, 0, -1)), "reason": rng.choice(REASONS),
        })
    else:
        if not isinstance(items, list) or not items:
            return None
        i = rng.randrange(len(items))
        item = items[i]
        if not isinstance(item, dict):
            return None
        if variant == "item_amount":
            item["amount"] = rng.choice((0, -1, 1, 2, 7, 100, 2**63 - 1))
        elif variant == "item_seats":
            item[rng.choice(("payer", "payee"))] = rng.randrange(n)
        elif variant == "item_reason":
            item["reason"] = rng.choice(REASONS)
        elif variant == "drop_item":
            del items[i]
        else:
            items.insert(i, dict(item))
    return f"edit_result:{variant}"


def edit_dice(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hand = _pick_hand(game, rng)
    if hand is None:
        return None
    choice = rng.choice(([], [1], [6, 6], [0, 7], [3, 4, 5], None))
    if choice is None:
        hand.pop("dice", None)
    else:
        hand["dice"] = _fresh(choice)
    return "edit_dice"


def edit_hands(game: Json, rng: random.Random, ctx: Context) -> str | None:
    hands = game.get("hands") if isinstance(game, dict) else None
    if not isinstance(hands, list):
        return None
    variant = rng.choice(("drop", "duplicate", "swap", "empty", "foreign"))
    if variant == "empty":
        hands.clear()
    elif variant == "foreign":
        foreign = _pick_hand(ctx.other_tree(rng), rng)
        if foreign is None:
            return None
        hands.insert(rng.randrange(len(hands) + 1), foreign)
    elif not hands:
        return None
    elif variant == "drop":
        del hands[rng.randrange(len(hands))]
    elif variant == "duplicate":
        i = rng.randrange(len(hands))
        hands.insert(i, _fresh(hands[i]))
    else:
        i, j = rng.randrange(len(hands)), rng.randrange(len(hands))
        hands[i], hands[j] = hands[j], hands[i]
    return f"edit_hands:{variant}"


# --- semantic mutations: the game ----------------------------------------------------------


def _drop_seat(game: dict[str, Json], seat: int) -> None:
    """Remove the last seat from every per-seat list and drop events naming it."""
    for hand in _hands(game):
        deal = hand.get("deal")
        if isinstance(deal, list) and len(deal) > seat:
            del deal[seat]
        events = hand.get("events")
        if isinstance(events, list):
            events[:] = [
                e for e in events
                if not (isinstance(e, dict) and seat in (e.get("seat"), e.get("from")))
            ]
        if hand.get("dealer") == seat:
            hand["dealer"] = 0
        result = hand.get("result")
        if isinstance(result, dict):
            deltas = result.get("deltas")
            if isinstance(deltas, list) and len(deltas) > seat:
                lost = deltas.pop(seat)
                if deltas and isinstance(lost, int) and isinstance(deltas[0], int):
                    deltas[0] += lost
            if result.get("next_dealer") == seat:
                result["next_dealer"] = 0
            items = result.get("items")
            if isinstance(items, list):
                items[:] = [
                    i for i in items
                    if not (isinstance(i, dict) and seat in (i.get("payer"), i.get("payee")))
                ]


def _add_seat(game: dict[str, Json], seat: int, rng: random.Random) -> None:
    for hand in _hands(game):
        deal = hand.get("deal")
        wall = hand.get("wall")
        if isinstance(deal, list):
            if isinstance(wall, list) and len(wall) >= 13:
                row = wall[:13]
                del wall[:13]
            else:
                row = [rng.choice(SUITED_TILES) for _ in range(13)]
            deal.append(row)
        result = hand.get("result")
        if isinstance(result, dict) and isinstance(result.get("deltas"), list):
            result["deltas"].append(0)


def change_players(game: Json, rng: random.Random, ctx: Context) -> str | None:
    if not isinstance(game, dict) or not isinstance(game.get("players"), list):
        return None
    players = game["players"]
    n = len(players)
    variant = rng.choice(("remove", "add", "reorder", "duplicate_seat"))
    if variant == "remove" and n > 1:
        players.pop()
        _drop_seat(game, n - 1)
    elif variant == "add" and n < 5:
        players.append({"seat": n, "id": f"extra{n}"})
        _add_seat(game, n, rng)
    elif variant == "reorder" and n > 1:
        rng.shuffle(players)
    elif variant == "duplicate_seat" and n > 1 and isinstance(players[-1], dict):
        players[-1]["seat"] = 0
    else:
        return None
    return f"change_players:{variant}"


def change_ruleset(game: Json, rng: random.Random, ctx: Context) -> str | None:
    if not isinstance(game, dict):
        return None
    roll = rng.random()
    if roll < 0.1:
        game.pop("ruleset", None)
        return "change_ruleset:remove"
    game["ruleset"] = rng.choice(ctx.presets) if roll < 0.8 else rng.choice(ODD_PRESETS)
    return "change_ruleset:set"


def _odd_setting_value(
    path: str, family: dict[str, tuple[Json, ...]], rng: random.Random
) -> Json:
    """A value for a setting of a family: one some preset uses (70%), else one at or past
    a setting's bound, an extreme or an odd one."""
    values = family[path]
    roll = rng.random()
    if roll < 0.70:
        return _fresh(rng.choice(values))
    if roll < 0.80:
        return rng.choice(BOUND_INTS)
    if roll < 0.9:
        return rng.choice(EXTREME_INTS)
    other = family[rng.choice(tuple(family))]
    return _fresh(rng.choice((*JUNK_VALUES, *other)))


def change_overrides(game: Json, rng: random.Random, ctx: Context) -> str | None:
    if not isinstance(game, dict):
        return None
    roll = rng.random()
    if roll < 0.1:
        game.pop("rule_overrides", None)
        return "change_overrides:remove"
    overrides = game.get("rule_overrides")
    if not isinstance(overrides, dict) or rng.random() < 0.3:
        overrides = game["rule_overrides"] = {}
    preset = game.get("ruleset")
    family = ctx.family_of.get(preset, "guizhou") if isinstance(preset, str) else "guizhou"
    if rng.random() < 0.1:  # another family's settings
        family = rng.choice(FAMILIES)
    model = family_named(family).settings
    values = ctx.setting_values[family]
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.08:
            overrides[rng.choice(ODD_SETTING_KEYS)] = _fresh(rng.choice(JUNK_VALUES))
            continue
        path = rng.choice(tuple(values))
        value = _odd_setting_value(path, values, rng)
        overrides[model.flat_alias(path) if rng.random() < 0.5 else path] = value
        if rng.random() < 0.03:  # the same setting under both of its names
            overrides[path] = value
            overrides[model.flat_alias(path)] = _fresh(value)
    return "change_overrides:set"


def raise_setting(game: Json, rng: random.Random, ctx: Context) -> str | None:
    """One whole-number setting of the game's family at or past its bound (``BOUND_INTS``):
    the largest amounts a settlement can reach."""
    if not isinstance(game, dict):
        return None
    preset = game.get("ruleset")
    family = ctx.family_of.get(preset, "guizhou") if isinstance(preset, str) else "guizhou"
    values = ctx.setting_values[family]
    numbers = [p for p, v in values.items() if v and all(type(x) is int for x in v)]
    overrides = game.get("rule_overrides")
    if not isinstance(overrides, dict):
        overrides = game["rule_overrides"] = {}
    overrides[rng.choice(numbers)] = rng.choice((*BOUND_INTS, 2**62, 2**63 - 1))
    return "raise_setting"


def change_game_fields(game: Json, rng: random.Random, ctx: Context) -> str | None:
    if not isinstance(game, dict):
        return None
    key = rng.choice(("base_stake", "game_id", "started_at", "schema", "player"))
    if key == "base_stake":
        game[key] = rng.choice(EXTREME_INTS)
    elif key == "game_id":
        game[key] = rng.choice(JUNK_TEXT)
    elif key == "started_at":
        game[key] = rng.choice((
            "2026-13-01T00:00:00", "2026-11-01", "0000-01-01T00:00:00Z", "now", 0, None,
            "2026-11-01T20:15:00+25:00", "9999-12-31T23:59:59.999999+14:00",
        ))
    elif key == "schema":
        game[key] = rng.choice(("zhuoji-log/2", "", "ZHUOJI-LOG/1", None))
    else:
        players = game.get("players")
        if not isinstance(players, list) or not players or not isinstance(players[0], dict):
            return None
        rng.choice(players)[rng.choice(("id", "name"))] = rng.choice(JUNK_TEXT)
    return f"change_game_fields:{key}"


SEMANTIC: tuple[tuple[str, Op, int], ...] = (
    # (name, mutation, weight): event mutations dominate, they reach the replayer deepest
    ("drop_event", drop_event, 6),
    ("duplicate_event", duplicate_event, 5),
    ("swap_events", swap_events, 5),
    ("move_event", move_event, 4),
    ("shuffle_events", shuffle_events, 3),
    ("truncate_events", truncate_events, 4),
    ("change_seat", change_seat, 5),
    ("change_tile", change_tile, 6),
    ("change_from", change_from, 4),
    ("change_type", change_type, 5),
    ("change_kong_kind", change_kong_kind, 3),
    ("insert_event", insert_event, 6),
    ("remove_event_field", remove_event_field, 2),
    ("splice_events", splice_events, 3),
    ("change_time", change_time, 1),
    ("extend_hand", extend_hand, 2),
    ("break_ready", break_ready, 2),
    ("pass_win", pass_win, 2),
    ("edit_deal", edit_deal, 5),
    ("edit_wall", edit_wall, 5),
    ("change_dealer", change_dealer, 3),
    ("change_hand_numbers", change_hand_numbers, 2),
    ("edit_result", edit_result, 6),
    ("edit_dice", edit_dice, 1),
    ("edit_hands", edit_hands, 2),
    ("change_players", change_players, 3),
    ("change_ruleset", change_ruleset, 3),
    ("change_overrides", change_overrides, 6),
    ("raise_setting", raise_setting, 3),
    ("change_game_fields", change_game_fields, 2),
)


# --- JSON tree mutations (blind to the format) ----------------------------------------------


def _random_path(tree: Json, rng: random.Random) -> list[tuple[Json, Any]]:
    """A random walk from the root: the ``(container, key)`` steps taken. At each
    container a random member is taken, and the walk goes on into it (if it is a non-empty
    container) three times in four. Cheap on large trees, and it reaches every depth."""
    path: list[tuple[Json, Any]] = []
    node = tree
    while isinstance(node, dict | list) and node:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append((node, key))
        node = node[key]
        if rng.random() < 0.25:
            break
    return path


def _random_slot(
    tree: Json, rng: random.Random, want: Callable[[Json], bool]
) -> tuple[Json, Any] | None:
    """``(container, key)`` of a value ``want`` accepts, found by a few random walks."""
    for _ in range(8):
        fits = [(node, key) for node, key in _random_path(tree, rng) if want(node[key])]
        if fits:
            return fits[-1]
    return None


def _random_container(tree: Json, rng: random.Random, kind: type) -> Json:
    """A non-empty container of ``kind`` (dict or list) on a random walk, or ``None``."""
    for _ in range(8):
        fits = [node for node, _ in _random_path(tree, rng) if isinstance(node, kind)]
        if fits:
            return rng.choice(fits)
    return None


def tree_delete_key(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    node = _random_container(tree, rng, dict)
    if node is None:
        return None
    key = rng.choice(list(node))
    del node[key]
    return f"tree_delete_key:{key}"


def tree_wrong_type(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    slot = _random_slot(tree, rng, lambda v: True)
    if slot is None:
        return None
    node, key = slot
    node[key] = _fresh(rng.choice(JUNK_VALUES))
    return "tree_wrong_type"


def tree_extreme_number(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    slot = _random_slot(tree, rng, lambda v: isinstance(v, int) and not isinstance(v, bool))
    if slot is None:
        return None
    node, key = slot
    node[key] = rng.choice((*EXTREME_INTS, 1.0, 0.5, 1e300, -1e300))
    return "tree_extreme_number"


def tree_junk_text(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    slot = _random_slot(tree, rng, lambda v: isinstance(v, str))
    if slot is None:
        return None
    node, key = slot
    junk = rng.choice(JUNK_TEXT)
    node[key] = junk if rng.random() < 0.7 else node[key] + junk
    return "tree_junk_text"


def tree_unknown_key(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    node = _random_container(tree, rng, dict)
    if node is None:
        return None
    key = rng.choice(("extra", "type", "seat", "tile", "from", "hands", "events", "result", "é"))
    node[key] = _fresh(rng.choice(JUNK_VALUES))
    return f"tree_unknown_key:{key}"


def tree_edit_list(tree: Json, rng: random.Random, ctx: Context) -> str | None:
    node = _random_container(tree, rng, list)
    if node is None:
        return None
    variant = rng.choice(("empty", "duplicate", "drop", "nest", "null"))
    i = rng.randrange(len(node))
    if variant == "empty":
        node.clear()
    elif variant == "duplicate":
        node.insert(i, _fresh(node[i]))
    elif variant == "drop":
        del node[i]
    elif variant == "nest":
        node[i] = [node[i]]
    else:
        node[i] = None
    return f"tree_edit_list:{variant}"


TREE: tuple[tuple[str, Op, int], ...] = (
    ("tree_delete_key", tree_delete_key, 3),
    ("tree_wrong_type", tree_wrong_type, 3),
    ("tree_extreme_number", tree_extreme_number, 2),
    ("tree_junk_text", tree_junk_text, 2),
    ("tree_unknown_key", tree_unknown_key, 2),
    ("tree_edit_list", tree_edit_list, 3),
)


# --- serialising a tree --------------------------------------------------------------------


def dump_json(value: Json, *, indent: bool = False, ascii_only: bool = False) -> bytes:
    """JSON bytes of a tree; integers beyond 64 bits go through the standard library."""
    if not ascii_only:
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
        except TypeError:
            pass
    return json.dumps(
        value, ensure_ascii=ascii_only, indent=2 if indent else None, separators=(",", ":")
    ).encode("utf-8", "surrogatepass")


def stream_lines(game: Json) -> list[bytes]:
    """A game tree as stream lines (each ending in a newline), however broken the tree:
    what does not fit the layout is written as a line of its own."""
    if not isinstance(game, dict):
        return [dump_json(game) + b"\n"]
    lines: list[bytes] = []

    def line(kind: str, fields: dict[str, Json]) -> None:
        obj: dict[str, Json] = {"type": kind}
        obj.update((k, v) for k, v in fields.items() if k != "type")
        lines.append(dump_json(obj) + b"\n")

    line("start_game", {k: v for k, v in game.items() if k != "hands"})
    hands = game.get("hands")
    if isinstance(hands, list):
        for hand in hands:
            if not isinstance(hand, dict):
                lines.append(dump_json(hand) + b"\n")
                continue
            line("start_hand", {k: v for k, v in hand.items() if k not in ("events", "result")})
            events = hand.get("events")
            if isinstance(events, list):
                lines.extend(dump_json(e) + b"\n" for e in events)
            elif "events" in hand:
                lines.append(dump_json(events) + b"\n")
            line("end_hand", {"result": hand["result"]} if "result" in hand else {})
    elif "hands" in game:
        lines.append(dump_json(hands) + b"\n")
    lines.append(b'{"type":"end_game"}\n')
    return lines


# --- stream line mutations -------------------------------------------------------------------

JUNK_LINES: tuple[bytes, ...] = (
    b"{}\n", b"[]\n", b"null\n", b"\n", b"   \n", b'{"type":"start_hand"}\n',
    b'{"type":"end_hand"}\n', b'{"type":"end_game"}\n', b'{"type":"start_game"}\n',
    b'{"type":"start_game","game_id":"x","players":[]}\n', b'{"type":"bogus"}\n',
    b"not json\n", b'{"type":"draw","seat":0,"tile":"1s"}\n', b'{"type":"exhaustive_draw"}\n',
    b'{"type": "start_hand", "hand_no": 1}\n', b'{"type":"end_hand","result":null}\n',
    b'{"note":"{\\"type\\":\\"end_game\\"}"}\n', b'"type":"start_game"\n',
)


def mutate_lines(lines: list[bytes], rng: random.Random, ctx: Context) -> str | None:
    if not lines:
        return None
    variant = rng.choice(
        ("drop", "duplicate", "swap", "move", "junk", "join", "second_game", "cut_end",
         "crlf", "blank")
    )
    i = rng.randrange(len(lines))
    if variant == "drop":
        del lines[i]
    elif variant == "duplicate":
        lines.insert(i, lines[i])
    elif variant == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif variant == "move":
        lines.insert(rng.randrange(len(lines)), lines.pop(i))
    elif variant == "junk":
        lines.insert(i, rng.choice(JUNK_LINES))
    elif variant == "join" and i + 1 < len(lines):
        lines[i : i + 2] = [lines[i].rstrip(b"\n") + lines[i + 1]]
    elif variant == "second_game":
        other = stream_lines(ctx.other_tree(rng))
        at = len(lines) if rng.random() < 0.7 else i
        lines[at:at] = other
    elif variant == "cut_end":
        del lines[i:]
    elif variant == "crlf":
        lines[:] = [ln[:-1] + b"\r\n" if ln.endswith(b"\n") else ln for ln in lines]
    elif variant == "blank":
        lines.insert(i, b"\n")
    else:
        return None
    return f"lines:{variant}"


# --- byte mutations -----------------------------------------------------------------------

_NUMBER_RE = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_STRING_RE = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
ODD_NUMBERS: tuple[bytes, ...] = (
    b"18446744073709551616", b"-9223372036854775809", b"9223372036854775808",
    b"9223372036854775807", b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity", b"-0",
    b"1.0", b"0.5", b"00", b"1e2", b"1E+2", b"0x10", b"+1", b"1" * 400, b"true", b"null",
)
ODD_STRINGS: tuple[bytes, ...] = (
    b'"\\ud800"', b'"\\udfff\\ud800"', b'"\\u0000"', b'"\\"', b'"\xe9"', b'"\xc0\xaf"',
    b'"\xed\xa0\x80"', b'"\xef\xbb\xbf1s"', b'"\\u4e94\\u4e07"', b'"\\uD83C\\uDC04"', b'""',
    b'"' + b"\xe4\xb8\x87" * 2000 + b'"', b'"\\x41"', b'"\t"', b"'1s'", b'"1s',
)


def mutate_bytes(data: bytes, rng: random.Random, ctx: Context) -> tuple[bytes, str | None]:
    if not data:
        return data, None
    variant = rng.choice(
        ("truncate", "flip_bit", "set_byte", "insert", "delete", "duplicate", "splice",
         "number", "string", "bom", "nest", "nul", "swap_chunks")
    )
    n = len(data)
    i = rng.randrange(n)
    if variant == "truncate":
        return data[:i], "bytes:truncate"
    if variant == "flip_bit":
        flipped = bytes([data[i] ^ (1 << rng.randrange(8))])
        return data[:i] + flipped + data[i + 1 :], "bytes:flip_bit"
    if variant == "set_byte":
        value = rng.choice((0, 0x0A, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x80, 0xFF))
        return data[:i] + bytes([value]) + data[i + 1 :], "bytes:set_byte"
    if variant == "insert":
        junk = rng.choice((b",", b"}", b"]", b'"', b"\\", b"\n", b"\xff\xfe", b"{", b"[", b":"))
        return data[:i] + junk + data[i:], "bytes:insert"
    if variant == "delete":
        return data[:i] + data[i + rng.randint(1, 64) :], "bytes:delete"
    if variant == "duplicate":
        piece = data[i : i + rng.randint(1, 200)]
        return data[:i] + piece + data[i:], "bytes:duplicate"
    if variant == "splice":
        other = dump_json(ctx.other_tree(rng))
        j = rng.randrange(len(other))
        return data[:i] + other[j : j + rng.randint(1, 400)] + data[i:], "bytes:splice"
    if variant in ("number", "string"):
        pattern = _NUMBER_RE if variant == "number" else _STRING_RE
        # look at a random window only: the full scan of a large log is slow
        start = max(0, i - 2000)
        matches = list(pattern.finditer(data, start, min(n, start + 4000)))
        if not matches:
            return data, None
        m = rng.choice(matches)
        new = rng.choice(ODD_NUMBERS if variant == "number" else ODD_STRINGS)
        return data[: m.start()] + new + data[m.end() :], f"bytes:{variant}"
    if variant == "bom":
        return b"\xef\xbb\xbf" + data, "bytes:bom"
    if variant == "nest":
        depth = rng.choice((100, 1000, 5000, 100_000))
        found = _NUMBER_RE.search(data, i)
        if found is None:
            return data, None
        deep = b"[" * depth + found.group() + b"]" * depth
        return data[: found.start()] + deep + data[found.end() :], "bytes:nest"
    if variant == "nul":
        return data[:i] + b"\x00" + data[i:], "bytes:nul"
    j = rng.randrange(n)
    a, b = sorted((i, j))
    k = min(rng.randint(1, 100), n - b)
    swapped = data[:a] + data[b : b + k] + data[a + k : b] + data[a : a + k] + data[b + k :]
    return swapped, "bytes:swap_chunks"


def mutate_gzip(data: bytes, rng: random.Random, ctx: Context) -> tuple[bytes, str]:
    variant = rng.choice(("truncate", "flip", "second_member", "trailing_junk", "header"))
    if variant == "truncate":
        return data[: rng.randrange(len(data))], "gzip:truncate"
    if variant == "flip":
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :], "gzip:flip"
    if variant == "second_member":
        member = gzip.compress(dump_json(ctx.other_tree(rng)) + b"\n", mtime=0)
        return data + member, "gzip:second_member"
    if variant == "trailing_junk":
        return data + rng.choice((b"\x00" * 8, b"junk", b"\x1f\x8b")), "gzip:trailing_junk"
    return data[:3] + bytes([rng.randrange(256)]) + data[4:], "gzip:header"


# --- one input ------------------------------------------------------------------------------


class Level(StrEnum):
    """Where an input's mutations act."""

    SEMANTIC = "semantic"  # the game's content, the format kept
    TREE = "tree"  # the JSON tree, blind to the format
    LINES = "lines"  # the lines of a stream
    BYTES = "bytes"  # the bytes (and gzip members)


@dataclass(frozen=True, slots=True)
class FuzzInput:
    """One mutated log: its bytes, how to read them, the seed and the mutations applied."""

    data: bytes
    encoding: Encoding
    gzipped: bool
    level: Level
    seed: str
    steps: tuple[str, ...]

    @property
    def suffix(self) -> str:
        """A file name ending under which ``zhuoji audit`` reads the input the same way."""
        return suffix_of(self.encoding, self.gzipped)


def _weighted(ops: tuple[tuple[str, Op, int], ...], rng: random.Random) -> Op:
    total = sum(w for _, _, w in ops)
    pick = rng.randrange(total)
    for _, op, weight in ops:
        if pick < weight:
            return op
        pick -= weight
    raise AssertionError("unreachable")


def apply_ops(
    tree: Json, ops: tuple[tuple[str, Op, int], ...], count: int, rng: random.Random,
    ctx: Context, steps: list[str],
) -> None:
    """Apply ``count`` mutations drawn from ``ops`` (by weight) to ``tree`` in place; a
    mutation that does not apply to this tree is replaced by another draw (a few tries)."""
    for _ in range(count):
        for _attempt in range(4):
            label = _weighted(ops, rng)(tree, rng, ctx)
            if label is not None:
                steps.append(label)
                break


def generate_input(
    seeds: Sequence[SeedGame], rng: random.Random, ctx: Context, level: Level | None = None
) -> FuzzInput:
    """One mutated input from a random seed; ``level`` forces where mutations act (else it
    is drawn: semantic 55%, tree 15%, lines 12%, bytes 18%)."""
    seed = rng.choice(seeds)
    tree = seed.tree()
    steps: list[str] = []
    if level is None:
        roll = rng.random()
        level = (
            Level.SEMANTIC if roll < 0.55 else Level.TREE if roll < 0.70
            else Level.LINES if roll < 0.82 else Level.BYTES
        )
    if level is Level.SEMANTIC:
        apply_ops(tree, SEMANTIC, rng.choice((1, 1, 1, 2, 2, 3, 4)), rng, ctx, steps)
    else:
        apply_ops(tree, SEMANTIC, rng.choice((0, 0, 1, 2)), rng, ctx, steps)
    if level is Level.TREE:
        apply_ops(tree, TREE, rng.choice((1, 1, 2, 3)), rng, ctx, steps)
    stream = level is Level.LINES or rng.random() < 0.4
    if stream:
        lines = stream_lines(tree)
        if level is Level.LINES:
            for _ in range(rng.choice((1, 1, 2, 3))):
                label = mutate_lines(lines, rng, ctx)
                if label is not None:
                    steps.append(label)
        data = b"".join(lines)
    else:
        data = dump_json(tree, indent=rng.random() < 0.1, ascii_only=rng.random() < 0.1)
    if level is Level.BYTES:
        for _ in range(rng.choice((1, 1, 2, 3))):
            data, byte_label = mutate_bytes(data, rng, ctx)
            if byte_label is not None:
                steps.append(byte_label)
    gzipped = rng.random() < 0.15
    if gzipped:
        data = gzip.compress(data, compresslevel=1, mtime=0)
        if level is Level.BYTES and rng.random() < 0.5:
            data, gz_label = mutate_gzip(data, rng, ctx)
            steps.append(gz_label)
    encoding = Encoding.STREAM if stream else Encoding.DOCUMENT
    return FuzzInput(data, encoding, gzipped, level, seed.name, tuple(steps))
