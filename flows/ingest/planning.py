"""The ingest's plan: which files a run processes, and how they are grouped.

* :func:`plan_files`: the files found, and those of them the ``files`` table already
  holds hashed: unchanged files are skipped, changed ones are processed, and so are new
  ones (not hashed here); renamed files move, vanished ones are pruned (``--prune``);
* :func:`stale_files`: the unchanged files to audit again (a new engine, a changed
  ruleset);
* :func:`plan_batches` and :func:`plan_chunks`: the files to process grouped into load
  batches (one transaction each) and into tasks (about :data:`CHUNK_BYTES` each).

The run's steps over these (:mod:`zhuoji.flows.ingest.steps`), the loading of a batch
(:mod:`zhuoji.flows.ingest.load`) and the choice of the way to run them
(:mod:`zhuoji.flows.ingest.run`) live beside this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from zhuoji.flows.ingest.discover import (
    FileDigest,
    generate_log_paths,
    hash_file,
    is_glob,
    unhashed_file,
)
from zhuoji.flows.ingest.worker import ruleset_use_of
from zhuoji.flows.warehouse import store as warehouse
from zhuoji.flows.warehouse.rows import FileStatus
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.parsers.read import parse_encoding
from zhuoji.rules.version import ENGINE_VERSION


@dataclass(frozen=True, slots=True)
class FilePlan:
    """The files of a run: what to process (new, changed or re-audited), what was skipped,
    what moved and what vanished.

    ``reaudited`` are unchanged files processed again (``(path, reason)``, also in
    ``to_process``); ``renamed`` are ``(old, new)`` paths of content found at a new path
    whose old path is gone (its rows move, nothing is processed); ``pruned`` are files
    under the run's folders that are gone (``--prune``: their rows are dropped).
    """

    seen: int
    to_process: tuple[FileDigest, ...]
    skipped: int
    renamed: tuple[tuple[str, str], ...] = ()
    reaudited: tuple[tuple[str, str], ...] = ()
    pruned: tuple[str, ...] = ()

# --- plain functions -------------------------------------------------------------------------


FULL_REFRESH = "--full-refresh"
"""The re-audit reason of every unchanged file of a ``--full-refresh`` run."""


def plan_files(
    paths: Sequence[str],
    known: Mapping[str, KnownFile],
    hasher: Callable[[str], FileDigest] = hash_file,
    *,
    stale: Mapping[str, str] | None = None,
    full_refresh: bool = False,
    prune: bool = False,
    exists: Callable[[str], bool] = os.path.exists,
    found: Sequence[str] | None = None,
) -> FilePlan:
    """Discover the files; keep those new, changed or to be audited again.

    ``found``: the log files ``paths`` name, already walked
    (:func:`zhuoji.flows.ingest.steps.prepare_run`: absolute paths, sorted, each once);
    without it, ``paths`` are walked here.

    Only files seen before are hashed (to tell an unchanged file from a changed one),
    and new files of the size of a file the database holds that is gone: one with that
    file's hash and a name read the same way (encoding, compression) is that file
    renamed, its rows move to the new path (a quarantined one is processed again, since
    its reasons name its path). Any other new file is processed whatever its hash, which
    the worker computes as it reads it.

    An unchanged file is processed again when ``stale`` gives a reason (``path ->
    reason``: a new engine or ruleset fingerprint, :func:`stale_files`), with
    ``full_refresh``, or when it was quarantined for clashing with a file that is being
    processed again or that the database no longer holds. With ``prune``, the files the
    database holds under the folders of ``paths`` (for a glob, its leading folder) that
    are gone are listed in ``pruned``.
    """
    stale = stale or {}
    if found is None:
        found = [p.as_posix() for p in generate_log_paths(paths)]
    found_set = set(found)
    new = [path for path in found if path not in known]
    vanished: dict[str, KnownFile] = {}
    if new or prune:
        vanished = {
            p: k for p, k in sorted(known.items()) if p not in found_set and not exists(p)
        }
    by_content: dict[tuple[int, str], list[str]] = {}
    for old, k in vanished.items():
        by_content.setdefault((k.size, k.sha256), []).append(old)
    sizes = {size for size, _ in by_content}
    renamed: list[tuple[str, str]] = []
    digests: dict[str, FileDigest] = {}
    for path in new:
        if sizes and os.stat(path).st_size in sizes:
            try:
                digest = hasher(path)
            except OSError:  # unreadable: processed as a new file (and quarantined)
                continue
            digests[path] = digest
            olds = by_content.get((digest.size, digest.sha256 or ""), [])
            match = next((o for o in olds if _reads_alike(o, path)), None)
            if match is not None:
                olds.remove(match)
                renamed.append((match, path))
    moved_to = dict(renamed)
    moved_from = {new_path: old for old, new_path in renamed}
    pruned = _vanished_under(paths, vanished, moved_to) if prune else []

    todo: list[FileDigest] = []
    reaudited: list[tuple[str, str]] = []
    retry: list[tuple[str, FileDigest, tuple[str, ...]]] = []
    skipped = 0
    for path in found:
        record = known.get(path)
        if record is None and path in moved_from:
            record = known[moved_from[path]]
            digest = digests[path]
        elif record is None:
            todo.append(digests.get(path) or unhashed_file(path))
            continue
        else:
            try:
                digest = hasher(path)
            except OSError:  # unreadable now: processed again, and quarantined with the reason
                todo.append(unhashed_file(path))
                continue
        if record.sha256 != digest.sha256 or (
            path in moved_from and record.status is FileStatus.QUARANTINED
        ):
            # (a quarantined file's reasons name its path: it is processed again when renamed)
            todo.append(digest)
            continue
        reason = FULL_REFRESH if full_refresh else stale.get(record.path)
        if reason is not None:
            todo.append(digest)
            reaudited.append((path, reason))
        elif record.clashes_with:
            retry.append((path, digest, record.clashes_with))
        else:
            skipped += 1
    # A file quarantined for a clash is retried once the file it clashed with is processed
    # again (now) or leaves the database (pruned now, or forgotten since).
    released = {d.path for d in todo} | set(pruned)
    for path, digest, owners in retry:
        owners = tuple(moved_to.get(o, o) for o in owners)
        if any(o in released or (o not in known and o not in moved_from) for o in owners):
            todo.append(digest)
            reaudited.append((path, "the file it clashed with changed or was forgotten"))
        else:
            skipped += 1
    todo.sort(key=lambda d: d.path)
    return FilePlan(
        seen=len(found),
        to_process=tuple(todo),
        skipped=skipped,
        renamed=tuple(renamed),
        reaudited=tuple(sorted(reaudited)),
        pruned=tuple(pruned),
    )


def _reads_alike(old: str, new: str) -> bool:
    """Whether two file names are read the same way (encoding, compression): only then is
    the same content under the new name the same games."""
    try:
        return parse_encoding(old) == parse_encoding(new)
    except ValueError:
        return False


def _vanished_under(
    paths: Sequence[str], vanished: Mapping[str, KnownFile], moved_to: Mapping[str, str]
) -> list[str]:
    """The vanished files (not renamed) under the folders of the run's arguments."""
    roots: list[str] = []
    for arg in paths:
        text = os.fspath(arg)
        if is_glob(text) and not os.path.exists(text):
            text = _glob_root(text)
        if os.path.isdir(text):
            roots.append(Path(text).resolve().as_posix().rstrip("/") + "/")
    return [
        p
        for p in vanished
        if p not in moved_to and any(p.startswith(root) for root in roots)
    ]


