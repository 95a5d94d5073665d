"""STACKED_DEAL and STACKED_DEALER: deals that keep the structure of the pack's last tricks.

For each hand whose pack was last played earlier in the record with its gathering
known, :func:`audit.stacking.stacking_test` gives a calibrated p-value (see
docs/detection.md), with both readings of a gathered pile. Below ``alpha`` the deal is
reported; one dealer's p-values are also pooled (Fisher), so a dealer who
under-shuffles every time is reported even when no single deal is conclusive. Each is
an error only below its share of ``alpha`` for the whole record
(:mod:`audit.stacking.decision`), so an honest record of any length is irregular with
probability at most ``alpha``; otherwise it is a warning.

A duplicate board (a hand with ``board``) is not dealt from the pack the table last
gathered, so it is neither tested nor a reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import ERROR, WARNING, Finding
from audit.rules.cards import Seat, Side
from audit.rules.model import HandRecord
from audit.stacking import (
    PILE_TOP_EITHER,
    StackingResult,
    combine_by_dealer,
    previous_hand_with_pack,
    stacking_test,
)
from audit.stacking.decision import RecordThresholds, record_thresholds

__all__ = ["check", "reference_hands", "stacked_findings"]


def check(ctx: AuditContext) -> list[Finding]:
    record = ctx.record
    if record.meta.get("independent_deals"):
        return []
    pattern = record.ruleset.deal_pattern
    references = reference_hands(record.hands)
    results: list[tuple[Seat, StackingResult | None]] = [(h.dealer, None) for h in record.hands]
    for i, hand in enumerate(record.hands):
        j = references[i]
        if j is None or hand.board is not None or record.hands[j].board is not None:
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
            # `gathered` is first stacked first, so face down each pile's last trick is
            # on top (docs/record-format.md); but a greek who turns a pile over loses
            # nothing, and producers differ: both readings count (docs/detection.md).
            pile_top=PILE_TOP_EITHER,
        )
        if result is None:
            continue
        info = result.as_dict()
        info["reference_hand"] = prev.number
        ctx.stacking[hand.number] = info
        results[i] = (hand.dealer, result)
    return stacked_findings(results, ctx.stacking, record.players, ctx.alpha)


def reference_hands(hands: Sequence[HandRecord]) -> list[int | None]:
    """For each hand, the index of the hand whose gathered tricks its pack was made of.

    A voided deal is not played, so its cards are not gathered as tricks: the hand after
    it (the same dealer dealing again, with the same pack) and the voided deal itself
    both come from the pack last gathered before the void. Each is tested against it
    (the seed's cheat would misdeal on purpose to deal his stacked pack again)."""
    played = [i for i, h in enumerate(hands) if h.void is None]
    packs = [hands[i].pack for i in played]
    out: list[int | None] = []
    for i, hand in enumerate(hands):
        slot = sum(1 for j in played if j < i)  # the played hands before this one
        j = previous_hand_with_pack([*packs[:slot], hand.pack], slot)
        out.append(None if j is None else played[j])
    return out


def stacked_findings(
    results: Sequence[tuple[Seat, StackingResult | None]],
    infos: Mapping[int, dict[str, Any]],
    players: Mapping[str, str] | None,
    alpha: float,
) -> list[Finding]:
    """STACKED_DEAL for each deal below ``alpha``, then STACKED_DEALER for each dealer
    whose deals pooled fall below it; each an error only below its share of ``alpha``
    for the record (:mod:`audit.stacking.decision`), a warning (evidence) otherwise.
    ``results``: hand by hand, the dealer and the test's result (``None`` when
    untested); ``infos``: hand number -> the report's ``stacking``."""
    rule = record_thresholds(results, alpha)
    share = _share(rule)
    out: list[Finding] = []
    for number, (dealer, result) in enumerate(results, start=1):
        if result is not None and result.p_value < alpha:
            out.append(_deal_finding(number, dealer, infos[number], rule, share))
    for dealer, pooled in combine_by_dealer(results).items():
        if pooled["deals"] < 2 or pooled["p_value"] >= alpha:
            continue
        who = (players or {}).get(dealer.name) or dealer.name
        hands = pooled["hands"]
        # each pooled deal's p-value is its result's, the one its `stacking` reports
        p_values = [_p_value(results[h - 1][1]) for h in hands]
        out.append(_dealer_finding(who, hands, p_values, pooled["p_value"], rule, share))
    return out


def _p_value(result: StackingResult | None) -> float:
    assert result is not None  # combine_by_dealer pools tested deals only
    return result.p_value


def _share(rule: RecordThresholds) -> str:
    """How the record's alpha is shared, in words (the same for each of its findings)."""
    return f"alpha {rule.alpha:g} shared over {rule.deals} tested deal(s)" + (
        f" and {rule.dealers} dealer(s)" if rule.dealers else ""
    )


def _level(
    p: float, threshold: float, what: str, rule: RecordThresholds, share: str
) -> tuple[str, str]:
    """The severity and the words for a p-value below alpha against its error level."""
    if p < threshold:
        return ERROR, f"p = {p:.2g} < {threshold:.2g}, {what}'s level ({share})"
    return WARNING, (
        f"p = {p:.2g} < alpha {rule.alpha:g}, but not below {threshold:.2g}, {what}'s level "
        f"({share}): evidence, not a finding that the record is irregular"
    )


def _deal_finding(
    number: int, dealer: Seat, info: dict[str, Any], rule: RecordThresholds, share: str
) -> Finding:
    """STACKED_DEAL for hand ``number`` from its report ``stacking`` object."""
    ev = dict(info["evidence"])
    riffles = ev.get("riffles")
    together = ev.get("tricks_together") or []
    p, reference = info["p_value"], info["reference_hand"]
    severity, level = _level(p, rule.deal, "one deal", rule, share)
    return Finding(
        "STACKED_DEAL",
        f"hand {number}: the deal keeps the structure of the tricks gathered in hand "
        f"{reference} ({level})"
        + (f"; most likely {riffles} riffle(s)" if riffles is not None else "")
        + (f"; tricks {together} stayed together" if together else ""),
        hand=number,
        seat=dealer,
        evidence={
            "p_value": p,
            "alpha": rule.alpha,
            "threshold": rule.deal,
            "reference_hand": reference,
            **ev,
        },
        severity=severity,
    )


def _dealer_finding(
    who: str,
    hands: list[int],
    p_values: list[float],
    combined: float,
    rule: RecordThresholds,
    share: str,
) -> Finding:
    """STACKED_DEALER: ``who``'s deals ``hands`` pooled (Fisher) below ``alpha``."""
    severity, level = _level(combined, rule.dealer, "one dealer", rule, share)
    return Finding(
        "STACKED_DEALER",
        f"{who}'s {len(hands)} deals together keep the gathered structure (combined {level})",
        hand=None,
        evidence={
            "dealer": who,
            "hands": hands,
            "p_values": p_values,
            "combined_p_value": combined,
            "method": "fisher",
            "alpha": rule.alpha,
            "threshold": rule.dealer,
        },
        severity=severity,
    )
