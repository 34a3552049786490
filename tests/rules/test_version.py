"""The engine version and the ruleset fingerprint."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from zhuoji.rules.presets import preset_names, resolve_ruleset
from zhuoji.rules.settings import apply_overrides
from zhuoji.rules.version import (
    ENGINE_VERSION,
    ENGINE_VERSION_ENV,
    engine_digest,
    package_version,
    ruleset_fingerprint,
)


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package ``fakeengine`` on the path, to digest."""
    root = tmp_path / "fakeengine"
    (root / "presets").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "table.py").write_text("X = 1\n")
    (root / "presets" / "__init__.py").write_text("")
    (root / "presets" / "a.toml").write_text("v = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    sys.modules.pop("fakeengine", None)


def test_the_engine_version_is_the_package_version_and_the_code_digest() -> None:
    assert f"{package_version()}+{engine_digest()}" == ENGINE_VERSION
    assert len(engine_digest()) == 12


def test_the_digest_follows_the_code_and_not_the_data_or_the_simulator(package: Path) -> None:
    first = engine_digest("fakeengine")
    assert engine_digest("fakeengine") == first
    (package / "presets" / "a.toml").write_text("v = 2\n")
    (package / "simulate.py").write_text("bots = 1\n")
    (package / "bots.py").write_text("shared = 1\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "table.cpython-311.pyc").write_bytes(b"\x00")
    assert engine_digest("fakeengine") == first, "data, simulator and caches are not the engine"
    (package / "table.py").write_text("X = 2\n")
    second = engine_digest("fakeengine")
    assert second != first
    (package / "hand.py").write_text("")
    assert engine_digest("fakeengine") != second, "a new module is a new engine"


def test_a_module_installed_compiled_only_is_digested_as_its_compiled_file(
    package: Path,
) -> None:
    compiled = package / "table.cpython-311-x86_64-linux-gnu.so"
    compiled.write_bytes(b"\x7fELF one")
    with_source = engine_digest("fakeengine")
    compiled.write_bytes(b"\x7fELF two")
    assert engine_digest("fakeengine") == with_source, "the source decides when it is there"
    (package / "table.py").unlink()
    only_compiled = engine_digest("fakeengine")
    compiled.write_bytes(b"\x7fELF three")
    assert engine_digest("fakeengine") != only_compiled


def test_the_environment_variable_replaces_the_version_for_tests() -> None:
    code = "from zhuoji.rules.version import ENGINE_VERSION; print(ENGINE_VERSION)"
    env_value = "1.2.3+forced"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={"PATH": "", ENGINE_VERSION_ENV: env_value},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == env_value


def test_the_fingerprint_is_of_the_settings_not_the_names() -> None:
    prints = {name: ruleset_fingerprint(resolve_ruleset(name)) for name in preset_names()}
    assert len(set(prints.values())) == len(prints), "the presets differ in some setting"
    guiyang = resolve_ruleset("guiyang")
    assert ruleset_fingerprint(guiyang) == ruleset_fingerprint(resolve_ruleset("guiyang"))
    renamed = guiyang.model_copy(update={"name": "other", "title": "t", "seed": "s"})
    assert ruleset_fingerprint(renamed) == prints["guiyang"]
    changed = apply_overrides(guiyang, {"pattern_plain": guiyang.patterns.plain + 1})
    assert ruleset_fingerprint(changed) != prints["guiyang"]
    assert len(prints["guiyang"]) == 16
