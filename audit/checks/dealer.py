"""WRONG_DEALER (the deal passes to the left; the lowest cut deals first) and
PACK_NOT_ALTERNATED (the two packs are used alternately).

After a voided deal (a hand with ``void``: a misdeal or a new deal) the same dealer
deals again with the same pack (docs/rules.md), so the hand after it is expected of
the void's dealer, and the pack is not checked between the two.

A hand that carries ``board`` (a duplicate tournament) is dealt by the board's dealer
with the board's pack: the dealer does not rotate and the packs need not alternate
into or out of such a hand (whether the board is the same at every table is the
event-wide FOULED_BOARD check, :mod:`audit.tournament.eventaudit`)."""

from __future__ import annotations

from collections.abc import Mapping

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.rules.cards import CARD_TEXT, RANK_OF, Seat

__all__ = ["check", "lowest_cut"]


def _cut_rank(card: int) -> int:
    r = RANK_OF[card]
    return 1 if r == 14 else r  # ace low in the cut, as at Whist


def lowest_cut(cut: Mapping[str, int] | None) -> Seat | None:
    """The seat that cut lowest and so deals first, when the four cut and one was lowest."""
    if not cut or len(cut) != 4:
        return None
    ranks = {Seat.parse(s): _cut_rank(c) for s, c in cut.items()}
    low = min(ranks.values())
    lowest = [s for s, r in ranks.items() if r == low]
    return lowest[0] if len(lowest) == 1 else None


def check(ctx: AuditContext) -> list[Finding]:
    record = ctx.record
    out: list[Finding] = []
    if record.meta.get("independent_deals"):
        return out
    hands = record.hands
    first = lowest_cut(record.cut)
    if first is not None and hands and hands[0].board is None and hands[0].dealer != first:
        assert record.cut is not None
        out.append(
            Finding(
                "WRONG_DEALER",
                f"hand 1: {hands[0].dealer.name} dealt, but {first.name} cut lowest "
                f"({CARD_TEXT[record.cut[first.name]]})",
                hand=1,
                seat=hands[0].dealer,
                evidence={
                    "expected": first.name,
                    "cut": {k: CARD_TEXT[v] for k, v in record.cut.items()},
                },
            )
        )
    for prev, hand in zip(hands, hands[1:], strict=False):
        if hand.board is not None or prev.board is not None:
            continue
        if prev.void is not None:
            if hand.dealer != prev.dealer:
                out.append(
                    Finding(
                        "WRONG_DEALER",
                        f"hand {hand.number}: {hand.dealer.name} dealt; after the void deal of "
                        f"hand {prev.number} ({prev.void.reason.replace('_', ' ')}) the same "
                        f"dealer deals again, so it was {prev.dealer.name}'s deal",
                        hand=hand.number,
                        seat=hand.dealer,
                        evidence={
                            "expected": prev.dealer.name,
                            "previous_dealer": prev.dealer.name,
                        },
                    )
                )
            continue
        if hand.dealer != prev.dealer.left:
            out.append(
                Finding(
                    "WRONG_DEALER",
                    f"hand {hand.number}: {hand.dealer.name} dealt; the deal passes to the left, "
                    f"so it was {prev.dealer.left.name}'s deal",
                    hand=hand.number,
                    seat=hand.dealer,
                    evidence={
                        "expected": prev.dealer.left.name,
                        "previous_dealer": prev.dealer.name,
                    },
                )
            )
        if hand.pack is not None and prev.pack is not None and hand.pack == prev.pack:
            out.append(
                Finding(
                    "PACK_NOT_ALTERNATED",
                    f"hand {hand.number}: pack {hand.pack} dealt again; the packs are used alternately",
                    hand=hand.number,
                    evidence={"pack": hand.pack},
                )
            )
    return out
