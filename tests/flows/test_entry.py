"""The console script's entry point: light to import, and the whole CLI when run."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_HEAVY = (
    "zhuoji.flows.cli.app", "zhuoji.flows.cli.ingest", "zhuoji.flows.ingest.prefect_run",
    "typer", "rich", "prefect", "duckdb", "polars",
)


def test_the_console_script_runs_the_entry_module() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["zhuoji"] == "zhuoji.flows.cli.main:main"


def test_importing_the_entry_module_imports_no_command() -> None:
    # What a spawned ingest worker runs again before it takes a task.
    probe = f"import sys, zhuoji.flows.cli.main; print([m for m in {_HEAVY!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_entry_point_runs_the_cli() -> None:
    run = (
        "import sys; from zhuoji.flows.cli.main import main; "
        "sys.argv = ['zhuoji', '--help']; main()"
    )
    out = subprocess.run(
        [sys.executable, "-c", run], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    for command in ("ingest", "report", "sql", "audit"):
        assert command in out.stdout


def test_an_ingest_ends_without_teardown_with_its_output_and_status(tmp_path: Path) -> None:
    # The ingest asks to skip the interpreter's teardown: what it wrote and its exit
    # status are kept, on success (0) and on an error (2).
    run = "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    log = ROOT / "data" / "sample" / "t3-20261102.ndjson.gz"
    done = subprocess.run(
        [sys.executable, "-c", run, "ingest", str(log), "--db", str(tmp_path / "w.duckdb"),
         "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"files_loaded":1' in done.stdout and done.stdout.endswith("}\n")
    missing = subprocess.run(
        [sys.executable, "-c", run, "ingest", str(tmp_path / "none"), "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert missing.returncode == 2
    assert missing.stdout.startswith('{"error"') and missing.stdout.endswith("}\n")
