"""What a finished event yields once, built off the request path: its certificate bundle
(:mod:`api.certificate`) and its double-dummy analysis (:mod:`api.analysis`).

A finished event never changes, so each product is computed once and stored in a row of
its own; :class:`Builds` sees that one worker of one host computes it. A build is claimed
in ``api_builds``: one row per product and event, inserted once whoever races, its owner
(``host/pid``) beating its heart every :data:`HEARTBEAT` seconds from a thread of its
own, and its progress (``done`` of ``total``) written as it goes. A row whose owner is a
process of this host that is gone (``kill -9``), or whose heart has not beaten for
:data:`STALE` seconds (another host died), is taken over, so a build a crash interrupted
is started again. The products are deterministic: two builds store the same content and
the first stored row is the one served.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from api import faults
from api.database import Database
from audit.errors import BuildFailed, DatabaseUnavailable, FairplayError

__all__ = ["FAILED_WAIT", "HEARTBEAT", "STALE", "Builds", "Claim", "Progress"]

log = logging.getLogger(__name__)

HEARTBEAT = 5.0
"""Seconds between two heartbeats of a build's claim."""
STALE = 60.0
"""Seconds without a heartbeat after which another worker or host takes a build over."""

RELEASE_RETRY = 1.0
"""Seconds between two tries to release a claim while the database is away."""

FAILED_WAIT = 300.0
"""Seconds after a build failed before a request starts it again in this process."""

Progress = Callable[[int, int], None]
"""What a build is told to say as it goes: ``(done, total)``, written to its claim."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A build under way, as its row says: who builds it, since when, how far it got."""

    owner: str
    started_at: str
    """When its current builder claimed it (the service's clock, as rows keep time)."""
    done: int | None
    """Steps done (hands analysed); ``None`` until the builder knows how many there are."""
    total: int | None


