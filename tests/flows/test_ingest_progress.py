"""``zhuoji ingest``'s progress on a terminal: the bar moves as each file is done (the
workers say each file they finish, whatever chunk holds it), a local Prefect server
started for the run is announced with how long it takes, and Prefect prints no
telemetry notice."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.flows.conftest import Corpus
from zhuoji.flows.ingest.worker import HOLD_UNTIL, HOLD_WORKER_ON

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

_CI_VARIABLES = (  # Prefect's telemetry stays off where one of these is set
    "CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TRAVIS", "CIRCLECI", "BUILDKITE",
    "TF_BUILD", "CODEBUILD_BUILD_ID", "BITBUCKET_COMMIT", "TEAMCITY_VERSION", "DRONE",
    "SEMAPHORE", "APPVEYOR", "BUDDY", "CI_NAME",
)


def _zhuoji(*args: str) -> list[str]:
    return [sys.executable, "-c", "from zhuoji.flows.cli.main import run_cli; run_cli()", *args]


def _env(home: Path, api: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a run on a terminal: a Prefect home of its own, ``api`` (or no
    server configured), none of the variables that keep Prefect's telemetry off."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PREFECT_API") and k not in _CI_VARIABLES
        and k not in ("DO_NOT_TRACK", "ZHUOJI_PREFECT", "NO_COLOR")
    }
    env.update(PREFECT_HOME=str(home), TERM="xterm-256color", **extra)
    if api is not None:
        env["PREFECT_API_URL"] = api
    return env


class _Terminal:
    """A command with its standard output and error on a real pseudo-terminal (200
    columns wide); what it wrote is read as it comes, by a thread."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        try:
            self.process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env
            )
        finally:
            os.close(follower)
        self._leader = leader
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._leader, 65536)
            except OSError:  # the terminal is closed: all read
                return
            if not data:
                return
            with self._lock:
                self._chunks.append(data)

    @property
    def text(self) -> str:
        """What the command wrote so far, its escape sequences left out."""
        with self._lock:
            raw = b"".join(self._chunks)
        return _ESCAPE.sub("", raw.decode("utf-8", "replace"))

    def wait_for(self, pattern: str, seconds: float = 120) -> None:
        """Wait until the output holds ``pattern`` (a regular expression)."""
        deadline = time.monotonic() + seconds
        while not re.search(pattern, self.text):
            assert self.process.poll() is None, (
                f"the command ended ({self.process.returncode}) before {pattern!r}:\n{self.text}"
            )
            assert time.monotonic() < deadline, f"no {pattern!r} in {seconds} s:\n{self.text}"
            time.sleep(0.05)

    def finish(self, seconds: float = 300) -> int:
        code = self.process.wait(timeout=seconds)
        self._reader.join(timeout=30)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self._leader)


@contextmanager
def _on_a_terminal(args: list[str], env: dict[str, str]) -> Iterator[_Terminal]:
    terminal = _Terminal(args, env)
    try:
        yield terminal
    finally:
        terminal.close()


def _counts(text: str, total: int) -> list[int]:
    """The bar's file counts, in the order drawn."""
    return [int(m) for m in re.findall(rf"\b(\d+)/{total} files\b", text)]


# --- the bar moves per file, whatever chunk holds the file --------------------------------


@pytest.mark.parametrize(
    "runner",
    [
        pytest.param("in-process", id="local-runner"),
        pytest.param("process-pool", id="prefect-pool", marks=pytest.mark.xdist_group("prefect")),
    ],
)
def test_the_bar_counts_each_file_as_a_worker_finishes_it(
    corpus: Corpus, tmp_path: Path, request: pytest.FixtureRequest, runner: str
) -> None:
    # The run's files are one chunk (one task); its last file is held until the test
    # lets it go. Before, the bar showed 0 files until the whole chunk returned; now it
    # shows each file as it is done: every file but the held one, while it is held.
    files = sorted(corpus.files)
    total = len(files)
    gate = tmp_path / "go"
    extra = {HOLD_WORKER_ON: Path(files[-1]).name, HOLD_UNTIL: str(gate)}
    db = tmp_path / "w.duckdb"
    args = ["ingest", str(corpus.root), "--db", str(db)]
    if runner == "in-process":  # a small run, no server configured: no Prefect at all
        env = _env(tmp_path / "home", **extra)
    else:  # the flow on the local pool, one worker: one chunk of every file
        api = request.getfixturevalue("prefect_harness")
        env = _env(tmp_path / "home", api, **extra)
        args += ["--workers", "1"]
    with _on_a_terminal(_zhuoji(*args), env) as terminal:
        terminal.wait_for(rf"\b{total - 1}/{total} files\b")
        assert f"{total}/{total} files" not in terminal.text  # the held file is not done
        gate.touch()
        assert terminal.finish() == 0, terminal.text
        text = terminal.text
    counts = _counts(text, total)
    assert counts == sorted(counts) and counts[-1] == total, text
    assert f"{runner}, 1 workers" in text, text


