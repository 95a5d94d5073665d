"""Every kind of shuffle failure has its own code; the audit finding stays SHUFFLE_MISMATCH."""

from __future__ import annotations

import inspect

from shuffle import errors
from shuffle.errors import CommitmentMismatchError, OutcomeMismatchError, ShuffleError


def raised_classes() -> list[type[ShuffleError]]:
    return [
        c
        for _, c in inspect.getmembers(errors, inspect.isclass)
        if issubclass(c, ShuffleError) and c is not ShuffleError
    ]


def test_each_failure_class_has_its_own_code() -> None:
    classes = raised_classes()
    assert len(classes) >= 5
    codes = [c.code for c in classes]
    assert len(set(codes)) == len(codes), codes
    assert ShuffleError.code not in codes


def test_a_commitment_failure_is_told_from_an_outcome_failure() -> None:
    commitment = CommitmentMismatchError("seats.E.seed", "does not open")
    outcome = OutcomeMismatchError("cayenne", "not the derived card")
    assert commitment.code == "SHUFFLE_COMMITMENT_MISMATCH"
    assert outcome.code == "SHUFFLE_OUTCOME_MISMATCH"
    assert commitment.path != outcome.path and commitment.code != outcome.code


def test_no_error_code_is_the_finding_code() -> None:
    assert errors.FINDING == "SHUFFLE_MISMATCH"
    assert errors.FINDING not in {c.code for c in raised_classes()}
