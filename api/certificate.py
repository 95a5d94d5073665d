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

from api.errors import WrongPhase
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.note import parse as parse_note
from audit.log.note import sign as sign_note
from audit.tournament.certificate import BUNDLE_FORMAT, certify, note_text

__all__ = [
    "bundle",
    "bundle_text",
    "certificate",
    "served",
    "stored_bundle",
    "stored_text",
]

if TYPE_CHECKING:
    from api.tournament import Tournaments


def _material(
    t: Tournaments, tid: str
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """The event's log events (its chain, its entrants' chains, every hand of every table
    with a row) in log order, and its finished hands' records: a few queries in all (the
    hands' rows and the log's entries read a hundred tables at a time), not one a hand."""
    from api.tournament import CHAIN, entrant_chain

    doc = t.load(tid)
    if doc["phase"] != "over":
        raise WrongPhase(f"the tournament is {doc['phase']}; its certificate is issued at the end")
    conn = t.db.connection()
    wanted = {(tid, CHAIN)} | {(tid, entrant_chain(pid)) for pid in doc["order"]}
    tables = [sitting["id"] for r in doc["rounds_played"] for sitting in r["tables"]]
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for start in range(0, len(tables), 100):
        part = tables[start : start + 100]
        marks = ", ".join("?" * len(part))
        for table, number, phase, record in conn.all(
            f"SELECT table_id, number, phase, record FROM api_hands WHERE table_id IN ({marks})",
            part,
        ):
            wanted.add((str(table), str(number)))
            if phase == "over" and record is not None:
                records[(str(table), int(number))] = json.loads(record)
    events = [
        e
        for e in t.ledger.log.table_events([tid, *tables])
        if (e["event"]["table"], str(e["event"]["hand"])) in wanted
    ]
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


def _compute(t: Tournaments, tid: str) -> str:
    """The bundle of a finished event as stored: compact JSON, computed from the log (its
    checkpoint uncosigned, last, so that :func:`served` can put the cosigned one there)."""
    cert, note, events, records = certificate(t, tid)
    size = parse_checkpoint(parse_note(cert["checkpoint"])[0]).size
    proofs = t.ledger.log.inclusion_proofs([e["index"] for e in events], size)
    bundle = {
        "format": BUNDLE_FORMAT,
        "certificate": cert,
        "note": note,
        "events": [
            {"index": e["index"], "event": e["event"], "inclusion": [_b64(h) for h in proof]}
            for e, (_, proof) in zip(events, proofs, strict=True)
        ],
        "records": [
            {"table": table, "hand": hand, "record": rec}
            for (table, hand), rec in sorted(records.items())
        ],
        "checkpoint": cert["checkpoint"],
    }
    return json.dumps(bundle, ensure_ascii=False, separators=(",", ":"))


def _b64(h: bytes) -> str:
    return base64.b64encode(h).decode()


def stored_text(t: Tournaments, tid: str) -> str | None:
    """The bundle stored for a finished event, as stored (``None`` before it is built)."""
    row = t.db.connection().one(
        "SELECT bundle FROM api_certificates WHERE tournament_id = ?", (tid,)
    )
    return None if row is None else str(row[0])


def stored_bundle(t: Tournaments, tid: str) -> dict[str, Any] | None:
    """The bundle stored for a finished event, parsed (``None`` before it is built)."""
    text = stored_text(t, tid)
    if text is None:
        return None
    stored: dict[str, Any] = json.loads(text)
    return stored


def served(t: Tournaments, text: str) -> str:
    """The stored bundle ``text`` with every witness cosignature held now on its checkpoint.
    The checkpoint is the stored text's last field: the text is served as it is, the
    checkpoint's value replaced, never parsed and encoded again (a bundle of a large event
    is tens of megabytes). A row stored with the checkpoint elsewhere is re-encoded."""
    head, sep, tail = text.rpartition(',"checkpoint":')
    if sep:
        try:
            checkpoint = json.loads(tail[:-1]) if tail.endswith("}") else None
        except json.JSONDecodeError:
            checkpoint = None
        if isinstance(checkpoint, str):
            cosigned = t.ledger.cosigned(checkpoint)
            if cosigned == checkpoint:
                return text
            return f"{head}{sep}{json.dumps(cosigned, ensure_ascii=False)}}}"
    bundle: dict[str, Any] = json.loads(text)
    bundle["checkpoint"] = t.ledger.cosigned(bundle["checkpoint"])
    return json.dumps(bundle, ensure_ascii=False, separators=(",", ":"))


def bundle_text(t: Tournaments, tid: str) -> str:
    """The certificate with every event (and its inclusion proof) and record it needs,
    its checkpoint with every witness cosignature held now: the JSON text served."""
    text = stored_text(t, tid)
    if text is None:
        text = _compute(t, tid)  # raises WrongPhase before the end
        size = parse_checkpoint(parse_note(json.loads(text)["checkpoint"])[0]).size
        t.db.connection().execute(
            "INSERT INTO api_certificates (tournament_id, bundle, log_size, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (tid, text, size, t.live.now()),
        )
        text = stored_text(t, tid)  # the first writer's, if two raced
        assert text is not None
    return served(t, text)


def bundle(t: Tournaments, tid: str) -> dict[str, Any]:
    """:func:`bundle_text`, parsed."""
    out: dict[str, Any] = json.loads(bundle_text(t, tid))
    return out
