"""Whole-log audit: every stored byte is re-derived and compared.

:func:`verify_log` streams the entries in index order and checks, for each one, that the
stored leaf is a well-formed event in canonical form of this origin, that its signature
verifies under its key (and that key is registered for its actor, when the actor has
registered keys), that its chain holds (``seq`` dense, ``prev`` equal to the hash of the
previous event of the hand, computed from the leaf, never from a stored column), and that
the indexed columns equal the leaf's fields. It rebuilds the Merkle tree and compares
every stored complete-subtree hash, checks the node count, then checks every stored
checkpoint (signature, root column, root of the rebuilt tree at its size) and any saved
checkpoints the caller supplies (rollback, truncation and rewrites show up there).

Each problem is a :class:`Finding` with a code (``LOG_SIGNATURE_INVALID``,
``LOG_CHAIN_BROKEN``, ``LOG_INCONSISTENT``) and the entry index it names.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from audit.log import merkle
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import LogChainBroken, LogError, LogInconsistent, LogSignatureInvalid
from audit.log.events import parse_event, verify_event
from audit.log.keys import Verifier
from audit.log.note import verify as verify_note
from audit.log.store import Log, as_bytes, nid

__all__ = [
    "Finding",
    "check_log",
    "verify_log",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a log; ``entry`` is the log index, when one entry is at fault."""

    code: str
    message: str
    entry: int | None = None

    def text(self) -> str:
        where = f"entry {self.entry}: " if self.entry is not None else ""
        return f"{self.code} {where}{self.message}"

    def as_dict(self) -> dict[str, Any]:
        """The finding in the shape of an audit report's findings (cayenne-audit-report/1),
        with the log entry at fault in ``entry`` and in the evidence."""
        return {
            "code": self.code,
            "severity": "error",
            "hand": None,
            "entry": self.entry,
            "message": (f"entry {self.entry}: " if self.entry is not None else "") + self.message,
            "evidence": {"entry": self.entry},
        }


def _finding(exc: LogError, entry: int | None = None) -> Finding:
    message = exc.message
    if exc.entry is not None and message.startswith(f"entry {exc.entry}: "):
        message = message[len(f"entry {exc.entry}: ") :]
    return Finding(exc.code, message, exc.entry if exc.entry is not None else entry)


