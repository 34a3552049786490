"""The test suite on every dependency at its declared lower bound.

    python3 scripts/check_lower_bounds.py                # build .venv-lower, run the suite there
    python3 scripts/check_lower_bounds.py --pins         # print the pins and stop
    python3 scripts/check_lower_bounds.py -- tests/flows/test_ingest_dask.py -x   # some tests

Every requirement of ``pyproject.toml`` (the dependencies, the ``dask`` extra and the
``dev`` extra) must declare a lower bound ``>=X``; each is pinned to ``==X`` and installed
into a fresh virtualenv (``.venv-lower``, or ``--venv DIR``) with the package itself,
editable and pure (``ZHUOJI_PURE=1``: the engine's results do not depend on the
dependencies' versions, and the compiled engine is checked on the development lock). What
the pins leave open (the dependencies of the dependencies) is resolved by pip as usual. The
script checks that every pin is what got installed, then runs the suite as ``make test``
does (``pytest -n 2 --dist loadgroup``) with a Prefect home of its own. Exit 0 when the suite
passes; 1 when a test fails; 2 when a requirement has no lower bound or the pins cannot be
installed together (pip says which). ``make check-lower-bounds`` runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "zhuoji"
EXTRAS = ("dask", "dev")

_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[(?P<extras>[^\]]*)\])?\s*"
    r"(?P<specs>[^;]*?)\s*(?:;(?P<marker>.*))?$"
)
_SPEC = re.compile(r"^\s*(?P<op>===|==|!=|~=|<=|>=|<|>)\s*(?P<version>[A-Za-z0-9.*+!_-]+)\s*$")


class BoundsError(ValueError):
    """A requirement of pyproject.toml that cannot be pinned to its lower bound."""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lower_bound(requirement: str, where: str) -> tuple[str, str] | None:
    """The (name, version) a requirement's ``>=`` bound names; None for the project's own
    extras (``zhuoji[dask]`` in the dev extra). Raises BoundsError when there is none."""
    match = _REQUIREMENT.match(requirement)
    if match is None:
        raise BoundsError(f"pyproject.toml: {where}: cannot read requirement {requirement!r}")
    name = match["name"]
    if _canonical(name) == PROJECT:
        return None
    if match["marker"]:
        raise BoundsError(
            f"pyproject.toml: {where}: {requirement!r}: environment markers are not handled"
        )
    lows: list[str] = []
    for part in filter(None, (p.strip() for p in match["specs"].split(","))):
        spec = _SPEC.match(part)
        if spec is None:
            raise BoundsError(f"pyproject.toml: {where}: {requirement!r}: cannot read {part!r}")
        if spec["op"] in (">=", "==", "~="):
            lows.append(spec["version"])
    if len(lows) != 1:
        raise BoundsError(
            f"pyproject.toml: {where}: {requirement!r} must declare one lower bound (>=X)"
        )
    return name, lows[0]


def pins(pyproject: Path) -> list[str]:
    """``name==lower`` for every requirement of the project, its dask and dev extras."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    found: dict[str, tuple[str, str, str]] = {}
    groups = [("dependencies", data.get("dependencies", []))]
    extras = data.get("optional-dependencies", {})
    groups += [(f"optional-dependencies.{e}", extras.get(e, [])) for e in EXTRAS]
    for where, requirements in groups:
        for requirement in requirements:
            bound = lower_bound(requirement, where)
            if bound is None:
                continue
            name, version = bound
            key = _canonical(name)
            if key in found and found[key][1] != version:
                raise BoundsError(
                    f"pyproject.toml: {where}: {name} has lower bound {version}, "
                    f"{found[key][2]} says {found[key][1]}"
                )
            found[key] = (name, version, where)
    return [f"{name}=={version}" for name, version, _ in sorted(found.values())]


def _run(cmd: list[str], env: dict[str, str] | None = None) -> int:
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=ROOT, env=env)


def _same_version(a: str, b: str) -> bool:
    """Equal as release numbers (``2024.8`` is ``2024.8.0``, as pip's ``==`` reads it)."""
    return re.sub(r"(\.0+)+$", "", a) == re.sub(r"(\.0+)+$", "", b)


def _installed(python: Path) -> dict[str, str]:
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    versions: dict[str, str] = {}
    for line in out.splitlines():
        name, _, version = line.partition("==")
        versions[_canonical(name)] = version
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv-lower")
    parser.add_argument("--python", default=sys.executable, help="the Python to build it with")
    parser.add_argument("--pins", action="store_true", help="print the pins and stop")
    parser.add_argument("--reuse", action="store_true", help="keep an existing --venv")
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs")
    args = parser.parse_args(argv)
    try:
        wanted = pins(ROOT / "pyproject.toml")
    except BoundsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.pins:
        print("\n".join(wanted))
        return 0

    venv: Path = args.venv.resolve()
    python = venv / "bin" / "python"
    if not (args.reuse and python.exists()):
        shutil.rmtree(venv, ignore_errors=True)
        if _run([args.python, "-m", "venv", str(venv)]) != 0:
            return 2
        _run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    env = dict(os.environ, ZHUOJI_PURE="1")
    pin_file = venv / "lower-bounds.txt"
    pin_file.write_text("".join(f"{p}\n" for p in wanted), encoding="utf-8")
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    if _run([*pip, "-r", str(pin_file)], env) != 0:
        # Again, not quiet, for pip's account of the conflict ("The conflict is caused by").
        _run([str(python), "-m", "pip", "install", "--dry-run", "-r", str(pin_file)], env)
        print("error: the lower bounds cannot be installed together (see pip above)",
              file=sys.stderr)
        return 2
    if _run([*pip, "--no-deps", "-e", "."], env) != 0:
        return 2

    installed = _installed(python)
    wrong = []
    for pin in wanted:
        name, _, version = pin.partition("==")
        got = installed.get(_canonical(name))
        if got is None or not _same_version(got, version):
            wrong.append(f"{name}: pinned {version}, installed {got}")
    if wrong:
        print("error: " + "; ".join(wrong), file=sys.stderr)
        return 2
    print("lower bounds installed: " + ", ".join(wanted), flush=True)

    env.update(
        PREFECT_HOME=str(venv / "prefect-home"),
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    env.pop("PREFECT_API_URL", None)
    pytest_args = args.pytest_args or ["-n", "2", "--dist", "loadgroup"]
    code = _run([str(python), "-m", "pytest", "-p", "no:cacheprovider", *pytest_args], env)
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
