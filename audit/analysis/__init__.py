"""Double-dummy analysis of Cayenne play (docs/analysis.md).

:func:`solve` gives, for each legal card of the seat to play, the tricks the contract
side takes in the whole hand when both sides play best from there on.
"""

from __future__ import annotations

from audit.analysis.solver import Position, native_available, position, solve, solve_position

__all__ = ["Position", "native_available", "position", "solve", "solve_position"]
