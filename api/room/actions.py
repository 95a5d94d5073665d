"""A player's action on a hand, part of the room: the ceremony's steps (shuffle's machine,
through :mod:`api.ceremony`), the deal they lead to, the rules engine's calls and plays,
and the finished hand's record.

:meth:`Actions.accept` judges an action against a hand's row and, if it stands, adds it
to the row's pending events; nothing is written here. The live requests
(:mod:`api.room.room`) and the repairs (:mod:`api.room.repair`) both go through it, so
an event replayed from the log meets the same checks as the request that logged it.
"""

from __future__ import annotations

from typing import Any

from api import ceremony, rows
from api.errors import WrongPhase
from api.handstate import apply_action, ruleset_pattern
from api.room.opening import Openings
from api.room.states import HandStates
from audit.rules.cards import CARD_TEXT, Seat
from audit.rules.house import SERVER, HouseActionRefused, acting_seat, house_record, house_tally
from audit.rules.play import HandState
from shuffle.protocol import Transcript

__all__ = ["Actions"]


class Actions:
    """The checks and effects of the players' actions (see the module docstring)."""

    def __init__(self, openings: Openings, states: HandStates) -> None:
        self.openings = openings
        self.states = states

    def accept(
        self, table: rows.Table, hand: rows.HandRow, seat: Seat, kind: str, event: dict[str, Any]
    ) -> HandState | None:
        """Validate and log the action; the rules state after it (``None`` in the ceremony)."""
        body = event["body"]
        if hand.phase in ("over", "void"):
            raise WrongPhase(f"the hand is {hand.phase}")
        c = hand.ceremony  # this request's own copy of the row: nothing is kept on failure
        if kind == "commit":
            phase = ceremony.step(hand.phase, kind, seat, c["commitments"])
            if not c["commitments"]:
                c["since"] = self.openings.now()  # the ceremony's clock (repair.expire)
            commitment = ceremony.parse_commitment(body.get("commitment"))
            ceremony.check_fresh_commitment(
                commitment, seat, c["commitments"], hand.server_commitment
            )
            c["commitments"][seat.name] = commitment
            self.openings.log_event(hand, event)
            hand.phase = phase
            return None
        if kind == "reveal":
            phase = ceremony.step(hand.phase, kind, seat, c["seeds"])
            seed = ceremony.parse_seed(body.get("seed"))
            ceremony.check_reveal(
                seed, c["commitments"][seat.name], seat, table.seats[seat], table.id, hand.number
            )
            c["seeds"][seat.name] = seed.hex()
            self.openings.log_event(hand, event)
            hand.phase = phase
            if len(c["seeds"]) == 4:
                self._deal(table, hand)
                return self.states.state(hand)
            return None
        state = self.states.state(hand)
        if state is None:
            raise WrongPhase(f"the hand is {hand.phase}; calls and plays wait for the deal")
        expired = hand.clock.get("expired", [])
        if expired or event["actor"] == SERVER:
            try:
                acts_for = acting_seat(event, {table.seats[seat]: seat}, expired)
            except HouseActionRefused as exc:
                raise WrongPhase(exc.message, details={"seat": seat.name}) from None
            if acts_for != seat:
                raise WrongPhase(f"the server's {kind} is for {acts_for.name}, not {seat.name}")
        apply_action(state, seat, kind, body)
        if event["actor"] == SERVER and kind in ("call", "play"):
            house_tally(hand.clock.setdefault("house", {}), seat, kind)
        if state.is_over:
            # Audit before logging the last card, so a failure leaves the log untouched.
            from audit.auditor import audit_document

            hand.record = self.record_of(table, hand, state)
            hand.end_report = audit_document(hand.record)
        self.openings.log_event(hand, event)
        hand.phase = state.phase
        return state

    def _transcript(self, table: rows.Table, hand: rows.HandRow) -> Transcript:
        c = hand.ceremony
        return ceremony.transcript(
            table=table.id,
            hand=hand.number,
            pack=hand.pack,
            dealer=hand.dealer,
            pattern=ruleset_pattern(table.ruleset),
            players=table.seats,
            server_commitment_hex=hand.server_commitment,
            commitments=c["commitments"],
            seeds=c["seeds"],
            server_seed_hex=hand.server_seed,
        )

    def _deal(self, table: rows.Table, hand: rows.HandRow) -> None:
        """All seeds are in: derive the deal (known to the server only until the end)."""
        derived = ceremony.derive(self._transcript(table, hand))
        c = hand.ceremony
        c["deal"] = {s.name: [CARD_TEXT[x] for x in derived.deal[s]] for s in Seat}
        c["order"] = [CARD_TEXT[x] for x in derived.pack_order]
        c["cayenne"] = CARD_TEXT[derived.cayenne]
        c["deal_number"] = str(derived.deal_number)
        c["pattern"] = list(ruleset_pattern(table.ruleset))
        c["players"] = {s.name: p for s, p in table.seats.items()}
        hand.phase = ceremony.dealt(hand.phase)

    def record_of(self, table: rows.Table, hand: rows.HandRow, state: HandState) -> dict[str, Any]:
        """The finished hand as a cayenne-record/1 document (one hand, with its start)."""
        rec_hand = state.to_record_hand()
        rec_hand["pack"] = hand.pack
        rec_hand["dealt_order"] = list(hand.ceremony["order"])
        if hand.clock.get("house"):  # seats the house played after their clock ran out
            rec_hand["x-house"] = house_record(hand.clock["house"])
        if "board" in hand.ceremony:  # a duplicate board: its deal is the tournament's
            rec_hand["board"] = hand.ceremony["board"]
        else:
            rec_hand["shuffle"] = self._transcript(table, hand).with_outcome().to_json()
        return {
            "format": "cayenne-record/1",
            "table": table.id,
            "event": table.name,
            "players": {s.name: p for s, p in table.seats.items()},
            "ruleset": table.ruleset,
            "start": hand.start_score,
            "hands": [rec_hand],
            "x-hand-number": hand.number,
        }
