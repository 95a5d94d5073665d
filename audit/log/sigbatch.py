"""Ed25519 checks deferred and run in worker processes, the first failure in order.

A verifier of many events (``fairplay tournament verify``: some 11,800 events for 200
boards) spends most of its time in Ed25519's verification equation, which needs nothing
but the key, the message and the signature. :class:`SignatureBatch` takes those checks
in order (:meth:`SignatureBatch.add`, after the caller's own checks of the key and the
signature's encoding) and runs them in ``jobs`` processes, in contiguous chunks, while
the caller goes on with everything else; :meth:`SignatureBatch.first_failure` is the
position of the first check that fails, in the order they were added, whatever the
order the processes finish in. So a caller that adds each event's check where it would
have verified it, and asks for the first failure before it reports any later problem
(and at the end), names the same first problem as a sequential check.

With ``jobs=1`` every check runs at once in this process (no process is started).
Workers are forked where the platform can (Linux), else spawned; they are started at
the first chunk and stopped by :meth:`SignatureBatch.close` (the batch is a context
manager).
"""

from __future__ import annotations

import multiprocessing
import os
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


class SignatureBatch:
    """Signature checks in order, run in ``jobs`` processes; the first failure's position.

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
        self._sent: list[tuple[int, AsyncResult[int | None]]] = []  # (first position, result)
        self._done = 0  # chunks in _sent known to hold no failure
        self._failure: int | None = None
        self._added = 0
        self._pool: Pool | None = None

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
            self._send()
        return position

    def _send(self) -> None:
        if not self._pending:
            return
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self._pool = ctx.Pool(self.jobs)
        result = self._pool.apply_async(_first_invalid, (self._pending,))
        self._sent.append((self._pending_from, result))
        self._pending_from += len(self._pending)
        self._pending = []

    def settled_failure(self) -> int | None:
        """The first failure if it is already known to be the first (no wait)."""
        if self._failure is not None:
            return self._failure
        while self._done < len(self._sent):
            start, result = self._sent[self._done]
            if not result.ready():
                return None
            found = result.get()
            if found is not None:
                self._failure = start + found
                return self._failure
            self._done += 1
        return None

    def first_failure(self) -> int | None:
        """The position of the first check added that fails, or ``None`` (waits for all)."""
        if self._failure is not None or self.jobs == 1:
            return self._failure
        self._send()
        while self._done < len(self._sent):
            start, result = self._sent[self._done]
            found = result.get()
            if found is not None:
                self._failure = start + found
                return self._failure
            self._done += 1
        return None

    def close(self) -> None:
        """Stop the worker processes (checks still running are abandoned)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.terminate()
            pool.join()
