"""Four people enter and play a certified online event in four browsers (issue 20, parts 2
and 3): Selenium drives Debian's Chromium, each browser with its own key made in it.

A two-table Mitchell of two rounds, one board a round. Ann invites Bob by a link and Cy
sends Dee a code she types; house bots (the tournament bot) enter the other two pairs,
so that the people's pairs meet at table 1 and the bots play table 2. The pages reveal
the seeds themselves when the director starts the event, take each person to their table
("now: round r, table t, seat X, against ..."), where they play every card by clicking,
show each their own result as soon as their board is played (other tables' stay hidden),
say what comes next between the rounds and move on by themselves; at the end each person
verifies the certificate in their browser. Every JSON body and stream message each page
received is checked for another seat's cards before they were played.

Screenshots (1280 and 390 px) go to the test's tmp dir, and to ``FAIRPLAY_SCREENSHOTS``.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.tournament_bot import TournamentBots
from tests.api.conftest import ADMIN, Running
from tests.api.test_play_browser import Traffic, borrowed, found, shot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("event_browser")]

from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

SPEC = {
    "name": "Browser pairs",
    "format": "pairs-duplicate",
    "tables": 2,
    "rounds": 2,
    "boards_per_round": 1,
}
BEACON = {"source": "test-beacon", "round": 3, "randomness": "ef" * 32}
CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
PEOPLE = ("Ann", "Bob", "Cy", "Dee")
OWN_READ = "return document.body.dataset.ownRead"


class PageTraffic(Traffic):
    """Every JSON body and stream message of a page that moves on by itself: a body the
    browser dropped with its page (it navigated meanwhile) is counted, not read."""

    missed = 0

    def drain(self) -> None:
        for entry in self.driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            method, params = msg["method"], msg.get("params", {})
            if method == "Network.responseReceived":
                self.responses[params["requestId"]] = params["response"]
            elif method == "Network.eventSourceMessageReceived":
                self.messages.append(params["data"])
            elif method == "Network.loadingFinished":
                resp = self.responses.get(params["requestId"])
                if resp is None or "json" not in resp.get("mimeType", ""):
                    continue
                try:
                    got = self.driver.execute_cdp_cmd(
                        "Network.getResponseBody", {"requestId": params["requestId"]}
                    )
                except Exception:  # noqa: BLE001 - the page that fetched it is gone
                    self.missed += 1
                    continue
                self.bodies.append((resp["url"], got["body"]))


@dataclass
class Person:
    name: str
    driver: WebDriver
    traffic: PageTraffic
    id: str = ""
    tables: list[str] = field(default_factory=list)


@dataclass
class Played:
    service: Running
    tid: str
    people: dict[str, Person]
    bots: TournamentBots
    shots: Path
    seen: dict[str, Any]


def _admin(client: Any, path: str, body: dict[str, Any]) -> Any:
    return client.call("POST", path, body, client.admin())


def event_state(driver: WebDriver) -> str:
    return str(driver.execute_script("return document.getElementById('entrant')?.dataset.state"))


def at_sizes(driver: WebDriver, tmp: Path, name: str) -> list[tuple[int, int]]:
    """Screenshots at 1280 x 900 and 390 x 844; (document, window) widths at each."""
    widths = []
    for w, h in ((1280, 900), (390, 844)):
        driver.set_window_size(w, h)
        time.sleep(0.3)
        shot(driver, tmp, f"{name}-{w}")
        widths.append(
            (
                driver.execute_script("return document.documentElement.scrollWidth"),
                driver.execute_script("return window.innerWidth"),
            )
        )
    driver.set_window_size(1000, 1100)
    return widths


def make_key(p: Person, url: str) -> None:
    p.driver.get(url)
    wait_for(lambda: found(p.driver, "#entrant-key"), 20, f"{p.name}: the key's form")
    p.driver.find_element(By.ID, "entrant-name").send_keys(p.name)
    p.driver.find_element(By.ID, "entrant-key").click()
    wait_for(lambda: found(p.driver, "#backup-link"), 20, f"{p.name}: registered")
    p.id = p.driver.execute_script(
        "return document.querySelector('#entrant-body p').textContent.split(': ')[1]"
    )


def invite(p: Person) -> tuple[str, str]:
    wait_for(lambda: found(p.driver, "#invite"), 20, f"{p.name}: the invite button").pop().click()
    link = wait_for(lambda: found(p.driver, "#invite-link"), 20, f"{p.name}: the link")[0]
    code = p.driver.find_element(By.ID, "invite-code-shown").text
    return link.get_attribute("href"), code


LOOK = """
return {
  url: location.href,
  state: document.body.dataset.eventState ?? null,
  click: document.querySelector('#actions button.call, #my-hand button.playable') !== null,
};
"""
"""What :func:`look` reads in one call: a loop that polled the page with a WebDriver command
for each thing it asked (the URL, the state, a call, a card) spent most of its CPU (the
driver's and the browser's) on the polling."""


def look(p: Person) -> dict[str, Any]:
    """The page's URL, its event state and whether :func:`act` has a click to make, read by
    one command."""
    return dict(p.driver.execute_script(LOOK))


def act(p: Person) -> bool:
    """One click for the person if their page waits for one; whether one was made."""
    d = p.driver
    try:
        calls = found(d, "#actions button.call")
        if calls:
            (calls[-1] if found(d, "#ace-high") else calls[0]).click()
            return True
        cards = found(d, "#my-hand button.playable")
        if cards:
            cards[0].click()
            return True
    except (
        StaleElementReferenceException,
        ElementClickInterceptedException,
        ElementNotInteractableException,
    ):
        return True  # the page redrew under the click: look again
    return False


def at_table(p: Person) -> str | None:
    url = p.driver.current_url
    return url.rsplit("/", 1)[1] if "/play/t-" in url else None


@contextmanager
def event_site(
    tmp_path_factory: pytest.TempPathFactory, names: tuple[str, ...] = PEOPLE
) -> Iterator[tuple[Running, dict[str, Person]]]:
    """A service of its own (people register themselves) and a Chromium for each name,
    each with its own profile, so its own key; the service closed at the end, the
    browsers given back to the pool (:func:`borrowed`: cleared)."""
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(
        {
            "data_dir": str(tmp_path_factory.mktemp("event-site")),
            "admin_token": ADMIN,
            "testing": True,
            "self_registration": True,
            "register_per_hour": 0,
            # The streams of the pages a person leaves for their next table are noticed
            # closed only at their next write (a heartbeat, up to 15 s on): with the
            # default 8 (6 for the seats) the next round's pages were refused (429) and
            # backed off for some 28 s. The limit itself is tests/api/test_sse.py's.
            "max_streams": 24,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    service = Running(app, f"http://127.0.0.1:{server.server_port}", server)
    with borrowed(len(names)) as drivers:
        people: dict[str, Person] = {}
        for name, driver in zip(names, drivers, strict=True):
            driver.set_window_size(1000, 1100)
            people[name] = Person(name, driver, PageTraffic(driver))
        try:
            yield service, people
        finally:
            server.shutdown()
            app.extensions["fairplay"].close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    shots = tmp_path_factory.mktemp("event-screens")
    with event_site(tmp_path_factory) as (service, people):
        yield play_the_event(service, people, shots)


def round_one(client: Any, tid: str, timeout: float, message: str) -> dict[str, Any]:
    """The event's document once it plays its first round."""
    doc: dict[str, Any] = wait_for(
        lambda: (
            (d := client.call("GET", f"/v1/tournaments/{tid}"))["phase"] == "playing"
            and d["rounds_played"]
            and d
        ),
        timeout,
        message,
    )
    return doc


