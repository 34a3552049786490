# zhuoji: two commands for a new user
#   make demo   ingest the bundled sample logs into zhuoji.duckdb and print the leaderboard
#   make test   run the whole test suite (creates the environment on first use)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/zhuoji ingest data/sample --db zhuoji.duckdb
	$(BIN)/zhuoji report leaderboard --db zhuoji.duckdb

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict rules parsers
	$(BIN)/pytest -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict rules parsers

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
