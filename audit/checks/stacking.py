"""STACKED_DEAL and STACKED_DEALER: deals that keep the structure of the pack's last tricks.

For each hand whose pack was last played earlier in the record with its gathering
known, :func:`audit.stacking.stacking_test` gives a calibrated p-value (see
docs/detection.md). Below ``alpha`` the deal is reported; one dealer's p-values are
also pooled (Fisher), so a dealer who under-shuffles every time is reported even when
no single deal is conclusive.
"""

from __future__ import annotations

from collections import defaultdict

from audit.cards import Seat, Side
from audit.checks import AuditContext
from audit.findings import Finding
from audit.model import HandRecord
from audit.stacking import PILE_TOP_LAST, combine_p_values, stacking_test


def _previous_with_pack(hands: list[HandRecord], index: int) -> int | None:
    hand = hands[index]
    if hand.pack is not None:
        for j in range(index - 1, -1, -1):
            if hands[j].pack == hand.pack:
                return j
            if hands[j].pack is None:
                break
    return index - 2 if index >= 2 else None


def check(ctx: AuditContext) -> list[Finding]:
    record = ctx.record
    if record.meta.get("independent_deals"):
        return []
    out: list[Finding] = []
    pattern = record.ruleset.deal_pattern
    by_dealer: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for i, hand in enumerate(record.hands):
        j = _previous_with_pack(record.hands, i)
        if j is None:
            continue
        prev, prev_out = record.hands[j], ctx.outcomes[j]
        if not prev_out.replayable or (prev.gathered is None and prev.collected is None):
            continue
        if not ctx.outcomes[i].deal_valid:
            continue
        result = stacking_test(
            [list(t.cards) for t in prev.tricks],
            None
            if prev.gathered is None
            else {Side.NS: list(prev.gathered[0]), Side.EW: list(prev.gathered[1])},
            None if prev.collected is None else list(prev.collected),
            {s: list(hand.deal[s]) for s in Seat},
            hand.dealer,
            pattern,
            None if hand.dealt_order is None else list(hand.dealt_order),
            # `gathered` is first stacked first: face down, each pile's last trick is on
            # top (docs/record-format.md).
            pile_top=PILE_TOP_LAST,
        )
        if result is None:
            continue
        info = result.as_dict()
        info["reference_hand"] = prev.number
        ctx.stacking[hand.number] = info
        who = (record.players or {}).get(hand.dealer.name) or hand.dealer.name
        by_dealer[who].append((hand.number, result.p_value))
        if result.p_value < ctx.alpha:
            ev = dict(result.evidence)
            riffles = ev.get("riffles")
            together = ev.get("tricks_together") or []
            out.append(
                Finding(
                    "STACKED_DEAL",
                    f"hand {hand.number}: the deal keeps the structure of the tricks gathered in hand "
                    f"{prev.number} (p = {result.p_value:.2g} < {ctx.alpha:g})"
                    + (f"; most likely {riffles} riffle(s)" if riffles is not None else "")
                    + (f"; tricks {together} stayed together" if together else ""),
                    hand=hand.number,
                    seat=hand.dealer,
                    evidence={
                        "p_value": result.p_value,
                        "alpha": ctx.alpha,
                        "reference_hand": prev.number,
                        **ev,
                    },
                )
            )
    for who, items in by_dealer.items():
        if len(items) < 2:
            continue
        combined = combine_p_values([p for _, p in items])
        if combined < ctx.alpha:
            out.append(
                Finding(
                    "STACKED_DEALER",
                    f"{who}'s {len(items)} deals together keep the gathered structure "
                    f"(combined p = {combined:.2g} < {ctx.alpha:g})",
                    hand=None,
                    evidence={
                        "dealer": who,
                        "hands": [h for h, _ in items],
                        "p_values": [p for _, p in items],
                        "combined_p_value": combined,
                        "method": "fisher",
                    },
                )
            )
    return out
