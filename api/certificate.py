"""The certificate of a finished tournament and its bundle (docs/tournaments.md).

Both are computed from the log (the event's chain, its entrants' chains, every hand of
every table) and the finished hands' records by :func:`audit.tournament.certificate.certify`,
against the first stored checkpoint that holds every one of those events: the same
event gives the same certificate and the same signed note on every request.

A finished event never changes (no event is appended to its chains after
``tournament_end``), so its bundle is computed once and stored (``api_certificates``):
every request, on any worker or host, reads that row. It is built off the request path
(:class:`Builds`): by a background thread of the worker that logged the end, one worker
at a time; until it is stored the routes answer 409 ``NOT_READY`` with ``Retry-After``.
The witnesses' cosignatures are the one part that may grow afterwards: the row keeps the
checkpoint as the log signed it, and each answer appends the cosignatures held then
(:meth:`api.hand_log.HandLog.cosigned`).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from api import faults
from api.database import Connection, Database
from api.hand_log import HandLog
from audit.errors import DatabaseUnavailable, NotReadyError, WrongPhaseError
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.note import parse as parse_note
from audit.log.note import sign as sign_note
from audit.tournament.certificate import BUNDLE_FORMAT, EVENT_CHAIN, certify, note_text
from audit.tournament.directors import GRANTS_HAND, GRANTS_TABLE

__all__ = [
    "HEARTBEAT",
    "RETRY_AFTER",
    "STALE",
    "Builds",
    "bundle",
    "bundle_text",
    "certificate",
    "served",
    "stored_bundle",
    "stored_text",
]

log = logging.getLogger(__name__)

HEARTBEAT = 5.0
"""Seconds between two heartbeats of a build's claim."""
STALE = 60.0
"""Seconds without a heartbeat after which another worker or host takes a build over."""
RETRY_AFTER = 2
"""The ``Retry-After`` of a bundle being built (seconds)."""


def _material(
    b: Builds, tid: str
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], dict[str, Any]]]:
    """The event's log events (its chain, its entrants' chains, every hand of every table
    with a row) in log order, and its finished hands' records: a few queries in all (the
    hands' rows and the log's entries read a hundred tables at a time), not one a hand."""
    doc = b.event(tid)
    if doc["phase"] != "over":
        raise WrongPhaseError(
            f"the tournament is {doc['phase']}; its certificate is issued at the end"
        )
    conn = b.db.connection()
    # the event's chain and its entrants' (api.tournament.CHAIN and entrant_chain)
    wanted = {(tid, EVENT_CHAIN)} | {(tid, f"entrant-{pid}") for pid in doc["order"]}
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
    wanted.add((GRANTS_TABLE, GRANTS_HAND))  # the directors' grants: who may have ruled
    events = [
        e
        for e in b.hand_log.log.table_events([tid, GRANTS_TABLE, *tables])
        if (e["event"]["table"], str(e["event"]["hand"])) in wanted
    ]
    return events, records


def _checkpoint(b: Builds, size: int) -> str:
    note = b.hand_log.log.first_checkpoint_covering(size)
    if note is None:
        b.hand_log.sign_checkpoint()
        note = b.hand_log.log.first_checkpoint_covering(size)
    assert note is not None
    return note


