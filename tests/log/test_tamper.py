"""Change any stored byte and the whole-log verifier finds it and names the entry."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from audit.log import merkle
from audit.log.events import canonical_json, make_event, sign_event
from audit.log.keys import Signer, generate_signer
from audit.log.store import NID_SHIFT, nid, open_log
from audit.log.verify import verify_log

from .conftest import ORIGIN, hand_events

SQLITE_TRIGGERS = [
    f"{t}_no_{op}"
    for t in ("log_entries", "log_nodes", "log_checkpoints", "log_actor_keys")
    for op in ("update", "delete")
]


def _build(path: Path, log_signer: Signer, players: dict[str, Signer]) -> None:
    seats = list(players.values())
    with open_log(str(path), ORIGIN, log_signer) as log:
        for s in seats:
            log.register_key(s.name, s.verifier_key())
        log.append(hand_events(seats, "t1", "1", 7))
        log.checkpoint()
        log.append(hand_events(seats, "t1", "2", 6))
        log.checkpoint()


def _attacker(path: Path) -> sqlite3.Connection:
    """Someone with write access to the database file, who drops the guards first."""
    conn = sqlite3.connect(path, isolation_level=None)
    for name in SQLITE_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    return conn


@pytest.fixture
def tampered(tmp_path: Path, log_signer: Signer, players: dict[str, Signer]) -> Any:
    path = tmp_path / "t.db"
    _build(path, log_signer, players)
    conn = _attacker(path)
    log = open_log(str(path), ORIGIN, log_signer)
    assert verify_log(log) == []
    yield log, conn
    log.close()
    conn.close()


def _codes_for(findings: list[Any], entry: int) -> set[str]:
    return {f.code for f in findings if f.entry == entry}


def test_any_flipped_leaf_byte_is_detected(tampered: Any) -> None:
    log, conn = tampered
    rng = random.Random(5)
    for idx, leaf in conn.execute("SELECT idx, leaf FROM log_entries ORDER BY idx").fetchall():
        positions = sorted({0, len(leaf) - 1, *rng.sample(range(len(leaf)), 10)})
        for pos in positions:
            bad = bytearray(leaf)
            bad[pos] ^= 1 << rng.randrange(8)
            conn.execute("UPDATE log_entries SET leaf = ? WHERE idx = ?", (bytes(bad), idx))
            codes = _codes_for(verify_log(log), idx)
            # the leaf no longer hashes to the stored tree; a signature or chain may break too
            assert "LOG_INCONSISTENT" in codes, (idx, pos)
            assert codes <= {"LOG_INCONSISTENT", "LOG_SIGNATURE_INVALID", "LOG_CHAIN_BROKEN"}
            conn.execute("UPDATE log_entries SET leaf = ? WHERE idx = ?", (leaf, idx))
    assert verify_log(log) == []


def test_any_flipped_tree_hash_is_detected(tampered: Any) -> None:
    log, conn = tampered
    rng = random.Random(6)
    for key, h in conn.execute("SELECT nid, hash FROM log_nodes").fetchall():
        level, i = key >> NID_SHIFT, key & ((1 << NID_SHIFT) - 1)
        bad = bytearray(h)
        bad[rng.randrange(32)] ^= 1 << rng.randrange(8)
        conn.execute("UPDATE log_nodes SET hash = ? WHERE nid = ?", (bytes(bad), key))
        findings = verify_log(log)
        named = [f for f in findings if f.code == "LOG_INCONSISTENT" and f.entry is not None]
        assert named, (level, i)
        assert any(f"level {level}" in f.message for f in named)
        if level == 0:
            assert named[0].entry == i
        conn.execute("UPDATE log_nodes SET hash = ? WHERE nid = ?", (h, key))
    # an extra (injected) node is noticed too
    conn.execute("INSERT INTO log_nodes (nid, hash) VALUES (?, ?)", (nid(0, 999), b"\0" * 32))
    assert any("log_nodes has" in f.message for f in verify_log(log))
    conn.execute("DELETE FROM log_nodes WHERE nid = ?", (nid(0, 999),))


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("table_id", "t9"),
        ("hand_id", "9"),
        ("seq", 50),
        ("actor", "mallory"),
        ("type", "claim"),
        ("event_hash", "00" * 32),
    ],
)
def test_changed_index_columns_are_named(tampered: Any, column: str, value: Any) -> None:
    log, conn = tampered
    conn.execute(f"UPDATE log_entries SET {column} = ? WHERE idx = 3", (value,))
    findings = verify_log(log)
    assert _codes_for(findings, 3) == {"LOG_INCONSISTENT"}
    assert any(column in f.message for f in findings if f.entry == 3)


def test_checkpoint_and_key_tampering(tampered: Any) -> None:
    log, conn = tampered
    size, root, note = conn.execute(
        "SELECT size, root, note FROM log_checkpoints ORDER BY size LIMIT 1"
    ).fetchone()
    conn.execute(
        "UPDATE log_checkpoints SET note = ? WHERE size = ?", (note.replace("\n7\n", "\n8\n"), size)
    )
    assert [f.code for f in verify_log(log)] == ["LOG_SIGNATURE_INVALID"]
    conn.execute(
        "UPDATE log_checkpoints SET note = ?, root = ? WHERE size = ?", (note, b"\1" * 32, size)
    )
    assert [f.code for f in verify_log(log)] == ["LOG_INCONSISTENT"]
    conn.execute("UPDATE log_checkpoints SET root = ? WHERE size = ?", (root, size))
    # swap the registered key of a player for another key: their events are flagged
    mallory = generate_signer("north")
    conn.execute(
        "UPDATE log_actor_keys SET key_text = ? WHERE actor = 'north'", (mallory.verifier_key(),)
    )
    flagged = {f.entry for f in verify_log(log) if f.code == "LOG_SIGNATURE_INVALID"}
    assert flagged == {0, 4, 7, 11}  # north signs seq 0 and 4 of each hand


def test_truncation_is_detected_against_saved_checkpoint(tampered: Any) -> None:
    log, conn = tampered
    saved = log.latest_checkpoint()
    size = log.size()
    conn.execute("DELETE FROM log_entries WHERE idx >= ?", (size - 3,))
    conn.execute("DELETE FROM log_checkpoints WHERE size = ?", (size,))
    for level in range(6):
        lo = (size - 3) >> level
        conn.execute(
            "DELETE FROM log_nodes WHERE nid >= ? AND nid < ?",
            (nid(level, lo + (1 if (lo << level) < size - 3 else 0)), nid(level + 1, 0)),
        )
    findings = verify_log(log, saved_checkpoints=[saved])
    assert any(f.code == "LOG_INCONSISTENT" and "rollback" in f.message for f in findings)


def test_chain_break_inserted_with_a_valid_signature(tmp_path: Path, log_signer: Signer) -> None:
    """A correctly signed event whose prev skips an event: LOG_CHAIN_BROKEN, named."""
    north = generate_signer("north")
    path = tmp_path / "c.db"
    evs = hand_events([north], "t", "h", 3)
    skip = sign_event(
        make_event(
            origin=ORIGIN,
            table="t",
            hand="h",
            seq=2,
            prev=evs[0]["prev"] or "ab" * 32,
            actor="north",
            type="play",
        ),
        north,
    )
    with open_log(str(path), ORIGIN, log_signer, require_registered_keys=False) as log:
        log.append(evs[:2])
    conn = _attacker(path)
    frontier = merkle.Frontier.from_nodes(
        2,
        lambda ns: {
            n: conn.execute("SELECT hash FROM log_nodes WHERE nid = ?", (nid(*n),)).fetchone()[0]
            for n in ns
        },
    )
    leaf = canonical_json(skip)
    import hashlib

    conn.execute(
        "INSERT INTO log_entries VALUES (2, 't', 'h', 2, 'north', 'play', ?, ?)",
        (hashlib.sha256(leaf).hexdigest(), leaf),
    )
    for level, i, h in frontier.append(merkle.leaf_hash(leaf)):
        conn.execute("INSERT INTO log_nodes VALUES (?, ?)", (nid(level, i), h))
    with open_log(str(path), ORIGIN, log_signer) as log:
        findings = verify_log(log)
    assert [(f.code, f.entry) for f in findings] == [("LOG_CHAIN_BROKEN", 2)]
    conn.close()


def test_postgres_tamper_is_detected(pg_log_url: str, log_signer: Signer) -> None:
    import psycopg

    north = generate_signer("north")
    with open_log(pg_log_url, ORIGIN, log_signer, require_registered_keys=False) as log:
        log.append(hand_events([north], "t", "h", 5))
        base, _, schema = pg_log_url.partition("?schema=")
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{schema}"')
            conn.execute("SET session_replication_role = replica")  # disables the triggers
            leaf = conn.execute("SELECT leaf FROM log_entries WHERE idx = 2").fetchone()[0]
            bad = bytes(leaf).replace(b'"card":2', b'"card":3')
            conn.execute("UPDATE log_entries SET leaf = %s WHERE idx = 2", (bad,))
        codes = _codes_for(verify_log(log), 2)
        assert codes == {"LOG_INCONSISTENT", "LOG_SIGNATURE_INVALID"}
