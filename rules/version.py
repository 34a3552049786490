"""Which engine computed a result: the engine version and the fingerprint of a ruleset.

The warehouse records both on every game, so that a fix of the rules re-audits the files
it concerns and a query can tell which engine produced a row (``docs/pipeline.md``).

* :data:`ENGINE_VERSION` is the package version and a digest of the engine's code: the
  modules of the ``rules`` package as installed (but the simulator's), read once at
  import. A module's source (``.py``) is digested when it is there; a module installed
  compiled only (an extension module, no source beside it) is digested as that file, so
  an installed wheel has a version too (a rebuild of it may then count as a new engine).
  The preset TOML files are not part of it: they are data, and what they resolve to is
  the ruleset fingerprint.
* :func:`ruleset_fingerprint` is a digest of a resolved ruleset's settings as canonical
  JSON (sorted keys, no whitespace), leaving out the fields that only name it (name,
  title, seed, article, family): a preset's edited value changes the fingerprint of every game
  played under it, and only of those.

:data:`ENGINE_VERSION_ENV` replaces the engine version, for testing only (a test of what
an engine change does cannot edit the installed code).
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata, resources
from importlib.resources.abc import Traversable

from zhuoji.rules.settings import IDENTITY_FIELDS, RulesetBase

__all__ = [
    "DIST_NAME",
    "ENGINE_VERSION",
    "ENGINE_VERSION_ENV",
    "engine_digest",
    "package_version",
    "ruleset_fingerprint",
]

DIST_NAME = "zhuoji"
ENGINE_VERSION_ENV = "ZHUOJI_ENGINE_VERSION"
"""When set (to any non-empty text), the engine version this process reports: for tests only."""

_COMPILED_SUFFIXES = (".so", ".pyd")
_NOT_ENGINE = frozenset({"simulate", "bots"})
"""Modules of ``rules`` an audit never runs (the simulator's bots write logs: each family's
``simulate`` and what they share, ``rules/bots.py``)."""
_DIGEST_CHARS = 12


def package_version() -> str:
    """The installed distribution's version (``0+unknown`` when it is not installed)."""
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _module_stem(name: str) -> str:
    return name.split(".", 1)[0]


def _code_files(package: Traversable) -> list[tuple[str, Traversable]]:
    """The package's module files, by name: each module's source, or its compiled file
    when no source is installed beside it. Subfolders of data (no ``.py``) are skipped."""
    entries = sorted(package.iterdir(), key=lambda e: e.name)
    sources = {_module_stem(e.name) for e in entries if e.is_file() and e.name.endswith(".py")}
    chosen: list[tuple[str, Traversable]] = []
    for entry in entries:
        name = entry.name
        if entry.is_file():
            compiled_only = name.endswith(_COMPILED_SUFFIXES) and _module_stem(name) not in sources
            if (name.endswith(".py") or compiled_only) and _module_stem(name) not in _NOT_ENGINE:
                chosen.append((name, entry))
        elif entry.is_dir() and name != "__pycache__":
            chosen.extend((f"{name}/{sub}", item) for sub, item in _code_files(entry))
    return chosen


def engine_digest(package: str = "zhuoji.rules") -> str:
    """A hex digest of the package's code files (names and bytes, in name order)."""
    digest = hashlib.sha256()
    for name, entry in _code_files(resources.files(package)):
        data = entry.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:_DIGEST_CHARS]


def _engine_version() -> str:
    forced = os.environ.get(ENGINE_VERSION_ENV, "")
    if forced:
        return forced
    return f"{package_version()}+{engine_digest()}"


ENGINE_VERSION: str = _engine_version()
"""``<package version>+<digest of the rules package's code>``, e.g. ``0.1.0+3f2a9c41d0b7``."""


def ruleset_fingerprint(ruleset: RulesetBase) -> str:
    """A hex digest of the ruleset's settings (canonical JSON, naming fields left out)."""
    settings = ruleset.model_dump(mode="json", exclude=set(IDENTITY_FIELDS))
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
