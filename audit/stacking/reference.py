"""The order the pack was in when the previous hand with it ended: the *reference*.

After a hand each side stacks its tricks face down in the order won, so its last
trick lies on top of its pile; one pile then goes on the other. The detector does not
know which pile went on top, nor where the pack was cut, so the reference is a
*cyclic* sequence of thirteen four-card blocks read from the top of the pack: the
tricks of one side from its last won to its first, then the other side's likewise.
Putting the piles together the other way round, or cutting the pack, only rotates
the cycle. Nor does it know which way round each trick's cards were picked up, so a
block's four cards are in play order or reversed (``oriented`` is ``False``).

When the record gives ``collected`` (the pack as put together, top first) the
reference is exact: the blocks are its consecutive fours and ``oriented`` is ``True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audit.rules.cards import FULL_MASK, Card, Side

__all__ = ["BLOCK", "BLOCKS", "Reference", "reference_from_collected", "reference_from_gathered"]

BLOCKS = 13
BLOCK = 4


@dataclass(frozen=True, slots=True)
class Reference:
    """Thirteen blocks of four cards in cyclic order, top of the pack first."""

    blocks: tuple[tuple[Card, ...], ...]
    """The cards of each block, in play order (``collected``: in pack order)."""
    tricks: tuple[int, ...]
    """The previous hand's trick number (1-based) of each block; 0 when a block of a
    ``collected`` pack is not one trick."""
    oriented: bool
    """``True`` when the order of the cards inside each block is known."""
    source: str
    """``"gathered"`` or ``"collected"``."""


def _is_pack(cards: Sequence[Card]) -> bool:
    if len(cards) != 52:
        return False
    mask = 0
    try:
        for c in cards:
            mask |= 1 << c
    except (TypeError, ValueError):  # not an int, or a negative one
        return False
    return mask == FULL_MASK


def _valid_tricks(tricks: Sequence[Sequence[Card]]) -> bool:
    if len(tricks) != BLOCKS:
        return False
    mask = 0
    try:
        for t in tricks:
            if len(t) != BLOCK:
                return False
            for c in t:
                mask |= 1 << c
    except (TypeError, ValueError):
        return False
    return mask == FULL_MASK


def reference_from_gathered(
    tricks: Sequence[Sequence[Card]], gathered: Mapping[Any, Sequence[int]]
) -> Reference | None:
    """The cyclic reference of a hand whose tricks and gathering are known.

    ``gathered`` is keyed by :class:`Side` or by the record's ``"NS"``/``"EW"``.
    ``None`` when the tricks are not thirteen fours of a whole pack, or the gathering
    does not name each trick exactly once. A gathering that breaks the rules (a pile
    out of order, a trick on the wrong side) is reported by its own check; the order
    it claims is still the best account of the pack, so it is used.
    """
    if not _valid_tricks(tricks):
        return None
    numbers: list[int] = []
    for side in (Side.NS, Side.EW):
        pile = gathered.get(side)
        if pile is None:
            pile = gathered.get(side.name, ())  # the record's "NS" / "EW" keys
        try:
            numbers.extend(reversed(list(pile)))
        except TypeError:
            return None
    try:
        if len(numbers) != BLOCKS or set(numbers) != set(range(1, BLOCKS + 1)):
            return None
    except TypeError:  # an unhashable entry
        return None
    blocks = tuple(tuple(tricks[t - 1]) for t in numbers)
    return Reference(blocks, tuple(numbers), oriented=False, source="gathered")


def reference_from_collected(
    collected: Sequence[Card], tricks: Sequence[Sequence[Card]] | None = None
) -> Reference | None:
    """The exact reference of a pack whose order after the hand is known (top first)."""
    if not _is_pack(collected):
        return None
    blocks = tuple(tuple(collected[BLOCK * i : BLOCK * i + BLOCK]) for i in range(BLOCKS))
    numbers = [0] * BLOCKS
    if tricks is not None and _valid_tricks(tricks):
        by_set = {frozenset(t): n + 1 for n, t in enumerate(tricks)}
        numbers = [by_set.get(frozenset(b), 0) for b in blocks]
    return Reference(blocks, tuple(numbers), oriented=True, source="collected")