def _glob_root(pattern: str) -> str:
    """The folder a glob pattern searches: its parts before the first with a glob character."""
    parts: list[str] = []
    for part in Path(pattern).parts:
        if is_glob(part):
            break
        parts.append(part)
    return os.path.join(*parts) if parts else "."


def stale_files(
    con: duckdb.DuckDBPyConnection,
    known: Mapping[str, KnownFile],
    engine_version: str = ENGINE_VERSION,
) -> dict[str, str]:
    """``path -> reason`` for the files the database holds whose results this engine would
    compute differently: processed by another engine version (or by one that recorded
    none), or holding games whose ruleset now resolves to another fingerprint (a preset's
    values changed) or no longer resolves. Nothing is parsed: the ``games`` table holds
    each game's preset name, overrides and fingerprint.
    """
    stale: dict[str, str] = {}
    for path, record in known.items():
        if record.engine_version != engine_version:
            before = record.engine_version or "an engine that recorded no version"
            stale[path] = f"engine changed: {before} -> {engine_version}"
    changed: list[warehouse.StoredRuleset] = []
    now: dict[tuple[str, str | None], str] = {}
    for stored in warehouse.stored_rulesets(con):
        try:
            fingerprint = ruleset_use_of(stored.ruleset, stored.rule_overrides).fingerprint
        except ValueError:
            fingerprint = "none (it no longer resolves)"
        if fingerprint != stored.fingerprint:
            changed.append(stored)
            now[(stored.ruleset, stored.rule_overrides)] = fingerprint
    for path, stored in warehouse.files_of_rulesets(con, changed):
        if path in stale:
            continue
        before = stored.fingerprint or "unrecorded"
        after = now[(stored.ruleset, stored.rule_overrides)]
        stale[path] = f"ruleset {stored.ruleset} changed: {before} -> {after}"
    return stale


