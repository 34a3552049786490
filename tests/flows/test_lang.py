"""``--lang zh|en``: Chinese throughout (issue 23 item 1).

* a Chinese audit of every preset's simulated hands (Guizhou's and Changsha's), clean and
  faulted (the fault injector makes every kind of fault, so every violation code's message
  is met; Changsha's dice and birds also by edited hands, for their other message forms),
  holds no English sentence, and every message form met has a template in the glossary;
* ``--lang`` is an option of every command; the locale decides without it; a bad value
  is a usage error;
* validate, the ingest summary, the report headers and the dashboard speak Chinese; the
  dashboard is built in both languages with a switch on every page (checked in a real
  headless browser too).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from scripts.screenshot import BrowserError, HeadlessChromium, find_chromium
from tests.flows.conftest import Corpus
from tests.flows.test_dashboard import make_warehouse
from tests.flows.test_faults import CASES, _made
from zhuoji.flows.audit.files import generate_file_audits
from zhuoji.flows.cli.audit_text import format_hand
from zhuoji.flows.cli.lang import locale_lang
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.site import build_dashboard
from zhuoji.flows.simulation.faults import FaultKind, expected_codes, is_file_fault
from zhuoji.flows.simulation.writer import FAULTS_MANIFEST, SimulationRequest, run_simulation
from zhuoji.rules.audit import audit_hand
from zhuoji.rules.bots import bots_of
from zhuoji.rules.events import Bird, Discard, HandRecord, Roll
from zhuoji.rules.glossary import glossary, translate_or_none
from zhuoji.rules.presets import load_preset, preset_names
from zhuoji.rules.violations import ViolationCode

runner = CliRunner()
PRESETS = (*preset_names("guizhou"), *preset_names("changsha"))
CLEAN_ENV = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every preset's simulated games, a third of the hands faulted (file damage too)."""
    out = tmp_path_factory.mktemp("lang-logs")
    run_simulation(SimulationRequest(rulesets=PRESETS, games=4, seed=23, faults=0.35), out)
    return out


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name != FAULTS_MANIFEST)


