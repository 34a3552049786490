"""One definition of *disputed hands* everywhere: the hands whose recorded result differs from
the recomputation (``hands.disputed``), never the settlement findings that make them so (a
hand may have several). The ingest's summary (text and ``--json``), its ``ingest_runs`` row
and the dashboard's overview (headline and last runs) all give
``SELECT count(*) FILTER (WHERE disputed) FROM hands``; the findings are given beside them
as *settlement findings*.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from tests.flows.conftest import Corpus
from zhuoji.flows.cli.main import app
from zhuoji.flows.dashboard.site import build_dashboard

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
ENV = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "NO_COLOR": "1", "COLUMNS": "200"}
runner = CliRunner()


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _counted(db: Path) -> tuple[int, int]:
    """The warehouse's disputed hands and settlement findings, from the tables."""
    ((hands, findings, settlement),) = _rows(
        db,
        "SELECT count(*) FILTER (WHERE disputed), sum(mismatches)::BIGINT, "
        "(SELECT count(*) FROM violations WHERE settlement) FROM hands",
    )
    assert findings == settlement
    return int(str(hands)), int(str(findings))


def _summary_count(text: str, what: str) -> int:
    """The count on the summary table's row ``what``."""
    (line,) = [line for line in text.splitlines() if re.search(rf"\b{what}\b", line)]
    return int(re.findall(r"\d[\d,]*", line)[-1].replace(",", ""))


def test_ingest_json_counts_disputed_hands_not_findings(corpus: Corpus, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    result = runner.invoke(
        app, ["ingest", str(corpus.root), "--db", str(db), "--json", "--workers", "2"], env=ENV
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    disputed, findings = _counted(db)
    assert disputed < findings  # the corpus has a hand with two settlement findings
    assert summary["disputed_hands"] == disputed
    assert summary["settlement_findings"] == findings
    assert summary["mismatches"] == findings  # the older key keeps its number
    assert _rows(db, "SELECT disputed_hands, mismatches FROM ingest_runs") == [
        (disputed, findings)]


def test_make_demo_prints_the_disputed_hands(tmp_path: Path) -> None:
    """`make demo`'s ingest of data/sample, as a user runs it: 6 disputed hands, 10 findings."""
    db = tmp_path / "zhuoji.duckdb"
    env = {**os.environ, **ENV}
    env.pop("PREFECT_API_URL", None)
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys; from zhuoji.flows.cli.main import main; sys.argv[0] = 'zhuoji'; main()",
         "ingest", str(SAMPLE), "--db", str(db), "--quiet"],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    disputed, findings = _counted(db)
    assert (disputed, findings) == (6, 10)
    assert _summary_count(done.stdout, "disputed hands") == disputed
    assert _summary_count(done.stdout, "settlement findings") == findings
    assert "mismatches" not in done.stdout
    zh = runner.invoke(app, ["ingest", str(SAMPLE), "--db", str(tmp_path / "zh.duckdb"),
                             "--quiet", "--lang", "zh"], env=ENV)
    assert zh.exit_code == 0, zh.output
    assert _summary_count(zh.stdout, "争议牌局") == disputed
    assert _summary_count(zh.stdout, "结算问题") == findings


def _last_runs(html: str) -> dict[int, tuple[str, str]]:
    """The overview's last-runs table: run id -> (disputed hands, settlement findings)."""
    section = html.split("Settlement findings", 1)[1].split("</table>", 1)[0]
    out: dict[int, tuple[str, str]] = {}
    for row in re.findall(r"<tr><td class=\"n\">(\d+)</td>(.*?)</tr>", section):
        cells = re.findall(r'<td class="n">([\d,–]+)</td>', row[1])
        out[int(row[0])] = (cells[-2], cells[-1])
    return out


def test_the_dashboard_overview_agrees(corpus: Corpus, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    result = runner.invoke(app, ["ingest", str(corpus.root), "--db", str(db), "--quiet"],
                           env=ENV)
    assert result.exit_code == 0, result.output
    disputed, findings = _counted(db)
    build_dashboard(db, tmp_path / "site", workers=1)
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert re.search(rf'id="kpi-disputed">{disputed}<', html)
    assert _last_runs(html) == {1: (str(disputed), str(findings))}
    assert "Disputed hands" in html and "Settlement findings" in html


def _make_old(db: Path) -> None:
    """``db`` as the zhuoji before schema 022 left it: no ``ingest_runs.disputed_hands``."""
    con = duckdb.connect(str(db))
    try:
        con.execute("ALTER TABLE ingest_runs DROP COLUMN disputed_hands")
        con.execute("DELETE FROM schema_version WHERE version >= 22")
    finally:
        con.close()


def test_an_older_warehouse_gets_the_column_and_keeps_its_runs(
    corpus: Corpus, tmp_path: Path
) -> None:
    """A run recorded before disputed hands were counted has none (NULL, shown as a dash),
    its findings stay as they were; the next run counts its disputed hands."""
    db = tmp_path / "w.duckdb"
    clean = corpus.root / "streams"  # no disputed hand: those are in the files beside
    assert runner.invoke(app, ["ingest", str(clean), "--db", str(db), "--quiet"],
                         env=ENV).exit_code == 0
    _make_old(db)
    before = _rows(db, "SELECT run_id, hands, mismatches FROM ingest_runs")
    # a report (a read-only open) brings it up to date first
    listed = runner.invoke(app, ["sql", "--db", str(db), "-f", "json",
                                 "SELECT run_id, hands, mismatches, disputed_hands "
                                 "FROM ingest_runs"], env=ENV)
    assert listed.exit_code == 0, listed.output
    assert [tuple(r.values()) for r in json.loads(listed.stdout)] == [
        (*before[0], None)]
    assert runner.invoke(app, ["ingest", str(corpus.root), "--db", str(db), "--quiet"],
                         env=ENV).exit_code == 0
    disputed, _ = _counted(db)
    ((run_2,),) = _rows(db, "SELECT disputed_hands FROM ingest_runs WHERE run_id = 2")
    assert run_2 == disputed > 0  # the disputed hands are all in the files run 2 loaded
    build_dashboard(db, tmp_path / "site", workers=1)
    runs = _last_runs((tmp_path / "site" / "index.html").read_text(encoding="utf-8"))
    assert runs[1][0] == "–" and runs[2][0] == str(disputed)