def verify_log(
    log: Log,
    *,
    verifier: Verifier | str | None = None,
    saved_checkpoints: Iterable[str] = (),
    batch: int = 5000,
    max_findings: int = 1000,
) -> list[Finding]:
    """Audit the whole log; return the findings (empty when everything holds)."""
    findings: list[Finding] = []
    db = log._db
    key = (
        verifier
        if isinstance(verifier, Verifier) or verifier is None
        else Verifier.from_text(verifier)
    )
    stored_vkey = dict(db.query("SELECT name, value FROM log_meta")).get("verifier_key")
    if key is None:
        key = log.verifier
    if key is None:
        findings.append(Finding("LOG_SIGNATURE_INVALID", "the log's verifier key is unknown"))
    elif stored_vkey is not None and stored_vkey != key.text():
        findings.append(
            Finding("LOG_SIGNATURE_INVALID", "the log database names another verifier key")
        )

    registry: dict[str, set[str]] = {}
    for actor, text in db.query("SELECT actor, key_text FROM log_actor_keys"):
        registry.setdefault(str(actor), set()).add(str(text))

    size = log.size()
    count_row = db.query("SELECT COUNT(*) FROM log_entries")
    if int(count_row[0][0]) != size:
        findings.append(
            Finding(
                "LOG_INCONSISTENT",
                f"{size - int(count_row[0][0])} entries are missing "
                f"below index {size} (indices must be dense)",
            )
        )

    cp_rows = [
        (int(r[0]), as_bytes(r[1]), str(r[2]))
        for r in db.query("SELECT size, root, note FROM log_checkpoints ORDER BY size")
    ]
    saved = []
    for note_text in saved_checkpoints:
        try:
            if key is None:
                raise LogSignatureInvalid("no verifier key to check the saved checkpoint")
            saved.append(parse_checkpoint(verify_note(note_text, key)))
        except LogError as exc:
            findings.append(_finding(exc))
    wanted_sizes = {s for s, _, _ in cp_rows} | {cp.size for cp in saved}
    roots: dict[int, bytes] = {0: merkle.EMPTY_ROOT}

    frontier = merkle.Frontier()
    heads: dict[tuple[str, str], tuple[int, str]] = {}
    expected_idx = 0
    start = 0
    bad_nodes: set[int] = set()
    while start < size and len(findings) < max_findings:
        rows = db.query(
            "SELECT idx, table_id, hand_id, seq, actor, type, event_hash, leaf FROM log_entries"
            " WHERE idx >= ? AND idx < ? ORDER BY idx",
            (start, start + batch),
        )
        created: list[tuple[int, int, bytes, int]] = []
        for idx, table, hand, seq, actor, etype, ehash, leaf in rows:
            idx = int(idx)
            leaf = as_bytes(leaf)
            while expected_idx < idx:
                findings.append(Finding("LOG_INCONSISTENT", "entry is missing", expected_idx))
                expected_idx += 1
                created.extend(
                    (lv, i, h, expected_idx - 1) for lv, i, h in frontier.append(b"\x00" * 32)
                )
            expected_idx = idx + 1
            created.extend((lv, i, h, idx) for lv, i, h in frontier.append(merkle.leaf_hash(leaf)))
            if frontier.size in wanted_sizes:
                roots[frontier.size] = frontier.root()
            _check_entry(
                findings,
                log.origin,
                registry,
                heads,
                idx,
                (str(table), str(hand), int(seq), str(actor), str(etype), str(ehash)),
                leaf,
            )
        _check_nodes(findings, log, created, bad_nodes)
        start += batch

    expected_nodes = sum(size >> level for level in range(size.bit_length()))
    node_count = int(db.query("SELECT COUNT(*) FROM log_nodes")[0][0])
    if node_count != expected_nodes:
        findings.append(
            Finding(
                "LOG_INCONSISTENT",
                f"log_nodes has {node_count} hashes, a tree of {size} has {expected_nodes}",
            )
        )

    for cp_size, cp_root, note_text in cp_rows:
        try:
            if key is None:
                raise LogSignatureInvalid("no verifier key")
            cp = parse_checkpoint(verify_note(note_text, key))
        except LogError as exc:
            findings.append(Finding(exc.code, f"stored checkpoint {cp_size}: {exc.message}"))
            continue
        if cp.size != cp_size or cp.origin != log.origin:
            findings.append(
                Finding(
                    "LOG_INCONSISTENT",
                    f"stored checkpoint {cp_size}: note names size {cp.size} of {cp.origin!r}",
                )
            )
        if not hmac.compare_digest(cp.root, cp_root):
            findings.append(
                Finding(
                    "LOG_INCONSISTENT",
                    f"stored checkpoint {cp_size}: root column differs from the note",
                )
            )
        _check_root(findings, f"stored checkpoint {cp_size}", cp.size, cp.root, roots, size)
    for cp in saved:
        if cp.origin != log.origin:
            findings.append(
                Finding(
                    "LOG_INCONSISTENT", f"saved checkpoint is of {cp.origin!r}, not {log.origin!r}"
                )
            )
            continue
        _check_root(findings, f"saved checkpoint {cp.size}", cp.size, cp.root, roots, size)
    return findings


def _check_root(
    findings: list[Finding],
    what: str,
    cp_size: int,
    root: bytes,
    roots: dict[int, bytes],
    size: int,
) -> None:
    if cp_size > size:
        findings.append(
            Finding(
                "LOG_INCONSISTENT",
                f"{what}: rollback or truncation: the log has {size} entries, the checkpoint "
                f"signed by the log shows {cp_size}",
            )
        )
    elif cp_size in roots and not hmac.compare_digest(roots[cp_size], root):
        findings.append(
            Finding(
                "LOG_INCONSISTENT",
                f"{what}: the log's first {cp_size} entries do not have the checkpoint's root "
                "(history rewritten)",
            )
        )


