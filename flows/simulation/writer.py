"""Writing simulated games as log files, with optional faults and their manifest.

The games come from the bots of each preset's family (``rules/families/<name>/simulate.py``,
found through the registry: :func:`zhuoji.rules.bots.bots_of`); this module only names, faults,
converts (through :func:`zhuoji.flows.audit.bridge.hand_from_record`) and writes them.

Output layout (``out`` is a folder, created when missing):

- document encoding: one file per game, ``<game_id>.json`` (``.json.gz`` with gzip);
- stream encoding: ``<ruleset>-<seed>-<NNNN>.jsonl`` (``.jsonl.gz``), each holding up to
  ``games_per_file`` games back to back;
- ``faults.jsonl`` when faults are asked for: one JSON object per injected fault, with
  ``file`` (relative to ``out``), ``game_id``, ``hand_no``, ``event_index``, ``kind``,
  ``expected`` (the audit's first finding for the hand, or ``malformed``), ``codes``
  (every finding of the hand, in order) and a ``note``.

Game ``g`` of a run depends only on the seed, the preset and ``g``, so files are written
in parallel by worker processes and the bytes do not depend on the number of workers.
"""

from __future__ import annotations

import gzip
import os
import random
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from zhuoji.flows.audit.bridge import hand_from_record
from zhuoji.flows.simulation.faults import (
    MALFORMED,
    CoreFault,
    Fault,
    fault_kinds,
    fault_rng,
    is_file_fault,
)
from zhuoji.flows.simulation.file_damage import damage_document, damage_stream_lines
from zhuoji.flows.simulation.hand_faults import inject_hand_fault
from zhuoji.parsers.models import Game, Player
from zhuoji.parsers.read import Encoding
from zhuoji.parsers.write import format_document, generate_stream_lines
from zhuoji.rules.bots import SimulatedGame, bots_of
from zhuoji.rules.events import HandRecord
from zhuoji.rules.messages import Message
from zhuoji.rules.presets import load_preset
from zhuoji.rules.settings import RulesetBase
from zhuoji.rules.table import table_rules_of

__all__ = [
    "FAULTS_MANIFEST",
    "FileOutcome",
    "FileTask",
    "SimulationRequest",
    "SimulationSummary",
    "game_id_of",
    "plan_files",
    "run_simulation",
    "write_file",
]

FAULTS_MANIFEST = "faults.jsonl"
"""The sidecar manifest of the injected faults, in the output folder."""

# The people at the simulated tables: a fixed pool, so that per-player reports make sense.
_PLAYER_POOL: tuple[tuple[str, str], ...] = (
    ("p1001", "张伟"), ("p1002", "王芳"), ("p1003", "李娜"), ("p1004", "刘洋"),
    ("p1005", "陈静"), ("p1006", "杨磊"), ("p1007", "赵敏"), ("p1008", "黄勇"),
    ("p1009", "周婷"), ("p1010", "吴斌"), ("p1011", "徐丽"), ("p1012", "孙杰"),
    ("p1013", "胡军"), ("p1014", "朱红"), ("p1015", "高峰"), ("p1016", "林燕"),
    ("p1017", "何涛"), ("p1018", "郭霞"), ("p1019", "马超"), ("p1020", "罗平"),
)
_EPOCH = datetime(2026, 1, 5, 19, 0, tzinfo=timezone(timedelta(hours=8)))


@dataclass(frozen=True, slots=True)
class SimulationRequest:
    """What to simulate: ``games`` games of ``hands_per_game`` hands for each preset."""

    rulesets: tuple[str, ...]
    games: int
    seed: int
    hands_per_game: int = 8
    encoding: Encoding = Encoding.DOCUMENT
    gzip: bool = False
    faults: float = 0.0
    games_per_file: int = 50
    base_stake: int = 1
    file_damage: bool = True  # with faults: may a fault be file-level damage

    def __post_init__(self) -> None:
        if self.games < 1 or self.hands_per_game < 1 or self.games_per_file < 1:
            raise ValueError(Message("games, hands per game and games per file must be at least 1"))
        if not 0.0 <= self.faults <= 1.0:
            raise ValueError(Message("the fault rate must be between 0 and 1, not {v:any}",
                                     self.faults))
        if self.base_stake < 1:
            raise ValueError(Message("the base stake must be at least 1, not {v:any}",
                                     self.base_stake))
        if not self.rulesets:
            raise ValueError(Message("name at least one preset"))

    @property
    def hands(self) -> int:
        return len(self.rulesets) * self.games * self.hands_per_game


