"""Reading and writing the service's rows: players, tables, hands, events and reports.

Plain functions over a :class:`api.database.Connection`; JSON columns are stored as text.
Callers group writes in ``conn.transaction()``; a hand's row is written back with a
compare-and-set on its event count (:func:`update_hand`), so two workers never both
move a hand on.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from api.database import Connection, Row
from audit.errors import NotFoundError, StateConflict
from audit.rules.cards import Seat

__all__ = [
    "SEAT_COLUMNS",
    "SERVICE",
    "UPLOAD",
    "HandRow",
    "Player",
    "ReportQuery",
    "Table",
    "advance_hand",
    "check_new_player",
    "count_rows",
    "get_hand",
    "get_player",
    "get_report",
    "get_table",
    "has_report",
    "insert_hand",
    "insert_player",
    "insert_report",
    "insert_table",
    "list_hands",
    "list_players",
    "list_tables",
    "new_id",
    "now_iso",
    "player_names",
    "query_reports",
    "set_hand_count",
    "tables_of",
    "unfinished_hands",
    "update_hand",
]

SEAT_COLUMNS = ("seat_n", "seat_e", "seat_s", "seat_w")


def now_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"


# ---------------------------------------------------------------------------- players


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    public_key: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "public_key": self.public_key,
            "created_at": self.created_at,
        }


def _key_taken() -> StateConflict:
    return StateConflict(
        "a player with this public key is already registered", details={"path": "public_key"}
    )


def check_new_player(conn: Connection, player: Player) -> None:
    """409 when the player's raw key (its id), under whatever key name, is registered."""
    if conn.one(
        "SELECT id FROM api_players WHERE id = ? OR public_key = ?",
        (player.id, player.public_key),
    ):
        raise _key_taken()


def insert_player(conn: Connection, player: Player) -> None:
    """Store a new player; 409 when its id or key is taken (by a concurrent request too)."""
    cur = conn.execute(
        "INSERT INTO api_players (id, name, public_key, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (player.id, player.name, player.public_key, player.created_at),
    )
    if cur.rowcount != 1:
        raise _key_taken()


def get_player(conn: Connection, player_id: str) -> Player:
    row = conn.one(
        "SELECT id, name, public_key, created_at FROM api_players WHERE id = ?", (player_id,)
    )
    if row is None:
        raise NotFoundError(f"no player {player_id!r}", details={"player": player_id})
    return Player(*row)


def player_names(conn: Connection, ids: list[str]) -> dict[str, str]:
    """Display names of the given players (ids without a player are left out)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    marks = ", ".join("?" * len(wanted))
    rows = conn.all(f"SELECT id, name FROM api_players WHERE id IN ({marks})", wanted)
    return {str(r[0]): str(r[1]) for r in rows}


def list_players(conn: Connection, limit: int, after: str) -> list[Player]:
    rows = conn.all(
        "SELECT id, name, public_key, created_at FROM api_players WHERE id > ? ORDER BY id LIMIT ?",
        (after, limit),
    )
    return [Player(*r) for r in rows]


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True, slots=True)
class Table:
    id: str
    name: str
    ruleset: dict[str, Any]
    seats: dict[Seat, str]
    first_dealer: Seat
    hand_count: int
    created_at: str
    clock: dict[str, int] | None = None
    """The table's own time control (api/clock.py: seconds, warning), ``None`` for none;
    an event's tables have none of their own (theirs is the event's)."""
    chat: bool = True
    """Whether the table has chat (api/chat.py), as its creator chose; an event's tables
    follow their event's setting instead."""

    def seat_of(self, player_id: str) -> Seat | None:
        for seat, pid in self.seats.items():
            if pid == player_id:
                return seat
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "ruleset": self.ruleset,
            "seats": {s.name: p for s, p in self.seats.items()},
            "first_dealer": self.first_dealer.name,
            "hands": self.hand_count,
            "created_at": self.created_at,
            "clock": self.clock,
            "chat": self.chat,
        }


_TABLE_COLS = (
    "id, name, ruleset, seat_n, seat_e, seat_s, seat_w, first_dealer, hand_count, created_at, "
    "clock, chat"
)


