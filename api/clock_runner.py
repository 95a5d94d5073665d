"""The service's clock runner (the clock's rules: :mod:`api.clock`): a thread per process
that, while its process holds the lease ``clock`` (``api_leases``: one holder across
workers and hosts, taken over when its holder stops renewing it), looks every
:data:`TICK` seconds at the clocked hands waiting for a call or a card and takes the
clock's decisions for the seat to act: ``clock_warning``, ``clock_expired``, then the
house's calls and cards for an expired seat (docs/tournaments.md, "The clock").
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import socket
import threading
import time

from api import rows
from api.clock import used_ms
from api.room import Room
from audit.errors import FairplayError
from audit.rules.cards import Seat
from audit.rules.claims import answer_from_view

__all__ = ["LEASE", "LEASE_SECONDS", "TICK", "ClockRunner"]

log = logging.getLogger(__name__)

TICK = 0.25
"""Seconds between two looks of the runner at the clocked hands."""
LEASE = "clock"
LEASE_SECONDS = 10.0
"""How long a runner's hold of the lease lasts unless renewed (renewed when half of it is left)."""


class ClockRunner:
    """The service's clock: a thread per process that acts while it holds the lease
    (see the module docstring). Started once the process serves (:meth:`serving`)."""

    def __init__(self, room: Room, tick: float = TICK) -> None:
        self.room = room
        self.tick_seconds = tick
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._rng = random.Random(secrets.randbits(64))  # the house's choices (not a shuffle)
        self.owner = f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(4)}"
        """Who holds the lease: this runner (host, process, and one of its apps)."""
        self._held_until = 0.0
        """Until when this runner's hold of the lease is written (0: not held)."""
        self._next_try = 0.0
        """When a runner without the lease next asks for it."""

    def serving(self) -> None:
        """This process serves requests: start its clock (once)."""
        if self._thread is not None or self.tick_seconds <= 0:
            return
        with self._lock:
            if self._thread is not None or self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="clock", daemon=True)
            self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop this process's clock and give up the lease (another takes it at once)."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            try:
                self.room.db.connection().execute(
                    "DELETE FROM api_leases WHERE name = ? AND owner = ?", (LEASE, self.owner)
                )
            except Exception:  # noqa: BLE001 - a closing database: the lease runs out
                log.info("the clock's lease is left to run out")
            finally:
                self.room.db.discard()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.tick_seconds):
                try:
                    if self.lease():
                        self.tick()
                except Exception:  # noqa: BLE001 - the clock goes on at the next tick
                    log.exception("the clock's tick failed")
        finally:
            self.room.db.discard()

    def lease(self) -> bool:
        """Whether this process holds the clock's lease now (taken, renewed or refused).
        A holder renews it when half its time is left; a runner without it asks every
        quarter of its time, so the database is not written every tick."""
        now = time.time()
        if self._held_until - now > LEASE_SECONDS / 2:
            return True
        if not self._held_until and now < self._next_try:
            return False
        conn = self.room.db.connection()
        me = self.owner
        until = now + LEASE_SECONDS
        cur = conn.execute(
            "INSERT INTO api_leases (name, owner, until) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (LEASE, me, until),
        )
        if cur.rowcount != 1:
            cur = conn.execute(
                "UPDATE api_leases SET owner = ?, until = ? "
                "WHERE name = ? AND (owner = ? OR until < ?)",
                (me, until, LEASE, me, now),
            )
        if cur.rowcount == 1:
            self._held_until = until
            return True
        self._held_until = 0.0
        self._next_try = now + LEASE_SECONDS / 4
        return False

    def tick(self) -> int:
        """One look at every clocked hand waiting for a call or a card; the decisions taken."""
        conn = self.room.db.connection()
        found = conn.all(
            "SELECT h.table_id, h.number FROM api_hands h JOIN api_tables t "
            "ON t.id = h.table_id AND t.hand_count = h.number "
            "WHERE h.phase IN ('calling', 'playing') AND h.clock IS NOT NULL"
        )
        taken = 0
        for table_id, number in found:
            try:
                taken += self.decide(str(table_id), int(number))
            except FairplayError as exc:  # a hand moved on meanwhile: the next tick sees it
                log.info("clock at %s hand %s: %s", table_id, number, exc)
        return taken

    def decide(self, table_id: str, number: int) -> int:
        """The clock's decisions for one hand now: a warning, an expiry, the house's
        actions for an expired seat to act (until another seat is to act)."""
        room = self.room
        taken = 0
        for _ in range(64):  # a seat's whole hand at most, then the next tick
            hand = rows.get_hand(room.db.connection(), table_id, number)
            if hand.phase not in ("calling", "playing") or not hand.clock:
                return taken
            snap = room.snapshot(hand)
            if snap is None:
                return taken
            expired = hand.clock.get("expired", [])
            claim = snap.public.get("claim")
            if claim is not None:
                # A claim waits for its adversaries, and their clocks run (api/clock.py):
                # the house answers for an expired seat by the house bots' rule.
                waiting = [s for s in Seat if s.name in claim["waiting_for"]]
                answering = [s for s in waiting if s.name in expired]
                if answering:
                    shown = {**claim, "cards": snap.held[Seat.parse(claim["claimer"])]}
                    accept = answer_from_view(snap.public, shown)
                    room.house_act(hand, answering[0], "claim_answer", {"accept": accept})
                    taken += 1
                    continue
                now = room.config.clock()
                if any(self._judge_time(hand, s, now) for s in waiting):
                    taken += 1
                    continue
                return taken
            seat = snap.to_act
            if seat is None:
                return taken
            now = room.config.clock()
            if seat.name in expired:
                if hand.phase == "calling":
                    kind, body = "call", {"call": self._rng.choice(snap.legal_calls)}
                else:
                    card = self._rng.choice(snap.legal_plays)
                    kind, body = "play", {"card": card}
                room.house_act(hand, seat, kind, body)
                taken += 1
                continue
            if self._judge_time(hand, seat, now):
                taken += 1
                continue
            return taken
        return taken

    def _judge_time(self, hand: rows.HandRow, seat: Seat, now: float) -> bool:
        """Log ``seat``'s warning or expiry if its time calls for one (its clock running);
        whether one was logged."""
        used = used_ms(hand, seat, seat, now)
        limit = int(hand.clock["limit_ms"])
        if limit - used <= int(hand.clock["warning_ms"]) and seat.name not in hand.clock.get(
            "warned", []
        ):
            self.room.clock_event(hand, "clock_warning", seat, used)
            return True
        if used >= limit:
            self.room.clock_event(hand, "clock_expired", seat, used)
            return True
        return False
