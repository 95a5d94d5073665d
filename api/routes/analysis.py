"""The double-dummy analysis of a finished event (docs/analysis.md): every card judged,
the players' and pairs' rates beside the field's, and each pair's test for play that
knows too much, as JSON and as a page.

Only once the event is over (409 ``WRONG_PHASE`` before: the cards are private until
then). The analysis is built in the background and stored (:mod:`api.analysis`): until
it is, both routes answer 202 with the build's progress (hands judged of the hands to
judge, when it started) and ``Retry-After``; the page shows a progress bar that follows
the build by itself and then the analysis in its place.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, render_template

from api.analysis import RETRY_AFTER
from api.builds import Claim
from api.routes import services
from api.schemas import ERROR, Schema, spec

__all__ = ["ANALYSIS", "BUILDING", "analysis_page", "bp", "get_analysis"]

bp = Blueprint("analysis", __name__)

_COUNT: Schema = {"type": ["integer", "null"], "minimum": 0}
BUILDING: Schema = {
    "type": "object",
    "required": ["tournament", "status", "message", "started_at", "done", "total", "retry_after"],
    "properties": {
        "tournament": {"type": "string"},
        "status": {"const": "building"},
        "message": {"type": "string"},
        "started_at": {"type": "string", "description": "when its builder claimed the build"},
        "done": _COUNT | {"description": "hands analysed (null until the hands are counted)"},
        "total": _COUNT | {"description": "hands to analyse (null until they are counted)"},
        "retry_after": {"type": "integer", "description": "seconds after which to ask again"},
    },
}
"""The 202 answer while the analysis is being built."""
_RATE: Schema = {"type": ["object", "null"]}
ANALYSIS: Schema = {
    "type": "object",
    "description": "cayenne-analysis/1 (docs/analysis.md) with the event's id",
    "required": ["format", "tournament", "settings", "hands", "skipped", "pairs", "flagged"],
    "properties": {
        "format": {"const": "cayenne-analysis/1"},
        "tournament": {"type": "string"},
        "settings": {"type": "object"},
        "hands": {"type": "integer", "minimum": 0},
        "skipped": {"type": "array", "items": {"type": "string"}},
        "cards_judged": {"type": "integer", "minimum": 0},
        "by_role_and_contract": {"type": "object"},
        "players": {"type": "array", "items": {"type": "object"}},
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["players", "p_value", "flagged"],
                "properties": {
                    "players": {"type": "array", "items": {"type": "string"}},
                    "p_value": {"type": "number", "minimum": 0, "maximum": 1},
                    "p_adjusted": {"type": "number", "minimum": 0, "maximum": 1},
                    "flagged": {"type": "boolean"},
                    "p_found": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "with the seen-hand test: the best-card test's own p",
                    },
                    "seen": {
                        "type": "object",
                        "description": "with the seen-hand test (settings.seen_draws): left "
                        "and right, each decisions, played, expected and z (null when the field is too "
                        "small for a curve), p_value",
                    },
                    "errors": _RATE,
                    "opening_leads": _RATE,
                },
            },
        },
        "flagged": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
        "cards": {"type": "array", "items": {"type": "object"}},
    },
}
_HEADERS: Schema = {
    "Retry-After": {
        "description": "seconds after which to ask again",
        "schema": {"type": "integer"},
    }
}
_PREPARING: dict[int, Schema] = {
    202: {
        "description": "the event is over and its analysis is being built: its progress",
        "content": {"application/json": {"schema": BUILDING}},
        "headers": _HEADERS,
    },
    409: {
        "description": "WRONG_PHASE: the event is not over (its cards are private)",
        "content": {"application/json": {"schema": ERROR}},
    },
}


def _building(tid: str, claim: Claim) -> dict[str, Any]:
    return {
        "tournament": tid,
        "status": "building",
        "message": "the analysis of this event is being built; ask again shortly",
        "started_at": claim.started_at,
        "done": claim.done,
        "total": claim.total,
        "retry_after": RETRY_AFTER,
    }


@bp.get("/v1/tournaments/<tid>/analysis")
@spec(
    "Every card of a finished event judged double dummy, and each pair's test for play that "
    "knows too much (cayenne-analysis/1); built in the background when the event ends (202 "
    "with its progress and Retry-After meanwhile; 409 before the end)",
    response=ANALYSIS,
    errors=(409,),
    responses=_PREPARING,
)
def get_analysis(tid: str) -> Response:
    """Every card of a finished event judged double dummy; each pair's p-value and flag."""
    got = services().analyses.text_or_progress(tid)
    if isinstance(got, Claim):
        answer = Response(json.dumps(_building(tid, got)), 202, mimetype="application/json")
        answer.headers["Retry-After"] = str(RETRY_AFTER)
        return answer
    # the stored text as it is, the event's id put first: not parsed and encoded again
    return Response(f'{{"tournament":{json.dumps(tid)},{got[1:]}', mimetype="application/json")


def _judged(from_card: int, seen_draws: int) -> dict[str, str]:
    """The page's words for the first card judged, and the command's options for the
    settings that are not its defaults."""
    from audit.analysis.judge import FROM_CARD
    from audit.analysis.render import ordinal

    options = "" if from_card == FROM_CARD else f" --from-card {from_card}"
    if seen_draws:
        options += f" --seen-draws {seen_draws}"
    return {"from_card": ordinal(from_card), "command_options": options}


@bp.get("/tournaments/<tid>/analysis")
@spec(
    "The analysis page of a finished event: the build's progress (202), then the analysis "
    "(409 before the end)",
    response="text/html",
    errors=(409,),
    responses={
        202: {
            "description": "the analysis is being built: its progress, the page follows it",
            "content": {"text/html": {"schema": {"type": "string"}}},
            "headers": _HEADERS,
        }
    },
)
def analysis_page(tid: str) -> Response:
    """The analysis for a person, or the progress of its build."""
    from audit.analysis.render import TABLE_CSS, render_section

    s = services()
    got = s.analyses.text_or_progress(tid)
    doc = s.tournaments.load(tid)
    if isinstance(got, Claim):
        html = render_template(
            "tournament_analysis.html",
            doc=doc,
            building=_building(tid, got),
            **_judged(s.analyses.from_card, s.analyses.seen_draws),
            css=TABLE_CSS,
        )
        page = Response(html, 202, mimetype="text/html")
        page.headers["Retry-After"] = str(RETRY_AFTER)
        return page
    analysis = json.loads(got)
    section = render_section(analysis, level=3)
    html = render_template(
        "tournament_analysis.html",
        doc=doc,
        building=None,
        section=section,
        # as it was built (a document from before the seen-hand test has no seen_draws)
        **_judged(analysis["settings"]["from_card"], analysis["settings"].get("seen_draws", 0)),
        css=TABLE_CSS,
    )
    return Response(html, mimetype="text/html")
