"""Shared test fixtures: the Hypothesis profile and the PostgreSQL switch.

The published vectors the tests read live in tests/vectors/, each folder with a README
naming its source and licence, so a fresh clone runs every test on its own.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import settings

# CI runs the same examples every time (HYPOTHESIS_PROFILE=ci, set by .ci/run), so a
# landing is judged on the code, not on the draw; `make test` on a developer's machine
# keeps exploring new examples. No deadline in CI: an example that took 253 ms once on a
# loaded machine (0.25 ms when Hypothesis ran it again) failed the run as "flaky", and a
# timing is a benchmark's to judge (bench/), not a test's.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
# The same holds for a developer's `make test-fast` beside other work: no deadline there either.
settings.register_profile("default", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every event the suite's services finish is analysed in the background. Judged from the
# 12th card (the service's default) a hand of the bots' random play costs seconds of CPU,
# and dozens of events end in a run; the services here judge from the 24th (tens of
# milliseconds a hand). What the analysis finds from the 12th is tested in
# tests/audit/analysis; the service's tests compare its document with `fairplay analyse
# --from-card` on the same setting (tests/api/test_analysis.py).
os.environ.setdefault("FAIRPLAY_ANALYSIS_FROM_CARD", "24")


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist declares this mark when it is loaded; declared here too for `-p no:xdist`.
    config.addinivalue_line(
        "markers",
        "xdist_group(name): the tests of a module that share its fixtures run in one worker"
        " (make test: pytest-xdist, --dist loadgroup)",
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Quit the Chromiums the browser tests of this process lent each other."""
    browsers = sys.modules.get("tests.api.test_play_browser")
    if browsers is not None:
        browsers.close_pool()


FIRST = (
    "tests/js/test_verify_certificate_robin.py",
    "tests/api/test_event_browser.py",
    "tests/api/test_people_browser.py",
    "tests/api/test_pages_a11y.py",
    "tests/js/test_verify_certificate_rulings.py",
    "tests/api/test_fuzz.py",
    "tests/api/test_db_outage.py",
    "tests/api/test_claims_browser.py",
    "tests/api/test_clock_browser.py",
    "tests/api/test_robin_browser.py",
    "tests/api/test_tournament_crash.py",
    "tests/api/test_tournaments.py",
    "tests/js/test_verify_certificate.py",
    "tests/api/test_play_browser.py",
    "tests/api/test_db_outage_clients.py",
    "tests/api/test_tournament_pages.py",
)
"""The modules whose tests (or whose shared fixtures) take longest, run first: pytest-xdist
hands work out in the order collected, and one of these started last would hold the whole
suite up while the other workers stand idle (docs/performance.md)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first (:data:`FIRST`), the rest in their order. Tests marked
    ``long`` run only when chosen (``pytest -m long``), so that ``make test`` stays bounded
    while ``slow`` tests still run in it."""
    rank = {path: n for n, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(FIRST)))
    if "long" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a long fuzz run: select it with `pytest -m long`")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


def postgres_url() -> str:
    return os.environ.get("FAIRPLAY_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def pg_url() -> str:
    """A reachable PostgreSQL URL, or a skip (a failure when FAIRPLAY_TEST_POSTGRES=required)."""
    mode = os.environ.get("FAIRPLAY_TEST_POSTGRES", "auto")
    if mode == "off":
        pytest.skip("PostgreSQL tests disabled (FAIRPLAY_TEST_POSTGRES=off)")
    url = postgres_url()
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("select 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        if mode == "required":
            pytest.fail(f"PostgreSQL required but not reachable at {url}: {exc}")
        pytest.skip(f"PostgreSQL not reachable at {url} ({exc}); set FAIRPLAY_TEST_POSTGRES_URL")
    return url
