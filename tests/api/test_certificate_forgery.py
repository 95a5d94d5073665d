"""Forgeries by an operator who holds the log key (issue 18, part 1): each hand of a
certificate bundle is derived from the players' signed events, and every chain and record
belongs to a table of the event, once. Every forgery re-signs the server's events, the
checkpoint and the certificate's note with the log key (:mod:`tests.api.forge`), so only
the players' signatures stand against it; ``fairplay tournament verify`` refuses each
with exit 1 and names the first difference."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api.client import Identity
from audit.log.events import event_hash, sign_event
from audit.log.keys import Signer
from audit.rules.cards import Seat

from .forge import Forger
from .test_tournament_certificate import MITCHELL, ROBIN, SMALL, _start, _stop, play, verify

# one worker plays the three events once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("certificate_forgery")


class Events:
    def __init__(self, bundles: dict[str, dict[str, Any]], signer: Signer) -> None:
        self.bundles = bundles
        self.signer = signer
        self.key = signer.verifier_key()


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Events]:
    service = _start(tmp_path_factory.mktemp("forgery"))
    try:
        client = service.client()
        tids = {
            "mitchell": play(service, MITCHELL, 4, False),
            "robin": play(service, ROBIN, 3, False),
            "other": play(service, SMALL, 2, False),
            # every board ends with a claim after nine tricks, accepted
            "claimed": play(service, SMALL, 2, False, concede_after=9),
            # one entrant more entered and withdrew by their own signed tournament_leave
            "withdrawn": play(service, SMALL, 2, False, leaving=1),
        }
        bundles = {
            k: client.call_when_ready("GET", f"/v1/tournaments/{t}/certificate/bundle")
            for k, t in tids.items()
        }
        yield Events(bundles, service.app.extensions["fairplay"].hand_log.signer)
    finally:
        _stop(service)


def _contract(f: Forger) -> str:
    """The first record's contract changed (its last call, the trump, to another)."""
    hand = f.bundle["records"][0]["record"]["hands"][0]
    call = hand["calls"][-1]
    call["call"] = next(c for c in ("C", "S", "H", "D") if c != call["call"])
    return f"bundle.records[0].record.hands[0].calls[{len(hand['calls']) - 1}].call"


def _cards_between_tricks(f: Forger) -> str:
    """Two of North's cards exchanged between the first two tricks of a record."""
    tricks = f.bundle["records"][0]["record"]["hands"][0]["tricks"]
    at = [(Seat.N - Seat.parse(t["leader"])) % 4 for t in tricks[:2]]
    a, b = tricks[0]["cards"], tricks[1]["cards"]
    a[at[0]], b[at[1]] = b[at[1]], a[at[0]]
    return "bundle.records[0].record.hands[0].tricks[0].cards"


def _north_and_south(f: Forger) -> str:
    players = f.bundle["records"][0]["record"]["players"]
    players["N"], players["S"] = players["S"], players["N"]
    return "bundle.records[0].record.players.N"


def _altered_copy_first(f: Forger) -> str:
    """An altered copy of a record put before the real one (the last copy was the one
    counted, the first never checked)."""
    fake = copy.deepcopy(f.bundle["records"][2])
    fake["record"]["players"]["E"], fake["record"]["players"]["W"] = (
        fake["record"]["players"]["W"],
        fake["record"]["players"]["E"],
    )
    f.bundle["records"].insert(0, fake)
    return "bundle.records[0].record.players.E"


def _outside_record(f: Forger) -> str:
    outside = copy.deepcopy(f.bundle["records"][0])
    outside["table"] = outside["record"]["table"] = "t-outside"
    f.bundle["records"].append(outside)
    return "is not a finished hand of the event"


def _dropped_record(f: Forger) -> str:
    gone = f.bundle["records"].pop(1)
    return f"no record of table {gone['table']} hand {gone['hand']}"


FORGERIES: dict[str, Callable[[Forger], str]] = {
    "contract S to C": _contract,
    "cards exchanged between tricks": _cards_between_tricks,
    "N and S exchanged": _north_and_south,
    "an altered copy before the real record": _altered_copy_first,
    "a record of a table outside the event": _outside_record,
    "a record left out": _dropped_record,
}


