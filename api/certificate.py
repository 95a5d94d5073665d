"""The certificate of a finished tournament and its bundle (docs/tournaments.md).

Both are computed from the log (the event's chain, its entrants' chains, every hand of
every table) and the finished hands' records by :func:`audit.tournament.certificate.certify`,
against the first stored checkpoint that holds every one of those events: the same
event gives the same certificate and the same signed note on every request.

A finished event never changes (no event is appended to its chains after
``tournament_end``), so its bundle is computed once and stored (``api_certificates``):
every later request, on any worker or host, reads that row. The witnesses' cosignatures
are the one part that may grow afterwards: the row keeps the checkpoint as the log signed
it, and each answer appends the cosignatures held then (:meth:`api.hand_log.Ledger.cosigned`).
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from api import rows as store
from api.errors import WrongPhase
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.note import parse as parse_note
from audit.log.note import sign as sign_note
from audit.tournament.certificate import BUNDLE_FORMAT, certify, note_text

__all__ = [
    "bundle",
    "certificate",
    "stored_bundle",
]

if TYPE_CHECKING:
    from api.tournament import Tournaments


def _material(
    t: Tournaments, tid: str
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    from api.tournament import CHAIN, entrant_chain

    doc = t.load(tid)
    if doc["phase"] != "over":
        raise WrongPhase(f"the tournament is {doc['phase']}; its certificate is issued at the end")
    log = t.ledger.log
    conn = t.db.connection()
    events = list(log.hand_events(tid, CHAIN))
    for pid in doc["order"]:
        events += log.hand_events(tid, entrant_chain(pid))
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for r in doc["rounds_played"]:
        for sitting in r["tables"]:
            for h in store.list_hands(conn, sitting["id"]):
                events += log.hand_events(sitting["id"], h.number)
                if h.phase == "over" and h.record is not None:
                    records[(sitting["id"], h.number)] = h.record
    events.sort(key=lambda e: e["index"])
    return events, records


def _checkpoint(t: Tournaments, size: int) -> str:
    note = t.ledger.log.first_checkpoint_covering(size)
    if note is None:
        t.ledger.sign_checkpoint()
        note = t.ledger.log.first_checkpoint_covering(size)
    assert note is not None
    return note


def certificate(
    t: Tournaments, tid: str
) -> tuple[dict[str, Any], str, list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """(certificate, its signed note, the events, the records) of a finished event."""
    events, records = _material(t, tid)
    checkpoint = _checkpoint(t, max(e["index"] for e in events) + 1)
    cert = certify(
        origin=t.ledger.origin,
        log_key=t.ledger.verifier_key(),
        checkpoint=checkpoint,
        tournament=tid,
        events=[{"index": e["index"], "event": e["event"]} for e in events],
        records=records,
    )
    return cert, sign_note(note_text(cert), t.ledger.signer), events, records


def _compute(t: Tournaments, tid: str) -> dict[str, Any]:
    """The bundle of a finished event, computed from the log (its checkpoint uncosigned)."""
    cert, note, events, records = certificate(t, tid)
    size = parse_checkpoint(parse_note(cert["checkpoint"])[0]).size
    log = t.ledger.log
    return {
        "format": BUNDLE_FORMAT,
        "certificate": cert,
        "note": note,
        "checkpoint": cert["checkpoint"],
        "events": [
            {
                "index": e["index"],
                "event": e["event"],
                "inclusion": [
                    base64.b64encode(h).decode() for h in log.inclusion_proof(e["index"], size)
                ],
            }
            for e in events
        ],
        "records": [
            {"table": table, "hand": hand, "record": rec}
            for (table, hand), rec in sorted(records.items())
        ],
    }


def stored_bundle(t: Tournaments, tid: str) -> dict[str, Any] | None:
    """The bundle stored for a finished event, as stored (``None`` before the first
    request computed it)."""
    row = t.db.connection().one(
        "SELECT bundle FROM api_certificates WHERE tournament_id = ?", (tid,)
    )
    if row is None:
        return None
    stored: dict[str, Any] = json.loads(row[0])
    return stored


def bundle(t: Tournaments, tid: str) -> dict[str, Any]:
    """The certificate with every event (and its inclusion proof) and record it needs,
    its checkpoint with every witness cosignature held now."""
    stored = stored_bundle(t, tid)
    if stored is None:
        computed = _compute(t, tid)  # raises WrongPhase before the end
        size = parse_checkpoint(parse_note(computed["checkpoint"])[0]).size
        text = json.dumps(computed, ensure_ascii=False, separators=(",", ":"))
        t.db.connection().execute(
            "INSERT INTO api_certificates (tournament_id, bundle, log_size, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (tid, text, size, t.live.now()),
        )
        stored = stored_bundle(t, tid)  # the first writer's, if two raced
        assert stored is not None
    stored["checkpoint"] = t.ledger.cosigned(stored["checkpoint"])
    return stored
