"""The domain's errors (audit.errors) take the HTTP status and code the service has always
answered with: the domain raises no HTTP error, the HTTP layer maps each code."""

from __future__ import annotations

from pathlib import Path

import pytest

from api import create_app
from api.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    InvalidSignature,
    NotFound,
    NotReady,
    WrongPhase,
    status_of,
)
from audit.errors import (
    BuildFailed,
    FairplayError,
    InvalidInput,
    NotFoundError,
    NotReadyError,
    RefusedError,
    SignatureRefused,
    StateConflict,
    WrongPhaseError,
)


@pytest.mark.parametrize(
    ("domain", "http"),
    [
        (InvalidInput, BadRequest),
        (StateConflict, Conflict),
        (NotFoundError, NotFound),
        (RefusedError, Forbidden),
        (WrongPhaseError, WrongPhase),
        (SignatureRefused, InvalidSignature),
    ],
)
def test_a_domain_error_answers_as_its_http_twin(
    domain: type[FairplayError], http: type[FairplayError]
) -> None:
    a, b = domain("x"), http("x")
    assert (a.code, status_of(a)) == (b.code, status_of(b))


def test_not_ready_answers_as_its_http_twin_with_its_retry_after(tmp_path: Path) -> None:
    """The domain's NOT_READY (an event's deal waiting for its drand round) is answered
    as the HTTP one, ``Retry-After`` included."""
    app = create_app({"data_dir": str(tmp_path), "testing": True})
    errors = [NotReadyError("wait", 7, {"round": 3}), NotReady("wait", 7, {"round": 3})]

    @app.get("/raise/<int:n>")
    def raise_it(n: int) -> str:
        raise errors[n]

    answers = []
    for n in range(2):
        got = app.test_client().get(f"/raise/{n}")
        answers.append((got.status_code, got.headers.get("Retry-After"), got.get_json()))
    assert answers[0] == answers[1]
    assert answers[0][:2] == (409, "7")


def test_a_failed_build_answers_503_with_its_words_and_retry_after(tmp_path: Path) -> None:
    """A finished event's product whose build failed (api/builds.py): 503 BUILD_FAILED
    with ``Retry-After`` (when a request starts it again) and the failure's words, as JSON
    and, to a browser, as a page that says them."""
    app = create_app({"data_dir": str(tmp_path), "testing": True})
    failure = BuildFailed(
        "the analysis of this event could not be built (records[3]: not a hand)",
        240,
        details={"tournament": "t1"},
    )

    @app.get("/raise")
    def raise_it() -> str:
        raise failure

    got = app.test_client().get("/raise")
    assert (got.status_code, got.headers.get("Retry-After")) == (503, "240")
    body = got.get_json()
    assert body["code"] == "BUILD_FAILED" and "records[3]: not a hand" in body["message"]
    assert body["details"] == {"tournament": "t1", "retry_after": 240}
    page = app.test_client().get("/raise", headers={"Accept": "text/html"})
    assert page.status_code == 503 and b"records[3]: not a hand" in page.data
    assert b"Traceback" not in page.data
