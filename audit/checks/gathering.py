"""TRICKS_OUT_OF_ORDER: tricks gathered in the order won, by the side that won them.

From ``gathered`` (each side's trick numbers, first stacked first) and from
``collected`` (the pack as put together, top card first): a trick gathered by the side
that did not win it, missing or twice, a pile out of order (the book's example: the
last trick placed under the first), or a trick broken up in the collected pack. In
``collected`` a pile may read either way up (stacked face down, its last trick is on
top), the same way for both piles.
"""

from __future__ import annotations

from typing import Any

from audit.checks import AuditContext
from audit.checks.findings import Finding
from audit.rules.cards import CARD_TEXT, Side
from audit.rules.model import HandRecord, Record
from audit.rules.replay import HandOutcome
from audit.stacking.detector import previous_hand_with_pack

__all__ = ["check", "link_next_deal"]


def _gathered(hand: HandRecord, outcome: HandOutcome) -> list[Finding]:
    assert hand.gathered is not None
    n = hand.number
    out: list[Finding] = []
    sides = [w & 1 for w in outcome.winners]
    won_ns = [i + 1 for i, s in enumerate(sides) if s == 0]
    won_ew = [i + 1 for i, s in enumerate(sides) if s == 1]
    if list(hand.gathered[0]) == won_ns and list(hand.gathered[1]) == won_ew:
        return out  # the usual case: gathered as won
    won = {Side.NS: won_ns, Side.EW: won_ew}
    seen: dict[int, list[str]] = {}
    for side in Side:
        for t in hand.gathered[side]:
            seen.setdefault(t, []).append(side.name)
    twice = sorted(t for t, sides in seen.items() if len(sides) > 1)
    missing = sorted(set(range(1, 14)) - set(seen))
    if twice:
        out.append(
            Finding(
                "TRICKS_OUT_OF_ORDER",
                f"hand {n}: tricks gathered twice: {twice}",
                hand=n,
                evidence={"twice": twice},
            )
        )
    if missing:
        out.append(
            Finding(
                "TRICKS_OUT_OF_ORDER",
                f"hand {n}: tricks not gathered: {missing}",
                hand=n,
                evidence={"missing": missing},
            )
        )
    for side in Side:
        pile = list(hand.gathered[side])
        wrong_side = [t for t in pile if t in won[side.other]]
        if wrong_side:
            out.append(
                Finding(
                    "TRICKS_OUT_OF_ORDER",
                    f"hand {n}: {side.name} gathered trick(s) {wrong_side} won by {side.other.name}",
                    hand=n,
                    evidence={"side": side.name, "tricks": wrong_side},
                )
            )
        own = [t for t in pile if t in won[side]]
        if own != sorted(own):
            out.append(
                Finding(
                    "TRICKS_OUT_OF_ORDER",
                    f"hand {n}: {side.name} stacked its tricks as {pile}, not in the order won {won[side]}",
                    hand=n,
                    evidence={"side": side.name, "gathered": pile, "won": won[side]},
                )
            )
    return out


def _collected(hand: HandRecord, outcome: HandOutcome) -> list[Finding]:
    assert hand.collected is not None
    n = hand.number
    trick_of = {}
    for i, t in enumerate(hand.tricks):
        for c in t.cards:
            trick_of[c] = i + 1
    pack = hand.collected
    if len(pack) != 52 or set(pack) != set(trick_of):
        return [
            Finding(
                "TRICKS_OUT_OF_ORDER",
                f"hand {n}: the collected pack is not the 52 cards played",
                hand=n,
                evidence={"length": len(pack)},
            )
        ]
    runs: list[int] = []
    for c in pack:
        number = trick_of[c]
        if not runs or runs[-1] != number:
            runs.append(number)
    broken = sorted({r for r in runs if runs.count(r) > 1})
    if broken:
        return [
            Finding(
                "TRICKS_OUT_OF_ORDER",
                f"hand {n}: tricks {broken} are split up in the collected pack",
                hand=n,
                evidence={"split": broken, "sequence": runs},
            )
        ]
    # one side's pile then the other's, each in the order won
    side_of = {i + 1: w.side for i, w in enumerate(outcome.winners)}
    piles: list[list[int]] = []
    for r in runs:
        if not piles or side_of[piles[-1][-1]] != side_of[r]:
            piles.append([r])
        else:
            piles[-1].append(r)
    # A pile stacked face down has its last trick on top; some producers write the
    # pile the other way up. Either reading is accepted, the same for both piles.
    falling = all(p == sorted(p, reverse=True) for p in piles)
    rising = all(p == sorted(p) for p in piles)
    if len(piles) > 2 or not (falling or rising):
        return [
            Finding(
                "TRICKS_OUT_OF_ORDER",
                f"hand {n}: the collected pack is not two piles of tricks in the order won "
                f"(order of tricks: {runs})",
                hand=n,
                evidence={"sequence": runs, "top_card": CARD_TEXT[pack[0]]},
            )
        ]
    return []


def check(ctx: AuditContext) -> list[Finding]:
    out: list[Finding] = []
    for hand, outcome in zip(ctx.record.hands, ctx.outcomes, strict=True):
        if not outcome.replayable:
            continue
        if hand.gathered is not None:
            out += _gathered(hand, outcome)
        if hand.collected is not None:
            out += _collected(hand, outcome)
    return out


def link_next_deal(
    findings: list[Finding], record: Record, stacking: dict[int, dict[str, Any]]
) -> None:
    """Point each TRICKS_OUT_OF_ORDER finding at the stacking test of the next deal from
    that pack (``evidence.next_deal``): a pile gathered out of order is what a stacked
    deal is made from, so that test is where to look next.

    ``next_deal`` holds the hand's number, ``stacking``, a JSON pointer (RFC 6901) to its
    ``stacking`` object in the report, and ``p_value``; both null when that deal could not
    be tested. Findings in a hand after which the pack was not dealt again get none."""
    packs = [h.pack for h in record.hands]
    position = {h.number: i for i, h in enumerate(record.hands)}
    next_of: dict[int, int] = {}
    for j in range(len(record.hands)):
        i = previous_hand_with_pack(packs, j)
        if i is not None and record.hands[i].number not in next_of:
            next_of[record.hands[i].number] = record.hands[j].number
    for f in findings:
        if f.code != "TRICKS_OUT_OF_ORDER" or f.hand not in next_of:
            continue
        m = next_of[f.hand]
        info = stacking.get(m)
        f.evidence["next_deal"] = {
            "hand": m,
            "stacking": None if info is None else f"/hands/{position[m]}/stacking",
            "p_value": None if info is None else info["p_value"],
        }
