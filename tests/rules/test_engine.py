"""``zhuoji.rules.engine``: the compiled engine when it is there and current, else the pure one.

Each case runs a fresh interpreter (the choice is made once per process, at the first import
of ``rules``).
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import zhuoji.rules
import zhuoji.rules.engine as engine

ROOT = Path(zhuoji.rules.__file__).resolve().parent.parent
PROBE = (
    "import json, warnings\n"
    "warnings.simplefilter('always')\n"
    "with warnings.catch_warnings(record=True) as seen:\n"
    "    import zhuoji.rules.engine as e, zhuoji.rules.table, zhuoji.rules.hand\n"
    "print(json.dumps({'kind': e.engine_kind(), 'reason': e.engine_reason(),\n"
    "    'table': zhuoji.rules.table.__file__, 'hand': zhuoji.rules.hand.__file__,\n"
    "    'warnings': [str(w.message) for w in seen]}))\n"
)


def _compiled_files(root: Path) -> list[Path]:
    out = []
    for module in engine.COMPILED:
        base = engine.source_path(module, root).with_suffix("")
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if base.with_name(base.name + suffix).exists():
                out.append(base.with_name(base.name + suffix))
    return out


HAS_COMPILED = bool(_compiled_files(ROOT))
needs_compiled = pytest.mark.skipif(
    not HAS_COMPILED, reason="this installation was built without the compiled engine"
)


def probe(pure: bool | None, cwd: Path, path: Path | None = None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != engine.PURE_ENV}
    if pure is not None:
        env[engine.PURE_ENV] = "1" if pure else "0"
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True,
        check=True,
    )
    import json

    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_switch_runs_every_module_from_its_source(tmp_path: Path) -> None:
    seen = probe(True, tmp_path)
    assert seen["kind"] == "pure"
    assert str(seen["table"]).endswith("table.py") and str(seen["hand"]).endswith("hand.py")
    if HAS_COMPILED:
        assert seen["reason"] == "ZHUOJI_PURE is set"


@pytest.fixture(scope="module")
def importable_build(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Skips when this installation cannot import the compiled modules found beside the
    sources: a build another environment left in the folder (``make check-lower-bounds``
    installs the checkout pure into ``.venv-lower``, beside ``.venv``'s build)."""
    seen = probe(None, tmp_path_factory.mktemp("probe"))
    if "cannot be imported" in str(seen["reason"]):
        pytest.skip(f"the compiled modules here are another environment's: {seen['reason']}")


def _copy_tree(root: Path, dest: Path, *, broken_library: bool = False) -> Path:
    """The packages with their compiled modules and mypyc's shared library; with
    ``broken_library`` a file of the library's name that is no library (an editable install
    would find the checkout's own library if the copy had none)."""
    for package in ("zhuoji", "rules", "parsers"):  # zhuoji/: the package, its links to the others
        shutil.copytree(root / package, dest / package, symlinks=True)
    for library in root.glob("*__mypyc*"):
        if broken_library:
            (dest / library.name).write_bytes(b"not a shared library\n")
        else:
            shutil.copy2(library, dest / library.name)
    return dest


@needs_compiled
def test_a_current_build_runs_compiled(tmp_path: Path, importable_build: None) -> None:
    for pure in (None, False):
        seen = probe(pure, tmp_path)
        assert seen["kind"] == "compiled", seen
        assert not str(seen["table"]).endswith(".py")
        assert seen["warnings"] == []


