"""Whether a Prefect server is configured, read without importing Prefect.

Importing Prefect's settings costs about a second of CPU (most of a small ingest's
time), so :func:`configured_api_url` reads ``PREFECT_API_URL`` from the places Prefect 3
reads it, in Prefect's order (the first that sets it wins):

1. the environment;
2. a ``.env`` file in the current folder (``PREFECT_API_URL=...``);
3. ``prefect.toml`` in the current folder (``[api] url = "..."``);
4. ``pyproject.toml`` in the current folder (``[tool.prefect.api] url = "..."``);
5. the active profile (``PREFECT_PROFILE``, else the profiles file's ``active``) of the
   profiles file (``PREFECT_PROFILES_PATH``, else ``$PREFECT_HOME/profiles.toml``, else
   ``~/.prefect/profiles.toml``), with Prefect's own profiles as the fallback: what
   ``prefect config set PREFECT_API_URL=...`` and ``prefect profile use local`` write.

A test compares the answer with Prefect's own reading of the same configurations.

Works around: Prefect's settings can be read only by importing Prefect (its settings
models, pydantic-settings and the profile loader), and a setting written after that
import is not seen until the settings are rebuilt
(https://github.com/PrefectHQ/prefect/issues/16290). The upstream change that would
remove it: a light, public reader of Prefect's configured settings (the sources and their
order) that imports no more than the standard library.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["configured_api_url"]

_KEY = "PREFECT_API_URL"


def configured_api_url(
    cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The Prefect API URL configured for a process started in ``cwd`` with ``environ``
    (by default this one's), or ``None`` when none is (an empty value counts as none)."""
    env = os.environ if environ is None else environ
    here = Path.cwd() if cwd is None else cwd
    if _KEY in env:
        return env[_KEY] or None
    dotenv = _dotenv(here / ".env")
    if _KEY in dotenv:
        return dotenv[_KEY] or None
    for path, keys in (
        (here / "prefect.toml", ("api", "url")),
        (here / "pyproject.toml", ("tool", "prefect", "api", "url")),
    ):
        value = _toml_get(_read_toml(path), keys)
        if value is not None:
            return str(value) or None
    value = _profile(env, here, dotenv).get(_KEY)
    if value is None:
        return None
    return str(value) or None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _toml_get(data: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return None if isinstance(value, Mapping) else value


def _dotenv(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (``export`` and quotes allowed, ``#``
    comments); empty when there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key.strip()] = value
    return values


def _default_profiles() -> Path | None:
    """Prefect's own profiles file, found without importing Prefect."""
    spec = importlib.util.find_spec("prefect")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "settings" / "profiles.toml"


def _profiles_path(env: Mapping[str, str], here: Path, dotenv: Mapping[str, str]) -> Path | None:
    if env.get("PREFECT_PROFILES_PATH"):
        return Path(env["PREFECT_PROFILES_PATH"])
    if dotenv.get("PREFECT_PROFILES_PATH"):
        return Path(dotenv["PREFECT_PROFILES_PATH"])
    for path, keys in (
        (here / "prefect.toml", ("profiles_path",)),
        (here / "pyproject.toml", ("tool", "prefect", "profiles_path")),
    ):
        value = _toml_get(_read_toml(path), keys)
        if value:
            return Path(str(value))
    if env.get("PREFECT_HOME"):
        return Path(env["PREFECT_HOME"]).expanduser() / "profiles.toml"
    user = Path("~/.prefect/profiles.toml").expanduser()
    return user if user.exists() else _default_profiles()


def _profile(env: Mapping[str, str], here: Path, dotenv: Mapping[str, str]) -> dict[str, Any]:
    """The settings of the active profile (Prefect's default one when the profiles file
    is missing or names no profile it holds)."""
    path = _profiles_path(env, here, dotenv)
    if path is not None and path.exists():
        data = _read_toml(path)
        active = env.get("PREFECT_PROFILE") or data.get("active")
        profiles = data.get("profiles", {})
        if isinstance(profiles, Mapping) and active in profiles:
            chosen = profiles[active]
            return dict(chosen) if isinstance(chosen, Mapping) else {}
    default = _default_profiles()
    if default is None:
        return {}
    data = _read_toml(default)
    profiles = data.get("profiles", {})
    if not isinstance(profiles, Mapping):
        return {}
    chosen = profiles.get(data.get("active", "ephemeral"), {})
    return dict(chosen) if isinstance(chosen, Mapping) else {}
