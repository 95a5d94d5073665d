"""Detector of stacked bulk deals (the seed's METHODS OF CHEATING).

A dealer who gathers the tricks in a chosen order and deals in packets without a
thorough shuffle can predict where cards land. For a hand whose pack was last played
earlier in the record, :func:`stacking_test` gives a calibrated p-value that the deal
keeps the structure of that pack's tricks; :func:`combine_p_values` pools one
dealer's deals. See ``docs/detection.md``.
"""

from __future__ import annotations

from audit.stacking.detector import (
    METHOD_HANDS,
    METHOD_ORDER,
    PILE_TOP_EITHER,
    PILE_TOP_FIRST,
    PILE_TOP_LAST,
    StackingArgumentError,
    StackingResult,
    combine_by_dealer,
    combine_p_values,
    previous_hand_with_pack,
    stacking_test,
)
from audit.stacking.tables import StackingTablesError

__all__ = [
    "METHOD_HANDS",
    "METHOD_ORDER",
    "PILE_TOP_EITHER",
    "PILE_TOP_FIRST",
    "PILE_TOP_LAST",
    "StackingArgumentError",
    "StackingResult",
    "StackingTablesError",
    "combine_by_dealer",
    "combine_p_values",
    "previous_hand_with_pack",
    "stacking_test",
]
