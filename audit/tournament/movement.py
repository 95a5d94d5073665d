"""Movements: who plays whom, and which boards, in each round.

**Mitchell** (pairs duplicate, shared/spec/tournaments.md): T tables, NS pair t sits
at table t throughout, EW pair t and board set t start at table t; after each round
the EW pairs move up one table (T to 1) and the board sets down one (1 to T). With T
even the EW pairs skip a table after round T/2, so no pair meets a board set twice.
After the skip an EW pair meets its first opponents again in round T, so an even
Mitchell plays T - 1 rounds by default; the spec allows T, and so does :func:`mitchell`.

**Rubber round robin**: the circle method. Pair 1 stays put and the others turn round
it; with an odd field a phantom joins and whoever meets it has the bye. At each
table the lower-numbered pair sits NS.

Pairs, tables, rounds and board sets are numbered from 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.tournament.errors import MovementError

__all__ = [
    "Round",
    "Sitting",
    "boards_of_set",
    "default_mitchell_rounds",
    "max_mitchell_rounds",
    "mitchell",
    "round_robin",
]


@dataclass(frozen=True, slots=True)
class Sitting:
    """One table in one round: the two pairs and, in duplicate, the board set played."""

    round: int
    table: int
    ns: int
    ew: int
    board_set: int | None = None


@dataclass(frozen=True, slots=True)
class Round:
    """The sittings of one round, by table, and the pair with the bye (round robin)."""

    number: int
    sittings: tuple[Sitting, ...]
    bye: int | None = None


def max_mitchell_rounds(tables: int) -> int:
    """The most rounds the spec allows a Mitchell of ``tables`` tables: T.

    With T even and the skip, round T brings every EW pair back to its round-1
    opponents (on a board set it has not played): allowed, because the spec allows T
    rounds, but not the default (:func:`default_mitchell_rounds`)."""
    return tables


def default_mitchell_rounds(tables: int) -> int:
    """The rounds a Mitchell has unless the director says otherwise: the most in which
    no pair meets another or a board set twice (T when T is odd, T - 1 when even)."""
    return tables if tables % 2 else max(tables - 1, 1)


def mitchell(tables: int, rounds: int | None = None) -> tuple[Round, ...]:
    """The Mitchell for ``tables`` tables and ``rounds`` rounds (default:
    :func:`default_mitchell_rounds`)."""
    if tables < 1:
        raise MovementError(f"tables: a Mitchell needs at least one table, not {tables}")
    most = max_mitchell_rounds(tables)
    rounds = default_mitchell_rounds(tables) if rounds is None else rounds
    if not 1 <= rounds <= most:
        raise MovementError(
            f"rounds: a Mitchell of {tables} table(s) has 1 to {most} rounds, not {rounds}"
        )
    out = []
    for r in range(1, rounds + 1):
        skip = 1 if tables % 2 == 0 and r > tables // 2 else 0
        sittings = tuple(
            Sitting(
                round=r,
                table=t,
                ns=t,
                ew=(t - 1 - (r - 1) - skip) % tables + 1,
                board_set=(t - 1 + (r - 1)) % tables + 1,
            )
            for t in range(1, tables + 1)
        )
        out.append(Round(r, sittings))
    return tuple(out)


def boards_of_set(board_set: int, boards_per_round: int) -> tuple[int, ...]:
    """The board numbers of set ``board_set``: set s holds boards (s-1)b+1 to sb."""
    if board_set < 1 or boards_per_round < 1:
        raise MovementError("board_set and boards_per_round are counted from 1")
    first = (board_set - 1) * boards_per_round + 1
    return tuple(range(first, first + boards_per_round))


def round_robin(pairs: int) -> tuple[Round, ...]:
    """Every pair meets every other once: P - 1 rounds (P when P is odd, with byes)."""
    if pairs < 2:
        raise MovementError(f"pairs: a round robin needs at least two pairs, not {pairs}")
    n = pairs + pairs % 2  # a phantom, number pairs + 1, when the field is odd
    others = list(range(2, n + 1))
    out = []
    for r in range(1, n):
        circle = [1, *others]
        sittings: list[Sitting] = []
        bye = None
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if max(a, b) > pairs:
                bye = min(a, b)
                continue
            sittings.append(Sitting(round=r, table=len(sittings) + 1, ns=min(a, b), ew=max(a, b)))
        out.append(Round(r, tuple(sittings), bye))
        others = others[-1:] + others[:-1]
    return tuple(out)
