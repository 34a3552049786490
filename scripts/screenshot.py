"""Regenerate the dashboard screenshots of ``docs/img/`` (the README and docs show them).

    .venv/bin/python scripts/screenshot.py            # a demo warehouse, built here
    .venv/bin/python scripts/screenshot.py --db FILE  # an existing warehouse

Without ``--db`` the script builds a small deterministic demo warehouse in a temporary
folder: the sample logs of ``data/sample`` plus simulated games (fixed seed), two of
whose hands are altered so that the audit has something to show (a recorded result that
disagrees with the recomputation, a chow). It renders the dashboard and photographs with
headless Chromium (Debian's ``chromium`` package): the overview page (``overview.png``),
a hand page's replay at three steps (the deal, the first kong or claim, the end with the
settlement: ``hand-replay-1.png`` to ``-3.png``; the same in Chinese, from the site's
``zh/`` twin: ``hand-replay-zh-1.png`` to ``-3.png``, with the whole Chinese hand page
``hand-zh.png`` and overview ``overview-zh.png``), and the panels of the pages whose faults
were fixed (``hands-per-day.png``, ``illegal-by-player.png``, ``disputed-list.png``,
``patterns.png``, ``player-rates.png``, ``code-rule.png``, ``hand-header.png``), and the
hand page on a phone, 390 px wide, in English and in Chinese (its first screens:
``hand-phone.png``, ``hand-phone-zh.png``).

The module also holds the small Chrome DevTools Protocol client the dashboard's browser
test uses (:class:`HeadlessChromium`): no browser download, no Node, only ``websockets``.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "img"
OVERVIEW_PNG = IMAGES / "overview.png"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--font-render-hinting=none",
)
INSTALL_HINT = "apt-get update && apt-get install -y chromium fonts-wqy-microhei"


class BrowserError(RuntimeError):
    """Chromium could not be started or did not answer as expected."""


def find_chromium() -> str | None:
    """The Chromium executable: ``$ZHUOJI_CHROMIUM``, else the first known name on PATH."""
    explicit = os.environ.get("ZHUOJI_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def install_chromium(timeout: float = 900) -> str:
    """Install Debian's chromium with apt-get (root only); returns what happened."""
    if shutil.which("apt-get") is None:
        return "apt-get is not available"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "installing needs root"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "--no-install-recommends", "chromium", "fonts-wqy-microhei"],
    ):
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{' '.join(command)} failed: {exc}"
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
            return f"{' '.join(command)} exited {done.returncode}: {tail[0]}"
    return "installed"


@dataclass(frozen=True, slots=True)
class ConsoleMessage:
    source: str  # "console", "exception" or "log"
    level: str
    text: str


@dataclass(frozen=True, slots=True)
class PageLoad:
    url: str
    messages: tuple[ConsoleMessage, ...]

    @property
    def errors(self) -> tuple[ConsoleMessage, ...]:
        return tuple(m for m in self.messages if m.level in ("error", "assert"))


