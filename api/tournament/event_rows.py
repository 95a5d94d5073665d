"""An event's rows (``api_tournaments``, ``api_tournament_entrants``,
``api_tournament_tables``): every SQL statement of the tournaments, and nothing else.

The event's row caches its chain's state document (:func:`audit.tournament.online.fold`);
until the deal its entrants and reveals are rows of their own, so that a registration
or a reveal writes one row whatever the number of entrants.
"""

from __future__ import annotations

import json
from typing import Any

from api.database import Connection
from audit.errors import NotFoundError, StateConflict

__all__ = [
    "BEFORE_START",
    "ENTRANT_KEYS",
    "WITH_ROWS",
    "count_entrants",
    "count_formed_pairs",
    "count_revealed",
    "entrant",
    "entrant_registration",
    "event_ids",
    "event_of_table",
    "fill",
    "insert_entrant",
    "insert_event",
    "insert_event_table",
    "is_event_table",
    "private_players_table",
    "private_tables",
    "read",
    "round_hands",
    "save",
    "set_reveal",
    "stored",
    "table_sitting",
    "void_hand",
    "publish_tables",
]

BEFORE_START = ("created", "registration", "closed")
"""The phases in which entrants register (their chains are folded into the row)."""
WITH_ROWS = (*BEFORE_START, "revealing")
"""The phases whose entrants and reveals are kept in rows of their own
(``api_tournament_entrants``), not in the event's document: a registration or a reveal
writes one row, whatever the number of entrants. The deal copies them into the document
once (the entrants and seeds are fixed from then on)."""
ENTRANT_KEYS = ("entrants", "order", "reveals")


# ---------------------------------------------------------------------- the event's row


def read(conn: Connection, tid: str) -> dict[str, Any]:
    """The event's document as stored (404 when there is no such event)."""
    row = conn.one("SELECT doc FROM api_tournaments WHERE id = ?", (tid,))
    if row is None:
        raise NotFoundError(f"no tournament {tid!r}", details={"tournament": tid})
    doc: dict[str, Any] = json.loads(row[0])
    return doc


def event_ids(conn: Connection) -> list[str]:
    """Every event, oldest first."""
    return [str(row[0]) for row in conn.all("SELECT id FROM api_tournaments ORDER BY created_at")]


def stored(doc: dict[str, Any]) -> str:
    """The document as stored: without the entrants kept in their rows (until the deal)."""
    if doc["phase"] in WITH_ROWS:
        return json.dumps({k: v for k, v in doc.items() if k not in ENTRANT_KEYS})
    return json.dumps(doc)


def insert_event(conn: Connection, doc: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO api_tournaments (id, doc, version, created_at) VALUES (?, ?, ?, ?)",
        (doc["id"], stored(doc), doc["version"], doc["created_at"]),
    )


def save(conn: Connection, doc: dict[str, Any]) -> None:
    """Write ``doc`` over the row it was read from (its ``version``, moved on); 409 if
    another request wrote the row meanwhile."""
    if doc["phase"] not in WITH_ROWS and "entrants" not in doc:
        fill(conn, doc)  # the deal, reached by a step that read no entrant
    version = doc["version"]
    doc["version"] = version + 1
    cur = conn.execute(
        "UPDATE api_tournaments SET doc = ?, version = ? WHERE id = ? AND version = ?",
        (stored(doc), version + 1, doc["id"], version),
    )
    if cur.rowcount != 1:
        raise StateConflict("the tournament changed meanwhile; try again")


# ---------------------------------------------------------------------- entrants


def fill(conn: Connection, doc: dict[str, Any]) -> None:
    """``doc``'s entrants (in the order the log took them) and reveals, from their rows."""
    rows = conn.all(
        "SELECT player, partner, commitment, registration, reveal "
        "FROM api_tournament_entrants WHERE tournament_id = ? ORDER BY log_index",
        (doc["id"],),
    )
    doc["entrants"] = {
        str(p): {"commitment": c, "partner": mate, "registration": r} for p, mate, c, r, _ in rows
    }
    doc["order"] = [str(r[0]) for r in rows]
    doc["reveals"] = {str(r[0]): json.loads(r[4]) for r in rows if r[4] is not None}


def insert_entrant(
    conn: Connection,
    tid: str,
    player: str,
    index: int,
    entrant: dict[str, Any],
    reveal: dict[str, Any] | None = None,
) -> None:
    """The row of an entrant (``partner``, ``commitment``, ``registration``: its hash)
    whose registration the log holds at ``index``; kept if it is there already."""
    conn.execute(
        "INSERT INTO api_tournament_entrants (tournament_id, player, log_index, partner, "
        "commitment, registration, reveal) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (
            tid,
            player,
            index,
            entrant["partner"],
            entrant["commitment"],
            entrant["registration"],
            None if reveal is None else json.dumps(reveal),
        ),
    )


def count_entrants(conn: Connection, tid: str) -> int:
    row = conn.one("SELECT COUNT(*) FROM api_tournament_entrants WHERE tournament_id = ?", (tid,))
    return 0 if row is None else int(row[0])


