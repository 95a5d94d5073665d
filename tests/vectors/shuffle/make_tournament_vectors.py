"""Regenerate the cayenne-tournament-deals/1 golden vectors (run from the repository root).

    .venv/bin/python tests/vectors/shuffle/make_tournament_vectors.py

The output (tournament_vectors.json) is committed; tests/shuffle/test_tournament.py
checks the package against it. Regenerating must not change a byte unless the protocol
version changes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from audit.rules.cards import CARD_TEXT
from audit.rules.deal import PATTERN_67
from shuffle import tournament as t
from shuffle.errors import ShuffleError
from shuffle.protocol import Beacon

HERE = Path(__file__).resolve().parent
EVENT = "spring-pairs-2026"


def seed(start: int, n: int = 32) -> bytes:
    return bytes((start + i) % 256 for i in range(n))


ENTRANTS = [("ann", seed(32), True), ("bob", seed(64, 16), True), ("cy", seed(96, 64), False),
            ("dee", seed(160), True)]  # fmt: skip


def vector(name: str, note: str, tr: t.TournamentTranscript) -> dict[str, Any]:
    revealed = [(e.id, e.seed) for e in tr.entrants if e.seed is not None]
    assert tr.service_seed is not None
    key_input = t.event_key_input(tr.event, tr.pattern, tr.beacon, tr.service_seed, revealed)
    key = t.kdf.sha256(key_input)
    boards = t.verify(tr)
    return {
        "name": name,
        "note": note,
        "transcript": tr.to_json(),
        "event_key_input": key_input.hex(),
        "event_key": key.hex(),
        "boards": [
            {
                **b.to_json(),
                "board_key": t.board_key(key, b.board).hex(),
                "pack_order": [CARD_TEXT[c] for c in b.pack_order],
                "deal": {s.name: [CARD_TEXT[c] for c in cs] for s, cs in b.deal.items()},
            }
            for b in boards
        ],
    }


def must_fail(base: dict[str, Any]) -> list[dict[str, Any]]:
    cases: list[tuple[str, Any]] = []

    def case(name: str, change: Any) -> None:
        cases.append((name, change))

    case(
        "service seed altered", lambda d: d["service"].update(seed="ff" + d["service"]["seed"][2:])
    )
    case("service seed withheld", lambda d: d["service"].pop("seed"))
    case("entrant seed altered", lambda d: d["entrants"][1].update(seed="00" * 16))
    case(
        "entrant commitment copied",
        lambda d: d["entrants"][3].update(commitment=d["entrants"][0]["commitment"]),
    )
    case("every entrant withdrawn", lambda d: [e.pop("seed", None) for e in d["entrants"]])
    case("deal number altered", lambda d: d["deals"][2].update(deal_number="0"))
    case(
        "cayenne altered",
        lambda d: d["deals"][0].update(cayenne="AS" if d["deals"][0]["cayenne"] != "AS" else "KS"),
    )
    case(
        "a withdrawn entrant's seed added",
        lambda d: d["entrants"][2].update(seed=seed(96, 64).hex()),
    )
    case("a revealed entrant withdrawn", lambda d: d["entrants"][0].pop("seed"))
    case("pattern changed", lambda d: d.update(pattern=[6, 7]))
    case("event renamed", lambda d: d.update(event="autumn-pairs"))
    case("beacon added", lambda d: d.update(beacon={"source": "x", "round": 1, "randomness": "00"}))
    case("an entrant twice", lambda d: d["entrants"].append(dict(d["entrants"][0])))
    case(
        "upper-case hex",
        lambda d: d["service"].update(commitment=d["service"]["commitment"].upper()),
    )
    case("unknown field", lambda d: d.update(extra=1))
    case("wrong protocol", lambda d: d.update(protocol="cayenne-shuffle/1"))
    case("one board fewer", lambda d: d.update(boards=d["boards"] - 1))
    out = []
    for name, change in cases:
        doc = copy.deepcopy(base)
        change(doc)
        try:
            t.verify_tournament(doc)
        except ShuffleError as exc:
            out.append({"name": name, "code": exc.code, "path": exc.path, "transcript": doc})
        else:
            raise AssertionError(f"must-fail case {name!r} verified")
    return out


def main() -> None:
    plain = t.published(EVENT, 4, seed(0), ENTRANTS)
    beacon = t.published(
        EVENT, 5, seed(200), ENTRANTS[:2], pattern=PATTERN_67,
        beacon=Beacon("drand:quicknet", 12345678, seed(7, 32)),
    )  # fmt: skip
    doc = {
        "source": "cayenne-fairplay, docs/shuffle-protocol.md part II (cayenne-tournament-deals/1)",
        "notes": "Seeds are byte ramps: seed(s, n) = bytes (s + i) mod 256 for i < n. "
        "Entrant 'cy' never revealed and is withdrawn; the event key covers ann, bob, dee.",
        "vectors": [
            vector("three-revealed-one-withdrawn", "4 boards, 4-4-5, no beacon", plain),
            vector("beacon-6-7", "5 boards, 6-7, a beacon, two entrants", beacon),
        ],
        "must_fail": must_fail(plain.to_json()),
    }
    (HERE / "tournament_vectors.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