def _claimed_chain(f: Forger) -> tuple[str, str]:
    """The first hand of the bundle that ended with a claim."""
    ev = next(e for e in f.events if e["type"] == "claim_answer")
    return ev["table"], ev["hand"]


def _answer_resigned(f: Forger) -> str:
    """A claim's second acceptance signed again by the log key, as its adversary's."""
    chain = _claimed_chain(f)
    items = f.bundle["events"]
    n = max(
        i
        for i, it in enumerate(items)
        if it["event"]["type"] == "claim_answer"
        and (it["event"]["table"], it["event"]["hand"]) == chain
    )
    items[n]["event"] = sign_event(items[n]["event"], f.signer)
    return "signs with two keys"


def _nobody_accepted(f: Forger) -> str:
    """A claim's answers dropped: the hand ends on a claim nobody accepted."""
    chain = _claimed_chain(f)
    f.bundle["events"] = [
        it
        for it in f.bundle["events"]
        if not (
            it["event"]["type"] == "claim_answer"
            and (it["event"]["table"], it["event"]["hand"]) == chain
        )
    ]
    for n, ev in enumerate(f.chain(*chain)):  # the server's events after them, renumbered
        if ev["seq"] != n:
            ev["seq"] = n
            f.mark(ev)
    return "a claim no adversary accepted is not an end"


def _claim_changed(f: Forger) -> str:
    """The tricks of a claimed hand's claim changed in its record."""
    for n, r in enumerate(f.bundle["records"]):
        claim = r["record"]["hands"][0].get("claim")
        if claim is not None:
            claim["tricks"] = 1 if claim["tricks"] == 0 else claim["tricks"] - 1
            return f"bundle.records[{n}].record.hands[0].claim.tricks"
    raise AssertionError("no claimed hand")


CLAIM_FORGERIES: dict[str, Callable[[Forger], str]] = {
    "a claim's acceptance re-signed by the log key": _answer_resigned,
    "a claim nobody accepted": _nobody_accepted,
    "a claim's tricks changed in the record": _claim_changed,
}
"""Forgeries of a claimed hand (the "claimed" event), refused by both verifiers."""


def _leave_at(f: Forger) -> int:
    """The place in the bundle of the entrant's own signed withdrawal."""
    return next(
        n for n, it in enumerate(f.bundle["events"]) if it["event"]["type"] == "tournament_leave"
    )


def _leave_resigned(f: Forger) -> str:
    """The entrant's withdrawal signed again by the log key, in the entrant's name."""
    n = _leave_at(f)
    f.bundle["events"][n]["event"] = sign_event(f.bundle["events"][n]["event"], f.signer)
    return "signs with two keys"


def _leave_by_the_server(f: Forger) -> str:
    """The withdrawal signed by the log key as the server's own (the director's word in
    the entrant's chain)."""
    n = _leave_at(f)
    ev = f.bundle["events"][n]["event"]
    f.bundle["events"][n]["event"] = sign_event(ev | {"actor": "server"}, f.signer)
    return (
        "CHAIN_OUTSIDE_EVENT its tournament_leave is signed by server, "
        f"not by the entrant {ev['actor']}"
    )


def _leave_by_another_player(f: Forger) -> str:
    """The withdrawal signed by another player, with their own key."""
    n = _leave_at(f)
    ev = f.bundle["events"][n]["event"]
    other = Identity.generate("Mallory")
    f.bundle["events"][n]["event"] = sign_event(ev | {"actor": other.id}, other.signer)
    return (
        f"CHAIN_OUTSIDE_EVENT its tournament_leave is signed by {other.id}, "
        f"not by the entrant {ev['actor']}"
    )


WITHDRAWAL_FORGERIES: dict[str, Callable[[Forger], str]] = {
    "a withdrawal re-signed by the log key in the entrant's name": _leave_resigned,
    "a withdrawal signed by the log key as the server's": _leave_by_the_server,
    "a withdrawal signed by another player": _leave_by_another_player,
}
"""Forgeries of an entrant's own withdrawal (the "withdrawn" event), refused by both
verifiers: nothing but the entrant's key signs it."""


