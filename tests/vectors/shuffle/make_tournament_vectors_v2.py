"""Regenerate the cayenne-tournament-deals/2 golden vectors (run from the repository root).

    .venv/bin/python tests/vectors/shuffle/make_tournament_vectors_v2.py

The output (tournament_vectors_v2.json) is committed; tests/shuffle/test_tournament_v2.py
checks the package against it. The beacon is a local drand chain of a fixed secret key
(tests/drandlocal.py, scheme pedersen-bls-chained; BLS signatures are deterministic), so
regenerating must not change a byte unless the protocol changes.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from audit.rules.cards import CARD_TEXT  # noqa: E402
from audit.rules.deal import PATTERN_67  # noqa: E402
from shuffle import tournament as t  # noqa: E402
from shuffle.errors import ShuffleError  # noqa: E402
from tests.drandlocal import LocalDrand  # noqa: E402

EVENT = "spring-pairs-2026"
SECRET = 0x2A5F_1D3C_0B9E_8877_6655_4433_2211_00FF
GENESIS = 1_767_225_600  # 2026-01-01T00:00:00Z
PERIOD = 3
DEADLINE = GENESIS + 20  # round 8 (published at genesis + 21) is the first after it


def seed(start: int, n: int = 32) -> bytes:
    return bytes((start + i) % 256 for i in range(n))


ENTRANTS = [("ann", seed(32), True), ("bob", seed(64, 16), True), ("cy", seed(96, 64), False),
            ("dee", seed(160), True)]  # fmt: skip


def vector(name: str, note: str, tr: t.TournamentTranscript) -> dict[str, Any]:
    revealed = [(e.id, e.seed) for e in tr.entrants if e.seed is not None]
    assert tr.service_seed is not None and tr.chain and tr.drand and tr.reveal_deadline
    key_input = t.event_key_input_v2(
        tr.event, tr.pattern, tr.reveal_deadline, tr.chain, tr.drand, tr.service_seed, revealed
    )
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


def must_fail(base: dict[str, Any], drand: LocalDrand, other: LocalDrand) -> list[dict[str, Any]]:
    cases: list[tuple[str, Any]] = []

    def case(name: str, change: Any) -> None:
        cases.append((name, change))

    def round_fields(r: Any) -> dict[str, Any]:
        return r.to_json()  # type: ignore[no-any-return]

    case("entrant seed altered", lambda d: d["entrants"][1].update(seed="00" * 16))
    case(
        "a withdrawn entrant's seed added",
        lambda d: d["entrants"][2].update(seed=seed(96, 64).hex()),
    )
    case("a revealed entrant withdrawn", lambda d: d["entrants"][0].pop("seed"))
    case(
        "service seed altered", lambda d: d["service"].update(seed="ff" + d["service"]["seed"][2:])
    )
    case("deal number altered", lambda d: d["deals"][1].update(deal_number="0"))
    case("deadline moved later", lambda d: d.update(reveal_deadline=d["reveal_deadline"] + PERIOD))
    case(
        "deadline moved earlier, the same round",
        lambda d: d.update(reveal_deadline=d["reveal_deadline"] - 1),
    )
    case("deadline missing", lambda d: d.pop("reveal_deadline"))
    case("beacon missing", lambda d: d.pop("beacon"))
    case(
        "beacon round not yet out",
        lambda d: [d["beacon"].pop(k) for k in ("signature", "previous_signature", "randomness")],
    )
    case(
        "an earlier round, validly signed",
        lambda d: d["beacon"].update(round_fields(drand.round(7))),
    )
    case(
        "a later round, validly signed", lambda d: d["beacon"].update(round_fields(drand.round(9)))
    )
    case(
        "signature of another chain's key",
        lambda d: d["beacon"].update(round_fields(other.round(8))),
    )
    case(
        "signature altered",
        lambda d: d["beacon"].update(signature=d["beacon"]["signature"][:-2] + "00"),
    )
    case(
        "signature altered, randomness recomputed",
        lambda d: d["beacon"].update(
            signature=(sig := d["beacon"]["signature"][:-2] + "00"),
            randomness=__import__("hashlib").sha256(bytes.fromhex(sig)).hexdigest(),
        ),
    )
    case("previous signature altered", lambda d: d["beacon"].update(previous_signature="00" * 96))
    case(
        "randomness not SHA-256 of the signature",
        lambda d: d["beacon"].update(randomness="ab" * 32),
    )
    case("public key swapped", lambda d: d["beacon"].update(public_key=other.chain.public_key))
    case("genesis moved", lambda d: d["beacon"].update(genesis=d["beacon"]["genesis"] + PERIOD))
    case("unknown scheme", lambda d: d["beacon"].update(scheme="bls-made-up"))
    case("signature not hex", lambda d: d["beacon"].update(signature="zz" * 96))
    case(
        "version 1 beacon fields",
        lambda d: d.update(beacon={"source": "x", "round": 8, "randomness": "00"}),
    )
    case("labelled version 1", lambda d: d.update(protocol=t.VERSION_1))
    case("wrong protocol", lambda d: d.update(protocol="cayenne-tournament-deals/3"))
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
    drand = LocalDrand(SECRET, GENESIS, PERIOD)
    other = LocalDrand(SECRET + 1, GENESIS, PERIOD)
    rnd = drand.chain.round_after(DEADLINE)
    plain = t.published(
        EVENT, 4, seed(0), ENTRANTS,
        reveal_deadline=DEADLINE, chain=drand.chain, drand=drand.round(rnd),
    )  # fmt: skip
    six_seven = t.published(
        EVENT, 5, seed(200), ENTRANTS[:2], pattern=PATTERN_67,
        reveal_deadline=DEADLINE + 7, chain=drand.chain,
        drand=drand.round(drand.chain.round_after(DEADLINE + 7)),
    )  # fmt: skip
    doc = {
        "source": "cayenne-fairplay, docs/shuffle-protocol.md part II (cayenne-tournament-deals/2)",
        "notes": "Seeds are byte ramps: seed(s, n) = bytes (s + i) mod 256 for i < n. "
        "Entrant 'cy' never revealed and is withdrawn. The beacon is a local drand chain "
        f"(pedersen-bls-chained, secret key {SECRET:#x}, genesis {GENESIS}, period {PERIOD} s, "
        "round 1's previous signature SHA-256('cayenne-fairplay local drand')); "
        "the round is the first published after the reveal deadline.",
        "vectors": [
            vector("three-revealed-one-withdrawn", "4 boards, 4-4-5, round 8", plain),
            vector("two-entrants-6-7", "5 boards, 6-7, round 11", six_seven),
        ],
        "must_fail": must_fail(plain.to_json(), drand, other),
    }
    (HERE / "tournament_vectors_v2.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