@needs_compiled
def test_an_edited_source_is_never_run_compiled(tmp_path: Path) -> None:
    # A copy of the packages with their compiled modules and mypyc's shared library, then
    # one source edited after the build, as in an editable install.
    copy = _copy_tree(ROOT, tmp_path / "tree")
    current = probe(None, tmp_path, copy)
    assert current["kind"] == "compiled", current
    assert str(current["table"]).startswith(str(copy))

    hand = copy / "zhuoji" / "rules" / "hand.py"
    hand.write_text(hand.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    stale = probe(None, tmp_path, copy)
    assert stale["kind"] == "pure"
    assert stale["hand"] == str(hand)
    assert "sources changed since the build" in str(stale["reason"])
    assert any("stale" in str(w) and "pure engine" in str(w) for w in stale["warnings"])  # type: ignore[attr-defined]

    (copy / "zhuoji" / "rules" / engine.DIGEST_FILE).unlink()
    hand.write_text(hand.read_text(encoding="utf-8").removesuffix("\n# edited\n"), "utf-8")
    assert probe(None, tmp_path, copy)["kind"] == "pure", "no record of the build: not used"


@needs_compiled
def test_a_build_that_cannot_be_imported_runs_pure_and_says_why(tmp_path: Path) -> None:
    # mypyc's shared library, which each compiled module imports first, cannot be loaded:
    # the build is current (the digest matches) but this interpreter cannot import it.
    copy = _copy_tree(ROOT, tmp_path / "tree", broken_library=True)
    assert (copy / "zhuoji" / "rules" / engine.DIGEST_FILE).exists()
    seen = probe(None, tmp_path, copy)
    assert seen["kind"] == "pure", seen
    assert seen["table"] == str(copy / "zhuoji" / "rules" / "table.py")
    assert seen["hand"] == str(copy / "zhuoji" / "rules" / "hand.py")
    reason = str(seen["reason"])
    assert reason.startswith("the compiled engine cannot be imported (zhuoji.rules.tiles: ")
    assert "__mypyc" in reason, reason  # the library that could not be loaded
    warned = [str(w) for w in seen["warnings"]]  # type: ignore[attr-defined]
    assert any(reason in w and "running the pure engine" in w for w in warned), warned
    assert probe(True, tmp_path, copy)["reason"] == "ZHUOJI_PURE is set", "no import tried"


def test_the_digest_covers_every_compiled_source(tmp_path: Path) -> None:
    for module in engine.COMPILED:
        target = engine.source_path(module, tmp_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(engine.source_path(module, ROOT), target)
    before = engine.source_digest(tmp_path)
    assert before == engine.source_digest(ROOT)
    for module in engine.COMPILED:
        target = engine.source_path(module, tmp_path)
        text = target.read_bytes()
        target.write_bytes(text + b" ")
        assert engine.source_digest(tmp_path) != before, module
        target.write_bytes(text)


def test_a_family_names_its_compiled_modules_in_its_folder(tmp_path: Path) -> None:
    """``COMPILED`` in a family folder's ``__init__.py``, read from the source; a folder
    without it adds nothing; the folders by name, each tuple in its order."""
    for name, text in {
        "zeta": 'COMPILED: tuple[str, ...] = ("b",)\n',
        "alpha": '"""A family."""\n\nCOMPILED = (\n    "patterns",  # hot\n    "legality",\n)\n',
        "plain": '"""No compiled module (COMPILED named in a docstring only)."""\n',
    }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(text, encoding="utf-8")
    assert engine.family_compiled(tmp_path) == (
        "zhuoji.rules.families.alpha.patterns",
        "zhuoji.rules.families.alpha.legality",
        "zhuoji.rules.families.zeta.b",
    )


def test_the_compiled_modules_are_the_engines_and_those_the_family_folders_name() -> None:
    families = ROOT / "zhuoji" / "rules" / "families"
    found = engine.family_compiled(families)
    assert found, "a family folder names its compiled modules"
    assert engine.CORE_COMPILED + found == engine.COMPILED
    assert len(set(engine.COMPILED)) == len(engine.COMPILED)
    for module in engine.COMPILED:
        assert engine.source_path(module, ROOT).is_file(), module


def test_the_pydantic_modules_stay_interpreted() -> None:
    assert "zhuoji.rules.families.guizhou.settings" not in engine.COMPILED
    assert "zhuoji.rules.presets" not in engine.COMPILED
    assert "zhuoji.rules.engine" not in engine.COMPILED
    assert "zhuoji.rules.frozen" not in engine.COMPILED


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_switch_values_that_ask_for_pure(value: str) -> None:
    assert engine.pure_requested({engine.PURE_ENV: value})


@pytest.mark.parametrize("value", ["", "0", "no", "false"])
def test_switch_values_that_do_not(value: str) -> None:
    assert not engine.pure_requested({engine.PURE_ENV: value})