def default_workers() -> int:
    return os.cpu_count() or 1

CHUNK_BYTES = 64 * 2**20
"""About how many bytes of logs one task takes (about 15,000 hands). Every task run costs
a fixed amount of orchestration (Prefect clients with their TLS contexts, API calls,
state changes and the server's work on them: about half a second of CPU in all, measured
with py-spy; a worker waits about 0.2 s between two tasks), which seconds of work hide.
On 2 cores, 100,000 hands ran 3 % and 5 % faster with 64 MB than with 32 MB, in two
pairs of runs taken in turns."""


TAIL_SHARE = 0.25
"""The most of a batch's bytes the run's last batch holds (see :func:`plan_batches`)."""


def plan_batches(
    files: Sequence[FileDigest], workers: int, chunk_bytes: int = CHUNK_BYTES
) -> list[list[FileDigest]]:
    """Consecutive files grouped into load batches of about ``workers * chunk_bytes``
    each (at least one file): one chunk per worker, and one transaction per batch.

    The run's last batch is loaded after every worker has finished, with nothing to
    overlap it; so the files at the end of a longer last batch, up to a quarter of a
    batch of bytes (:data:`TAIL_SHARE`), go into a batch of their own. The workers
    process those while the batch before them loads, and the last load has fewer rows."""
    batches: list[list[FileDigest]] = []
    limit = max(1, workers) * chunk_bytes
    size = 0
    for d in files:
        if batches and size + _weight(d) <= limit:
            batches[-1].append(d)
            size += _weight(d)
        else:
            batches.append([d])
            size = _weight(d)
    tail_limit = limit * TAIL_SHARE
    if size > tail_limit:  # ``size``: the last batch's bytes
        last = batches[-1]
        cut = len(last)
        tail = 0
        while cut > 1 and tail + _weight(last[cut - 1]) <= tail_limit:
            cut -= 1
            tail += _weight(last[cut])
        if cut < len(last):
            batches[-1:] = [last[:cut], last[cut:]]
    return batches


def _weight(d: FileDigest) -> int:
    """A file's bytes as the planning counts them: an empty file counts as one byte."""
    return max(d.size, 1)


def plan_chunks(
    files: Sequence[FileDigest], workers: int, chunk_bytes: int = CHUNK_BYTES
) -> list[list[FileDigest]]:
    """Consecutive files grouped into tasks of about ``chunk_bytes`` each, and into at
    least ``workers`` tasks when there are that many files, so that no worker idles."""
    if not files:
        return []
    total = sum(map(_weight, files))
    count = min(len(files), max(workers, -(-total // chunk_bytes)))
    chunks: list[list[FileDigest]] = [[] for _ in range(count)]
    seen = 0
    for d in files:
        # the chunk this file's first byte falls in, by cumulative size
        chunks[min(count - 1, seen * count // total)].append(d)
        seen += _weight(d)
    return [chunk for chunk in chunks if chunk]
