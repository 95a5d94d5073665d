"""Live hands: the ceremony, signed events checked on arrival, replay, and the rules.

Every refused action leaves the hand and the log exactly as they were.
"""

from __future__ import annotations

import secrets
from functools import partial
from typing import Any

import pytest

from api.ceremony import seat_commitment
from api.client import Identity
from audit.log.events import make_event, sign_event
from audit.rules.cards import Seat
from tests.api.conftest import Running
from tests.api.helpers import SEATS, Table, error_of, open_table


def log_size(t: Table) -> int:
    return len(t.client.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"])


def refused(t: Table, call: Any, status: int, code: str, rule: str | None = None) -> dict[str, Any]:
    """Assert the call fails with (status, code) and changes nothing."""
    before_hand, before_log = t.hand(), log_size(t)
    err = error_of(call)
    body = err.details["body"]
    assert (err.status, body["code"]) == (status, code), body
    if rule is not None:
        assert body["details"]["rule"] == rule
    assert body["message"]
    assert t.hand() == before_hand and log_size(t) == before_log
    return dict(body)


@pytest.fixture
def table(service: Running) -> Table:
    return open_table(service.client(), service.origin)


def test_ceremony_commit_reveal_deal(table: Table) -> None:
    t = table
    assert t.hand()["ceremony"]["server_commitment"]
    t.commit_all()
    h = t.hand()
    assert h["phase"] == "revealing" and all(h["ceremony"]["commitments"].values())
    t.reveal_all()
    h = t.hand()
    assert h["phase"] == "calling" and h["waiting_for"] == ["N"]
    assert h["ceremony"]["server_seed"] is None  # revealed only at the end
    mine = [t.cards(s)["held"] for s in SEATS]
    assert sorted(c for hand in mine for c in hand) == sorted({c for hand in mine for c in hand})
    assert all(len(x) == 13 for x in mine)


def test_ceremony_refusals(table: Table, service: Running) -> None:
    t = table
    refused(t, partial(t.act, "N", "reveal", {"seed": "00" * 32}), 409, "WRONG_PHASE")
    seed = secrets.token_bytes(32)
    n_commit = seat_commitment(seed, Seat.N, t.players["N"].id, t.id, 1)
    t.act("N", "commit", {"commitment": n_commit})
    refused(t, partial(t.act, "N", "commit", {"commitment": n_commit}), 409, "WRONG_PHASE")
    refused(t, partial(t.act, "E", "commit", {"commitment": "zz"}), 400, "BAD_REQUEST")
    # E copies N's commitment (the Keybase flip bug): refused at once, not left to a void.
    refused(t, partial(t.act, "E", "commit", {"commitment": n_commit}), 422, "COMMITMENT_COPIED")
    for s in ("E", "S", "W"):
        t.seeds[s] = secrets.token_bytes(32)
        t.act(
            s,
            "commit",
            {"commitment": seat_commitment(t.seeds[s], Seat.parse(s), t.players[s].id, t.id, 1)},
        )
    refused(t, partial(t.act, "E", "reveal", {"seed": seed.hex()}), 422, "COMMITMENT_MISMATCH")
    refused(
        t,
        partial(t.act, "N", "reveal", {"seed": secrets.token_bytes(32).hex()}),
        422,
        "COMMITMENT_MISMATCH",
    )
    t.act("N", "reveal", {"seed": seed.hex()})
    assert t.hand()["ceremony"]["revealed"] == {"N": True, "E": False, "S": False, "W": False}


def test_signatures_seats_and_replays(table: Table, service: Running) -> None:
    t = table
    c = t.client
    h = t.hand()
    commit = seat_commitment(b"\x01" * 32, Seat.N, t.players["N"].id, t.id, 1)

    def event(actor: str, **kw: Any) -> dict[str, Any]:
        fields = dict(
            origin=t.origin,
            table=t.id,
            hand=1,
            seq=h["next_seq"],
            prev=h["last_hash"],
            actor=actor,
            type="commit",
            body={"commitment": commit},
        )
        fields.update(kw)
        return make_event(**fields)

    path = f"/v1/tables/{t.id}/hands/1/events"
    # Signed by E's key while claiming to be N: the key is not N's.
    forged = sign_event(event(t.players["N"].id), t.players["E"].signer)
    refused(t, partial(c.call, "POST", path, forged), 401, "INVALID_SIGNATURE")
    # A valid signature, then one byte of the body changed.
    good = sign_event(event(t.players["N"].id), t.players["N"].signer)
    tampered = dict(good, body={"commitment": commit[:-1] + ("0" if commit[-1] != "0" else "1")})
    refused(t, partial(c.call, "POST", path, tampered), 401, "INVALID_SIGNATURE")
    # A registered player who is not seated here.
    outsider = Identity.generate("outsider")
    c.register(outsider, "outsider")
    refused(
        t,
        partial(c.call, "POST", path, sign_event(event(outsider.id), outsider.signer)),
        403,
        "FORBIDDEN",
    )
    # Bound to this origin, table and hand.
    for other in ({"origin": "elsewhere/log"}, {"table": "t-other"}, {"hand": 2}):
        ev = sign_event(event(t.players["N"].id, **other), t.players["N"].signer)
        refused(t, partial(c.call, "POST", path, ev), 400, "BAD_REQUEST")
    # Accepted once; the same event again (a retry) answers with its result, logged once.
    first = c.call("POST", path, good)
    events = c.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"]
    assert c.call("POST", path, good) == first
    assert c.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"] == events
    # A stale seq or prev is refused too.
    refused(t, partial(t.act, "E", "commit", {"commitment": commit}, seq=1), 409, "REPLAYED_EVENT")
    refused(
        t,
        partial(t.act, "E", "commit", {"commitment": commit}, prev="ab" * 32),
        409,
        "REPLAYED_EVENT",
    )


def play_until_checks(t: Table) -> set[str]:
    """Play legal cards, trying each illegal kind of play when the position allows it."""
    seen: set[str] = set()
    while True:
        h = t.hand()
        if h["phase"] != "playing":
            return seen
        seat = h["waiting_for"][0]
        mine = t.cards(seat)
        held, legal = mine["held"], mine["legal_plays"]
        others = [s for s in SEATS if s != seat]
        refused(
            t,
            partial(t.act, others[0], "play", {"card": t.cards(others[0])["held"][0]}),
            409,
            "ILLEGAL_ACTION",
            "out_of_turn",
        )
        seen.add("out_of_turn")
        not_held = next(c for c in ("2S", "3S", "4S", "5S", "6S", "2H") if c not in held)
        refused(
            t, partial(t.act, seat, "play", {"card": not_held}), 422, "ILLEGAL_ACTION", "not_held"
        )
        seen.add("not_held")
        off = [c for c in held if c not in legal]
        if off:
            body = refused(
                t,
                partial(t.act, seat, "play", {"card": off[0]}),
                422,
                "ILLEGAL_ACTION",
                "must_follow_suit",
            )
            assert "must follow suit" in body["message"]
            seen.add("must_follow_suit")
        if h["play"]["contract"] != "nullo":
            aces = [c for c in legal if c[0] == "A"]
            if aces:
                refused(
                    t,
                    partial(t.act, seat, "play", {"card": aces[0], "ace_high": True}),
                    422,
                    "ILLEGAL_ACTION",
                    "ace_high_invalid",
                )
                seen.add("ace_high_invalid")
        t.act(seat, "play", {"card": legal[0]})
        if {"must_follow_suit", "not_held", "out_of_turn"} <= seen and len(h["play"]["tricks"]) > 3:
            return seen


def test_calls_and_plays_are_checked_by_the_rules(table: Table) -> None:
    t = table
    t.commit_all()
    t.reveal_all()
    refused(t, partial(t.act, "E", "call", {"call": "S"}), 409, "ILLEGAL_ACTION", "out_of_turn")
    refused(t, partial(t.act, "N", "call", {"call": "trumps"}), 422, "ILLEGAL_ACTION", "bad_call")
    refused(
        t, partial(t.act, "N", "play", {"card": t.cards("N")["held"][0]}), 409, "ILLEGAL_ACTION"
    )
    t.act("N", "call", {"call": "pass"})
    refused(t, partial(t.act, "S", "call", {"call": "pass"}), 422, "ILLEGAL_ACTION", "bad_call")
    t.act("S", "call", {"call": "H"})
    assert t.hand()["play"]["contract"] == "H"
    refused(t, partial(t.act, "E", "call", {"call": "S"}), 422, "ILLEGAL_ACTION", "bad_call")
    seen = play_until_checks(t)
    assert {"out_of_turn", "not_held", "must_follow_suit"} <= seen


def test_void_an_unfinished_ceremony(table: Table, service: Running) -> None:
    t = table
    path = f"/v1/tables/{t.id}/hands/1/void"
    seed = secrets.token_bytes(32)
    t.act("N", "commit", {"commitment": seat_commitment(seed, Seat.N, t.players["N"].id, t.id, 1)})
    anon = service.client(admin=False)
    assert error_of(partial(anon.call, "POST", path, {"reason": "E never committed"})).status == 401
    done = t.client.call("POST", path, {"reason": "E never committed"}, t.client.admin())
    assert done == {"table": t.id, "hand": 1, "phase": "void", "next_hand": 2}
    h1, h2 = t.hand(1), t.hand(2)
    assert h1["phase"] == "void" and h1["waiting_for"] == []
    assert (h2["phase"], h2["dealer"], h2["pack"]) == ("committing", h1["dealer"], h1["pack"])
    void = t.client.call("GET", f"/v1/tables/{t.id}/hands/1/events")["events"][-1]["event"]
    assert void["type"] == "void" and void["actor"] == "server"
    assert void["body"]["missing"] == ["E", "S", "W"] and len(void["body"]["server_seed"]) == 64
    refused(t, partial(t.act, "E", "commit", {"commitment": "00" * 32}), 409, "WRONG_PHASE")
    # A dealt hand cannot be voided.
    t.commit_all(2)
    t.reveal_all(2)
    err = error_of(
        partial(
            t.client.call,
            "POST",
            f"/v1/tables/{t.id}/hands/2/void",
            {"reason": "dislike the deal"},
            t.client.admin(),
        )
    )
    assert err.status == 409 and err.details["body"]["code"] == "WRONG_PHASE"


def test_catch_up_after_a_crash_between_log_and_row(table: Table, service: Running) -> None:
    """The log holds an action the service's row missed: the next action still works."""
    t = table
    t.commit_all()
    t.reveal_all()
    h = t.hand()
    n = t.players["N"]
    call = sign_event(
        make_event(
            origin=t.origin,
            table=t.id,
            hand=1,
            seq=h["next_seq"],
            prev=h["last_hash"],
            actor=n.id,
            type="call",
            body={"call": "D"},
        ),
        n.signer,
    )
    service.app.extensions["fairplay"].hand_log.append([call])  # logged; the row never written
    assert t.hand()["phase"] == "calling"
    from audit.log.events import event_hash

    leader = "E"
    card = t.cards(leader)["held"][0]
    t.act(leader, "play", {"card": card}, seq=h["next_seq"] + 1, prev=event_hash(call))
    after = t.hand()
    assert after["play"]["contract"] == "D" and after["play"]["tricks"][0]["cards"] == [card]
    assert after["next_seq"] == h["next_seq"] + 2
