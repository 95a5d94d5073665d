"""Schemathesis over the OpenAPI document: no 5xx, and every response fits the document.

The service under test has players, a table, a finished hand and a report, so that the
generated requests meet real data as well as random ids. Examples are bounded so the
whole suite stays quick; run with ``FAIRPLAY_FUZZ_EXAMPLES=500`` for a deeper search.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is in the dev extra")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from api import create_app  # noqa: E402
from api.bot import TableBots  # noqa: E402
from api.client import Client  # noqa: E402
from tests.api.conftest import ADMIN  # noqa: E402

# A request can fit the document and still be refused on purpose: a signed event whose
# signature, chain or table does not hold, a date that is not a date. Every other
# check runs, among them no 5xx, status codes, content types and response schemas.
EXCLUDED = [schemathesis.checks.positive_data_acceptance]
EXAMPLES = int(os.environ.get("FAIRPLAY_FUZZ_EXAMPLES", "25"))


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    data: Path = tmp_path_factory.mktemp("fuzz")
    app = create_app({"data_dir": str(data), "admin_token": ADMIN, "testing": True})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    bots = TableBots.open(
        Client(f"http://127.0.0.1:{server.server_port}", admin_token=ADMIN), random.Random(9)
    )
    bots.play_hand(1)
    server.shutdown()
    yield app
    app.extensions["fairplay"].close()


def test_no_server_errors_and_responses_fit_the_document(fuzz_app: Any) -> None:
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", fuzz_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def check(case: Any) -> None:
            case.call_and_validate(excluded_checks=EXCLUDED)

        check()
