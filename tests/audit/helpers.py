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


def online_record(
    seed: int,
    hands: int = 1,
    *,
    ruleset: Any = None,
    start: dict[str, Any] | None = None,
    first_pack: int = 0,
) -> dict[str, Any]:
    """A record as the service writes an online table's hands: each deal from a
    commit-reveal ceremony (its transcript, outcome written in, as the hand's ``shuffle``),
    ``dealt_order`` and ``pack``, the table's ``players``, ``ruleset`` and ``start``, and
    an ``x-`` key. Deterministic in ``seed`` (the seeds too)."""
    import random

    from audit.record.generate import play_hand
    from audit.rules.ruleset import DEFAULT_RULESET
    from shuffle.ceremony import Ceremony
    from shuffle.protocol import seat_commitment

    rng = random.Random(seed)
    rules = DEFAULT_RULESET if ruleset is None else ruleset
    players = {s: f"player-{s.name}-{seed}" for s in Seat}
    table = f"t-{seed}"
    out, dealer = [], Seat(rng.randrange(4))
    for i in range(hands):
        number, pack = i + 1, (first_pack + i) % 2
        c = Ceremony(
            table,
            number,
            dealer,
            players,
            pattern=rules.deal_pattern,
            pack=pack,
            rng=rng.randbytes,
        )
        seeds = {s: rng.randbytes(32) for s in Seat}
        for s in Seat:
            c.commit(s, seat_commitment(seeds[s], s, players[s], table, number))
        for s in Seat:
            c.reveal(s, seeds[s])
        d = c.deal()
        state, order = play_hand(
            rng, dealer, pattern=rules.deal_pattern, order=d.pack_order, cayenne=d.cayenne
        )
        h = state.to_record_hand()
        h["pack"] = pack
        h["dealt_order"] = [CARD_TEXT[x] for x in order]
        h["shuffle"] = c.finish().to_json()
        out.append(h)
        dealer = dealer.left
    doc: dict[str, Any] = {
        "format": "cayenne-record/1",
        "table": table,
        "event": f"Table {seed}",
        "players": {s.name: p for s, p in players.items()},
        "ruleset": rules.to_json(),
    }
    if start is not None:
        doc["start"] = start
    doc["hands"] = out
    doc["x-hand-number"] = hands
    return doc
