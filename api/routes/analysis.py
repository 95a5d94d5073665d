"""The double-dummy analysis of a finished event (docs/analysis.md): every card judged,
the players' and pairs' rates beside the field's, and each pair's test for play that
knows too much, as JSON and as a page.

Only once the event is over (409 ``WRONG_PHASE`` before: the cards are private until
then). The analysis is the same whenever it is asked for, so each process computes an
event's once and keeps it; the first request waits for it (about a second a hand on one
core: a background build, as the certificate's, is the way out for large events).
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, Response, jsonify

from api.errors import WrongPhase
from api.routes import services
from api.schemas import spec

__all__ = ["analysis_doc", "analysis_page", "bp", "get_analysis"]

bp = Blueprint("analysis", __name__)

_done: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def analysis_doc(tid: str) -> dict[str, Any]:
    """The event's ``cayenne-analysis/1`` document; :class:`WrongPhase` before its end."""
    from audit.analysis.inputs import hands_of
    from audit.analysis.report import analyse

    t = services().tournaments
    doc = t.load(tid)
    if doc["phase"] != "over":
        raise WrongPhase(f"the tournament is {doc['phase']}; its play is analysed at the end")
    with _lock:
        if tid not in _done:
            records = t.records(doc)
            hands, skipped = hands_of(
                [(f"round {r['round']} table {r['table']}", r) for r in records]
            )
            _done[tid] = {"tournament": tid, **analyse(hands, skipped=skipped)}
        return _done[tid]


@bp.get("/v1/tournaments/<tid>/analysis")
@spec(
    "Every card of a finished event judged double dummy, and each pair's test for play that "
    "knows too much (cayenne-analysis/1; 409 before the end)",
    errors=(409,),
)
def get_analysis(tid: str) -> Response:
    """Every card of a finished event judged double dummy; each pair's p-value and flag."""
    return jsonify(analysis_doc(tid))


@bp.get("/tournaments/<tid>/analysis")
@spec(
    "The analysis page of a finished event (409 before the end)",
    response="text/html",
    errors=(409,),
)
def analysis_page(tid: str) -> Response:
    """The analysis for a person."""
    from audit.analysis.render import render_html

    doc = analysis_doc(tid)
    page = render_html(doc, title=f"{tid}: double-dummy analysis")
    return Response(page, mimetype="text/html")
