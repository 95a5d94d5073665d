"""Offline proof bundles: one hand's events with everything needed to check them.

A bundle (JSON, ``"format": "cayenne-fairplay/hand-proof/v1"``) holds the hand's signed
events, each with its log index and its inclusion proof against ``checkpoint`` (a
signed C2SP checkpoint note of the log), and optionally ``later``: a later checkpoint
with the consistency proof from ``checkpoint`` to it. :func:`verify_bundle` checks it
with only the log's verifier key: the checkpoint signatures, every event's signature,
the hand's chain (``seq`` 0, 1, 2, ... and ``prev`` hashes), every inclusion proof and
the consistency proof, and that the hand is finished: its last event is ``end`` or
``void`` (a bundle cut short would otherwise verify, and hide the reveal and the result).
Hashes in the bundle are standard base64.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from audit.log import merkle
from audit.log.checkpoint import Checkpoint, verify_checkpoint
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.cosignature import WitnessPolicy, WitnessPolicyError
from audit.log.errors import (
    BundleUnreadable,
    LogChainBroken,
    LogError,
    LogHandPartial,
    LogInconsistent,
    ProofError,
)
from audit.log.events import canonical_json, check_event, event_hash, verify_event
from audit.log.keys import Verifier
from audit.log.note import parse as parse_note

if TYPE_CHECKING:
    from audit.log.store import Log

__all__ = [
    "FINAL_TYPES",
    "FORMAT",
    "build_bundle",
    "verify_bundle",
]

FORMAT = "cayenne-fairplay/hand-proof/v1"
FINAL_TYPES = ("end", "void")
"""The event types that close a hand: the service's ``end`` (after the last card and the
server's reveal) and ``void`` (a ceremony abandoned, the server seed published)."""


def _b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


def _unb64(values: Any, where: str) -> list[bytes]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise BundleUnreadable(f"{where}: must be a list of base64 hashes")
    try:
        return [base64.b64decode(v, validate=True) for v in values]
    except (binascii.Error, ValueError) as exc:
        raise BundleUnreadable(f"{where}: invalid base64") from exc


def build_bundle(
    log: Log, table: str, hand: str, *, later: bool = True, sign: bool = True
) -> dict[str, Any]:
    """The proof bundle of one hand, against the first stored checkpoint covering it.

    With ``later``, the log's current checkpoint and the consistency proof to it are
    added when it is larger. ``sign=False`` (a service's reader) uses stored checkpoints
    only and raises :class:`LogError` when none covers the hand yet; otherwise a log
    opened with its key signs the checkpoints it needs.
    """
    events = log.hand_events(table, hand)
    if not events:
        raise LogError(f"no events for table {table!r} hand {hand!r}")
    need = max(e["index"] for e in events) + 1
    note_text = log.first_checkpoint_covering(need)
    if note_text is None:
        if log.signer is None or not sign:
            raise LogError(f"no checkpoint covers entry {need - 1} yet; issue one first")
        note_text = log.checkpoint()
    cp = parse_checkpoint(parse_note(note_text)[0])
    bundle: dict[str, Any] = {
        "format": FORMAT,
        "origin": log.origin,
        "log_key": log.verifier.text() if log.verifier else None,
        "table": table,
        "hand": hand,
        "checkpoint": note_text,
        "events": [
            {
                "index": e["index"],
                "event": e["event"],
                "inclusion": _b64(log.inclusion_proof(e["index"], cp.size)),
            }
            for e in events
        ],
    }
    if later:
        latest = log.checkpoint() if sign and log.signer else log.latest_checkpoint()
        assert latest is not None
        cp2 = parse_checkpoint(parse_note(latest)[0])
        if cp2.size > cp.size:
            bundle["later"] = {
                "checkpoint": latest,
                "consistency": _b64(log.consistency_proof(cp.size, cp2.size)),
            }
    return bundle


def _saved_status(saved: Checkpoint, first: Checkpoint, final: Checkpoint) -> str:
    """What the bundle says of a checkpoint the player saved (raises on a fork)."""
    known = {first.size: first.root, final.size: final.root}
    if saved.size in known:
        if known[saved.size] != saved.root:
            raise LogInconsistent(
                f"fork: the saved checkpoint and the bundle's disagree at size {saved.size}"
            )
        return f"consistent (the same tree of size {saved.size})"
    if saved.size > final.size:
        lo, hi, where = final.size, saved.size, f"newer than the bundle's ({final.size})"
    elif saved.size > first.size:
        lo, hi = saved.size, final.size
        where = f"between the bundle's checkpoints ({first.size} and {final.size})"
    else:
        lo, hi, where = saved.size, first.size, f"older than the bundle's ({first.size})"
    return (
        f"size {saved.size}, {where}: not checked; ask the log for the consistency proof "
        f"from {lo} to {hi}"
    )


