"""Errors of the hand log, all under :class:`audit.errors.FairplayError`.

The three finding codes of the issue are the ``code`` of the three main classes:
``LOG_SIGNATURE_INVALID`` (a signature or a key does not verify), ``LOG_CHAIN_BROKEN``
(a hand's hash chain or sequence is broken) and ``LOG_INCONSISTENT`` (a hash, a proof,
a tree or a checkpoint disagrees with the data). ``entry`` names the log index when one
entry is at fault.
"""

from __future__ import annotations

from typing import Any

from audit.errors import FairplayError

__all__ = [
    "BundleUnreadable",
    "EventError",
    "KeyFormatError",
    "LogChainBroken",
    "LogError",
    "LogHandPartial",
    "LogInconsistent",
    "LogSignatureInvalid",
    "NoteError",
    "ProofError",
    "StoreError",
    "WeakKeyError",
]


class LogError(FairplayError):
    """Root of the hand log's errors; ``entry`` is the log index at fault, if any."""

    code = "LOG_ERROR"

    def __init__(
        self, message: str, *, entry: int | None = None, details: dict[str, Any] | None = None
    ) -> None:
        if entry is not None:
            message = f"entry {entry}: {message}"
        merged = dict(details or {})
        if entry is not None:
            merged["entry"] = entry
        super().__init__(message, details=merged)
        self.entry = entry


class LogSignatureInvalid(LogError):
    """An event or note signature (or the key text naming it) does not verify."""

    code = "LOG_SIGNATURE_INVALID"


class LogChainBroken(LogError):
    """A hand's chain is broken: wrong ``prev`` hash, a gap or replay in ``seq``."""

    code = "LOG_CHAIN_BROKEN"


class LogInconsistent(LogError):
    """Hashes, proofs, roots or checkpoints disagree with each other or with the data."""

    code = "LOG_INCONSISTENT"


class BundleUnreadable(LogInconsistent):
    """A file that is not a proof bundle (another format, a field of the wrong type, no
    events): nothing in it was checked, so it shows no tampering either (the verifier's
    exit 2, not 1). Its code stays ``LOG_INCONSISTENT``."""


class LogHandPartial(LogError):
    """A hand's proof bundle whose events all verify but that does not show the hand to
    its end (its last event is neither ``end`` nor ``void``)."""

    code = "LOG_HAND_PARTIAL"


class ProofError(LogInconsistent):
    """A Merkle inclusion or consistency proof does not verify (or is malformed)."""


class NoteError(LogSignatureInvalid):
    """A signed note that is malformed or carries no valid signature by the given key."""


class KeyFormatError(LogError, ValueError):
    """Key text (verifier key, signer key, key file) that cannot be parsed."""

    code = "LOG_KEY_INVALID"


class WeakKeyError(KeyFormatError):
    """An Ed25519 public key that is not a canonical point, or is of small order: the
    signatures such a key "verifies" can be forged (see :mod:`audit.log.ed25519`)."""

    code = "LOG_KEY_WEAK"


class EventError(LogError, ValueError):
    """An event that is not well formed; the message names the field."""

    code = "LOG_EVENT_INVALID"


class StoreError(LogError):
    """The log database cannot be opened, migrated or written as asked."""

    code = "LOG_STORE_ERROR"