def play_the_event(service: Running, people: dict[str, Person], shots: Path) -> Played:
    client = service.client()
    tid = str(client.call("POST", "/v1/tournaments", SPEC, client.admin())["id"])
    _admin(client, f"/v1/tournaments/{tid}/registration", {"open": True})
    _admin(client, f"/v1/tournaments/{tid}/beacon", BEACON)
    page = f"{service.url}/tournaments/{tid}"
    ann, bob, cy, dee = (people[n] for n in PEOPLE)
    seen: dict[str, Any] = {}
    # Ann makes her key, registers and invites a partner by a link; Bob opens it
    make_key(ann, page)
    seen["enter"] = at_sizes(ann.driver, shots, "01-event-enter")
    link, _ = invite(ann)
    seen["invited"] = at_sizes(ann.driver, shots, "02-event-invited")
    make_key(bob, link)
    wait_for(lambda: found(bob.driver, ".accept-invitation"), 20, "Bob: Ann's invitation")
    bob.driver.find_element(By.CSS_SELECTOR, ".accept-invitation").click()
    for p in (ann, bob):  # Ann's page enters her once Bob has accepted
        wait_for(lambda p=p: event_state(p.driver) == "paired", 30, f"{p.name}: paired")
    seen["paired"] = at_sizes(ann.driver, shots, "03-event-paired")
    bots = TournamentBots(client, tid, {}, random.Random(4))
    bots.enter_pairs(1, prefix="house-a")  # pair 2
    # Cy invites by a code, takes it back (its code names no one after), invites again;
    # Dee types the new code
    make_key(cy, page)
    _, first = invite(cy)
    cy.driver.find_element(By.ID, "invite-cancel").click()
    wait_for(lambda: found(cy.driver, "#invite"), 20, "Cy: the invitation taken back")
    status = client.raw("GET", f"/v1/tournaments/{tid}/invitations/{first}")[0]
    assert status == 404, status
    _, code = invite(cy)
    assert code != first
    make_key(dee, page)
    dee.driver.find_element(By.ID, "invite-code").send_keys(code.lower())
    dee.driver.find_element(By.ID, "accept-code").click()
    for p in (cy, dee):
        wait_for(lambda p=p: event_state(p.driver) == "paired", 30, f"{p.name}: paired")
    bots.enter_pairs(1, prefix="house-b")  # pair 4
    _admin(client, f"/v1/tournaments/{tid}/registration", {"open": False})
    _admin(client, f"/v1/tournaments/{tid}/start", {})
    # the people's pages reveal their seeds; the bots reveal theirs
    ids = {p.id for p in people.values()}
    wait_for(
        lambda: all(
            e["revealed"]
            for e in client.call("GET", f"/v1/tournaments/{tid}")["entrants"]
            if e["player"] in ids
        ),
        60,
        "the people's pages reveal their seeds",
    )
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = round_one(client, tid, 30, "the deal")
    seen["pairs"] = doc["pair_list"]
    origin = bots.origin
    for rnd in (1, 2):
        doc = wait_for(
            lambda rnd=rnd: (
                (d := client.call("GET", f"/v1/tournaments/{tid}"))["round"] == rnd and d
            ),
            60,
            f"round {rnd}",
        )
        tables = doc["rounds_played"][rnd - 1]["tables"]
        mine = next(t for t in tables if t["seats"]["N"] in {p.id for p in people.values()})
        theirs = next(t for t in tables if t is not mine)
        # each page goes to its table by itself
        for p in people.values():
            here = mine["id"]
            wait_for(lambda p=p, t=here: at_table(p) == t, 60, f"{p.name}: at table, round {rnd}")
            p.tables.append(mine["id"])
        if rnd == 1:  # Ann's event page: "now: round 1, table 1, seat ..., against ..."
            ann.traffic.drain()
            ann.driver.get(page)
            now = wait_for(lambda: found(ann.driver, "#now"), 30, "Ann: now")[0]
            seen["now"] = now.text
            seen["now-widths"] = at_sizes(ann.driver, shots, "04-event-now-playing")
            ann.driver.find_element(By.ID, "go-to-table").click()
            wait_for(lambda t=mine["id"]: at_table(ann) == t, 30, "Ann: back at her table")
        deadline = time.monotonic() + 240
        shot_taken = False
        while True:  # the people play their board by clicking
            assert time.monotonic() < deadline, f"round {rnd} not played in time"
            states = []
            acted = False
            for p in people.values():
                p.traffic.drain()
                view = look(p)
                if view["click"]:
                    acted = act(p) or acted
                states.append(view["state"])
            if not shot_taken and rnd == 1 and found(ann.driver, "#my-hand button.playable"):
                shot_taken = bool(at_sizes(ann.driver, shots, "05-tournament-table"))
            if not acted and all(s == "waiting" for s in states):
                break
            time.sleep(0.1 if acted else 0.3)
        # between rounds: their table is done, the bots' is not; own results already shown
        seen[f"between-{rnd}"] = ann.driver.find_element(By.ID, "event-next").text
        seen[f"between-{rnd}-widths"] = at_sizes(ann.driver, shots, f"06-between-round-{rnd}")
        if rnd == 1:
            path = f"/v1/tournaments/{tid}/pairs/1"
            seen["own-card"] = signed_in_page(ann.driver, path)
            seen["other-card"] = signed_in_page(ann.driver, f"/v1/tournaments/{tid}/pairs/2")
            seen["own-board"] = signed_in_page(
                ann.driver, f"/v1/tournaments/{tid}/boards/{mine['boards'][0]}"
            )
            seen["other-board"] = signed_in_page(
                ann.driver, f"/v1/tournaments/{tid}/boards/{theirs['boards'][0]}"
            )
            cy.driver.get(page)  # Cy's event page between the rounds: his result
            wait_for(lambda: found(cy.driver, "#my-results tr[data-board]"), 30, "Cy: results")
            seen["cy-results"] = [r.text for r in found(cy.driver, "#my-results tr[data-board]")]
            seen["cy-between"] = cy.driver.find_element(By.ID, "entrant-state").text
            seen["results-widths"] = at_sizes(cy.driver, shots, "07-event-between-rounds")
            cy_pair = next(q["pair"] for q in seen["pairs"] if cy.id in q["players"])
            for key, url in (
                ("cy-board", f"{page}/boards/{mine['boards'][0]}"),
                ("cy-pair", f"{page}/pairs/{cy_pair}"),
                ("cy-other-board", f"{page}/boards/{theirs['boards'][0]}"),
            ):  # the pages that say "hidden" to others: shown to him by his key
                cy.driver.get(url)
                state = wait_for(lambda: cy.driver.execute_script(OWN_READ), 20, f"Cy: {key}")
                seen[key] = (state, bool(found(cy.driver, "#hidden")))
            cy.driver.get(f"{service.url}/play/{mine['id']}")
        for _ in range(400):  # now the bots play table 2
            if not bots._step(origin, theirs):
                break
        seen[f"moved-{rnd}"] = True
    wait_for(lambda: client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "over", 60, "the end")
    for p in people.values():  # each page goes to the results by itself
        wait_for(lambda p=p: "/tournaments/" in p.driver.current_url, 60, f"{p.name}: results")
        p.traffic.drain()
    client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
    return Played(service, tid, people, bots, shots, seen)


