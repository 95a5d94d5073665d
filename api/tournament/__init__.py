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

The package, one room each: :mod:`~api.tournament.registration` (creation, registration,
the beacon, the start, the entrants' registrations and reveals),
:mod:`~api.tournament.rounds` (the deal, the rounds, the end, the room's hooks),
:mod:`~api.tournament.director` (the director's actions), :mod:`~api.tournament.recovery`
(after a crash), :mod:`~api.tournament.documents` (what an event shows),
:mod:`~api.tournament.chain` (each step logged, then applied by
:func:`audit.tournament.online.apply`, then saved), :mod:`~api.tournament.event_rows`
(its SQL) and :mod:`~api.tournament.checks` (a request's fields).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api import rows
from api.beacon import BeaconSource, HttpDrand
from api.config import Config
from api.database import Connection, Database
from api.hand_log import HandLog
from api.tournament import director, documents, event_rows, recovery, registration, rounds
from api.tournament.chain import CHAIN, Desk, RoomSteps, Ruling, entrant_chain
from api.tournament.documents import public_json, sitting_round
from audit.tournament import online
from audit.tournament.movement import Round
from shuffle import tournament as deals

__all__ = [
    "CHAIN",
    "MAX_ENTRANTS",
    "PHASES",
    "Tournaments",
    "entrant_chain",
    "public_json",
    "sitting_round",
]

PHASES = online.PHASES
MAX_ENTRANTS = 2000
"""The most entrants an event accepts. Its ``tournament_start`` lists every one (pairs and
unpaired): 2000 service player ids (22 characters) take about 50 KB, within the log's
64 KiB bound on an event (audit.log.schemas.MAX_EVENT_BYTES) and its schema's 2000
unpaired; a duplicate event seats at most 400 and a round robin 200."""


class Tournaments:
    """The tournaments of one process (state in ``api_tournaments``, truth in the log):
    what the routes and the room ask of the event, each answered by its module."""

    def __init__(
        self,
        room: RoomSteps,
        db: Database,
        hand_log: HandLog,
        config: Config,
        on_end: Callable[[str], None],
    ) -> None:
        url = config.beacon_url
        source: BeaconSource | None = HttpDrand(url) if url else None
        self.desk = Desk(room, db, hand_log, config, on_end, source, MAX_ENTRANTS)

    @property
    def max_entrants(self) -> int:
        return self.desk.max_entrants

    @max_entrants.setter
    def max_entrants(self, value: int) -> None:
        self.desk.max_entrants = value

    # ------------------------------------------------------------------ reading

    def load(self, tid: str) -> dict[str, Any]:
        return self.desk.load(self.desk.db.connection(), tid)

    def follow(self, tid: str) -> dict[str, Any]:
        return recovery.follow(self.desk, tid)

    def standings(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The live standings (only finished hands and rounds count), by the spec."""
        return rounds.standings(self.desk.db.connection(), doc)

    def records(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """Each played table's finished hands, one cayenne-record/1 per round and table."""
        return online.records(doc, documents.finished(self.desk.db.connection(), doc))

    def transcript(
        self, doc: dict[str, Any], *, with_seed: bool = True
    ) -> deals.TournamentTranscript:
        seed = self.desk.service_seed(doc["id"]) if with_seed else None
        return documents.transcript(doc, seed)

    def board(self, doc: dict[str, Any], number: int) -> deals.BoardDeal:
        return documents.board(doc, self.desk.service_seed(doc["id"]), number)

    def members(self, doc: dict[str, Any], pair: int, rnd: int) -> list[str]:
        """The pair's two players in round ``rnd`` (substitutions from their round on)."""
        return online.members(doc, pair, rnd)

    def pair_numbers(self, doc: dict[str, Any]) -> list[int]:
        return list(range(1, len(doc["pair_list"]) + 1))

    def movement(self, doc: dict[str, Any]) -> tuple[Round, ...]:
        return online.movement(doc)

    def played_boards(self, conn: Connection, doc: dict[str, Any], player: str) -> set[int]:
        return documents.played_boards(conn, doc, player)

    def private_players(self, conn: Connection, table_id: str) -> list[str] | None:
        """The players of a duplicate table whose event is not over, else ``None``."""
        if not event_rows.private_players_table(conn, table_id):
            return None
        return list(rows.get_table(conn, table_id).seats.values())

    def private_tables(self, conn: Connection, ids: list[str]) -> set[str]:
        return event_rows.private_tables(conn, ids)

    def event_tables(self, conn: Connection, ids: list[str]) -> set[str]:
        """Those of ``ids`` that are an event's tables, whether the event is over or not."""
        return event_rows.event_tables(conn, ids)

    # ------------------------------------------------------------------ the director

    # Each takes ``by``: the director's signed request the ruling answers (its event's
    # ``by``, audit/tournament/directors.py), ``None`` for the operator's admin token.

    def create(self, body: Any, by: Ruling = None) -> dict[str, Any]:
        return registration.create(self.desk, body, by)

    def registration(self, tid: str, opening: bool, by: Ruling = None) -> dict[str, Any]:
        return registration.registration(self.desk, tid, opening, by)

    def beacon(self, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
        return registration.beacon(self.desk, tid, body, by)

    def start(self, tid: str, body: Any = None, by: Ruling = None) -> dict[str, Any]:
        return registration.start(self.desk, tid, body, by)

    def next_round(self, tid: str, body: Any = None, by: Ruling = None) -> dict[str, Any]:
        return rounds.next_round(self.desk, tid, body, by)

    def end_round(self, tid: str, body: Any, by: Ruling = None) -> dict[str, Any]:
        return rounds.end_round(self.desk, tid, body, by)

    def director(self, tid: str, action: str, body: Any, by: Ruling = None) -> dict[str, Any]:
        return director.act(self.desk, tid, action, body, by)

    # ------------------------------------------------------------------ the entrants

    def register(self, tid: str, body: Any) -> dict[str, Any]:
        return registration.register(self.desk, tid, body)

    def reveal(self, tid: str, body: Any) -> dict[str, Any]:
        return registration.reveal(self.desk, tid, body)

    # ------------------------------------------------------------------ the room's hooks

    def is_event_table(self, table_id: str) -> bool:
        return event_rows.is_event_table(self.desk.db.connection(), table_id)

    def chat_setting(self, table_id: str) -> bool | None:
        """``None`` for a table of no event; else whether its event turned chat on."""
        conn = self.desk.db.connection()
        tid = event_rows.event_of_table(conn, table_id)
        return None if tid is None else bool(event_rows.read(conn, tid).get("chat", False))

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        return rounds.following(self.desk, table, hand)

    def hand_ended(self, table_id: str) -> None:
        rounds.hand_ended(self.desk, table_id)

    def time_control(self, table_id: str) -> dict[str, int] | None:
        conn = self.desk.db.connection()
        tid = event_rows.event_of_table(conn, table_id)
        if tid is None:
            return None
        control = event_rows.read(conn, tid).get("clock")
        return None if control is None else dict(control)

    def recover(self) -> int:
        return recovery.recover(self.desk)