def certificate(
    b: Builds, tid: str
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


def _compute(b: Builds, tid: str) -> str:
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


def stored_text(b: Builds, tid: str) -> str | None:
    """The bundle stored for a finished event, as stored (``None`` before it is built)."""
    row = b.db.connection().one(
        "SELECT bundle FROM api_certificates WHERE tournament_id = ?", (tid,)
    )
    return None if row is None else str(row[0])


def stored_bundle(b: Builds, tid: str) -> dict[str, Any] | None:
    """The bundle stored for a finished event, parsed (``None`` before it is built)."""
    text = stored_text(b, tid)
    if text is None:
        return None
    stored: dict[str, Any] = json.loads(text)
    return stored


def served(b: Builds, text: str) -> str:
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


def bundle_text(b: Builds, tid: str) -> str:
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
        if not b.ensure(tid):
            raise NotReadyError(
                "the certificate of this event is being prepared; ask again shortly",
                RETRY_AFTER,
                details={"tournament": tid},
            )
        text = stored_text(b, tid)
        assert text is not None
    return served(b, text)


def bundle(b: Builds, tid: str) -> dict[str, Any]:
    """:func:`bundle_text`, parsed."""
    out: dict[str, Any] = json.loads(bundle_text(b, tid))
    return out


def _store(b: Builds, tid: str, text: str) -> None:
    size = parse_checkpoint(parse_note(json.loads(text)["checkpoint"])[0]).size
    b.db.connection().execute(
        "INSERT INTO api_certificates (tournament_id, bundle, log_size, created_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",  # the first build's stands
        (tid, text, size, b.now()),
    )


class Builds:
    """Finished events' bundles, built off the request path, each by one worker.

    :meth:`begin` (the event's end, the start-up repair) and :meth:`ensure` (a request
    for a bundle not stored) claim the build in ``api_certificate_builds``: one row per
    event, inserted once whoever races, its owner (``host/pid``) beating its heart every
    :data:`HEARTBEAT` seconds from a thread of its own. A row whose owner is a process of
    this host that is gone (``kill -9``), or whose heart has not beaten for
    :data:`STALE` seconds (another host died), is taken over, so a build a crash
    interrupted is started again. The bundle is deterministic: two builds store the
    same content and the first stored row is the one served.

    Threads are started only once the process serves (:meth:`serving`): the start-up
    repair runs in gunicorn's master too, before it forks its workers.
    """

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
        self._lock = threading.Lock()
        self._running: dict[str, threading.Thread] = {}
        """This process's builds under way."""
        self._deferred: set[str] = set()
        self._serving = False

    def event(self, tid: str) -> dict[str, Any]:
        """The event's document (404 when there is none)."""
        return self._load(self.db.connection(), tid)

    @staticmethod
    def owner() -> str:
        return f"{socket.gethostname()}/{os.getpid()}"

    def serving(self) -> None:
        """This process serves requests: start the builds the start-up repair found."""
        if self._serving:
            return
        with self._lock:
            if self._serving:
                return
            self._serving = True
            deferred, self._deferred = sorted(self._deferred), set()
        for tid in deferred:
            self.begin(tid)

    def begin(self, tid: str) -> None:
        """The event is over: build its bundle unless it is stored or being built."""
        with self._lock:
            if not self._serving:
                self._deferred.add(tid)
                return
        self.ensure(tid)

    def ensure(self, tid: str) -> bool:
        """Whether the event's bundle is stored; if not, see that someone builds it."""
        if stored_text(self, tid) is not None:
            return True
        with self._lock:
            if tid in self._running:
                return False
            if not self._claim(tid):
                return False
            if stored_text(self, tid) is not None:  # stored between the read and the claim
                self._release(tid)
                return True
            build = threading.Thread(
                target=self._build, args=(tid,), name=f"certificate-{tid}", daemon=True
            )
            self._running[tid] = build
        build.start()
        return False

    def close(self, timeout: float = 60.0) -> None:
        """Wait (up to ``timeout`` seconds each) for this process's builds under way: a
        service closing does not leave a build writing behind it. Builds begun later
        (a process forked after the close serves) start as usual."""
        with self._lock:
            builds = list(self._running.values())
        for build in builds:
            build.join(timeout)

    def _claim(self, tid: str) -> bool:
        conn = self.db.connection()
        now = time.time()
        me = self.owner()
        cur = conn.execute(
            "INSERT INTO api_certificate_builds (tournament_id, owner, heartbeat, started_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (tid, me, now, self.now()),
        )
        if cur.rowcount == 1:
            return True
        row = conn.one(
            "SELECT owner, heartbeat FROM api_certificate_builds WHERE tournament_id = ?", (tid,)
        )
        if row is None or not self._stale(str(row[0]), float(row[1]), now):
            return False  # done meanwhile (the caller reads the row again), or building
        cur = conn.execute(
            "UPDATE api_certificate_builds SET owner = ?, heartbeat = ?, started_at = ? "
            "WHERE tournament_id = ? AND owner = ? AND heartbeat = ?",
            (me, now, self.now(), tid, row[0], row[1]),
        )
        if cur.rowcount == 1:
            log.warning("certificate of %s: the build of %s is taken over", tid, row[0])
        return bool(cur.rowcount == 1)

    def _stale(self, owner: str, heartbeat: float, now: float) -> bool:
        """Whether a claim's builder is gone: a process of this host that is not running
        (this process: no build thread of it, so a process before a restart with the same
        pid), or a heart that has not beaten for :data:`STALE` seconds."""
        if now - heartbeat > STALE:
            return True
        host, _, pid = owner.rpartition("/")
        if host != socket.gethostname() or not (pid.isascii() and pid.isdigit()):
            return False
        if int(pid) == os.getpid():
            return True  # the caller holds the lock and found no thread of its own
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False  # a process of another user: alive
        return False

    def _release(self, tid: str) -> None:
        self.db.connection().execute(
            "DELETE FROM api_certificate_builds WHERE tournament_id = ? AND owner = ?",
            (tid, self.owner()),
        )

    def _beat(self, tid: str, stop: threading.Event) -> None:
        try:
            while not stop.wait(HEARTBEAT):
                try:
                    self.db.connection().execute(
                        "UPDATE api_certificate_builds SET heartbeat = ? "
                        "WHERE tournament_id = ? AND owner = ?",
                        (time.time(), tid, self.owner()),
                    )
                except DatabaseUnavailable:  # a database restart: the next beat, reconnected
                    continue
        except Exception:  # noqa: BLE001 - the build goes on; a quiet heart is taken over
            log.exception("certificate of %s: heartbeat failed", tid)
        finally:
            self.db.discard()

    def _build(self, tid: str) -> None:
        stop = threading.Event()
        heart = threading.Thread(target=self._beat, args=(tid, stop), daemon=True)
        heart.start()
        t0 = time.perf_counter()
        try:
            faults.at("certificate_build")  # the tests' crash (or hold) during a build
            if stored_text(self, tid) is None:
                _store(self, tid, _compute(self, tid))
                log.info("certificate of %s built in %.1f s", tid, time.perf_counter() - t0)
        except Exception:  # noqa: BLE001 - logged; the next request starts it again
            log.exception("certificate of %s: the build failed", tid)
        finally:
            stop.set()
            heart.join()
            with self._lock:
                self._running.pop(tid, None)
                try:
                    self._release(tid)
                except Exception:  # noqa: BLE001 - a quiet heart is taken over
                    log.exception("certificate of %s: the claim is not released", tid)
            self.db.discard()