def signed_in_page(driver: WebDriver, path: str) -> int:
    """The status of a signed read made by the page's own key (entrant.js)."""
    return int(
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/static/js/entrant.js').then(async (m) => {"
            " const k = await import('/static/js/keys.js');"
            " const r = await m.request('GET', arguments[0], {identity: await k.loadIdentity()});"
            " done(r.status); });",
            path,
        )
    )


def test_four_people_enter_by_invitation_and_play_the_whole_event(played: Played) -> None:
    client = played.service.client()
    doc = client.call("GET", f"/v1/tournaments/{played.tid}")
    assert doc["phase"] == "over"
    ids = {p.name: p.id for p in played.people.values()}
    pairs = [set(p["players"]) for p in doc["pair_list"]]
    assert {ids["Ann"], ids["Bob"]} in pairs and {ids["Cy"], ids["Dee"]} in pairs
    # every person's registration and reveal were signed by the key made in their browser
    for p in played.people.values():
        chain = client.call("GET", f"/v1/tournaments/{played.tid}/events?entrant={p.id}")["events"]
        kinds = [e["event"]["type"] for e in chain]
        assert kinds == ["tournament_register", "tournament_reveal"], (p.name, kinds)
        assert {e["event"]["actor"] for e in chain} == {p.id}
        # the people played every card of their boards themselves
        for table in p.tables:
            events = client.call("GET", f"/v1/tables/{table}/hands/1/events")["events"]
            plays = [
                e for e in events if e["event"]["actor"] == p.id and e["event"]["type"] == "play"
            ]
            assert len(plays) == 13, (p.name, table, len(plays))
    assert len({t for p in played.people.values() for t in p.tables}) == 2  # moved on once
    seen = played.seen
    assert re.match(
        r"Now: round 1, table 1, seat \w+ \([NESW]\), against .+ \(pair \d\)", seen["now"]
    ), seen["now"]
    assert "Round 2 starts when every table has finished" in seen["between-1"]
    assert "results are published when every table has finished" in seen["between-2"]


