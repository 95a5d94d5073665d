"""A route's schema refuses exactly what its hand-written checks refused, with the same
status, code, message and JSON path (api.schemas.check).

Each ``*_before`` function below is the route's check as it was written before the schema
replaced it (or, for the tournament routes, the event's own check, which still runs after
the schema): hypothesis sends both the same bodies, mixed from valid values, values of the
wrong type or length, text a name may not hold, missing keys and keys of no meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.errors import BadRequest, status_of
from api.inputs import check_name
from api.routes.audits import SCORES
from api.routes.hands import VOID
from api.routes.play import BOT_TABLE
from api.routes.players import NEW_PLAYER
from api.routes.tables import NEW_TABLE
from api.routes.tournaments import (
    BEACON,
    DIRECTOR_ACTION,
    NEW_TOURNAMENT,
    REGISTRATION,
    ROUND_END,
    ROUND_NAMED,
    START,
)
from api.schemas import Schema, check
from api.signing import parse_player_key
from api.tournament import checks
from audit.errors import FairplayError, InvalidCardError, RecordError, RulesetError
from audit.log.keys import generate_signer
from audit.rules.cards import Seat
from audit.rules.ruleset import Ruleset

KEY = generate_signer("alice").verifier_key()


def void_before(body: Any) -> None:
    reason = body.get("reason") if isinstance(body, dict) else None
    if not isinstance(reason, str) or not 1 <= len(reason) <= 200:
        raise BadRequest("reason: a reason of 1 to 200 characters", details={"path": "reason"})


def scores_before(body: Any) -> None:
    records = body.get("records") if isinstance(body, dict) else None
    if not isinstance(records, list) or not records:
        raise BadRequest(
            "records: a non-empty list of cayenne-record/1 documents or uploaded record ids",
            details={"path": "records"},
        )


def registration_before(body: Any) -> None:
    opening = body.get("open") if isinstance(body, dict) else None
    if not isinstance(opening, bool):
        raise BadRequest(
            "open: true to open registration, false to close it", details={"path": "open"}
        )


def player_before(body: Any) -> None:
    if not isinstance(body, dict):
        raise BadRequest("the body must be an object {name, public_key}", details={"path": "$"})
    check_name(body.get("name"), "name", 64)
    parse_player_key(body.get("public_key"))


def table_before(body: Any) -> None:
    if not isinstance(body, dict):
        raise BadRequest("the body must be an object {name, seats, ruleset}", details={"path": "$"})
    check_name(body.get("name", "table"), "name", 64)
    seats_obj = body.get("seats")
    if not isinstance(seats_obj, dict) or sorted(seats_obj) != ["E", "N", "S", "W"]:
        raise BadRequest(
            "seats: an object with the player ids at N, E, S and W", details={"path": "seats"}
        )
    for seat in Seat:
        if not isinstance(seats_obj[seat.name], str):
            raise BadRequest(
                f"seats.{seat.name}: a player id", details={"path": f"seats.{seat.name}"}
            )
    ruleset_obj = body.get("ruleset", {})
    if not isinstance(ruleset_obj, dict):
        raise BadRequest("ruleset: expected an object", details={"path": "ruleset"})
    try:
        Ruleset.from_json(ruleset_obj, extensions=False)
    except RecordError as exc:
        raise RulesetError(exc.message, details={"path": exc.path}) from None
    try:
        Seat.parse(body.get("first_dealer", "N"))
    except InvalidCardError as exc:
        raise BadRequest(f"first_dealer: {exc.message}", details={"path": "first_dealer"}) from None


def bot_table_before(body: Any) -> None:
    if not isinstance(body, dict) or set(body) - {"name"}:
        raise BadRequest("the body must be an object {name?}", details={"path": "$"})
    check_name(body.get("name", "against the bots"), "name", 64)


def next_round_before(body: Any) -> None:
    checks.round_named(body)


def end_round_before(body: Any) -> None:
    checks.reason(body)
    checks.round_named(body)


def director_before(body: Any) -> None:
    if not isinstance(body, dict):
        raise checks.bad("$", "the body must be an object")
    checks.reason(body)


def start_before(body: Any) -> None:
    if not isinstance(body, dict):
        raise checks.bad("$", "the body must be an object")
    checks.integer(body, "reveal_seconds", 1, 86_400, 60)


def beacon_before(body: Any) -> None:
    """Tournaments.beacon's checks before it looks at the event."""
    if not isinstance(body, dict):
        raise checks.bad("$", "the body must be an object {source, round, randomness}")
    source = body.get("source")
    if not isinstance(source, str) or not 1 <= len(source) <= 100:
        raise checks.bad("source", "1 to 100 characters")
    checks.integer(body, "round", 0, 2**53 - 1)
    randomness = body.get("randomness")
    try:
        raw = bytes.fromhex(randomness) if isinstance(randomness, str) else b""
    except ValueError:
        raw = b""
    if not 1 <= len(raw) <= 64 or randomness != raw.hex():
        raise checks.bad("randomness", "1 to 64 bytes in lowercase hex")


