"""Opening hands, part of the room: a hand's row before its first event, and the
server's own events (the opening, a board's opening, the reveal, the end, a void).

An event the room accepts is not written at once: :meth:`Openings.log_event` adds it to
the hand row's ``pending`` events, which reach the log together at the end of the
request (one unit: a player's action and, at the end of a hand, the server's reveal, the
end and the next hand's opening).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from api import ceremony, clock, rows
from api.config import Config
from api.hand_log import HandLog
from api.handstate import ZERO_SCORE
from audit.log.events import event_hash
from audit.rules.cards import CARD_TEXT, Seat

if TYPE_CHECKING:
    from shuffle.tournament import BoardDeal

__all__ = ["Openings"]


class Openings:
    """The hands' openings and the server's events, logged under the log's key."""

    def __init__(
        self,
        config: Config,
        hand_log: HandLog,
        time_control: Callable[[str], dict[str, int] | None] = lambda table_id: None,
    ) -> None:
        self.config = config
        self.hand_log = hand_log
        self.time_control = time_control
        """An event table's time control (api/clock.py), copied into each of its hands'
        rows as an ordinary table's own (``table.clock``) is."""

    def now(self) -> str:
        return rows.now_iso(self.config.clock())

    def fresh_row(
        self,
        table: rows.Table,
        number: int,
        phase: str,
        dealer: Seat,
        pack: int,
        start: dict[str, Any],
        server_seed: str,
        server_commitment: str,
        ceremony_extra: dict[str, Any],
    ) -> rows.HandRow:
        """The row of a hand before its first event: no commitment, seed or card yet."""
        control = table.clock if table.clock is not None else self.time_control(table.id)
        dealt = phase == "calling"  # a duplicate board: its seats' clocks run at once
        return rows.HandRow(
            table_id=table.id,
            number=number,
            phase=phase,
            dealer=dealer,
            pack=pack,
            server_seed=server_seed,
            server_commitment=server_commitment,
            ceremony={"commitments": {}, "seeds": {}, **ceremony_extra},
            event_count=0,
            last_hash="",
            start_score=start,
            end_score=None,
            record=None,
            report_id=None,
            started_at=self.now(),
            finished_at=None,
            clock={}
            if control is None
            else clock.fresh(control, self.config.clock() if dealt else None),
        )

    def open_hand(
        self, table: rows.Table, number: int, start: dict[str, Any], dealer: Seat, pack: int
    ) -> rows.HandRow:
        """A new hand: the server's seed and commitment, logged as the hand's event 0."""
        seed = self.hand_log.server_seed(table.id, number)
        commitment = ceremony.server_commitment(seed, table.id, number)
        hand = self.fresh_row(
            table, number, "committing", dealer, pack, start, seed.hex(), commitment, {}
        )
        self.server_event(
            hand,
            "open",
            {
                "server_commitment": commitment,
                "dealer": hand.dealer.name,
                "pack": hand.pack,
                "seats": {s.name: p for s, p in table.seats.items()},
                "ruleset": table.ruleset,
            },
        )
        return hand

    def open_board(
        self, table: rows.Table, number: int, event: dict[str, Any], rnd: int, board: BoardDeal
    ) -> rows.HandRow:
        """A duplicate board at a tournament table: no ceremony, the board's deal
        (cayenne-tournament-deals/1), logged as ``board_open`` (the deal stays secret)."""
        hand = self.fresh_row(
            table,
            number,
            "calling",
            board.dealer,
            board.pack,
            ZERO_SCORE,
            "",
            "",
            {
                "tournament": event["id"],
                "round": rnd,
                "board": board.board,
                "deal": {s.name: [CARD_TEXT[x] for x in board.deal[s]] for s in Seat},
                "order": [CARD_TEXT[x] for x in board.pack_order],
                "cayenne": CARD_TEXT[board.cayenne],
                "deal_number": str(board.deal_number),
                "pattern": list(event["pattern"]),
                "players": {s.name: p for s, p in table.seats.items()},
            },
        )
        self.server_event(
            hand,
            "board_open",
            {
                "tournament": event["id"],
                "round": rnd,
                "board": board.board,
                "dealer": board.dealer.name,
                "pack": board.pack,
                "seats": {s.name: p for s, p in table.seats.items()},
                "ruleset": table.ruleset,
            },
        )
        return hand

    def server_event(self, hand: rows.HandRow, kind: str, body: dict[str, Any]) -> None:
        """Sign ``kind`` as the hand's next event, under the log's key."""
        prev = hand.last_hash or None
        event = self.hand_log.server_event(
            hand.table_id, hand.number, hand.event_count, prev, kind, body
        )
        self.log_event(hand, event)

    @staticmethod
    def log_event(hand: rows.HandRow, event: dict[str, Any]) -> None:
        """Accept ``event`` as the hand's next; it reaches the log with the request's others."""
        hand.pending.append(event)
        hand.event_count += 1
        hand.last_hash = event_hash(event)
