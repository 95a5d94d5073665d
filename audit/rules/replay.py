"""Replay of a recorded hand: the tolerant twin of :class:`audit.rules.play.HandState`.

A record is evidence, so the replay never refuses a hand: it plays the cards as
recorded, notes every irregularity it meets (a call or lead out of turn, a card not
held or played twice, a revoke with the card of the suit led still held, an ace
declared high where it cannot be) and carries on, so the auditor can report all of
them. Only a hand whose structure makes play impossible (a trick of three cards, no
contract) stops, with ``replayable`` false.

This is the hot path of the auditor: cards are ints, holdings 52-bit masks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.rules.cards import (
    ACE,
    CARD_TEXT,
    HONOURS_OF_SUIT,
    RANK_OF,
    SUIT_MASK,
    SUIT_OF,
    Seat,
    cards_of,
)
from audit.rules.contract import CONTRACT_BY_TEXT, Contract, unit
from audit.rules.model import HandRecord, TrickRecord
from audit.rules.play import NULLO_RANK_VALUE, RANK_VALUE

__all__ = [
    "SUIT_NAME",
    "HandOutcome",
    "Irregularity",
    "contract_of",
    "corrections",
    "replay_hand",
]

SUIT_NAME = ("spade", "heart", "diamond", "club")
_SEATS = tuple(Seat)


@dataclass(slots=True)
class Irregularity:
    """Something the rules forbid, met while replaying; the auditor makes it a finding."""

    code: str
    message: str
    trick: int | None = None
    seat: Seat | None = None
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class HandOutcome:
    """What a hand's play established, for the scorer and the checks."""

    contract: Contract | None
    unit: int
    tricks: list[int]
    """Tricks taken by each side, ``[NS, EW]``, as played (before any penalty)."""
    winners: list[Seat]
    """The winner of each trick, in order."""
    honours: tuple[int, int]
    """Trump honours dealt to each side (zeros without a trump)."""
    revokes: list[tuple[int, Seat]]
    """(trick number, seat) of each revoke."""
    irregularities: list[Irregularity]
    replayable: bool = True
    deal_valid: bool = True


def contract_of(hand: HandRecord) -> Contract | None:
    """The contract made: the first call that is not a pass."""
    for _seat, call in hand.calls:
        if call != "pass":
            return CONTRACT_BY_TEXT[call]
    return None


def _check_deal(hand: HandRecord, out: list[Irregularity]) -> bool:
    seen = 0
    dup = 0
    ok = True
    for seat in Seat:
        cards = hand.deal[seat]
        if len(cards) != 13:
            ok = False
            out.append(
                Irregularity(
                    "DEAL_INVALID",
                    f"{seat.name} was dealt {len(cards)} cards, not 13",
                    seat=seat,
                    evidence={"count": len(cards)},
                )
            )
        for c in cards:
            bit = 1 << c
            if seen & bit:
                dup |= bit
            seen |= bit
    if dup:
        ok = False
        out.append(
            Irregularity(
                "DEAL_INVALID",
                "cards dealt twice: " + " ".join(CARD_TEXT[c] for c in cards_of(dup)),
                evidence={"duplicated": [CARD_TEXT[c] for c in cards_of(dup)]},
            )
        )
    missing = ((1 << 52) - 1) & ~seen
    if missing:
        ok = False
        out.append(
            Irregularity(
                "DEAL_INVALID",
                "cards missing from the deal: " + " ".join(CARD_TEXT[c] for c in cards_of(missing)),
                evidence={"missing": [CARD_TEXT[c] for c in cards_of(missing)]},
            )
        )
    return ok


def _check_calls(hand: HandRecord, out: list[Irregularity]) -> None:
    dealer = hand.dealer
    for i, (seat, call) in enumerate(hand.calls):
        if i == 0:
            if seat != dealer:
                out.append(
                    Irregularity(
                        "CALL_OUT_OF_TURN",
                        f"{seat.name} called {call}: the dealer {dealer.name} calls first",
                        seat=seat,
                        evidence={"call": call, "expected": dealer.name},
                    )
                )
            if call != "pass":
                if len(hand.calls) > 1:
                    out.append(
                        Irregularity(
                            "CALL_OUT_OF_TURN",
                            f"calls after the trump was made by {seat.name}",
                            seat=hand.calls[1][0],
                            evidence={"calls": [c for _, c in hand.calls[1:]]},
                        )
                    )
                return
        elif i == 1:
            partner = dealer.partner
            if seat != partner:
                out.append(
                    Irregularity(
                        "CALL_OUT_OF_TURN",
                        f"{seat.name} called {call} after the dealer passed: only {partner.name} may",
                        seat=seat,
                        evidence={"call": call, "expected": partner.name},
                    )
                )
            if call == "pass":
                out.append(
                    Irregularity(
                        "CALL_OUT_OF_TURN",
                        f"{seat.name} passed after the dealer's pass: he must call",
                        seat=seat,
                        evidence={"call": "pass"},
                    )
                )
            elif len(hand.calls) > 2:
                out.append(
                    Irregularity(
                        "CALL_OUT_OF_TURN",
                        "calls after the trump was made",
                        seat=hand.calls[2][0],
                        evidence={"calls": [c for _, c in hand.calls[2:]]},
                    )
                )
                return
        elif i > 1 and hand.calls[1][1] == "pass":
            out.append(
                Irregularity(
                    "CALL_OUT_OF_TURN",
                    f"{seat.name} called {call} after two passes",
                    seat=seat,
                    evidence={"call": call},
                )
            )


