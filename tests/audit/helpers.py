"""Small builders for hand-made records in tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from audit.rules.cards import CARD_TEXT, Seat
from audit.rules.deal import deal_from_order

ROOT = Path(__file__).resolve().parents[2]
WORKED_EXAMPLE = ROOT / "audit" / "record" / "examples" / "worked-example.json"


def worked_example() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(WORKED_EXAMPLE.read_text())
    return doc


def sorted_deal(dealer: Seat = Seat.N) -> dict[str, list[str]]:
    """N holds all spades, E all hearts, S all diamonds, W all clubs (one at a time deal)."""
    hands = {
        Seat.N: list(range(0, 13)),
        Seat.E: list(range(13, 26)),
        Seat.S: list(range(26, 39)),
        Seat.W: list(range(39, 52)),
    }
    return {s.name: [CARD_TEXT[c] for c in hands[s]] for s in Seat}


def record(*hands: dict[str, Any], **top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "cayenne-record/1",
        **top,
        "hands": [copy.deepcopy(h) for h in hands],
    }
    return doc


def dealt(order: list[int], dealer: Seat) -> dict[str, list[str]]:
    d = deal_from_order(order, dealer)
    return {s.name: [CARD_TEXT[c] for c in d[s]] for s in Seat}