def test_each_sees_their_own_results_during_the_event_and_no_one_elses(played: Played) -> None:
    seen = played.seen
    assert seen["own-card"] == 200 and seen["own-board"] == 200
    assert seen["other-card"] == 403 and seen["other-board"] == 403
    assert len(seen["cy-results"]) == 1, seen["cy-results"]  # his board, as soon as played
    assert "your table has finished its boards" in seen["cy-between"]
    # the board and pair pages, hidden to others, are read with his key in his browser
    assert seen["cy-board"] == ("shown", False) and seen["cy-pair"] == ("shown", False)
    assert seen["cy-other-board"] == ("hidden", True)


def test_no_page_receives_another_seats_cards_before_they_are_played(played: Played) -> None:
    for p in played.people.values():
        no_unplayed_cards(p)


def no_unplayed_cards(p: Person) -> None:
    """Every stream message and JSON body ``p``'s pages received holds no card of another
    seat before it was played (a hand's own end, record or proof aside)."""
    traffic = p.traffic
    dealt: dict[tuple[str, int], set[str]] = {}
    states = [json.loads(m) for m in traffic.messages]
    states = [m for m in states if "hand" in m]
    assert states, p.name
    for msg in states:
        hand, cards = msg["hand"], msg["cards"]
        own = set(cards["dealt"] or [])
        dealt.setdefault((hand["table"], hand["hand"]), set()).update(own)
        allowed = set(own)
        if hand["play"]:
            allowed.add(hand["play"]["cayenne"])
            allowed |= {c for t in hand["play"]["tricks"] for c in t["cards"]}
        leaked = set(CARD.findall(json.dumps({"hand": hand, "cards": cards}))) - allowed
        assert not leaked, (p.name, hand["hand"], hand["phase"], leaked)
    assert all(len(v) >= 12 for v in dealt.values()), (p.name, dealt)
    for url, body in traffic.bodies:
        path = url.split("?")[0]
        if path.endswith(("/record", "/proof", "/report")) or "/certificate" in path:
            continue  # a finished hand's, fetched after its end; the event's, at the end
        doc = json.loads(body)
        listed = doc.get("hands") if isinstance(doc, dict) else None
        hands = listed if isinstance(listed, list) else [doc]
        for h in hands:
            if not isinstance(h, dict) or "phase" not in h:
                continue
            allowed = set(dealt.get((h.get("table", ""), h.get("hand", 0)), set()))
            if h.get("play"):
                allowed.add(h["play"]["cayenne"])
                allowed |= {c for t in h["play"]["tricks"] for c in t["cards"]}
            leaked = set(CARD.findall(json.dumps(h))) - allowed
            assert not leaked or h["phase"] == "over", (p.name, url, leaked)


