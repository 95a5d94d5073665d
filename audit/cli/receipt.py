"""``fairplay tournament receipt RECEIPT --events CHAIN --key VKEY``: prove a dropped reveal.

Under cayenne-tournament-deals/2 the service answers every seed reveal it takes before
the reveal deadline with a receipt signed by the log key (audit/tournament/receipt.py).
This checks the receipt and the event's own chain (``GET /v1/tournaments/<id>/events``,
saved as a file) with the log key alone: the chain's ``tournament_start`` and
``tournament_deal`` must be signed by that key and be the receipt's event; then the deal
must list the receipt's entrant as revealed. Exit 0 when it does, 1 when it does not (the
log key acknowledged the reveal in time and the deal dropped it: the two files are the
proof), 2 when a file cannot be read, a signature fails or the chain has no deal yet.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from audit.errors import FairplayError

__all__ = ["register", "run_receipt"]


def register(sub: Any) -> None:
    r: argparse.ArgumentParser = sub.add_parser(
        "receipt",
        help="prove with a reveal's receipt that the deal dropped it (version 2)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("receipt", metavar="RECEIPT", help="the receipt (a signed note) file")
    r.add_argument("--events", required=True, help="the event's chain (JSON: {events: [...]})")
    r.add_argument("--key", required=True, help="the log's verifier key (text or file)")
    r.set_defaults(func=run_receipt)


def _chain(path: str) -> list[dict[str, Any]]:
    from audit.log.events import check_event, loads

    obj = loads(Path(path).read_text(encoding="utf-8"))
    items = obj.get("events") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        raise ValueError("events: must be a list of {index, event}")
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"events[{n}]: must be an object")
        out.append(check_event(item.get("event")))
    return out


def run_receipt(args: argparse.Namespace) -> int:
    from audit.log.events import verify_event
    from audit.log.keys import load_verifier
    from audit.tournament.receipt import DroppedReveal, check_dealt, verify_receipt

    try:
        key = load_verifier(args.key)
        receipt = verify_receipt(Path(args.receipt).read_text(encoding="utf-8"), key)
        chain = _chain(args.events)
        found: dict[str, dict[str, Any]] = {}
        for ev in chain:
            if ev["type"] in ("tournament_start", "tournament_deal"):
                if ev["actor"] != "server" or ev["table"] != receipt.tournament:
                    raise ValueError(f"a {ev['type']} of another event or actor")
                verify_event(ev, key)
                found[ev["type"]] = ev["body"]
        if "tournament_deal" not in found or "tournament_start" not in found:
            raise ValueError("the chain has no tournament_start and tournament_deal yet")
        check_dealt(receipt, found["tournament_start"], found["tournament_deal"])
    except DroppedReveal as exc:
        print(f"fairplay: DROPPED: [{exc.code}] {exc}", file=sys.stderr)
        return 1
    except (FairplayError, OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        print(f"fairplay: unreadable or not signed by the log key: {exc}", file=sys.stderr)
        return 2
    print(
        f"tournament {receipt.tournament}: {receipt.entrant}'s reveal, received at "
        f"{receipt.received} before the deadline {receipt.deadline}, is in the deal"
    )
    return 0
