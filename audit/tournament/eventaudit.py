"""The audit of an event played over the table, as one.

Every record is audited as ``fairplay audit`` audits it (its findings keep their
shape, with the record's round, table and source added). Then what no single record
can show:

- **FOULED_BOARD**: a duplicate board whose deal, dealer, pack or cayenne card differs
  between the tables that played it. The version most tables played is taken as the
  board; the finding names the tables of every other version and the fields that
  differ. Each version is scored apart (:mod:`audit.tournament.matchpoints`).
- **STACKED_DEALER_EVENT**: one player's tested deals across all the records of the
  event, pooled (Fisher) as the record-level STACKED_DEALER pools them within a
  record. It is an error below ``alpha / d`` (``d`` the number of players with tested
  deals in more than one record), so an honest event is flagged with probability at
  most ``alpha``; only players whose deals span several records are tested (within one
  record the record's own STACKED_DEALER speaks).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audit.auditor import audit_document
from audit.checks.findings import ERROR, Finding
from audit.rules.cards import CARD_TEXT, Seat
from audit.rules.model import HandRecord
from audit.stacking import combine_p_values
from audit.tournament.event import Event, TableRecord, read_event

__all__ = [
    "EventAudit",
    "audit_event",
    "audit_records",
    "board_identity",
    "fouled_boards",
    "locate",
    "stacked_dealers",
]


@dataclass(frozen=True, slots=True)
class EventAudit:
    reports: tuple[dict[str, Any], ...]
    """Each record's audit report, in the event's order of tables."""
    findings: tuple[dict[str, Any], ...]
    """Every finding: the records' own (with ``round``, ``table``, ``record``) and the
    event-wide ones (``round`` and ``table`` null), records' first."""
    versions: dict[tuple[int, tuple[int, str]], Hashable]
    """(board, (round, table)) -> the version of the board played there."""


def board_identity(hand: HandRecord) -> tuple[Hashable, ...]:
    """What makes a board the same board: deal, dealer, pack and cayenne card."""
    deal = tuple(tuple(sorted(cards)) for cards in hand.deal)
    return (deal, hand.dealer, hand.pack, hand.cayenne)


def audit_event(event: Event, alpha: float) -> EventAudit:
    reports = tuple(audit_document(t.doc, alpha=alpha) for t in event.tables)
    findings: list[dict[str, Any]] = []
    for t, report in zip(event.tables, reports, strict=True):
        for f in report["findings"]:
            findings.append({**f, "round": t.round, "table": t.table, "record": t.source})
    fouled, versions = fouled_boards(event)
    event_wide = fouled + stacked_dealers(event, reports, alpha)
    findings += [{**f.to_json(), "round": None, "table": None, "record": None} for f in event_wide]
    return EventAudit(reports=reports, findings=tuple(findings), versions=versions)


def audit_records(recs: Sequence[Mapping[str, Any]], alpha: float) -> dict[str, Any]:
    """The event-wide audit of an online event's records (one cayenne-record/1 per round
    and table, ``audit.tournament.online.records``): its verdict and findings."""
    findings = (
        list(
            audit_event(
                read_event([(f"round-{d['round']}-table-{d['table']}", d) for d in recs]), alpha
            ).findings
        )
        if recs
        else []
    )
    return {
        "verdict": "irregular" if any(f["severity"] == ERROR for f in findings) else "clean",
        "findings": findings,
    }


