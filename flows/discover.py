"""Finding log files and fingerprinting their content.

``generate_log_paths`` expands the command line's arguments (files, folders searched
recursively, glob patterns) into log files, each once, in sorted order; ``hash_file``
gives a file's SHA-256 and size, which decide whether an ingest skips, loads or replaces it.
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
    """A log file's absolute path, content hash (hex SHA-256 of its bytes) and size."""

    path: str
    sha256: str
    size: int


def is_glob(text: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in text)


def _generate_folder(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if is_log_path(name):
                yield Path(root) / name


def generate_log_paths(args: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every log file named by ``args``, as absolute paths, each once, in sorted order.

    A file given by name is taken whatever its extension is not (it then fails to parse
    and is quarantined, so nothing named on the command line is silently dropped); files
    found in folders or by glob patterns are kept only when their name is a log name
    (``.json``, ``.json.gz``, ``.jsonl``, ``.ndjson``, either compressed). Raises
    :class:`InputPathError` for an argument that names nothing.
    """
    found: set[Path] = set()
    for arg in args:
        text = os.fspath(arg)
        if is_glob(text) and not os.path.exists(text):
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise InputPathError(text, "no file matches this pattern")
            for match in matches:
                p = Path(match)
                if p.is_dir():
                    found.update(_generate_folder(p))
                elif is_log_path(p):
                    found.add(p)
            continue
        p = Path(text)
        if p.is_dir():
            found.update(_generate_folder(p))
        elif p.is_file():
            found.add(p)
        else:
            raise InputPathError(text, "no such file or folder")
    yield from sorted({q.resolve() for q in found})


def hash_file(path: str | os.PathLike[str]) -> FileDigest:
    """The SHA-256 and size of the file's bytes (compressed files are hashed as stored)."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return FileDigest(path=Path(path).resolve().as_posix(), sha256=digest.hexdigest(), size=size)
