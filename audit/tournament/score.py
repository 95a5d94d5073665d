"""An event played over the table, scored: the ``cayenne-standings/1`` document.

:func:`score_event` reads the records (:mod:`audit.tournament.event`), audits them as
one (:mod:`audit.tournament.eventaudit`) and scores them: in a pairs duplicate every
board at every table (:mod:`audit.tournament.boardscore`), matchpointed with Neuberg
(:mod:`audit.tournament.matchpoints`), two fields NS and EW; in a rubber round robin
each match's value (:mod:`audit.tournament.standings`). A board that cannot be
played through (no contract, a trick of three cards) gets average to both pairs.
The document depends on the records only, not on the order they were given in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from audit.auditor import DEFAULT_ALPHA
from audit.checks.findings import ERROR
from audit.tournament.boardscore import score_board_hand
from audit.tournament.event import DUPLICATE, Event, Pair, TableRecord, _table_key, read_event
from audit.tournament.eventaudit import EventAudit, audit_event
from audit.tournament.matchpoints import (
    Adjustment,
    BoardResult,
    most_results,
    score_board,
)
from audit.tournament.standings import (
    match_value,
    percentage,
    places,
    round_half_up,
    totals,
)

__all__ = ["FIELDS", "FORMAT", "Played", "duplicate_standings", "missing_boards", "score_event"]

FORMAT = "cayenne-standings/1"
FIELDS = ("NS", "EW")


@dataclass(frozen=True, slots=True)
class Played:
    """One board at one table: who sat there and its result (or adjustment)."""

    round: int
    table: str
    ns: Pair
    ew: Pair
    board: int
    result: BoardResult

    @property
    def key(self) -> tuple[int, str]:
        return (self.round, _table_key(self.table))


def score_event(docs: Sequence[tuple[str, Any]], *, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """The standings document of the records ``(source, JSON document)`` of one event."""
    event = read_event(docs)
    audit = audit_event(event, alpha)
    if event.kind == DUPLICATE:
        standings, boards = _duplicate(event, audit)
        extra: dict[str, Any] = {}
    else:
        standings, matches = _round_robin(event)
        boards = []
        extra = {"matches": matches}
    return {
        "format": FORMAT,
        "event": event.name,
        "kind": event.kind,
        "verdict": "irregular" if any(f["severity"] == ERROR for f in audit.findings) else "clean",
        "standings": standings,
        "boards": boards,
        **extra,
        "findings": list(audit.findings),
    }


def _pair_name(pair: Pair) -> str:
    return f"{pair[0]} & {pair[1]}"


def _duplicate(event: Event, audit: EventAudit) -> tuple[list[Any], list[Any]]:
    plays: list[Played] = []
    for t in event.tables:
        for h in t.record.hands:
            assert h.board is not None  # read_event: a duplicate event's hands carry board
            score = score_board_hand(h, t.record.ruleset)
            version = audit.versions[(h.board, (t.round, t.table))]
            result = (
                BoardResult(None, (Adjustment.AVERAGE, Adjustment.AVERAGE), version)
                if score is None
                else BoardResult(score.result, None, version)
            )
            plays.append(Played(t.round, t.table, t.ns, t.ew, h.board, result))
    average = (Adjustment.AVERAGE, Adjustment.AVERAGE)
    for t, missing in missing_boards(event):
        for b in missing:
            plays.append(Played(t.round, t.table, t.ns, t.ew, b, BoardResult(None, average)))
    return duplicate_standings(plays)


def duplicate_standings(
    plays: Sequence[Played], absent: frozenset[Pair] = frozenset()
) -> tuple[list[Any], list[Any]]:
    """The standings (two fields) and the boards of a pairs duplicate, from every board
    at every table; a pair in ``absent`` (withdrawn before it played) is scored for
    nothing and left out of the standings, its opponents' adjustments stand."""
    by_board: dict[int, list[Played]] = {}
    for p in plays:
        by_board.setdefault(p.board, []).append(p)
    for played in by_board.values():
        played.sort(key=lambda p: p.key)
    most = most_results([[p.result for p in ps] for ps in by_board.values()])
    top = Fraction(most - 1)
    won: dict[tuple[str, Pair], Fraction] = {}
    possible: dict[tuple[str, Pair], Fraction] = {}
    boards_json = []
    for board in sorted(by_board):
        played = by_board[board]
        mps = score_board([p.result for p in played], most)
        results = []
        for p, (ns_mp, ew_mp) in zip(played, mps, strict=True):
            for key, mp in ((("NS", p.ns), ns_mp), (("EW", p.ew), ew_mp)):
                if key[1] in absent:
                    continue
                won[key] = won.get(key, Fraction(0)) + mp
                possible[key] = possible.get(key, Fraction(0)) + top
            entry: dict[str, Any] = {
                "round": p.round,
                "table": p.table,
                "ns": list(p.ns),
                "ew": list(p.ew),
                "ns_score": p.result.ns_score,
                "ns_matchpoints": round_half_up(ns_mp),
                "ew_matchpoints": round_half_up(ew_mp),
            }
            if p.result.adjusted is not None:
                entry["adjusted"] = {
                    "ns": p.result.adjusted[0].value,
                    "ew": p.result.adjusted[1].value,
                }
            results.append(entry)
        boards_json.append({"board": board, "top": round_half_up(top), "results": results})
    standings = []
    for field in FIELDS:
        keys = [k for k in won if k[0] == field]
        pct = {k: percentage(won[k], possible[k]) for k in keys}
        for key, place in places(pct, {k: _pair_name(k[1]) for k in keys}):
            standings.append(
                {
                    "pair": list(key[1]),
                    "field": field,
                    "score": round_half_up(won[key]),
                    "percentage": round_half_up(pct[key]),
                    "place": place,
                }
            )
    return standings, boards_json


def missing_boards(event: Event) -> list[tuple[TableRecord, list[int]]]:
    """Boards a table should have played but whose record does not hold.

    Boards played together in one record belong to one set (boards that travel
    together); a record that holds part of a set is missing the rest. No movement
    needs to be declared: the records say which boards travel together.
    """
    parent: dict[int, int] = {}

    def find(b: int) -> int:
        while parent.setdefault(b, b) != b:
            b = parent[b]
        return b

    held = []
    for t in event.tables:
        boards = sorted({h.board for h in t.record.hands if h.board is not None})
        held.append((t, boards))
        if boards:
            find(boards[0])  # a record of one board is a set of its own
        for b in boards[1:]:
            parent[find(b)] = find(boards[0])
    sets: dict[int, set[int]] = {}
    for b in list(parent):
        sets.setdefault(find(b), set()).add(b)
    out = []
    for t, boards in held:
        if boards:
            missing = sorted(sets[find(boards[0])] - set(boards))
            if missing:
                out.append((t, missing))
    return out


def _round_robin(event: Event) -> tuple[list[Any], list[Any]]:
    values: list[tuple[Pair, int]] = []
    matches = []
    for t in event.tables:
        v = match_value(t.record)
        values += [(t.ns, v), (t.ew, -v)]
        matches.append(
            {
                "round": t.round,
                "table": t.table,
                "ns": list(t.ns),
                "ew": list(t.ew),
                "hands": len(t.record.hands),
                "ns_value": v,
            }
        )
    total = totals(values)
    standings = [
        {
            "pair": list(pair),
            "field": None,
            "score": int(total[pair]),
            "percentage": None,
            "place": place,
        }
        for pair, place in places(total, {p: _pair_name(p) for p in total})
    ]
    return standings, matches
