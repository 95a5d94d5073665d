"""Tournaments on the service: an event from creation to its end (docs/tournaments.md).

A tournament is a chain of the log of its own (``table`` = the event id): the service's
events on hand ``event`` (creation, registration, beacon, start, deal, rounds, the
director's actions, end) and one chain per entrant on hand ``entrant-<player id>`` (its
signed registration at seq 0; its signed seed reveal at seq 1, held privately by the
service and appended when the event ends). Every state change is such an event first;
the ``api_tournaments`` row is a cache of them (and, until the deal, the entrants' rows
in ``api_tournament_entrants``: a registration or a reveal writes its own row only).

Duplicate boards are dealt from cayenne-tournament-deals (:mod:`shuffle.tournament`):
the service's tournament seed is derived from the log key (like a hand's server seed,
so a crash cannot lose it) and stays secret until the event ends. With a drand chain
(``FAIRPLAY_BEACON_URL``, :mod:`api.beacon`) an event is dealt by version 2: the start
fixes a reveal deadline and the chain's first round after it, reveals are taken (each
with a signed receipt) only before the deadline, and the deal waits for that round, so
neither the moment of the deal nor the set of revealed entrants is anyone's choice.
Without one, by version 1 (docs/tournaments.md, "Seeds"). Each round's tables
are real tables (``api_tables``); a duplicate table's hands open on the board's deal
(``board_open``, no per-hand ceremony) and its hands are readable by its four players
only until the event ends. Round-robin tables keep the per-hand ceremony and stop after
the match's hands.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from api import faults
from api import rows as store
from api.beacon import BeaconSource, HttpDrand
from api.certificate import Builds
from api.database import Connection
from api.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    InvalidSignature,
    NotFound,
    NotReady,
    WrongPhase,
)
from api.handstate import ZERO_SCORE, ruleset_pattern
from api.inputs import check_name
from api.signing import parse_player_key
from audit.errors import DatabaseUnavailable, FairplayError
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import check_event, event_hash, make_event, sign_event, verify_event
from audit.log.schemas import check_cayenne_event
from audit.rules.cards import Seat
from audit.tournament import online
from audit.tournament.event import DUPLICATE, ROUND_ROBIN
from audit.tournament.matchpoints import Adjustment
from audit.tournament.movement import Round, boards_of_set, mitchell, round_robin
from audit.tournament.receipt import Receipt, issue
from shuffle import tournament as deals
from shuffle.beacon import DrandChain, DrandRound
from shuffle.protocol import Beacon

if TYPE_CHECKING:
    from api.room import Room

__all__ = [
    "CHAIN",
    "MAX_ENTRANTS",
    "PHASES",
    "Tournaments",
    "entrant_chain",
    "public_json",
    "sitting_round",
]

log = logging.getLogger(__name__)

CHAIN = "event"
_LOGGED = (
    "beacon",
    "pair_list",
    "unpaired",
    "revealed",
    "absent",
    "withdrawn",
    "substitutions",
    "adjustments",
    "voided",
    "removed",
    "actions",
    "round",
    "rounds_played",
    "reveal_deadline",
    "drand",
)
"""The fields of an event's row that its chain's events determine (online.fold)."""
PHASES = ("created", "registration", "closed", "revealing", "playing", "over")
_BEFORE_START = ("created", "registration", "closed")
"""The phases in which entrants register (their chains are folded into the row)."""
_ROWS = (*_BEFORE_START, "revealing")
"""The phases whose entrants and reveals are kept in rows of their own
(``api_tournament_entrants``), not in the event's document: a registration or a reveal
writes one row, whatever the number of entrants. The deal copies them into the document
once (the entrants and seeds are fixed from then on)."""
_ENTRANT_KEYS = ("entrants", "order", "reveals")
MAX_ENTRANTS = 2000
"""The most entrants an event accepts. Its ``tournament_start`` lists every one (pairs and
unpaired): 2000 service player ids (22 characters) take about 50 KB, within the log's
64 KiB bound on an event (audit.log.schemas.MAX_EVENT_BYTES) and its schema's 2000
unpaired; a duplicate event seats at most 400 and a round robin 200."""


class _Moved(Conflict):
    """The event's chain moved past the row's head: another request's event came first."""


def _phase_of(chain: list[dict[str, Any]]) -> str:
    """The phase an event's chain has reached (its row's ``phase``)."""
    phase = "created"
    for ev in chain:
        kind = ev["type"]
        if kind == "tournament_registration":
            phase = "registration" if ev["body"]["open"] else "closed"
        elif kind == "tournament_start":
            phase = "revealing"
        elif kind == "tournament_deal":
            phase = "playing"
        elif kind == "tournament_end":
            phase = "over"
    return phase


def entrant_chain(player: str) -> str:
    return f"entrant-{player}"


def _bad(path: str, problem: str) -> BadRequest:
    return BadRequest(f"{path}: {problem}", details={"path": path})


def _int(body: dict[str, Any], name: str, lo: int, hi: int, default: int | None = None) -> int:
    value = body.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise _bad(name, f"must be an integer from {lo} to {hi}")
    return value


def _reason(body: Any) -> str:
    reason = body.get("reason") if isinstance(body, dict) else None
    if not isinstance(reason, str) or not 1 <= len(reason) <= 200:
        raise _bad("reason", "a reason of 1 to 200 characters")
    return check_name(reason, "reason", 200)  # certified: the names' one text rule


def _table_name(event: str, rnd: int, table: int) -> str:
    """An event table's name, within the tables' own limit (the event's name cut short)."""
    tail = f" round {rnd} table {table}"
    return event[: TABLE_NAME_MAX - len(tail)].rstrip() + tail


TABLE_NAME_MAX = 64


def _round_named(body: Any) -> int:
    """The round a round action names: it makes the action idempotent (a retry or a
    concurrent copy of the request acts on that round, never on the next one)."""
    rnd = body.get("round") if isinstance(body, dict) else None
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= 1000:
        raise _bad("round", "the number of the round this action is for (1 to 1000)")
    return rnd


