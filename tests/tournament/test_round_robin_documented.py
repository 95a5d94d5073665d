"""The round robin's circle method as docs/tournaments.md writes it for an independent
verifier ("Round robin parts of the certificate"), against audit.tournament.movement."""

from __future__ import annotations

import pytest

from audit.tournament.movement import round_robin


def documented(pairs: int, rnd: int) -> tuple[list[tuple[int, int, int]], int | None]:
    """Round ``rnd``'s tables ``(table, ns, ew)`` and bye, from the docs' words alone."""
    n = pairs + pairs % 2  # P rounded up to even; the phantom is n when P is odd
    others = list(range(2, n + 1))
    for _ in range(rnd - 1):
        others = others[-1:] + others[:-1]  # rotated right r - 1 times
    circle = [1, *others]
    tables: list[tuple[int, int, int]] = []
    bye = None
    for i in range(n // 2):
        a, b = circle[i], circle[n - 1 - i]
        if max(a, b) > pairs:  # the phantom's pairing: its partner has the bye
            bye = min(a, b)
            continue
        tables.append((len(tables) + 1, min(a, b), max(a, b)))  # the lower number NS
    return tables, bye


@pytest.mark.parametrize("pairs", range(2, 11))
def test_the_documented_circle_is_the_movement(pairs: int) -> None:
    rounds = round_robin(pairs)
    assert len(rounds) == pairs - 1 + pairs % 2
    met: set[frozenset[int]] = set()
    for r in rounds:
        tables, bye = documented(pairs, r.number)
        assert [(s.table, s.ns, s.ew) for s in r.sittings] == tables
        assert r.bye == bye
        met |= {frozenset((s.ns, s.ew)) for s in r.sittings}
    assert len(met) == pairs * (pairs - 1) // 2  # every pair meets every other once
