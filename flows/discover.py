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
from dataclasses import dataclass
from pathlib import Path

from parsers.read import is_log_path

_GLOB_CHARS = frozenset("*?[")
_CHUNK = 1 << 20


class InputPathError(ValueError):
    """A command-line path that names nothing (no such file, no glob match)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
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
    """SHA-256 and size of bytes fed in order (a :class:`parsers.read.ByteSink`):
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


def _generate_folder(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if is_log_path(name):
                yield Path(root) / name


def expand_log_paths(args: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """The log files named by ``args`` (as given, sorted, each once) and the arguments that
    name nothing.

    A file given by name is taken whatever its extension (it then fails to parse and is
    reported, so nothing named on the command line is silently dropped); files found in
    folders (searched recursively) or by glob patterns (``**`` included) are kept only when
    their name is a log name (``.json``, ``.json.gz``, ``.jsonl``, ``.ndjson``, either
    compressed) and not a sidecar such as a fault manifest.
    """
    found: set[Path] = set()
    missing: list[str] = []
    for arg in args:
        text = os.fspath(arg)
        if is_glob(text) and not os.path.exists(text):
            files: set[Path] = set()
            for match in glob.glob(text, recursive=True):
                p = Path(match)
                if p.is_dir():
                    files.update(_generate_folder(p))
                elif is_log_path(p):
                    files.add(p)
            if files:
                found.update(files)
            else:
                missing.append(text)
            continue
        p = Path(text)
        if p.is_dir():
            found.update(_generate_folder(p))
        elif p.is_file():
            found.add(p)
        else:
            missing.append(text)
    return sorted(found), missing


def generate_log_paths(args: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every log file named by ``args`` (see :func:`expand_log_paths`), as absolute paths,
    each once, in sorted order. Raises :class:`InputPathError` for an argument that names
    nothing."""
    files, missing = expand_log_paths(args)
    if missing:
        text = missing[0]
        reason = "no file matches this pattern" if is_glob(text) else "no such file or folder"
        raise InputPathError(text, reason)
    yield from sorted({q.resolve() for q in files})


def hash_file(path: str | os.PathLike[str]) -> FileDigest:
    """The SHA-256 and size of the file's bytes (compressed files are hashed as stored)."""
    digest = digest_file(path)
    return FileDigest(
        path=Path(path).resolve().as_posix(), sha256=digest.hexdigest(), size=digest.size
    )


def digest_file(path: str | os.PathLike[str]) -> ContentDigest:
    """The file's bytes read through a :class:`ContentDigest` (complete)."""
    digest = ContentDigest()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    digest.end()
    return digest


def unhashed_file(path: str | os.PathLike[str]) -> FileDigest:
    """A file's path and size on disk, not yet hashed (``sha256`` is ``None``)."""
    return FileDigest(path=Path(path).resolve().as_posix(), sha256=None, size=os.stat(path).st_size)
