"""``zhuoji dashboard`` and ``zhuoji serve`` (the live server's rebuild on change)."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import flows.cli_dashboard  # noqa: F401  (registers dashboard and serve on the app)
from flows.app import app
from flows.cli_dashboard import make_server
from flows.dashboard import LiveDashboard, page_slug
from tests.flows.conftest import Corpus
from tests.flows.test_dashboard import make_warehouse


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
    from flows.dashboard import build_dashboard

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
