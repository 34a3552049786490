"""Which engine runs: the modules compiled with mypyc, or the same modules interpreted.

The modules in :data:`COMPILED` are compiled with mypyc when the package is built where a C
compiler is present (``setup.py``); the ``.py`` files ship beside the compiled ones and are
the pure engine. Both give the same results, byte for byte.

Python imports ``X.cpython-311-*.so`` in place of ``X.py`` in the same folder. Two things
choose otherwise, before the first of these modules is imported (the packages' ``__init__``
call :func:`select`):

* ``ZHUOJI_PURE=1`` in the environment: the pure engine, always (``bench/replay.py`` runs both
  in one run this way). At build time the same switch builds the pure package only.
* A stale build: the build records a digest of the sources it compiled
  (:data:`DIGEST_FILE`); when the sources beside the compiled modules differ from it (a
  source edited after an in-place build), the compiled modules are not used and a warning
  says how to rebuild. A compiled module never runs code older than its source.
* A compiled build that cannot be imported: the first compiled module is imported when the
  choice is made; when that fails (mypyc's shared library, or a module it needs, is not
  found by this interpreter: a build left in the folder by another environment), the pure
  engine runs and a warning names the import error.

This module is read by ``setup.py`` before the package is built: it imports only the
standard library and is never compiled.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = [
    "COMPILED",
    "CORE_COMPILED",
    "DIGEST_FILE",
    "FAMILY_COMPILED",
    "PURE_ENV",
    "compiled_available",
    "engine_kind",
    "engine_reason",
    "family_compiled",
    "is_compiled",
    "select",
    "source_digest",
]

PURE_ENV = "ZHUOJI_PURE"
"""The switch: set to ``1`` (or ``true``/``yes``) for the pure engine."""

CORE_COMPILED: tuple[str, ...] = (
    "zhuoji.rules.tiles",
    "zhuoji.rules.violations",
    "zhuoji.rules.memo",
    "zhuoji.rules.melds",
    "zhuoji.rules.events",
    "zhuoji.rules.facts",
    "zhuoji.rules.hand",
    "zhuoji.rules.shanten",
    "zhuoji.rules.core.declared",
    "zhuoji.rules.core.state",
    "zhuoji.rules.core.play",
    "zhuoji.rules.core.assemble",
    "zhuoji.rules.table",
    "zhuoji.rules.replay",
    "zhuoji.rules.audit",
)
"""The engine's own compiled modules (the families' are in their folders: :data:`COMPILED`)."""

FAMILY_COMPILED = "COMPILED"
"""The name, in a family's ``__init__.py`` (``rules/families/<name>/``), of the tuple naming
the family's modules compiled with the engine, relative to its folder:
``COMPILED = ("patterns", "legality")`` for ``zhuoji.rules.families.<name>.patterns`` and
``.legality``. It is read from the source (a literal), the package not imported; a family
without it has no compiled module."""


def family_compiled(families: Path) -> tuple[str, ...]:
    """The compiled modules the family folders under ``families`` name in their
    ``__init__.py`` (:data:`FAMILY_COMPILED`), by folder name, each in its tuple's order."""
    out: list[str] = []
    for init in sorted(families.glob("*/__init__.py")):
        text = init.read_text(encoding="utf-8")
        if FAMILY_COMPILED not in text:  # parsed only where a family compiles modules
            continue
        for node in ast.parse(text, str(init)).body:
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            if node.value is not None and any(
                isinstance(t, ast.Name) and t.id == FAMILY_COMPILED for t in targets
            ):
                names: tuple[str, ...] = ast.literal_eval(node.value)
                out.extend(f"zhuoji.rules.families.{init.parent.name}.{n}" for n in names)
    return tuple(out)


COMPILED: tuple[str, ...] = CORE_COMPILED + family_compiled(Path(__file__).parent / "families")
"""The modules compiled when a C compiler is present, in the order listed to mypyc: the
engine's own (:data:`CORE_COMPILED`), then those each family's ``__init__.py`` names in its
:data:`FAMILY_COMPILED` tuple (found by the folder, with no list here). The pydantic-model modules
(``zhuoji.rules.settings``, ``zhuoji.rules.presets``, each family's ``settings``) and the
family registry (``zhuoji.rules.families`` and each family's ``family`` module) stay
interpreted, and so do the optional mechanics (``zhuoji.rules.core.mechanic`` and each
mechanic's module, whose states subclass its :class:`MechanicState`: a table calls into them
only for a family that plays them), but for ``zhuoji.rules.core.declared`` (a hand frozen by a
declaration), whose records the plain discard and pong read."""

DIGEST_FILE = "_engine_digest.txt"
"""The file in ``rules/`` holding :func:`source_digest` of the sources the build compiled."""