def locate(
    findings: Sequence[Mapping[str, Any]], rounds: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Each finding of an online event with where to look: ``table_id`` (the table of its
    round and table number), ``board`` (the evidence's, or the board its hand played) and
    ``tables`` (every table it names: a fouled board's, each version's); ``rounds`` the
    event's ``rounds_played``."""
    sittings = {(r["round"], str(sit["table"])): sit for r in rounds for sit in r["tables"]}
    out = []
    for f in findings:
        item = dict(f)
        evidence = f.get("evidence") or {}
        board = evidence.get("board")
        named = [(f.get("round"), f.get("table"))]
        versions = [evidence.get("board_as_played_most") or {"tables": []}]
        for version in [*versions, *evidence.get("other_versions", [])]:
            named += [(t["round"], t["table"]) for t in version["tables"]]
        sit = sittings.get((f.get("round"), str(f.get("table"))))
        hand = f.get("hand")
        if sit is not None and board is None and isinstance(hand, int):
            boards = sit.get("boards") or []
            board = boards[hand - 1] if 1 <= hand <= len(boards) else None
        item["table_id"] = None if sit is None else sit["id"]
        item["board"] = board
        item["tables"] = [
            {"round": rnd, "table": str(table), "table_id": sittings[(rnd, str(table))]["id"]}
            for rnd, table in named
            if (rnd, str(table)) in sittings
        ]
        out.append(item)
    return out


def fouled_boards(
    event: Event,
) -> tuple[list[Finding], dict[tuple[int, tuple[int, str]], Hashable]]:
    """FOULED_BOARD findings, and the version of each board at each table."""
    plays: dict[int, list[tuple[TableRecord, HandRecord]]] = {}
    for t in event.tables:
        for h in t.record.hands:
            if h.board is not None and h.void is None:  # a voided deal is dealt again
                plays.setdefault(h.board, []).append((t, h))
    findings = []
    versions: dict[tuple[int, tuple[int, str]], Hashable] = {}
    for board in sorted(plays):
        groups: dict[Hashable, list[tuple[TableRecord, HandRecord]]] = {}
        for t, h in plays[board]:
            groups.setdefault(board_identity(h), []).append((t, h))
        # the version most tables played is the board; ties go to the earliest played
        ranked = sorted(groups.values(), key=lambda g: (-len(g), g[0][0].key))
        for number, group in enumerate(ranked):
            for t, _ in group:
                versions[(board, (t.round, t.table))] = number
        if len(ranked) > 1:
            findings.append(_fouled_finding(board, ranked))
    return findings, versions


def _where(t: TableRecord) -> dict[str, Any]:
    return {"round": t.round, "table": t.table, "record": t.source}


def _fouled_finding(board: int, ranked: list[list[tuple[TableRecord, HandRecord]]]) -> Finding:
    main = ranked[0][0][1]
    others: list[dict[str, Any]] = []
    for group in ranked[1:]:
        h = group[0][1]
        fields = [
            name
            for name, a, b in (
                ("deal", board_identity(main)[0], board_identity(h)[0]),
                ("dealer", main.dealer, h.dealer),
                ("pack", main.pack, h.pack),
                ("cayenne", main.cayenne, h.cayenne),
            )
            if a != b
        ]
        others.append({"tables": [_where(t) for t, _ in group], "differs_in": fields})
    named = ", ".join(
        f"table {t['table']} (round {t['round']})" for o in others for t in o["tables"]
    )
    main_tables = ", ".join(f"table {t.table} (round {t.round})" for t, _ in ranked[0])
    return Finding(
        "FOULED_BOARD",
        f"board {board} was not the same at every table: {named} played another "
        f"{' and '.join(sorted({f for o in others for f in o['differs_in']}))} than "
        f"{main_tables}",
        evidence={
            "board": board,
            "board_as_played_most": {
                "tables": [_where(t) for t, _ in ranked[0]],
                "dealer": main.dealer.name,
                "pack": main.pack,
                "cayenne": None if main.cayenne is None else CARD_TEXT[main.cayenne],
            },
            "other_versions": others,
        },
    )


def stacked_dealers(
    event: Event, reports: tuple[dict[str, Any], ...], alpha: float
) -> list[Finding]:
    """STACKED_DEALER_EVENT for each player whose deals across records pool below
    ``alpha`` over the number of players tested."""
    deals: dict[str, list[tuple[tuple[int, str, str], int, float]]] = {}
    for t, report in zip(event.tables, reports, strict=True):
        players = t.record.players or {}
        for h in report["hands"]:
            if "stacking" not in h:
                continue
            who = players.get(h["dealer"]) or Seat.parse(h["dealer"]).name
            deals.setdefault(who, []).append((t.key, h["hand"], h["stacking"]["p_value"]))
    tested = {who: sorted(ds) for who, ds in deals.items() if len({key for key, _, _ in ds}) > 1}
    if not tested:
        return []
    threshold = alpha / len(tested)
    out = []
    for who in sorted(tested):
        ds = tested[who]
        combined = combine_p_values([p for _, _, p in ds])
        if combined >= threshold:
            continue
        out.append(
            Finding(
                "STACKED_DEALER_EVENT",
                f"{who}'s {len(ds)} deals across {len({k for k, _, _ in ds})} tables of the "
                f"event together keep the gathered structure (combined p = {combined:.2g} "
                f"< {threshold:.2g})",
                evidence={
                    "dealer": who,
                    "deals": [
                        {"round": k[0], "table": _table_of(event, k), "hand": n, "p_value": p}
                        for k, n, p in ds
                    ],
                    "combined_p_value": combined,
                    "method": "fisher",
                    "threshold": threshold,
                    "players_tested": len(tested),
                },
            )
        )
    return out


def _table_of(event: Event, key: tuple[int, str, str]) -> str:
    return next(t.table for t in event.tables if t.key == key)
