"""The OpenAPI description of the tournament routes (``/v1/tournaments``, docs/tournaments.md),
merged into :data:`api.openapi.DOCUMENT`."""

from __future__ import annotations

from typing import Any

__all__ = ["Schema", "paths"]

Schema = dict[str, Any]


def paths(op: Any, param: Any, obj: Schema) -> Schema:
    """The tournament paths, built with :mod:`api.openapi`'s helpers."""
    tid = param("tid", "path", {"type": "string"})
    signed_event = {"type": "object", "description": "a signed log event (docs/log.md)"}
    reason = {
        "type": "object",
        "required": ["reason"],
        "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 200}},
    }
    round_no = {"type": "integer", "minimum": 1, "maximum": 1000}
    round_named = {"type": "object", "required": ["round"], "properties": {"round": round_no}}
    round_end = {
        "type": "object",
        "required": ["round", "reason"],
        "properties": {
            "round": round_no,
            "reason": {"type": "string", "minLength": 1, "maxLength": 200},
        },
    }

    def admin(
        summary: str, request: Schema | None = None, extra: tuple[Schema, ...] = ()
    ) -> Schema:
        out: Schema = op(
            summary, 200, obj, (401, 403, 409), (tid, *extra), request=request or obj, security=True
        )
        return out

    def preparing(o: Schema) -> Schema:
        """A certificate route: 409 before the end (``WRONG_PHASE``) and while the bundle
        is being built after it (``NOT_READY``, with ``Retry-After``)."""
        o["responses"]["409"] = {
            **o["responses"]["409"],
            "description": "WRONG_PHASE: the event is not over; NOT_READY: it is over and "
            "its certificate bundle is being prepared (ask again after Retry-After seconds)",
            "headers": {
                "Retry-After": {
                    "description": "with NOT_READY: seconds after which to ask again",
                    "schema": {"type": "integer"},
                }
            },
        }
        return o

    return {
        "/v1/tournaments": {
            "post": op(
                "Create an event (admin): format pairs-duplicate (tables, boards_per_round, "
                "rounds) or rubber-round-robin (pairs, hands_per_match, rounds), ruleset, "
                "schedule; commits the service's tournament seed",
                201,
                obj,
                (401, 403, 422),
                request={
                    "type": "object",
                    "required": ["format"],
                    "properties": {
                        "name": {"type": "string"},
                        "format": {"enum": ["pairs-duplicate", "rubber-round-robin"]},
                        "tables": {"type": "integer"},
                        "pairs": {"type": "integer"},
                        "rounds": {"type": "integer"},
                        "boards_per_round": {"type": "integer"},
                        "hands_per_match": {"type": "integer"},
                        "ruleset": obj,
                        "schedule": {"type": "string"},
                    },
                },
                security=True,
            ),
            "get": op("List events", 200, obj),
        },
        "/v1/tournaments/scores": {
            "post": op(
                "Score an event played over the table: the cayenne-standings/1 document of "
                "`fairplay tournament score`, from its table records, each a cayenne-record/1 "
                "document or the id of one uploaded with POST /v1/audits. Nothing is stored. "
                "Rate-limited per client address like uploads (429 with Retry-After).",
                200,
                obj,
                (400, 422, 429),
                request={
                    "type": "object",
                    "required": ["records"],
                    "properties": {
                        "records": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"oneOf": [obj, {"type": "string", "pattern": "^u-"}]},
                        }
                    },
                },
            )
        },
        "/v1/tournaments/{tid}": {"get": op("An event's public state", 200, obj, (), (tid,))},
        "/v1/tournaments/{tid}/registration": {
            "post": admin(
                "Open or close registration (admin)",
                {
                    "type": "object",
                    "required": ["open"],
                    "properties": {"open": {"type": "boolean"}},
                },
            )
        },
        "/v1/tournaments/{tid}/beacon": {
            "post": admin(
                "Fix the beacon value before registration closes (admin)",
                {
                    "type": "object",
                    "required": ["source", "round", "randomness"],
                    "properties": {
                        "source": {"type": "string"},
                        "round": {"type": "integer"},
                        "randomness": {"type": "string", "description": "1 to 64 bytes, hex"},
                    },
                },
            )
        },
        "/v1/tournaments/{tid}/start": {
            "post": admin(
                "Fix the pairs and ask for the entrants' seeds (admin); with a beacon "
                "(cayenne-tournament-deals/2) also the reveal deadline and the drand round",
                {
                    "type": "object",
                    "properties": {
                        "reveal_seconds": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 86400,
                            "description": "seconds from the start to the reveal deadline",
                        }
                    },
                },
            )
        },
        "/v1/tournaments/{tid}/rounds/next": {
            "post": admin(
                "Deal (withdrawing pairs that did not reveal; under version 2 once the drand "
                "round after the reveal deadline is out, else 409 NOT_READY) or start round "
                "{round} (admin; once it is begun the same request changes nothing)",
                round_named,
            )
        },
        "/v1/tournaments/{tid}/rounds/end": {
            "post": admin(
                "End round {round} early, with a reason (admin; once it is over the same "
                "request changes nothing)",
                round_end,
            )
        },
        "/v1/tournaments/{tid}/actions/{action}": {
            "post": admin(
                "A director's action with its reason (admin): substitute {pair, out, in}, "
                "adjust {round, table, board, ns, ew}, withdraw {pair}, void_board {board}; "
                "before the start, remove {entrant}",
                reason,
                (
                    param(
                        "action",
                        "path",
                        {"enum": ["substitute", "adjust", "withdraw", "void_board", "remove"]},
                    ),
                ),
            )
        },
        "/v1/tournaments/{tid}/entrants": {
            "post": op(
                "Register (a tournament_register event signed by the player)",
                201,
                obj,
                (401, 409),
                (tid,),
                request=signed_event,
            )
        },
        "/v1/tournaments/{tid}/reveals": {
            "post": op(
                "Reveal an entrant's seed privately (a signed tournament_reveal event); under "
                "version 2 before the reveal deadline, answered with a signed receipt",
                201,
                obj,
                (401, 403, 409),
                (tid,),
                request=signed_event,
            )
        },
        "/v1/tournaments/{tid}/events": {
            "get": op(
                "The event's chain, or an entrant's (?entrant=ID)",
                200,
                obj,
                (),
                (tid, param("entrant", "query", {"type": "string"})),
            )
        },
        "/v1/tournaments/{tid}/standings": {
            "get": op(
                "Live standings (rounds over; board results at the end)", 200, obj, (), (tid,)
            )
        },
        "/v1/tournaments/{tid}/boards/{board}": {
            "get": op(
                "A board's travelling score sheet: to players who played it (signed), to "
                "everyone once the event is over (with its deal)",
                200,
                obj,
                (401, 403),
                (tid, param("board", "path", {"type": "integer", "minimum": 1})),
            )
        },
        "/v1/tournaments/{tid}/pairs/{pair}": {
            "get": op(
                "A pair's card: to its players (signed) during a duplicate event",
                200,
                obj,
                (401, 403),
                (tid, param("pair", "path", {"type": "integer", "minimum": 1})),
            )
        },
        "/v1/tournaments/{tid}/records": {
            "get": op("Each table's record of each round", 200, obj, (403,), (tid,))
        },
        "/v1/tournaments/{tid}/transcript": {
            "get": op(
                "The cayenne-tournament-deals transcript (/1 or /2), once the event is over",
                200,
                obj,
                (403,),
                (tid,),
            )
        },
        "/v1/tournaments/{tid}/certificate": {
            "get": preparing(
                op(
                    "The certificate (cayenne-tournament-certificate/1) and the log key's "
                    "signed note over it, once the event is over and its bundle is built",
                    200,
                    obj,
                    (409,),
                    (tid,),
                )
            )
        },
        "/v1/tournaments/{tid}/certificate/bundle": {
            "get": preparing(
                op(
                    "The certificate bundle: the certificate, its note, the checkpoint with "
                    "its cosignatures, every event with its inclusion proof and every record "
                    "(fairplay tournament verify); built in the background when the event "
                    "ends (409 NOT_READY with Retry-After meanwhile)",
                    200,
                    obj,
                    (409,),
                    (tid,),
                )
            )
        },
        "/v1/tournaments/{tid}/analysis": {
            "get": op(
                "Every card of a finished event judged double dummy, and each pair's test "
                "for play that knows too much (cayenne-analysis/1; 409 before the end)",
                200,
                obj,
                (404, 409),
                (tid,),
            )
        },
        "/tournaments/{tid}/analysis": {
            "get": op(
                "The analysis page of a finished event (409 before the end)",
                200,
                "text/html",
                (404, 409),
                (tid,),
            )
        },
        "/tournaments": {"get": op("Tournaments page: the events", 200, "text/html")},
        "/tournaments/{tid}": {
            "get": op(
                "An event's page: rounds, tables, live standings", 200, "text/html", (404,), (tid,)
            )
        },
        "/tournaments/{tid}/boards/{board}": {
            "get": op(
                "A board's travelling score sheet (its players only until the event ends)",
                200,
                "text/html",
                (403, 404),
                (tid, param("board", "path", {"type": "integer"})),
            )
        },
        "/tournaments/{tid}/pairs/{pair}": {
            "get": op(
                "A pair's card (results to its players only until the event ends)",
                200,
                "text/html",
                (403, 404),
                (tid, param("pair", "path", {"type": "integer"})),
            )
        },
        "/tournaments/{tid}/certificate": {
            "get": op(
                "The certificate's page for a person (what it holds, its note, how to check it)",
                200,
                "text/html",
                (404, 409),
                (tid,),
            )
        },
    }
