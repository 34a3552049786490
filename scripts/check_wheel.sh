#!/usr/bin/env bash
# The installed package, as a user gets it: build the sdist and, from it, the wheel; install
# the wheel (not editable) into a fresh virtualenv; from an empty folder elsewhere, ingest
# data/sample, run a report and build the dashboard. Then the same beside PyPI's `rules`
# (django-rules) and `flows`, whose top-level packages bear the names of the repository's
# folders: installed into the same virtualenv, then uninstalled, zhuoji must keep working
# with its engine version and every file of its distribution unchanged. Fails on the first
# step that fails.
#
#   scripts/check_wheel.sh [PYTHON]      (PYTHON: the venv's python with `build`; CI: .venv/bin/python)
#
# ZHUOJI_PURE=1 builds the pure wheel; otherwise a C compiler must be present and the
# installed engine must be the compiled one.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${1:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/zhuoji-wheel.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# The temporary Prefect server of `zhuoji ingest`: its own home, and time for a slow start.
export PREFECT_HOME="$WORK/prefect-home"
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="${PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS:-120}"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
export PREFECT_LOGGING_LEVEL="${PREFECT_LOGGING_LEVEL:-WARNING}"

echo "== build the sdist and the wheel from it"
"$PY" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
ls "$WORK/dist"
wheel="$(ls "$WORK"/dist/zhuoji-*.whl)"
sdist="$(ls "$WORK"/dist/zhuoji-*.tar.gz)"

echo "== contents: every sql file, preset, family words file and dashboard asset of the checkout"
"$PY" - "$ROOT" "$wheel" "$sdist" <<'PYEOF'
import sys, tarfile, zipfile
from pathlib import Path

root, wheel, sdist = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
in_wheel = set(zipfile.ZipFile(wheel).namelist())
with tarfile.open(sdist) as tar:
    top = tar.getnames()[0].split("/")[0]
    in_sdist = {name.removeprefix(top + "/") for name in tar.getnames()}
need_wheel = (
    [f"zhuoji/flows/sql/{p.relative_to(root / 'sql').as_posix()}" for p in (root / "sql").rglob("*.sql")]
    + ["zhuoji/" + p.relative_to(root).as_posix() for p in (root / "rules" / "families").glob("*/presets/*.toml")]
    + ["zhuoji/" + p.relative_to(root).as_posix() for p in (root / "rules" / "families").glob("*/glossary.toml")]
    + ["zhuoji/rules/glossary.toml"]
    + ["zhuoji/" + p.relative_to(root).as_posix() for p in (root / "flows" / "dashboard" / "assets").iterdir()]
)
# One import name: nothing but zhuoji/ and the distribution's metadata at the wheel's top.
tops = sorted({n.split("/")[0] for n in in_wheel if not n.split("/")[0].endswith(".dist-info")})
stray = [t for t in tops if t != "zhuoji" and not t.endswith(".so")]
if stray:
    sys.exit(f"the wheel installs more than the zhuoji package at the top: {stray}")
need_sdist = [p.relative_to(root).as_posix() for p in (root / "sql").rglob("*.sql")] + [
    "LICENSE", "setup.py", "pyproject.toml", "zhuoji/rules/engine.py", "zhuoji/__init__.py"
]
missing = [f"wheel: {n}" for n in need_wheel if n not in in_wheel]
missing += [f"sdist: {n}" for n in need_sdist if n not in in_sdist]
if not any(n.endswith(".dist-info/licenses/LICENSE") for n in in_wheel):
    missing.append("wheel: the LICENSE file")
if missing:
    sys.exit("missing from the distributions:\n  " + "\n  ".join(missing))
sql = sum(n.endswith(".sql") for n in in_wheel)
print(f"wheel: {len(in_wheel)} files, {sql} .sql; sdist: {len(in_sdist)} files")
PYEOF

echo "== install the wheel into a fresh virtualenv"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --upgrade pip
"$WORK/venv/bin/pip" install --quiet -c "$ROOT/constraints.txt" "$wheel"
Z="$WORK/venv/bin/zhuoji"

mkdir "$WORK/elsewhere"
cd "$WORK/elsewhere"
kind="$("$WORK/venv/bin/python" -c 'import zhuoji.rules.engine as e; print(e.engine_kind())')"
echo "installed engine: $kind"
if [ "${ZHUOJI_PURE:-}" != 1 ] && [ "$kind" != compiled ]; then
  echo "error: the wheel's engine is $kind, expected compiled" >&2
  exit 1
