"""``zhuoji dashboard`` and ``zhuoji serve`` (the live server's rebuild on change; a malformed
path answered 400 and a client that hangs up told in one line, over real sockets)."""

from __future__ import annotations

import os
import queue
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import zhuoji.flows.cli.dashboard  # noqa: F401  (registers dashboard and serve on the app)
from tests.flows.conftest import Corpus
from tests.flows.test_dashboard import make_warehouse
from zhuoji.flows.cli.dashboard import make_server
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.live import LiveDashboard
from zhuoji.flows.dashboard.words import page_slug


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_warehouse(tmp_path_factory.mktemp("cli-wh"), corpus)


def test_dashboard_command(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(app, ["dashboard", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and (out / "index.html").as_uri() in result.output
    assert (out / "leaderboard.html").exists()
    capped = tmp_path / "capped"
    result = CliRunner().invoke(
        app, ["dashboard", "--db", str(db), "--out", str(capped), "--hand-pages", "1"]
    )
    assert result.exit_code == 0, result.output
    assert len(list((capped / "hands").iterdir())) == 2


def test_dashboard_command_errors(db: Path, tmp_path: Path) -> None:
    missing = CliRunner().invoke(
        app, ["dashboard", "--db", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "s")]
    )
    assert missing.exit_code == 2
    assert "does not exist; create it with `zhuoji ingest`" in missing.output
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "a.txt").write_text("keep")
    foreign = CliRunner().invoke(
        app, ["dashboard", "--db", str(db), "--out", str(tmp_path / "mine")]
    )
    assert foreign.exit_code == 2 and "not written by `zhuoji dashboard`" in foreign.output


@pytest.fixture
def served(db: Path, tmp_path: Path) -> Iterator[tuple[str, LiveDashboard, Path]]:
    copy = tmp_path / "live.duckdb"
    copy.write_bytes(db.read_bytes())
    live = LiveDashboard(copy, tmp_path / "served")
    server = make_server(live, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", live, copy
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def test_serve_rebuilds_when_the_warehouse_changes(
    served: tuple[str, LiveDashboard, Path],
) -> None:
    url, live, db = served
    status, html = _get(f"{url}/index.html")
    assert status == 200 and "Overview" in html
    assert _get(f"{url}/leaderboard.html")[0] == 200
    assert live.builds == 1  # unchanged warehouse: no rebuild
    assert _get(f"{url}/players/{page_slug('newcomer')}.html")[0] == 404
    con = duckdb.connect(str(db))
    ((game,),) = con.execute("SELECT game_id FROM games ORDER BY ALL LIMIT 1").fetchall()
    con.execute("UPDATE players SET player_id = 'newcomer' WHERE game_id = ? AND seat = 0", [game])
    con.execute(
        "UPDATE hand_players SET player_id = 'newcomer' WHERE game_id = ? AND seat = 0", [game]
    )
    con.close()
    status, html = _get(f"{url}/players/{page_slug('newcomer')}.html")
    assert status == 200 and "newcomer" in html
    assert live.builds == 2


def test_serve_reports_a_missing_warehouse(tmp_path: Path) -> None:
    live = LiveDashboard(tmp_path / "none.duckdb", tmp_path / "served")
    server = make_server(live, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        status, body = _get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert status == 503 and "does not exist" in body


def test_build_reports_each_group_of_pages(db: Path, tmp_path: Path) -> None:
    """Progress is told once per group of pages, in order, once its pages are written
    (with worker processes and without), and the groups add up to every page."""
    from zhuoji.flows.dashboard.site import build_dashboard

    for workers in (1, 2):
        told: list[tuple[str, int, float]] = []
        out = tmp_path / f"site-{workers}"

        def progress(
            group: str, pages: int, seconds: float, out: Path = out,
            told: list[tuple[str, int, float]] = told,
        ) -> None:
            told.append((group, pages, seconds))
            assert len(list(out.rglob("*.html"))) >= sum(n for _, n, _ in told)

        summary = build_dashboard(db, out, workers=workers, progress=progress)
        assert [g for g, _, _ in told] == [
            "overview", "leaderboard and patterns", "players", "disputed and illegal moves",
            "hands",
        ]
        assert sum(n for _, n, _ in told) == summary.pages
        assert [s for _, _, s in told] == sorted(s for _, _, s in told)


def _dashboard_on_a_terminal(db: Path, out: Path, *extra: str) -> tuple[int, str]:
    """``zhuoji dashboard`` with its standard error on a real pseudo-terminal."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("zhuoji")), "dashboard", "--db", str(db),
             "--out", str(out), "--workers", "1", *extra],
            stdout=subprocess.DEVNULL, stderr=follower, timeout=300, check=False,
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal is closed: all read
                break
            if not data:
                break
            chunks.append(data)
        return done.returncode, b"".join(chunks).decode()
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)


def test_dashboard_shows_progress_on_a_terminal(db: Path, tmp_path: Path) -> None:
    code, err = _dashboard_on_a_terminal(db, tmp_path / "a")
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("dashboard: ")]
    assert [line.split(":")[1].strip() for line in lines] == [
        "overview", "leaderboard and patterns", "players", "disputed and illegal moves", "hands",
    ], err
    assert all(" written (" in line for line in lines)
    code, err = _dashboard_on_a_terminal(db, tmp_path / "b", "--quiet")
    assert code == 0 and "dashboard: " not in err, err
    # not a terminal (CliRunner's captured stream): no progress either
    result = CliRunner().invoke(app, ["dashboard", "--db", str(db), "--out", str(tmp_path / "c")])
    assert result.exit_code == 0 and "dashboard: " not in result.output


# --- zhuoji serve over real sockets -----------------------------------------------------------


@dataclass
class Serving:
    proc: subprocess.Popen[str]
    port: int
    folder: Path  # the folder it serves (under the TMPDIR it was given)
    stderr: Path

    def errors(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def serving(db: Path, tmp_path: Path) -> Iterator[Serving]:
    """``zhuoji serve --port 0`` in a process of its own, its standard error in a file."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    stderr = tmp_path / "serve.err"
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("zhuoji")), "serve", "--db", str(db),
             "--port", "0", "--workers", "1"],
            stdout=subprocess.PIPE, stderr=err, text=True,
            env={**os.environ, "TMPDIR": str(temp)},
        )
    try:
        out = proc.stdout
        assert out is not None
        said: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: said.put(out.readline()), daemon=True).start()
        line = said.get(timeout=300)  # the dashboard is built first: then this line
        found = re.search(r"at http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, stderr.read_text())
        (folder,) = temp.glob("zhuoji-serve-*")
        yield Serving(proc, int(found.group(1)), folder, stderr)
    finally:
        proc.terminate()  # SIGTERM stops it as Ctrl-C does
        proc.wait(timeout=60)
        assert proc.stdout is not None
        proc.stdout.close()


def _request(port: int, target: bytes) -> bytes:
    """A GET over a socket of its own (HTTP/1.0: the server closes it); the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(b"GET " + target + b" HTTP/1.0\r\nHost: x\r\n\r\n")
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/"), f"no answer but {answer[:200]!r}"
    return int(answer.split(b" ", 2)[1])


def test_serve_answers_a_malformed_path_400_without_a_traceback(serving: Serving) -> None:
    for target in (b"/%00", b"/index.html%00.png", b"/%ed%a0%80", b"/%ff", b"/%c0%af",
                   b"/%e2%80%ae", b"/%1b%5b2J", b"/x\x00y"):
        answer = _request(serving.port, target)
        assert _status(answer) == 400, (target, answer[:200])
    # the rest as before: a page, a page in a folder, a missing page, a way out refused
    assert _status(_request(serving.port, b"/index.html")) == 200
    assert _status(_request(serving.port, b"/zh/leaderboard.html")) == 200
    assert _status(_request(serving.port, b"/nothing.html")) == 404
    answer = _request(serving.port, b"/../../../../etc/passwd")
    assert _status(answer) == 404 and b"root:" not in answer
    assert _status(_request(serving.port, b"/%2e%2e/%2e%2e/etc/passwd")) == 404
    serving.proc.terminate()
    serving.proc.wait(timeout=60)
    assert serving.errors() == ""


def test_serve_says_one_line_when_a_client_hangs_up(serving: Serving) -> None:
    """A client that asks for a file larger than every socket buffer, reads its first
    bytes and resets the connection: the server's next write fails, and it says so in one
    line, then serves on."""
    big = serving.folder / "big.bin"
    with big.open("wb") as f:
        f.truncate(64 << 20)
    s = socket.create_connection(("127.0.0.1", serving.port), timeout=60)
    try:
        s.sendall(b"GET /big.bin HTTP/1.0\r\nHost: x\r\n\r\n")
        assert s.recv(16).startswith(b"HTTP/1.0 200")  # the server is sending it
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    finally:
        s.close()  # with linger 0: a reset
    deadline = time.monotonic() + 60
    while "hung up" not in serving.errors():
        assert time.monotonic() < deadline, serving.errors()
        assert serving.proc.poll() is None, serving.errors()
        time.sleep(0.05)
    assert _status(_request(serving.port, b"/index.html")) == 200
    serving.proc.terminate()
    serving.proc.wait(timeout=60)
    lines = serving.errors().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("serve: the client at 127.0.0.1:"), lines
    assert "hung up before GET /big.bin was answered" in lines[0], lines


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _dashboard(db: Path, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["dashboard", "--db", str(db), "--out", str(out), "--workers", "1"]
    )
    return result.exit_code, result.output


def test_a_dashboard_never_deletes_the_warehouse_or_a_users_file(
    db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dsh"
    assert _dashboard(db, out)[0] == 0
    inside = out / "inside.duckdb"
    inside.write_bytes(db.read_bytes())
    notes = out / "notes.txt"
    notes.write_text("mine")
    kept = {p: _sha256(p) for p in (inside, notes, out / "index.html")}
    link = tmp_path / "link.duckdb"
    link.symlink_to(inside)
    out_link = tmp_path / "dsh-link"
    out_link.symlink_to(out)
    for warehouse_path, folder in ((inside, out), (link, out), (inside, out_link)):
        code, output = _dashboard(warehouse_path, folder)
        assert code == 2, output
        assert output.count("\n") == 1 and f"--out {folder} holds the warehouse" in output
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for warehouse_path, folder in ((loop, tmp_path / "new"), (db, loop)):  # a link loop
        code, output = _dashboard(warehouse_path, folder)
        assert code == 2 and output.count("\n") == 1 and "unexpected" not in output, output
    code, output = _dashboard(inside, inside)  # --out is the warehouse itself
    assert code == 2 and "holds the warehouse" in output
    # the warehouse elsewhere: a file the dashboard did not write is named, not deleted
    code, output = _dashboard(db, out)
    assert code == 2 and "holds inside.duckdb, which `zhuoji dashboard` did not write" in output
    assert {p: _sha256(p) for p in kept} == kept
    inside.unlink()
    code, output = _dashboard(db, out)
    assert code == 2 and "holds notes.txt, which" in output and notes.read_text() == "mine"
    notes.unlink()
    # a page that is a symbolic link or another name of a file is not written through
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (out / "index.html").unlink()
    (out / "index.html").symlink_to(victim)
    code, output = _dashboard(db, out)
    assert code == 2 and "index.html (not a regular file)" in output
    (out / "index.html").unlink()
    (out / "leaderboard.html").unlink()
    os.link(victim, out / "leaderboard.html")
    code, output = _dashboard(db, out)
    assert code == 2 and "leaderboard.html (it has another hard link)" in output
    assert victim.read_text() == "keep"
    (out / "leaderboard.html").unlink()
    # what a build wrote is replaced as before
    assert _dashboard(db, out)[0] == 0
    assert (out / "index.html").is_file() and (out / "leaderboard.html").is_file()
