#!/usr/bin/env bash
# The installed package, as a user gets it: build the sdist and, from it, the wheel; install
# the wheel (not editable) into a fresh virtualenv; from an empty folder elsewhere, ingest
# data/sample, run a report and build the dashboard. Fails on the first step that fails.
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

echo "== contents: every sql file, preset and dashboard asset of the checkout"
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
    + ["zhuoji/" + p.relative_to(root).as_posix() for p in (root / "rules" / "presets").glob("*.toml")]
    + ["zhuoji/rules/glossary.toml"]
    + ["zhuoji/" + p.relative_to(root).as_posix() for p in (root / "flows" / "dashboard" / "assets").iterdir()]
)
# One import name: nothing but zhuoji/ and the distribution's metadata at the wheel's top.
tops = sorted({n.split("/")[0] for n in in_wheel if not n.split("/")[0].endswith(".dist-info")})
stray = [t for t in tops if t != "zhuoji" and not t.endswith(".so")]
if stray:
    sys.exit(f"the wheel installs more than the zhuoji package at the top: {stray}")
need_sdist = [p.relative_to(root).as_posix() for p in (root / "sql").rglob("*.sql")] + [
    "LICENSE", "setup.py", "pyproject.toml", "rules/engine.py", "zhuoji/__init__.py"
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

echo "== zhuoji ingest, report, dashboard from $PWD"
"$Z" ingest "$ROOT/data/sample" --db sample.duckdb --quiet
"$Z" report --list | tee reports.txt
grep -q "^leaderboard" reports.txt || { echo "error: report --list lacks leaderboard" >&2; exit 1; }
"$Z" report leaderboard --db sample.duckdb
"$Z" dashboard --db sample.duckdb --out dashboard
test -s dashboard/index.html || { echo "error: no dashboard/index.html" >&2; exit 1; }
test -s dashboard/zh/index.html || { echo "error: no dashboard/zh/index.html" >&2; exit 1; }
"$Z" audit "$ROOT/data/sample/t7-20261101-0001.json" --hand 1 --lang zh | tee audit-zh.txt
grep -q "说明：" audit-zh.txt || { echo "error: the Chinese audit lacks its explanation" >&2; exit 1; }

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