def test_an_entrants_own_withdrawal_verifies(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = events.bundles["withdrawn"]
    cert = bundle["certificate"]
    leave = next(
        it["event"] for it in bundle["events"] if it["event"]["type"] == "tournament_leave"
    )
    gone = leave["actor"]
    assert leave["hand"] == f"entrant-{gone}" and leave["seq"] == 1
    assert gone in [r["player"] for r in cert["roster"]]
    assert gone not in [p for pair in cert["pairs"] for p in pair["players"]]
    assert gone not in cert["unpaired"]
    key = next(r["key"] for r in cert["roster"] if r["player"] == gone)
    assert leave["key"] == key
    assert "tournament_remove" not in [it["event"]["type"] for it in bundle["events"]]
    code, out = verify(bundle, events.key, tmp_path, capsys)
    assert code == 0, out


@pytest.mark.parametrize("name", list(WITHDRAWAL_FORGERIES))
def test_a_withdrawal_not_signed_by_its_entrant_is_refused(
    events: Events, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = Forger(events.bundles["withdrawn"], events.signer)
    expected = WITHDRAWAL_FORGERIES[name](f)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    head, _, rest = expected.partition(" ")
    if head.isupper() and "_" in head:
        assert head in out and rest in out, out
    else:
        assert expected in out, out


def test_a_paired_entrants_withdrawal_forged_by_the_log_key_is_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log key's holder drops a paired entrant by a withdrawal it signs in their
    chain: refused, whatever the pairs of the start say."""
    f = Forger(events.bundles["other"], events.signer)
    me = f.bundle["certificate"]["pairs"][0]["players"][0]
    chain = f.chain(f.tid, f"entrant-{me}")
    fresh = {k: v for k, v in chain[-1].items() if k != "signature"}
    fresh |= {
        "seq": len(chain),
        "prev": event_hash(chain[-1]),
        "type": "tournament_leave",
        "actor": "server",
        "body": {"entrant": me},
    }
    f.bundle["events"].append({"index": 0, "event": sign_event(fresh, f.signer)})
    code, out = verify(f.finish(recompute=False), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and "signed by server, not by the entrant" in out, out


def test_a_claimed_hand_verifies_as_the_players_signed_it(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = events.bundles["claimed"]
    claims = [r["record"]["hands"][0].get("claim") for r in bundle["records"]]
    assert claims and all(c is not None for c in claims), claims
    assert all(len(r["record"]["hands"][0]["tricks"]) == 9 for r in bundle["records"])
    code, out = verify(bundle, events.key, tmp_path, capsys)
    assert code == 0, out


@pytest.mark.parametrize("name", list(CLAIM_FORGERIES))
def test_a_forged_claim_is_refused(
    events: Events, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = Forger(events.bundles["claimed"], events.signer)
    expected = CLAIM_FORGERIES[name](f)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "FAILED" in out and expected in out, out


def test_the_forger_alone_changes_nothing(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The forger's own re-signing (a new log, checkpoint, proofs, certificate and note)
    verifies: what the forgeries below are refused for is their change, nothing else."""
    for kind in ("mitchell", "robin"):
        forged = Forger(events.bundles[kind], events.signer).finish()
        assert [e["index"] for e in forged["events"]] == list(range(len(forged["events"])))
        code, out = verify(forged, events.key, tmp_path, capsys)
        assert code == 0, out
        # the verdict says how the boards were dealt, and what version 1 leaves open
        said = {
            "mitchell": "cayenne-tournament-deals/1: the log key's holder could choose them",
            "robin": "each hand dealt by its own ceremony",
        }
        assert said[kind] in out, out


@pytest.mark.parametrize("kind", ["mitchell", "robin"])
@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_record_that_is_not_what_the_players_signed_is_refused(
    events: Events, kind: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = Forger(events.bundles[kind], events.signer)
    expected = FORGERIES[name](f)
    forged = f.finish()
    code, out = verify(forged, events.key, tmp_path, capsys)
    assert code == 1, out
    assert "FAILED" in out and expected in out, out
    assert "certificate verified" not in out


def _foreign_chain(events: Events) -> tuple[Forger, str]:
    """A hand chain of another event of the same log, with its record, in the bundle."""
    f = Forger(events.bundles["mitchell"], events.signer)
    other = events.bundles["other"]
    rec = other["records"][0]
    table, hand = rec["table"], str(rec["hand"])
    chain = [
        copy.deepcopy(item)
        for item in other["events"]
        if (item["event"]["table"], item["event"]["hand"]) == (table, hand)
    ]
    f.bundle["events"] += chain
    f.bundle["records"].append(copy.deepcopy(rec))
    return f, table


def test_another_events_hand_chain_is_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f, table = _foreign_chain(events)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and f"table {table} hand 1" in out, out


def test_another_events_hand_chain_listed_in_a_round_is_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The forger also lists the foreign table in a re-signed round: the chain's own
    opening, fixed by its players' signatures, names the other event."""
    f, table = _foreign_chain(events)
    rounds = [e for e in f.chain(f.tid, "event") if e["type"] == "tournament_round"]
    sitting = copy.deepcopy(rounds[0]["body"]["tables"][0])
    other_open = next(e for e in f.events if (e["table"], e["hand"]) == (table, "1"))
    sitting |= {"id": table, "table": 9, "seats": other_open["body"]["seats"]}
    rounds[0]["body"]["tables"].append(sitting)
    f.mark(rounds[0])
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and "not a board of round 1" in out, out


def test_a_round_seating_rewritten_is_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """N and S exchanged in the signed round (and so in the standings' pairs): every
    board's opening, fixed by the players' calls and plays after it, seats them as
    they sat."""
    f = Forger(events.bundles["mitchell"], events.signer)
    rnd = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_round")
    seats = rnd["body"]["tables"][0]["seats"]
    seats["N"], seats["S"] = seats["S"], seats["N"]
    f.mark(rnd)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and "the round seats" in out, out


def test_pairs_renumbered_in_a_re_signed_start_are_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pairs 1 and 2 exchanged in the start (so in the standings): the tables still seat
    them where the movement, and the boards' openings fixed by their players, put them."""
    f = Forger(events.bundles["mitchell"], events.signer)
    start = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_start")
    pairs = start["body"]["pairs"]
    pairs[0], pairs[1] = pairs[1], pairs[0]
    f.mark(start)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and "the movement seats pairs" in out, out


def test_partners_exchanged_in_a_re_signed_start_are_refused(
    events: Events, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pairs 1 and 2 exchange their second members in the start: the players' own signed
    registrations name who entered together."""
    f = Forger(events.bundles["mitchell"], events.signer)
    start = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_start")
    pairs = start["body"]["pairs"]
    pairs[0][1], pairs[1][1] = pairs[1][1], pairs[0][1]
    f.mark(start)
    code, out = verify(f.finish(), events.key, tmp_path, capsys)
    assert code == 1, out
    assert "CHAIN_OUTSIDE_EVENT" in out and "pair 1: " in out and "as partner" in out, out


def house_play_without_expiry(f: Forger) -> str:
    """A player's last card of a hand replaced by the same card signed by the server as
    the house's for that seat, with no clock_expired for it: the log key may play a seat
    only after the seat's logged expiry (audit/rules/house.py)."""
    rec = f.bundle["records"][0]
    chain = f.chain(rec["table"], str(rec["hand"]))
    last = [e for e in chain if e["type"] == "play"][-1]
    seat = next(s for s, p in chain[0]["body"]["seats"].items() if p == last["actor"])
    for item in f.bundle["events"]:
        if item["event"] is last:
            forged = {k: v for k, v in last.items() if k != "signature"}
            forged |= {"actor": "server", "key": "", "body": {**last["body"], "seat": seat}}
            item["event"] = forged
            f.mark(forged)
    return (
        f"HAND_NOT_DERIVABLE table {rec['table']} hand {rec['hand']} event {last['seq']}: "
        f"a server-signed play for {seat}, whose clock has not run out"
    )


@pytest.mark.parametrize("kind", ["mitchell", "robin"])
def test_a_server_signed_card_for_a_seat_whose_clock_never_ran_out_is_refused(
    events: Events, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = Forger(events.bundles[kind], events.signer)
    expected = house_play_without_expiry(f)
    forged = f.finish()
    code, out = verify(forged, events.key, tmp_path, capsys)
    assert code == 1, out
    code_name, _, text = expected.partition(" ")
    assert code_name in out and text in out, out