_ENGLISH = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?:[ ,;:'()-]+[A-Za-z]+)+(?![A-Za-z0-9])")
"""Two or more English words in a row: an untranslated sentence or phrase."""


def _english_left(line: str, allowed: set[str]) -> list[str]:
    """The English word runs of a Chinese line once the names that stay as they are
    (file paths, game ids, ruleset and player names, code names, settings keys) are
    taken out."""
    for name in sorted(allowed, key=len, reverse=True):
        line = line.replace(name, " ")
    line = re.sub(r"[a-z]+(?:_[a-z0-9]+)+|[a-z_]+\.[a-z_.]+", " ", line)  # identifiers
    return _ENGLISH.findall(line)


@cache
def _all_codes_of_fault_kinds() -> frozenset[str]:
    return frozenset(
        code for kind in FaultKind if not is_file_fault(kind) for code in expected_codes(kind)
    )


def test_a_chinese_audit_of_every_preset_has_no_english_sentence(logs: Path) -> None:
    codes: set[str] = set()
    rulesets: set[str] = set()
    missing: list[str] = []
    leaks: list[str] = []
    hands = 0
    for path in _files(logs):
        for item in generate_file_audits(path):
            if not hasattr(item, "hands") or item.error is not None:  # a damaged file
                continue
            assert item.ruleset is not None
            rulesets.add(item.ruleset.name)
            allowed = {str(path), item.game.game_id, item.ruleset.name,
                       *(n for n in item.names if n), *(p.id for p in item.game.players)}
            for hand in item.hands:
                hands += 1
                for v in hand.findings:
                    codes.add(v.code.value)
                    if translate_or_none(v.message) is None:
                        missing.append(v.message)
                if hand.settlement is not None:
                    for line in (*hand.settlement.explanation,
                                 *(i.detail for i in hand.settlement.items)):
                        if translate_or_none(line) is None:
                            missing.append(line)
                for line in format_hand(item, hand, full=True, lang="zh"):
                    leaks.extend(f"{run!r} in {line!r}" for run in _english_left(line, allowed))
    assert rulesets == set(PRESETS)
    assert hands > 400
    assert missing == []
    assert leaks == []
    assert len(codes) >= 12


def _assert_in_chinese(record: HandRecord, preset: str) -> tuple[str, ...]:
    """The hand's findings, the explanation and the ledger translate, with no English
    left; the findings' codes."""
    audit = audit_hand(record, load_preset(preset))
    lines = [f.message for f in audit.findings]
    if audit.settlement is not None:
        lines += [*audit.settlement.explanation, *(i.detail for i in audit.settlement.items)]
    for line in lines:
        chinese = translate_or_none(line)
        assert chinese is not None, line
        assert _english_left(chinese, set()) == [], chinese
    return tuple(str(f.code) for f in audit.findings)


@pytest.mark.parametrize(("kind", "name"), CASES, ids=[f"{n}-{k}" for k, n in CASES])
def test_every_fault_kinds_messages_in_chinese(kind: FaultKind, name: str) -> None:
    """Each kind of fault the injector makes, on a hand of each family chosen for it (as
    the fault tests do, Changsha's illegal_chow, no_258_pair, bad_small_win, bad_seabed,
    locked_hand, missed_win, bad_roll and bad_bird among them): its findings, the
    explanation and the ledger translate, with no English left."""
    made = next(_made(kind, name), None)
    assert made is not None, f"no {name} hand took a {kind}"
    _, record, fault = made
    codes = _assert_in_chinese(record, name)
    assert codes == fault.codes and codes[0] == expected_codes(kind)[0]


def _wall_edits(record: HandRecord) -> Iterator[tuple[str, HandRecord]]:
    """A Changsha hand's dice and birds made wrong in more ways than the fault kinds make
    them: the birds moved on a tile or left out, the dice thrown twice or with no kong,
    each with the code it gives."""
    events = record.events
    for i, ev in enumerate(events):
        if isinstance(ev, Bird):
            birds = Bird(tuple(t.next_in_suit() for t in ev.tiles))
            yield "bad_bird", replace(record, events=(*events[:i], birds, *events[i + 1:]))
            yield "bad_bird", replace(record, events=(*events[:i], *events[i + 1:]))
        elif isinstance(ev, Roll):
            yield "bad_roll", replace(record, events=(*events[:i + 1], ev, *events[i + 1:]))
        elif isinstance(ev, Discard) and i < 40:
            roll = Roll(ev.seat, (3, 4))
            yield "bad_roll", replace(record, events=(*events[:i + 1], roll, *events[i + 1:]))


def test_the_dice_and_birds_findings_in_chinese() -> None:
    """bad_roll and bad_bird on Changsha hands of each preset edited otherwise than the
    fault kinds edit them: their messages translate with no English left."""
    made: dict[str, set[str]] = {}
    for name in preset_names("changsha"):
        rs = load_preset(name)
        for hand in bots_of(rs).simulate_game(rs, seed=77, game_no=0, hands=8).hands:
            for code, record in _wall_edits(hand.record):
                codes = _assert_in_chinese(record, name)
                assert codes[:1] == (code,), (code, codes)
                made.setdefault(code, set()).add(name)
    assert made == {code: set(preset_names("changsha")) for code in ("bad_bird", "bad_roll")}


MECHANIC_CODES = {
    # flowers (rules/claims.py): only the test families play them
    "bad_flower", "flower_not_shown",
    # the carried score (rules/continuing.py): the test families only (换三张, 定缺 and 血战
    # are the Sichuan family's fault kinds)
    "carry_mismatch", "hand_sequence",
}
"""The codes of the core's optional mechanics (rules/mechanics.py) that no preset's family
plays: only the test families' tables give them, so no fault kind makes them. (The
mechanics Changsha plays are not here: their fault kinds make illegal_chow, bad_seabed,
locked_hand, bad_roll and bad_bird.)"""


def test_the_fault_kinds_cover_every_violation_code() -> None:
    """Every code but false_hand (a deal the simulator never makes), event_not_in_family
    (an event of another family's mechanic) and the test families' mechanics' codes is
    made by a fault kind above; the first two's message forms are checked here."""
    assert {c.value for c in ViolationCode} - _all_codes_of_fault_kinds() == {
        "false_hand", "event_not_in_family", *MECHANIC_CODES
    }
    family = ("seat 1 chows 123m from seat 0: the guizhou family (ruleset 'guiyang') has no "
              "chow event")
    assert translate_or_none(family) == (
        "座位1吃座位0的123万：guizhou 玩法（规则 'guiyang'）没有 chow 事件"
    )
    for how, chinese in (("too many", "多牌"), ("too few", "少牌")):
        message = (f"seat 2 (a non-dealer) is dealt 14 tiles, 13 expected: {how} (相公, "
                   "多牌少牌): it can neither be ready nor win, and pays under "
                   "penalties.false_hand")
        done = translate_or_none(message)
        assert done is not None and chinese in done and "座位2（闲家）" in done


def test_the_english_audit_is_as_before(logs: Path) -> None:
    """``lang="en"`` is the default: the same lines as without it."""
    path = _files(logs)[0]
    for item in generate_file_audits(path):
        if hasattr(item, "hands") and item.error is None:
            for hand in item.hands:
                assert format_hand(item, hand, full=True) == format_hand(
                    item, hand, full=True, lang="en"
                )
                break
            break


def test_the_leak_check_finds_english() -> None:
    assert _english_left("座位1 drew a tile", set()) == ["drew a tile"]
    assert _english_left("座位1 invalid_win 诈胡 'guiyang' p1001", {"'guiyang'"}) == []


# --- the option on every command ----------------------------------------------------------


def _leaves() -> Iterator[tuple[str, object]]:
    root = get_command(app)

    def walk(command: object, path: str) -> Iterator[tuple[str, object]]:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                yield from walk(sub, f"{path} {name}")
        else:
            yield path, command

    yield from walk(root, "zhuoji")


def test_every_command_takes_lang() -> None:
    leaves = list(_leaves())
    assert len(leaves) >= 18
    for path, command in leaves:
        options = [o for p in command.params for o in getattr(p, "opts", ())]  # type: ignore[attr-defined]
        assert "--lang" in options, path
    root = get_command(app)
    assert "--lang" in [o for p in root.params for o in getattr(p, "opts", ())]


@pytest.mark.parametrize("args", [["audit", "x.json"], ["rules", "list"], ["schema"],
                                  ["validate", "x"], ["--lang", "de", "schema"]])
def test_a_bad_language_is_a_usage_error(args: list[str]) -> None:
    if args[0] != "--lang":
        args = [*args, "--lang", "fr"]
    result = runner.invoke(app, args, env=CLEAN_ENV)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--lang" in lines[0]


def test_the_locale_decides() -> None:
    assert locale_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert locale_lang({"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_GB"}) == "zh"
    assert locale_lang({}) == "en"


def _validate(corpus_file: Path, env: dict[str, str], *extra: str) -> str:
    result = runner.invoke(app, ["validate", str(corpus_file), *extra], env={**CLEAN_ENV, **env})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_validate_speaks_the_locale_and_lang_overrides_it(corpus: Corpus) -> None:
    one = Path(sorted(corpus.games)[0])
    assert "通过" in _validate(one, {"LANG": "zh_CN.UTF-8"})
    assert "valid" in _validate(one, {"LANG": "en_US.UTF-8"})
    assert "通过" in _validate(one, {"LANG": "en_US.UTF-8"}, "--lang", "zh")
    assert "valid" in _validate(one, {"LANG": "zh_CN.UTF-8"}, "--lang", "en")
    assert "通过" in _validate(one, {"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US"})
    # the root command's option holds for the command, and does not outlive the run
    result = runner.invoke(app, ["--lang", "zh", "validate", str(one)], env=CLEAN_ENV)
    assert "通过" in result.stdout
    assert "valid" in _validate(one, {})


def test_validate_errors_in_chinese(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "zhuoji-log/1", "game_id": "g", "hands": [', encoding="utf-8")
    result = runner.invoke(app, ["validate", str(bad), str(tmp_path / "none.json"),
                                 "--lang", "zh"], env=CLEAN_ENV)
    assert result.exit_code == 2
    assert "JSON 提前结束：文件被截断" in result.stdout
    assert "没有这个文件或文件夹" in result.stderr
    assert "个文件" in result.stdout


def test_audit_in_chinese_text_and_json(logs: Path) -> None:
    path = next(p for p in _files(logs) if p.suffix == ".json")
    text = runner.invoke(app, ["audit", str(path), "--hand", "1", "--lang", "zh"],
                         env=CLEAN_ENV)
    assert text.exit_code in (0, 1), text.output
    assert "得失分：" in text.stdout and "审计结果：" in text.stdout
    assert "个文件" in text.stdout.splitlines()[-1]
    js = runner.invoke(app, ["audit", str(path), "--json", "--lang", "zh"], env=CLEAN_ENV)
    assert '"detail_zh"' in js.stdout
    en = runner.invoke(app, ["audit", str(path), "--json", "--lang", "en"], env=CLEAN_ENV)
    assert '"detail_zh"' not in en.stdout and '"message_zh"' not in en.stdout


# --- ingest, report, dashboard -------------------------------------------------------------


@pytest.fixture(scope="module")
def db(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_warehouse(tmp_path_factory.mktemp("lang-wh"), corpus)


def test_report_headers_in_chinese(db: Path) -> None:
    result = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "--lang", "zh"],
                           env={**CLEAN_ENV, "COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "净分" in result.stdout and "玩家编号" in result.stdout and "共 " in result.stdout
    csv = runner.invoke(app, ["report", "leaderboard", "--db", str(db), "-f", "csv",
                              "--lang", "zh"], env=CLEAN_ENV)
    assert csv.stdout.startswith("family,rank,player_id,")  # machine formats keep the names


def test_every_report_column_has_chinese(db: Path) -> None:
    import duckdb

    from zhuoji.flows.warehouse.reports import report_names, report_parameters, run_report

    columns = glossary().terms["column"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        for name in report_names():
            if name.startswith("dashboard_") or report_parameters(name):
                continue
            for column in run_report(con, name, {}).columns:
                assert column in columns, f"{name}.{column}"
    finally:
        con.close()


def test_ingest_summary_in_chinese(corpus: Corpus, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ingest", sorted(corpus.games)[0], "--db", str(tmp_path / "z.duckdb"),
              "--lang", "zh"], env={**CLEAN_ENV, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for word in ("发现文件", "已载入", "手数", "执行器", "用时"):
        assert word in result.stdout


@pytest.fixture(scope="module")
def site(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lang-site") / "site"
    build_dashboard(db, out, workers=1, lang="zh")
    return out


def _pages(site: Path) -> list[str]:
    return sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*.html")
        if not p.relative_to(site).as_posix().startswith("en/")
    )


def test_the_dashboard_is_built_in_both_languages(site: Path) -> None:
    root = _pages(site)
    assert len(root) > 20
    for page in root:
        twin = site / "en" / page
        assert twin.exists(), page
        zh_html = (site / page).read_text(encoding="utf-8")
        en_html = twin.read_text(encoding="utf-8")
        assert '<html lang="zh">' in zh_html and '<html lang="en">' in en_html
        up = "../" * page.count("/")
        assert f'id="lang-switch" href="{up}en/{page}"' in zh_html, page
        assert f'id="lang-switch" href="{"../" * (page.count("/") + 1)}{page}"' in en_html
    overview = (site / "index.html").read_text(encoding="utf-8")
    assert "概览" in overview and "Overview" not in overview
    assert "Overview" in (site / "en" / "index.html").read_text(encoding="utf-8")


def test_the_chinese_pages_hold_no_english_sentence(site: Path) -> None:
    """Outside code, scripts and the quoted rules documentation (docs/rules/legality.md
    stays English), no two English words in a row on a Chinese page."""
    leaks = []
    for page in _pages(site):
        html = (site / page).read_text(encoding="utf-8")
        html = re.sub(r"<(script|style|code|dd)\b.*?</\1>", " ", html, flags=re.S)
        words = re.sub(r"<[^>]+>", " ", html)
        words = re.sub(r"&[a-z#0-9]+;", " ", words)
        words = re.sub(r"[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)+", " ", words)  # ids, ruleset names
        for run in _english_left(words, {"zhuoji"}):
            leaks.append(f"{page}: {run}")
    assert sorted(set(leaks)) == []


def test_the_dashboard_bytes_are_stable(db: Path, site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_dashboard(db, again, workers=2, lang="zh")
    for page in sorted(p.relative_to(site) for p in site.rglob("*.html")):
        assert (again / page).read_bytes() == (site / page).read_bytes(), page


def test_dashboard_command_in_chinese(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = runner.invoke(app, ["dashboard", "--db", str(db), "--out", str(out), "--lang", "zh",
                                 "--workers", "1"], env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("已写入")
    assert (out / "en" / "index.html").exists()
    assert '<html lang="zh">' in (out / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    chromium = find_chromium()
    if chromium is None:
        from scripts.screenshot import install_chromium

        install_chromium()
        chromium = find_chromium()
        if chromium is None:
            pytest.skip("no Chromium on this machine and it could not be installed")
    try:
        with HeadlessChromium(chromium) as b:
            yield b
    except BrowserError as exc:
        pytest.fail(f"{chromium} could not be driven: {exc}")


def test_the_switch_in_a_browser(site: Path, browser: HeadlessChromium) -> None:
    """The Chinese page loads without an error, its switch leads to the English twin and
    back, on the overview and on a hand page (whose replay runs in both)."""
    hand = next(p for p in _pages(site) if p.startswith("hands/"))
    switch = "document.getElementById('lang-switch')"
    for page in ("index.html", hand):
        load = browser.open((site / page).as_uri())
        assert not load.errors, load.errors
        assert browser.evaluate("document.documentElement.lang") == "zh"
        assert browser.evaluate(f"{switch}.textContent") == "English"
        load = browser.open(browser.evaluate(f"{switch}.href"))  # the link, as resolved
        assert not load.errors, load.errors
        assert browser.evaluate("document.documentElement.lang") == "en"
        assert browser.evaluate("location.href").endswith("/site/en/" + page)
        assert browser.evaluate(f"{switch}.textContent") == "中文"
        browser.open(browser.evaluate(f"{switch}.href"))
        assert browser.evaluate("location.href").endswith("/site/" + page)
        assert browser.evaluate("document.documentElement.lang") == "zh"
    browser.open((site / hand).as_uri())
    if browser.evaluate("document.getElementById('replay-next') !== null"):
        browser.evaluate("document.getElementById('replay-next').click()")
        event = browser.evaluate("document.getElementById('replay-event').textContent")
        assert re.search(r"[\u4e00-\u9fff]", event), event
