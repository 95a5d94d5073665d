"""Repairs: a crash between the log's append and the rows' write loses nothing, and a
ceremony that waits too long for a seat is voided.

The crash is made where it hurts most: at the last card of a hand, after the log took
the card, the server's reveal, the ``end`` event and the next hand's opening, before
the rows (the hand, its report, the next hand with its server seed) were written. The
service is then either restarted on the same data or asked again for the last card;
either way the finished hand, its record and report, and the next hand come back from
the log, and the next hand plays to a clean end: its derived server seed opens the
commitment logged before the crash.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from api import rows
from api.bot import TableBots
from api.ceremony import seat_commitment
from api.client import ApiCallError
from audit.log.events import canonical_json
from audit.rules.cards import Seat
from tests.api.conftest import Running
from tests.api.helpers import error_of, open_table


@pytest.fixture
def crash_at_end_of_hand(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """While set, writing a finished hand's report fails like a process dying there."""

    def die(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("simulated crash after the log append")

    monkeypatch.setattr(rows, "insert_report", die)
    yield lambda: monkeypatch.undo()


def crashed_table(service: Running, undo: Callable[[], None]) -> TableBots:
    bots = TableBots.open(service.client(), random.Random(21))
    with pytest.raises(ApiCallError) as failed:
        bots.play_hand(1)
    assert failed.value.status == 500
    undo()
    hand_log = service.app.extensions["fairplay"].hand_log
    kinds = [e["event"]["type"] for e in hand_log.hand_events(bots.table, 1)]
    assert kinds[-2:] == ["server_reveal", "end"]  # the log has the end...
    assert [e["event"]["type"] for e in hand_log.hand_events(bots.table, 2)] == ["open"]
    h1 = bots.client.hand(bots.table, 1)
    assert h1["phase"] == "playing" and h1["next_seq"] == len(kinds) - 3  # ...the rows do not
    return bots


def finished_like_the_log(service: Running, bots: TableBots) -> None:
    c, t = bots.client, bots.table
    h1 = c.hand(t, 1)
    assert h1["phase"] == "over" and h1["ceremony"]["server_seed"]
    events = service.app.extensions["fairplay"].hand_log.hand_events(t, 1)
    end = events[-1]["event"]
    assert h1["next_seq"] == len(events) and h1["report_id"] == end["body"]["report"]
    record = c.call("GET", f"/v1/tables/{t}/hands/1/record")
    assert hashlib.sha256(canonical_json(record)).hexdigest() == end["body"]["record_sha256"]
    report = c.call("GET", f"/v1/tables/{t}/hands/1/report")
    assert report["report"]["verdict"] == "clean"
    h2 = c.hand(t, 2)
    assert (h2["phase"], h2["next_seq"]) == ("committing", 1)
    assert h2["score_before"] == h1["score_after"]
    # the next hand plays to a clean end: its server seed opens the logged commitment
    bots.play_hand(2)
    report2 = c.call("GET", f"/v1/tables/{t}/hands/2/report")
    assert report2["report"]["verdict"] == "clean", report2["report"]["findings"]
    assert c.hand(t, 3)["phase"] == "committing"


def test_a_restart_rebuilds_the_finished_hand_and_the_next(
    make_service: Callable[..., Running],
    backend: str,
    crash_at_end_of_hand: Callable[[], None],
) -> None:
    first = make_service(backend)
    bots = crashed_table(first, crash_at_end_of_hand)
    data_dir = first.app.extensions["fairplay"].config.data_dir
    first.server.shutdown()
    restarted = make_service(backend, data_dir=data_dir)  # same database, same log key
    bots.client = restarted.client()
    finished_like_the_log(restarted, bots)


def test_the_retried_last_card_repairs_the_rows(
    make_service: Callable[..., Running], crash_at_end_of_hand: Callable[[], None]
) -> None:
    service = make_service()
    bots = crashed_table(service, crash_at_end_of_hand)
    c, t = bots.client, bots.table
    h = c.hand(t, 1)
    (seat,) = h["waiting_for"]
    (card,) = c.cards(bots.players[seat], t, 1, seat)["legal_plays"]
    # the last card, sent again: the log holds it, so it answers with its result
    again = bots._act(1, seat, h["next_seq"], h["last_hash"], "play", {"card": card})
    assert (again["seq"], again["phase"]) == (h["next_seq"], "over")
    finished_like_the_log(service, bots)


def test_server_seeds_are_derived_per_hand_and_secret(service: Running) -> None:
    hand_log = service.app.extensions["fairplay"].hand_log
    a, b, c = (
        hand_log.server_seed("t1", 1),
        hand_log.server_seed("t1", 2),
        hand_log.server_seed("t2", 1),
    )
    assert len({a, b, c}) == 3 and all(len(x) == 32 for x in (a, b, c))
    assert hand_log.server_seed("t1", 1) == a  # the same after a restart
    assert a not in hand_log.signer.private_key_text().encode()


def test_a_ceremony_that_waits_too_long_for_a_seat_is_voided(
    make_service: Callable[..., Running],
) -> None:
    now = [1_800_000_000.0]
    service = make_service(ceremony_timeout=60, clock=lambda: now[0])
    t = open_table(service.client(), service.origin)
    now[0] += 59  # the clock runs from the opening...
    assert t.hand()["phase"] == "committing"
    for seat in ("N", "E", "S"):  # ...and starts again at the first commitment; W never commits
        commitment = seat_commitment(
            secrets.token_bytes(32), Seat.parse(seat), t.players[seat].id, t.id, 1
        )
        t.act(seat, "commit", {"commitment": commitment})
    now[0] += 60
    assert t.hand()["phase"] == "committing"  # not yet
    now[0] += 1
    h1 = t.hand()
    assert h1["phase"] == "void"
    void = service.app.extensions["fairplay"].hand_log.hand_events(t.id, 1)[-1]["event"]
    assert void["type"] == "void" and void["body"]["missing"] == ["W"]
    assert h1["ceremony"]["server_seed"] == void["body"]["server_seed"]  # published by the void
    assert "timed out after 60 s" in void["body"]["reason"]
    h2 = t.hand(2)
    assert (h2["phase"], h2["dealer"], h2["pack"]) == ("committing", h1["dealer"], h1["pack"])
    late = seat_commitment(secrets.token_bytes(32), Seat.W, t.players["W"].id, t.id, 1)
    err = error_of(lambda: t.act("W", "commit", {"commitment": late}))
    assert err.status == 409 and err.details["body"]["code"] == "WRONG_PHASE"


def test_a_hand_nobody_commits_to_is_voided_a_timeout_after_its_opening(
    make_service: Callable[..., Running],
) -> None:
    now = [1_800_000_000.0]
    service = make_service(ceremony_timeout=60, clock=lambda: now[0])
    t = open_table(service.client(), service.origin)
    now[0] += 60
    assert t.hand()["phase"] == "committing"  # not yet
    now[0] += 1
    h1 = t.hand()
    assert h1["phase"] == "void"
    void = service.app.extensions["fairplay"].hand_log.hand_events(t.id, 1)[-1]["event"]
    assert void["body"]["missing"] == ["N", "E", "S", "W"]
    assert t.hand(2)["phase"] == "committing"  # the next hand's clock starts at its opening
    now[0] += 30
    assert t.hand(2)["phase"] == "committing"


def test_a_late_seat_meets_the_timeout_when_it_commits(
    make_service: Callable[..., Running],
) -> None:
    now = [1_800_000_000.0]
    service = make_service(ceremony_timeout=30, clock=lambda: now[0])
    t = open_table(service.client(), service.origin)
    t.commit_all()
    now[0] += 31  # the reveals are late: the first one finds the hand void
    err = error_of(lambda: t.act("N", "reveal", {"seed": t.seeds["N"].hex()}))
    assert err.status == 409 and err.details["body"]["code"] == "WRONG_PHASE"
    assert t.hand()["phase"] == "void" and t.hand(2)["phase"] == "committing"