def create_before(body: Any) -> None:
    """Tournaments.create's checks of the fields every format has."""
    if not isinstance(body, dict):
        raise checks.bad("$", "the body must be an object")
    check_name(body.get("name", "tournament"), "name", 100)
    if body.get("format") not in ("pairs-duplicate", "rubber-round-robin"):
        raise checks.bad("format", "must be 'pairs-duplicate' or 'rubber-round-robin'")
    ruleset_obj = body.get("ruleset", {})
    if not isinstance(ruleset_obj, dict):
        raise checks.bad("ruleset", "expected an object")
    try:
        Ruleset.from_json(ruleset_obj, extensions=False)
    except RecordError as exc:
        raise RulesetError(exc.message, details={"path": exc.path}) from None
    schedule = body.get("schedule", "")
    if not isinstance(schedule, str) or len(schedule) > 200:
        raise checks.bad("schedule", "at most 200 characters")
    if schedule.strip():
        check_name(schedule, "schedule", 200)


CASES: list[tuple[str, Schema, Callable[[Any], None]]] = [
    ("void", VOID, void_before),
    ("registration", REGISTRATION, registration_before),
    ("scores", SCORES, scores_before),
    ("player", NEW_PLAYER, player_before),
    ("table", NEW_TABLE, table_before),
    ("bot table", BOT_TABLE, bot_table_before),
    ("next round", ROUND_NAMED, next_round_before),
    ("end round", ROUND_END, end_round_before),
    ("director", DIRECTOR_ACTION, director_before),
    ("start", START, start_before),
    ("beacon", BEACON, beacon_before),
    ("create", NEW_TOURNAMENT, create_before),
]

KEYS = [
    "reason",
    "open",
    "name",
    "public_key",
    "seats",
    "ruleset",
    "first_dealer",
    "round",
    "reveal_seconds",
    "source",
    "randomness",
    "format",
    "schedule",
    "records",
    "other",
]
TEXT = st.sampled_from(
    ["", " ", "x", "  Ann  ", "a\u202eb", "a\x01", "\u200b", "N", "n", "x" * 64, " " + "x" * 64]
    + ["x" * 65, "r" * 200, "r" * 201, "ab", "AB", "ab cd", "a", "00" * 64, "00" * 65]
    + ["pairs-duplicate", "rubber-round-robin", KEY, KEY[:-2], "p-1"]
)
NUMBERS = st.sampled_from(
    [0, 1, 2, 60, 1000, 1001, 86_400, 86_401, -1, 2**53 - 1, 2**53, 1.0, 1.5, True, False]
)
SEATS = st.fixed_dictionaries({s: st.one_of(TEXT, NUMBERS) for s in "NESW"}) | st.dictionaries(
    st.sampled_from(["N", "E", "S", "W", "X"]), TEXT, max_size=5
)
RULESETS = st.sampled_from([{}, {"majority": 5}, {"nope": 1}, {"majority": "x"}, [], "x"])
VALUES = st.one_of(
    TEXT, NUMBERS, SEATS, RULESETS, st.none(), st.lists(st.one_of(TEXT, NUMBERS), max_size=2)
)
BODIES = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6),
    st.none(),
    NUMBERS,
    TEXT,
    st.lists(VALUES, max_size=2),
)


def outcome(run: Callable[[], None]) -> tuple[Any, ...] | None:
    try:
        run()
    except FairplayError as exc:
        return (status_of(exc), exc.code, exc.message, exc.details)
    return None


@pytest.mark.parametrize(("schema", "before"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@settings(max_examples=200, deadline=None)
@given(body=BODIES)
def test_the_schema_refuses_as_the_route_did(
    schema: Schema, before: Callable[[Any], None], body: Any
) -> None:
    assert outcome(lambda: check(schema, body)) == outcome(lambda: before(body))


@pytest.mark.parametrize(
    ("schema", "body"),
    [
        (VOID, {"reason": "the N seat left"}),
        (NEW_PLAYER, {"name": "Ann", "public_key": KEY}),
        (NEW_TABLE, {"seats": dict.fromkeys("NESW", "p-1"), "first_dealer": "E"}),
        (BOT_TABLE, {}),
        (ROUND_END, {"reason": "late", "round": 2}),
        (BEACON, {"source": "drand", "round": 7, "randomness": "ab" * 32}),
        (NEW_TOURNAMENT, {"format": "pairs-duplicate", "tables": 3}),
    ],
)
def test_a_valid_body_passes(schema: Schema, body: Any) -> None:
    check(schema, body)


@pytest.mark.parametrize("body", [{"round": 1.0}, {"round": True}, {"round": "1"}, {}, []])
def test_a_round_is_a_whole_number_as_the_event_reads_it(body: Any) -> None:
    """JSON Schema calls 1.0 an integer; the event refuses it, and so does the schema."""
    assert outcome(lambda: check(ROUND_NAMED, body)) == outcome(lambda: next_round_before(body))
    assert outcome(lambda: check(ROUND_NAMED, body)) is not None
