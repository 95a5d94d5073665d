"""The suite's grouping holds: under ``--dist loadgroup`` (``make test``) the tests marked
``xdist_group`` share one worker, so that a module's fixtures (a service, a played event,
four browsers) are built once. pytest 9.2 with pytest-xdist 3.8 lost the group and built
them once for each worker that ran one of the module's tests."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.xdist_group("grouping")

WORKERS: set[str] = set()


@pytest.mark.parametrize("n", range(4))
def test_a_groups_tests_run_in_one_worker(request: pytest.FixtureRequest, n: int) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run with --dist loadgroup")
    assert request.node.nodeid.endswith("@grouping"), request.node.nodeid
    WORKERS.add(os.environ["PYTEST_XDIST_WORKER"])
    assert len(WORKERS) == 1, WORKERS
