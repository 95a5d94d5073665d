"""The service's receipt for an entrant's seed reveal (cayenne-tournament-deals/2).

Under version 2 the entrants whose seeds deal are those whose reveals the service received
before the reveal deadline of the signed ``tournament_start``. The service answers each
such reveal with a receipt: a C2SP signed note by the log key over :func:`receipt_text`
(the event, the entrant, the SHA-256 of the signed reveal event, when it was received and
the deadline). The entrant keeps it; if the event's ``tournament_deal`` does not list the
entrant as revealed, the receipt and that logged event together prove that the service
dropped a reveal it had taken in time (:func:`check_dealt`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit.errors import FairplayError
from audit.log.keys import Signer, Verifier
from audit.log.note import sign as sign_note
from audit.log.note import verify as verify_note

__all__ = [
    "FORMAT",
    "DroppedReveal",
    "Receipt",
    "ReceiptInvalid",
    "check_dealt",
    "issue",
    "receipt_text",
    "verify_receipt",
]

FORMAT = "cayenne-tournament-reveal-receipt/1"


class ReceiptInvalid(FairplayError):
    """A receipt that is not one: not signed by the log key, or not of this format."""

    code = "RECEIPT_INVALID"


class DroppedReveal(FairplayError):
    """A reveal the log key acknowledged in time that the deal left out."""

    code = "REVEAL_DROPPED"


@dataclass(frozen=True, slots=True)
class Receipt:
    origin: str
    tournament: str
    entrant: str
    reveal_sha256: str
    received: int
    """Unix seconds at which the service took the reveal (before ``deadline``)."""
    deadline: int


def receipt_text(r: Receipt) -> str:
    """The exact text the log key signs (one field a line, a final newline)."""
    return (
        f"{FORMAT}\n{r.origin}\n{r.tournament}\n{r.entrant}\n"
        f"sha256 {r.reveal_sha256}\nreceived {r.received}\ndeadline {r.deadline}\n"
    )


def issue(r: Receipt, signer: Signer) -> str:
    """The signed receipt (a signed note)."""
    return sign_note(receipt_text(r), signer)


def verify_receipt(note: str, key: Verifier) -> Receipt:
    """The receipt a note signed by ``key`` holds; :class:`ReceiptInvalid` otherwise."""
    try:
        text = verify_note(note, key)
    except FairplayError as exc:
        raise ReceiptInvalid(f"receipt: {exc.message}") from None
    lines = text.rstrip("\n").split("\n")
    try:
        fmt, origin, tid, entrant, digest, received, deadline = lines
        if fmt != FORMAT:
            raise ValueError(f"the format is {fmt!r}")
        parts = [line.split(" ") for line in (digest, received, deadline)]
        if [p[0] for p in parts] != ["sha256", "received", "deadline"] or any(
            len(p) != 2 for p in parts
        ):
            raise ValueError("the fields are not sha256, received, deadline")
        out = Receipt(origin, tid, entrant, parts[0][1], int(parts[1][1]), int(parts[2][1]))
    except ValueError as exc:
        raise ReceiptInvalid(f"receipt: not a {FORMAT} ({exc})") from None
    if out.received >= out.deadline:
        raise ReceiptInvalid("receipt: received after its own deadline")
    return out


def check_dealt(receipt: Receipt, start: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
    """Raise :class:`DroppedReveal` if the logged ``tournament_start`` (its body) has the
    receipt's deadline and the logged ``tournament_deal`` (its body) leaves its entrant out."""
    if start.get("reveal_deadline") != receipt.deadline:
        raise ReceiptInvalid(
            f"receipt: deadline {receipt.deadline} is not the start's "
            f"{start.get('reveal_deadline')!r}"
        )
    if receipt.entrant not in deal.get("revealed", []):
        raise DroppedReveal(
            f"{receipt.entrant}'s reveal was received at {receipt.received}, before the "
            f"deadline {receipt.deadline}, and the deal leaves it out",
            details={"entrant": receipt.entrant, "reveal_sha256": receipt.reveal_sha256},
        )
