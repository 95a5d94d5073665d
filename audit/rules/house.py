"""Who acts in a hand: a seated player by his own signed event, or the house for a seat
whose clock ran out.

A call or a card is a player's when its actor is seated (the seat is the signer's). The
service's own call or card (actor ``server``, signed by the log key) names the seat it is
for (``body.seat``) and stands only after that seat's ``clock_expired`` in the same hand's
chain: the operator, who holds the log key, cannot play a seat that never ran out of time
(docs/tournaments.md, "The clock"). A finished hand's record lists the seats the house
played and how many calls and cards it played for each (``x-house``), as the auditor's
``HOUSE_PLAYED`` reports them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from audit.errors import FairplayError
from audit.rules.cards import Seat

__all__ = ["SERVER", "HouseActionRefused", "acting_seat", "house_record", "house_tally"]

SERVER = "server"
"""The actor of the service's own events."""


class HouseActionRefused(FairplayError):
    """A call or card by the server for a seat whose clock had not run out, one by an
    actor not seated, or a seat's own action after the house took it over."""

    code = "HOUSE_ACTION_REFUSED"


def acting_seat(
    event: Mapping[str, Any], seat_of: Mapping[str, Seat], expired: Iterable[str]
) -> Seat:
    """The seat a ``call`` or ``play`` event acts for; ``expired`` holds the seats whose
    ``clock_expired`` came earlier in the hand's chain. Raises :class:`HouseActionRefused`."""
    actor = event.get("actor")
    body = event.get("body") if isinstance(event.get("body"), Mapping) else {}
    assert isinstance(body, Mapping)
    gone = set(expired)
    if actor == SERVER:
        try:
            seat = Seat.parse(str(body.get("seat")))
        except (ValueError, FairplayError):
            raise HouseActionRefused(
                f"the server's {event.get('type')} names no seat ({body.get('seat')!r})"
            ) from None
        if seat.name not in gone:
            raise HouseActionRefused(
                f"a server-signed {event.get('type')} for {seat.name}, whose clock has not "
                "run out (no clock_expired for the seat before it)"
            )
        return seat
    own = seat_of.get(str(actor))
    if own is None:
        raise HouseActionRefused(f"{actor} is not seated")
    if own.name in gone:
        raise HouseActionRefused(
            f"{own.name}'s clock ran out: the house plays {own.name} for the rest of the hand"
        )
    return own


def house_tally(tally: dict[str, list[int]], seat: Seat, kind: str) -> None:
    """Count one house ``call`` or ``play`` for ``seat`` in ``tally`` (seat: [calls, cards])."""
    counts = tally.setdefault(seat.name, [0, 0])
    counts[0 if kind == "call" else 1] += 1


def house_record(tally: Mapping[str, list[int]]) -> list[dict[str, Any]]:
    """A record hand's ``x-house``: the seats the house played, in seat order (N, E, S, W),
    each with the calls and cards it played for them."""
    return [
        {"seat": s.name, "calls": tally[s.name][0], "cards": tally[s.name][1]}
        for s in Seat
        if s.name in tally
    ]