def _table(row: Row) -> Table:
    return Table(
        id=row[0],
        name=row[1],
        ruleset=json.loads(row[2]),
        seats={Seat(i): row[3 + i] for i in range(4)},
        first_dealer=Seat.parse(row[7]),
        hand_count=int(row[8]),
        created_at=row[9],
        clock=None if row[10] is None else json.loads(row[10]),
        chat=row[11] is None or bool(row[11]),
    )


def insert_table(conn: Connection, table: Table, *, if_absent: bool = False) -> None:
    """Insert the table's row (``if_absent``: unless another request inserted it)."""
    conn.execute(
        f"INSERT INTO api_tables ({_TABLE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        + (" ON CONFLICT DO NOTHING" if if_absent else ""),
        (
            table.id,
            table.name,
            json.dumps(table.ruleset),
            *(table.seats[s] for s in Seat),
            table.first_dealer.name,
            table.hand_count,
            table.created_at,
            None if table.clock is None else json.dumps(table.clock),
            None if table.chat else 0,
        ),
    )


def get_table(conn: Connection, table_id: str) -> Table:
    row = conn.one(f"SELECT {_TABLE_COLS} FROM api_tables WHERE id = ?", (table_id,))
    if row is None:
        raise NotFoundError(f"no table {table_id!r}", details={"table": table_id})
    return _table(row)


_PUBLIC_TABLE = (
    "NOT EXISTS (SELECT 1 FROM api_seatings s WHERE s.table_id = api_tables.id "
    "AND s.public = 0) AND NOT EXISTS (SELECT 1 FROM api_tournament_tables x "
    "WHERE x.table_id = api_tables.id AND x.private = 1)"
)


def list_tables(conn: Connection, limit: int, after: str, *, everyone: bool = True) -> list[Table]:
    """Tables by id; without ``everyone``, only the public ones: neither a private table
    of people (api/seatings.py) nor a private tournament table."""
    where = "id > ?" if everyone else f"id > ? AND {_PUBLIC_TABLE}"
    rows = conn.all(
        f"SELECT {_TABLE_COLS} FROM api_tables WHERE {where} ORDER BY id LIMIT ?", (after, limit)
    )
    return [_table(r) for r in rows]


def tables_of(conn: Connection, player: str, limit: int) -> list[Table]:
    """The tables where ``player`` sits, newest first."""
    where = " OR ".join(f"{c} = ?" for c in SEAT_COLUMNS)
    rows = conn.all(
        f"SELECT {_TABLE_COLS} FROM api_tables WHERE {where} ORDER BY created_at DESC, id LIMIT ?",
        (*([player] * 4), limit),
    )
    return [_table(r) for r in rows]


def set_hand_count(conn: Connection, table_id: str, count: int) -> None:
    conn.execute("UPDATE api_tables SET hand_count = ? WHERE id = ?", (count, table_id))


# ------------------------------------------------------------------------------ hands


@dataclass(slots=True)
class HandRow:
    """One hand of a table, as stored. ``server_seed`` stays secret until the end."""

    table_id: str
    number: int
    phase: str
    dealer: Seat
    pack: int
    server_seed: str
    server_commitment: str
    ceremony: dict[str, Any]
    event_count: int
    last_hash: str
    start_score: dict[str, Any]
    end_score: dict[str, Any] | None
    record: dict[str, Any] | None
    report_id: str | None
    started_at: str
    finished_at: str | None
    end_report: dict[str, Any] | None = None
    """The audit report, between the last card and the row's write (not a column)."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Signed events accepted for this hand and not yet appended to the log (not a column)."""
    clock: dict[str, Any] = field(default_factory=dict)
    """The seats' clock at a clocked table (api/clock.py): ``since`` (unix seconds the seat
    to act began), ``used`` (seconds per seat), ``warned`` and ``expired`` (seats); empty
    at a table without a time control."""


_HAND_COLS = (
    "table_id, number, phase, dealer, pack, server_seed, server_commitment, ceremony, "
    "event_count, last_hash, start_score, end_score, record, report_id, started_at, finished_at, "
    "clock"
)


def _hand(row: Row) -> HandRow:
    return HandRow(
        table_id=row[0],
        number=int(row[1]),
        phase=row[2],
        dealer=Seat.parse(row[3]),
        pack=int(row[4]),
        server_seed=row[5],
        server_commitment=row[6],
        ceremony=json.loads(row[7]),
        event_count=int(row[8]),
        last_hash=row[9],
        start_score=json.loads(row[10]),
        end_score=None if row[11] is None else json.loads(row[11]),
        record=None if row[12] is None else json.loads(row[12]),
        report_id=row[13],
        started_at=row[14],
        finished_at=row[15],
        clock={} if row[16] is None else json.loads(row[16]),
    )


