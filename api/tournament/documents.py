"""What an event shows: its public document, its deals' transcript, its boards, its
finished hands' records and its standings (read from its row and its tables' hands)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from api import rows
from api.database import Connection
from audit.errors import NotFoundError
from audit.tournament import online
from shuffle import tournament as deals
from shuffle.beacon import DrandChain, DrandRound
from shuffle.protocol import Beacon

__all__ = [
    "board",
    "drand_of",
    "finished",
    "finished_records",
    "hand_rows",
    "played_boards",
    "public_json",
    "sitting",
    "sitting_round",
    "transcript",
]


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


def transcript(doc: dict[str, Any], service_seed: bytes | None) -> deals.TournamentTranscript:
    """The event's cayenne-tournament-deals transcript (the service's seed: ``None``
    while it is secret)."""
    b = doc["beacon"]
    entrants = tuple(
        deals.Entrant(
            pid,
            bytes.fromhex(doc["entrants"][pid]["commitment"]),
            bytes.fromhex(doc["reveals"][pid]["body"]["seed"]) if pid in doc["revealed"] else None,
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
        service_seed=service_seed,
        beacon=None
        if b is None
        else Beacon(b["source"], b["round"], bytes.fromhex(b["randomness"])),
        version=1 if doc.get("reveal_deadline") is None else 2,
        reveal_deadline=doc.get("reveal_deadline"),
        chain=chain,
        drand=drand,
    )


def board(doc: dict[str, Any], service_seed: bytes, number: int) -> deals.BoardDeal:
    """Board ``number``'s deal."""
    t = transcript(doc, service_seed)
    return deals.derive_boards(replace(t, boards=number))[number - 1]


def sitting(doc: dict[str, Any], rnd: int, table: int) -> dict[str, Any] | None:
    """Table ``table`` of round ``rnd`` as the round seated it (``None``: not played)."""
    for r in doc["rounds_played"]:
        if r["round"] == rnd:
            for t in r["tables"]:
                if t["table"] == table:
                    return t  # type: ignore[no-any-return]
    return None


def sitting_round(doc: dict[str, Any], table_id: str) -> int:
    for r in doc["rounds_played"]:
        if any(t["id"] == table_id for t in r["tables"]):
            return int(r["round"])
    raise NotFoundError(f"table {table_id!r} is not in tournament {doc['id']!r}")


def finished(conn: Connection, doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each played table's finished hands' records (one hand each), in hand order."""
    return {
        t["id"]: [
            h.record
            for h in rows.list_hands(conn, t["id"])
            if h.phase == "over" and h.record is not None
        ]
        for r in doc["rounds_played"]
        for t in r["tables"]
    }


def hand_rows(
    conn: Connection, tables: Sequence[str]
) -> Iterator[tuple[str, int, str, str | None]]:
    """Every hand of ``tables`` as ``(table, number, phase, record text)``, read a hundred
    tables at a time (a few queries for a whole event, not one a hand)."""
    for start in range(0, len(tables), 100):
        part = list(tables[start : start + 100])
        marks = ", ".join("?" * len(part))
        for table, number, phase, record in conn.all(
            f"SELECT table_id, number, phase, record FROM api_hands WHERE table_id IN ({marks})",
            part,
        ):
            yield str(table), int(number), str(phase), None if record is None else str(record)


def finished_records(conn: Connection, doc: dict[str, Any]) -> list[tuple[str, int, str]]:
    """The event's finished hands' records as ``(table, hand, record text)``, in the order
    of its certificate bundle's ``records`` (by table, then hand)."""
    tables = [sitting["id"] for r in doc["rounds_played"] for sitting in r["tables"]]
    return sorted(
        (table, number, record)
        for table, number, phase, record in hand_rows(conn, tables)
        if phase == "over" and record is not None
    )


def played_boards(conn: Connection, doc: dict[str, Any], player: str) -> set[int]:
    """The boards ``player`` has finished (or been kept from: an abandoned one)."""
    out: set[int] = set()
    for r in doc["rounds_played"]:
        for t in r["tables"]:
            if player in t["seats"].values():
                for h in rows.list_hands(conn, t["id"]):
                    if h.phase == "over" and "board" in h.ceremony:
                        out.add(int(h.ceremony["board"]))
    return out


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
