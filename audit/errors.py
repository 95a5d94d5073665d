"""The project's one exception root.

Every error a user can meet carries a stable machine-readable ``code`` and a message a
person can act on. Input errors name the JSON path or the field; rules errors name the
rule broken. The CLI and the HTTP service turn these into an exit status or a JSON
error body; nothing else should reach a terminal or a client.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BuildFailed",
    "DatabaseUnavailable",
    "FairplayError",
    "IllegalActionError",
    "InvalidCardError",
    "InvalidInput",
    "NotFoundError",
    "NotReadyError",
    "RecordError",
    "RefusedError",
    "RetryLater",
    "RulesetError",
    "SignatureRefused",
    "StateConflict",
    "WrongPhaseError",
]


class FairplayError(Exception):
    """Root of every error this project raises on purpose."""

    code = "FAIRPLAY_ERROR"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details or {}


class InvalidCardError(FairplayError, ValueError):
    """Card, suit, seat or contract text that cannot be parsed."""

    code = "INVALID_CARD"


class RecordError(FairplayError, ValueError):
    """A game record that is not valid cayenne-record/1; ``path`` names the first problem."""

    code = "INVALID_RECORD"

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem, details={"path": path})
        self.path = path
        self.problem = problem


class IllegalActionError(FairplayError, ValueError):
    """A call or play that the rules forbid in the current state.

    ``rule`` is a stable name for the rule broken (``out_of_turn``, ``not_held``,
    ``must_follow_suit``, ``hand_over``, ``bad_call``, ``ace_high_invalid``).
    """

    code = "ILLEGAL_ACTION"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message, details={"rule": rule})
        self.rule = rule


class RulesetError(FairplayError, ValueError):
    """A ruleset setting outside the documented choices."""

    code = "INVALID_RULESET"


class RetryLater(FairplayError):
    """An error that says when to ask again: ``retry_after`` seconds, also in ``details``
    (the HTTP layer sends it as ``Retry-After``)."""

    def __init__(
        self, message: str, retry_after: int = 1, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, details=dict(details or {}, retry_after=retry_after))
        self.retry_after = retry_after


class DatabaseUnavailable(RetryLater):
    """The database cannot be reached now (down, restarting, or the connection was lost).

    Not the client's fault and not a defect: the request may be sent again after
    ``retry_after`` seconds, by when the connection is tried again. What was acknowledged
    before stays acknowledged; what this request did may or may not have been committed,
    and sending it again is answered as the first time (the log holds each event once).
    """

    code = "DATABASE_UNAVAILABLE"


# The service's domain (its tables, events and rows) raises these, never an HTTP error;
# the HTTP layer (api/errors.py) gives each code its status. The codes are those the
# service has always answered with.


class InvalidInput(FairplayError, ValueError):
    """A request's value that the domain refuses; ``details["path"]`` names the field."""

    code = "BAD_REQUEST"


class StateConflict(FairplayError):
    """An action that the state of its table or event does not allow now."""

    code = "CONFLICT"


class NotFoundError(FairplayError, LookupError):
    """A table, event, hand or upload that does not exist (or is not shown to the asker)."""

    code = "NOT_FOUND"


class RefusedError(FairplayError):
    """An action the asker may not take."""

    code = "FORBIDDEN"


class WrongPhaseError(StateConflict):
    """An action that the phase of its hand or event does not expect now."""

    code = "WRONG_PHASE"


class BuildFailed(RetryLater):
    """A finished event's product (its certificate bundle, its analysis) whose build
    failed: not started again before ``retry_after`` seconds, so that a failure that
    repeats is not started again by every request."""

    code = "BUILD_FAILED"


class NotReadyError(StateConflict, RetryLater):
    """What the domain is still waiting for (an event's deal, its drand round): asked
    again after ``retry_after`` seconds, it may be there."""

    code = "NOT_READY"


class SignatureRefused(FairplayError):
    """A signed event whose signer is unknown or whose signature does not verify."""

    code = "INVALID_SIGNATURE"
