"""MISDEAL: the deal must follow from ``dealt_order`` by the packet pattern."""

from __future__ import annotations

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.rules.cards import CARD_TEXT, Seat, mask_of
from audit.rules.deal import deal_positions, pattern_name

__all__ = ["check"]


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    pattern = ctx.record.ruleset.deal_pattern
    for hand in ctx.record.hands:
        order = hand.dealt_order
        if order is None or hand.void is not None:
            continue  # a voided deal's dealt_order is the misdeal itself, already recorded
        n = hand.number
        if len(order) != 52 or len(set(order)) != 52:
            out.append(
                Finding(
                    "MISDEAL",
                    f"hand {n}: dealt_order holds {len(set(order))} distinct cards "
                    f"of {len(order)}, not the 52 of a pack",
                    hand=n,
                    evidence={"length": len(order), "distinct": len(set(order))},
                )
            )
            continue
        positions = deal_positions(pattern, hand.dealer)
        masks = [0, 0, 0, 0]
        for card, seat in zip(order, positions, strict=True):
            masks[seat] |= 1 << card
        if all(masks[s] == mask_of(hand.deal[s]) for s in range(4)):
            continue  # the usual case: the deal follows
        wrong = []
        for i, (card, seat) in enumerate(zip(order, positions, strict=True)):
            if card not in hand.deal[seat]:
                holder = next((s for s in Seat if card in hand.deal[s]), None)
                wrong.append(
                    {
                        "position": i + 1,
                        "card": CARD_TEXT[card],
                        "should_go_to": seat.name,
                        "went_to": None if holder is None else holder.name,
                    }
                )
        if wrong:
            first = wrong[0]
            out.append(
                Finding(
                    "MISDEAL",
                    f"hand {n}: the deal does not follow from dealt_order by {pattern_name(pattern)} from "
                    f"{hand.dealer.left.name}: card {first['position']} ({first['card']}) should have gone to "
                    f"{first['should_go_to']} but {first['went_to'] or 'nobody'} holds it "
                    f"({len(wrong)} cards misplaced)",
                    hand=n,
                    evidence={"pattern": pattern_name(pattern), "misplaced": wrong},
                )
            )
    return out
