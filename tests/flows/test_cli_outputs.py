"""``zhuoji audit FILE --hand N --html OUT`` and ``zhuoji convert SRC TARGET`` destroy
nothing the user names: the log they read, a warehouse, a named pipe, a device, a folder,
an existing file without ``--force`` (flows/cli/outputs.py, shared with ``zhuoji export``)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import duckdb
import pytest

from tests.flows.test_cli_conventions import ROOT, zhuoji

LOG = ROOT / "data" / "sample" / "t7-20261101-0001.json"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _html(log: Path, out: Path | str, *more: str) -> tuple[int, str, str]:
    done = zhuoji("audit", str(log), "--hand", "1", "--html", str(out), *more, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".partial-"))


@pytest.fixture
def log(tmp_path: Path) -> Path:
    copy = tmp_path / "g.json"
    shutil.copyfile(LOG, copy)
    return copy


def test_audit_html_never_replaces_the_log_it_reads(log: Path, tmp_path: Path) -> None:
    before = _sha(log)
    for spelt in (log, tmp_path / "." / "g.json", tmp_path / "hard.json"):
        if spelt.name == "hard.json":
            os.link(log, spelt)
        for force in ((), ("--force",)):
            code, out, err = _html(log, spelt, *force)
            assert code == 2, (out, err)
            assert "is the log file" in err and "which audit --html reads" in err, err
            assert "give another --html" in err
    assert _sha(log) == before
    assert _partials(tmp_path) == []


def test_audit_html_keeps_an_existing_file_unless_force(log: Path, tmp_path: Path) -> None:
    warehouse = tmp_path / "w.duckdb"
    duckdb.connect(str(warehouse)).close()
    before = _sha(warehouse)
    code, _, err = _html(log, warehouse)
    assert code == 2 and f"{warehouse} exists; give --force to replace it" in err
    assert _sha(warehouse) == before
    page = tmp_path / "page.html"
    page.write_text("keep me")
    code, _, err = _html(log, page)
    assert code == 2 and "exists; give --force to replace it" in err
    assert page.read_text() == "keep me"
    code, out, err = _html(log, page, "--force")
    assert code == 0, (out, err)
    assert "wrote" in out and page.read_text(encoding="utf-8").startswith("<!")
    assert _partials(tmp_path) == []


def test_audit_html_refuses_a_fifo_at_once(log: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    # No reader ever opens the pipe: a command that opened it would block until the
    # timeout (a generous bound, not a wait) and the run would fail.
    code, _, err = _html(log, fifo, "--force")
    assert code == 2
    assert "is a named pipe (FIFO); audit --html writes only to a regular file" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_audit_html_refuses_a_device_and_a_folder(log: Path, tmp_path: Path) -> None:
    folder = tmp_path / "folder.html"
    folder.mkdir()
    code, _, err = _html(log, folder, "--force")
    assert code == 2 and "is a folder; audit --html writes only to a regular file" in err
    device = tmp_path / "null.html"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root")
    code, _, err = _html(log, device, "--force")
    assert code == 2 and "is a character device; audit --html writes only" in err
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert os.lstat(device).st_rdev == os.makedev(1, 7)
    assert _partials(tmp_path) == []


def test_audit_html_follows_a_link_and_keeps_it(log: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real.name)
    code, _, err = _html(log, link)
    assert code == 2 and "exists; give --force" in err and real.read_text() == "old"
    code, out, err = _html(log, link, "--force")
    assert code == 0, (out, err)
    assert link.is_symlink() and os.readlink(link) == "real.html"
    assert "replay-data" in real.read_text(encoding="utf-8")
    assert _partials(tmp_path) == []


def test_convert_keeps_an_existing_target_unless_force(log: Path, tmp_path: Path) -> None:
    target = tmp_path / "x.jsonl"
    target.write_text("keep me")
    done = zhuoji("convert", str(log), str(target))
    assert done.returncode == 2 and "x.jsonl exists; give --force to replace it" in done.stderr
    assert target.read_text() == "keep me"
    done = zhuoji("convert", str(log), str(target), "--force")
    assert done.returncode == 0, done.stderr
    assert "wrote 1 game" in done.stdout and target.read_text() != "keep me"
    before = _sha(log)
    done = zhuoji("convert", str(log), str(log), "--force")
    assert done.returncode == 2 and "which convert reads" in done.stderr
    assert _sha(log) == before
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = zhuoji("convert", str(log), str(fifo), "--force", timeout=120)
    assert done.returncode == 2 and "is a named pipe (FIFO)" in done.stderr
    assert _partials(tmp_path) == []
