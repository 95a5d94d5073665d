"""Tournaments on the service: an event from creation to its end (docs/tournaments.md).

A tournament is a chain of the log of its own (``table`` = the event id): the service's
events on hand ``event`` (creation, registration, beacon, start, deal, rounds, the
director's actions, end) and one chain per entrant on hand ``entrant-<player id>`` (its
signed registration at seq 0; its signed seed reveal at seq 1, held privately by the
service and appended when the event ends). Every state change is such an event first;
the ``api_tournaments`` row is a cache of them.

Duplicate boards are dealt from cayenne-tournament-deals/1 (:mod:`shuffle.tournament`):
the service's tournament seed is derived from the log key (like a hand's server seed,
so a crash cannot lose it) and stays secret until the event ends. Each round's tables
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

from api import rows as store
from api.database import Connection
from api.errors import BadRequest, Conflict, Forbidden, InvalidSignature, NotFound, WrongPhase
from api.handstate import ZERO_SCORE, ruleset_pattern
from api.signing import parse_player_key
from audit.log.errors import EventError, LogChainBroken, LogSignatureInvalid
from audit.log.events import check_event, event_hash, make_event, sign_event, verify_event
from audit.log.schemas import check_cayenne_event
from audit.rules.cards import Seat
from audit.tournament import online
from audit.tournament.event import DUPLICATE, ROUND_ROBIN
from audit.tournament.matchpoints import Adjustment
from audit.tournament.movement import Round, boards_of_set, mitchell, round_robin
from shuffle import tournament as deals
from shuffle.protocol import Beacon

if TYPE_CHECKING:
    from api.room import Live

__all__ = ["CHAIN", "PHASES", "Tournaments", "entrant_chain", "public_json", "sitting_round"]

log = logging.getLogger(__name__)

CHAIN = "event"
PHASES = ("created", "registration", "closed", "revealing", "playing", "over")


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
    return reason


class Tournaments:
    """The tournaments of one process (state in ``api_tournaments``, truth in the log)."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.db = live.db
        self.ledger = live.ledger
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ storage

    def _load(self, conn: Connection, tid: str) -> dict[str, Any]:
        row = conn.one("SELECT doc FROM api_tournaments WHERE id = ?", (tid,))
        if row is None:
            raise NotFound(f"no tournament {tid!r}", details={"tournament": tid})
        doc: dict[str, Any] = json.loads(row[0])
        return doc

    def load(self, tid: str) -> dict[str, Any]:
        return self._load(self.db.connection(), tid)

    def _save(self, conn: Connection, doc: dict[str, Any]) -> None:
        version = doc["version"]
        doc["version"] = version + 1
        cur = conn.execute(
            "UPDATE api_tournaments SET doc = ?, version = ? WHERE id = ? AND version = ?",
            (json.dumps(doc), version + 1, doc["id"], version),
        )
        if cur.rowcount != 1:
            raise Conflict("the tournament changed meanwhile; try again")

    def _event(self, tid: str, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Sign and append one event of the tournament's own chain."""
        seq, prev = self.ledger.log.next_link(tid, CHAIN)
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
        except LogChainBroken as exc:
            raise Conflict(f"the tournament's log moved meanwhile: {exc.message}") from None
        return signed

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

        name = body.get("name", "tournament")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise _bad("name", "1 to 100 characters")
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
            self._event(tid, "tournament_create", spec)
            doc = {
                "id": tid,
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
                "actions": [],
                "round": 0,
                "rounds_played": [],
            }
            conn = self.db.connection()
            conn.execute(
                "INSERT INTO api_tournaments (id, doc, version, created_at) VALUES (?, ?, ?, ?)",
                (tid, json.dumps(doc), 0, doc["created_at"]),
            )
        return doc

    def registration(self, tid: str, opening: bool) -> dict[str, Any]:
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
            want = ("created", "registration") if opening else ("registration", "closed")
            if doc["phase"] != want[0]:
                verb = "opened" if opening else "closed"
                raise WrongPhase(f"the tournament is {doc['phase']}; registration cannot be {verb}")
            self._event(tid, "tournament_registration", {"open": opening})
            doc["phase"] = want[1]
            self._save(conn, doc)
            return doc

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
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
            if doc["phase"] not in ("created", "registration"):
                raise WrongPhase("the beacon is fixed before registration closes")
            if doc["beacon"] is not None:
                raise Conflict("the beacon of this tournament is already fixed")
            beacon = {"source": source, "round": rnd, "randomness": randomness}
            self._event(tid, "tournament_beacon", beacon)
            doc["beacon"] = beacon
            self._save(conn, doc)
            return doc

    def start(self, tid: str) -> dict[str, Any]:
        """Registration is over: fix the pairs and ask the entrants for their seeds."""
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
            if doc["phase"] != "closed":
                raise WrongPhase(f"the tournament is {doc['phase']}; close registration first")
            pairs: list[list[str]] = []
            paired: set[str] = set()
            for pid in doc["order"]:  # a pair forms at its second member's registration
                partner = doc["entrants"][pid]["partner"]
                mate = doc["entrants"].get(partner)
                if partner in paired or mate is None or mate["partner"] != pid:
                    continue
                if doc["order"].index(partner) < doc["order"].index(pid):
                    pairs.append([partner, pid])
                    paired |= {partner, pid}
            if len(pairs) != doc["pairs"]:
                raise Conflict(
                    f"the tournament needs {doc['pairs']} pairs and {len(pairs)} have entered",
                    details={"pairs": len(pairs), "needed": doc["pairs"]},
                )
            unpaired = [p for p in doc["order"] if p not in paired]
            self._event(tid, "tournament_start", {"pairs": pairs, "unpaired": unpaired})
            doc |= {"phase": "revealing", "pair_list": pairs, "unpaired": unpaired}
            self._save(conn, doc)
            return doc

    def next_round(self, tid: str) -> dict[str, Any]:
        """The director's word: deal (withdrawing whoever has not revealed) or move on."""
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
            if doc["phase"] == "revealing":
                self._deal(conn, doc)
            elif doc["phase"] == "playing":
                self._end_round(conn, doc, "the director started the next round")
            else:
                raise WrongPhase(f"the tournament is {doc['phase']}; no round to start")
            return self._load(conn, tid)

    def end_round(self, tid: str, body: Any) -> dict[str, Any]:
        reason = _reason(body)
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
            if doc["phase"] != "playing":
                raise WrongPhase(f"the tournament is {doc['phase']}; no round is being played")
            self._end_round(conn, doc, reason)
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
        with self._lock:
            conn = self.db.connection()
            doc = self._load(conn, tid)
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
            self._event(tid, f"tournament_{action}", event)
            doc["actions"].append({"action": action, **event})
            self._save(conn, doc)
            if action == "withdraw" and doc["phase"] == "playing":
                self._maybe_next(conn, doc["id"])
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
        conn = self.db.connection()
        doc = self._load(conn, tid)
        event = self._signed(conn, tid, body, "tournament_register")
        pid = event["actor"]
        if event["seq"] != 0:
            raise _bad("event.seq", "a registration is its chain's event 0")
        if event["body"]["partner"] == pid:
            raise _bad("event.body.partner", "a player is not his own partner")
        with self._lock:
            doc = self._load(conn, tid)
            if doc["phase"] != "registration":
                raise WrongPhase(f"the tournament is {doc['phase']}; registration is not open")
            if pid in doc["entrants"]:
                raise Conflict(f"{pid} is already registered", details={"path": "event.actor"})
            try:
                self.ledger.append([event])
            except LogChainBroken:
                raise Conflict(f"{pid} is already registered") from None
            doc["entrants"][pid] = {
                "commitment": event["body"]["commitment"],
                "partner": event["body"]["partner"],
                "registration": event_hash(event),
            }
            doc["order"].append(pid)
            self._save(conn, doc)
        return {"tournament": tid, "entrant": pid, "hash": event_hash(event)}

    def reveal(self, tid: str, body: Any) -> dict[str, Any]:
        """An entrant's seed, received privately (logged when the event ends)."""
        conn = self.db.connection()
        event = self._signed(conn, tid, body, "tournament_reveal")
        pid = event["actor"]
        with self._lock:
            doc = self._load(conn, tid)
            if doc["phase"] != "revealing":
                raise WrongPhase(
                    f"the tournament is {doc['phase']}; seeds are revealed at the start"
                )
            entrant = doc["entrants"].get(pid)
            if entrant is None or not any(pid in p for p in doc["pair_list"]):
                raise Forbidden(f"{pid} plays in no pair of this tournament")
            if event["seq"] != 1 or event["prev"] != entrant["registration"]:
                raise _bad("event.prev", "a reveal follows its entrant's registration (seq 1)")
            seed = bytes.fromhex(event["body"]["seed"])
            opened = deals.entrant_commitment(seed, tid, pid)
            if not hmac.compare_digest(opened, bytes.fromhex(entrant["commitment"])):
                raise BadRequest(
                    "event.body.seed: does not open the registration's commitment",
                    details={"path": "event.body.seed"},
                )
            doc["reveals"][pid] = event
            self._save(conn, doc)
            everyone = all(p in doc["reveals"] for pair in doc["pair_list"] for p in pair)
            if everyone:
                self._deal(conn, self._load(conn, tid))
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
        )

    def board(self, doc: dict[str, Any], number: int) -> deals.BoardDeal:
        t = self.transcript(doc)
        return deals.derive_boards(replace(t, boards=number))[number - 1]

    def _deal(self, conn: Connection, doc: dict[str, Any]) -> None:
        revealed = sorted(p for p in doc["reveals"])
        withdrawn = [
            n
            for n, pair in enumerate(doc["pair_list"], 1)
            if any(p not in doc["reveals"] for p in pair)
        ]
        if len(withdrawn) == len(doc["pair_list"]):
            raise Conflict("no pair has revealed its seeds: nothing can be dealt")
        self._event(doc["id"], "tournament_deal", {"revealed": revealed, "withdrawn": withdrawn})
        doc |= {"phase": "playing", "revealed": revealed, "absent": withdrawn}
        self._save(conn, doc)
        self._start_round(conn, self._load(conn, doc["id"]))

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
        created: list[tuple[store.Table, dict[str, Any]]] = []
        for s in plan.sittings:
            ns, ew = self._pairs_of(doc, s.ns, s.ew)
            if self._out(doc, ns, rnd) or self._out(doc, ew, rnd):
                continue  # the table is not played: its boards are adjusted
            a, b = self.members(doc, ns, rnd)
            c, d = self.members(doc, ew, rnd)
            seats = {Seat.N: a, Seat.E: c, Seat.S: b, Seat.W: d}
            table = store.Table(
                id=store.new_id("t"),
                name=f"{doc['name']} round {rnd} table {s.table}",
                ruleset=doc["ruleset"],
                seats=seats,
                first_dealer=Seat.N,
                hand_count=1,
                created_at=self.live.now(),
            )
            sitting: dict[str, Any] = {
                "table": s.table,
                "id": table.id,
                "ns": ns,
                "ew": ew,
                "seats": {k.name: v for k, v in seats.items()},
            }
            if doc["format"] == DUPLICATE:
                assert s.board_set is not None
                sitting["boards"] = list(boards_of_set(s.board_set, doc["boards_per_round"]))
            else:
                sitting["hands"] = doc["hands_per_match"]
            tables.append(sitting)
            created.append((table, sitting))
        bye = None
        if plan.bye is not None:
            bye = plan.bye
        self._event(doc["id"], "tournament_round", {"round": rnd, "tables": tables, "bye": bye})
        doc["round"] = rnd
        doc["rounds_played"].append({"round": rnd, "tables": tables, "bye": bye, "over": False})
        self._save(conn, doc)
        private = 1 if doc["format"] == DUPLICATE else 0
        firsts = [  # each table's first board not void (0: none)
            next((b for b in sitting.get("boards", []) if b not in doc["voided"]), 0)
            for _, sitting in created
        ]
        dealt: list[deals.BoardDeal] = []
        if doc["format"] == DUPLICATE and any(firsts):
            # this round's first boards, derived together (not each from board 1 again)
            dealt = deals.derive_boards(replace(self.transcript(doc), boards=max(firsts)))
        hands: list[store.HandRow] = []
        for (table, sitting), first in zip(created, firsts, strict=True):
            with conn.transaction():
                store.insert_table(conn, table)
                conn.execute(
                    "INSERT INTO api_tournament_tables (table_id, tournament_id, round, number, "
                    "private) VALUES (?, ?, ?, ?, ?)",
                    (table.id, doc["id"], rnd, sitting["table"], private),
                )
            if doc["format"] == DUPLICATE:
                if not first:
                    continue
                hands.append(self.live.open_board(table, 1, doc, rnd, dealt[first - 1]))
            else:
                hands.append(self.live.open_hand(table, 1, ZERO_SCORE, Seat.N, 0))
        if hands:  # every table's opening events in one append (one commit, not one a table)
            self.ledger.append([event for hand in hands for event in hand.pending])
        for hand in hands:
            hand.pending = []
            store.insert_hand(conn, hand)
        self._maybe_next(conn, doc["id"])

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
        if doc["format"] == DUPLICATE:
            played = hand.ceremony["board"]
            rest = [b for b in sitting["boards"] if b > played and b not in doc["voided"]]
            if not rest or doc["phase"] != "playing":
                return None
            return self.live.open_board(
                table, hand.number + 1, doc, sitting_round(doc, table.id), self.board(doc, rest[0])
            )
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
            self._maybe_next(conn, str(row[0]))

    def _round_done(self, conn: Connection, doc: dict[str, Any]) -> bool:
        """Whether every table of the current round has played all it owes: no hand
        still open, and a round-robin match its hands (a void one is played again).

        One grouped query over the round's tables: this runs at the end of every hand,
        and reading each table's hands (their records) made a round's ends quadratic."""
        tables = doc["rounds_played"][-1]["tables"]
        if not tables:
            return True
        marks = ", ".join("?" * len(tables))
        rows = conn.all(
            "SELECT table_id, SUM(CASE WHEN phase IN ('over', 'void') THEN 0 ELSE 1 END), "
            "SUM(CASE WHEN phase = 'over' THEN 1 ELSE 0 END) "
            f"FROM api_hands WHERE table_id IN ({marks}) GROUP BY table_id",
            [t["id"] for t in tables],
        )
        owed = {t["id"]: int(t.get("hands", 0)) for t in tables}
        duplicate = doc["format"] == DUPLICATE
        return all(
            not int(open_) and (duplicate or int(over) >= owed[str(table_id)])
            for table_id, open_, over in rows
        )

    def _maybe_next(self, conn: Connection, tid: str) -> None:
        doc = self._load(conn, tid)
        if doc["phase"] != "playing":
            return
        if self._round_done(conn, doc):
            self._end_round(conn, doc, None)

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
        self._event(doc["id"], "tournament_round_end", body)
        for a in abandoned:
            conn.execute(
                "UPDATE api_hands SET phase = 'void', finished_at = ? WHERE table_id = ? AND number = ?",
                (self.live.now(), a["table"], a["hand"]),
            )
            self.live.forget((a["table"], a["hand"]))
        current["over"] = True
        current["early"] = bool(abandoned)
        self._save(conn, doc)
        doc = self._load(conn, doc["id"])
        if doc["round"] < doc["rounds"]:
            self._start_round(conn, doc)
        else:
            self._finish(conn, doc)

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
            doc["id"],
            "tournament_end",
            {"service_seed": self.service_seed(doc["id"]).hex(), "standings_sha256": digest},
        )
        self._save(conn, doc)
        conn.execute(
            "UPDATE api_tournament_tables SET private = 0 WHERE tournament_id = ?", (doc["id"],)
        )
        self.ledger.sign_checkpoint()

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
        "round",
        "unpaired",
        "revealed",
        "absent",
        "substitutions",
        "adjustments",
        "voided",
        "actions",
    )
    out = {k: doc.get(k) for k in keys if k in doc}
    out["entrants"] = [
        {
            "player": pid,
            "partner": doc["entrants"][pid]["partner"],
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
