"""Service health and the OpenAPI document."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from api.errors import error_response
from api.migrations import current_version
from api.openapi import document
from api.routes import services
from api.schemas import spec
from audit.errors import DatabaseUnavailable

__all__ = ["bp", "healthz", "openapi"]

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
@spec("Liveness and schema version")
def healthz() -> Response:
    s = services()
    try:
        version = current_version(s.db.connection())
        s.hand_log.log.size()  # the log's own connection, reopened if it was lost
    except DatabaseUnavailable as exc:
        # A load balancer takes this host out until the database answers again.
        response = error_response(
            503,
            exc.code,
            exc.message,
            {**exc.details, "database": s.db.dialect, "database_url": s.db.display_url},
        )
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    return jsonify(
        {
            "status": "ok",
            "database": s.db.dialect,
            "schema_version": version,
            "log_origin": s.hand_log.origin,
        }
    )


@bp.get("/v1/openapi.json")
@spec("This document (OpenAPI 3.1)")
def openapi() -> Response:
    return jsonify(document(current_app))