def corrections(
    number: int, trick: TrickRecord, holdings: list[int], led: int
) -> list[Irregularity]:
    """REVOKE_CORRECTED for each revoke of ``trick`` corrected in time, as the record
    says, or CORRECTION_INVALID when the cards cannot show it: the seat did not play to
    the trick after the lead, did not hold the card, or the card was no revoke (of the
    suit led, or the seat held none of it). ``holdings`` are before the trick."""
    out: list[Irregularity] = []
    for c in trick.corrected:
        seat, card = c.seat, c.card
        text = CARD_TEXT[card]
        holding = holdings[seat]
        why = None
        if seat == trick.leader:
            why = f"{seat.name} led to the trick: a lead cannot be a revoke"
        elif not holding >> card & 1:
            why = f"{seat.name} did not hold {text}"
        elif SUIT_OF[card] == led:
            why = f"{text} follows suit: it was no revoke"
        elif not holding & SUIT_MASK[led]:
            why = f"{seat.name} held no {SUIT_NAME[led]}: {text} was no revoke"
        if why is None:
            out.append(
                Irregularity(
                    "REVOKE_CORRECTED",
                    f"{seat.name} played {text} on a {SUIT_NAME[led]} lead to trick {number} "
                    "and corrected it before the revoke was established: no penalty",
                    trick=number,
                    seat=seat,
                    evidence={"card": text, "led": "SHDC"[led]},
                )
            )
        else:
            out.append(
                Irregularity(
                    "CORRECTION_INVALID",
                    f"trick {number}: the record says {seat.name} took back {text}, but {why}",
                    trick=number,
                    seat=seat,
                    evidence={"card": text, "reason": why},
                )
            )
    return out