class HeadlessChromium:
    """One headless Chromium driven over the DevTools protocol (one tab, flat sessions)."""

    def __init__(self, executable: str, *, width: int = 1280, height: int = 900) -> None:
        self.width = width
        self.height = height
        self._profile = tempfile.mkdtemp(prefix="zhuoji-chromium-")
        self._proc = subprocess.Popen(
            [
                executable,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._ids = itertools.count(1)
        self._events: list[dict[str, Any]] = []
        try:
            self._ws = connect(self._browser_url(), max_size=None, open_timeout=20)
            target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self._call(
                "Target.attachToTarget", {"targetId": target, "flatten": True}
            )["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self._call(f"{domain}.enable", session=True)
            self._call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=True,
            )
        except BaseException:
            self.close()
            raise

    def _browser_url(self, timeout: float = 30) -> str:
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrowserError(f"chromium exited with status {self._proc.returncode}")
            if port_file.exists():
                lines = port_file.read_text().split()
                if len(lines) >= 2:
                    return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
            time.sleep(0.05)
        raise BrowserError("chromium did not open its DevTools port")

    @property
    def ws(self) -> ClientConnection:
        return self._ws

    def _call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: bool = False,
        timeout: float = 30,
    ) -> dict[str, Any]:
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline, method)
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._events.append(reply)

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BrowserError(f"timed out waiting for {waiting_for}")
        try:
            data = self.ws.recv(timeout=left)
        except TimeoutError:
            raise BrowserError(f"timed out waiting for {waiting_for}") from None
        parsed: dict[str, Any] = json.loads(data)
        return parsed

    def _wait_event(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == method:
                    del self._events[i]  # the other events stay for the caller
                    return
            self._events.append(self._receive(deadline, method))

    def open(self, url: str, *, settle: float = 0.2) -> PageLoad:
        """Load ``url``, wait for its load event; return the console output it caused."""
        self._events.clear()
        self._call("Page.navigate", {"url": url}, session=True)
        seen: list[dict[str, Any]] = []
        self._wait_event("Page.loadEventFired")
        # Collect what arrives shortly after the load event (scripts run on DOMContentLoaded).
        deadline = time.monotonic() + settle
        self.evaluate("0")
        while time.monotonic() < deadline:
            try:
                self._events.append(self._receive(deadline, "console"))
            except BrowserError:
                break
        seen.extend(self._events)
        self._events.clear()
        return PageLoad(url=url, messages=tuple(_console_messages(seen)))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-like values)."""
        reply = self._call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression!r} threw: {reply['exceptionDetails'].get('text')}")
        return reply.get("result", {}).get("value")

    def resize(self, width: int, height: int) -> None:
        """Give the page a window of ``width`` x ``height`` pixels from now on."""
        self.width, self.height = width, height
        self._call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def screenshot(self, path: Path, *, full_page: bool = True, max_height: int = 6000) -> Path:
        """Save a PNG of the page (the whole page, up to ``max_height`` pixels)."""
        height = self.height
        if full_page:
            metrics = self._call("Page.getLayoutMetrics", session=True)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            height = min(max(int(size["height"]), self.height), max_height)
        self._call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        shot = self._call("Page.captureScreenshot", {"format": "png"}, session=True)
        self._call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def screenshot_element(self, selector: str, path: Path, *, margin: int = 8) -> Path:
        """Save a PNG of the first element matching ``selector`` (and ``margin`` pixels
        around it), wherever it is on the page."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) { return null; } const r = e.getBoundingClientRect();"
            " return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; })()"
        )
        if box is None:
            raise BrowserError(f"no element {selector!r} on the page")
        x, y, w, h = box
        clip = {
            "x": max(x - margin, 0), "y": max(y - margin, 0),
            "width": w + 2 * margin, "height": h + 2 * margin, "scale": 1,
        }
        shot = self._call(
            "Page.captureScreenshot",
            {"format": "png", "clip": clip, "captureBeyondViewport": True},
            session=True,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        ws = getattr(self, "_ws", None)
        if ws is not None:
            with suppress(Exception):
                ws.send(json.dumps({"id": next(self._ids), "method": "Browser.close"}))
            ws.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(timeout=10)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> HeadlessChromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _console_messages(events: Sequence[dict[str, Any]]) -> Iterator[ConsoleMessage]:
    for event in events:
        method = event.get("method")
        params = event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
            )
            yield ConsoleMessage("console", str(params.get("type")), text)
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            yield ConsoleMessage("exception", "error", str(text))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            text = str(entry.get("text", ""))
            if entry.get("url"):
                text += f" ({entry['url']})"
            yield ConsoleMessage("log", str(entry.get("level")), text)


# --- the demo warehouse ----------------------------------------------------------------------


