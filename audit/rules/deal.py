"""Deal patterns and dealing a pack.

The dealer gives packets beginning on his left and going clockwise. The book's
pattern is 4-4-5 (three rounds: four cards each, four more, then five); some tables
deal 6-7; Whist and Bridge deal one card at a time (thirteen rounds of 1). A pattern
is a tuple of packet sizes summing to 13.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from audit.errors import RulesetError
from audit.rules.cards import Card, Seat

__all__ = [
    "DEFAULT_PATTERN",
    "PATTERNS",
    "PATTERN_445",
    "PATTERN_67",
    "PATTERN_ONE_AT_A_TIME",
    "check_pattern",
    "deal_from_order",
    "deal_positions",
    "pattern_name",
]

PATTERN_445: tuple[int, ...] = (4, 4, 5)
PATTERN_67: tuple[int, ...] = (6, 7)
PATTERN_ONE_AT_A_TIME: tuple[int, ...] = (1,) * 13
DEFAULT_PATTERN = PATTERN_445
PATTERNS: dict[str, tuple[int, ...]] = {
    "4-4-5": PATTERN_445,
    "6-7": PATTERN_67,
    "1": PATTERN_ONE_AT_A_TIME,
}


def check_pattern(pattern: Sequence[int]) -> tuple[int, ...]:
    """Return ``pattern`` as a tuple, or raise when it does not deal thirteen cards."""
    p = tuple(pattern)
    if not p or any(not isinstance(n, int) or isinstance(n, bool) or n < 1 for n in p):
        raise RulesetError(f"deal_pattern {list(p)!r}: packets must be positive integers")
    if sum(p) != 13:
        raise RulesetError(f"deal_pattern {list(p)!r}: packets must add up to 13")
    return p


def pattern_name(pattern: Sequence[int]) -> str:
    """``"4-4-5"``, ``"6-7"`` or ``"1"`` (one at a time); other patterns joined by ``-``."""
    p = tuple(pattern)
    if p == PATTERN_ONE_AT_A_TIME:
        return "1"
    return "-".join(str(n) for n in p)


@lru_cache(maxsize=64)
def deal_positions(pattern: tuple[int, ...], dealer: Seat) -> tuple[Seat, ...]:
    """The seat that receives each of the 52 cards, in the order they leave the pack."""
    out: list[Seat] = []
    for size in pattern:
        seat = dealer.left
        for _ in range(4):
            out.extend([seat] * size)
            seat = seat.left
    return tuple(out)


def deal_from_order(
    order: Sequence[Card], dealer: Seat, pattern: tuple[int, ...] = DEFAULT_PATTERN
) -> dict[Seat, list[Card]]:
    """Deal a 52-card pack (first card first) by ``pattern`` from the dealer's left."""
    if len(order) != 52:
        raise ValueError(f"a pack has 52 cards, not {len(order)}")
    hands: dict[Seat, list[Card]] = {s: [] for s in Seat}
    for card, seat in zip(order, deal_positions(pattern, dealer), strict=True):
        hands[seat].append(card)
    return hands