def verify_bundle(
    bundle: Any,
    verifier_key: Verifier | str,
    *,
    saved_checkpoint: str | None = None,
    partial: bool = False,
    policy: WitnessPolicy | None = None,
) -> dict[str, Any]:
    """Check a hand's proof bundle; raise a ``LOG_*`` error naming the entry on failure.

    ``saved_checkpoint`` (a checkpoint the player kept) must agree with the bundle's
    checkpoint or its later one when it has the same size; another size cannot be
    checked from the bundle alone and is reported so. The hand must be finished (its
    last event ``end`` or ``void``), else :class:`LogHandPartial` is raised after every
    other check has passed, unless ``partial`` (a hand still being played). Returns a
    summary dict.

    With a witness ``policy``, the bundle's checkpoint or its later one (which the
    consistency proof joins to it) must carry cosignatures by enough of the policy's
    witnesses, else :class:`WitnessPolicyError` names the missing ones.
    """
    verifier = (
        verifier_key if isinstance(verifier_key, Verifier) else Verifier.from_text(verifier_key)
    )
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise BundleUnreadable(f"bundle.format: must be {FORMAT!r}")
    for field in ("origin", "table", "hand", "checkpoint"):
        if not isinstance(bundle.get(field), str):
            raise BundleUnreadable(f"bundle.{field}: must be a string")
    origin, table, hand = bundle["origin"], bundle["table"], bundle["hand"]
    cp = verify_checkpoint(bundle["checkpoint"], verifier, origin=origin)
    items = bundle.get("events")
    if not isinstance(items, list) or not items:
        raise BundleUnreadable("bundle.events: must be a non-empty list")
    prev: str | None = None
    last_index = -1
    last_type = ""
    for n, item in enumerate(items):
        where = f"bundle.events[{n}]"
        raw_index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(raw_index, int) or isinstance(raw_index, bool) or raw_index < 0:
            raise BundleUnreadable(f"{where}.index: must be a non-negative integer")
        index = raw_index
        if index <= last_index:
            raise LogInconsistent(f"{where}.index: events must be in log order", entry=index)
        last_index = index
        try:
            ev = check_event(item.get("event"))
        except LogError as exc:
            raise LogInconsistent(f"{where}.event: {exc.message}", entry=index) from exc
        if (ev["origin"], ev["table"], ev["hand"]) != (origin, table, hand):
            raise LogInconsistent(f"{where}: event is not of this log, table and hand", entry=index)
        verify_event(ev, entry=index)
        if ev["seq"] != n:
            raise LogChainBroken(f"{where}: seq {ev['seq']}, expected {n}", entry=index)
        if ev["prev"] != prev:
            raise LogChainBroken(f"{where}: prev is not the hash of the event before", entry=index)
        prev = event_hash(ev)
        last_type = str(ev["type"])
        proof = _unb64(item.get("inclusion"), f"{where}.inclusion")
        try:
            merkle.verify_inclusion(
                merkle.leaf_hash(canonical_json(ev)), index, cp.size, proof, cp.root
            )
        except ProofError as exc:
            raise ProofError(
                f"{where}: not included in the checkpoint of size {cp.size}: {exc.message}",
                entry=index,
            ) from exc
    final: Checkpoint = cp
    later = bundle.get("later")
    if later is not None:
        if not isinstance(later, dict) or not isinstance(later.get("checkpoint"), str):
            raise LogInconsistent("bundle.later.checkpoint: must be a checkpoint note")
        cp2 = verify_checkpoint(later["checkpoint"], verifier, origin=origin)
        proof = _unb64(later.get("consistency"), "bundle.later.consistency")
        try:
            merkle.verify_consistency(cp.size, cp2.size, cp.root, cp2.root, proof)
        except ProofError as exc:
            raise ProofError(
                f"bundle.later: checkpoint {cp2.size} is not an extension of {cp.size}: "
                f"{exc.message}"
            ) from exc
        final = cp2
    witnessed: list[str] = []
    if policy is not None:
        notes = [bundle["checkpoint"]] + ([later["checkpoint"]] if later is not None else [])
        failure: WitnessPolicyError | None = None
        for note_text in reversed(notes):  # the later one first: it covers more
            try:
                witnessed = [w.name for w in policy.check(note_text)]
                failure = None
                break
            except WitnessPolicyError as exc:
                failure = failure or exc
        if failure is not None:
            raise failure
    saved_status = "not given"
    if saved_checkpoint is not None:
        saved = verify_checkpoint(saved_checkpoint, verifier, origin=origin)
        saved_status = _saved_status(saved, cp, final)
    finished = last_type in FINAL_TYPES
    if not finished and not partial:
        raise LogHandPartial(
            f"table {table} hand {hand} is not finished: the bundle's last event is "
            f"{last_type!r} (seq {len(items) - 1}) and a finished hand ends with 'end' or "
            f"'void'; its {len(items)} events verify, but this is a partial bundle that does "
            "not show the whole hand"
        )
    return {
        "origin": origin,
        "table": table,
        "hand": hand,
        "events": len(items),
        "checkpoint_size": cp.size,
        "later_size": final.size,
        "saved_checkpoint": saved_status,
        "finished": finished,
        "last_type": last_type,
        "witnessed_by": witnessed,
        "witness_policy": policy.describe() if policy is not None else None,
    }