def replay_hand(hand: HandRecord) -> HandOutcome:
    """Replay ``hand`` as recorded and report what happened."""
    if hand.void is not None:
        # Not played out nor scored; whether its deal is whole decides only whether it
        # is tested for stacking (a misdeal's fourteen cards are its reason, not a finding).
        return HandOutcome(
            contract=None,
            unit=0,
            tricks=[0, 0],
            winners=[],
            honours=(0, 0),
            revokes=[],
            irregularities=[],
            replayable=False,
            deal_valid=_check_deal(hand, []),
        )
    irregular: list[Irregularity] = []
    deal_valid = _check_deal(hand, irregular)
    _check_calls(hand, irregular)
    contract = contract_of(hand)
    assert hand.cayenne is not None  # required of every hand but a voided deal
    cay_suit = SUIT_OF[hand.cayenne]
    holdings = [0, 0, 0, 0]
    for seat in range(4):
        m = 0
        for c in hand.deal[seat]:
            m |= 1 << c
        holdings[seat] = m
    honours = (0, 0)
    if contract is not None and contract < 4:
        h = HONOURS_OF_SUIT[contract]
        honours = (
            ((holdings[0] | holdings[2]) & h).bit_count(),
            ((holdings[1] | holdings[3]) & h).bit_count(),
        )
    outcome = HandOutcome(
        contract=contract,
        unit=0 if contract is None else unit(contract, cay_suit),
        tricks=[0, 0],
        winners=[],
        honours=honours,
        revokes=[],
        irregularities=irregular,
        deal_valid=deal_valid,
    )
    if contract is None:
        irregular.append(
            Irregularity("HAND_NOT_REPLAYABLE", "no contract was made (every call a pass)")
        )
        outcome.replayable = False
        return outcome
    tricks = hand.tricks
    claim = hand.claim
    if claim is not None and not _claim_valid(hand, irregular):
        outcome.replayable = False
        return outcome
    whole = 13 if claim is None else len(tricks)
    if len(tricks) != whole or any(len(t.cards) != 4 for t in tricks):
        bad = [i + 1 for i, t in enumerate(tricks) if len(t.cards) != 4]
        msg = (
            f"trick {bad[0]} has {len(tricks[bad[0] - 1].cards)} cards, not 4"
            if bad
            else f"the hand has {len(tricks)} tricks, not 13"
        )
        irregular.append(
            Irregularity(
                "HAND_NOT_REPLAYABLE",
                msg,
                trick=bad[0] if bad else None,
                evidence={"tricks": len(tricks), "short_tricks": bad},
            )
        )
        outcome.replayable = False
        return outcome

    trump = contract if contract < 4 else -1
    nullo = contract == Contract.NULLO
    values = NULLO_RANK_VALUE if nullo else RANK_VALUE
    played = 0
    won = outcome.tricks
    winners = outcome.winners
    expected_leader = hand.dealer.left
    for number, trick in enumerate(tricks, 1):
        leader = trick.leader
        if leader != expected_leader:
            irregular.append(
                Irregularity(
                    "LEAD_OUT_OF_TURN",
                    f"{leader.name} led to trick {number}: it was {expected_leader.name}'s lead",
                    trick=number,
                    seat=leader,
                    evidence={"expected": expected_leader.name},
                )
            )
        cards = trick.cards
        ace_mask = 0
        if trick.ace_high is not None:
            for a in trick.ace_high:
                if not nullo or RANK_OF[a] != ACE or a not in cards:
                    why = (
                        "aces may be declared high only in a nullo"
                        if not nullo
                        else f"{CARD_TEXT[a]} is not an ace"
                        if RANK_OF[a] != ACE
                        else f"{CARD_TEXT[a]} was not played to this trick"
                    )
                    irregular.append(
                        Irregularity(
                            "ACE_HIGH_INVALID",
                            f"trick {number}: {CARD_TEXT[a]} declared high: {why}",
                            trick=number,
                            evidence={"card": CARD_TEXT[a]},
                        )
                    )
                else:
                    ace_mask |= 1 << a
        led = SUIT_OF[cards[0]]
        led_mask = SUIT_MASK[led]
        if trick.corrected:
            irregular += corrections(number, trick, holdings, led)
        seat = int(leader)
        best = 0
        best_suit = led
        best_value = 0
        for i in range(4):
            c = cards[i]
            bit = 1 << c
            holding = holdings[seat]
            s = SUIT_OF[c]
            if not holding & bit:
                why = "played it before" if played & bit else "did not hold it"
                irregular.append(
                    Irregularity(
                        "CARD_NOT_HELD",
                        f"{_SEATS[seat].name} played {CARD_TEXT[c]} to trick {number} but {why}",
                        trick=number,
                        seat=_SEATS[seat],
                        evidence={"card": CARD_TEXT[c], "reason": why},
                    )
                )
            elif i and s != led and holding & led_mask:
                held = [CARD_TEXT[x] for x in cards_of(holding & led_mask)]
                irregular.append(
                    Irregularity(
                        "REVOKE",
                        f"{_SEATS[seat].name} played {CARD_TEXT[c]} on a {SUIT_NAME[led]} lead to trick {number} "
                        f"while holding {' '.join(held)}",
                        trick=number,
                        seat=_SEATS[seat],
                        evidence={"led": "SHDC"[led], "played": CARD_TEXT[c], "held": held},
                    )
                )
                outcome.revokes.append((number, _SEATS[seat]))
            holdings[seat] = holding & ~bit
            played |= bit
            # winner
            v = 15 if ace_mask >> c & 1 else values[c]
            if i == 0:
                best_value = v
            elif s == best_suit:
                if v > best_value:
                    best, best_value = i, v
            elif s == trump:
                best, best_suit, best_value = i, s, v
            seat = (seat + 1) & 3
        winner = _SEATS[(leader + best) & 3]
        winners.append(winner)
        won[winner & 1] += 1
        expected_leader = winner
    if claim is not None:  # the tricks not played, as claimed and agreed
        won[claim.claimer & 1] += claim.tricks
        won[(claim.claimer & 1) ^ 1] += 13 - len(tricks) - claim.tricks
    return outcome


def _claim_valid(hand: HandRecord, out: list[Irregularity]) -> bool:
    """Whether a hand's claim can end it: no more tricks claimed than were left to play,
    agreed by the claimer's two adversaries (else a CLAIM_INVALID irregularity)."""
    claim = hand.claim
    assert claim is not None
    left = 13 - len(hand.tricks)
    adversaries = {claim.claimer.left, claim.claimer.left.partner}
    problem = None
    if left < 1:
        problem = "no trick was left to claim"
    elif not 0 <= claim.tricks <= left:
        problem = f"{claim.tricks} tricks claimed of the {left} left to play"
    elif set(claim.agreed) != adversaries or len(claim.agreed) != 2:
        problem = (
            f"agreed by {', '.join(s.name for s in claim.agreed) or 'nobody'}, not by both "
            f"adversaries ({', '.join(sorted(s.name for s in adversaries))})"
        )
    if problem is None:
        return True
    out.append(
        Irregularity(
            "CLAIM_INVALID",
            f"{claim.claimer.name}'s claim: {problem}",
            seat=claim.claimer,
            evidence={"claim": claim.to_json(), "left": left},
        )
    )
    return False
