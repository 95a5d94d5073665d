# The two commands that matter: `make run` and `make test`. Each creates .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-fast bench fuzz lint clean

# setup.py and the C source are prerequisites: an edit to the native fast path rebuilds it.
$(STAMP): pyproject.toml setup.py $(wildcard audit/native/csrc/*.c audit/native/csrc/*.h audit/native/ddsrc/*.c)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The browser's third-party code (docs/browser.md, "Third-party code"): `npm ci` installs
# the packages pinned in package-lock.json, esbuild bundles @noble/curves' BLS12-381 into
# the one module the service serves from /static/vendor/ (built, not committed). Without npm,
# or when npm cannot reach its registry, the service still runs and the certificate page
# leaves drand's BLS signature to the command; the tests then skip what needs the bundle,
# and fail under FAIRPLAY_TEST_NODE=required (CI).
VENDOR := api/static/vendor/bls.js
$(VENDOR): package.json package-lock.json vendor/bls.entry.js
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "note: npm is not installed: $@ is not built (the browser leaves drand's BLS signature to the command)" >&2; \
	elif ! (npm ci --no-audit --no-fund --loglevel=error && npm run --silent build); then \
		echo "note: npm could not build $@ (the browser leaves drand's BLS signature to the command)" >&2; \
	fi

# The service on the embedded SQLite default (./data), port 8000, with a demo table of
# bots on a fresh database.
run: $(STAMP) $(VENDOR)
	$(VENV)/bin/fairplay serve --host 127.0.0.1 --port 8000 --data-dir data --demo

# Test processes (pytest-xdist): twice the cores, because a test spends about half of its
# time waiting on a socket, a subprocess or PostgreSQL (docs/performance.md). `--dist
# loadgroup` hands tests out one at a time, except those marked `xdist_group(name)`, which
# share a worker. `make test TEST_JOBS=0` runs the suite in one process.
TEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

# Python writes its bytecode (__pycache__, pytest's rewritten tests among it) while the tests
# run, even where the environment says not to (PYTHONDONTWRITEBYTECODE: an empty value is
# unset): otherwise every worker and every `python -m audit.cli` the tests start compiles
# the project again, about 0.6 s of CPU for each process that imports the service
# (docs/performance.md).
test test-fast fuzz: export PYTHONDONTWRITEBYTECODE :=

test: $(STAMP) $(VENDOR)
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup

# The edit-test loop, in well under a minute: everything but the HTTP service's tests and
# the browser's verifier (tests/api, tests/js: real servers, Chromium, Node) and the other
# Chromium tests.
test-fast: $(STAMP)
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup -m "not browser" --ignore=tests/api --ignore=tests/js

bench: $(STAMP) $(VENDOR)
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
	rm -rf $(VENV) build *.egg-info node_modules api/static/vendor .pytest_cache .mypy_cache audit/native/_fastaudit.*.so audit/native/_ddsolve.*.so