def insert_hand(conn: Connection, hand: HandRow, *, if_absent: bool = False) -> None:
    """Insert the hand's row (``if_absent``: unless another request inserted it)."""
    conn.execute(
        f"INSERT INTO api_hands ({_HAND_COLS}) VALUES ({', '.join('?' * 17)})"
        + (" ON CONFLICT DO NOTHING" if if_absent else ""),
        (
            hand.table_id,
            hand.number,
            hand.phase,
            hand.dealer.name,
            hand.pack,
            hand.server_seed,
            hand.server_commitment,
            json.dumps(hand.ceremony),
            hand.event_count,
            hand.last_hash,
            json.dumps(hand.start_score),
            None if hand.end_score is None else json.dumps(hand.end_score),
            None if hand.record is None else json.dumps(hand.record),
            hand.report_id,
            hand.started_at,
            hand.finished_at,
            _clock(hand),
        ),
    )


def _clock(hand: HandRow) -> str | None:
    return json.dumps(hand.clock) if hand.clock else None


def update_hand(conn: Connection, hand: HandRow, expected_count: int) -> bool:
    """Write the hand back if its stored event count is still ``expected_count``."""
    cur = conn.execute(
        "UPDATE api_hands SET phase = ?, ceremony = ?, event_count = ?, last_hash = ?, "
        "end_score = ?, record = ?, report_id = ?, finished_at = ?, clock = ? "
        "WHERE table_id = ? AND number = ? AND event_count = ?",
        (
            hand.phase,
            json.dumps(hand.ceremony),
            hand.event_count,
            hand.last_hash,
            None if hand.end_score is None else json.dumps(hand.end_score),
            None if hand.record is None else json.dumps(hand.record),
            hand.report_id,
            hand.finished_at,
            _clock(hand),
            hand.table_id,
            hand.number,
            expected_count,
        ),
    )
    return bool(cur.rowcount == 1)


def advance_hand(conn: Connection, hand: HandRow, expected_count: int) -> bool:
    """:func:`update_hand` for a call or a play: only the phase and the chain's head move."""
    cur = conn.execute(
        "UPDATE api_hands SET phase = ?, event_count = ?, last_hash = ?, clock = ? "
        "WHERE table_id = ? AND number = ? AND event_count = ?",
        (
            hand.phase,
            hand.event_count,
            hand.last_hash,
            _clock(hand),
            hand.table_id,
            hand.number,
            expected_count,
        ),
    )
    return bool(cur.rowcount == 1)


def get_hand(conn: Connection, table_id: str, number: int) -> HandRow:
    sql = f"SELECT {_HAND_COLS} FROM api_hands WHERE table_id = ? AND number = ?"
    row = conn.one(sql, (table_id, number))
    if row is None:
        raise NotFoundError(
            f"table {table_id!r} has no hand {number}", details={"table": table_id, "hand": number}
        )
    return _hand(row)


def list_hands(conn: Connection, table_id: str) -> list[HandRow]:
    rows = conn.all(
        f"SELECT {_HAND_COLS} FROM api_hands WHERE table_id = ? ORDER BY number", (table_id,)
    )
    return [_hand(r) for r in rows]


def unfinished_hands(conn: Connection) -> list[tuple[str, int]]:
    """``(table, number)`` of every hand neither over nor void."""
    rows = conn.all(
        "SELECT table_id, number FROM api_hands WHERE phase NOT IN ('over', 'void') "
        "ORDER BY table_id, number"
    )
    return [(str(r[0]), int(r[1])) for r in rows]


# ---------------------------------------------------------------------------- reports


SERVICE = "service"
"""A report's source: a hand dealt, logged and audited by this service."""
UPLOAD = "upload"
"""A report's source: a record someone sent to ``POST /v1/audits``, audited as sent."""


@dataclass(frozen=True, slots=True)
class ReportQuery:
    table: str | None = None
    player: str | None = None
    code: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 50
    cursor: tuple[str, str] | None = None
    """(created_at, id) of the last report of the previous page."""


