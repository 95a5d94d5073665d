"""Four people enter and play a rubber round robin in four browsers, as the Mitchell of
test_event_browser.py is played (issue 20, parts 2 and 3), with its helpers.

Two pairs, one match of two hands: Ann invites Bob by a link, Cy sends Dee a code she
types. The pages reveal the seeds when the director starts the event and take each
person to the one table, where each hand is dealt by its own shuffle ceremony (the pages
commit and reveal by themselves) and every call and card is a click. Above the table the
page says "hand k of 2"; after the first hand Ann goes back to the event page, which
says "Now: round 1, table 1, seat X, against ...; a match of 2 hands (hand 2 of 2 now)"
and shows her match so far, read from her pair's card by a signed read, then she goes
back to play. At the end the pages go to the results by themselves, the standings shown
are the service's, and the certificate is verified in a browser. Every JSON body and
stream message each page received is checked for another seat's unplayed cards.

Screenshots (1280 and 390 px) go to the test's tmp dir, and to ``FAIRPLAY_SCREENSHOTS``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import Running
from tests.api.test_event_browser import (
    PEOPLE,
    Person,
    _admin,
    act,
    at_sizes,
    at_table,
    event_site,
    event_state,
    invite,
    make_key,
    no_unplayed_cards,
    round_one,
    signed_in_page,
)
from tests.api.test_play_browser import found, shot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("robin_browser")]

from selenium.webdriver.common.by import By  # noqa: E402

HANDS = 2
SPEC = {
    "name": "Browser robin",
    "format": "rubber-round-robin",
    "pairs": 2,
    "hands_per_match": HANDS,
}
SEAT_TEXT = "return document.getElementById('event-seat')?.textContent ?? ''"


@dataclass
class Robin:
    service: Running
    tid: str
    table: str
    people: dict[str, Person]
    shots: Path
    seen: dict[str, Any]


@pytest.fixture(scope="module")
def robin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Robin]:
    shots = tmp_path_factory.mktemp("robin-screens")
    with event_site(tmp_path_factory) as (service, people):
        yield play_the_robin(service, people, shots)


def hands_over(client: Any, table: str) -> int:
    hands = client.call("GET", f"/v1/tables/{table}/hands")["hands"]
    return sum(1 for h in hands if h["phase"] == "over")


def play_the_robin(service: Running, people: dict[str, Person], shots: Path) -> Robin:
    client = service.client()
    tid = str(client.call("POST", "/v1/tournaments", SPEC, client.admin())["id"])
    _admin(client, f"/v1/tournaments/{tid}/registration", {"open": True})
    page = f"{service.url}/tournaments/{tid}"
    ann, bob, cy, dee = (people[n] for n in PEOPLE)
    seen: dict[str, Any] = {}
    make_key(ann, page)  # Ann invites Bob by a link
    link, _ = invite(ann)
    make_key(bob, link)
    wait_for(lambda: found(bob.driver, ".accept-invitation"), 20, "Bob: Ann's invitation")
    bob.driver.find_element(By.CSS_SELECTOR, ".accept-invitation").click()
    make_key(cy, page)  # Cy invites Dee by a code she types
    _, code = invite(cy)
    make_key(dee, page)
    dee.driver.find_element(By.ID, "invite-code").send_keys(code)
    dee.driver.find_element(By.ID, "accept-code").click()
    for p in people.values():  # the inviters' pages enter them once accepted
        wait_for(lambda p=p: event_state(p.driver) == "paired", 30, f"{p.name}: paired")
    _admin(client, f"/v1/tournaments/{tid}/registration", {"open": False})
    _admin(client, f"/v1/tournaments/{tid}/start", {})
    # the pages reveal the seeds; round 1 starts
    doc = round_one(client, tid, 60, "the pages reveal their seeds and round 1 starts")
    seen["pairs"] = doc["pair_list"]
    sitting = doc["rounds_played"][0]["tables"][0]
    table = sitting["id"]
    seen["sitting"] = sitting
    for p in people.values():  # each page goes to the table by itself
        wait_for(lambda p=p: at_table(p) == table, 60, f"{p.name}: at the table")
    seat_texts: set[str] = set()
    visited = False
    look = 0.0
    deadline = time.monotonic() + 240
    while not all("/tournaments/" in p.driver.current_url for p in people.values()):
        assert time.monotonic() < deadline, "the match was not played in time"
        acted = False
        for p in people.values():  # a click for whoever is to act
            acted = bool(at_table(p) and act(p)) or acted
        if time.monotonic() < look:
            if not acted:
                time.sleep(0.05)
            continue
        look = time.monotonic() + 1  # once a second: what the pages received and say
        for p in people.values():
            p.traffic.drain()
            if at_table(p):
                seat_texts.add(str(p.driver.execute_script(SEAT_TEXT)))
        if not visited and hands_over(client, table) == 1:
            visited = True  # between the hands: Ann's event page, then back to play
            ann.driver.get(page)
            now = wait_for(lambda: found(ann.driver, "#now"), 30, "Ann: now")[0]
            wait_for(lambda: found(ann.driver, "#my-results tr[data-match]"), 30, "Ann: match")
            seen["now"] = now.text
            seen["during"] = [
                [td.text for td in r.find_elements(By.TAG_NAME, "td")]
                for r in found(ann.driver, "#my-results tr[data-match]")
            ]
            seen["during-widths"] = at_sizes(ann.driver, shots, "01-robin-event-now")
            mine = next(q["pair"] for q in seen["pairs"] if ann.id in q["players"])
            seen["own-card"] = signed_in_page(ann.driver, f"/v1/tournaments/{tid}/pairs/{mine}")
            ann.traffic.drain()
            ann.driver.find_element(By.ID, "go-to-table").click()
            wait_for(lambda: at_table(ann) == table, 30, "Ann: back at the table")
        if "table" not in seen and found(ann.driver, "#event-next"):
            # the match is over: the table says so, and its count, not the round's end
            seen["table"] = ann.driver.execute_script(
                "const e = window.cayenneEvent;"
                "const doc = structuredClone(e.doc); doc.phase = 'playing';"
                "doc.rounds_played.forEach((r) => { r.over = false; });"
                "const real = e.doc; e.doc = doc; const h = e.here(); e.doc = real;"
                "return {done: h.done, over: e.handsOver, next: "
                "document.getElementById('event-next').textContent};"
            )
            seen["table-widths"] = at_sizes(ann.driver, shots, "02-robin-table-over")
    seen["seat-texts"] = seat_texts
    wait_for(lambda: client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "over", 30, "end")
    for p in people.values():
        p.traffic.drain()
    client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
    return Robin(service, tid, table, people, shots, seen)


def test_four_people_enter_by_invitation_and_play_the_match(robin: Robin) -> None:
    client = robin.service.client()
    doc = client.call("GET", f"/v1/tournaments/{robin.tid}")
    assert doc["phase"] == "over" and doc["format"] == "rubber-round-robin"
    ids = {p.name: p.id for p in robin.people.values()}
    pairs = [set(p["players"]) for p in doc["pair_list"]]
    assert {ids["Ann"], ids["Bob"]} in pairs and {ids["Cy"], ids["Dee"]} in pairs
    hands = client.call("GET", f"/v1/tables/{robin.table}/hands")["hands"]
    assert [h["phase"] for h in hands] == ["over"] * HANDS
    for p in robin.people.values():
        chain = client.call("GET", f"/v1/tournaments/{robin.tid}/events?entrant={p.id}")
        kinds = [e["event"]["type"] for e in chain["events"]]
        assert kinds == ["tournament_register", "tournament_reveal"], (p.name, kinds)
        assert {e["event"]["actor"] for e in chain["events"]} == {p.id}
        for n in range(1, HANDS + 1):  # each hand: their commitment, seed, and 13 cards
            events = client.call("GET", f"/v1/tables/{robin.table}/hands/{n}/events")["events"]
            mine = [e["event"]["type"] for e in events if e["event"]["actor"] == p.id]
            assert mine.count("commit") == 1 and mine.count("reveal") == 1, (p.name, n, mine)
            assert mine.count("play") == 13, (p.name, n, mine)


def test_the_pages_say_where_and_which_hand(robin: Robin) -> None:
    seen = robin.seen
    assert re.match(
        r"Now: round 1, table 1, seat \w+ \([NESW]\), against .+ \(pair \d\); "
        r"a match of 2 hands \(hand 2 of 2 now\)\.$",
        seen["now"],
    ), seen["now"]
    assert "boards" not in seen["now"]
    texts = " | ".join(sorted(seen["seat-texts"]))
    for k in (1, 2):
        assert f"This round's match: 2 hands \u2014 now hand {k} of 2." in texts, texts
    # the match is over when its hands are, whether or not the round has ended
    assert seen["table"]["done"] is True and seen["table"]["over"] == HANDS, seen["table"]
    assert "The event is over" in seen["table"]["next"], seen["table"]


def test_each_sees_their_match_during_the_event(robin: Robin) -> None:
    seen = robin.seen
    assert seen["own-card"] == 200
    (cells,) = seen["during"]  # round, table, against, side, hands, match value
    assert cells[:2] == ["1", "1"] and cells[4] == "1 of 2", cells
    others = next(q for q in seen["pairs"] if robin.people["Ann"].id not in q["players"])
    assert cells[2] == f"pair {others['pair']}: Cy \u2013 Dee" or cells[2] == (
        f"pair {others['pair']}: Dee \u2013 Cy"
    ), cells
    assert cells[3] in ("NS", "EW") and re.fullmatch(r"[+-]?\d+", cells[5]), cells


def test_the_standings_shown_are_the_services(robin: Robin) -> None:
    client = robin.service.client()
    api = client.call("GET", f"/v1/tournaments/{robin.tid}/standings")
    number = {tuple(p["players"]): p["pair"] for p in robin.seen["pairs"]}
    expected = sorted(
        (str(s["place"]), f"pair {number[tuple(s['pair'])]}", str(s["score"]))
        for s in api["standings"]
    )
    d = robin.people["Ann"].driver  # her page went to the results by itself
    assert "/tournaments/" in d.current_url
    rows = wait_for(lambda: found(d, "#standings tr:not(:first-child)"), 20, "standings")
    shown = sorted(
        (c[0], c[1], c[3].replace("\u2212", "-"))
        for c in ([td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows)
    )
    assert shown == expected, (shown, expected)
    assert sum(int(s["score"]) for s in api["standings"]) == 0  # one match: +v and -v
    # her own match, final, on her panel: the service's value from her side
    (match,) = api["matches"]
    mine = ["EW", "NS"][robin.people["Ann"].id in match["ns"]]
    value = match["ns_value"] if mine == "NS" else -match["ns_value"]
    row = wait_for(lambda: found(d, "#my-results tr[data-match]"), 20, "Ann: results")[0]
    cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
    assert cells[3:] == [mine, "2 of 2", f"+{value}" if value > 0 else str(value)], cells
    assert event_state(d) == "over"


def test_no_page_receives_another_seats_cards_before_they_are_played(robin: Robin) -> None:
    for p in robin.people.values():
        no_unplayed_cards(p)


def test_the_pages_fit_a_phone(robin: Robin) -> None:
    for key in ("during-widths", "table-widths"):
        assert all(doc <= win for doc, win in robin.seen[key]), (key, robin.seen[key])


def test_the_certificate_is_verified_in_a_browser(robin: Robin) -> None:
    d = robin.people["Dee"].driver
    d.get(f"{robin.service.url}/tournaments/{robin.tid}/certificate")
    wait_for(lambda: d.find_element(By.ID, "verify-key").text, 20, "the page's key")
    d.find_element(By.ID, "verify-start").click()
    result = wait_for(lambda: found(d, "#verify-result"), 120, "the checks")[0]
    assert "verified" in (result.get_attribute("class") or ""), result.text
    shot(d, robin.shots, "03-robin-certificate-verified")
