"""The verifier: a transcript in, the deal and cayenne card out, or a typed error.

Checks, in order: the transcript is well formed; every seed was revealed; the server's
seed opens the server commitment; each seat's seed opens that seat's commitment (bound
to its seat letter, player id, table and hand); and, when the transcript states them,
the deal number and the cayenne card equal the derived ones. All commitment compares are
constant time (:func:`hmac.compare_digest`). :func:`check_record_hand` also compares a
record hand's ``deal``, ``dealt_order``, ``cayenne``, ``dealer`` and ``pack`` with the
derivation, which is the auditor's ``SHUFFLE_MISMATCH`` check.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Any, NamedTuple

from audit.errors import FairplayError
from audit.rules.cards import CARD_TEXT, Card, Seat, parse_card
from shuffle import kdf
from shuffle.errors import (
    CommitmentMismatchError,
    OutcomeMismatchError,
    ShuffleFormatError,
    ShuffleIncompleteError,
)
from shuffle.protocol import SEAT_ORDER, Transcript, derive, transcript_from_json

__all__ = [
    "Result",
    "check_commitments",
    "check_record_hand",
    "verify",
    "verify_transcript",
]

ct_equal = hmac.compare_digest
"""Constant-time equality of two byte strings; every commitment check goes through it."""


class Result(NamedTuple):
    """What a verified transcript proves."""

    deal: dict[Seat, list[Card]]
    """Each seat's cards in the order received."""
    cayenne: Card
    pack_order: list[Card]
    """The dealing pack, first card dealt first (a record's ``dealt_order``)."""
    deal_number: int


def check_commitments(t: Transcript) -> None:
    """Raise unless every seed is revealed and opens its commitment."""
    if t.server_seed is None:
        raise ShuffleIncompleteError("server.seed", "the server's seed was not revealed")
    opened = kdf.server_commitment(t.server_seed, t.table, t.hand)
    if not ct_equal(opened, t.server_commitment):
        raise CommitmentMismatchError(
            "server.seed", "the server's seed does not open the server commitment"
        )
    for seat in SEAT_ORDER:
        e = t.seats[seat]
        if e.seed is None:
            raise ShuffleIncompleteError(
                f"seats.{seat.name}.seed", f"{seat.name}'s seed was not revealed (the hand is void)"
            )
        opened = kdf.seat_commitment(e.seed, seat, e.player, t.table, t.hand)
        if not ct_equal(opened, e.commitment):
            raise CommitmentMismatchError(
                f"seats.{seat.name}.seed",
                f"{seat.name}'s seed does not open {seat.name}'s commitment"
                " (for this seat, player, table and hand)",
            )


def verify(t: Transcript) -> Result:
    """Verify a parsed transcript; see the module docstring for the checks."""
    check_commitments(t)
    d = derive(t)
    if t.claimed_deal_number is not None and t.claimed_deal_number != d.deal_number:
        raise OutcomeMismatchError(
            "deal_number",
            f"the stated deal number {t.claimed_deal_number} is not the derived {d.deal_number}",
        )
    if t.claimed_cayenne is not None and t.claimed_cayenne != d.cayenne:
        raise OutcomeMismatchError(
            "cayenne",
            f"the stated cayenne card {CARD_TEXT[t.claimed_cayenne]} is not the derived "
            f"{CARD_TEXT[d.cayenne]}",
        )
    return Result(d.deal, d.cayenne, d.pack_order, d.deal_number)


def verify_transcript(obj: object) -> Result:
    """Verify the JSON ``shuffle`` object; raises a :class:`shuffle.errors.ShuffleError`."""
    return verify(transcript_from_json(obj))


def check_record_hand(hand: dict[str, Any], pattern: Sequence[int] | None = None) -> Result:
    """Verify a record hand's ``shuffle`` object and that the hand follows from it.

    ``pattern`` is the ruleset's ``deal_pattern``; when given, the transcript must use it.
    Errors name the field inside ``shuffle`` or, for the hand's own fields, ``hand.deal.N``.
    """
    if "shuffle" not in hand:
        raise ShuffleFormatError("", "this hand carries no shuffle object")
    t = transcript_from_json(hand["shuffle"])
    result = verify(t)
    if pattern is not None and tuple(pattern) != t.pattern:
        raise OutcomeMismatchError(
            "pattern", f"the shuffle deals {list(t.pattern)}, the ruleset {list(pattern)}"
        )
    if hand.get("dealer") != t.dealer.name:
        raise OutcomeMismatchError(
            "hand.dealer",
            f"the hand's dealer is {hand.get('dealer')!r}, the shuffle's {t.dealer.name!r}",
        )
    if "pack" in hand and hand["pack"] != t.pack:
        raise OutcomeMismatchError(
            "hand.pack", f"the hand was dealt from pack {hand['pack']!r}, the shuffle's {t.pack}"
        )
    deal = hand.get("deal")
    if not isinstance(deal, dict):
        raise OutcomeMismatchError("hand.deal", "the hand has no deal to compare")
    for seat in SEAT_ORDER:
        held = _cards(deal.get(seat.name), f"hand.deal.{seat.name}")
        if sorted(held) != sorted(result.deal[seat]):
            raise OutcomeMismatchError(
                f"hand.deal.{seat.name}",
                f"{seat.name}'s cards do not follow from the shuffle (derived: "
                f"{' '.join(CARD_TEXT[c] for c in result.deal[seat])})",
            )
    if "dealt_order" in hand:
        order = _cards(hand["dealt_order"], "hand.dealt_order")
        if order != result.pack_order:
            raise OutcomeMismatchError(
                "hand.dealt_order", "the dealt order is not the shuffled pack"
            )
    cay = _cards([hand.get("cayenne")], "hand.cayenne")[0]
    if cay != result.cayenne:
        raise OutcomeMismatchError(
            "hand.cayenne",
            f"the cayenne card {CARD_TEXT[cay]} is not the derived {CARD_TEXT[result.cayenne]}",
        )
    return result


def _cards(value: object, path: str) -> list[Card]:
    if not isinstance(value, list):
        raise OutcomeMismatchError(path, "must be a list of cards")
    try:
        return [parse_card(c) for c in value]
    except FairplayError as exc:
        raise OutcomeMismatchError(path, exc.message) from None
