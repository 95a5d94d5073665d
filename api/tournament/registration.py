"""An event before its play: its creation, registration opened and closed, the beacon,
the start (the pairs fixed), and the entrants' signed registrations and seed reveals.

A registration or a reveal writes its entrant's row only (:mod:`api.tournament.event_rows`),
so that its cost does not grow with the entrants already registered.
"""

from __future__ import annotations

import hmac
from typing import Any

from api import faults, rows
from api.clock import control_of
from api.database import Connection
from api.handstate import ruleset_pattern
from api.inputs import check_name
from api.signing import parse_player_key
from api.tournament import checks, event_rows, rounds
from api.tournament.chain import Desk, Ruling, entrant_chain
from api.tournament.checks import bad, integer
from audit.errors import (
    InvalidInput,
    RecordError,
    RefusedError,
    RulesetError,
    SignatureRefused,
    StateConflict,
    WrongPhaseError,
)
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import check_event, event_hash, verify_event
from audit.log.schemas import check_cayenne_event
from audit.rules.ruleset import Ruleset
from audit.tournament import online
from audit.tournament.event import DUPLICATE, ROUND_ROBIN
from audit.tournament.movement import mitchell
from audit.tournament.receipt import Receipt, issue
from shuffle import tournament as deals

__all__ = ["beacon", "create", "register", "registration", "reveal", "signed_event", "start"]


def create(desk: Desk, body: Any, by: Ruling = None) -> dict[str, Any]:
    """A new event from the director's spec: logged as its chain's first event."""
    if not isinstance(body, dict):
        raise bad("$", "the body must be an object")
    name = check_name(body.get("name", "tournament"), "name", 100)
    fmt = body.get("format")
    if fmt not in (DUPLICATE, ROUND_ROBIN):
        raise bad("format", f"must be {DUPLICATE!r} or {ROUND_ROBIN!r}")
    ruleset_obj = body.get("ruleset", {})
    if not isinstance(ruleset_obj, dict):
        raise bad("ruleset", "expected an object")
    try:
        ruleset = Ruleset.from_json(ruleset_obj, extensions=False).to_json()
    except RecordError as exc:
        raise RulesetError(exc.message, details={"path": exc.path}) from None
    schedule = body.get("schedule", "")
    if not isinstance(schedule, str) or len(schedule) > 200:
        raise bad("schedule", "at most 200 characters")
    if schedule.strip():  # the names' rule: no control, bidi, zero-width or CR/LF
        schedule = check_name(schedule, "schedule", 200)
    tid = rows.new_id("e")
    spec: dict[str, Any] = {"name": name, "format": fmt}
    if fmt == DUPLICATE:
        tables = integer(body, "tables", 1, 100)
        rounds_ = integer(body, "rounds", 1, tables, tables if tables % 2 else max(tables - 1, 1))
        spec |= {
            "movement": "mitchell",
            "tables": tables,
            "pairs": 2 * tables,
            "rounds": rounds_,
            "boards_per_round": integer(body, "boards_per_round", 1, 36),
        }
        mitchell(tables, rounds_)
    else:
        pairs = integer(body, "pairs", 2, 100)
        default = pairs - 1 + pairs % 2
        spec |= {
            "movement": "round-robin",
            "pairs": pairs,
            "rounds": integer(body, "rounds", 1, default, default),
            "hands_per_match": integer(body, "hands_per_match", 1, 32),
        }
    chat = body.get("chat", False)
    if not isinstance(chat, bool):
        raise bad("chat", "expected true or false")
    if chat:  # the tables' chat, off unless turned on (written only then)
        spec["chat"] = True
    spec |= {
        "ruleset": ruleset,
        "schedule": schedule,
        "service_commitment": deals.service_commitment(desk.service_seed(tid), tid).hex(),
        "pattern": list(ruleset_pattern(ruleset)),
    }
    control = control_of(body.get("clock"))
    if control is not None:
        spec["clock"] = control
    with desk.lock:
        conn = desk.db.connection()
        doc = online.initial(tid) | {
            "head": [0, None],
            "version": 0,
            "created_at": desk.now(),
            "entrants": {},
            "order": [],
            "reveals": {},
        }
        desk.event(conn, doc, online.OPENING, spec, by)
        event_rows.insert_event(conn, doc)
    return doc


def registration(desk: Desk, tid: str, opening: bool, by: Ruling = None) -> dict[str, Any]:
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        want = "created" if opening else "registration"
        if doc["phase"] != want:
            verb = "opened" if opening else "closed"
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; registration cannot be {verb}"
            )
        desk.event(conn, doc, "tournament_registration", {"open": opening}, by)
        desk.keep(conn, doc)
        return desk.load(conn, tid)


