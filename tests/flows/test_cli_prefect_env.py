"""``quiet_prefect()``: Prefect's settings for one command, set in the environment while it
runs (the processes it starts inherit them) and taken back when it ends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zhuoji.flows.cli.main import app
from zhuoji.flows.cli.prefect_env import quiet_prefect

KEYS = (
    "PREFECT_SERVER_ANALYTICS_ENABLED",
    "DO_NOT_TRACK",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS",
    "PREFECT_LOGGING_LEVEL",
    "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL",
)


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in (*KEYS, "ZHUOJI_DEBUG"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize("debug", [False, True])
def test_the_settings_hold_while_the_command_runs_and_are_taken_back(
    bare_env: None, monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    if debug:
        monkeypatch.setenv("ZHUOJI_DEBUG", "1")
    with quiet_prefect():
        inside = {key: os.environ.get(key) for key in KEYS}
    assert inside == {
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",  # the client's telemetry (and its notice) off too
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
        # a failed run is one line of ours, unless --debug asks for Prefect's records
        "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING" if debug else "CRITICAL",
    }
    assert not [key for key in KEYS if key in os.environ]


def test_a_users_values_win_and_stay(bare_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "INFO")
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "300")
    with quiet_prefect():
        assert os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] == "300"
        # Prefect's own logs were asked for: the console is not silenced.
        assert "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL" not in os.environ
        assert os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert os.environ["PREFECT_LOGGING_LEVEL"] == "INFO"
    assert os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] == "300"
    assert "PREFECT_SERVER_ANALYTICS_ENABLED" not in os.environ


def test_a_value_the_command_changed_is_left_as_it_is(bare_env: None) -> None:
    try:
        with quiet_prefect():
            os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "true"
        assert os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] == "true"
        assert "PREFECT_LOGGING_LEVEL" not in os.environ
    finally:
        os.environ.pop("PREFECT_SERVER_ANALYTICS_ENABLED", None)


def test_a_failing_block_takes_the_settings_back_too(bare_env: None) -> None:
    with pytest.raises(RuntimeError), quiet_prefect():
        assert os.environ["PREFECT_LOGGING_LEVEL"] == "WARNING"
        raise RuntimeError("boom")
    assert not [key for key in KEYS if key in os.environ]


def test_a_command_run_in_process_leaves_the_environment_as_it_found_it(
    bare_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Prefect reads PREFECT_HOME once per process, so whether a server runs for the home
    # it reads depends on the tests before this one: either answer is fine, the
    # environment afterwards is what is checked.
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    before = dict(os.environ)
    result = CliRunner().invoke(app, ["server", "status"])
    assert result.exit_code in (0, 1), result.output
    assert "prefect home" in result.output
    assert dict(os.environ) == before