_ROOT = Path(__file__).parent.parent.parent


def pure_requested(environ: dict[str, str] | None = None) -> bool:
    """Whether the environment asks for the pure engine (``ZHUOJI_PURE``)."""
    value = (os.environ if environ is None else environ).get(PURE_ENV, "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def source_path(module: str, root: Path = _ROOT) -> Path:
    """The ``.py`` file of ``module`` under ``root`` (the folder holding the packages)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(root: Path = _ROOT, modules: Sequence[str] = COMPILED) -> str:
    """SHA-256 over the names and bytes of the compiled modules' sources under ``root``."""
    digest = hashlib.sha256()
    for module in modules:
        data = source_path(module, root).read_bytes()
        digest.update(f"{module}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _compiled_file(module: str, root: Path) -> Path | None:
    base = source_path(module, root).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = base.with_name(base.name + suffix)
        if candidate.exists():
            return candidate
    return None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of the compiled modules, ahead of the path finder."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        source = source_path(fullname)
        if not source.exists():
            return None
        loader = importlib.machinery.SourceFileLoader(fullname, str(source))
        return importlib.util.spec_from_file_location(fullname, source, loader=loader)


_state: dict[str, str] = {}


def select() -> str:
    """Choose the engine once per process, before any compiled module is imported; returns
    ``"compiled"`` or ``"pure"``. Later calls return the first choice."""
    if "kind" in _state:
        return _state["kind"]
    kind, reason = _choose()
    if kind == "compiled":
        failure = _import_failure()
        if failure is not None:
            reason = f"the compiled engine cannot be imported ({failure})"
            warnings.warn(
                f"zhuoji: {reason}; running the pure engine. Rebuild it in this environment "
                f"with `make .venv/.installed` (or reinstall the package).",
                RuntimeWarning,
                stacklevel=2,
            )
            kind = "pure"
    compiled_present = any(_compiled_file(m, _ROOT) for m in COMPILED)
    if kind == "pure" and compiled_present and not any(
        isinstance(f, _PureFinder) for f in sys.meta_path
    ):
        sys.meta_path.insert(0, _PureFinder())
    _state["kind"], _state["reason"] = kind, reason
    return kind


def _import_failure() -> str | None:
    """Why the first compiled module cannot be imported, or ``None`` when it is imported.

    Each compiled module is a small extension that imports mypyc's shared library (one for
    the whole build, beside the packages) and, through it, what the compiled code needs: one
    import finds out whether the build is usable here. What the failed import left behind
    is removed, so the pure modules are imported in its place.
    """
    first = COMPILED[0]
    try:
        importlib.import_module(first)
    except ImportError as exc:
        for name in COMPILED:
            module = sys.modules.get(name)
            if module is not None and not str(getattr(module, "__file__", "")).endswith(".py"):
                del sys.modules[name]
        return f"{first}: {exc}"
    return None


def _choose() -> tuple[str, str]:
    compiled = [m for m in COMPILED if _compiled_file(m, _ROOT)]
    if not compiled:
        return "pure", "built without a C compiler or with ZHUOJI_PURE=1"
    if pure_requested():
        return "pure", f"{PURE_ENV} is set"
    missing = sorted(set(COMPILED) - set(compiled))
    stamp = _ROOT / "zhuoji" / "rules" / DIGEST_FILE
    recorded = stamp.read_text(encoding="ascii").strip() if stamp.exists() else ""
    if missing or recorded != source_digest():
        what = (
            f"{', '.join(missing)} not compiled" if missing else "sources changed since the build"
        )
        reason = f"the compiled engine is stale ({what})"
        warnings.warn(
            f"zhuoji: {reason}; running the pure engine. Rebuild it with "
            f"`make .venv/.installed` (or reinstall the package).",
            RuntimeWarning,
            stacklevel=3,
        )
        return "pure", reason
    return "compiled", "compiled with mypyc"


def compiled_available() -> bool:
    """Whether a current compiled build is installed (whatever this process runs)."""
    if not all(_compiled_file(m, _ROOT) for m in COMPILED):
        return False
    stamp = _ROOT / "zhuoji" / "rules" / DIGEST_FILE
    return stamp.exists() and stamp.read_text(encoding="ascii").strip() == source_digest()


def is_compiled() -> bool:
    """Whether the compiled engine runs in this process (the modules are imported)."""
    import zhuoji.rules.table

    return not zhuoji.rules.table.__file__.endswith(".py") if zhuoji.rules.table.__file__ else False


def engine_kind() -> str:
    """``"compiled"`` or ``"pure"``: the engine this process runs."""
    return "compiled" if is_compiled() else "pure"


def engine_reason() -> str:
    """Why this engine runs (for ``zhuoji --version``)."""
    select()
    return _state["reason"]