@pytest.mark.xdist_group("prefect")
def test_the_bar_counts_each_file_a_dask_worker_finishes(
    corpus: Corpus, tmp_path: Path, prefect_harness: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same with a Dask cluster on this machine, one worker: one chunk of every file.
    from distributed import LocalCluster

    files = sorted(corpus.files)
    total = len(files)
    gate = tmp_path / "go"
    extra = {HOLD_WORKER_ON: Path(files[-1]).name, HOLD_UNTIL: str(gate)}
    for key, value in extra.items():  # the cluster's workers inherit them
        monkeypatch.setenv(key, value)
    db = tmp_path / "w.duckdb"
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        args = _zhuoji("ingest", str(corpus.root), "--db", str(db), "--dask-address", address)
        with _on_a_terminal(args, _env(tmp_path / "home", prefect_harness)) as terminal:
            terminal.wait_for(rf"\b{total - 1}/{total} files\b")
            assert f"{total}/{total} files" not in terminal.text
            gate.touch()
            assert terminal.finish() == 0, terminal.text
            text = terminal.text
    counts = _counts(text, total)
    assert counts == sorted(counts) and counts[-1] == total, text
    assert f"dask {address}, 1 workers" in text, text


def test_without_a_terminal_the_bar_is_one_line_at_the_end(
    corpus: Corpus, tmp_path: Path
) -> None:
    # Not a terminal: no bar is drawn while the run goes (Rich prints the last state
    # once), and nothing listens for the workers' reports.
    db = tmp_path / "w.duckdb"
    done = subprocess.run(
        _zhuoji("ingest", str(corpus.root), "--db", str(db)),
        env=_env(tmp_path / "home"), capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    total = len(corpus.files)
    assert _counts(done.stderr, total) == [total], done.stderr


# --- a local Prefect server started for the run is said; no telemetry notice --------------


@pytest.mark.xdist_group("prefect")
def test_a_first_run_says_it_starts_a_server_and_prints_no_telemetry_notice(
    corpus: Corpus, tmp_path: Path
) -> None:
    from prefect._internal.analytics.notice import NOTICE_TEXT

    from zhuoji.flows.runtime.prefect_server import ReusedPrefectServer

    home = tmp_path / "fresh-home"  # a first run: no Prefect home yet, no server
    db = tmp_path / "w.duckdb"
    args = _zhuoji("ingest", str(corpus.root), "--db", str(db), "--prefect")
    try:
        with _on_a_terminal(args, _env(home)) as terminal:
            terminal.wait_for(r"starting a local Prefect server \(the first start takes about "
                              r"\d+ s\) \.\.\.")
            assert terminal.finish() == 0, terminal.text
            text = terminal.text
    finally:
        ReusedPrefectServer(timeout=0, idle=1, home=home).stop_running()
    started = re.search(r"local Prefect server started in (\d+\.\d) s", text)
    assert started is not None, text
    assert text.index("starting a local Prefect server") < started.start()
    assert started.start() < text.index(f"{len(corpus.files)}/{len(corpus.files)} files")
    for line in filter(None, (line.strip() for line in NOTICE_TEXT.splitlines())):
        assert line not in text, text
    assert "Prefect collects anonymous usage data" not in text


def test_the_server_lines_are_in_the_chosen_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from zhuoji.flows.cli.ingest import announce_server_start
    from zhuoji.flows.runtime.temporary_server import ServerStart

    for lang, first, later, started in (
        ("en", "starting a local Prefect server (the first start takes about 15 s) ...",
         "starting a local Prefect server (about 8 s) ...",
         "local Prefect server started in 12.3 s"),
        ("zh", "正在启动本地 Prefect 服务器（首次启动约需 15 秒）……",
         "正在启动本地 Prefect 服务器（约需 8 秒）……",
         "本地 Prefect 服务器已启动，用时 12.3 秒"),
    ):
        say = announce_server_start(lang)  # type: ignore[arg-type]
        say(ServerStart("local", True, 15))
        say(ServerStart("local", False, 8))
        say(ServerStart("local", True, 15, 12.34, "http://127.0.0.1:1/api"))
        assert capsys.readouterr().err.splitlines() == [first, later, started]