def beacon(desk: Desk, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise bad("$", "the body must be an object {source, round, randomness}")
    source = body.get("source")
    if not isinstance(source, str) or not 1 <= len(source) <= 100:
        raise bad("source", "1 to 100 characters")
    rnd = integer(body, "round", 0, 2**53 - 1)
    randomness = body.get("randomness")
    try:
        raw = bytes.fromhex(randomness) if isinstance(randomness, str) else b""
    except ValueError:
        raw = b""
    if not 1 <= len(raw) <= 64 or randomness != raw.hex():
        raise bad("randomness", "1 to 64 bytes in lowercase hex")
    if desk.beacon_source is not None:
        raise WrongPhaseError(
            "this service deals from the drand round after the reveal deadline "
            "(cayenne-tournament-deals/2): no beacon value is fixed by hand"
        )
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        if doc["phase"] not in ("created", "registration"):
            raise WrongPhaseError("the beacon is fixed before registration closes")
        if doc["beacon"] is not None:
            raise StateConflict("the beacon of this tournament is already fixed")
        value = {"source": source, "round": rnd, "randomness": randomness}
        desk.event(conn, doc, "tournament_beacon", value, by)
        desk.keep(conn, doc)
        return desk.load(conn, tid)


def start(desk: Desk, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
    """Registration is over: fix the pairs and ask the entrants for their seeds.

    With a beacon (version 2) the start also fixes the reveal deadline (now plus
    ``reveal_seconds``) and the drand round that will deal: the chain's first round
    published after the deadline. Only reveals received before the deadline deal."""
    body = {} if body is None else body
    if not isinstance(body, dict):
        raise bad("$", "the body must be an object")
    seconds = integer(body, "reveal_seconds", 1, 86_400, desk.config.reveal_seconds)
    with desk.lock:
        conn = desk.db.connection()
        doc = desk.current(conn, tid)
        if doc["phase"] != "closed":
            raise WrongPhaseError(f"the tournament is {doc['phase']}; close registration first")
        pairs: list[list[str]] = []
        paired: set[str] = set()
        removed = set(doc.get("removed", []))
        removed |= {e["event"]["actor"] for e in desk.leaves(tid)}  # a row behind its log
        order = [pid for pid in doc["order"] if pid not in removed]
        position = {pid: n for n, pid in enumerate(order)}
        for pid in order:  # a pair forms at its second member's registration
            partner = doc["entrants"][pid]["partner"]
            mate = doc["entrants"].get(partner)
            if partner in paired or partner in removed or mate is None:
                continue
            if mate["partner"] != pid:
                continue
            if position[partner] < position[pid]:
                pairs.append([partner, pid])
                paired |= {partner, pid}
        if len(pairs) != doc["pairs"]:
            raise StateConflict(
                f"the tournament needs {doc['pairs']} pairs and {len(pairs)} have entered",
                details={"pairs": len(pairs), "needed": doc["pairs"]},
            )
        unpaired = [p for p in order if p not in paired]
        body = {"pairs": pairs, "unpaired": unpaired}
        if desk.beacon_source is not None and doc["format"] == DUPLICATE:
            chain = desk.beacon_source.chain()
            deadline = int(desk.config.clock()) + 1 + seconds
            body |= {
                "deals": deals.VERSION_2,
                "reveal_deadline": deadline,
                "beacon": chain.to_json() | {"round": chain.round_after(deadline)},
            }
        desk.event(conn, doc, "tournament_start", body, by)
        desk.keep(conn, doc)
        return desk.load(conn, tid)


# ---------------------------------------------------------------------- entrants


def signed_event(desk: Desk, conn: Connection, tid: str, body: Any, kind: str) -> dict[str, Any]:
    """An entrant's event of type ``kind``, well formed, for this event and signed by
    the registered player it names."""
    try:
        event = check_event(body)
        check_cayenne_event(event)
    except EventError as exc:
        raise InvalidInput(exc.message, details=exc.details or {"path": "event"}) from None
    if event["type"] != kind:
        raise bad("event.type", f"must be {kind!r}")
    if event["origin"] != desk.hand_log.origin:
        raise bad("event.origin", f"this log is {desk.hand_log.origin!r}")
    if event["table"] != tid:
        raise bad("event.table", "not this tournament")
    actor = event["actor"]
    if event["hand"] != entrant_chain(actor):
        raise bad("event.hand", f"must be {entrant_chain(actor)!r}")
    try:
        player = rows.get_player(conn, actor)
    except checks.MISSING:
        raise SignatureRefused(f"unknown player {actor!r}") from None
    try:
        verify_event(event, parse_player_key(player.public_key))
    except LogSignatureInvalid as exc:
        raise SignatureRefused(exc.message, details={"path": "event.signature"}) from None
    return event


def register(desk: Desk, tid: str, body: Any) -> dict[str, Any]:
    """An entrant's signed registration: logged, then its own row. Its cost does not
    grow with the entrants already registered (the event's document is not written)."""
    conn = desk.db.connection()
    desk.load(conn, tid, entrants=False)  # 404 before anything else
    event = signed_event(desk, conn, tid, body, "tournament_register")
    pid = event["actor"]
    if event["seq"] != 0:
        raise bad("event.seq", "a registration is its chain's event 0")
    if event["body"]["partner"] == pid:
        raise bad("event.body.partner", "a player is not his own partner")
    answer = {"tournament": tid, "entrant": pid, "hash": event_hash(event)}
    with desk.lock:
        doc = desk.caught_up(conn, desk.load(conn, tid, entrants=False), entrants=False)
        if pid in doc.get("removed", []):
            raise StateConflict(
                f"{pid} was removed from this tournament by the director",
                details={"path": "event.actor"},
            )
        if _registered(conn, tid, event):
            return answer  # a retry of a registration the log took
        if doc["phase"] != "registration":
            if _logged_registration(desk, conn, tid, event):
                return answer  # taken by the log before a crash, its row not written
            raise WrongPhaseError(f"the tournament is {doc['phase']}; registration is not open")
        gone = list(doc.get("removed", []))  # removed entrants hold no place
        if event_rows.count_formed_pairs(conn, tid, gone) >= doc["pairs"]:
            # Full: one pair more (two strangers naming each other) made it unstartable
            raise StateConflict(
                f"the tournament is full: its {doc['pairs']} pairs have entered",
                details={"path": "event", "pairs": doc["pairs"]},
            )
        count = event_rows.count_entrants(conn, tid)
        if count >= desk.max_entrants:
            raise StateConflict(
                f"the tournament has {count} entrants, the most it accepts "
                f"({desk.max_entrants}: its start lists every entrant in one log event)",
                details={"path": "event", "limit": desk.max_entrants},
            )
        try:
            index = desk.hand_log.append([event])[0]
        except LogChainBroken:  # logged by another request (or before a crash)
            if _logged_registration(desk, conn, tid, event):
                return answer
            raise
        faults.at("tournament_register")
        desk.entrant_row(conn, tid, index, event)
    return answer


def _logged_registration(desk: Desk, conn: Connection, tid: str, event: dict[str, Any]) -> bool:
    """Whether the log holds the entrant's registration (its row written now if it
    was not); 409 if the log holds another one."""
    logged = desk.hand_log.log.hand_events(tid, entrant_chain(event["actor"]))
    if not logged:
        return False
    desk.entrant_row(conn, tid, logged[0]["index"], logged[0]["event"])
    return _registered(conn, tid, event)


def _registered(conn: Connection, tid: str, event: dict[str, Any]) -> bool:
    """Whether ``event`` is its entrant's registration in the rows; 409 if another is."""
    pid = event["actor"]
    registration_hash = event_rows.entrant_registration(conn, tid, pid)
    if registration_hash is None:
        return False
    if registration_hash != event_hash(event):
        raise StateConflict(f"{pid} is already registered", details={"path": "event.actor"})
    return True


def reveal(desk: Desk, tid: str, body: Any) -> dict[str, Any]:
    """An entrant's seed, received privately (logged when the event ends): its row
    only, whatever the number of entrants; under version 2 refused from the reveal
    deadline on and answered with a receipt signed by the log key (audit/tournament/
    receipt.py); under version 1 the deal once every paired entrant has revealed."""
    conn = desk.db.connection()
    event = signed_event(desk, conn, tid, body, "tournament_reveal")
    pid = event["actor"]
    with desk.lock:
        doc = desk.caught_up(conn, desk.load(conn, tid, entrants=False), entrants=False)
        if doc["phase"] != "revealing":
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; seeds are revealed at the start"
            )
        deadline = doc.get("reveal_deadline")
        received = int(desk.config.clock())
        if deadline is not None and received >= deadline:
            raise WrongPhaseError(
                f"the reveal deadline ({deadline}, Unix seconds) has passed: only the "
                "reveals received before it deal",
                details={"reveal_deadline": deadline},
            )
        entrant = event_rows.entrant(conn, tid, pid)
        if entrant is None or not any(pid in p for p in doc["pair_list"]):
            raise RefusedError(f"{pid} plays in no pair of this tournament")
        registration_hash, commitment = entrant
        if event["seq"] != 1 or event["prev"] != registration_hash:
            raise bad("event.prev", "a reveal follows its entrant's registration (seq 1)")
        seed = bytes.fromhex(event["body"]["seed"])
        opened = deals.entrant_commitment(seed, tid, pid)
        if not hmac.compare_digest(opened, bytes.fromhex(commitment)):
            raise bad("event.body.seed", "does not open the registration's commitment")
        event_rows.set_reveal(conn, tid, pid, event)
        revealed = event_rows.count_revealed(conn, tid)
        if deadline is not None:
            receipt = Receipt(
                desk.hand_log.origin, tid, pid, event_hash(event), received, int(deadline)
            )
            return {
                "tournament": tid,
                "entrant": pid,
                "revealed": True,
                "receipt": issue(receipt, desk.hand_log.signer),
            }
        if revealed >= 2 * len(doc["pair_list"]):
            rounds.advance(desk, conn, tid)  # the deal, once every entrant has revealed
    return {"tournament": tid, "entrant": pid, "revealed": True}
