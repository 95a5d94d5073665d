"""A void hand's partial transcript, built from the log and checked (shuffle.void)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from audit.rules.cards import Seat
from shuffle.ceremony import Ceremony
from shuffle.errors import CommitmentMismatchError, ShuffleIncompleteError
from shuffle.protocol import SEAT_ORDER
from shuffle.void import transcript_from_events, verify_void

PLAYERS = {s: f"p-{s.name}" for s in SEAT_ORDER}


def seed(seat: Seat) -> bytes:
    return bytes([seat + 1]) * 20


def aborted(reveal: tuple[Seat, ...]) -> tuple[Ceremony, Any, list[dict[str, Any]]]:
    """A ceremony where every seat committed, ``reveal`` revealed, then voided; with the
    hand's events as the service logs them."""
    c = Ceremony("club-1", 9, Seat.S, PLAYERS)
    events: list[dict[str, Any]] = [
        {
            "type": "open",
            "actor": "server",
            "body": {
                "server_commitment": c.server_commitment.hex(),
                "dealer": "S",
                "pack": 0,
                "seats": {s.name: PLAYERS[s] for s in SEAT_ORDER},
                "ruleset": {
                    "deal_pattern": [4, 4, 5],
                    "seven_is": "single",
                    "default_penalty": "tricks",
                },
            },
        }
    ]
    for s in SEAT_ORDER:
        commitment = c.commit_seed(s, seed(s))
        events.append(
            {"type": "commit", "actor": PLAYERS[s], "body": {"commitment": commitment.hex()}}
        )
    for s in reveal:
        c.reveal(s, seed(s))
        events.append({"type": "reveal", "actor": PLAYERS[s], "body": {"seed": seed(s).hex()}})
    void = c.abort("W did not reveal")
    missing = [s.name for s in SEAT_ORDER if s not in reveal]
    events.append(
        {
            "type": "void",
            "actor": "server",
            "body": {
                "reason": void.reason,
                "phase": "revealing",
                "missing": missing,
                "server_seed": void.transcript["server"]["seed"],
            },
        }
    )
    return c, void, events


def test_a_void_hand_is_built_from_its_log_and_checked() -> None:
    _c, void, events = aborted((Seat.N, Seat.E, Seat.S))
    partial = transcript_from_events("club-1", 9, events)
    assert partial["server"] == void.transcript["server"]
    assert partial["seats"] == void.transcript["seats"]
    check = verify_void(partial, phase="revealing", missing=["W"])
    assert check.revealed == ("N", "E", "S") and check.missing == ("W",) and check.deal is None


def test_a_published_server_seed_that_is_not_the_committed_one_fails() -> None:
    _c, _void, events = aborted((Seat.N,))
    partial = transcript_from_events("club-1", 9, events)
    bad = copy.deepcopy(partial)
    bad["server"]["seed"] = "11" * 32
    with pytest.raises(CommitmentMismatchError, match=r"shuffle\.server\.seed: the published"):
        verify_void(bad)
    del bad["server"]["seed"]
    with pytest.raises(ShuffleIncompleteError, match="server.seed"):
        verify_void(bad)
    bad = copy.deepcopy(partial)
    bad["seats"]["N"]["seed"] = "22" * 20
    with pytest.raises(CommitmentMismatchError, match="seats.N.seed"):
        verify_void(bad)


def test_the_void_must_name_the_seats_the_log_shows_missing() -> None:
    _c, _void, events = aborted((Seat.N, Seat.E))
    partial = transcript_from_events("club-1", 9, events)
    assert verify_void(partial, phase="revealing", missing=["S", "W"]).missing == ("S", "W")
    with pytest.raises(CommitmentMismatchError, match="missing"):
        verify_void(partial, phase="revealing", missing=["W"])


def test_a_void_while_committing_has_seats_without_commitment() -> None:
    c = Ceremony("club-1", 10, Seat.N, PLAYERS)
    c.commit_seed(Seat.N, seed(Seat.N))
    void = c.abort("E left")
    check = verify_void(void.transcript, phase="committing", missing=["E", "S", "W"])
    assert check.revealed == () and check.missing == ("E", "S", "W")


@pytest.mark.parametrize(
    "where",
    [("beacon",), ("deal_number",), ("cayenne",), ("server", "seed"), ("seats", "E", "seed")],
)
def test_null_is_not_absent_it_is_refused(where: tuple[str, ...]) -> None:
    """docs/shuffle-protocol.md section 9: a field is present or absent; null is neither."""
    import json
    from pathlib import Path

    from shuffle.errors import ShuffleFormatError
    from shuffle.verify import verify_transcript

    vectors = json.loads(
        (Path(__file__).parents[1] / "vectors" / "shuffle" / "shuffle_vectors.json").read_text()
    )
    t = copy.deepcopy(next(v["transcript"] for v in vectors["vectors"] if "transcript" in v))
    verify_transcript(t)
    obj = t
    for key in where[:-1]:
        obj = obj[key]
    obj[where[-1]] = None
    with pytest.raises(ShuffleFormatError) as info:
        verify_transcript(t)
    assert info.value.path == ".".join(where)
