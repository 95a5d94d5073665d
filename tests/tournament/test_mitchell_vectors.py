"""An even Mitchell's skip against tests/vectors/tournament/mitchell_even.json (T = 4, 6):
the documented formula (docs/tournaments.md) and audit.tournament.movement agree with
the vector, and each EW pair sits at every table but the one it skips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.tournament.movement import mitchell

VECTORS = Path(__file__).parents[1] / "vectors" / "tournament" / "mitchell_even.json"
MOVEMENTS: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["movements"]


def documented(tables: int, rnd: int, table: int) -> tuple[int, int]:
    """(EW pair, board set) at ``table`` in round ``rnd``, as docs/tournaments.md writes it."""
    skip = 1 if tables % 2 == 0 and rnd > tables // 2 else 0
    ew = (table - rnd - skip) % tables + 1
    board_set = (table + rnd - 2) % tables + 1
    return ew, board_set


@pytest.mark.parametrize("movement", MOVEMENTS, ids=lambda m: f"T={m['tables']}")
def test_even_mitchell_follows_the_vector(movement: dict[str, Any]) -> None:
    t = movement["tables"]
    assert t in (4, 6)
    rounds = mitchell(t, movement["rounds"])
    got = [
        [
            {"round": r.number, "table": s.table, "ns": s.ns, "ew": s.ew, "board_set": s.board_set}
            for s in r.sittings
        ]
        for r in rounds
    ]
    assert got == movement["sittings"]
    for sittings in movement["sittings"]:
        for s in sittings:
            assert s["ns"] == s["table"]
            assert documented(t, s["round"], s["table"]) == (s["ew"], s["board_set"])
    for e in range(1, t + 1):
        tables = [s["table"] for sittings in movement["sittings"] for s in sittings if s["ew"] == e]
        skipped = movement["skipped_table"][str(e)]
        assert skipped == (e - 1 + t // 2) % t + 1  # the docs' rule for the skipped table
        assert skipped not in tables
        assert sorted(tables[: t - 1]) == sorted(set(range(1, t + 1)) - {skipped})
        assert tables[-1] == e  # round T: back at its first table, on another board set
        sets = [
            s["board_set"] for sittings in movement["sittings"] for s in sittings if s["ew"] == e
        ]
        assert len(set(sets)) == t  # never a board set twice