def build_demo_warehouse(folder: Path) -> Path:
    """Sample logs plus simulated games (seeded) with two altered hands, ingested with
    the pipeline's plain functions (no Prefect server); returns the DuckDB file."""
    sys.path.insert(0, str(ROOT))
    from zhuoji.flows.audit.bridge import game_from_records
    from zhuoji.flows.ingest.load import load_outcomes
    from zhuoji.flows.ingest.planning import plan_files
    from zhuoji.flows.ingest.worker import process_file
    from zhuoji.flows.warehouse import store as warehouse
    from zhuoji.parsers.models import Player
    from zhuoji.parsers.write import write_games
    from zhuoji.rules.events import Chow, Discard, RecordedResult
    from zhuoji.rules.families.guizhou.simulate import generate_games as simulate_games
    from zhuoji.rules.presets import load_preset

    names = ("ana", "bo", "chen", "dai", "eli", "fan", "gu", "hua")
    chinese = ("安娜", "波", "陈", "戴", "伊莉", "范", "顾", "华")
    logs = folder / "logs"
    logs.mkdir(parents=True)
    shutil.copytree(ROOT / "data" / "sample", logs / "sample")
    ruleset = load_preset("guiyang")
    games = []
    for i, sim in enumerate(simulate_games(ruleset, seed=2026, games=48, hands_per_game=4)):
        records = list(sim.records)
        if i == 40 and records[1].result is not None:
            deltas = list(records[1].result.deltas)
            deltas[0], deltas[1] = deltas[0] + 2, deltas[1] - 2
            records[1] = dataclasses.replace(records[1], result=RecordedResult(tuple(deltas)))
        if i == 44:
            events = list(records[2].events)
            first = next(k for k, e in enumerate(events) if isinstance(e, Discard))
            d = events[first]
            assert isinstance(d, Discard)
            chow = Chow((d.seat + 1) % records[2].n_players, (d.tile,), d.seat)
            events.insert(first + 1, chow)
            records[2] = dataclasses.replace(records[2], events=tuple(events))
        seats = [(i * 3 + s) % len(names) for s in range(4)]
        games.append(
            game_from_records(
                records,
                game_id=f"demo-{i:03d}",
                players=[Player(seat=s, id=names[k], name=chinese[k]) for s, k in enumerate(seats)],
                ruleset="guiyang",
                started_at=f"2026-10-{1 + i // 2:02d}T{19 + i % 2}:30:00+08:00",
            )
        )
    for f in range(0, len(games), 8):
        write_games(logs / f"club-{f // 8:02d}.jsonl", games[f : f + 8])

    db = folder / "demo.duckdb"
    con = warehouse.open_writer(db)
    try:
        plan = plan_files([str(logs)], warehouse.known_files(con))
        run_id = warehouse.begin_run(con, started_at=_fixed_time(), workers=1, runner="demo")
        outcomes = [
            process_file(d.path, d.sha256, (folder / "stage").as_posix())
            for d in plan.to_process
        ]
        loaded = load_outcomes(con, outcomes, run_id)
        warehouse.finish_run(con, run_id, _run_counts(plan.seen, loaded))
    finally:
        con.close()
    return db


def _fixed_time() -> Any:
    from datetime import datetime

    return datetime(2026, 10, 25, 14, 0, 0)


def _run_counts(seen: int, outcomes: Sequence[Any]) -> dict[str, Any]:
    from datetime import datetime

    loaded = [o for o in outcomes if o.status.value == "loaded"]
    return {
        "finished_at": datetime(2026, 10, 25, 14, 0, 12),
        "files_seen": seen,
        "files_loaded": len(loaded),
        "files_skipped": 0,
        "files_quarantined": len(outcomes) - len(loaded),
        "games": sum(o.games for o in loaded),
        "hands": sum(o.hands for o in loaded),
        "violations": sum(o.violations for o in loaded),
        "mismatches": sum(o.mismatches for o in loaded),
        "disputed_hands": sum(o.disputed_hands for o in loaded),
    }


# The replay's steps photographed: the deal, the first kong (else claim), the end.
_STEP_OF = {
    "deal": "0",
    "kong": "(() => { const d = JSON.parse(document.getElementById('replay-data').textContent);"
    " let i = d.steps.findIndex(s => s.event && s.event.kind.startsWith('kong'));"
    " if (i < 0) { i = d.steps.findIndex(s => s.event && s.event.kind === 'pong'); }"
    " return Math.max(i, 1); })()",
    "end": "document.getElementById('replay-slider').max",
}


def _go_to_step(browser: HeadlessChromium, step: str) -> None:
    browser.evaluate(
        "(() => { const s = document.getElementById('replay-slider');"
        f" s.value = String({step}); s.dispatchEvent(new Event('input')); }})()"
    )


def _first(site: Path, pattern: str) -> Path:
    found = sorted(site.glob(pattern))
    if not found:
        raise BrowserError(f"the site has no page {pattern}")
    return found[0]


