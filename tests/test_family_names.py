"""Families are named only by data: no file of the engine, the readers, the flows or the
warehouse's SQL (``rules/``, ``parsers/``, ``flows/``, ``sql/``) names a family, except the
files of that family's own folder ``rules/families/<name>/`` (its code, its presets, its
words). The core names each mechanic for what it does, never for the region that plays it.

Every file of those folders is read (tracked or new, not ignored), its path and its text,
case-insensitively, as ``grep -rli`` reads them: a symbolic link is not followed (the
dashboard's copy of ``docs/rules/legality.md`` is the page it links to, read with the
docs); the families are the folders of ``rules/families/`` that hold a ``family.py``. A
failure lists every file that names a family outside its folder.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("rules", "parsers", "flows", "sql")
FAMILIES = ROOT / "rules" / "families"
REGIONS = ("sichuan", "xuezhan")
"""Names of the families to come (Sichuan 血战到底): the core names their mechanics for what
they do (play after a win, the exchange, the declared suit), the families' folders only may
say them."""


def family_names() -> list[str]:
    """The families, by their folders."""
    return sorted(d.name for d in FAMILIES.iterdir() if (d / "family.py").is_file())


def scanned_files(root: Path = ROOT) -> list[str]:
    """Every file of the scanned folders, tracked or new (not ignored), as git names it;
    no symbolic link."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", *SCANNED],
        capture_output=True, cwd=root, check=True)
    return sorted({p for p in listed.stdout.decode().split("\0")
                   if p and (root / p).is_file() and not (root / p).is_symlink()})


def naming(word: str, root: Path = ROOT) -> list[str]:
    """The scanned files whose path or text names ``word`` (any case)."""
    found = []
    for path in scanned_files(root):
        data = (root / path).read_bytes()
        if word in path.lower() or word.encode() in data.lower():
            found.append(path)
    return found


def outside(word: str, own: tuple[str, ...], root: Path = ROOT) -> list[str]:
    """The files naming ``word`` outside the folders ``own``."""
    return [p for p in naming(word, root) if not p.startswith(own)]


def test_the_families_are_found() -> None:
    assert {"changsha", "guizhou"} <= set(family_names())
    assert len(scanned_files()) > 100


@pytest.mark.parametrize("family", ["changsha", "guizhou"])
def test_a_family_is_named_only_in_its_folder(family: str) -> None:
    assert family in family_names()
    offenders = outside(family, (f"rules/families/{family}/",))
    assert not offenders, (
        f"{len(offenders)} file(s) outside rules/families/{family}/ name the family "
        f"{family!r}:\n  " + "\n  ".join(offenders))


@pytest.mark.parametrize("region", REGIONS)
def test_the_core_names_no_region(region: str) -> None:
    offenders = outside(region, ("rules/families/",))
    assert not offenders, (
        f"{len(offenders)} file(s) outside the families' folders name {region!r}:\n  "
        + "\n  ".join(offenders))


def test_the_check_finds_a_name_outside_its_folder(tmp_path: Path) -> None:
    """The check itself, on a checkout of its own: a file naming a family outside its
    folder is found (in its text, in any case, or in its path, tracked or new), one inside
    it and one outside the scanned folders are not."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    files = {
        "flows/a.py": "# the ChangSha family\n",
        "sql/reports/guizhou_only.sql": "SELECT 1\n",
        "rules/families/changsha/family.py": "name = 'changsha'\n",
        "rules/families/guizhou/settings.py": "other = 'CHANGSHA'\n",
        "docs/changsha.md": "changsha\n",
        "parsers/clean.py": "x = 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "flows" / "docs_link.md").symlink_to("../docs/changsha.md")
    assert outside("changsha", ("rules/families/changsha/",), tmp_path) == [
        "flows/a.py", "rules/families/guizhou/settings.py"]
    assert outside("guizhou", ("rules/families/guizhou/",), tmp_path) == [
        "sql/reports/guizhou_only.sql"]
