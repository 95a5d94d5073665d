"""Ed25519 checks deferred and run in worker processes, the first failure in order.

A verifier of many events (``fairplay tournament verify``: some 22,900 events for 400
boards) spends most of its time in Ed25519's verification equation, which needs nothing
but the key, the message and the signature. :class:`SignatureBatch` takes those checks
in order (:meth:`SignatureBatch.add`, after the caller's own checks of the key and the
signature's encoding) and has them run, in contiguous chunks, while the caller goes on
with everything else; :meth:`SignatureBatch.first_failure` is the position of the first
check that fails, in the order they were added, whatever the order the chunks finish
in. So a caller that adds each event's check where it would have verified it, and asks
for the first failure before it reports any later problem (and at the end), names the
same first problem as a sequential check.

``jobs`` counts the caller's process: with ``jobs=1`` every check runs at once in this
process (no process is started); with ``jobs=N`` there are ``N - 1`` workers while the
caller does its own work, and the caller checks the chunks no worker has taken yet once
it asks for the first failure (its own work done), so all ``N`` processes end together
rather than the caller waiting on a queue. A worker is given a new chunk as it returns
one (at most two each in hand), from the pool's result thread.

Workers are forked (Linux) when this process runs a single thread, as the command line
does: nothing is imported again. A process with other threads (a server, a benchmark
sampling memory) gets them from a fork server instead, since a fork copies only the
calling thread and a lock another thread held stays locked in the child; where neither
is available they are spawned. They are started at the first chunk and stopped by
:meth:`SignatureBatch.close` (the batch is a context manager), once the chunks they hold
are done.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult, Pool

from audit.log.keys import Verifier, signature_valid

__all__ = ["SignatureBatch", "default_jobs"]

Check = tuple[bytes, bytes, bytes]
"""One check: the raw public key, the message, the signature."""


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _first_invalid(checks: list[Check]) -> int | None:
    """The position in ``checks`` of the first signature that does not verify."""
    for i, (key, message, signature) in enumerate(checks):
        if not signature_valid(key, message, signature):
            return i
    return None


@dataclass(slots=True)
class _Chunk:
    start: int
    """The position of its first check."""
    checks: list[Check]
    result: AsyncResult[int | None] | None = None
    """A worker's answer to come, once one has taken the chunk."""
    found: int | None = None
    done: bool = False
    """``found`` is known (``None``: every check in it verifies)."""


CLOSE_WAIT = 60.0
"""Seconds :meth:`SignatureBatch.close` waits for a chunk a worker holds."""


def _start_method() -> str:
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


class SignatureBatch:
    """Signature checks in order, run by ``jobs`` processes (this one included); the
    first failure's position.

    ``total`` (the number of checks expected, if known) sizes the chunks: about four a
    process, between 32 and 1024 checks each.
    """

    def __init__(self, jobs: int = 1, total: int = 0) -> None:
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.jobs = jobs
        self.chunk = max(32, min(1024, total // (4 * jobs))) if jobs > 1 else 1
        self._pending: list[Check] = []
        self._pending_from = 0  # the position of _pending[0]
        self._chunks: list[_Chunk] = []  # every chunk, in order
        self._waiting: deque[_Chunk] = deque()  # chunks no process has taken yet
        self._in_hand = 0  # chunks the workers hold
        self._lock = threading.Lock()
        self._done = 0  # leading chunks known to hold no failure
        self._failure: int | None = None
        self._added = 0
        self._pool: Pool | None = None
        self._closed = False

    def __enter__(self) -> SignatureBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, verifier: Verifier, message: bytes, signature: bytes) -> int:
        """Queue one check (its position is returned: 0, 1, 2, ... in order added)."""
        position = self._added
        self._added += 1
        if self.jobs == 1:
            if self._failure is None and not signature_valid(
                verifier.public_key, message, signature
            ):
                self._failure = position
            return position
        self._pending.append((verifier.public_key, message, signature))
        if len(self._pending) >= self.chunk:
            self._queue()
        return position

    def _queue(self) -> None:
        if not self._pending:
            return
        chunk = _Chunk(self._pending_from, self._pending)
        self._pending_from += len(self._pending)
        self._pending = []
        self._chunks.append(chunk)
        with self._lock:
            self._waiting.append(chunk)
        self._hand_out()

    def _hand_out(self) -> None:
        """Give the workers chunks until each holds two (again from the pool's result
        thread as a worker returns one, so they stay busy while the caller is elsewhere)."""
        with self._lock:
            if self._pool is None:
                if not self._waiting or self._closed:
                    return
                self._pool = multiprocessing.get_context(_start_method()).Pool(self.jobs - 1)
            while self._waiting and self._in_hand < 2 * (self.jobs - 1):
                chunk = self._waiting.popleft()
                self._in_hand += 1
                chunk.result = self._pool.apply_async(
                    _first_invalid,
                    (chunk.checks,),
                    callback=self._returned,
                    error_callback=self._returned,
                )

    def _returned(self, _answer: object) -> None:
        with self._lock:
            self._in_hand -= 1
        self._hand_out()

    def _settle(self, chunk: _Chunk, wait: bool) -> bool:
        """Whether ``chunk``'s answer is known (``wait``: wait for its worker)."""
        if chunk.done:
            return True
        with self._lock:
            result = chunk.result
        if result is None:  # no process has taken it yet
            return False
        if not wait and not result.ready():
            return False
        chunk.found = result.get()
        chunk.done = True
        return True

    def settled_failure(self) -> int | None:
        """The first failure if it is already known to be the first (no wait)."""
        if self._failure is not None:
            return self._failure
        while self._done < len(self._chunks):
            chunk = self._chunks[self._done]
            if not self._settle(chunk, wait=False):
                return None
            if chunk.found is not None:
                self._failure = chunk.start + chunk.found
                return self._failure
            self._done += 1
        return None

    def first_failure(self) -> int | None:
        """The position of the first check added that fails, or ``None`` (waits for all).

        Checks the chunks no worker has taken yet in this process, from the last one
        back, while the workers go on with theirs from the front."""
        if self._failure is not None or self.jobs == 1:
            return self._failure
        self._queue()
        while True:  # this process's share: the waiting chunks, from the back
            with self._lock:
                chunk = self._waiting.pop() if self._waiting else None
            if chunk is None:
                break
            chunk.found = _first_invalid(chunk.checks)
            chunk.done = True
        while self._done < len(self._chunks):
            chunk = self._chunks[self._done]
            settled = self._settle(chunk, wait=True)
            assert settled  # every chunk is done here or with a worker
            if chunk.found is not None:
                self._failure = chunk.start + chunk.found
                return self._failure
            self._done += 1
        return None

    def close(self) -> None:
        """Stop the worker processes once the chunks they hold are done (at most two
        each; the chunks no worker has taken are dropped).

        The workers are not killed mid-chunk: ``Pool.terminate`` while its task thread is
        still writing a chunk to a worker can wait forever on the queue's lock. A worker
        that does not answer within ``CLOSE_WAIT`` seconds (one that died) is killed."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._waiting.clear()
            self._closed = True
            held = [c.result for c in self._chunks if c.result is not None and not c.done]
        if pool is None:
            return
        for result in held:
            result.wait(CLOSE_WAIT)
        if all(result.ready() for result in held):
            pool.close()
        else:
            pool.terminate()
        pool.join()
