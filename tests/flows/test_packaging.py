"""What the wheel must carry, checked against the checkout (scripts/check_wheel.sh builds,
installs and runs the real wheel; these catch a file the package data would leave out)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

import flows
from flows import warehouse

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _package_data(package: str) -> list[str]:
    data: dict[str, list[str]] = PYPROJECT["tool"]["setuptools"]["package-data"]
    return data.get(package, [])


def test_flows_sql_is_the_checkouts_sql_folder() -> None:
    link = Path(flows.__file__).parent / "sql"
    assert link.is_symlink() and link.resolve() == (ROOT / "sql").resolve()
    assert warehouse.SQL_ROOT.resolve() == (ROOT / "sql").resolve()
    for folder in ("schema", "load", "reports"):
        assert any((warehouse.SQL_ROOT / folder).glob("*.sql")), folder


def test_every_sql_file_is_package_data() -> None:
    patterns = _package_data("flows")
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "sql").rglob("*"))
    files = [f for f in files if (ROOT / f).is_file()]
    assert files
    left_out = [
        f for f in files
        if not any(fnmatch.fnmatchcase("flows/" + f, f"flows/{p}") for p in patterns)
    ]
    assert left_out == [], f"not in the wheel (tool.setuptools.package-data flows): {left_out}"


def test_every_preset_and_asset_is_package_data() -> None:
    presets = list((ROOT / "rules" / "presets").glob("*"))
    assert all(p.suffix == ".toml" or p.name == "__init__.py" or p.name == "__pycache__"
               for p in presets), presets
    assets = [p for p in (ROOT / "flows" / "dashboard_assets").iterdir() if p.name != "__pycache__"]
    assert assets and all(p.is_file() for p in assets), "assets are one flat folder ('*')"
    assert _package_data("flows.dashboard_assets") == ["*"]
    assert _package_data("rules.presets") == ["*.toml"]


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
