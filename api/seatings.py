"""Tables of people in the making: a person's table that waits for its four seats.

A registered person creates a table (``POST /v1/people-tables``, a signed write) and
takes a seat; others take the other seats, by the lobby (a public table) or by the
invitation link (a private one, its secret token); the creator may give the empty seats
to house bots. Until four are seated the table is a row of ``api_seatings`` only: no
hand is opened and nothing is logged. The request that seats the fourth player marks the
row opened (a compare-and-set, so exactly one request does) and the room opens the table
under the same id, with hand 1 (:meth:`api.room.Room.create_table`).

A seating that is not full ``ttl`` seconds after its creation (``Config.people_table_ttl``)
has expired: it leaves the lobby and no seat can be taken; its row stays (its seated
players still see it, as expired, among their tables).

Each seat is taken by one conditional ``UPDATE``: it succeeds only while the seat is
empty, the table not opened nor expired, and the player not already at another of its
seats; so two people asking for one seat at once get one 200 and one 409, on every host.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from api.database import Connection, Row
from api.rows import SEAT_COLUMNS
from audit.errors import NotFoundError
from audit.rules.cards import Seat

__all__ = [
    "EXPIRED",
    "OPEN",
    "WAITING",
    "Seating",
    "find_seating",
    "get_seating",
    "insert_seating",
    "lobby",
    "mark_opened",
    "private_tables",
    "seatings_of",
    "take_seat",
    "unmark_opened",
]

WAITING, OPEN, EXPIRED = "waiting", "open", "expired"


@dataclass(frozen=True, slots=True)
class Seating:
    """A person's table until its four seats are taken (the module's docstring)."""

    id: str
    name: str
    ruleset: dict[str, Any]
    first_dealer: Seat
    public: bool
    token: str
    """The invitation's secret (a private table is joined only with it)."""
    creator: str
    seats: dict[Seat, str | None]
    created_at: str
    expires_at: float
    """Unix seconds after which a seating not yet full has expired."""
    opened: bool
    """Whether the four are seated and the table (its hand 1) is open."""
    clock: dict[str, int] | None = None
    """The table's time control (api/clock.py), given to the table when it opens."""
    chat: bool = True
    """Whether the table will have chat (api/chat.py), given to the table when it opens."""

    def status(self, now: float) -> str:
        """``"open"`` (playing), ``"expired"`` (never filled), or ``"waiting"``."""
        if self.opened:
            return OPEN
        return EXPIRED if now >= self.expires_at else WAITING

    def empty(self) -> list[Seat]:
        return [s for s in Seat if self.seats[s] is None]

    def seat_of(self, player: str) -> Seat | None:
        return next((s for s, p in self.seats.items() if p == player), None)

    def full(self) -> dict[Seat, str] | None:
        """The four players, when every seat is taken."""
        seats = {s: p for s, p in self.seats.items() if p is not None}
        return seats if len(seats) == 4 else None


_COLS = (
    "table_id, name, ruleset, first_dealer, public, token, creator, "
    "seat_n, seat_e, seat_s, seat_w, created_at, expires_at, opened, clock, chat"
)


def _seating(row: Row) -> Seating:
    return Seating(
        id=row[0],
        name=row[1],
        ruleset=json.loads(row[2]),
        first_dealer=Seat.parse(row[3]),
        public=bool(row[4]),
        token=row[5],
        creator=row[6],
        seats={Seat(i): row[7 + i] for i in range(4)},
        created_at=row[11],
        expires_at=float(row[12]),
        opened=bool(row[13]),
        clock=None if row[14] is None else json.loads(row[14]),
        chat=row[15] is None or bool(row[15]),
    )


def insert_seating(conn: Connection, s: Seating) -> None:
    conn.execute(
        f"INSERT INTO api_seatings ({_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            s.id,
            s.name,
            json.dumps(s.ruleset),
            s.first_dealer.name,
            int(s.public),
            s.token,
            s.creator,
            *(s.seats[seat] for seat in Seat),
            s.created_at,
            s.expires_at,
            int(s.opened),
            None if s.clock is None else json.dumps(s.clock),
            None if s.chat else 0,
        ),
    )


def get_seating(conn: Connection, table_id: str) -> Seating:
    row = conn.one(f"SELECT {_COLS} FROM api_seatings WHERE table_id = ?", (table_id,))
    if row is None:
        raise NotFoundError(f"no table {table_id!r}", details={"table": table_id})
    return _seating(row)


def find_seating(conn: Connection, table_id: str) -> Seating | None:
    try:
        return get_seating(conn, table_id)
    except NotFoundError:
        return None


def take_seat(conn: Connection, table_id: str, seat: Seat, player: str, now: float) -> bool:
    """Seat ``player`` at ``seat`` if it is empty, the table waiting and the player not
    seated there yet; whether it was done (one statement: atomic on both databases)."""
    column = SEAT_COLUMNS[seat]
    elsewhere = " AND ".join(f"COALESCE({c}, '') <> ?" for c in SEAT_COLUMNS)
    cur = conn.execute(
        f"UPDATE api_seatings SET {column} = ? WHERE table_id = ? AND {column} IS NULL "
        f"AND opened = 0 AND expires_at > ? AND {elsewhere}",
        (player, table_id, now, *([player] * 4)),
    )
    return int(cur.rowcount) == 1


def mark_opened(conn: Connection, table_id: str) -> bool:
    """Mark a full seating opened; ``True`` for the one request that did it."""
    full = " AND ".join(f"{c} IS NOT NULL" for c in SEAT_COLUMNS)
    cur = conn.execute(
        f"UPDATE api_seatings SET opened = 1 WHERE table_id = ? AND opened = 0 AND {full}",
        (table_id,),
    )
    return int(cur.rowcount) == 1


def unmark_opened(conn: Connection, table_id: str) -> None:
    """The table could not be opened after all: the seating waits again."""
    conn.execute("UPDATE api_seatings SET opened = 0 WHERE table_id = ?", (table_id,))


def lobby(conn: Connection, now: float, limit: int) -> list[Seating]:
    """Public seatings still waiting (not full, not expired), newest first."""
    rows = conn.all(
        f"SELECT {_COLS} FROM api_seatings WHERE public = 1 AND opened = 0 AND expires_at > ? "
        "ORDER BY created_at DESC, table_id LIMIT ?",
        (now, limit),
    )
    return [_seating(r) for r in rows]


def seatings_of(conn: Connection, player: str, limit: int) -> list[Seating]:
    """The seatings not yet opened where ``player`` sits, newest first."""
    where = " OR ".join(f"{c} = ?" for c in SEAT_COLUMNS)
    rows = conn.all(
        f"SELECT {_COLS} FROM api_seatings WHERE opened = 0 AND ({where}) "
        "ORDER BY created_at DESC, table_id LIMIT ?",
        (*([player] * 4), limit),
    )
    return [_seating(r) for r in rows]


def private_tables(conn: Connection, ids: list[str]) -> set[str]:
    """Which of ``ids`` are private tables of people (never listed to strangers)."""
    if not ids:
        return set()
    marks = ", ".join("?" for _ in ids)
    rows = conn.all(
        f"SELECT table_id FROM api_seatings WHERE public = 0 AND table_id IN ({marks})",
        tuple(ids),
    )
    return {str(r[0]) for r in rows}
