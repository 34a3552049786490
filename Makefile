# zhuoji: two commands for a new user
#   make demo   ingest the bundled sample logs into zhuoji.duckdb and print the leaderboard
#   make test   run the whole test suite (creates the environment on first use)
#
# The environment is an editable install whose engine is compiled in place with mypyc
# (rules/engine.py, setup.py). The compiled modules are rebuilt whenever a compiled source
# changes, so `make test` and `make demo` never run a stale build; run by hand, a stale
# build is not used either (the pure engine runs, with a warning). ZHUOJI_PURE=1 make ...
# builds and runs the pure engine. See docs/install.md.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DEPS   := $(VENV)/.deps
STAMP  := $(VENV)/.installed
ENGINE_SOURCES := $(wildcard rules/*.py rules/families/*.py rules/families/*/*.py)

.PHONY: demo test test-pure compare-engines check-wheel check-lower-bounds lint typecheck bench constraints clean

# The dependencies, pinned by constraints.txt; the package itself is installed pure here
# and built with its engine by the next rule (one mypyc build, not two).
$(DEPS): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	ZHUOJI_PURE=1 $(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(DEPS)

$(STAMP): $(DEPS) setup.py $(ENGINE_SOURCES)
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/python -c "import zhuoji.rules.engine as e; print('engine:', e.engine_kind(), '-', e.engine_reason())"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/zhuoji ingest data/sample --db zhuoji.duckdb
	$(BIN)/zhuoji report leaderboard --db zhuoji.duckdb

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict zhuoji
	$(BIN)/python -c "import zhuoji.rules.engine as e; print('engine:', e.engine_kind(), '-', e.engine_reason())"
	$(BIN)/pytest -n 2 --dist loadgroup --durations=25

# The rules tests on the pure engine (the compiled build stays installed).
test-pure: $(STAMP)
	ZHUOJI_PURE=1 $(BIN)/pytest -n 2 tests/rules

# data/sample ingested by the compiled and by the pure engine: every table byte for byte.
compare-engines: $(STAMP)
	$(BIN)/python scripts/compare_engines.py --require-compiled

# The sdist and wheel, installed (not editable) in a fresh virtualenv, run from elsewhere.
check-wheel: $(STAMP)
	scripts/check_wheel.sh $(BIN)/python

# The suite on every dependency at its declared lower bound, in a fresh .venv-lower (pure
# engine): the install about 4 minutes, then the whole suite. Not in .ci/run. See
# docs/install.md (checking the lower bounds).
check-lower-bounds:
	$(PYTHON) scripts/check_lower_bounds.py

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict zhuoji

# Rewrite constraints.txt from the current environment (after changing a dependency).
constraints: $(STAMP)
	{ sed -n "1,2p" constraints.txt; $(BIN)/pip freeze --exclude-editable --exclude zhuoji | LC_ALL=C sort; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) .venv-lower .mypy_cache .ruff_cache .pytest_cache build
	rm -f rules/*.so *__mypyc*.so rules/_engine_digest.txt
