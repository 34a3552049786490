"""What the wheel must carry, checked against the checkout (scripts/check_wheel.sh builds,
installs and runs the real wheel; these catch a file the package data would leave out)."""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import zhuoji.flows as flows
from zhuoji.flows.warehouse.sqlfiles import SQL_ROOT

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _package_data(package: str) -> list[str]:
    data: dict[str, list[str]] = PYPROJECT["tool"]["setuptools"]["package-data"]
    return data.get(package, [])


def test_flows_sql_is_the_checkouts_sql_folder() -> None:
    link = Path(flows.__file__).parent / "sql"
    assert link.is_symlink() and link.resolve() == (ROOT / "sql").resolve()
    assert SQL_ROOT.resolve() == (ROOT / "sql").resolve()
    for folder in ("schema", "load", "reports", "internal"):
        assert any((SQL_ROOT / folder).glob("*.sql")), folder


def test_every_sql_file_is_package_data() -> None:
    patterns = _package_data("zhuoji.flows")
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "sql").rglob("*"))
    files = [f for f in files if (ROOT / f).is_file()]
    assert files
    left_out = [
        f for f in files
        if not any(fnmatch.fnmatchcase("flows/" + f, f"flows/{p}") for p in patterns)
    ]
    assert left_out == [], f"not in the wheel (tool.setuptools.package-data flows): {left_out}"


def test_every_preset_and_asset_is_package_data() -> None:
    presets = list((ROOT / "rules" / "families").glob("*/presets/*"))
    assert all(p.suffix == ".toml" or p.name == "__init__.py" or p.name == "__pycache__"
               for p in presets), presets
    folder = ROOT / "flows" / "dashboard" / "assets"
    assets = [p for p in folder.iterdir() if p.name != "__pycache__"]
    assert assets and all(p.is_file() for p in assets), "assets are one flat folder ('*')"
    assert _package_data("zhuoji.flows.dashboard") == ["assets/*"]
    assert _package_data("zhuoji.rules.families") == ["*/glossary.toml", "*/presets/*.toml"]


def _wheel_files() -> set[str]:
    """The files of the checkout a wheel holds, by the packages setuptools finds
    (``tool.setuptools.packages.find``) and their package data's patterns: each module of
    a package found, each data file one of its patterns matches."""
    from setuptools import find_packages

    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(where=str(ROOT), include=found["include"])
    out: set[str] = set()
    for package in packages:
        folder = ROOT.joinpath(*package.split("."))
        out.update(f"{package.replace('.', '/')}/{p.name}" for p in folder.glob("*.py"))
        for pattern in _package_data(package):
            out.update(f"{package.replace('.', '/')}/{p.relative_to(folder).as_posix()}"
                       for p in folder.glob(pattern) if p.is_file())
    return out


def test_every_familys_folder_is_in_the_wheel_without_being_named() -> None:
    """A family's folder (its modules, its words, its presets) ships because setuptools
    finds it: no package list and no package data names a family."""
    setuptools_config = PYPROJECT["tool"]["setuptools"]
    assert "packages" not in setuptools_config or "find" in setuptools_config["packages"]
    families = sorted(p.parent.name for p in (ROOT / "rules" / "families").glob("*/family.py"))
    assert families
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text[text.index("[tool.setuptools"):text.index("[tool.pytest")]
    for name in families:
        assert name not in table, f"pyproject.toml's setuptools tables name {name}"
    wheel = _wheel_files()
    for name in families:
        folder = ROOT / "rules" / "families" / name
        files = [p for p in folder.rglob("*") if p.is_file() and p.suffix in (".py", ".toml")
                 and "__pycache__" not in p.parts]
        assert any(p.suffix == ".toml" for p in files), f"{name} has no words or presets"
        for path in files:
            shipped = "zhuoji/" + path.relative_to(ROOT).as_posix()
            assert shipped in wheel, f"not in the wheel: {shipped}"


def _constraints() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower().replace("_", "-")] = Version(version.strip())
    return pins


def test_the_constraints_pin_every_dependency_inside_its_bounds() -> None:
    pins = _constraints()
    project = PYPROJECT["project"]
    requirements = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        requirements += [Requirement(r) for r in extra if not r.startswith("zhuoji")]
    for req in requirements:
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{req.name} is not pinned in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={pins[name]}, outside {req.specifier}"
        )


def test_dask_is_an_extra_with_its_dashboard() -> None:
    project = PYPROJECT["project"]
    core = {Requirement(r).name for r in project["dependencies"]}
    dask = {Requirement(r).name for r in project["optional-dependencies"]["dask"]}
    assert not core & {"prefect-dask", "distributed", "dask", "bokeh"}
    assert {"prefect-dask", "distributed", "bokeh"} <= dask


def test_the_license_the_metadata_names_is_there() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


# --- the lower bounds: declared, pinned by the check, documented ------------------------------


def _bounds_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "check_lower_bounds", ROOT / "scripts" / "check_lower_bounds.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _requirements() -> list[Requirement]:
    project = PYPROJECT["project"]
    out = [Requirement(r) for r in project["dependencies"]]
    for extra in ("dask", "dev"):
        out += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return [r for r in out if r.name != "zhuoji"]


def test_every_requirement_is_pinned_at_its_lower_bound_by_the_check() -> None:
    script = _bounds_script()
    pins = dict(pin.split("==") for pin in script.pins(ROOT / "pyproject.toml"))
    for req in _requirements():
        (low,) = [s.version for s in req.specifier if s.operator == ">="]
        assert pins.pop(req.name) == low, req
    assert pins == {}, f"pinned but not required: {pins}"


@pytest.mark.parametrize(
    ("requirement", "message"),
    [
        ("polars", "must declare one lower bound"),
        ("polars<3", "must declare one lower bound"),
        ("polars>=1,>=2", "must declare one lower bound"),
        ("polars>=1; python_version < '3.12'", "environment markers are not handled"),
    ],
)
def test_the_check_refuses_a_requirement_without_one_lower_bound(
    requirement: str, message: str
) -> None:
    script = _bounds_script()
    with pytest.raises(script.BoundsError, match=message):
        script.lower_bound(requirement, "dependencies")
    assert script.lower_bound("polars>=1.20,<3", "dependencies") == ("polars", "1.20")
    assert script.lower_bound("zhuoji[dask]", "optional-dependencies.dev") is None


def test_docs_install_gives_every_bound_and_why() -> None:
    text = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    table = text.split("### Dependency bounds", 1)[1].split("\n### ", 1)[0]
    rows: dict[str, tuple[str, str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("package", "---"):
            continue
        for name in re.findall(r"[a-z][a-z0-9-]*[a-z0-9]", cells[0].split("(")[0]):
            rows[name] = (cells[1], cells[2])
    for req in _requirements():
        assert req.name in rows, f"docs/install.md's table of bounds lacks {req.name}"
        bound, why = rows[req.name]
        spelled = ",".join(sorted(str(s) for s in req.specifier))
        assert any(
            ",".join(sorted(b.split(","))) == spelled for b in re.findall(r"`([^`]+)`", bound)
        ), f"{req.name}: pyproject.toml says {req.specifier}, docs/install.md {bound}"
        assert why, req.name


def test_the_python_classifiers_follow_requires_python() -> None:
    project = PYPROJECT["project"]
    assert project["requires-python"] == ">=3.11"
    minors = [
        c.rsplit(" ", 1)[1]
        for c in project["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert minors and min(minors, key=lambda v: tuple(map(int, v.split(".")))) == "3.11"
    # license = "MIT" (an SPDX expression) replaces the License :: classifier
    assert not any(c.startswith("License ::") for c in project["classifiers"])
