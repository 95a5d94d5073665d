"""The service fixtures of tests/api, for the end-to-end tests of the browser's verifier."""

from tests.api.conftest import backend, make_service  # noqa: F401 - fixtures used by name
