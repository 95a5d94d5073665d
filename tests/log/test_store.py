"""The stored log on SQLite and PostgreSQL: appends, chains, keys, proofs, checkpoints."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.log import merkle
from audit.log.bundle import build_bundle, verify_bundle
from audit.log.checkpoint import fork_evidence, verify_checkpoint, verify_fork_evidence
from audit.log.errors import (
    EventError,
    LogChainBroken,
    LogInconsistent,
    LogSignatureInvalid,
    StoreError,
)
from audit.log.events import canonical_json, event_hash, make_event, sign_event
from audit.log.keys import Signer, generate_signer
from audit.log.migrations import LATEST_VERSION
from audit.log.store import open_log
from audit.log.verify import verify_log

from .conftest import ORIGIN, hand_events


def _raw(url: str) -> Any:
    if url.startswith("sqlite:///"):
        return sqlite3.connect(url[len("sqlite:///") :], isolation_level=None)
    import psycopg

    base, _, schema = url.partition("?schema=")
    conn = psycopg.connect(base, autocommit=True)
    conn.execute(f'SET search_path TO "{schema}"')
    return conn


def test_appends_proofs_and_checkpoints(
    log_url: str, log_signer: Signer, players: dict[str, Signer]
) -> None:
    seats = list(players.values())
    log = open_log(log_url, ORIGIN, log_signer)
    for s in seats:
        log.register_key(s.name, s.verifier_key())
    assert log.size() == 0 and log.root() == merkle.EMPTY_ROOT
    all_leaves: list[bytes] = []
    for hand in range(3):
        evs = hand_events(seats, "t1", str(hand), 13)
        assert log.append(evs[:5]) == list(range(len(all_leaves), len(all_leaves) + 5))
        log.append(evs[5:])
        all_leaves += [canonical_json(e) for e in evs]
        log.checkpoint()
    n = len(all_leaves)
    assert log.size() == n == 39
    assert log.leaves(0, n) == all_leaves
    assert log.root() == merkle.root_hash(all_leaves)
    for size in (1, 2, 13, 26, 39):
        assert log.root(size) == merkle.root_hash(all_leaves[:size])
        for index in {0, size // 2, size - 1}:
            assert log.inclusion_proof(index, size) == merkle.inclusion_proof(
                all_leaves[:size], index
            )
        for size1 in {1, size // 3 or 1, size}:
            assert log.consistency_proof(size1, size) == merkle.consistency_proof(
                all_leaves[:size], size1
            )
    # checkpoints: one per hand, stable when the tree has not grown
    notes = log.checkpoints()
    assert [verify_checkpoint(n_, log_signer.verifier_key()).size for n_ in notes] == [13, 26, 39]
    assert log.checkpoint() == notes[-1] == log.latest_checkpoint()
    events = log.hand_events("t1", 1)
    assert [e["index"] for e in events] == list(range(13, 26))
    assert log.next_link("t1", 1) == (13, event_hash(events[-1]["event"]))
    assert log.next_link("t1", 99) == (0, None)
    assert verify_log(log) == []
    bundle = json.loads(json.dumps(build_bundle(log, "t1", "1")))
    summary = verify_bundle(bundle, log_signer.verifier_key(), partial=True)
    assert summary["events"] == 13 and summary["checkpoint_size"] == 26
    assert not summary["finished"] and summary["last_type"] == "play"
    assert summary["later_size"] == 39
    log.close()


def test_batches_are_atomic_and_chains_enforced(
    log_url: str, log_signer: Signer, players: dict[str, Signer]
) -> None:
    north = players["north"]
    log = open_log(log_url, ORIGIN, log_signer)
    log.register_key(north.name, north.verifier_key())
    evs = hand_events([north], "t", "h", 4)
    log.append(evs[:2])
    # replay of seq 1, a gap, a wrong prev: refused, and the valid events before them too
    with pytest.raises(LogChainBroken):
        log.append([evs[2], evs[1]])
    with pytest.raises(LogChainBroken):
        log.append([evs[3]])
    forged = sign_event(
        make_event(
            origin=ORIGIN, table="t", hand="h", seq=2, prev="0" * 64, actor=north.name, type="play"
        ),
        north,
    )
    with pytest.raises(LogChainBroken):
        log.append([forged])
    assert log.size() == 2
    # a changed event no longer verifies; an unregistered key is refused
    bad = dict(evs[2], body={"card": 51})
    with pytest.raises(LogSignatureInvalid):
        log.append([bad])
    mallory = generate_signer("mallory")
    stolen = hand_events([mallory], "t", "h", 3)[2]
    stolen = sign_event(dict(evs[2], key="", actor="north"), mallory)
    with pytest.raises(LogSignatureInvalid):
        log.append([stolen])
    with pytest.raises(EventError):
        log.append(hand_events([north], "t", "other", 1, origin="elsewhere.example/log"))
    assert log.size() == 2
    assert log.append(evs[2:]) == [2, 3]
    # keys given by the caller stand in for the registry
    south = players["south"]
    s_ev = hand_events([south], "t", "s", 1)
    with pytest.raises(LogSignatureInvalid):
        log.append(s_ev)
    assert log.append(s_ev, keys={south.name: south.verifier_key()}) == [4]
    with pytest.raises(LogSignatureInvalid):
        log.append(hand_events([mallory], "t", "m", 1), keys={"mallory": south.verifier_key()})
    assert verify_log(log) == []
    log.close()


def test_database_refuses_updates_and_deletes(log_url: str, log_signer: Signer) -> None:
    north = generate_signer("north")
    with open_log(log_url, ORIGIN, log_signer, require_registered_keys=False) as log:
        log.append(hand_events([north], "t", "h", 3))
        log.checkpoint()
    conn = _raw(log_url)
    for sql in (
        "UPDATE log_entries SET actor = 'x'",
        "DELETE FROM log_entries WHERE idx = 2",
        "UPDATE log_nodes SET hash = hash",
        "DELETE FROM log_checkpoints",
        "DELETE FROM log_meta",
        "UPDATE log_schema_version SET version = 9",
    ):
        with pytest.raises(Exception, match="append-only"):
            conn.execute(sql)
    if not log_url.startswith("sqlite"):
        with pytest.raises(Exception, match="append-only"):
            conn.execute("TRUNCATE log_entries")
    conn.close()
    with open_log(log_url, ORIGIN, log_signer) as log:
        assert log.size() == 3


def test_reopen_migrations_origin_and_key(log_url: str, log_signer: Signer) -> None:
    with open_log(log_url, ORIGIN, log_signer):
        pass
    with open_log(log_url, ORIGIN, log_signer) as log:  # second open: nothing re-applied
        versions = log._db.query("SELECT version FROM log_schema_version")
        assert sorted(v[0] for v in versions) == list(range(1, LATEST_VERSION + 1))
    with pytest.raises(StoreError):
        open_log(log_url, "another.example/log", log_signer)
    with pytest.raises(StoreError):
        open_log(log_url, ORIGIN, generate_signer(ORIGIN))
    with open_log(log_url) as ro:  # read-only open finds origin and key
        assert ro.origin == ORIGIN and ro.verifier == log_signer.verifier()
        with pytest.raises(StoreError):
            ro.checkpoint()


def test_schedule_stable_checkpoints(tmp_path: Any, log_signer: Signer) -> None:
    now = [1000.0]
    north = generate_signer("north")
    log = open_log(
        str(tmp_path / "c.db"),
        ORIGIN,
        log_signer,
        require_registered_keys=False,
        clock=lambda: now[0],
    )
    evs = hand_events([north], "t", "h", 4)
    log.append(evs[:1])
    first = log.checkpoint(min_interval=60)
    log.append(evs[1:2])
    now[0] += 30
    assert log.checkpoint(min_interval=60) == first  # same note for every caller this period
    now[0] += 31
    second = log.checkpoint(min_interval=60)
    assert second != first and verify_checkpoint(second, log_signer.verifier_key()).size == 2
    assert log.checkpoint() == second  # on demand, but the tree has not grown
    log.close()


def test_rollback_rewrite_and_fork_evidence(tmp_path: Any, log_signer: Signer) -> None:
    north = generate_signer("north")
    path = tmp_path / "r.db"
    log = open_log(str(path), ORIGIN, log_signer, require_registered_keys=False)
    log.append(hand_events([north], "t", "h", 10))
    saved = log.checkpoint()  # a player keeps this
    log.close()
    # the operator (who holds the log key) throws the database away and rewrites history
    path.unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"r.db{suffix}").unlink(missing_ok=True)
    log = open_log(str(path), ORIGIN, log_signer, require_registered_keys=False)
    log.append(hand_events([north], "t", "h", 6))
    with pytest.raises(LogInconsistent, match="rollback"):
        log.verify_checkpoint(saved)
    findings = verify_log(log, saved_checkpoints=[saved])
    assert [f.code for f in findings] == ["LOG_INCONSISTENT"] and "rollback" in findings[0].message
    # a different history of the same length as the saved one: a fork, with evidence
    log.append(hand_events([north], "t", "h2", 4))
    with pytest.raises(LogInconsistent, match="root"):
        log.verify_checkpoint(saved)
    other = log.checkpoint_at(10)
    evidence = json.loads(json.dumps(fork_evidence(saved, other, log_signer.verifier_key())))
    verify_fork_evidence(evidence, log_signer.verifier_key())
    assert [f.code for f in verify_log(log, saved_checkpoints=[saved])] == ["LOG_INCONSISTENT"]
    log.close()


def test_bundle_tampering_is_named(
    tmp_path: Any, log_signer: Signer, players: dict[str, Signer]
) -> None:
    seats = list(players.values())
    log = open_log(str(tmp_path / "b.db"), ORIGIN, log_signer, require_registered_keys=False)
    log.append(hand_events(seats, "t", "a", 5))
    log.append(hand_events(seats, "t", "b", 8))
    log.checkpoint()
    log.append(hand_events(seats, "t", "c", 3))
    bundle = build_bundle(log, "t", "b")
    vkey = log_signer.verifier_key()
    verify_bundle(bundle, vkey, saved_checkpoint=log.checkpoints()[0], partial=True)

    def broken(mutate: Any) -> Exception:
        b = json.loads(json.dumps(bundle))
        mutate(b)
        with pytest.raises(Exception) as info:
            verify_bundle(b, vkey)
        return info.value

    e = broken(lambda b: b["events"][2]["event"]["body"].update(card=7))
    assert getattr(e, "code", "") == "LOG_SIGNATURE_INVALID" and getattr(e, "entry", None) == 7
    e = broken(lambda b: b["events"].pop(3))
    assert getattr(e, "code", "") == "LOG_CHAIN_BROKEN"
    e = broken(lambda b: b["events"][0]["inclusion"].reverse())
    assert getattr(e, "code", "") == "LOG_INCONSISTENT" and getattr(e, "entry", None) == 5
    e = broken(lambda b: b["events"][1].update(index=b["events"][0]["index"]))
    assert getattr(e, "code", "") == "LOG_INCONSISTENT" and "log order" in str(e)
    e = broken(lambda b: b["events"][1].update(index=True))
    assert getattr(e, "code", "") == "LOG_INCONSISTENT"
    e = broken(lambda b: b["later"]["consistency"].pop())
    assert getattr(e, "code", "") == "LOG_INCONSISTENT"
    e = broken(lambda b: b.update(checkpoint=b["checkpoint"].replace("\n13\n", "\n12\n")))
    assert getattr(e, "code", "") == "LOG_SIGNATURE_INVALID"
    with pytest.raises(LogSignatureInvalid):
        verify_bundle(bundle, generate_signer(ORIGIN).verifier_key())
    log.close()


def test_served_proofs_name_their_checkpoint(tmp_path: Any, log_signer: Signer) -> None:
    import base64

    north = generate_signer("north")
    log = open_log(str(tmp_path / "s.db"), ORIGIN, log_signer, require_registered_keys=False)
    log.append(hand_events([north], "t", "h", 9))
    served = json.loads(json.dumps(log.serve_inclusion(4)))
    cp = verify_checkpoint(served["checkpoint"], log_signer.verifier_key())
    assert served["size"] == cp.size == 9
    merkle.verify_inclusion(
        base64.b64decode(served["leaf_hash"]),
        4,
        cp.size,
        [base64.b64decode(h) for h in served["proof"]],
        cp.root,
    )
    old = served["checkpoint"]
    log.append(hand_events([north], "t", "h2", 4))
    cons = log.serve_consistency(9)
    cp2 = verify_checkpoint(cons["checkpoint"], log_signer.verifier_key())
    merkle.verify_consistency(
        9, cp2.size, cp.root, cp2.root, [base64.b64decode(h) for h in cons["proof"]]
    )
    assert log.serve_inclusion(4, old)["checkpoint"] == old  # against a named checkpoint
    from audit.log.checkpoint import verify_tlog_proof

    text = log.tlog_proof(4, old)
    assert verify_tlog_proof(text, log.leaves(4, 5)[0], log_signer.verifier_key())[0] == 4
    with pytest.raises(LogInconsistent):
        log.serve_inclusion(10, old)
    log.close()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=8), st.data())
def test_random_batches_match_the_reference_tree(batches: list[int], data: st.DataObject) -> None:
    signer = generate_signer("p")
    log = open_log(":memory:", ORIGIN, generate_signer(ORIGIN), require_registered_keys=False)
    leaves: list[bytes] = []
    evs = hand_events([signer], "t", "h", sum(batches))
    at = 0
    for n in batches:
        log.append(evs[at : at + n])
        at += n
        leaves += [canonical_json(e) for e in evs[at - n : at]]
        size = len(leaves)
        assert log.root() == merkle.root_hash(leaves)
        index = data.draw(st.integers(0, size - 1))
        assert log.inclusion_proof(index) == merkle.inclusion_proof(leaves, index)
        size1 = data.draw(st.integers(1, size))
        assert log.consistency_proof(size1) == merkle.consistency_proof(leaves, size1)
    log.close()


def test_bulk_reads_give_what_the_per_hand_reads_give(
    log_url: str, log_signer: Signer, players: dict[str, Signer]
) -> None:
    """table_events, count_first_events and inclusion_proofs (a tournament certificate's
    reads) equal the per-hand and per-entry reads, whatever the batch size."""
    seats = list(players.values())
    log = open_log(log_url, ORIGIN, log_signer)
    for s in seats:
        log.register_key(s.name, s.verifier_key())
    for hand in range(3):  # interleaved tables, so log order is not table order
        for table in ("t1", "t2", "t3"):
            log.append(hand_events(seats, table, f"entrant-{hand}", 2 + hand))
    size = log.size()
    wanted = ["t3", "t1"]
    bulk = log.table_events(wanted, chunk=1)
    per_hand = [e for t in wanted for h in range(3) for e in log.hand_events(t, f"entrant-{h}")]
    assert bulk == sorted(per_hand, key=lambda e: e["index"])
    assert log.count_first_events("t1", "entrant-") == 3
    assert log.count_first_events("t1", "other-") == 0
    indices = [e["index"] for e in bulk]
    for batch in (1, 4, 4096):
        proofs = list(log.inclusion_proofs(indices, size, batch=batch))
        assert proofs == [(i, log.inclusion_proof(i, size)) for i in indices]
    with pytest.raises(LogInconsistent):
        list(log.inclusion_proofs(indices, size + 1))
    log.close()
