"""What the room keeps per process, part of the room: a dealt hand's rules state, the
last row this process wrote, a lock per hand, and the tables and keys that never change.

The log is the truth: a hand's rules state is rebuilt from its logged calls and plays,
and cached keyed by the hand's event count, so a play costs no replay. Every cache is
bounded (:data:`MAX_CACHED` entries), so a process serving many tables forgets the
oldest.
"""

from __future__ import annotations

import threading

from api import rows
from api.cache import Bounded
from api.database import Connection
from api.hand_log import HandLog
from api.handstate import RULES_KINDS, Snapshot, apply_action
from api.signing import parse_player_key
from audit.log.keys import Verifier
from audit.rules.cards import CARD_TEXT, Seat, parse_card
from audit.rules.play import HandState

__all__ = ["MAX_CACHED", "HandStates"]

MAX_CACHED = 4096
"""Hands whose rules state (and lock) a process keeps."""


class HandStates:
    """This process's caches of the hands' states, rows, locks, tables and keys."""

    def __init__(self, hand_log: HandLog) -> None:
        self.hand_log = hand_log
        self._states: Bounded[tuple[str, int], tuple[int, HandState]] = Bounded(MAX_CACHED)
        """A dealt hand's rules state and the event count it reflects."""
        self._rows: Bounded[tuple[str, int], rows.HandRow] = Bounded(MAX_CACHED)
        """The last hand row this process wrote, per hand (checked against each event)."""
        self._locks: Bounded[tuple[str, int], threading.Lock] = Bounded(MAX_CACHED)
        self._tables: Bounded[str, rows.Table] = Bounded(MAX_CACHED)
        self._keys: Bounded[str, Verifier] = Bounded(MAX_CACHED)

    def state(self, hand: rows.HandRow) -> HandState | None:
        """The rules state of a dealt hand (``None`` during the ceremony)."""
        if "deal" not in hand.ceremony:
            return None
        key = (hand.table_id, hand.number)
        cached = self._states.get(key)
        if cached is not None and cached[0] == hand.event_count:
            return cached[1]
        c = hand.ceremony
        state = HandState(
            {Seat.parse(s): [parse_card(x) for x in cards] for s, cards in c["deal"].items()},
            hand.dealer,
            parse_card(c["cayenne"]),
            tuple(c["pattern"]),
        )
        seats = {p: Seat.parse(s) for s, p in c["players"].items()}
        for item in self.hand_log.hand_events(hand.table_id, hand.number):
            ev = item["event"]
            if ev["seq"] >= hand.event_count:
                break
            if ev["type"] in RULES_KINDS:
                apply_action(state, seats[ev["actor"]], ev["type"], ev["body"])
        self.remember(key, hand.event_count, state)
        return state

    def snapshot(self, hand: rows.HandRow) -> Snapshot | None:
        """A consistent view of a dealt hand's rules state (``None`` during the ceremony).

        The cached state is shared with the writers of this process, so it is read
        under the hand's lock and copied out.
        """
        if "deal" not in hand.ceremony:
            return None
        with self.hand_lock((hand.table_id, hand.number)):
            state = self.state(hand)
            assert state is not None
            to_act = state.to_act
            return Snapshot(
                public=state.public_state(),
                to_act=to_act,
                contract=None if state.contract is None else state.contract.text,
                held={s: [CARD_TEXT[c] for c in state.hand(s)] for s in Seat},
                legal_calls=state.legal_calls(),
                legal_plays=[]
                if to_act is None
                else [CARD_TEXT[c] for c in state.legal_plays(to_act)],
                may_claim=frozenset(s for s in Seat if state.may_claim(s)),
            )

    def remember(self, key: tuple[str, int], count: int, state: HandState) -> None:
        """Keep ``state`` as the hand's at ``count`` events, unless a newer one is kept."""
        cached = self._states.get(key)
        if cached is None or cached[0] <= count:  # a reader may have rebuilt an older one
            self._states.put(key, (count, state))

    def forget(self, key: tuple[str, int]) -> None:
        """Drop a hand's cached state and row (a failed action, a repair, its end)."""
        self._states.pop(key)
        self._rows.pop(key)

    def take_row(self, key: tuple[str, int]) -> rows.HandRow | None:
        """The last row this process wrote for a hand, taken out of the cache."""
        return self._rows.pop(key)

    def keep_row(self, key: tuple[str, int], hand: rows.HandRow) -> None:
        self._rows.put(key, hand)

    def hand_lock(self, key: tuple[str, int]) -> threading.Lock:
        """Serialises this process's threads on one hand (other processes: the log's chain)."""
        return self._locks.get_or_make(key, threading.Lock)

    def table(self, conn: Connection, table_id: str) -> rows.Table:
        """A table's seats and ruleset (they never change), cached per process."""
        table = self._tables.get(table_id)
        if table is None:
            table = rows.get_table(conn, table_id)
            self._tables.put(table_id, table)
        return table

    def player_key(self, conn: Connection, player_id: str) -> Verifier:
        """A player's registered key (it never changes), cached per process."""
        key = self._keys.get(player_id)
        if key is None:
            key = parse_player_key(rows.get_player(conn, player_id).public_key)
            self._keys.put(player_id, key)
        return key
