"""The domain's errors (audit.errors) take the HTTP status and code the service has always
answered with: the domain raises no HTTP error, the HTTP layer maps each code."""

from __future__ import annotations

import pytest

from api.errors import BadRequest, Conflict, Forbidden, NotFound, status_of
from audit.errors import FairplayError, InvalidInput, NotFoundError, RefusedError, StateConflict


@pytest.mark.parametrize(
    ("domain", "http"),
    [
        (InvalidInput, BadRequest),
        (StateConflict, Conflict),
        (NotFoundError, NotFound),
        (RefusedError, Forbidden),
    ],
)
def test_a_domain_error_answers_as_its_http_twin(
    domain: type[FairplayError], http: type[FairplayError]
) -> None:
    a, b = domain("x"), http("x")
    assert (a.code, status_of(a)) == (b.code, status_of(b))
