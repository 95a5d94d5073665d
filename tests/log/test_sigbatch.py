"""SignatureBatch names the first failing check in the order added, whatever the number
of processes, whoever checks each chunk (a worker, or the caller once its own work is
done), and whether the caller runs other threads (then the workers come from a fork
server, not a fork of it)."""

from __future__ import annotations

import threading

import pytest

from audit.log.keys import generate_signer
from audit.log.sigbatch import SignatureBatch, _start_method

SIGNER = generate_signer("batch-test", rng=lambda n: bytes(range(n)))
VERIFIER = SIGNER.verifier()
MESSAGES = [f"event {i}".encode() for i in range(300)]
SIGNATURES = [SIGNER.sign(m) for m in MESSAGES]


def first_failure(jobs: int, bad: set[int], *, early: bool = False) -> int | None:
    with SignatureBatch(jobs, len(MESSAGES)) as batch:
        for i, (m, sig) in enumerate(zip(MESSAGES, SIGNATURES, strict=True)):
            if i in bad:
                sig = bytes([sig[0] ^ 1]) + sig[1:]
            assert batch.add(VERIFIER, m, sig) == i
            if early and batch.settled_failure() is not None:
                break
        return batch.first_failure()


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("bad", [set(), {0}, {31, 32}, {150, 40}, {299}, {33, 299}])
def test_the_first_failure_in_order_for_any_number_of_processes(jobs: int, bad: set[int]) -> None:
    assert first_failure(jobs, bad) == (min(bad) if bad else None)


def test_a_failure_already_settled_is_the_first() -> None:
    assert first_failure(2, {5, 200}, early=True) == 5


def test_the_chunks_no_worker_took_are_checked_by_the_caller() -> None:
    # one worker holds at most two chunks: the rest wait until first_failure takes them
    with SignatureBatch(2, len(MESSAGES)) as batch:
        assert batch.chunk == 37
        for m, sig in zip(MESSAGES, SIGNATURES, strict=True):
            batch.add(VERIFIER, m, sig)
        batch.add(VERIFIER, b"not signed", SIGNATURES[0])
        assert batch.first_failure() == len(MESSAGES)
        # the last chunk (the failing one) and others were the caller's
        taken_here = [c.start for c in batch._chunks if c.result is None]
        assert len(MESSAGES) - len(MESSAGES) % 37 in taken_here


def test_a_process_with_threads_does_not_fork_itself() -> None:
    if threading.active_count() == 1:
        assert _start_method() == "fork"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert _start_method() in ("forkserver", "spawn")
        assert first_failure(2, {77}) == 77
    finally:
        stop.set()
        other.join()


def test_closing_with_chunks_still_held_by_the_workers_returns() -> None:
    # a failure in the first chunk: the workers still hold later ones when the batch
    # closes (terminating them mid-write could wait forever on the queue's lock)
    for _ in range(10):
        assert first_failure(3, {0}) == 0