def test_the_pages_fit_a_phone(played: Played) -> None:
    seen = played.seen
    for key in ("enter", "invited", "paired", "now-widths", "between-1-widths", "results-widths"):
        assert all(doc <= win for doc, win in seen[key]), (key, seen[key])


def test_each_person_verifies_the_certificate_in_their_browser(played: Played) -> None:
    for p in played.people.values():
        d = p.driver
        d.get(f"{played.service.url}/tournaments/{played.tid}/certificate")
        wait_for(lambda d=d: d.find_element(By.ID, "verify-key").text, 20, "the page's key")
        d.find_element(By.ID, "verify-start").click()
        result = wait_for(lambda d=d: found(d, "#verify-result"), 120, "the checks")[0]
        assert "verified" in (result.get_attribute("class") or ""), (p.name, result.text)
    shot(played.people["Dee"].driver, played.shots, "08-certificate-verified")


def test_a_partner_invited_by_name_accepts_and_an_entrant_withdraws_in_the_page(
    played: Played,
) -> None:
    client = played.service.client()
    spec = {**SPEC, "name": "Second pairs", "tables": 1, "rounds": 1}
    tid = str(client.call("POST", "/v1/tournaments", spec, client.admin())["id"])
    _admin(client, f"/v1/tournaments/{tid}/registration", {"open": True})
    page = f"{played.service.url}/tournaments/{tid}"
    ann, bob = played.people["Ann"], played.people["Bob"]
    ann.driver.get(page)
    wait_for(lambda: found(ann.driver, "#partner-name"), 20, "Ann: the form")
    ann.driver.find_element(By.ID, "partner-name").send_keys("Bob")
    ann.driver.find_element(By.ID, "invite-by-name").click()
    wait_for(lambda: event_state(ann.driver) == "invited", 20, "Ann: invited Bob")
    bob.driver.get(page)  # no link, no code: the invitation shows on his page by his key
    offer = wait_for(lambda: found(bob.driver, ".accept-invitation"), 20, "Bob: the offer")[0]
    assert "Ann invites you" in bob.driver.find_element(By.CSS_SELECTOR, ".offer").text
    offer.click()
    for p in (ann, bob):
        wait_for(lambda p=p: event_state(p.driver) == "paired", 30, f"{p.name}: paired")
    ann.driver.find_element(By.ID, "withdraw").click()
    ann.driver.switch_to.alert.accept()  # "Withdraw from this event? ..."
    wait_for(lambda: event_state(ann.driver) == "withdrawn", 20, "Ann: withdrawn")
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert doc["removed"] == [ann.id]
    # her own signed withdrawal, in her chain after her registration
    path = f"/v1/tournaments/{tid}/events?entrant={ann.id}"
    first, last = (e["event"] for e in client.call("GET", path)["events"])
    assert last["type"] == "tournament_leave" and last["body"]["entrant"] == ann.id
    assert last["actor"] == ann.id and last["key"] == first["key"]
    # Bob's page says his partner has withdrawn
    wait_for(
        lambda: "has withdrawn" in bob.driver.find_element(By.ID, "entrant-state").text,
        20,
        "Bob: told",
    )