@dataclass(frozen=True, slots=True)
class FileTask:
    """One output file: which games of which preset go into it."""

    name: str  # relative to the output folder
    ruleset: str
    seed: int
    game_nos: tuple[int, ...]
    hands_per_game: int
    encoding: Encoding
    gzip: bool
    faults: float
    base_stake: int
    file_damage: bool = True


@dataclass(frozen=True, slots=True)
class FileOutcome:
    name: str
    games: int
    hands: int
    faults: tuple[dict[str, Any], ...]  # manifest rows, in file order


@dataclass(frozen=True, slots=True)
class SimulationSummary:
    files: int
    games: int
    hands: int
    faults: tuple[dict[str, Any], ...]
    by_kind: dict[str, int] = field(default_factory=dict)


def game_id_of(ruleset: str, seed: int, game_no: int) -> str:
    return f"sim-{ruleset}-{seed}-{game_no:05d}"


def _suffix(encoding: Encoding, gzipped: bool) -> str:
    base = ".json" if encoding is Encoding.DOCUMENT else ".jsonl"
    return base + (".gz" if gzipped else "")


def plan_files(request: SimulationRequest) -> list[FileTask]:
    """The files of a run, in order."""
    tasks: list[FileTask] = []
    suffix = _suffix(request.encoding, request.gzip)
    per_file = 1 if request.encoding is Encoding.DOCUMENT else request.games_per_file
    for name in request.rulesets:
        for first in range(0, request.games, per_file):
            game_nos = tuple(range(first, min(first + per_file, request.games)))
            if request.encoding is Encoding.DOCUMENT:
                file_name = game_id_of(name, request.seed, game_nos[0]) + suffix
            else:
                file_name = f"sim-{name}-{request.seed}-{first // per_file:04d}{suffix}"
            tasks.append(FileTask(
                name=file_name, ruleset=name, seed=request.seed, game_nos=game_nos,
                hands_per_game=request.hands_per_game, encoding=request.encoding,
                gzip=request.gzip, faults=request.faults, base_stake=request.base_stake,
                file_damage=request.file_damage,
            ))
    return tasks


def _players(ruleset: RulesetBase, seed: int, game_no: int) -> list[Player]:
    rng = random.Random(f"zhuoji-players/{seed}/{ruleset.name}/{game_no}")
    chosen = rng.sample(_PLAYER_POOL, table_rules_of(ruleset).players)
    return [Player(seat=s, id=pid, name=name) for s, (pid, name) in enumerate(chosen)]


def build_game(
    game: SimulatedGame, records: Sequence[HandRecord], ruleset: RulesetBase
) -> Game:
    """A simulated game (its hands possibly faulted: ``records``) as a log game."""
    hands = [
        hand_from_record(record, dice=sim.dice)
        for record, sim in zip(records, game.hands, strict=True)
    ]
    started = _EPOCH + timedelta(minutes=50 * game.game_no)
    return Game.model_validate({
        "schema": "zhuoji-log/1",
        "game_id": game_id_of(ruleset.name, game.seed, game.game_no),
        "ruleset": ruleset.name,
        "base_stake": records[0].base_stake,
        "started_at": started.isoformat(),
        "players": _players(ruleset, game.seed, game.game_no),
        "hands": hands,
    })


def _file_fault(hand: HandRecord, kind: str, rng: random.Random) -> Fault:
    """File damage placed at one event of ``hand`` that carries a tile."""
    spots = [i for i, e in enumerate(hand.events) if hasattr(e, "tile")]
    index = rng.choice(spots)
    notes: dict[str, str] = {
        CoreFault.TRUNCATED_FILE: "the file is cut off in the middle of this event",
        CoreFault.BROKEN_JSON_LINE: "this event's line lost its closing brace",
        CoreFault.BAD_TILE_TEXT: "this event's tile is text no parser reads",
    }
    return Fault(kind, hand.hand_no, index, (MALFORMED,), notes[kind])


def fault_game(
    game: SimulatedGame, ruleset: RulesetBase, rate: float, *, stream: bool,
    file_damage: bool = True,
) -> tuple[list[HandRecord], list[Fault]]:
    """Decide and inject the faults of one game: each hand is faulted with probability
    ``rate`` (its own seeded draw), with a kind drawn among those that fit the preset and
    the hand. File damage makes the whole game malformed, so a game holds either file
    damage (once, and then no further faults) or hand faults."""
    records: list[HandRecord] = []
    faults: list[Fault] = []
    kinds = fault_kinds(ruleset, stream=stream, file_damage=file_damage)
    damaged = False
    for hand in game.hands:
        record = hand.record
        rng = fault_rng(game.seed, ruleset.name, game.game_no, record.hand_no)
        if damaged or rate <= 0.0 or rng.random() >= rate:
            records.append(record)
            continue
        order = list(kinds)
        rng.shuffle(order)
        for kind in order:
            if is_file_fault(kind):
                if faults:
                    continue
                faults.append(_file_fault(record, kind, rng))
                damaged = True
                break
            got = inject_hand_fault(hand, kind, ruleset, rng)
            if got is not None:
                record = got[0]
                faults.append(got[1])
                break
        records.append(record)
    return records, faults


