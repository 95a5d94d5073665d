"""The room's hooks: whoever owns some of its tables beyond their hands (an event owns its
tables, api/tournament/) is handed the end of each of their hands. The room makes its
owner once, when it is made (``create_app`` says how), and never learns its type."""

from __future__ import annotations

from typing import Protocol

from api import rows

__all__ = ["NoOwner", "TableOwner"]


class TableOwner(Protocol):
    """What the room asks of the owner of its event tables."""

    def is_event_table(self, table_id: str) -> bool:
        """Whether ``table_id`` is one of its tables (it never changes)."""
        ...

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        """The hand after ``hand`` at one of its tables, or ``None`` when it is done."""
        ...

    def hand_ended(self, table_id: str) -> None:
        """A hand of one of its tables is over (logged and written): the event moves on."""
        ...

    def chat_setting(self, table_id: str) -> bool | None:
        """``None`` for a table that is not one of its tables; else whether its chat is on."""
        ...


class NoOwner:
    """A room whose tables are all its own (no tournament)."""

    def is_event_table(self, table_id: str) -> bool:
        return False

    def following(self, table: rows.Table, hand: rows.HandRow) -> rows.HandRow | None:
        raise AssertionError("no table of this room has an owner")  # pragma: no cover

    def hand_ended(self, table_id: str) -> None:
        return None

    def chat_setting(self, table_id: str) -> bool | None:
        return None
