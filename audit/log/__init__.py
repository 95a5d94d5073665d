"""The signed, append-only hand log (RFC 6962 Merkle tree, C2SP checkpoints).

Public pieces: :mod:`audit.log.merkle` (hashing and proofs), :mod:`audit.log.note`
(signed notes), :mod:`audit.log.keys` (Ed25519 keys), :mod:`audit.log.canonical` (the
canonical JSON of everything signed or hashed), :mod:`audit.log.events` (signed events),
:mod:`audit.log.checkpoint`, :mod:`audit.log.store` (``open_log``: the stored log, one
module per part), :mod:`audit.log.verify` (whole-log audit) and :mod:`audit.log.bundle`
(offline proof bundles). See docs/log.md.
"""

from __future__ import annotations

from audit.log.errors import (
    LogChainBroken,
    LogError,
    LogInconsistent,
    LogSignatureInvalid,
)
from audit.log.events import canonical_json, event_hash, make_event, sign_event, verify_event
from audit.log.keys import Signer, Verifier, generate_signer, load_signer, save_signer
from audit.log.store import Log, open_log

__all__ = [
    "Log",
    "LogChainBroken",
    "LogError",
    "LogInconsistent",
    "LogSignatureInvalid",
    "Signer",
    "Verifier",
    "canonical_json",
    "event_hash",
    "generate_signer",
    "load_signer",
    "make_event",
    "open_log",
    "save_signer",
    "sign_event",
    "verify_event",
]