def _manifest_row(name: str, game_id: str, fault: Fault) -> dict[str, Any]:
    return {
        "file": name,
        "game_id": game_id,
        "hand_no": fault.hand_no,
        "event_index": fault.event_index,
        "kind": str(fault.kind),
        "expected": fault.expected,
        "codes": list(fault.codes),
        "note": fault.note,
    }


def generate_file_bytes(task: FileTask) -> Iterator[tuple[bytes, int, list[dict[str, Any]]]]:
    """The uncompressed bytes of each game of a file, its hand count and manifest rows."""
    ruleset = load_preset(task.ruleset)
    simulate_game = bots_of(ruleset).simulate_game
    stream = task.encoding is Encoding.STREAM
    for position, game_no in enumerate(task.game_nos):
        game = simulate_game(
            ruleset, seed=task.seed, game_no=game_no, hands=task.hands_per_game,
            base_stake=task.base_stake,
        )
        records, faults = fault_game(game, ruleset, task.faults, stream=stream,
                                     file_damage=task.file_damage)
        log = build_game(game, records, ruleset)
        rng = random.Random(f"zhuoji-damage/{task.seed}/{task.ruleset}/{game_no}")
        damage = next((f for f in faults if is_file_fault(f.kind)), None)
        if stream:
            lines = list(generate_stream_lines(log))
            if damage is not None:
                last = position == len(task.game_nos) - 1
                lines = damage_stream_lines(lines, damage, rng, last=last)
            data = b"".join(lines)
        else:
            data = format_document(log)
            if damage is not None:
                data = damage_document(data, damage, rng)
        rows = [_manifest_row(task.name, log.game_id, f) for f in faults]
        yield data, len(records), rows


def write_file(task: FileTask, out: str) -> FileOutcome:
    """Simulate, fault and write one file (runs in a worker process)."""
    path = os.path.join(out, task.name)
    hands = 0
    games = 0
    rows: list[dict[str, Any]] = []
    tmp = path + ".part"
    with open(tmp, "wb") as raw:
        sink: Any = gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) \
            if task.gzip else raw
        try:
            for data, n_hands, game_rows in generate_file_bytes(task):
                sink.write(data)
                hands += n_hands
                games += 1
                rows.extend(game_rows)
        finally:
            if sink is not raw:
                sink.close()
    os.replace(tmp, path)
    return FileOutcome(task.name, games, hands, tuple(rows))


def _write_file_star(args: tuple[FileTask, str]) -> FileOutcome:
    return write_file(*args)


def run_simulation(
    request: SimulationRequest,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    on_file: Callable[[FileOutcome], None] | None = None,
) -> SimulationSummary:
    """Write every file of ``request`` into the folder ``out`` (and the fault manifest
    when faults are asked for). ``on_file`` is told of each file as it is written."""
    for name in request.rulesets:
        bots_of(load_preset(name))  # an unknown preset, or a family without bots, fails first
    folder = os.fspath(out)
    Path(folder).mkdir(parents=True, exist_ok=True)
    tasks = plan_files(request)
    outcomes: dict[str, FileOutcome] = {}
    if workers <= 1:
        for task in tasks:
            outcome = write_file(task, folder)
            outcomes[task.name] = outcome
            if on_file is not None:
                on_file(outcome)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for outcome in pool.map(_write_file_star, [(t, folder) for t in tasks]):
                outcomes[outcome.name] = outcome
                if on_file is not None:
                    on_file(outcome)
    rows = tuple(row for task in tasks for row in outcomes[task.name].faults)
    if request.faults > 0:
        manifest = b"".join(orjson.dumps(row) + b"\n" for row in rows)
        Path(folder, FAULTS_MANIFEST).write_bytes(manifest)
    by_kind: dict[str, int] = {}
    for row in rows:
        by_kind[row["kind"]] = by_kind.get(row["kind"], 0) + 1
    return SimulationSummary(
        files=len(tasks),
        games=sum(o.games for o in outcomes.values()),
        hands=sum(o.hands for o in outcomes.values()),
        faults=rows,
        by_kind=dict(sorted(by_kind.items())),
    )

