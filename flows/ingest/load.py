"""Loading a batch of outcomes into the warehouse: the run's only writer.

:func:`load_outcomes` (this process): settle game-id clashes (:func:`settle_clashes`),
then load a batch's shards and bookkeeping rows in one transaction; a batch the warehouse
refuses a row of is loaded file by file, each refused file quarantined.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import duckdb

from zhuoji.flows.ingest.interrupt import raise_if_interrupted
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileError, FileOutcome, FileStatus, remove_shards


def settle_clashes(
    con: duckdb.DuckDBPyConnection, outcomes: Sequence[FileOutcome]
) -> list[FileOutcome]:
    """Quarantine loaded files whose game ids another file already holds.

    A game id belongs to the first file that loaded it: a file of the database not being
    replaced now, or an earlier file (in path order) of the same batch.
    """
    ordered = sorted(outcomes, key=lambda o: o.path)
    replaced = [o.path for o in ordered]
    ids = sorted({g for o in ordered for g in o.game_ids})
    owners = warehouse.find_game_owners(con, ids, replaced)
    result: list[FileOutcome] = []
    for outcome in ordered:
        if outcome.status is FileStatus.QUARANTINED:
            result.append(outcome)
            continue
        clashes: list[FileError] = []
        for game_id in outcome.game_ids:
            owner = owners.get(game_id)
            if owner is not None:
                reason = f"game id {game_id!r} is already loaded from {owner}"
                if not os.path.exists(owner):
                    reason += (
                        ", which no longer exists (`zhuoji forget` or `zhuoji ingest"
                        " --prune` drops its rows)"
                    )
                clashes.append(
                    FileError(
                        sentence=f"{outcome.path}, game {game_id!r}: {reason}",
                        message=reason,
                        game_id=game_id,
                        clashes_with=owner,
                    )
                )
        if clashes:
            result.append(outcome.quarantine(clashes))
            continue
        for game_id in outcome.game_ids:
            owners[game_id] = outcome.path
        result.append(outcome)
    return result


def load_outcomes(
    con: duckdb.DuckDBPyConnection,
    outcomes: Sequence[FileOutcome],
    run_id: int,
    counts: Mapping[str, int] | None = None,
) -> list[FileOutcome]:
    """Load one batch (one transaction); returns the outcomes as loaded (clashes settled).

    ``counts`` (the run's counts before this batch, :data:`RUN_COUNTS`) are stored with
    the batch, plus its own, in the run's ``ingest_runs`` row. Should the warehouse refuse
    a row of the batch (a value its column cannot hold, a broken constraint), its files
    are loaded one by one instead and each one refused is quarantined with the loader's
    error: one file never costs the batch. Any other failure (a shard gone missing, a
    full disk) leaves the database as it was and is raised (the task retries).
    """
    try:
        final = settle_clashes(con, outcomes)
        try:
            warehouse.load_batch(con, final, run_id, add_counts(counts, final))
        except _REFUSED:
            final = _load_one_by_one(con, final, run_id, counts)
    except Exception:
        raise_if_interrupted()  # a Ctrl-C DuckDB ended the load with: not retried
        raise
    remove_shards(outcomes)  # as the workers sent them: clashes keep no shard folder
    return final


_REFUSED = (duckdb.DataError, duckdb.IntegrityError)
"""What the warehouse raises for a row it refuses (a conversion, a range, a constraint)."""

RUN_COUNTS: tuple[str, ...] = (
    "files_seen",
    "files_loaded",
    "files_skipped",
    "files_quarantined",
    "games",
    "hands",
    "violations",
    "mismatches",
    "disputed_hands",
)
"""The counts of an ``ingest_runs`` row."""


def add_counts(
    counts: Mapping[str, int] | None, outcomes: Sequence[FileOutcome]
) -> dict[str, int] | None:
    """``counts`` (:data:`RUN_COUNTS`) with the files of ``outcomes`` added."""
    if counts is None:
        return None
    total = {name: counts.get(name, 0) for name in RUN_COUNTS}
    for o in outcomes:
        if o.status is FileStatus.QUARANTINED:
            total["files_quarantined"] += 1
            continue
        total["files_loaded"] += 1
        total["games"] += o.games
        total["hands"] += o.hands
        total["violations"] += o.violations
        total["mismatches"] += o.mismatches
        total["disputed_hands"] += o.disputed_hands
    return total


def _load_one_by_one(
    con: duckdb.DuckDBPyConnection,
    outcomes: Sequence[FileOutcome],
    run_id: int,
    counts: Mapping[str, int] | None,
) -> list[FileOutcome]:
    final: list[FileOutcome] = []
    for outcome in outcomes:
        try:
            warehouse.load_batch(con, [outcome], run_id, add_counts(counts, [outcome]))
        except _REFUSED as exc:
            if outcome.status is FileStatus.QUARANTINED:
                raise
            # (its task's shards stay until the batch is loaded: they hold other files' rows)
            reason = f"the warehouse refused its rows: {type(exc).__name__}: {exc}"
            outcome = outcome.quarantine(
                [FileError(sentence=f"{outcome.path}: {reason}", message=reason)]
            )
            warehouse.load_batch(con, [outcome], run_id, add_counts(counts, [outcome]))
        counts = add_counts(counts, [outcome])
        final.append(outcome)
    return final
