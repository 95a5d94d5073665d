"""Service health and the OpenAPI document."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.migrations import current_version
from api.openapi import DOCUMENT
from api.routes import services

__all__ = ["bp", "healthz", "openapi"]

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    s = services()
    conn = s.db.connection()
    return jsonify(
        {
            "status": "ok",
            "database": s.db.dialect,
            "schema_version": current_version(conn),
            "log_origin": s.ledger.origin,
        }
    )


@bp.get("/v1/openapi.json")
def openapi() -> Response:
    return jsonify(DOCUMENT)
