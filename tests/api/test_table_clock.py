"""The clock at an ordinary table (api/clock.py): a table of people or an administrator's
table created with ``clock: {seconds, warning}`` keeps it, shows it, and copies it into
each hand's row, so the clock's runner warns a seat that stops acting, expires it and
plays its calls and cards as the house, exactly as at an event's table. The hand's
record and report carry HOUSE_PLAYED, ``fairplay verify`` and the browser's verifier
(Node) accept the house's cards after the logged expiry and refuse a server-signed card
for the seat before it. A bad ``clock`` is refused naming its field, on both routes."""

from __future__ import annotations

import base64
import copy
import io
import json
import random
import secrets
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from api.bot import TableBots
from api.ceremony import seat_commitment
from api.client import ApiCallError, Client, Identity
from audit.cli import main as audit_main
from audit.log import merkle
from audit.log.checkpoint import Checkpoint
from audit.log.events import canonical_json, event_hash, sign_event
from audit.log.keys import Signer
from audit.rules.cards import Seat
from tests.api.conftest import Running
from tests.api.helpers import error_of
from tests.api.test_people_tables import people, read, write
from tests.js.test_verify_hand import failed, run_verify

SECONDS, WARNING = 3, 1
STALLED = "S"
"""The seat whose player takes part in the deal, then never calls nor plays."""


def drive(
    c: Client,
    origin: str,
    table: str,
    players: dict[str, Identity],
    rng: random.Random,
    seen: list[Any],
) -> dict[str, Any]:
    """Play hand 1 to its end for every seat but :data:`STALLED` (after the deal), and for
    no seat whose clock ran out: the house plays those. ``seen`` gets the stalled seat's
    own view of the clock each time it is read while the seat's clock runs."""
    seeds = {s: secrets.token_bytes(32) for s in players}
    end = time.monotonic() + 60
    while time.monotonic() < end:
        h = c.hand(table, 1)
        if h["phase"] in ("over", "void"):
            return h
        seat = h["waiting_for"][0] if h["waiting_for"] else None
        clock = h.get("clock") or {}
        if (
            seat is None
            or h["phase"] in ("calling", "playing")
            and (seat == STALLED or seat in clock.get("expired", []))
        ):
            if seat == STALLED:  # the stalled seat only looks (a signed read of its own)
                mine = read(c, players[STALLED], f"/v1/tables/{table}/hands/1")
                seen.append(mine["clock"])
            time.sleep(0.05)
            continue
        ident = players[seat]
        body: dict[str, Any]
        if h["phase"] == "committing":
            commitment = seat_commitment(seeds[seat], Seat.parse(seat), ident.id, table, 1)
            kind, body = "commit", {"commitment": commitment}
        elif h["phase"] == "revealing":
            kind, body = "reveal", {"seed": seeds[seat].hex()}
        else:
            cards = c.cards(ident, table, 1, seat)
            if h["phase"] == "calling":
                kind, body = "call", {"call": rng.choice(cards["legal_calls"])}
            else:
                kind, body = "play", {"card": rng.choice(cards["legal_plays"])}
        try:
            c.act(ident, origin, table, 1, h["next_seq"], h["last_hash"], kind, body)
        except ApiCallError:
            # the house moved meanwhile, or this seat's own time ran out on a slow machine
            now = c.hand(table, 1)
            if now["next_seq"] == h["next_seq"] and seat not in now["clock"]["expired"]:
                raise
    raise AssertionError("hand 1 did not end in 60 s")


def forged_bundle(
    bundle: dict[str, Any], signer: Signer, first: int, tail: list[dict[str, Any]]
) -> Any:
    """``bundle``'s events before seq ``first``, then ``tail`` (server events) from there,
    linked and re-signed with the log key, in a new log of the hand's events alone (a
    fork), with its checkpoint: what an operator holding the log key can make."""
    forged = copy.deepcopy(bundle)
    forged.pop("later", None)
    items = [i for i in forged["events"] if i["event"]["seq"] < first]
    prev = event_hash(items[-1]["event"])
    for n, ev in enumerate(tail):
        assert ev["actor"] == "server", "a player's event cannot be re-signed"
        fresh = {k: v for k, v in ev.items() if k != "signature"}
        fresh |= {"seq": first + n, "prev": prev}
        signed = sign_event(fresh, signer)
        items.append({"event": signed})
        prev = event_hash(signed)
    leaves = [canonical_json(i["event"]) for i in items]
    for n, item in enumerate(items):
        item["index"] = n
        item["inclusion"] = [
            base64.b64encode(h).decode() for h in merkle.inclusion_proof(leaves, n)
        ]
    forged["events"] = items
    forged["checkpoint"] = Checkpoint(forged["origin"], len(leaves), merkle.root_hash(leaves)).sign(
        signer
    )
    return forged


