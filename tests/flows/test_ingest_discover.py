"""Finding log files on the command line's paths and hashing them."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import zhuoji.flows.cli.ingest  # noqa: F401  (registers ingest on the app)
from zhuoji.flows.cli.main import app
from zhuoji.flows.ingest.discover import FileDigest, InputPathError, generate_log_paths, hash_file
from zhuoji.flows.ingest.planning import plan_files
from zhuoji.flows.warehouse.rows import FileStatus
from zhuoji.flows.warehouse.store import KnownFile
from zhuoji.rules.version import ENGINE_VERSION


def _touch(path: Path, data: bytes = b"{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in (
        "a.json",
        "b.jsonl",
        "sub/c.ndjson",
        "sub/deeper/d.json.gz",
        "sub/e.jsonl.gz",
        "sub/f.ndjson.gz",
        "notes.txt",
        "sub/readme.md",
        "sub/g.JSON",
    ):
        _touch(tmp_path / name)
    return tmp_path


def test_folders_are_searched_recursively_for_log_names_only(tree: Path) -> None:
    found = [p.relative_to(tree).as_posix() for p in generate_log_paths([tree])]
    assert found == [
        "a.json",
        "b.jsonl",
        "sub/c.ndjson",
        "sub/deeper/d.json.gz",
        "sub/e.jsonl.gz",
        "sub/f.ndjson.gz",
        "sub/g.JSON",
    ]


def test_globs_files_and_overlaps_give_each_file_once(tree: Path) -> None:
    args = [
        str(tree / "sub" / "*.gz"),
        str(tree / "a.json"),
        str(tree / "sub"),
        str(tree / "**" / "*.json"),
    ]
    found = [p.relative_to(tree).as_posix() for p in generate_log_paths(args)]
    assert found == sorted(set(found))
    assert "a.json" in found and "sub/e.jsonl.gz" in found and "sub/deeper/d.json.gz" in found
    assert "notes.txt" not in found


def test_a_file_named_explicitly_is_kept_whatever_its_name(tree: Path) -> None:
    found = list(generate_log_paths([tree / "notes.txt"]))
    assert found == [(tree / "notes.txt").resolve()]


@pytest.mark.parametrize("arg", ["missing.json", "missing-dir", "*.nothing"])
def test_a_path_naming_nothing_is_an_error(tmp_path: Path, arg: str) -> None:
    with pytest.raises(InputPathError, match=r"no (such file|file matches)"):
        list(generate_log_paths([str(tmp_path / arg)]))


def test_hash_is_sha256_of_the_stored_bytes(tmp_path: Path) -> None:
    data = gzip.compress(b'{"a": 1}\n' * 1000, mtime=0)
    path = _touch(tmp_path / "x.jsonl.gz", data)
    digest = hash_file(path)
    assert digest.sha256 == hashlib.sha256(data).hexdigest()
    assert digest.size == len(data)
    assert digest.path == path.resolve().as_posix()


def test_plan_skips_only_files_seen_with_the_same_hash(tree: Path) -> None:
    everything = plan_files([str(tree)], {})
    assert everything.seen == 7 and everything.skipped == 0 and len(everything.to_process) == 7
    a = hash_file(tree / "a.json")
    b = hash_file(tree / "b.jsonl")
    known = {  # b changed since it was loaded
        d.path: KnownFile(d.path, sha, d.size, FileStatus.LOADED, ENGINE_VERSION)
        for d, sha in ((a, a.sha256 or ""), (b, "0" * 64))
    }
    hashed: list[str] = []

    def hasher(path: str) -> FileDigest:
        hashed.append(path)
        return hash_file(path)

    plan = plan_files([str(tree)], known, hasher)
    assert plan.seen == 7 and plan.skipped == 1
    assert [d.path for d in plan.to_process] == [
        p for p in (d.path for d in everything.to_process) if p != a.path
    ]
    assert hashed == [a.path, b.path], "only the files seen before are hashed"
    unhashed = [d.path for d in plan.to_process if d.sha256 is None]
    assert unhashed == [d.path for d in plan.to_process if d.path != b.path]
    assert all(d.size == Path(d.path).stat().st_size for d in plan.to_process)


def test_the_ingest_command_refuses_a_path_naming_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    result = CliRunner().invoke(app, ["ingest", str(missing), "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 2
    assert f"{missing}: no such file or folder" in result.output
    assert not (tmp_path / "w.duckdb").exists()