fi

# The commands a user runs, from an empty folder of their own: $1 names the run.
use_zhuoji() {
  mkdir "$WORK/run-$1"
  cd "$WORK/run-$1"
  echo "== zhuoji --version, ingest, report, dashboard, audit from $PWD ($1)"
  "$Z" --version
  "$Z" ingest "$ROOT/data/sample" --db sample.duckdb --quiet
  "$Z" report --list | tee reports.txt
  grep -q "^leaderboard" reports.txt || { echo "error: report --list lacks leaderboard" >&2; exit 1; }
  "$Z" report leaderboard --db sample.duckdb
  "$Z" dashboard --db sample.duckdb --out dashboard
  test -s dashboard/index.html || { echo "error: no dashboard/index.html" >&2; exit 1; }
  test -s dashboard/zh/index.html || { echo "error: no dashboard/zh/index.html" >&2; exit 1; }
  "$Z" audit "$ROOT/data/sample/t7-20261101-0001.json" --hand 1 --lang zh | tee audit-zh.txt
  grep -q "说明：" audit-zh.txt || { echo "error: the Chinese audit lacks its explanation" >&2; exit 1; }
  cd "$WORK/elsewhere"
}

# The engine version (a change re-audits every file at the next ingest) and every file of
# the zhuoji distribution as `pip show -f` lists them, each with its SHA-256 (a file missing
# is a line "MISSING path"); compared before and after PyPI's rules and flows come and go.
engine_version() {
  "$WORK/venv/bin/python" -c "import zhuoji.rules.version as v; print(v.ENGINE_VERSION)"
}
zhuoji_files() {
  "$WORK/venv/bin/pip" show -f zhuoji | "$WORK/venv/bin/python" -c '
import hashlib, sys
from pathlib import Path
lines = sys.stdin.read().splitlines()
location = Path(next(l for l in lines if l.startswith("Location:")).split(":", 1)[1].strip())
files = lines[lines.index("Files:") + 1:]
if not files:
    sys.exit("pip show -f zhuoji lists no files")
for name in sorted(f.strip() for f in files if f.strip()):
    path = location / name
    print(hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "MISSING", name)
'
}
same_as_before() {
  local now_version
  now_version="$(engine_version)"
  if [ "$now_version" != "$version_before" ]; then
    echo "error: $1: the engine version is $now_version, was $version_before" >&2
    exit 1
  fi
  zhuoji_files >"$WORK/files-$2.txt"
  if ! diff "$WORK/files-before.txt" "$WORK/files-$2.txt" >&2; then
    echo "error: $1: zhuoji's installed files changed (above: < before, > $2)" >&2
    exit 1
  fi
  echo "$1: engine version $now_version, $(wc -l <"$WORK/files-$2.txt") files of zhuoji unchanged"
}

version_before="$(engine_version)"
zhuoji_files >"$WORK/files-before.txt"
if grep -q "^MISSING" "$WORK/files-before.txt"; then
  grep "^MISSING" "$WORK/files-before.txt" >&2
  echo "error: files pip lists for zhuoji are missing right after the install" >&2
  exit 1
fi
echo "engine version $version_before; zhuoji: $(wc -l <"$WORK/files-before.txt") files"
use_zhuoji alone

# PyPI's rules (django-rules) and flows install top-level packages named rules and flows.
# --no-deps: their files are the point (flows needs adodbapi, which builds on Windows only).
echo "== beside PyPI's rules and flows"
"$WORK/venv/bin/pip" install --quiet --no-deps rules flows
"$WORK/venv/bin/pip" show -f rules flows | grep -E "^(Name|Version|Location): |^  (rules|flows)/__init__.py$"
same_as_before "with rules and flows installed" beside
use_zhuoji beside-rules-and-flows

echo "== after uninstalling PyPI's rules and flows"
"$WORK/venv/bin/pip" uninstall --quiet --yes rules flows
same_as_before "after uninstalling rules and flows" after
use_zhuoji after-rules-and-flows

echo "== without the dask extra, --dask-address says what to install"
set +e
"$Z" ingest "$ROOT/data/sample" --db dask.duckdb --dask-address tcp://127.0.0.1:9 2>dask.err
code=$?
set -e
cat dask.err
if [ "$code" != 2 ] || ! grep -q "zhuoji\[dask\]" dask.err; then
  echo "error: expected exit 2 naming zhuoji[dask], got $code" >&2
  exit 1
fi
echo "wheel check passed ($kind engine)"
