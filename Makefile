# The two commands that matter: `make run` and `make test`. Each creates .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench fuzz lint clean

# setup.py and the C source are prerequisites: an edit to the native fast path rebuilds it.
$(STAMP): pyproject.toml setup.py $(wildcard audit/native/csrc/*.c audit/native/csrc/*.h audit/native/ddsrc/*.c)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The service on the embedded SQLite default (./data), port 8000, with a demo table of
# bots on a fresh database.
run: $(STAMP)
	$(VENV)/bin/fairplay serve --host 127.0.0.1 --port 8000 --data-dir data --demo

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m pip install --quiet pymerkle
	$(PY) bench/run_all.py

# The long fuzz runs (minutes; `make test` runs them bounded): schemathesis over the
# OpenAPI document and the property over every route, each on SQLite and PostgreSQL.
fuzz: $(STAMP)
	$(PY) -m pytest -q -m long tests/api

lint: $(STAMP)
	$(VENV)/bin/ruff check audit shuffle api tests bench
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache audit/native/_fastaudit.*.so audit/native/_ddsolve.*.so