def _check_entry(
    findings: list[Finding],
    origin: str,
    registry: dict[str, set[str]],
    heads: dict[tuple[str, str], tuple[int, str]],
    idx: int,
    columns: tuple[str, str, int, str, str, str],
    leaf: bytes,
) -> None:
    table, hand, seq, actor, etype, ehash = columns
    try:
        ev = parse_event(leaf, entry=idx)
    except LogError as exc:
        findings.append(_finding(exc, idx))
        return
    real_hash = hashlib.sha256(leaf).hexdigest()
    if ev["origin"] != origin:
        findings.append(Finding("LOG_INCONSISTENT", f"event origin {ev['origin']!r}", idx))
    for name, column, value in (
        ("table", "table_id", table),
        ("hand", "hand_id", hand),
        ("seq", "seq", seq),
        ("actor", "actor", actor),
        ("type", "type", etype),
    ):
        if ev[name] != value:
            findings.append(
                Finding("LOG_INCONSISTENT", f"column {column} differs from the event's {name}", idx)
            )
    if ehash != real_hash:
        findings.append(
            Finding("LOG_INCONSISTENT", "column event_hash differs from the entry", idx)
        )
    try:
        verify_event(ev, entry=idx)
    except LogError as exc:
        findings.append(_finding(exc, idx))
    allowed = registry.get(ev["actor"])
    if allowed is not None and ev["key"] not in allowed:
        findings.append(
            Finding(
                "LOG_SIGNATURE_INVALID",
                f"signing key is not registered for actor {ev['actor']!r}",
                idx,
            )
        )
    head_key = (ev["table"], ev["hand"])
    head = heads.get(head_key)
    want_seq, want_prev = (0, None) if head is None else (head[0] + 1, head[1])
    if ev["seq"] != want_seq:
        findings.append(
            Finding(
                "LOG_CHAIN_BROKEN",
                f"table {ev['table']!r} hand {ev['hand']!r}: seq {ev['seq']}, expected {want_seq}",
                idx,
            )
        )
    elif ev["prev"] != want_prev:
        findings.append(
            Finding(
                "LOG_CHAIN_BROKEN",
                f"table {ev['table']!r} hand {ev['hand']!r}: prev is not the hash of event "
                f"seq {want_seq - 1}",
                idx,
            )
        )
    heads[head_key] = (ev["seq"], real_hash)


def _check_nodes(
    findings: list[Finding], log: Log, created: list[tuple[int, int, bytes, int]], bad: set[int]
) -> None:
    """Compare recomputed subtree hashes with the stored ones.

    Only the lowest differing node is reported: a parent over a differing child differs
    as a consequence (``bad`` carries those across batches).
    """
    if not created:
        return
    stored: dict[int, bytes] = {}
    ids = [nid(lv, i) for lv, i, _, _ in created]
    for s in range(0, len(ids), 500):
        chunk = ids[s : s + 500]
        marks = ", ".join("?" * len(chunk))
        for k, h in log._db.query(f"SELECT nid, hash FROM log_nodes WHERE nid IN ({marks})", chunk):
            stored[int(k)] = as_bytes(h)
    for level, i, h, _ in created:
        key = nid(level, i)
        got = stored.get(key)
        if got is not None and hmac.compare_digest(got, h):
            continue
        bad.add(key)
        if level > 0 and (nid(level - 1, 2 * i) in bad or nid(level - 1, 2 * i + 1) in bad):
            continue
        first, last = i << level, ((i + 1) << level) - 1
        span = f"entry {first}" if level == 0 else f"entries {first}..{last}"
        problem = "is missing" if got is None else "differs from the recomputed one"
        findings.append(
            Finding("LOG_INCONSISTENT", f"stored hash of {span} (level {level}) {problem}", first)
        )


def check_log(log: Log, **kwargs: Any) -> None:
    """Raise the first finding of :func:`verify_log` as a ``LOG_*`` error."""
    findings = verify_log(log, **kwargs)
    if findings:
        f = findings[0]
        classes: dict[str, type[LogError]] = {
            "LOG_SIGNATURE_INVALID": LogSignatureInvalid,
            "LOG_CHAIN_BROKEN": LogChainBroken,
        }
        cls = classes.get(f.code, LogInconsistent)
        raise cls(f.message, entry=f.entry, details={"findings": len(findings)})
