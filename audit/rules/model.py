"""Typed values of a parsed game record (cayenne-record/1).

:mod:`audit.record.codec` turns JSON into these and back. Cards are ints, seats and sides
enums; counts are *not* enforced here (a hand of twelve cards is a finding of the
auditor, not a parse error), so every hand that parses can be reported on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.rules.cards import Card, Seat, Side
from audit.rules.ruleset import DEFAULT_RULESET, Ruleset

__all__ = [
    "HAND_FIELDS",
    "VOID_REASONS",
    "Bonus",
    "Claim",
    "Correction",
    "GameWon",
    "HandRecord",
    "Penalty",
    "Record",
    "Score",
    "Start",
    "TrickRecord",
    "VoidDeal",
]

HAND_FIELDS = frozenset(
    (
        "dealer",
        "board",
        "pack",
        "deal",
        "dealt_order",
        "cayenne",
        "calls",
        "tricks",
        "gathered",
        "collected",
        "penalties",
        "claimed",
        "claim",
        "shuffle",
        "void",
    )
)
"""The fields of a record hand that cayenne-record/1 defines; any other is kept as is."""


VOID_REASONS = ("misdeal", "new_deal")
"""Why a deal was voided (docs/record-format.md, "Voided deals"): ``misdeal``, the dealer's
error (Laws of Whist 44: not dealt in the packets from his left, a player with fourteen
cards...); ``new_deal``, the pack's or another player's (Laws 37-42: an imperfect pack, a
card faced in the pack, a card exposed in dealing and a new deal claimed). Either way,
at Cayenne the same dealer deals again with the same pack."""


@dataclass(frozen=True, slots=True)
class VoidDeal:
    """A deal voided before play was over; the same dealer deals again."""

    reason: str
    note: str | None = None

    def to_json(self) -> dict[str, str]:
        obj = {"reason": self.reason}
        if self.note is not None:
            obj["note"] = self.note
        return obj


@dataclass(frozen=True, slots=True)
class Correction:
    """A revoke corrected before it was established (Laws of Whist: before the trick is
    turned and quitted, or the revoking side plays again): ``card`` was played to the
    trick and taken back; the trick's ``cards`` hold the card played in its place."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class TrickRecord:
    leader: Seat
    cards: tuple[Card, ...]
    ace_high: tuple[Card, ...] | None = None
    """Aces declared high in a nullo; ``None`` when the field is absent."""
    corrected: tuple[Correction, ...] = ()
    """Revokes corrected in time in this trick (the trick's ``corrected``)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """The remaining tricks claimed by a player and agreed by both adversaries
    (docs/record-format.md, "A claim of the remaining tricks"): the hand ends there, the
    claimer's side takes ``tricks`` of the tricks not played and the adversaries the rest.
    The cards not played are not tricks."""

    claimer: Seat
    tricks: int
    """How many of the tricks not played the claimer's side takes (0 concedes them all)."""
    agreed: tuple[Seat, ...]
    """The seats that accepted the claim (both adversaries, in the order they answered)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "claimer": self.claimer.name,
            "tricks": self.tricks,
            "agreed": [s.name for s in self.agreed],
        }


@dataclass(frozen=True, slots=True)
class Penalty:
    trick: int
    seat: Seat
    option: str


@dataclass(frozen=True, slots=True)
class GameWon:
    side: Side
    value: int


@dataclass(frozen=True, slots=True)
class Bonus:
    side: Side
    kind: str
    points: int


@dataclass(frozen=True, slots=True)
class Score:
    """What one hand put on the marker and the sheet (the record's ``claimed`` shape)."""

    points: tuple[int, int]
    games: tuple[GameWon, ...] = ()
    bonuses: tuple[Bonus, ...] = ()
    has_games: bool = True
    """False when a claim omitted ``games`` (then they are not checked)."""
    has_bonuses: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "points": {"NS": self.points[0], "EW": self.points[1]},
            "games": [{"side": g.side.name, "value": g.value} for g in self.games],
            "bonuses": [
                {"side": b.side.name, "kind": b.kind, "points": b.points} for b in self.bonuses
            ],
        }


@dataclass(slots=True)
class HandRecord:
    number: int
    """1-based position in the record."""
    dealer: Seat
    deal: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    cayenne: Card | None
    """``None`` only in a voided deal that stopped before the cayenne card was turned."""
    calls: tuple[tuple[Seat, str], ...]
    tricks: tuple[TrickRecord, ...]
    board: int | None = None
    """In a duplicate tournament, the board number (from 1); its dealer is the board's."""
    pack: int | None = None
    dealt_order: tuple[Card, ...] | None = None
    gathered: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    """Trick numbers per side (index by :class:`Side`), first stacked first."""
    collected: tuple[Card, ...] | None = None
    penalties: tuple[Penalty, ...] = ()
    claimed: Score | None = None
    claim: Claim | None = None
    """Set when the hand ended by an agreed claim of the tricks not played."""
    shuffle: dict[str, Any] | None = None
    void: VoidDeal | None = None
    """Set when the deal was voided (a misdeal, a new deal): not played nor scored."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Fields this version does not interpret (``x-`` names), kept for round trips."""


@dataclass(frozen=True, slots=True)
class Start:
    points: tuple[int, int] = (0, 0)
    games: tuple[int, int] = (0, 0)
    sheet: tuple[tuple[int, ...], tuple[int, ...]] | None = None


@dataclass(slots=True)
class Record:
    hands: list[HandRecord]
    ruleset: Ruleset = DEFAULT_RULESET
    start: Start | None = None
    players: dict[str, str] | None = None
    cut: dict[str, Card] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    """event, site, date, table, round (an int) and any ``x-`` fields, as given."""
