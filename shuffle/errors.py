"""Errors of the shuffle protocol.

Every failure names the field and says what failed. ``path`` is a JSON path inside the
``shuffle`` object (``seats.E.seed``), or, beginning with ``hand.``, a field of the record
hand that carries it (``hand.cayenne``, ``hand.deal.N``: :func:`shuffle.verify.check_record_hand`
compares them with the derivation). Messages print a transcript path with ``shuffle.``
in front (``shuffle.seats.E.seed: ...``) and a hand path as it is (``hand.cayenne: ...``),
never ``shuffle.hand...``. Each kind of failure has its own ``code``, so a client tells a
malformed transcript (``SHUFFLE_INVALID``), a seed never revealed (``SHUFFLE_INCOMPLETE``),
a seed that does not open its commitment (``SHUFFLE_COMMITMENT_MISMATCH``), an outcome
that does not follow from the seeds (``SHUFFLE_OUTCOME_MISMATCH``), a ceremony step out
of order (``SHUFFLE_CEREMONY``) and a drand round that is not the event's or does not
verify (``SHUFFLE_BEACON_INVALID``) apart. The auditor reports any of them as its
``SHUFFLE_MISMATCH`` finding (the finding code, :data:`FINDING`), with the error's ``code``
in the finding's evidence.
"""

from __future__ import annotations

from audit.errors import FairplayError

__all__ = [
    "FINDING",
    "BeaconInvalidError",
    "CeremonyError",
    "CommitmentMismatchError",
    "OutcomeMismatchError",
    "ShuffleError",
    "ShuffleFormatError",
    "ShuffleIncompleteError",
]

FINDING = "SHUFFLE_MISMATCH"
"""The audit finding code for any shuffle failure (docs/findings.md); not an error code."""


class ShuffleError(FairplayError, ValueError):
    """A shuffle transcript that does not prove the deal; ``path`` names the field.

    Only its subclasses are raised; each has its own ``code``.
    """

    code = "SHUFFLE_FAILED"

    def __init__(self, path: str, problem: str) -> None:
        if path.startswith("hand."):
            message = f"{path}: {problem}"
        else:
            message = f"shuffle.{path}: {problem}" if path else f"shuffle: {problem}"
        super().__init__(message, details={"path": path, "problem": problem})
        self.path = path
        self.problem = problem


class ShuffleFormatError(ShuffleError):
    """A transcript that is not well formed (missing field, bad hex, unknown key)."""

    code = "SHUFFLE_INVALID"


class ShuffleIncompleteError(ShuffleFormatError):
    """A seed that was never revealed: the hand is void, it cannot be verified."""

    code = "SHUFFLE_INCOMPLETE"


class CommitmentMismatchError(ShuffleError):
    """A revealed seed that does not open the commitment made before it."""

    code = "SHUFFLE_COMMITMENT_MISMATCH"


class OutcomeMismatchError(ShuffleError):
    """A deal, dealt order, cayenne card or deal number that does not follow from the seeds."""

    code = "SHUFFLE_OUTCOME_MISMATCH"


class CeremonyError(ShuffleError):
    """A ceremony step out of order (a reveal before every commitment is in, a second commit)."""

    code = "SHUFFLE_CEREMONY"


class BeaconInvalidError(ShuffleError):
    """A beacon value that is not the beacon's: a bad signature, or the wrong round."""

    code = "SHUFFLE_BEACON_INVALID"
