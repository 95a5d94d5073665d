"""Every error the service returns is JSON ``{"code", "message", "details"}``.

Errors the service raises on purpose are :class:`audit.errors.FairplayError`s; each class
here fixes the HTTP status that goes with it. Werkzeug's HTTP exceptions (404, 405, 413…)
and anything unexpected (500) are turned into the same shape; no HTML page and no
traceback ever reaches a client.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from audit.errors import (
    BuildFailed,
    DatabaseUnavailable,
    FairplayError,
    IllegalActionError,
    InvalidInput,
    NotFoundError,
    NotReadyError,
    RecordError,
    RefusedError,
    RetryLater,
    SignatureRefused,
    StateConflict,
    WrongPhaseError,
)
from audit.log.reconnect import is_connection_lost, unavailable

__all__ = [
    "HTTP_CODES",
    "ApiError",
    "BadRequest",
    "Conflict",
    "NotReady",
    "Forbidden",
    "InvalidSignature",
    "NotFound",
    "PayloadTooLarge",
    "ReplayedEvent",
    "TooManyRequests",
    "Unauthorized",
    "WrongPhase",
    "error_response",
    "register_error_handlers",
    "status_of",
]

log = logging.getLogger("api")


class ApiError(FairplayError):
    """An error with an HTTP status."""

    status = 400
    code = "BAD_REQUEST"


class BadRequest(ApiError, InvalidInput):
    """The HTTP twin of :class:`~audit.errors.InvalidInput` (an ``except InvalidInput``
    catches both)."""

    status = 400
    code = "BAD_REQUEST"


class Unauthorized(ApiError):
    status = 401
    code = "UNAUTHORIZED"


class Forbidden(ApiError, RefusedError):
    """The HTTP twin of :class:`~audit.errors.RefusedError`."""

    status = 403
    code = "FORBIDDEN"


class NotFound(ApiError, NotFoundError):
    """The HTTP twin of :class:`~audit.errors.NotFoundError`."""

    status = 404
    code = "NOT_FOUND"


class Conflict(ApiError, StateConflict):
    """The HTTP twin of :class:`~audit.errors.StateConflict`."""

    status = 409
    code = "CONFLICT"


class NotReady(NotReadyError, Conflict):
    """A resource the service is preparing: 409 with ``Retry-After``, the seconds after
    which to ask again (docs/api.md); the HTTP twin of :class:`audit.errors.NotReadyError`."""


class PayloadTooLarge(ApiError):
    status = 413
    code = "PAYLOAD_TOO_LARGE"


class TooManyRequests(ApiError, RetryLater):
    """Over a per-client rate limit; ``retry_after`` seconds until the next token."""

    status = 429
    code = "TOO_MANY_REQUESTS"


class InvalidSignature(ApiError):
    """A signed event or request whose signature does not verify."""

    status = 401
    code = "INVALID_SIGNATURE"


class ReplayedEvent(ApiError):
    """A signed event whose sequence number or previous hash is not the next one."""

    status = 409
    code = "REPLAYED_EVENT"


class WrongPhase(ApiError):
    """An action that the hand's ceremony does not expect now."""

    status = 409
    code = "WRONG_PHASE"


_STATUS_BY_CODE: dict[str, int] = {
    InvalidInput.code: 400,
    RefusedError.code: 403,
    NotFoundError.code: 404,
    StateConflict.code: 409,
    WrongPhaseError.code: 409,
    NotReadyError.code: 409,
    SignatureRefused.code: 401,
    RecordError.code: 422,
    DatabaseUnavailable.code: 503,
    BuildFailed.code: 503,
    "INVALID_CARD": 422,
    "INVALID_RULESET": 422,
}

# The ``code`` of an error that only has an HTTP status (Werkzeug's, gunicorn's).
HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    408: "REQUEST_TIMEOUT",
    409: "CONFLICT",
    411: "LENGTH_REQUIRED",
    413: "PAYLOAD_TOO_LARGE",
    414: "URI_TOO_LONG",
    415: "UNSUPPORTED_MEDIA_TYPE",
    417: "EXPECTATION_FAILED",
    422: "UNPROCESSABLE",
    429: "TOO_MANY_REQUESTS",
    431: "HEADERS_TOO_LARGE",
    501: "NOT_IMPLEMENTED",
}


def status_of(exc: FairplayError) -> int:
    """The HTTP status of a project error."""
    if isinstance(exc, ApiError):
        return exc.status
    if isinstance(exc, IllegalActionError):
        # Out of turn and a finished hand are conflicts with the table's state; a card not
        # held or a revoke is a well-formed request the rules forbid.
        return 409 if exc.rule in ("out_of_turn", "hand_over") else 422
    for cls in type(exc).__mro__:  # a domain error's subclass answers as its parent
        status = _STATUS_BY_CODE.get(getattr(cls, "code", ""))
        if status is not None:
            return status
    return 422


def error_response(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> Response:
    response = jsonify({"code": code, "message": message, "details": details or {}})
    response.status_code = status
    return response


_PAGE_HEADINGS = {403: "Not yours to read yet", 404: "Page not found"}


def _page_error(status: int, message: str) -> Response | None:
    """A person's browser asking for a page (not the JSON API) gets a page, not JSON."""
    if request.path.startswith(("/v1/", "/static/")) or status >= 500:
        return None
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) != "text/html":
        return None
    heading = _PAGE_HEADINGS.get(status, "That did not work")
    html = render_template("error.html", heading=heading, message=message)
    return Response(html, status=status, mimetype="text/html")


def _fairplay(exc: FairplayError) -> Response:
    response = _page_error(status_of(exc), exc.message) or error_response(
        status_of(exc), exc.code, exc.message, exc.details
    )
    if isinstance(exc, RetryLater):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def _http(exc: HTTPException) -> Response:
    status = exc.code or 500
    code = HTTP_CODES.get(status, "HTTP_ERROR" if status < 500 else "INTERNAL_ERROR")
    message = exc.description or exc.name
    page = _page_error(status, message)
    if page is not None:
        return page
    response = error_response(status, code, message)
    if status == 405 and exc.response is None:
        allowed = getattr(exc, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(sorted(allowed))
    return response


def _unexpected(exc: Exception) -> Response:
    cause: BaseException | None = exc
    while cause is not None:  # a driver's error of a lost connection is not a defect
        if is_connection_lost(cause):
            return _fairplay(unavailable("service's", cause, 1))
        cause = cause.__cause__ or cause.__context__
    log.exception("unhandled error")
    return error_response(500, "INTERNAL_ERROR", "internal error; the incident was logged")


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(FairplayError, _fairplay)
    app.register_error_handler(HTTPException, _http)
    app.register_error_handler(Exception, _unexpected)