def fairplay_verify(tmp_path: Path, bundle: Any, vkey: str, record: Any = None) -> tuple[int, str]:
    """``fairplay verify BUNDLE --key VKEY [--record RECORD]``: its exit code and output."""
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    args = ["verify", str(tmp_path / "bundle.json"), "--key", vkey]
    if record is not None:
        (tmp_path / "record.json").write_text(json.dumps(record))
        args += ["--record", str(tmp_path / "record.json")]
    out = io.StringIO()
    with redirect_stdout(out):
        code = audit_main(args)
    return code, out.getvalue()


def test_a_stalled_seat_at_a_table_of_people_is_warned_expired_and_played_by_the_house(
    service: Running, tmp_path: Path
) -> None:
    c = service.client()
    ann, bob, cat, dan = people(c, "ann", "bob", "cat", "dan")
    control = {"seconds": SECONDS, "warning": WARNING}
    body = {"name": "On the clock", "seat": STALLED, "public": True, "clock": control}
    made = write(c, ann, "/v1/people-tables", body)
    t = made["id"]
    assert made["clock"] == control
    # the lobby shows the table's clock before anyone sits down
    lobby = {x["id"]: x for x in c.call("GET", "/v1/people-tables")["tables"]}
    assert lobby[t]["clock"] == control
    for who, seat in ((bob, "N"), (cat, "E"), (dan, "W")):
        write(c, who, f"/v1/people-tables/{t}/seats", {"seat": seat})
    players = {"S": ann, "N": bob, "E": cat, "W": dan}
    assert c.call("GET", f"/v1/tables/{t}")["clock"] == control
    listed = {x["id"]: x for x in c.call("GET", "/v1/tables", headers={})["tables"]}
    assert listed[t]["clock"] == control
    mine = read(c, ann, f"/v1/players/{ann.id}/tables")["tables"]
    assert [x["clock"] for x in mine if x["id"] == t] == [control]

    seen: list[Any] = []
    over = drive(c, service.origin, t, players, random.Random(5), seen)
    assert over["phase"] == "over"

    # the stalled seat saw its own clock run down, then the warning, at the table
    assert seen and all(x["limit_ms"] == SECONDS * 1000 for x in seen)
    before = [x for x in seen if STALLED not in x["expired"]]  # nobody else could move
    assert before and all(x["running"] == STALLED for x in before), before
    warned = [x for x in seen if STALLED in x["warned"]]
    assert warned and warned[0]["remaining_ms"][STALLED] <= WARNING * 1000, seen

    events = c.call("GET", f"/v1/tables/{t}/hands/1/events")["events"]
    chain = [i["event"] for i in events]
    kinds = [(e["type"], e["actor"], e["body"].get("seat")) for e in chain]
    warning = kinds.index(("clock_warning", "server", STALLED))
    expired = kinds.index(("clock_expired", "server", STALLED))
    assert warning < expired, kinds
    assert chain[expired]["body"]["used_ms"] >= SECONDS * 1000
    assert chain[warning]["body"]["used_ms"] >= (SECONDS - WARNING) * 1000
    assert chain[expired]["body"]["limit_ms"] == SECONDS * 1000
    # every call and card of the stalled seat is the house's, after its expiry
    stalled = [
        (n, e)
        for n, e in enumerate(chain)
        if e["type"] in ("call", "play")
        and (e["actor"] == ann.id or e["body"].get("seat") == STALLED)
    ]
    assert stalled and all(e["actor"] == "server" and n > expired for n, e in stalled), kinds
    assert sum(1 for _, e in stalled if e["type"] == "play") == 13
    assert stalled[0][0] == expired + 1  # the house acts at once: it was the seat's turn
    assert chain[-1]["type"] == "end"

    # the record and the hand's report: the director's mark
    record = c.call("GET", f"/v1/tables/{t}/hands/1/record")
    [house] = [x for x in record["hands"][0]["x-house"] if x["seat"] == STALLED]
    assert house["cards"] == 13
    report = c.call("GET", f"/v1/tables/{t}/hands/1/report")["report"]
    marks = [f for f in report["findings"] if f["code"] == "HOUSE_PLAYED"]
    assert any(f["evidence"]["seat"] == STALLED and f["evidence"]["cards"] == 13 for f in marks)

    # fairplay verify derives the hand, the house's cards included, and the record
    vkey = str(c.call("GET", "/v1/log/key")).strip()
    bundle = c.call("GET", f"/v1/tables/{t}/hands/1/proof")
    code, out = fairplay_verify(tmp_path, bundle, vkey, record)
    assert code == 0, out
    assert "the record follows from them, field by field" in out, out
    verdict = run_verify(tmp_path, bundle, vkey)  # the browser's verifier (Node)
    assert verdict["ok"], failed(verdict)

    # the log key's forgery: the house's first action for the seat moved before the
    # seat's expiry (after the warning only), then the server's closing events (its
    # seed's reveal, the end), all re-signed
    signer = service.app.extensions["fairplay"].hand_log.signer
    first_house = chain[expired + 1]
    last_action = max(n for n, e in enumerate(chain) if e["actor"] != "server")
    closing = [e for e in chain[last_action + 1 :] if e["type"] != "play"]
    assert [e["type"] for e in closing][-1] == "end", closing
    forged = forged_bundle(bundle, signer, chain[expired]["seq"], [first_house, *closing])
    code, out = fairplay_verify(tmp_path, forged, vkey)
    assert code == 1, out
    assert out.startswith("HAND_NOT_DERIVABLE"), out
    assert f"a server-signed {first_house['type']} for {STALLED}, whose clock has not" in out
    verdict = run_verify(tmp_path, forged, vkey)
    assert "signers" in failed(verdict), verdict["checks"]


