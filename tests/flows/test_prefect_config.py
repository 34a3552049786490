"""``zhuoji.flows.runtime.prefect_config.configured_api_url`` reads ``PREFECT_API_URL`` where
Prefect
does, without importing Prefect: its answer against Prefect's own, configuration by
configuration (each in a new process, in a folder of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zhuoji.flows.runtime.prefect_config import configured_api_url

URL = "http://10.1.2.3:4200/api"


def _prefects_reading(cwd: Path, env: dict[str, str]) -> str | None:
    code = "from prefect.settings import PREFECT_API_URL; print(PREFECT_API_URL.value() or '')"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    return done.stdout.strip() or None


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(home), HOME=str(home.parent))
    return env


CASES: dict[str, tuple[dict[str, str], dict[str, str], str | None]] = {
    # name: (files to write, relative to the folder or ~ ("home/..."), extra env, expected)
    "nothing": ({}, {}, None),
    "environment": ({}, {"PREFECT_API_URL": URL}, URL),
    "empty environment wins": (
        {"prefect.toml": f'[api]\nurl = "{URL}"\n'}, {"PREFECT_API_URL": ""}, None
    ),
    ".env": ({".env": f"# local\nPREFECT_API_URL={URL}\n"}, {}, URL),
    "prefect.toml": ({"prefect.toml": f'[api]\nurl = "{URL}"\n'}, {}, URL),
    "pyproject.toml": ({"pyproject.toml": f'[tool.prefect.api]\nurl = "{URL}"\n'}, {}, URL),
    "profile set by prefect config set": (
        {"home/profiles.toml": f'active = "work"\n[profiles.work]\nPREFECT_API_URL = "{URL}"\n'},
        {},
        URL,
    ),
    "profile chosen by PREFECT_PROFILE": (
        {
            "home/profiles.toml": (
                f'active = "ephemeral"\n[profiles.ephemeral]\n[profiles.work]\n'
                f'PREFECT_API_URL = "{URL}"\n'
            )
        },
        {"PREFECT_PROFILE": "work"},
        URL,
    ),
    "active profile missing from the file": (
        {"home/profiles.toml": 'active = "local"\n[profiles.other]\n'}, {}, None
    ),
    "profiles file elsewhere": (
        {"elsewhere.toml": f'active = "w"\n[profiles.w]\nPREFECT_API_URL = "{URL}"\n'},
        {"PREFECT_PROFILES_PATH": "elsewhere.toml"},
        URL,
    ),
    "environment before profile": (
        {"home/profiles.toml": 'active = "w"\n[profiles.w]\nPREFECT_API_URL = "http://x/api"\n'},
        {"PREFECT_API_URL": URL},
        URL,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_configured_api_url_is_prefects_own(name: str, tmp_path: Path) -> None:
    files, extra, expected = CASES[name]
    here = tmp_path / "run"
    home = tmp_path / "home"
    here.mkdir()
    home.mkdir()
    for rel, text in files.items():
        target = tmp_path / rel if rel.startswith("home/") else here / rel
        target.write_text(text, encoding="utf-8")
    env = _clean_env(home)
    for key, value in extra.items():
        env[key] = str(here / value) if key == "PREFECT_PROFILES_PATH" else value
    assert configured_api_url(here, env) == expected
    assert _prefects_reading(here, env) == expected
