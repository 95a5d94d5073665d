"""HOUSE_PLAYED: a seat whose clock ran out, played by the house for the rest of the hand.

A hand of the service carries ``x-house`` when the server played a seat after its
``clock_expired`` (audit/rules/house.py): the seat and the calls and cards played for it.
Not an irregularity of the play (the cards are legal, the signed log holds the expiry),
but the director's to rule on: a warning, never an error.
"""

from __future__ import annotations

from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.rules.cards import Seat

__all__ = ["check"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    for hand in ctx.record.hands:
        played: Any = hand.extra.get("x-house")
        if not isinstance(played, list):
            continue
        for item in played:
            if not isinstance(item, dict) or item.get("seat") not in ("N", "E", "S", "W"):
                continue
            calls, cards = item.get("calls", 0), item.get("cards", 0)
            seat = Seat.parse(item["seat"])
            what = " and ".join(
                p
                for p in (
                    _plural(calls, "call") if calls else "",
                    _plural(cards, "card") if cards else "",
                )
                if p
            )
            out.append(
                Finding(
                    "HOUSE_PLAYED",
                    f"hand {hand.number}: played by the house after the clock ran out: "
                    f"{seat.name}'s {what or 'turn'}",
                    hand=hand.number,
                    seat=seat,
                    evidence={"seat": seat.name, "calls": calls, "cards": cards},
                )
            )
    return out