class Builds:
    """One product (``kind``) of finished events, each built by one worker.

    :meth:`begin` (the event's end, the start-up repair) and :meth:`ensure` (a request
    for a product not stored) claim the build; ``make(tid, progress)`` computes the
    product and stores it, telling ``progress`` how far it got; ``stored(tid)`` says
    whether it is stored. At most ``at_once`` builds of this kind compute at a time in a
    process (``None``: no limit); the others wait, claimed, their hearts beating.

    Threads are started only once the process serves (:meth:`serving`): the start-up
    repair runs in gunicorn's master too, before it forks its workers.
    """

    def __init__(
        self,
        db: Database,
        kind: str,
        now: Callable[[], str],
        *,
        stored: Callable[[str], bool],
        make: Callable[[str, Progress], None],
        at_once: int | None = None,
        failed_wait: float = FAILED_WAIT,
    ) -> None:
        self.db = db
        self.kind = kind
        self.now = now
        """The time as rows keep it (the service's clock)."""
        self._stored = stored
        self._make = make
        self._slots = threading.BoundedSemaphore(at_once) if at_once else None
        self._lock = threading.Lock()
        self._running: dict[str, threading.Thread] = {}
        """This process's builds under way."""
        self._deferred: set[str] = set()
        self._serving = False
        self._failed: dict[str, tuple[float, str]] = {}
        """This process's failed builds: when (``time.monotonic``) and why, in words."""
        self.failed_wait = failed_wait

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
        """The event is over: build its product unless it is stored or being built."""
        with self._lock:
            if not self._serving:
                self._deferred.add(tid)
                return
        self.ensure(tid)

    def failed(self, tid: str) -> BuildFailed | None:
        """The event's build failed in this process less than :attr:`failed_wait` seconds
        ago: the error to answer with (it is not started again before then)."""
        with self._lock:
            got = self._failed.get(tid)
        if got is None:
            return None
        left = got[0] + self.failed_wait - time.monotonic()
        if left <= 0:
            return None
        return BuildFailed(
            f"the {self.kind} of this event could not be built ({got[1]}); it is tried "
            "again when asked for after Retry-After seconds",
            max(1, math.ceil(left)),
            details={"tournament": tid},
        )

    def ensure(self, tid: str) -> bool:
        """Whether the event's product is stored; if not, see that someone builds it
        (unless its build failed here a short while ago: :meth:`failed`)."""
        if self._stored(tid):
            return True
        if self.failed(tid) is not None:
            return False
        with self._lock:
            if tid in self._running:
                return False
            if not self._claim(tid):
                return False
            if self._stored(tid):  # stored between the read and the claim
                self._release(tid)
                return True
            build = threading.Thread(
                target=self._build, args=(tid,), name=f"{self.kind}-{tid}", daemon=True
            )
            self._running[tid] = build
        build.start()
        return False

    def claim(self, tid: str) -> Claim | None:
        """The build of the event's product under way (``None``: none is)."""
        row = self.db.connection().one(
            "SELECT owner, started_at, done, total FROM api_builds "
            "WHERE kind = ? AND tournament_id = ?",
            (self.kind, tid),
        )
        if row is None:
            return None
        done, total = row[2], row[3]
        return Claim(
            str(row[0]),
            str(row[1]),
            None if done is None else int(done),
            None if total is None else int(total),
        )

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
            "INSERT INTO api_builds (kind, tournament_id, owner, heartbeat, started_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (self.kind, tid, me, now, self.now()),
        )
        if cur.rowcount == 1:
            return True
        row = conn.one(
            "SELECT owner, heartbeat FROM api_builds WHERE kind = ? AND tournament_id = ?",
            (self.kind, tid),
        )
        if row is None or not self._stale(str(row[0]), float(row[1]), now):
            return False  # done meanwhile (the caller reads the row again), or building
        cur = conn.execute(
            "UPDATE api_builds SET owner = ?, heartbeat = ?, started_at = ?, done = NULL, "
            "total = NULL WHERE kind = ? AND tournament_id = ? AND owner = ? AND heartbeat = ?",
            (me, now, self.now(), self.kind, tid, row[0], row[1]),
        )
        if cur.rowcount == 1:
            log.warning("%s of %s: the build of %s is taken over", self.kind, tid, row[0])
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
            "DELETE FROM api_builds WHERE kind = ? AND tournament_id = ? AND owner = ?",
            (self.kind, tid, self.owner()),
        )

    def _progress(self, tid: str, done: int, total: int) -> None:
        self.db.connection().execute(
            "UPDATE api_builds SET done = ?, total = ?, heartbeat = ? "
            "WHERE kind = ? AND tournament_id = ? AND owner = ?",
            (done, total, time.time(), self.kind, tid, self.owner()),
        )

    def _beat(self, tid: str, stop: threading.Event) -> None:
        try:
            while not stop.wait(HEARTBEAT):
                try:
                    self.db.connection().execute(
                        "UPDATE api_builds SET heartbeat = ? "
                        "WHERE kind = ? AND tournament_id = ? AND owner = ?",
                        (time.time(), self.kind, tid, self.owner()),
                    )
                except DatabaseUnavailable:  # a database restart: the next beat, reconnected
                    continue
        except Exception:  # noqa: BLE001 - the build goes on; a quiet heart is taken over
            log.exception("%s of %s: heartbeat failed", self.kind, tid)
        finally:
            self.db.discard()

    def _build(self, tid: str) -> None:
        stop = threading.Event()
        heart = threading.Thread(target=self._beat, args=(tid, stop), daemon=True)
        heart.start()
        try:
            if self._slots is not None:
                self._slots.acquire()  # the others of this kind first; claimed meanwhile
            try:
                t0 = time.perf_counter()
                faults.at(f"{self.kind}_build")  # the tests' crash (or hold) during a build
                if not self._stored(tid):
                    self._make(tid, lambda done, total: self._progress(tid, done, total))
                    log.info("%s of %s built in %.1f s", self.kind, tid, time.perf_counter() - t0)
            finally:
                if self._slots is not None:
                    self._slots.release()
            with self._lock:
                self._failed.pop(tid, None)
        except DatabaseUnavailable:
            # not the build's fault: the next request once the database is back starts it
            log.warning("%s of %s: the database went away during the build", self.kind, tid)
        except Exception as exc:  # noqa: BLE001 - logged; asked for later, started again
            log.exception("%s of %s: the build failed", self.kind, tid)
            words = exc.message if isinstance(exc, FairplayError) else "an internal error, logged"
            with self._lock:
                self._failed[tid] = (time.monotonic(), words)
        finally:
            stop.set()
            heart.join()
            with self._lock:
                self._running.pop(tid, None)
            self._let_go(tid)
            self.db.discard()

    def _let_go(self, tid: str) -> None:
        """Release the build's claim; while the database is away, try again every second
        for up to :data:`STALE` seconds, so that another host need not wait for the claim
        to go stale once it is back."""
        deadline = time.monotonic() + STALE
        while True:
            try:
                with self._lock:
                    if tid not in self._running:  # not claimed again here meanwhile
                        self._release(tid)
                return
            except DatabaseUnavailable:
                if time.monotonic() > deadline:
                    log.warning("%s of %s: the claim is left to go stale", self.kind, tid)
                    return
                time.sleep(RELEASE_RETRY)
            except Exception:  # noqa: BLE001 - a quiet heart is taken over
                log.exception("%s of %s: the claim is not released", self.kind, tid)
                return
