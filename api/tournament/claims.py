"""The claims refused at an event's tables, for the director to rule on (docs/tournaments.md,
"Claims at an event").

A claim refused at an event's table lets the play go on (the event never waits for a
ruling); the refusal is the players' own signed ``claim_answer`` in the log, and this
module reads it back as a ``CLAIM_REFUSED`` finding of the event (a warning: the board
was played out and scored; the director decides whether to adjust it), with its round,
table and board, as :func:`audit.tournament.eventaudit.locate` places the audit's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.hand_log import HandLog

__all__ = ["CLAIM_REFUSED", "refused_claims"]

CLAIM_REFUSED = "CLAIM_REFUSED"


def refused_claims(hand_log: HandLog, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every claim refused at the tables of ``doc``'s rounds, in log order, as findings."""
    sittings = {sit["id"]: (r["round"], sit) for r in doc["rounds_played"] for sit in r["tables"]}
    if not sittings:
        return []
    boards: dict[tuple[str, str], Any] = {}
    pending: dict[tuple[str, str], dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for item in hand_log.log.table_events(list(sittings)):
        ev = item["event"]
        key = (str(ev["table"]), str(ev["hand"]))
        rnd, sit = sittings[key[0]]
        seat_of = {p: s for s, p in sit["seats"].items()}
        if ev["type"] == "board_open":
            boards[key] = ev["body"].get("board")
        elif ev["type"] == "claim":
            pending[key] = {"claim": ev, "index": item["index"]}
        elif ev["type"] == "claim_answer" and key in pending:
            if ev["body"].get("accept") is True:
                continue
            made = pending.pop(key)
            claim = made["claim"]
            claimer = seat_of.get(claim["actor"], "?")
            by = seat_of.get(ev["actor"], "?")
            tricks = claim["body"]["tricks"]
            board = boards.get(key)
            where = f"round {rnd} table {sit['table']}" + (
                f" board {board}" if board is not None else f" hand {key[1]}"
            )
            out.append(
                {
                    "code": CLAIM_REFUSED,
                    "severity": "warning",
                    "message": f"{where}: {claimer}'s claim of {tricks} of the tricks left was "
                    f"refused by {by}; the play went on: rule on the board's result",
                    "hand": int(key[1]),
                    "trick": None,
                    "seat": claimer,
                    "evidence": {
                        "claimer": claimer,
                        "tricks": tricks,
                        "refused_by": by,
                        "claim_index": made["index"],
                        "refusal_index": item["index"],
                    },
                    "round": rnd,
                    "table": str(sit["table"]),
                    "table_id": key[0],
                    "board": board,
                    "tables": [{"round": rnd, "table": str(sit["table"]), "table_id": key[0]}],
                }
            )
    return out
