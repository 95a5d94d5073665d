"""Group commit: many threads' small appends in few transactions."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from audit.log.errors import LogError, StoreError
from audit.log.keys import Verifier

if TYPE_CHECKING:
    from audit.log.store import Log


class _Pending:
    __slots__ = ("events", "keys", "done", "result", "error")

    def __init__(
        self, events: list[Mapping[str, Any]], keys: Mapping[str, Verifier | str] | None
    ) -> None:
        self.events = events
        self.keys = keys
        self.done = threading.Event()
        self.result: list[int] = []
        self.error: BaseException | None = None


class GroupCommit:
    """Group commit for a service whose threads each append a few events.

    ``append`` blocks until the events are durably committed and returns their indices,
    like :meth:`Log.append`; meanwhile one writer thread gathers what all threads
    submitted into one transaction, so that one fsync acknowledges many requests. If a
    combined batch is refused, each request is retried alone, so one bad request never
    sinks the others (each gets its own result or error).
    """

    def __init__(self, log: Log, *, max_events: int = 1000) -> None:
        self._log = log
        self._max = max_events
        self._cv = threading.Condition()
        self._queue: list[_Pending] = []
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="log-group-commit", daemon=True)
        self._thread.start()

    def append(
        self,
        events: Sequence[Mapping[str, Any]],
        *,
        keys: Mapping[str, Verifier | str] | None = None,
    ) -> list[int]:
        """Append atomically (per call) through the shared writer; see the class doc."""
        pending = _Pending(list(events), keys)
        with self._cv:
            if self._closed:
                raise StoreError("the group-commit writer is closed")
            self._queue.append(pending)
            self._cv.notify()
        pending.done.wait()
        if pending.error is not None:
            raise pending.error
        return pending.result

    def _take(self) -> list[_Pending] | None:
        with self._cv:
            while not self._queue and not self._closed:
                self._cv.wait()
            if not self._queue:
                return None
            taken: list[_Pending] = []
            count = 0
            while self._queue and (not taken or count + len(self._queue[0].events) <= self._max):
                p = self._queue.pop(0)
                taken.append(p)
                count += len(p.events)
            return taken

    def _run(self) -> None:
        while (taken := self._take()) is not None:
            merged: dict[str, Verifier | str] = {}
            mergeable = True
            for p in taken:
                for actor, key in (p.keys or {}).items():
                    if merged.setdefault(actor, key) != key:
                        mergeable = False
            done = False
            if mergeable and len(taken) > 1:
                try:
                    indices = self._log.append(
                        [e for p in taken for e in p.events], keys=merged or None
                    )
                except LogError:
                    pass  # retry each request alone below, to give each its own answer
                else:
                    at = 0
                    for p in taken:
                        p.result = indices[at : at + len(p.events)]
                        at += len(p.events)
                    done = True
            if not done:
                for p in taken:
                    try:
                        p.result = self._log.append(p.events, keys=p.keys)
                    except BaseException as exc:  # handed to the caller's thread
                        p.error = exc
            for p in taken:
                p.done.set()

    def close(self) -> None:
        """Finish what was submitted and stop the writer thread."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join()