def count_formed_pairs(conn: Connection, tid: str, gone: list[str]) -> int:
    """The pairs formed so far: two entrants naming each other, neither of them ``gone``."""
    out = " AND a.player NOT IN ({0}) AND b.player NOT IN ({0})".format(", ".join("?" * len(gone)))
    row = conn.one(
        "SELECT COUNT(*) FROM api_tournament_entrants a JOIN api_tournament_entrants b "
        "ON b.tournament_id = a.tournament_id AND b.player = a.partner "
        "AND b.partner = a.player WHERE a.tournament_id = ? AND a.player < b.player"
        + (out if gone else ""),
        (tid, *gone, *gone),
    )
    return 0 if row is None else int(row[0])


def count_revealed(conn: Connection, tid: str) -> int:
    row = conn.one(
        "SELECT COUNT(*) FROM api_tournament_entrants "
        "WHERE tournament_id = ? AND reveal IS NOT NULL",
        (tid,),
    )
    return 0 if row is None else int(row[0])


def entrant_registration(conn: Connection, tid: str, player: str) -> str | None:
    """The hash of the registration the rows hold for ``player`` (``None``: none)."""
    row = conn.one(
        "SELECT registration FROM api_tournament_entrants WHERE tournament_id = ? AND player = ?",
        (tid, player),
    )
    return None if row is None else str(row[0])


def entrant(conn: Connection, tid: str, player: str) -> tuple[str, str] | None:
    """(registration hash, commitment) of an entrant, ``None`` for another player."""
    row = conn.one(
        "SELECT registration, commitment FROM api_tournament_entrants "
        "WHERE tournament_id = ? AND player = ?",
        (tid, player),
    )
    return None if row is None else (str(row[0]), str(row[1]))


def set_reveal(conn: Connection, tid: str, player: str, reveal: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE api_tournament_entrants SET reveal = ? WHERE tournament_id = ? AND player = ?",
        (json.dumps(reveal), tid, player),
    )


# ---------------------------------------------------------------------- tables


def insert_event_table(
    conn: Connection, table_id: str, tid: str, rnd: int, number: int, private: bool
) -> None:
    conn.execute(
        "INSERT INTO api_tournament_tables (table_id, tournament_id, round, number, private) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (table_id, tid, rnd, number, 1 if private else 0),
    )


def table_sitting(conn: Connection, table_id: str) -> tuple[str, int, int] | None:
    """(event, round, table number) of an event's table, ``None`` for another table."""
    row = conn.one(
        "SELECT tournament_id, round, number FROM api_tournament_tables WHERE table_id = ?",
        (table_id,),
    )
    return None if row is None else (str(row[0]), int(row[1]), int(row[2]))


def event_of_table(conn: Connection, table_id: str) -> str | None:
    row = conn.one(
        "SELECT tournament_id FROM api_tournament_tables WHERE table_id = ?", (table_id,)
    )
    return None if row is None else str(row[0])


def is_event_table(conn: Connection, table_id: str) -> bool:
    return (
        conn.one("SELECT 1 FROM api_tournament_tables WHERE table_id = ?", (table_id,)) is not None
    )


def private_players_table(conn: Connection, table_id: str) -> bool:
    """Whether a table is a duplicate event's whose hands only its players read now."""
    row = conn.one("SELECT private FROM api_tournament_tables WHERE table_id = ?", (table_id,))
    return row is not None and bool(int(row[0]))


def _event_tables_among(conn: Connection, ids: list[str], private_only: bool) -> set[str]:
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    only = "private = 1 AND " if private_only else ""
    rows = conn.all(
        f"SELECT table_id FROM api_tournament_tables WHERE {only}table_id IN ({marks})", wanted
    )
    return {str(r[0]) for r in rows}


def private_tables(conn: Connection, ids: list[str]) -> set[str]:
    """Those of ``ids`` that are a duplicate event's tables whose event is not over."""
    return _event_tables_among(conn, ids, private_only=True)


def event_tables(conn: Connection, ids: list[str]) -> set[str]:
    """Those of ``ids`` that are an event's tables (its own or over)."""
    return _event_tables_among(conn, ids, private_only=False)


def publish_tables(conn: Connection, tid: str) -> None:
    """The event is over: its tables' hands are readable by anyone."""
    conn.execute("UPDATE api_tournament_tables SET private = 0 WHERE tournament_id = ?", (tid,))


def round_hands(conn: Connection, table_ids: list[str]) -> dict[str, tuple[int, int]]:
    """Each of the tables that has hands: (hands still open, hands over). One grouped
    query over a round's tables: this runs at the end of every hand, and reading each
    table's hands (their records) made a round's ends quadratic."""
    if not table_ids:
        return {}
    marks = ", ".join("?" * len(table_ids))
    rows = conn.all(
        "SELECT table_id, SUM(CASE WHEN phase IN ('over', 'void') THEN 0 ELSE 1 END), "
        "SUM(CASE WHEN phase = 'over' THEN 1 ELSE 0 END) "
        f"FROM api_hands WHERE table_id IN ({marks}) GROUP BY table_id",
        table_ids,
    )
    return {str(table_id): (int(open_), int(over)) for table_id, open_, over in rows}


def has_first_hand(conn: Connection, table_id: str) -> bool:
    return (
        conn.one("SELECT 1 FROM api_hands WHERE table_id = ? AND number = 1", (table_id,))
        is not None
    )


def void_hand(conn: Connection, table_id: str, number: int, now: str) -> None:
    """A hand a round's end abandoned, void (unless it is over or void already)."""
    conn.execute(
        "UPDATE api_hands SET phase = 'void', finished_at = ? "
        "WHERE table_id = ? AND number = ? AND phase NOT IN ('over', 'void')",
        (now, table_id, number),
    )
