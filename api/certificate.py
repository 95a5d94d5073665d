"""The certificate of a finished tournament and its bundle (docs/tournaments.md).

Both are computed from the log (the event's chain, its entrants' chains, every hand of
every table) and the finished hands' records by :func:`audit.tournament.certificate.certify`,
against the first stored checkpoint that holds every one of those events: the same
event gives the same certificate and the same signed note on every request.

A finished event never changes (no event is appended to its chains after
``tournament_end``), so its bundle is computed once and stored (``api_certificates``):
every request, on any worker or host, reads that row. It is built off the request path
(:class:`api.builds.Builds`): by a background thread of the worker that logged the end,
one worker at a time, taken over if it dies; until it is stored the routes answer 409 ``NOT_READY`` with ``Retry-After``.
The witnesses' cosignatures are the one part that may grow afterwards: the row keeps the
checkpoint as the log signed it, and each answer appends the cosignatures held then
(:meth:`api.hand_log.HandLog.cosigned`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from api.builds import Builds
from api.database import Connection, Database
from api.hand_log import HandLog
from api.tournament.documents import hand_rows
from audit.errors import NotReadyError, WrongPhaseError
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.note import parse as parse_note
from audit.log.note import sign as sign_note
from audit.tournament.certificate import BUNDLE_FORMAT, EVENT_CHAIN, certify, note_text
from audit.tournament.directors import GRANTS_HAND, GRANTS_TABLE

__all__ = [
    "RETRY_AFTER",
    "Certificates",
    "bundle",
    "bundle_text",
    "certificate",
    "served",
    "stored_bundle",
    "stored_text",
]

RETRY_AFTER = 2
"""The ``Retry-After`` of a bundle being built (seconds)."""


def _material(
    b: Certificates, tid: str
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """The event's log events (its chain, its entrants' chains, every hand of every table
    with a row) in log order, and its finished hands' records: a few queries in all (the
    hands' rows and the log's entries read a hundred tables at a time), not one a hand."""
    doc = b.event(tid)
    if doc["phase"] != "over":
        raise WrongPhaseError(
            f"the tournament is {doc['phase']}; its certificate is issued at the end"
        )
    # the event's chain and its entrants' (api.tournament.CHAIN and entrant_chain)
    wanted = {(tid, EVENT_CHAIN)} | {(tid, f"entrant-{pid}") for pid in doc["order"]}
    tables = [sitting["id"] for r in doc["rounds_played"] for sitting in r["tables"]]
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for table, number, phase, record in hand_rows(b.db.connection(), tables):
        wanted.add((table, str(number)))
        if phase == "over" and record is not None:
            records[(table, number)] = json.loads(record)
    wanted.add((GRANTS_TABLE, GRANTS_HAND))  # the directors' grants: who may have ruled
    events = [
        e
        for e in b.hand_log.log.table_events([tid, GRANTS_TABLE, *tables])
        if (e["event"]["table"], str(e["event"]["hand"])) in wanted
    ]
    return events, records


def _checkpoint(b: Certificates, size: int) -> str:
    note = b.hand_log.log.first_checkpoint_covering(size)
    if note is None:
        b.hand_log.sign_checkpoint()
        note = b.hand_log.log.first_checkpoint_covering(size)
    assert note is not None
    return note


def certificate(
    b: Certificates, tid: str
) -> tuple[dict[str, Any], str, list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """(certificate, its signed note, the events, the records) of a finished event."""
    events, records = _material(b, tid)
    checkpoint = _checkpoint(b, max(e["index"] for e in events) + 1)
    cert = certify(
        origin=b.hand_log.origin,
        log_key=b.hand_log.verifier_key(),
        checkpoint=checkpoint,
        tournament=tid,
        events=[{"index": e["index"], "event": e["event"]} for e in events],
        records=records,
    )
    return cert, sign_note(note_text(cert), b.hand_log.signer), events, records


def _compute(b: Certificates, tid: str) -> str:
    """The bundle of a finished event as stored: compact JSON, computed from the log (its
    checkpoint uncosigned, last, so that :func:`served` can put the cosigned one there)."""
    cert, note, events, records = certificate(b, tid)
    size = parse_checkpoint(parse_note(cert["checkpoint"])[0]).size
    proofs = b.hand_log.log.inclusion_proofs([e["index"] for e in events], size)
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


def stored_text(b: Certificates, tid: str) -> str | None:
    """The bundle stored for a finished event, as stored (``None`` before it is built)."""
    row = b.db.connection().one(
        "SELECT bundle FROM api_certificates WHERE tournament_id = ?", (tid,)
    )
    return None if row is None else str(row[0])


def stored_bundle(b: Certificates, tid: str) -> dict[str, Any] | None:
    """The bundle stored for a finished event, parsed (``None`` before it is built)."""
    text = stored_text(b, tid)
    if text is None:
        return None
    stored: dict[str, Any] = json.loads(text)
    return stored


def served(b: Certificates, text: str) -> str:
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
            cosigned = b.hand_log.cosigned(checkpoint)
            if cosigned == checkpoint:
                return text
            return f"{head}{sep}{json.dumps(cosigned, ensure_ascii=False)}}}"
    bundle: dict[str, Any] = json.loads(text)
    bundle["checkpoint"] = b.hand_log.cosigned(bundle["checkpoint"])
    return json.dumps(bundle, ensure_ascii=False, separators=(",", ":"))


def bundle_text(b: Certificates, tid: str) -> str:
    """The certificate with every event (and its inclusion proof) and record it needs,
    its checkpoint with every witness cosignature held now: the JSON text served.

    Before the end: :class:`~audit.errors.WrongPhaseError`. Once the event is over and until its bundle is
    stored: :class:`~audit.errors.NotReadyError` (409 with ``Retry-After``); the bundle is being built by
    the worker that logged the end, or by this one if nobody is (:class:`Builds`)."""
    text = stored_text(b, tid)
    if text is None:
        doc = b.event(tid)
        if doc["phase"] != "over":
            raise WrongPhaseError(
                f"the tournament is {doc['phase']}; its certificate is issued at the end"
            )
        if not b.builds.ensure(tid):
            failed = b.builds.failed(tid)
            if failed is not None:  # failed here a short while ago: said, not started again
                raise failed
            raise NotReadyError(
                "the certificate of this event is being prepared; ask again shortly",
                RETRY_AFTER,
                details={"tournament": tid},
            )
        text = stored_text(b, tid)
        assert text is not None
    return served(b, text)


def bundle(b: Certificates, tid: str) -> dict[str, Any]:
    """:func:`bundle_text`, parsed."""
    out: dict[str, Any] = json.loads(bundle_text(b, tid))
    return out


def _store(b: Certificates, tid: str, text: str) -> None:
    size = parse_checkpoint(parse_note(json.loads(text)["checkpoint"])[0]).size
    b.db.connection().execute(
        "INSERT INTO api_certificates (tournament_id, bundle, log_size, created_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",  # the first build's stands
        (tid, text, size, b.now()),
    )


class Certificates:
    """Finished events' bundles, built off the request path, each by one worker
    (:class:`api.builds.Builds`, kind ``certificate``)."""

    def __init__(
        self,
        db: Database,
        hand_log: HandLog,
        now: Callable[[], str],
        load: Callable[[Connection, str], dict[str, Any]],
    ) -> None:
        self.db = db
        self.hand_log = hand_log
        self.now = now
        """The time as rows keep it (the service's clock)."""
        self._load = load
        """An event's row (:func:`api.tournament.event_rows.read`)."""
        self.builds = Builds(
            db,
            "certificate",
            now,
            stored=lambda tid: stored_text(self, tid) is not None,
            make=lambda tid, _progress: _store(self, tid, _compute(self, tid)),
        )

    def event(self, tid: str) -> dict[str, Any]:
        """The event's document (404 when there is none)."""
        return self._load(self.db.connection(), tid)