def photograph_pages(browser: HeadlessChromium, site: Path, folder: Path) -> list[Path]:
    """The docs' pictures of the hand replay and of the fixed pages; the files written."""
    written = []

    def open_page(page: Path) -> None:
        load = browser.open(page.resolve().as_uri())
        if load.errors:
            raise BrowserError(f"console errors on {page.name}: {load.errors}")

    # a disputed hand with a kong: the demo's altered hand, else the first page with one
    hands = sorted((site / "hands").glob("*.html"))
    replayed = [p for p in hands if '"kind":"kong_' in p.read_text(encoding="utf-8")]
    hand = next((p for p in replayed if p.name.startswith("demo-")), None) or (
        replayed[0] if replayed else _first(site, "hands/*.html")
    )
    open_page(hand)
    for n, step in enumerate(("deal", "kong", "end"), start=1):
        _go_to_step(browser, _STEP_OF[step])
        written.append(browser.screenshot_element("#replay-panel", folder / f"hand-replay-{n}.png"))
    written.append(browser.screenshot_element(".panel.facts", folder / "hand-header.png"))
    # the same hand in Chinese (the site's zh/ twin), at the same three steps
    chinese = site / "zh" / hand.relative_to(site)
    open_page(chinese)
    for n, step in enumerate(("deal", "kong", "end"), start=1):
        _go_to_step(browser, _STEP_OF[step])
        written.append(
            browser.screenshot_element("#replay-panel", folder / f"hand-replay-zh-{n}.png")
        )
    written.append(browser.screenshot_element("main", folder / "hand-zh.png"))
    # the same hand on a phone: its first screens (the header, the seats, the replay)
    width, height = browser.width, browser.height
    browser.resize(390, 844)
    try:
        for page, name in ((hand, "hand-phone.png"), (chinese, "hand-phone-zh.png")):
            open_page(page)
            written.append(browser.screenshot(folder / name, max_height=1700))
    finally:
        browser.resize(width, height)
    open_page(site / "zh" / "index.html")
    written.append(browser.screenshot_element("main", folder / "overview-zh.png"))
    open_page(site / "index.html")
    written.append(browser.screenshot_element("svg.days", folder / "hands-per-day.png"))
    open_page(site / "illegal.html")
    written.append(
        browser.screenshot_element("#illegal-by-player", folder / "illegal-by-player.png")
    )
    open_page(site / "disputed.html")
    written.append(browser.screenshot_element("#disputed-list", folder / "disputed-list.png"))
    open_page(site / "patterns.html")
    written.append(browser.screenshot_element("main", folder / "patterns.png"))
    open_page(_first(site, "players/*.html"))
    written.append(
        browser.screenshot_element("[id^='rates-']", folder / "player-rates.png")
    )
    open_page(_first(site, "codes/*.html"))
    written.append(browser.screenshot_element("#code-rule", folder / "code-rule.png"))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an existing warehouse (default: build a demo)")
    parser.add_argument("--out", type=Path, default=OVERVIEW_PNG, help="the overview's PNG")
    parser.add_argument(
        "--images", type=Path, default=IMAGES, help="the folder of the other pictures"
    )
    parser.add_argument("--keep", type=Path, help="also keep the rendered site in this folder")
    args = parser.parse_args(argv)
    executable = find_chromium()
    if executable is None:
        print(f"no Chromium found; install it with: {INSTALL_HINT}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from zhuoji.flows.dashboard.site import build_dashboard

    with _workspace() as folder:
        db = args.db or build_demo_warehouse(folder)
        site = args.keep or folder / "site"
        summary = build_dashboard(db, site)
        with HeadlessChromium(executable, width=1280, height=900) as browser:
            load = browser.open((site / "index.html").resolve().as_uri())
            if load.errors:
                print(f"console errors on the overview: {load.errors}", file=sys.stderr)
                return 1
            browser.screenshot(args.out, full_page=True, max_height=1800)
            try:
                others = photograph_pages(browser, site, args.images)
            except BrowserError as exc:
                print(f"could not photograph the pages: {exc}", file=sys.stderr)
                return 1
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes) from {summary.pages} pages")
    for path in others:
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


@contextmanager
def _workspace() -> Iterator[Path]:
    """A fixed temporary folder: the paths the pages show are the same on every run."""
    folder = Path(tempfile.gettempdir()) / "zhuoji-screenshot"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
