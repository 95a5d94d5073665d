"""Types of the double-dummy solver's C extension (audit/native/ddsrc/ddsolve.c)."""

from collections.abc import Sequence

def solve(
    hands: Sequence[int],
    trump: int,
    nullo: int,
    counted: int,
    leader: int,
    trick: Sequence[int],
    trick_high: Sequence[int],
) -> list[tuple[int, int, int]]: ...
def nodes() -> int: ...
def bounds(
    hands: Sequence[int], trump: int, nullo: int, counted: int, leader: int
) -> tuple[int, int]: ...
