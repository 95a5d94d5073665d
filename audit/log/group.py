"""Group commit: many request threads' small appends in few transactions.

The writer side of a service's log: ``append`` blocks until the events are durably
committed and returns their indices, like :meth:`Log.append`; meanwhile one thread per
process gathers what all threads submitted into one transaction, so that one fsync
acknowledges many requests. If a combined batch is refused, each request is retried
alone, so one bad request never sinks the others. The same thread signs a checkpoint
once the tree has grown and the latest one is ``interval`` seconds old.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audit.log.store import Log

__all__ = ["GroupCommit"]

logger = logging.getLogger(__name__)


class GroupCommit:
    """Appends from many request threads, committed in batches by one thread per process.

    The writer side of the log: besides committing, the thread signs a checkpoint once
    the tree has grown and the latest one is ``interval`` seconds old (at the
    latest that long after an append), so that readers always find a stored checkpoint
    that covers every entry older than the interval, and never cause one to be signed.
    """

    def __init__(self, log: Log, interval: float) -> None:
        self.log = log
        self.interval = interval
        self._queue: list[tuple[list[dict[str, Any]], Future[list[int]]]] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._unsigned_since: float | None = None
        """``time.monotonic()`` of the first append no checkpoint covers yet."""
        self._closed = False

    def append(self, events: list[dict[str, Any]]) -> list[int]:
        if not events:
            return []
        done: Future[list[int]] = Future()
        with self._cond:
            if self._thread is None or self._pid != os.getpid():  # first use, or after fork
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="log-commit", daemon=True)
                self._thread.start()
            self._queue.append((events, done))
            self._cond.notify()
        return done.result()

    def signed(self) -> None:
        """A checkpoint covering every append so far was signed (the end of a hand)."""
        with self._cond:
            self._unsigned_since = None

    def close(self) -> None:
        """Stop the commit thread once it has committed what was submitted."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread if self._pid == os.getpid() else None
        if thread is not None:
            thread.join(timeout=30)

    def _next_batch(self) -> list[tuple[list[dict[str, Any]], Future[list[int]]]] | None:
        """The appends that arrived meanwhile, none when a checkpoint falls due, or
        ``None`` once closed."""
        with self._cond:
            while not self._queue:
                if self._closed:
                    return None
                if self._unsigned_since is None:
                    self._cond.wait()
                    continue
                left = self._unsigned_since + self.interval - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)
            batch, self._queue = self._queue, []
            return batch

    def _sign_if_due(self) -> None:
        since = self._unsigned_since
        if since is None or time.monotonic() - since < self.interval:
            return
        try:
            self.log.checkpoint(min_interval=self.interval)
        except Exception:  # noqa: BLE001 - tried again one interval later
            logger.exception("signing the scheduled checkpoint failed")
            with self._cond:
                self._unsigned_since = time.monotonic()
            return
        with self._cond:
            if self._unsigned_since == since:
                self._unsigned_since = None

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
            if batch:
                self._commit(batch)
            self._sign_if_due()

    def _commit(self, batch: list[tuple[list[dict[str, Any]], Future[list[int]]]]) -> None:
        flat = [e for events, _ in batch for e in events]
        try:
            indices = self.log.append(flat)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting requests
            if len(batch) == 1:
                batch[0][1].set_exception(exc)
                return
            for events, done in batch:
                try:
                    done.set_result(self.log.append(events))
                    self._appended()
                except BaseException as one:  # noqa: BLE001
                    done.set_exception(one)
            return
        self._appended()
        start = 0
        for events, done in batch:
            done.set_result(indices[start : start + len(events)])
            start += len(events)

    def _appended(self) -> None:
        with self._cond:
            if self._unsigned_since is None:
                self._unsigned_since = time.monotonic()