def insert_report(
    conn: Connection,
    report_id: str,
    *,
    table_id: str | None,
    hand_number: int | None,
    report: dict[str, Any],
    record: dict[str, Any],
    players: list[str],
    created_at: str,
    source: str = SERVICE,
    listed: bool = True,
) -> None:
    """Store a report; an unlisted one is not indexed by player or finding (never searched)."""
    conn.execute(
        "INSERT INTO api_reports (id, table_id, hand_number, verdict, created_at, report, record, "
        "source, listed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            report_id,
            table_id,
            hand_number,
            str(report.get("verdict", "")),
            created_at,
            json.dumps(report),
            json.dumps(record),
            source,
            1 if listed else 0,
        ),
    )
    if not listed:
        return
    codes = sorted({str(f.get("code")) for f in report.get("findings", []) if isinstance(f, dict)})
    for code in codes:
        conn.execute(
            "INSERT INTO api_report_codes (report_id, code) VALUES (?, ?)", (report_id, code)
        )
    for player in sorted(set(players)):
        conn.execute(
            "INSERT INTO api_report_players (report_id, player) VALUES (?, ?)", (report_id, player)
        )


def get_report(
    conn: Connection, report_id: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(summary, report, record) of a stored report."""
    row = conn.one(
        f"SELECT {_SUMMARY_COLS}, report, record FROM api_reports WHERE id = ?", (report_id,)
    )
    if row is None:
        raise NotFoundError(f"no report {report_id!r}", details={"id": report_id})
    return _summary(row), json.loads(row[7]), json.loads(row[8])


def record_size(conn: Connection, report_id: str) -> int | None:
    """The length of a stored report's record text (``None``: no such report), unloaded."""
    row = conn.one("SELECT LENGTH(record) FROM api_reports WHERE id = ?", (report_id,))
    return None if row is None else int(row[0] or 0)


def has_report(conn: Connection, report_id: str) -> bool:
    return conn.one("SELECT 1 FROM api_reports WHERE id = ?", (report_id,)) is not None


_SUMMARY_COLS = "id, table_id, hand_number, verdict, created_at, source, listed"


def _summary(row: Row) -> dict[str, Any]:
    return {
        "id": row[0],
        "table": row[1],
        "hand": None if row[2] is None else int(row[2]),
        "verdict": row[3],
        "created_at": row[4],
        "source": row[5],
        "listed": bool(row[6]),
    }


def query_reports(conn: Connection, q: ReportQuery) -> list[dict[str, Any]]:
    """Listed report summaries, newest first, matching every given criterion."""
    where: list[str] = ["r.listed = 1"]
    params: list[Any] = []
    if q.table is not None:
        where.append("r.table_id = ?")
        params.append(q.table)
    if q.player is not None:
        where.append(
            "EXISTS (SELECT 1 FROM api_report_players p WHERE p.report_id = r.id AND p.player = ?)"
        )
        params.append(q.player)
    if q.code is not None:
        where.append(
            "EXISTS (SELECT 1 FROM api_report_codes c WHERE c.report_id = r.id AND c.code = ?)"
        )
        params.append(q.code)
    if q.since is not None:
        where.append("r.created_at >= ?")
        params.append(q.since)
    if q.until is not None:
        where.append("r.created_at < ?")
        params.append(q.until)
    if q.cursor is not None:
        where.append("(r.created_at < ? OR (r.created_at = ? AND r.id < ?))")
        params.extend([q.cursor[0], q.cursor[0], q.cursor[1]])
    cols = ", ".join(f"r.{c.strip()}" for c in _SUMMARY_COLS.split(","))
    sql = f"SELECT {cols} FROM api_reports r WHERE " + " AND ".join(where)
    sql += " ORDER BY r.created_at DESC, r.id DESC LIMIT ?"
    params.append(q.limit)
    summaries = [_summary(r) for r in conn.all(sql, params)]
    for s in summaries:
        s["codes"] = [
            r[0]
            for r in conn.all(
                "SELECT code FROM api_report_codes WHERE report_id = ? ORDER BY code", (s["id"],)
            )
        ]
    return summaries


def count_rows(conn: Connection) -> dict[str, int]:
    out: dict[str, int] = {}
    for name in ("players", "tables", "hands", "reports"):
        row = conn.one(f"SELECT COUNT(*) FROM api_{name}")
        out[name] = int(row[0]) if row else 0
    return out