def test_an_administrators_table_copies_its_clock_into_every_hand(
    make_service: Callable[..., Running], backend: str
) -> None:
    service = make_service(backend)  # the table's clock column on both databases
    c = service.client()
    players = {s: Identity.generate(f"clock-{s}") for s in "NESW"}
    for s, ident in players.items():
        c.register(ident, f"clock-{s}")
    seats = {s: i.id for s, i in players.items()}
    made = c.call("POST", "/v1/tables", {"seats": seats, "clock": {"seconds": 600}}, c.admin())
    assert made["clock"] == {"seconds": 600, "warning": 120}  # a fifth, by default
    bots = TableBots(c, service.origin, made["id"], players, random.Random(3))
    assert bots.play_hand(1)["phase"] == "over"
    for number in (1, 2):  # hand 2 opened with the end of hand 1
        clock = c.hand(made["id"], number)["clock"]
        assert (clock["limit_ms"], clock["warning_ms"]) == (600_000, 120_000), clock
    assert c.call("GET", f"/v1/tables/{made['id']}")["clock"] == {"seconds": 600, "warning": 120}
    plain = c.call("POST", "/v1/tables", {"seats": seats}, c.admin())
    assert plain["clock"] is None
    assert c.hand(plain["id"], 1)["clock"] is None


BAD_CLOCKS = [
    (5, "clock"),
    ([60], "clock"),
    ({"seconds": 60, "minutes": 1}, "clock"),
    ({}, "clock.seconds"),
    ({"warning": 5}, "clock.seconds"),
    ({"seconds": 0}, "clock.seconds"),
    ({"seconds": 86_401}, "clock.seconds"),
    ({"seconds": 1.5}, "clock.seconds"),
    ({"seconds": 60.0}, "clock.seconds"),
    ({"seconds": True}, "clock.seconds"),
    ({"seconds": "60"}, "clock.seconds"),
    ({"seconds": 60, "warning": 61}, "clock.warning"),
    ({"seconds": 60, "warning": -1}, "clock.warning"),
    ({"seconds": 60, "warning": "5"}, "clock.warning"),
]


def test_a_bad_clock_is_refused_naming_its_field_on_both_routes(service: Running) -> None:
    c = service.client()
    [ann] = people(c, "ann")
    others = people(c, "bob", "cat", "dan")
    seats = dict(zip("NESW", [ann.id, *(o.id for o in others)], strict=True))
    for clock, path in BAD_CLOCKS:
        for call in (
            lambda clock=clock: write(c, ann, "/v1/people-tables", {"clock": clock}),
            lambda clock=clock: c.call(
                "POST", "/v1/tables", {"seats": seats, "clock": clock}, c.admin()
            ),
        ):
            err = error_of(call)
            got = err.details["body"]
            assert err.status == 400 and got["details"]["path"] == path, (clock, got)
            assert got["message"].startswith(f"{path}:"), (clock, got)
    # nothing was made by the refusals
    assert c.call("GET", "/v1/tables")["tables"] == []
    assert read(c, ann, f"/v1/players/{ann.id}/tables")["tables"] == []


@pytest.mark.parametrize("clock", [{"seconds": 60}, {"seconds": 60, "warning": 0}])
def test_a_good_clock_is_kept_with_its_warning(service: Running, clock: dict[str, int]) -> None:
    c = service.client()
    [ann] = people(c, "ann")
    made = write(c, ann, "/v1/people-tables", {"clock": clock})
    assert made["clock"] == {"seconds": 60, "warning": clock.get("warning", 12)}
    assert write(c, ann, "/v1/people-tables", {})["clock"] is None
