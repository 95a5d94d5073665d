"""Types of the C extension audit.native._fastaudit (audit/native/csrc/module.c).

Every function is positional-only (METH_VARARGS). audit.native is its only caller.
"""

from collections.abc import Iterable
from typing import Any

NCARDS: int
"""The cards in a pack (a C array bound; audit.native checks it against Python's)."""

MAX_PATTERNS: int
"""The most packet patterns configure() accepts (a C array bound)."""

_Tail = tuple[tuple[float, ...], int, float]
"""A tail table: (grid, steps, deepest)."""

_PatternTables = tuple[
    tuple[float, ...],
    tuple[tuple[float, ...], ...],
    tuple[float, ...],
    float,
    tuple[float, ...],
    tuple[tuple[float, ...], ...],
    _Tail,
    _Tail,
]
"""(test weights, pair weights, plain weights, chain offset, orientation weights,
weights by riffles, two-way tail, oriented tail)."""

def configure(
    cdf: tuple[float, ...],
    riffles: tuple[int, ...],
    llr: tuple[float, ...],
    order_tail: _Tail,
    min_p: float,
    patterns: tuple[tuple[tuple[int, ...], str, _PatternTables | None], ...],
    scalars: tuple[float, int, int, float],
    /,
) -> None:
    """Hand over the detector's tables and scalars (evidence_p, close_span,
    thorough_riffles, soft_min_scale); once per process, later calls do nothing."""

def is_configured() -> bool:
    """Whether configure() has run."""

class Audited:
    """The hands of a record audited in order, kept as compact structs; the report's
    entries are built from them one at a time (the same object each time)."""

    def __len__(self) -> int: ...
    def entry(self, i: int, /) -> dict[str, Any]:
        """Hand ``i``'s report entry (0-based), without its claim and explanation."""
    def stacking(self, i: int, /) -> dict[str, Any] | None:
        """Hand ``i``'s report ``stacking`` (0-based), or None when its deal is untested."""
    def held(self, i: int, /) -> tuple[int, int]:
        """Hand ``i``'s trump honours dealt to N-S and to E-W; (0, 0) without trumps."""
    def results(self, /) -> list[tuple[str, tuple[float, float, str] | None]]:
        """Per hand: (dealer, (p_value, statistic, method)), or (dealer, None) if untested."""

def audit_hands(
    hands: Iterable[Any],
    pattern: object,
    seven_double: object,
    points: tuple[int, int],
    games: tuple[int, int],
    prior_sheet: tuple[tuple[int, ...], tuple[int, ...]] | None,
    independent: object,
    /,
) -> tuple[Audited, list[dict[str, Any]]] | None:
    """The hands (:class:`Audited`) and the report's rubbers for a record in order, or
    None. ``hands`` is a list or any iterable (a streamed record): each hand is read into
    a compact struct and let go before the next."""
