"""Finding log files and fingerprinting their content.

``generate_log_paths`` expands the command line's arguments (files, folders searched
recursively, glob patterns) into log files, each once, in sorted order; ``hash_file``
gives a file's SHA-256 and size, which decide whether an ingest skips, loads or replaces it.
A :class:`ContentDigest` computes the same while a parser reads the file.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from zhuoji.parsers.errors import system_reason
from zhuoji.parsers.read import describe_file_type, is_log_path, open_regular_file
from zhuoji.rules.messages import Message

_GLOB_CHARS = frozenset("*?[")
_CHUNK = 1 << 20


class InputPathError(ValueError):
    """A command-line path that names nothing readable (no such file, no glob match, a
    named pipe or a device)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(Message("{path:any}: {reason:any}", path, reason))
        self.path = path
        self.reason = reason


@dataclass(frozen=True, slots=True)
class FileDigest:
    """A log file's absolute path, content hash (hex SHA-256 of its bytes) and size.

    ``sha256`` is ``None`` in a plan for a file the database has never seen: nothing is
    compared with it, and the worker hashes the bytes as it parses them.
    """

    path: str
    sha256: str | None
    size: int


class ContentDigest:
    """SHA-256 and size of bytes fed in order (a :class:`zhuoji.parsers.read.ByteSink`):
    ``complete`` once the whole file was fed."""

    __slots__ = ("_hash", "complete", "size")

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.size = 0
        self.complete = False

    def update(self, data: bytes, /) -> None:
        self._hash.update(data)
        self.size += len(data)

    def end(self) -> None:
        self.complete = True

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def is_glob(text: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in text)


@dataclass(frozen=True, slots=True)
class SkippedPath:
    """A path found in a folder or by a pattern that is not read, and why (``reason``
    completes ``"{path}: {reason}"``)."""

    path: str
    reason: str


@dataclass(slots=True)
class LogPaths:
    """What the command line's paths name: the log files to read, the arguments that
    name nothing readable (with the reason for each) and the paths skipped on the way."""

    files: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    skipped: list[SkippedPath] = field(default_factory=list)

    def why(self, arg: str) -> str:
        """Why a :attr:`missing` argument names nothing: ``"no such file or folder"``,
        ``"no file matches this pattern"`` or ``"not a regular file (a named pipe (FIFO))"``."""
        return self.reasons.get(arg, Message("no such file or folder"))


def _irregular(path: str) -> str | None:
    """Why ``path`` (found by a walk or a pattern) is not read, ``None`` for a regular
    file (a symbolic link to one included)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if os.path.islink(path):
            return Message("a broken symbolic link (not read)")
        return Message("cannot be examined ({why:any})", system_reason(exc))
    kind = describe_file_type(mode)
    if kind is None:
        return None
    if os.path.islink(path):
        kind = Message("a symbolic link to {kind:linkkind}", kind.removeprefix("a "))
    return Message("not a regular file ({kind:any}), not read", kind)


def _generate_folder(folder: Path, skipped: list[SkippedPath]) -> Iterator[Path]:
    """The regular files with log names under ``folder``; what else has a log name (a
    named pipe, a device, a broken link) goes to ``skipped``, as do symbolic links to
    folders (not followed)."""
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in dirs:
            full = os.path.join(root, name)
            if os.path.islink(full):
                skipped.append(SkippedPath(
                    full, Message("a symbolic link to a folder (not followed)")))
        for name in sorted(files):
            if not is_log_path(name):
                continue
            full = os.path.join(root, name)
            reason = _irregular(full)
            if reason is None:
                yield Path(full)
            else:
                skipped.append(SkippedPath(full, reason))


def find_log_paths(args: Iterable[str | os.PathLike[str]]) -> LogPaths:
    """The log files named by ``args`` (as given, sorted, each once), the arguments that
    name nothing readable, and what was skipped.

    A file given by name is taken whatever its extension (it then fails to parse and is
    reported, so nothing named on the command line is silently dropped), but only when it
    is a regular file: a named pipe or a device given by name is an argument that names
    nothing readable ("not a regular file"), since reading it could block or never end.
    Files found in folders (searched recursively) or by glob patterns (``**`` included)
    are kept only when their name is a log name (``.json``, ``.json.gz``, ``.jsonl``,
    ``.ndjson``, either compressed), not a sidecar such as a fault manifest, and they
    are regular files; the others with log names are :attr:`LogPaths.skipped`.
    """
    out = LogPaths()
    found: set[Path] = set()
    skipped: list[SkippedPath] = []
    for arg in args:
        text = os.fspath(arg)
        if is_glob(text) and not os.path.lexists(text):
            files: set[Path] = set()
            matched = False
            for match in glob.glob(text, recursive=True):
                p = Path(match)
                if p.is_dir():
                    matched = True
                    files.update(_generate_folder(p, skipped))
                elif is_log_path(p):
                    matched = True
                    reason = _irregular(match)
                    if reason is None:
                        files.add(p)
                    else:
                        skipped.append(SkippedPath(match, reason))
            if files:
                found.update(files)
            elif not matched:
                out.missing.append(text)
                out.reasons[text] = Message("no file matches this pattern")
            continue
        p = Path(text)
        if p.is_dir():
            found.update(_generate_folder(p, skipped))
            continue
        try:
            kind = describe_file_type(os.stat(text).st_mode)
        except OSError as exc:
            out.missing.append(text)
            broken = os.path.islink(text) and isinstance(exc, FileNotFoundError)
            if broken:
                out.reasons[text] = Message("a broken symbolic link")
            elif not isinstance(exc, FileNotFoundError):
                out.reasons[text] = Message("cannot be examined ({why:any})", system_reason(exc))
            continue
        if kind is None:
            found.add(p)
        else:
            out.missing.append(text)
            out.reasons[text] = Message("not a regular file ({kind:any})", kind)
    out.files = sorted(found)
    seen: set[str] = set()
    for item in sorted(skipped, key=lambda s: s.path):
        if item.path not in seen:
            seen.add(item.path)
            out.skipped.append(item)
    return out


def expand_log_paths(args: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """:func:`find_log_paths` as ``(files, missing)``."""
    paths = find_log_paths(args)
    return paths.files, paths.missing


def generate_log_paths(args: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every log file named by ``args`` (see :func:`find_log_paths`), as absolute paths,
    each once, in sorted order. Raises :class:`InputPathError` for an argument that names
    nothing readable; what is skipped is left out (:func:`find_log_paths` lists it)."""
    paths = find_log_paths(args)
    if paths.missing:
        text = paths.missing[0]
        raise InputPathError(text, paths.why(text))
    yield from sorted({q.resolve() for q in paths.files})


def hash_file(path: str | os.PathLike[str]) -> FileDigest:
    """The SHA-256 and size of the file's bytes (compressed files are hashed as stored)."""
    digest = digest_file(path)
    return FileDigest(
        path=Path(path).resolve().as_posix(), sha256=digest.hexdigest(), size=digest.size
    )


def digest_file(path: str | os.PathLike[str]) -> ContentDigest:
    """The file's bytes read through a :class:`ContentDigest` (complete)."""
    digest = ContentDigest()
    with open_regular_file(path) as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    digest.end()
    return digest


def unhashed_file(path: str | os.PathLike[str]) -> FileDigest:
    """A file's path and size on disk, not yet hashed (``sha256`` is ``None``)."""
    return FileDigest(path=Path(path).resolve().as_posix(), sha256=None, size=os.stat(path).st_size)
