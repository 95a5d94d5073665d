"""Build audit/record/examples/worked-example.json: the book's worked example as a full record.

The book gives only the outcomes (who called what, tricks taken, honours held); this
script searches seeded random deals and plays for hands that produce exactly those
outcomes, so the record is reproducible: ``python examples/build_worked_example.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from audit.record.codec import load_record
from audit.record.generate import collect, favour, play_hand, random_policy
from audit.rules.cards import CARD_TEXT, HONOURS_OF_SUIT, Seat, Side, mask_of, parse_card
from audit.rules.sitting import score_record

OUT = (
    Path(__file__).resolve().parent.parent / "audit" / "record" / "examples" / "worked-example.json"
)


def honours(state, trump: int, side: Side) -> int:
    m = mask_of(state.deal[side.seats[0]]) | mask_of(state.deal[side.seats[1]])
    return (m & HONOURS_OF_SUIT[trump]).bit_count()


def find(rng, dealer, cayenne, calls, want, policy):
    for _ in range(200000):
        state, order = play_hand(
            rng, dealer, cayenne=parse_card(cayenne), calls=calls, policy=policy
        )
        if want(state):
            return state, order
    raise SystemExit("no hand found")


def main() -> None:
    rng = random.Random(1894)
    h1, o1 = find(
        rng,
        Seat.N,
        "7H",
        ["H"],
        lambda s: s.won[0] == 8 and honours(s, 1, Side.EW) == 3,
        random_policy,
    )
    h2, o2 = find(rng, Seat.E, "4D", ["grand"], lambda s: s.won[1] == 10, favour(Side.EW))
    h3, o3 = find(
        rng,
        Seat.S,
        "QC",
        ["S"],
        lambda s: s.won[0] == 12 and honours(s, 0, Side.NS) == 4,
        favour(Side.NS),
    )
    hands = []
    for i, (state, order) in enumerate(((h1, o1), (h2, o2), (h3, o3))):
        h = state.to_record_hand()
        h["pack"] = i % 2
        h["dealt_order"] = [CARD_TEXT[c] for c in order]
        h["collected"] = [CARD_TEXT[c] for c in collect(state)]
        hands.append(h)
    doc = {
        "format": "cayenne-record/1",
        "event": "The worked example of Foster's Complete Hoyle, Cayenne",
        "players": {"N": "Z", "E": "A", "S": "Y", "W": "B"},
        "start": {"points": {"NS": 8, "EW": 6}, "games": {"NS": 0, "EW": 0}},
        "hands": hands,
    }
    scored = score_record(load_record(doc))
    for h, s in zip(hands, scored.scores, strict=True):
        assert s is not None
        h["claimed"] = s.score.to_json()
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(scored.sheet.rubbers_json()))


if __name__ == "__main__":
    main()
