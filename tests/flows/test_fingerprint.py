"""The warehouse built from ``data/sample`` is the one fingerprinted in
``tests/sample_fingerprint.json``, table by table and report by report (tests/fingerprint.py).

When the sample data or the engine's results change on purpose, regenerate the file with
``.venv/bin/python -m tests.fingerprint --update``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from tests import fingerprint as fp


@pytest.fixture(scope="module")
def warehouse_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fingerprint")
    (folder / "staging").mkdir()
    db = folder / "warehouse.duckdb"
    fp.build(db, folder / "staging")
    return db


def _digests(db: Path) -> dict[str, str]:
    return {
        name: f"{fp._rows(data)} {hashlib.sha256(data).hexdigest()}"
        for name, data in sorted(fp.export(db).items())
    }


def test_the_sample_warehouse_matches_its_fingerprint(warehouse_db: Path, tmp_path: Path) -> None:
    committed = fp.committed()
    built = _digests(warehouse_db)
    assert fp.differences(committed, built) == [], (
        "the warehouse of data/sample changed; if on purpose, run "
        "`.venv/bin/python -m tests.fingerprint --update` and review the tables it names"
    )
    tables = {name for name in committed if name.startswith("table:")}
    assert {"table:hands", "table:ledger", "table:violations", "table:hand_players"} <= tables
    assert any(name.startswith("report:player_history?player=") for name in committed)


def _changed_copy(src: Path, dst: Path, sql: str) -> Path:
    dst.write_bytes(src.read_bytes())
    con = duckdb.connect(str(dst))
    try:
        changed = con.execute(sql).fetchall()
    finally:
        con.close()
    assert changed and changed[0][0] == 1, sql
    return dst


@pytest.mark.parametrize(
    ("table", "sql"),
    [
        ("table:hand_players",
         "UPDATE hand_players SET delta = delta + 1 WHERE rowid = (SELECT min(rowid) "
         "FROM hand_players WHERE delta <> 0)"),
        ("table:violations",
         "UPDATE violations SET code = 'illegal_kong' WHERE rowid = (SELECT min(rowid) "
         "FROM violations WHERE code <> 'illegal_kong')"),
    ],
    ids=["one-delta", "one-finding"],
)
def test_one_changed_value_changes_the_fingerprint(
    warehouse_db: Path, tmp_path: Path, table: str, sql: str
) -> None:
    changed = _changed_copy(warehouse_db, tmp_path / "changed.duckdb", f"{sql} RETURNING 1")
    built = _digests(changed)
    diff = fp.differences(fp.committed(), built)
    assert diff, "a changed value left every digest as it was"
    assert any(line.startswith(f"{table}:") for line in diff), diff


def test_the_left_out_columns_are_only_clocks_and_versions(warehouse_db: Path,
                                                           tmp_path: Path) -> None:
    """Rewriting the engine version and the run times changes no digest."""
    changed = tmp_path / "versions.duckdb"
    changed.write_bytes(warehouse_db.read_bytes())
    con = duckdb.connect(str(changed))
    try:
        con.execute("UPDATE games SET engine_version = 'other'")
        con.execute("UPDATE files SET engine_version = 'other'")
        con.execute("UPDATE ingest_runs SET engine_version = 'other', "
                    "started_at = TIMESTAMP '2030-01-01', finished_at = TIMESTAMP '2030-01-02'")
    finally:
        con.close()
    assert fp.differences(fp.committed(), _digests(changed)) == []