class Tournaments:
    """The tournaments of one process (state in ``api_tournaments``, truth in the log)."""

    def __init__(self, live: Room) -> None:
        self.live = live
        self.db = live.db
        self.ledger = live.ledger
        self._lock = threading.RLock()
        self.certificates = Builds(self)
        """The finished events' certificate bundles, built off the request path."""
        self.max_entrants = MAX_ENTRANTS
        url = live.config.beacon_url
        self.beacon_source: BeaconSource | None = HttpDrand(url) if url else None
        """The drand chain new duplicate events are dealt from (version 2); ``None``: v1."""

    # ------------------------------------------------------------------ storage

    def _load(self, conn: Connection, tid: str, entrants: bool = True) -> dict[str, Any]:
        """The event's row; until its deal with its entrants and reveals from their rows
        (``entrants=False``: without them, for the steps that read one entrant only)."""
        row = conn.one("SELECT doc FROM api_tournaments WHERE id = ?", (tid,))
        if row is None:
            raise NotFound(f"no tournament {tid!r}", details={"tournament": tid})
        doc: dict[str, Any] = json.loads(row[0])
        if doc["phase"] in _ROWS:
            if doc.get("order"):  # a row written before migration 7: its entrants to rows
                self._adopt(conn, doc)
                return self._load(conn, tid, entrants)
            for key in _ENTRANT_KEYS:
                doc.pop(key, None)
            if entrants:
                self._fill(conn, doc)
        return doc

    def load(self, tid: str) -> dict[str, Any]:
        return self._load(self.db.connection(), tid)

    def follow(self, tid: str) -> dict[str, Any]:
        """The event as :meth:`load` reads it, first brought up to its log and moved on
        if it is behind: a step logged and not saved, or one due and not taken (a host
        died between a round's last card and the next round's first board). Any host a
        reader asks repairs it, as the room does a hand, so that no restart is needed.
        """
        conn = self.db.connection()
        doc = self._load(conn, tid)
        if not self._due(conn, doc):
            return doc
        try:
            with self._lock:
                self._advance(conn, tid)
        except DatabaseUnavailable:
            raise
        except FairplayError as exc:  # the read stands; the next one tries again
            log.error("tournament %s not moved on: %s", tid, exc)
        return self._load(conn, tid)

    def _due(self, conn: Connection, doc: dict[str, Any]) -> bool:
        """Whether the event's row is behind its chain, or its next step is due (the
        conditions of :meth:`_step`, read without taking it)."""
        if doc["phase"] == "over":
            return False
        if doc.get("head") != list(self.ledger.log.next_link(doc["id"], CHAIN)):
            return True
        if doc["phase"] == "revealing":
            return all(p in doc["reveals"] for pair in doc["pair_list"] for p in pair)
        if doc["phase"] != "playing":
            return False
        if not doc["rounds_played"] or doc["rounds_played"][-1]["over"]:
            return True
        current = doc["rounds_played"][-1]
        hands = self._round_hands(conn, current)
        if any(t["id"] not in hands and self._plays(doc, t) for t in current["tables"]):
            return True
        return self._round_done(doc, current, hands)

    def _fill(self, conn: Connection, doc: dict[str, Any]) -> None:
        """``doc``'s entrants (in the order the log took them) and reveals, from their rows."""
        rows = conn.all(
            "SELECT player, partner, commitment, registration, reveal "
            "FROM api_tournament_entrants WHERE tournament_id = ? ORDER BY log_index",
            (doc["id"],),
        )
        doc["entrants"] = {
            str(p): {"commitment": c, "partner": mate, "registration": r}
            for p, mate, c, r, _ in rows
        }
        doc["order"] = [str(r[0]) for r in rows]
        doc["reveals"] = {str(r[0]): json.loads(r[4]) for r in rows if r[4] is not None}

    def _adopt(self, conn: Connection, doc: dict[str, Any]) -> None:
        """Move the entrants and reveals a document written before migration 7 holds to
        their rows (once: the document is saved without them)."""
        logged = {
            e["event"]["actor"]: e["index"]
            for e in self.ledger.log.first_events(doc["id"], entrant_chain(""))
        }
        for pid in doc["order"]:
            e = doc["entrants"][pid]
            reveal = doc.get("reveals", {}).get(pid)
            conn.execute(
                "INSERT INTO api_tournament_entrants (tournament_id, player, log_index, "
                "partner, commitment, registration, reveal) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (
                    doc["id"],
                    pid,
                    logged.get(pid, 0),
                    e["partner"],
                    e["commitment"],
                    e["registration"],
                    None if reveal is None else json.dumps(reveal),
                ),
            )
        with contextlib.suppress(Conflict):  # another request saved it meanwhile
            self._save(conn, {k: v for k, v in doc.items() if k not in _ENTRANT_KEYS})

    def _entrant_row(self, conn: Connection, tid: str, index: int, ev: dict[str, Any]) -> None:
        """The row of an entrant whose registration the log holds at ``index``."""
        conn.execute(
            "INSERT INTO api_tournament_entrants (tournament_id, player, log_index, partner, "
            "commitment, registration) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                tid,
                ev["actor"],
                index,
                ev["body"]["partner"],
                ev["body"]["commitment"],
                event_hash(ev),
            ),
        )

    def _entrants_caught_up(self, conn: Connection, tid: str) -> bool:
        """Give every registration the log holds its row (a crash between the log and the
        row, another request's); whether any was missing. Two counts when none is."""
        logged = self.ledger.log.count_first_events(tid, entrant_chain(""))
        row = conn.one(
            "SELECT COUNT(*) FROM api_tournament_entrants WHERE tournament_id = ?", (tid,)
        )
        if row is not None and int(row[0]) >= logged:
            return False
        for e in self.ledger.log.first_events(tid, entrant_chain("")):
            self._entrant_row(conn, tid, e["index"], e["event"])
        log.warning("tournament %s: entrants brought up to the log", tid)
        return True

    @staticmethod
    def _stored(doc: dict[str, Any]) -> str:
        """The document as stored: without the entrants kept in their rows (until the deal)."""
        if doc["phase"] in _ROWS:
            return json.dumps({k: v for k, v in doc.items() if k not in _ENTRANT_KEYS})
        return json.dumps(doc)

    def _save(self, conn: Connection, doc: dict[str, Any]) -> None:
        if doc["phase"] not in _ROWS and "entrants" not in doc:
            self._fill(conn, doc)  # the deal, reached by a step that read no entrant
        version = doc["version"]
        doc["version"] = version + 1
        cur = conn.execute(
            "UPDATE api_tournaments SET doc = ?, version = ? WHERE id = ? AND version = ?",
            (self._stored(doc), version + 1, doc["id"], version),
        )
        if cur.rowcount != 1:
            raise Conflict("the tournament changed meanwhile; try again")

    def _event(
        self, conn: Connection, doc: dict[str, Any], kind: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """Sign and append one event of the tournament's own chain, at the head the row
        ``doc`` holds (``doc["head"]``, moved on to the new event).

        Like a hand's action, the event takes its place from the row it was judged
        against, not from the log: if another request (another worker or host) logged an
        event since the row was read, the log refuses this one, the row is brought up to
        the log and :class:`_Moved` (409) is raised, so a step is never taken twice.
        """
        tid = doc["id"]
        seq, prev = doc["head"]
        event = make_event(
            origin=self.ledger.origin,
            table=tid,
            hand=CHAIN,
            seq=seq,
            prev=prev,
            actor="server",
            type=kind,
            body=body,
            time=self.live.now(),
        )
        signed = sign_event(event, self.ledger.signer)
        try:
            self.ledger.append([signed])
        except LogChainBroken:
            self._caught_up(conn, self._load(conn, tid))
            raise _Moved(
                "the tournament moved on meanwhile; read it again", details={"tournament": tid}
            ) from None
        doc["head"] = [seq + 1, event_hash(signed)]
        faults.at(kind)  # the tests' crash between the event and the row (api/faults.py)
        return signed

    def _keep(self, conn: Connection, doc: dict[str, Any]) -> None:
        """Save the row of an event this request logged. If another request saved the
        row meanwhile (it brought the row up to the log, or kept an entrant), the log
        decides: the row is brought up to it, this event included."""
        try:
            self._save(conn, doc)
        except Conflict:
            self._caught_up(conn, self._load(conn, doc["id"]))

    def _current(self, conn: Connection, tid: str) -> dict[str, Any]:
        """The event's row, brought up to its log first if a crash (or another request
        between its append and its row write) left the row behind."""
        return self._caught_up(conn, self._load(conn, tid))

    def _caught_up(
        self, conn: Connection, doc: dict[str, Any], entrants: bool = True
    ) -> dict[str, Any]:
        """``doc`` with what its log holds and it does not (see :meth:`recover`); with
        ``entrants``, every registration the log holds has its row and is in ``doc``
        (a registration or a reveal reads its own entrant's row only)."""
        tid = doc["id"]
        if entrants and doc["phase"] in _BEFORE_START and self._entrants_caught_up(conn, tid):
            self._fill(conn, doc)
        for _ in range(10):
            link = self.ledger.log.next_link(tid, CHAIN)
            if doc.get("head") == list(link):
                return doc
            chain = [e["event"] for e in self.ledger.log.hand_events(tid, CHAIN)]
            head = [len(chain), event_hash(chain[-1])]
            logged = online.fold(tid, [(e["type"], e["body"]) for e in chain])
            behind = {k: logged[k] for k in _LOGGED if doc.get(k) != logged[k]}
            phase = _phase_of(chain)
            if phase != doc["phase"]:
                behind["phase"] = phase
            doc |= behind
            doc["head"] = head
            try:
                self._save(conn, doc)
            except Conflict:  # another request wrote the row meanwhile: read it again
                doc = self._load(conn, tid, entrants)
                continue
            if behind:
                log.warning(
                    "tournament %s brought up to its log: %s", tid, ", ".join(sorted(behind))
                )
            if behind.get("phase") == "over":  # the end is logged: publish the tables
                self._publish(conn, tid)
            return doc
        raise Conflict("the tournament kept moving on meanwhile; read it again")

    def _publish(self, conn: Connection, tid: str) -> None:
        """The event is over: its tables' hands are readable by anyone; sign the log."""
        conn.execute("UPDATE api_tournament_tables SET private = 0 WHERE tournament_id = ?", (tid,))
        self.ledger.sign_checkpoint()
        self.certificates.begin(tid)  # its certificate bundle, built in the background

    def service_seed(self, tid: str) -> bytes:
        """The tournament seed: derived from the log key, secret until the event ends."""
        return self.ledger.signer.derive_secret(
            f"cayenne-fairplay tournament seed v1\x00{tid}".encode()
        )

    # ------------------------------------------------------------------ director

    def create(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise _bad("$", "the body must be an object")
        from audit.errors import RecordError, RulesetError
        from audit.rules.ruleset import Ruleset

        name = check_name(body.get("name", "tournament"), "name", 100)
        fmt = body.get("format")
        if fmt not in (DUPLICATE, ROUND_ROBIN):
            raise _bad("format", f"must be {DUPLICATE!r} or {ROUND_ROBIN!r}")
        ruleset_obj = body.get("ruleset", {})
        if not isinstance(ruleset_obj, dict):
            raise _bad("ruleset", "expected an object")
        try:
            ruleset = Ruleset.from_json(ruleset_obj, extensions=False).to_json()
        except RecordError as exc:
            raise RulesetError(exc.message, details={"path": exc.path}) from None
        schedule = body.get("schedule", "")
        if not isinstance(schedule, str) or len(schedule) > 200:
            raise _bad("schedule", "at most 200 characters")
        if schedule.strip():  # the names' rule: no control, bidi, zero-width or CR/LF
            schedule = check_name(schedule, "schedule", 200)
        tid = store.new_id("e")
        spec: dict[str, Any] = {"name": name, "format": fmt}
        if fmt == DUPLICATE:
            tables = _int(body, "tables", 1, 100)
            rounds = _int(body, "rounds", 1, tables, tables if tables % 2 else max(tables - 1, 1))
            spec |= {
                "movement": "mitchell",
                "tables": tables,
                "pairs": 2 * tables,
                "rounds": rounds,
                "boards_per_round": _int(body, "boards_per_round", 1, 36),
            }
            mitchell(tables, rounds)
        else:
            pairs = _int(body, "pairs", 2, 100)
            default = pairs - 1 + pairs % 2
            spec |= {
                "movement": "round-robin",
                "pairs": pairs,
                "rounds": _int(body, "rounds", 1, default, default),
                "hands_per_match": _int(body, "hands_per_match", 1, 32),
            }
        seed = self.service_seed(tid)
        spec |= {
            "ruleset": ruleset,
            "schedule": schedule,
            "service_commitment": deals.service_commitment(seed, tid).hex(),
            "pattern": list(ruleset_pattern(ruleset)),
        }
        with self._lock:
            first: dict[str, Any] = {"id": tid, "head": [0, None]}
            self._event(self.db.connection(), first, "tournament_create", spec)
            doc = {
                "id": tid,
                "head": first["head"],
                "version": 0,
                **spec,
                "phase": "created",
                "created_at": self.live.now(),
                "beacon": None,
                "entrants": {},
                "order": [],
                "pair_list": [],
                "unpaired": [],
                "reveals": {},
                "revealed": [],
                "absent": [],
                "withdrawn": {},
                "substitutions": [],
                "adjustments": [],
                "voided": [],
                "removed": [],
                "actions": [],
                "round": 0,
                "rounds_played": [],
                "reveal_deadline": None,
                "drand": None,
            }
            conn = self.db.connection()
            conn.execute(
                "INSERT INTO api_tournaments (id, doc, version, created_at) VALUES (?, ?, ?, ?)",
                (tid, self._stored(doc), 0, doc["created_at"]),
            )
        return doc

    def registration(self, tid: str, opening: bool) -> dict[str, Any]:
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            want = ("created", "registration") if opening else ("registration", "closed")
            if doc["phase"] != want[0]:
                verb = "opened" if opening else "closed"
                raise WrongPhase(f"the tournament is {doc['phase']}; registration cannot be {verb}")
            self._event(conn, doc, "tournament_registration", {"open": opening})
            doc["phase"] = want[1]
            self._keep(conn, doc)
            return self._load(conn, tid)

    def beacon(self, tid: str, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise _bad("$", "the body must be an object {source, round, randomness}")
        source = body.get("source")
        if not isinstance(source, str) or not 1 <= len(source) <= 100:
            raise _bad("source", "1 to 100 characters")
        rnd = _int(body, "round", 0, 2**53 - 1)
        randomness = body.get("randomness")
        try:
            raw = bytes.fromhex(randomness) if isinstance(randomness, str) else b""
        except ValueError:
            raw = b""
        if not 1 <= len(raw) <= 64 or randomness != raw.hex():
            raise _bad("randomness", "1 to 64 bytes in lowercase hex")
        if self.beacon_source is not None:
            raise WrongPhase(
                "this service deals from the drand round after the reveal deadline "
                "(cayenne-tournament-deals/2): no beacon value is fixed by hand"
            )
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            if doc["phase"] not in ("created", "registration"):
                raise WrongPhase("the beacon is fixed before registration closes")
            if doc["beacon"] is not None:
                raise Conflict("the beacon of this tournament is already fixed")
            beacon = {"source": source, "round": rnd, "randomness": randomness}
            self._event(conn, doc, "tournament_beacon", beacon)
            doc["beacon"] = beacon
            self._keep(conn, doc)
            return self._load(conn, tid)

    def start(self, tid: str, body: Any = None) -> dict[str, Any]:
        """Registration is over: fix the pairs and ask the entrants for their seeds.

        With a beacon (version 2) the start also fixes the reveal deadline (now plus
        ``reveal_seconds``) and the drand round that will deal: the chain's first round
        published after the deadline. Only reveals received before the deadline deal."""
        body = {} if body is None else body
        if not isinstance(body, dict):
            raise _bad("$", "the body must be an object")
        seconds = _int(body, "reveal_seconds", 1, 86_400, self.live.config.reveal_seconds)
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            if doc["phase"] != "closed":
                raise WrongPhase(f"the tournament is {doc['phase']}; close registration first")
            pairs: list[list[str]] = []
            paired: set[str] = set()
            removed = set(doc.get("removed", []))
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
                raise Conflict(
                    f"the tournament needs {doc['pairs']} pairs and {len(pairs)} have entered",
                    details={"pairs": len(pairs), "needed": doc["pairs"]},
                )
            unpaired = [p for p in order if p not in paired]
            start: dict[str, Any] = {"pairs": pairs, "unpaired": unpaired}
            if self.beacon_source is not None and doc["format"] == DUPLICATE:
                chain = self.beacon_source.chain()
                deadline = int(self.live.config.clock()) + 1 + seconds
                start |= {
                    "deals": deals.VERSION_2,
                    "reveal_deadline": deadline,
                    "beacon": chain.to_json() | {"round": chain.round_after(deadline)},
                }
            self._event(conn, doc, "tournament_start", start)
            doc |= {"phase": "revealing", "pair_list": pairs, "unpaired": unpaired}
            if "reveal_deadline" in start:
                doc |= {"reveal_deadline": start["reveal_deadline"], "drand": start["beacon"]}
            self._keep(conn, doc)
            return self._load(conn, tid)

    def next_round(self, tid: str, body: Any = None) -> dict[str, Any]:
        """The director's word: deal (withdrawing whoever has not revealed) or move on.

        The request names the round it starts (``{"round": n}``): once round ``n`` is
        begun, the same request again (a retry, or many at once) changes nothing."""
        wanted = _round_named(body)
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            if wanted <= doc["round"]:
                return self._load(conn, tid)  # begun already: a retry
            if wanted != doc["round"] + 1 or wanted > doc["rounds"]:
                raise WrongPhase(
                    f"round {wanted} cannot start: the event is in round {doc['round']} "
                    f"of {doc['rounds']}",
                    details={"path": "round", "round": doc["round"]},
                )
            if doc["phase"] == "revealing":
                if doc.get("reveal_deadline") is None:
                    self._deal(conn, doc)  # version 1: the director's word
                else:
                    self._deal_by_rule(conn, doc, asked=True)
            elif doc["phase"] == "playing":
                if _round_on(doc):  # else the event is moving on already
                    self._end_round(conn, doc, "the director started the next round")
            else:
                raise WrongPhase(f"the tournament is {doc['phase']}; no round to start")
            self._advance(conn, tid)
            return self._load(conn, tid)

    def end_round(self, tid: str, body: Any) -> dict[str, Any]:
        """End the round the request names (``{"round": n, "reason"}``) early; once it is
        over, the same request again (a retry, or many at once) changes nothing."""
        reason = _reason(body)
        wanted = _round_named(body)
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            played = {r["round"]: r for r in doc["rounds_played"]}
            if wanted in played and played[wanted]["over"]:
                return self._load(conn, tid)  # ended already: a retry
            if doc["phase"] != "playing" or not _round_on(doc) or wanted != doc["round"]:
                raise WrongPhase(
                    f"the tournament is {doc['phase']} in round {doc['round']}; round "
                    f"{wanted} is not being played",
                    details={"path": "round", "round": doc["round"]},
                )
            self._end_round(conn, doc, reason)
            self._advance(conn, tid)
            return self._load(conn, tid)

    def _pair_number(self, doc: dict[str, Any], body: dict[str, Any]) -> int:
        pair = _int(body, "pair", 1, len(doc["pair_list"]) or 1)
        if not doc["pair_list"]:
            raise WrongPhase("the pairs are fixed when the tournament starts")
        return pair

    def director(self, tid: str, action: str, body: Any) -> dict[str, Any]:
        """substitute, adjust, withdraw or void_board: a logged event with its reason."""
        if not isinstance(body, dict):
            raise _bad("$", "the body must be an object")
        reason = _reason(body)
        if action == "remove":
            return self._remove(tid, body, reason)
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            if doc["phase"] not in ("revealing", "playing"):
                raise WrongPhase(f"the tournament is {doc['phase']}; no director action now")
            from_round = doc["round"] + 1
            if action == "substitute":
                pair = self._pair_number(doc, body)
                out, new = body.get("out"), body.get("in")
                if out not in self.members(doc, pair, from_round):
                    raise _bad("out", f"{out!r} does not play in pair {pair}")
                if not isinstance(new, str):
                    raise _bad("in", "a registered player's id")
                try:
                    store.get_player(conn, new)
                except NotFound:
                    raise _bad("in", f"no player {new!r}") from None
                if any(new in self.members(doc, p, from_round) for p in self.pair_numbers(doc)):
                    raise _bad("in", f"{new} already plays in this tournament")
                played_for = {
                    t[side]
                    for r in doc["rounds_played"]
                    for t in r["tables"]
                    for side, seats in (("ns", "NS"), ("ew", "EW"))
                    if new in (t["seats"][seats[0]], t["seats"][seats[1]])
                }
                if played_for - {pair}:  # the boards he played come round to that pair again
                    raise _bad(
                        "in",
                        f"{new} has played for pair {min(played_for - {pair})} in this "
                        "tournament: in another pair he would meet boards he has played",
                    )
                event = {"pair": pair, "out": out, "in": new, "from_round": from_round}
                doc["substitutions"].append(event)
            elif action == "withdraw":
                pair = self._pair_number(doc, body)
                if str(pair) in doc["withdrawn"] or pair in doc["absent"]:
                    raise Conflict(f"pair {pair} is already withdrawn")
                event = {"pair": pair, "from_round": from_round}
                doc["withdrawn"][str(pair)] = from_round
            elif action == "adjust":
                if doc["format"] != DUPLICATE:
                    raise _bad("$", "adjusted scores are given on duplicate boards")
                rnd = _int(body, "round", 1, doc["rounds"])
                table = _int(body, "table", 1, doc["tables"])
                board = _int(body, "board", 1, doc["rounds"] * doc["tables"] * 100)
                sitting = self._sitting(doc, rnd, table)
                if sitting is None or board not in sitting["boards"]:
                    raise _bad(
                        "board", f"board {board} is not played at table {table} in round {rnd}"
                    )
                values = {a.value for a in Adjustment}
                for side in ("ns", "ew"):
                    if body.get(side) not in values:
                        raise _bad(side, f"one of {sorted(values)}")
                same = {"round": rnd, "table": table, "board": board}
                same |= {"ns": body["ns"], "ew": body["ew"]}
                if any({k: a[k] for k in same} == same for a in doc["adjustments"]):
                    return self._load(conn, tid)  # given already: a retry changes nothing
                event = {
                    "round": rnd,
                    "table": table,
                    "board": board,
                    "ns": body["ns"],
                    "ew": body["ew"],
                }
                doc["adjustments"] = [
                    a
                    for a in doc["adjustments"]
                    if (a["round"], a["table"], a["board"]) != (rnd, table, board)
                ] + [event]
            elif action == "void_board":
                if doc["format"] != DUPLICATE:
                    raise _bad("$", "boards are voided in a duplicate event")
                board = _int(body, "board", 1, doc["tables"] * doc["boards_per_round"])
                if board in doc["voided"]:
                    raise Conflict(f"board {board} is already void")
                event = {"board": board}
                doc["voided"].append(board)
            else:  # pragma: no cover - the routes name the actions
                raise NotFound(f"no director action {action!r}")
            event["reason"] = reason
            self._event(conn, doc, f"tournament_{action}", event)
            doc["actions"].append({"action": action, **event})
            self._keep(conn, doc)
            if action == "withdraw":
                self._advance(conn, tid)
            return self._load(conn, tid)

    def _remove(self, tid: str, body: dict[str, Any], reason: str) -> dict[str, Any]:
        """The director removes an entrant before the start (``{entrant, reason}``),
        logged as ``tournament_remove``: it is in no pair, and may not register again in
        this event (its chain's registration is taken). Strangers who entered naming each
        other, or a pair the director refuses, no longer hold the event's places. Once
        removed, the same request changes nothing."""
        pid = body.get("entrant")
        if not isinstance(pid, str):
            raise _bad("entrant", "the player id of an entrant of this tournament")
        with self._lock:
            conn = self.db.connection()
            doc = self._current(conn, tid)
            if pid in doc.get("removed", []):
                return self._load(conn, tid)  # removed already: a retry
            if doc["phase"] not in _BEFORE_START:
                raise WrongPhase(
                    f"the tournament is {doc['phase']}; entrants are removed before the start"
                )
            if pid not in doc["entrants"]:
                raise _bad("entrant", f"{pid!r} has not entered this tournament")
            event = {"entrant": pid, "reason": reason}
            self._event(conn, doc, "tournament_remove", event)
            doc["removed"] = [*doc.get("removed", []), pid]
            doc["actions"].append({"action": "remove", **event})
            self._keep(conn, doc)
            return self._load(conn, tid)

    # ------------------------------------------------------------------ entrants

    def _signed(self, conn: Connection, tid: str, body: Any, kind: str) -> dict[str, Any]:
        try:
            event = check_event(body)
            check_cayenne_event(event)
        except EventError as exc:
            raise BadRequest(exc.message, details=exc.details or {"path": "event"}) from None
        if event["type"] != kind:
            raise _bad("event.type", f"must be {kind!r}")
        if event["origin"] != self.ledger.origin:
            raise _bad("event.origin", f"this log is {self.ledger.origin!r}")
        if event["table"] != tid:
            raise _bad("event.table", "not this tournament")
        actor = event["actor"]
        if event["hand"] != entrant_chain(actor):
            raise _bad("event.hand", f"must be {entrant_chain(actor)!r}")
        try:
            player = store.get_player(conn, actor)
        except NotFound:
            raise InvalidSignature(f"unknown player {actor!r}") from None
        try:
            verify_event(event, parse_player_key(player.public_key))
        except LogSignatureInvalid as exc:
            raise InvalidSignature(exc.message, details={"path": "event.signature"}) from None
        return event

    def register(self, tid: str, body: Any) -> dict[str, Any]:
        """An entrant's signed registration: logged, then its own row. Its cost does not
        grow with the entrants already registered (the event's document is not written)."""
        conn = self.db.connection()
        self._load(conn, tid, entrants=False)  # 404 before anything else
        event = self._signed(conn, tid, body, "tournament_register")
        pid = event["actor"]
        if event["seq"] != 0:
            raise _bad("event.seq", "a registration is its chain's event 0")
        if event["body"]["partner"] == pid:
            raise _bad("event.body.partner", "a player is not his own partner")
        answer = {"tournament": tid, "entrant": pid, "hash": event_hash(event)}
        with self._lock:
            doc = self._caught_up(conn, self._load(conn, tid, entrants=False), entrants=False)
            if pid in doc.get("removed", []):
                raise Conflict(
                    f"{pid} was removed from this tournament by the director",
                    details={"path": "event.actor"},
                )
            if self._registered(conn, tid, event):
                return answer  # a retry of a registration the log took
            if doc["phase"] != "registration":
                if self._logged_registration(conn, tid, event):
                    return answer  # taken by the log before a crash, its row not written
                raise WrongPhase(f"the tournament is {doc['phase']}; registration is not open")
            gone = list(doc.get("removed", []))  # removed entrants hold no place
            out = " AND a.player NOT IN ({0}) AND b.player NOT IN ({0})".format(
                ", ".join("?" * len(gone))
            )
            formed = conn.one(
                "SELECT COUNT(*) FROM api_tournament_entrants a JOIN api_tournament_entrants b "
                "ON b.tournament_id = a.tournament_id AND b.player = a.partner "
                "AND b.partner = a.player WHERE a.tournament_id = ? AND a.player < b.player"
                + (out if gone else ""),
                (tid, *gone, *gone),
            )
            if formed is not None and int(formed[0]) >= doc["pairs"]:
                # Full: one pair more (two strangers naming each other) made it unstartable
                raise Conflict(
                    f"the tournament is full: its {doc['pairs']} pairs have entered",
                    details={"path": "event", "pairs": doc["pairs"]},
                )
            count = conn.one(
                "SELECT COUNT(*) FROM api_tournament_entrants WHERE tournament_id = ?", (tid,)
            )
            if count is not None and int(count[0]) >= self.max_entrants:
                raise Conflict(
                    f"the tournament has {count[0]} entrants, the most it accepts "
                    f"({self.max_entrants}: its start lists every entrant in one log event)",
                    details={"path": "event", "limit": self.max_entrants},
                )
            try:
                index = self.ledger.append([event])[0]
            except LogChainBroken:  # logged by another request (or before a crash)
                if self._logged_registration(conn, tid, event):
                    return answer
                raise
            faults.at("tournament_register")
            self._entrant_row(conn, tid, index, event)
        return answer

    def _logged_registration(self, conn: Connection, tid: str, event: dict[str, Any]) -> bool:
        """Whether the log holds the entrant's registration (its row written now if it
        was not); 409 if the log holds another one."""
        logged = self.ledger.log.hand_events(tid, entrant_chain(event["actor"]))
        if not logged:
            return False
        self._entrant_row(conn, tid, logged[0]["index"], logged[0]["event"])
        return self._registered(conn, tid, event)

    @staticmethod
    def _registered(conn: Connection, tid: str, event: dict[str, Any]) -> bool:
        """Whether ``event`` is its entrant's registration in the rows; 409 if another is."""
        pid = event["actor"]
        row = conn.one(
            "SELECT registration FROM api_tournament_entrants "
            "WHERE tournament_id = ? AND player = ?",
            (tid, pid),
        )
        if row is None:
            return False
        if row[0] != event_hash(event):
            raise Conflict(f"{pid} is already registered", details={"path": "event.actor"})
        return True

    def reveal(self, tid: str, body: Any) -> dict[str, Any]:
        """An entrant's seed, received privately (logged when the event ends): its row
        only, whatever the number of entrants; under version 2 refused from the reveal
        deadline on and answered with a receipt signed by the log key (audit/tournament/
        receipt.py); under version 1 the deal once every paired entrant has revealed."""
        conn = self.db.connection()
        event = self._signed(conn, tid, body, "tournament_reveal")
        pid = event["actor"]
        with self._lock:
            doc = self._caught_up(conn, self._load(conn, tid, entrants=False), entrants=False)
            if doc["phase"] != "revealing":
                raise WrongPhase(
                    f"the tournament is {doc['phase']}; seeds are revealed at the start"
                )
            deadline = doc.get("reveal_deadline")
            received = int(self.live.config.clock())
            if deadline is not None and received >= deadline:
                raise WrongPhase(
                    f"the reveal deadline ({deadline}, Unix seconds) has passed: only the "
                    "reveals received before it deal",
                    details={"reveal_deadline": deadline},
                )
            entrant = conn.one(
                "SELECT registration, commitment FROM api_tournament_entrants "
                "WHERE tournament_id = ? AND player = ?",
                (tid, pid),
            )
            if entrant is None or not any(pid in p for p in doc["pair_list"]):
                raise Forbidden(f"{pid} plays in no pair of this tournament")
            if event["seq"] != 1 or event["prev"] != entrant[0]:
                raise _bad("event.prev", "a reveal follows its entrant's registration (seq 1)")
            seed = bytes.fromhex(event["body"]["seed"])
            opened = deals.entrant_commitment(seed, tid, pid)
            if not hmac.compare_digest(opened, bytes.fromhex(entrant[1])):
                raise BadRequest(
                    "event.body.seed: does not open the registration's commitment",
                    details={"path": "event.body.seed"},
                )
            conn.execute(
                "UPDATE api_tournament_entrants SET reveal = ? "
                "WHERE tournament_id = ? AND player = ?",
                (json.dumps(event), tid, pid),
            )
            revealed = conn.one(
                "SELECT COUNT(*) FROM api_tournament_entrants "
                "WHERE tournament_id = ? AND reveal IS NOT NULL",
                (tid,),
            )
            if deadline is not None:
                receipt = Receipt(
                    self.ledger.origin, tid, pid, event_hash(event), received, int(deadline)
                )
                return {
                    "tournament": tid,
                    "entrant": pid,
                    "revealed": True,
                    "receipt": issue(receipt, self.ledger.signer),
                }
            if revealed is not None and int(revealed[0]) >= 2 * len(doc["pair_list"]):
                self._advance(conn, tid)  # the deal, once every entrant has revealed
        return {"tournament": tid, "entrant": pid, "revealed": True}

    # ------------------------------------------------------------------ rounds

    def pair_numbers(self, doc: dict[str, Any]) -> list[int]:
        return list(range(1, len(doc["pair_list"]) + 1))

    def members(self, doc: dict[str, Any], pair: int, rnd: int) -> list[str]:
        """The pair's two players in round ``rnd`` (substitutions from their round on)."""
        out = list(doc["pair_list"][pair - 1])
        for s in doc["substitutions"]:
            if s["pair"] == pair and s["from_round"] <= rnd and s["out"] in out:
                out[out.index(s["out"])] = s["in"]
        return out

    def movement(self, doc: dict[str, Any]) -> tuple[Round, ...]:
        if doc["format"] == DUPLICATE:
            return mitchell(doc["tables"], doc["rounds"])
        return round_robin(doc["pairs"])[: doc["rounds"]]

    def _pairs_of(self, doc: dict[str, Any], ns: int, ew: int) -> tuple[int, int]:
        """Movement positions to pair numbers (Mitchell: NS t is pair t, EW t pair T+t)."""
        if doc["format"] == DUPLICATE:
            return ns, doc["tables"] + ew
        return ns, ew

    def _out(self, doc: dict[str, Any], pair: int, rnd: int) -> bool:
        w = doc["withdrawn"].get(str(pair))
        return pair in doc["absent"] or (w is not None and w <= rnd)

    def transcript(
        self, doc: dict[str, Any], *, with_seed: bool = True
    ) -> deals.TournamentTranscript:
        b = doc["beacon"]
        entrants = tuple(
            deals.Entrant(
                pid,
                bytes.fromhex(doc["entrants"][pid]["commitment"]),
                bytes.fromhex(doc["reveals"][pid]["body"]["seed"])
                if pid in doc["revealed"]
                else None,
            )
            for pair in doc["pair_list"]
            for pid in pair
        )
        chain, drand = drand_of(doc.get("drand"))
        return deals.TournamentTranscript(
            event=doc["id"],
            boards=doc["tables"] * doc["boards_per_round"],
            service_commitment=bytes.fromhex(doc["service_commitment"]),
            entrants=entrants,
            pattern=tuple(doc["pattern"]),
            service_seed=self.service_seed(doc["id"]) if with_seed else None,
            beacon=None
            if b is None
            else Beacon(b["source"], b["round"], bytes.fromhex(b["randomness"])),
            version=1 if doc.get("reveal_deadline") is None else 2,
            reveal_deadline=doc.get("reveal_deadline"),
            chain=chain,
            drand=drand,
        )

    def board(self, doc: dict[str, Any], number: int) -> deals.BoardDeal:
        t = self.transcript(doc)
        return deals.derive_boards(replace(t, boards=number))[number - 1]

    def _deal_by_rule(self, conn: Connection, doc: dict[str, Any], *, asked: bool) -> bool:
        """Version 2: deal once the drand round the start named is out, from the reveals
        received before the deadline (no later one was taken); whether it dealt. Nobody
        chooses the moment: before the round, nothing (``asked``: 409 NOT_READY)."""
        chain, _ = drand_of(doc["drand"])
        assert chain is not None
        rnd = int(doc["drand"]["round"])
        due = chain.round_time(rnd)
        now = self.live.config.clock()
        beacon = None
        if now >= due and self.beacon_source is not None:
            beacon = self.beacon_source.fetch(rnd)
        if beacon is None:
            if not asked:
                return False
            wait = max(1, int(due - now) + 1)
            raise NotReady(
                f"the deal waits for drand round {rnd}, the first after the reveal deadline "
                f"(published at {due}, Unix seconds)",
                retry_after=wait,
                details={"round": rnd, "published_at": due},
            )
        self._deal(conn, doc, beacon)
        return True

    def _deal(
        self, conn: Connection, doc: dict[str, Any], beacon: DrandRound | None = None
    ) -> None:
        revealed = sorted(p for p in doc["reveals"])
        withdrawn = [
            n
            for n, pair in enumerate(doc["pair_list"], 1)
            if any(p not in doc["reveals"] for p in pair)
        ]
        if len(withdrawn) == len(doc["pair_list"]):
            raise Conflict("no pair has revealed its seeds: nothing can be dealt")
        body: dict[str, Any] = {"revealed": revealed, "withdrawn": withdrawn}
        if beacon is not None:
            body["beacon"] = beacon.to_json()
        self._event(conn, doc, "tournament_deal", body)
        doc |= {"phase": "playing", "revealed": revealed, "absent": withdrawn}
        if beacon is not None:
            doc["drand"] = doc["drand"] | beacon.to_json()
        self._keep(conn, doc)

    def _sitting(self, doc: dict[str, Any], rnd: int, table: int) -> dict[str, Any] | None:
        for r in doc["rounds_played"]:
            if r["round"] == rnd:
                for t in r["tables"]:
                    if t["table"] == table:
                        return t  # type: ignore[no-any-return]
        return None

    def _start_round(self, conn: Connection, doc: dict[str, Any]) -> None:
        rnd = doc["round"] + 1
        plan = self.movement(doc)[rnd - 1]
        tables: list[dict[str, Any]] = []
        for s in plan.sittings:
            ns, ew = self._pairs_of(doc, s.ns, s.ew)
            if self._out(doc, ns, rnd) or self._out(doc, ew, rnd):
                continue  # the table is not played: its boards are adjusted
            a, b = self.members(doc, ns, rnd)
            c, d = self.members(doc, ew, rnd)
            sitting: dict[str, Any] = {
                "table": s.table,
                "id": store.new_id("t"),
                "ns": ns,
                "ew": ew,
                "seats": {"N": a, "E": c, "S": b, "W": d},
            }
            if doc["format"] == DUPLICATE:
                assert s.board_set is not None
                sitting["boards"] = list(boards_of_set(s.board_set, doc["boards_per_round"]))
            else:
                sitting["hands"] = doc["hands_per_match"]
            tables.append(sitting)
        bye = plan.bye
        self._event(conn, doc, "tournament_round", {"round": rnd, "tables": tables, "bye": bye})
        doc["round"] = rnd
        doc["rounds_played"].append({"round": rnd, "tables": tables, "bye": bye, "over": False})
        self._keep(conn, doc)

    def _open_tables(self, conn: Connection, doc: dict[str, Any], current: dict[str, Any]) -> bool:
        """Give every table of the round its row and its first hand, as the logged
        ``tournament_round`` seats it; what a crash left undone is done, what was done is
        kept (a first hand the log holds but no row does is rebuilt from its logged
        opening), and what another request does at the same time is taken once (the
        rows are inserted if absent, the first hand's opening is appended at seq 0 only
        once). The round's first boards are derived together and their openings go to the
        log in one append; when the log refuses that unit (a crash or another request
        appended some of them), table by table. Whether anything was written."""
        rnd = current["round"]
        private = 1 if doc["format"] == DUPLICATE else 0
        wrote = False
        waiting: list[tuple[store.Table, int]] = []  # no first hand yet; its board (0: rubber)
        for sitting in current["tables"]:
            try:
                table = store.get_table(conn, sitting["id"])
            except NotFound:
                table = store.Table(
                    id=sitting["id"],
                    name=_table_name(doc["name"], rnd, sitting["table"]),
                    ruleset=doc["ruleset"],
                    seats={Seat.parse(k): v for k, v in sitting["seats"].items()},
                    first_dealer=Seat.N,
                    hand_count=1,
                    created_at=self.live.now(),
                )
                with conn.transaction():
                    store.insert_table(conn, table, if_absent=True)
                    conn.execute(
                        "INSERT INTO api_tournament_tables (table_id, tournament_id, round, "
                        "number, private) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (table.id, doc["id"], rnd, sitting["table"], private),
                    )
                wrote = True
            if conn.one("SELECT 1 FROM api_hands WHERE table_id = ? AND number = 1", (table.id,)):
                continue
            first = 0
            if doc["format"] == DUPLICATE:
                first = next((b for b in sitting["boards"] if b not in doc["voided"]), 0)
                if not first:
                    continue  # every board of the table is void: nothing to play
            waiting.append((table, first))
        if not waiting:
            return wrote
        dealt: list[deals.BoardDeal] = []
        if doc["format"] == DUPLICATE:  # the round's first boards, derived together
            last = max(first for _, first in waiting)
            dealt = deals.derive_boards(replace(self.transcript(doc), boards=last))
        hands = [
            (
                table,
                self.live.open_board(table, 1, doc, rnd, dealt[first - 1])
                if first
                else self.live.open_hand(table, 1, ZERO_SCORE, Seat.N, 0),
            )
            for table, first in waiting
        ]
        try:  # every table's opening in one append (one commit, not one a table)
            self.ledger.append([event for _, hand in hands for event in hand.pending])
            faults.at("board_open")
            opened = [hand for _, hand in hands]
        except LogChainBroken:  # some are in the log already: table by table
            opened = [hand for table, hand in hands if self._open_first(conn, table, hand)]
        for hand in opened:
            hand.pending = []
            store.insert_hand(conn, hand, if_absent=True)
        return wrote or bool(opened)

    def _open_first(self, conn: Connection, table: store.Table, hand: store.HandRow) -> bool:
        """Log a table's first hand unless the log holds it; ``False`` when another request
        wrote its row meanwhile. A logged opening that is not the one the service derives
        is a conflict for an operator."""
        logged = self.ledger.hand_events(table.id, 1)
        if not logged:
            try:
                self.ledger.append(hand.pending)
                faults.at("board_open")
            except LogChainBroken:  # another request appended it meanwhile
                logged = self.ledger.hand_events(table.id, 1)
        if logged:  # appended by a crashed or a concurrent request, its row not written
            opening, derived = logged[0]["event"], hand.pending[0]
            if len(logged) > 1 and conn.one(
                "SELECT 1 FROM api_hands WHERE table_id = ? AND number = 1", (table.id,)
            ):
                return False  # another request wrote it and its players are playing
            if len(logged) > 1 or (opening["type"], opening["body"]) != (
                derived["type"],
                derived["body"],
            ):
                raise Conflict(
                    f"table {table.id}'s logged first hand is not the one the service "
                    "derives; an operator must repair it",
                    details={"table": table.id},
                )
            hand.last_hash = event_hash(opening)
        return True

    # ------------------------------------------------------------------ after a crash

    def recover(self) -> int:
        """Bring every event not over up to its log; the number of events repaired.

        Run when the service starts, after the hands' rows (:func:`api.room.repair.recover`).
        Each step of an event is logged first and written after, so a crash can leave the
        event's row behind its logs: behind its own chain (registration opened or closed,
        the beacon, the start, the deal, a round logged as begun or over, a director's
        action, the end) or behind an entrant's chain (a registration). The row is
        brought up to the chains (:func:`audit.tournament.online.fold`, the function a
        verifier replays, and the registrations in log order); then the event moves on
        as far as its tables allow (:meth:`_advance`: the deal once everyone revealed,
        a round's missing tables and first hands, the next round, the end). Any request
        that finds the log ahead of the row does the same first (:meth:`_current`).
        """
        conn = self.db.connection()
        repaired = 0
        for row in conn.all("SELECT id FROM api_tournaments ORDER BY created_at"):
            tid = str(row[0])
            try:
                with self._lock:
                    repaired += self._recover(conn, tid)
            except FairplayError as exc:
                log.error("tournament %s not recovered: %s", tid, exc)
        return repaired

    def _recover(self, conn: Connection, tid: str) -> bool:
        doc = self._load(conn, tid)
        if doc["phase"] == "over":
            self.certificates.begin(tid)  # a build a crash interrupted (or never began)
            return False
        version = doc["version"]
        self._caught_up(conn, doc)
        self._advance(conn, tid)
        return bool(self._load(conn, tid)["version"] != version)

    def _advance(self, conn: Connection, tid: str) -> None:
        """Move the event on as far as it can go now, one logged step at a time.

        Each step is judged against the row brought up to the log and logged at the row's
        head (:meth:`_event`); when another request (another worker or host, say at the
        end of another table's hand) took a step first, the log refuses this one and the
        next turn judges again from the log: each step is logged once whoever races.
        """
        for _ in range(1000):  # a step per turn; an event has fewer than 1000
            doc = self._current(conn, tid)
            try:
                if not self._step(conn, doc):
                    return
            except _Moved:
                continue
        raise Conflict("the tournament kept moving on meanwhile; read it again")

    def _step(self, conn: Connection, doc: dict[str, Any]) -> bool:
        """Take the event's next step if it is due; whether one was taken."""
        if doc["phase"] == "revealing":
            if doc.get("reveal_deadline") is not None:
                return self._deal_by_rule(conn, doc, asked=False)
            if not all(p in doc["reveals"] for pair in doc["pair_list"] for p in pair):
                return False
            self._deal(conn, doc)
            return True
        if doc["phase"] != "playing":
            return False
        if not doc["rounds_played"]:
            self._start_round(conn, doc)
            return True
        current = doc["rounds_played"][-1]
        if current["over"]:
            self._void_abandoned(conn, current.get("abandoned", []))
            if doc["round"] < doc["rounds"]:
                self._start_round(conn, doc)
            else:
                self._finish(conn, doc)
            return True
        hands = self._round_hands(conn, current)
        if any(t["id"] not in hands and self._plays(doc, t) for t in current["tables"]):
            self._open_tables(conn, doc, current)  # a round logged, its tables not all open
            hands = self._round_hands(conn, current)
        if self._round_done(doc, current, hands):
            faults.at("round_over")  # the tests' crash before the event moves on
            self._end_round(conn, doc, None)
            return True
        return False

    # ------------------------------------------------------------------ the live side

    def table_info(
        self, conn: Connection, table_id: str
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(tournament, sitting) of a tournament's table, ``None`` for another table."""
        row = conn.one(
            "SELECT tournament_id, round, number FROM api_tournament_tables WHERE table_id = ?",
            (table_id,),
        )
        if row is None:
            return None
        doc = self._load(conn, str(row[0]))
        sitting = self._sitting(doc, int(row[1]), int(row[2]))
        assert sitting is not None
        return doc, sitting

    def is_event_table(self, table_id: str) -> bool:
        row = self.db.connection().one(
            "SELECT 1 FROM api_tournament_tables WHERE table_id = ?", (table_id,)
        )
        return row is not None

    def following(self, table: store.Table, hand: store.HandRow) -> store.HandRow | None:
        """The hand after ``hand`` at a tournament table, or ``None`` when it is done."""
        conn = self.db.connection()
        info = self.table_info(conn, table.id)
        assert info is not None
        doc, sitting = info
        rnd = sitting_round(doc, table.id)
        if doc["phase"] != "playing" or any(
            r["round"] == rnd and r["over"] for r in doc["rounds_played"]
        ):
            return None  # the round (or the event) is over: nothing more is dealt here
        if doc["format"] == DUPLICATE:
            played = hand.ceremony["board"]
            rest = [b for b in sitting["boards"] if b > played and b not in doc["voided"]]
            if not rest or doc["phase"] != "playing":
                return None
            return self.live.open_board(table, hand.number + 1, doc, rnd, self.board(doc, rest[0]))
        over = sum(1 for h in store.list_hands(conn, table.id) if h.phase == "over")
        if over + 1 >= sitting["hands"] or doc["phase"] != "playing":  # this hand is the last
            return None
        assert hand.end_score is not None
        return self.live.open_hand(
            table, hand.number + 1, hand.end_score, hand.dealer.left, 1 - hand.pack
        )

    def hand_ended(self, table_id: str) -> None:
        """A hand of a tournament table is over: move the event on when the round is."""
        conn = self.db.connection()
        row = conn.one(
            "SELECT tournament_id FROM api_tournament_tables WHERE table_id = ?", (table_id,)
        )
        if row is None:
            return
        with self._lock:
            self._advance(conn, str(row[0]))

    @staticmethod
    def _plays(doc: dict[str, Any], sitting: dict[str, Any]) -> bool:
        """Whether a table of a round has anything to play (not every board void)."""
        return doc["format"] != DUPLICATE or any(b not in doc["voided"] for b in sitting["boards"])

    @staticmethod
    def _round_hands(conn: Connection, current: dict[str, Any]) -> dict[str, tuple[int, int]]:
        """Each table of the round that has hands: (hands still open, hands over). One
        grouped query over the round's tables: this runs at the end of every hand, and
        reading each table's hands (their records) made a round's ends quadratic."""
        tables = current["tables"]
        if not tables:
            return {}
        marks = ", ".join("?" * len(tables))
        rows = conn.all(
            "SELECT table_id, SUM(CASE WHEN phase IN ('over', 'void') THEN 0 ELSE 1 END), "
            "SUM(CASE WHEN phase = 'over' THEN 1 ELSE 0 END) "
            f"FROM api_hands WHERE table_id IN ({marks}) GROUP BY table_id",
            [t["id"] for t in tables],
        )
        return {str(table_id): (int(open_), int(over)) for table_id, open_, over in rows}

    def _round_done(
        self, doc: dict[str, Any], current: dict[str, Any], hands: dict[str, tuple[int, int]]
    ) -> bool:
        """Whether every table of the round has played all it owes: no hand still open, a
        round-robin match its hands (a void one is played again), and a table without a
        hand only when it has nothing to play (every board void)."""
        duplicate = doc["format"] == DUPLICATE
        for t in current["tables"]:
            if t["id"] not in hands:
                if self._plays(doc, t):
                    return False
                continue
            open_, over = hands[t["id"]]
            if open_ or (not duplicate and over < int(t["hands"])):
                return False
        return True

    def _end_round(self, conn: Connection, doc: dict[str, Any], reason: str | None) -> None:
        current = doc["rounds_played"][-1]
        abandoned = []
        for t in current["tables"]:
            for h in store.list_hands(conn, t["id"]):
                if h.phase not in ("over", "void"):
                    abandoned.append({"table": t["id"], "hand": h.number})
        body: dict[str, Any] = {
            "round": current["round"],
            "early": bool(abandoned),
            "abandoned": abandoned,
        }
        if reason is not None:
            body["reason"] = reason
        self._event(conn, doc, "tournament_round_end", body)
        self._void_abandoned(conn, abandoned)
        current |= {"over": True, "early": bool(abandoned), "abandoned": abandoned}
        self._keep(conn, doc)  # the next round or the end: the caller's _advance

    def _void_abandoned(self, conn: Connection, abandoned: list[dict[str, Any]]) -> None:
        """The hands a round's end abandoned, void (again: what a crash left undone)."""
        for a in abandoned:
            conn.execute(
                "UPDATE api_hands SET phase = 'void', finished_at = ? "
                "WHERE table_id = ? AND number = ? AND phase NOT IN ('over', 'void')",
                (self.live.now(), a["table"], a["hand"]),
            )
            self.live.forget((a["table"], a["hand"]))

    def _finish(self, conn: Connection, doc: dict[str, Any]) -> None:
        """The event is over: log the entrants' reveals and the service's seed."""
        # One append for the reveals not yet logged (an earlier attempt may have logged some)
        owed = [
            doc["reveals"][pid]
            for pid in doc["revealed"]
            if self.ledger.log.next_link(doc["id"], entrant_chain(pid))[0] == 1
        ]
        try:
            if owed:
                self.ledger.append(owed)
        except LogChainBroken:  # logged meanwhile: one by one, skipping those
            for reveal in owed:
                with contextlib.suppress(LogChainBroken):
                    self.ledger.append([reveal])
        doc["phase"] = "over"
        standings = self.standings(doc)
        # The standings hold fractions rounded to floats: hashed as sorted, compact JSON.
        text = json.dumps(standings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(text.encode()).hexdigest()
        self._event(
            conn,
            doc,
            "tournament_end",
            {"service_seed": self.service_seed(doc["id"]).hex(), "standings_sha256": digest},
        )
        self._keep(conn, doc)
        self._publish(conn, doc["id"])

    # ------------------------------------------------------------------ privacy

    def private_players(self, conn: Connection, table_id: str) -> list[str] | None:
        """The players of a duplicate table whose event is not over, else ``None``."""
        row = conn.one("SELECT private FROM api_tournament_tables WHERE table_id = ?", (table_id,))
        if row is None or not int(row[0]):
            return None
        table = store.get_table(conn, table_id)
        return list(table.seats.values())

    def private_tables(self, conn: Connection, ids: list[str]) -> set[str]:
        wanted = sorted(set(ids))
        if not wanted:
            return set()
        marks = ", ".join("?" * len(wanted))
        rows = conn.all(
            f"SELECT table_id FROM api_tournament_tables WHERE private = 1 AND table_id IN ({marks})",
            wanted,
        )
        return {str(r[0]) for r in rows}

    def played_boards(self, conn: Connection, doc: dict[str, Any], player: str) -> set[int]:
        """The boards ``player`` has finished (or been kept from: an abandoned one)."""
        out: set[int] = set()
        for r in doc["rounds_played"]:
            for t in r["tables"]:
                if player in t["seats"].values():
                    for h in store.list_hands(conn, t["id"]):
                        if h.phase == "over" and "board" in h.ceremony:
                            out.add(int(h.ceremony["board"]))
        return out

    # ------------------------------------------------------------------ results

    def finished(self, doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """Each played table's finished hands' records (one hand each), in hand order."""
        conn = self.db.connection()
        return {
            t["id"]: [
                h.record
                for h in store.list_hands(conn, t["id"])
                if h.phase == "over" and h.record is not None
            ]
            for r in doc["rounds_played"]
            for t in r["tables"]
        }

    def records(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """Each played table's finished hands, one cayenne-record/1 per round and table."""
        return online.records(doc, self.finished(doc))

    def standings(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The live standings (only finished hands and rounds count), by the spec."""
        return online.standings(doc, self.finished(doc))


def _round_on(doc: dict[str, Any]) -> bool:
    """Whether a round of a playing event is being played (begun, not over)."""
    return bool(doc["rounds_played"]) and not doc["rounds_played"][-1]["over"]


def drand_of(logged: dict[str, Any] | None) -> tuple[DrandChain | None, DrandRound | None]:
    """The drand chain a v2 start names and, once dealt, its round (from the row)."""
    if logged is None:
        return None, None
    chain = DrandChain(
        logged["scheme"], logged["public_key"], int(logged["genesis"]), int(logged["period"])
    )
    if "signature" not in logged:
        return chain, None
    prev = logged.get("previous_signature")
    return chain, DrandRound(int(logged["round"]), logged["signature"], prev)


def sitting_round(doc: dict[str, Any], table_id: str) -> int:
    for r in doc["rounds_played"]:
        if any(t["id"] == table_id for t in r["tables"]):
            return int(r["round"])
    raise NotFound(f"table {table_id!r} is not in tournament {doc['id']!r}")


def public_json(doc: dict[str, Any]) -> dict[str, Any]:
    """What anyone may read of a tournament (never the entrants' seeds)."""
    keys = (
        "id",
        *online.SPEC_FIELDS,
        "phase",
        "created_at",
        "beacon",
        "reveal_deadline",
        "drand",
        "round",
        "unpaired",
        "revealed",
        "absent",
        "substitutions",
        "adjustments",
        "voided",
        "removed",
        "actions",
    )
    out = {k: doc.get(k) for k in keys if k in doc}
    out["entrants"] = [
        {
            "player": pid,
            "partner": doc["entrants"][pid]["partner"],
            "removed": pid in doc.get("removed", []),
            "commitment": doc["entrants"][pid]["commitment"],
            "revealed": pid in doc["reveals"] if doc["phase"] != "over" else pid in doc["revealed"],
        }
        for pid in doc["order"]
    ]
    out["pairs"] = doc["pairs"]
    out["pair_list"] = [
        {"pair": n, "players": p, "withdrawn": n in doc["absent"] or str(n) in doc["withdrawn"]}
        for n, p in enumerate(doc["pair_list"], 1)
    ]
    out["rounds_played"] = [
        {
            "round": r["round"],
            "over": r["over"],
            "early": r.get("early", False),
            "bye": r.get("bye"),
            "tables": r["tables"],
        }
        for r in doc["rounds_played"]
    ]
    if doc["phase"] == "over":
        out["service_seed"] = None  # in the tournament_end event and the transcript
    return out
