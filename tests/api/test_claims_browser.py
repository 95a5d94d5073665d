"""A claim at the live table, in real browsers (Selenium, Chromium): two people, each with
a key made in their own browser, sit at S and E of a table whose N and W are played by
signed API calls. S claims with the page's claim button; E's page shows S's cards and
E refuses; the play goes on; S claims again, W accepts by the API and E in the page, and
the hand ends with the claim, verified in both browsers. Every JSON body and stream
message each page received before the end is checked: no card the page's player may not
see (E: S's cards, shown for the claim, besides E's own and the cards played).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.ceremony import seat_commitment
from api.client import ApiCallError, Identity
from audit.rules.cards import Seat
from tests.api.conftest import ADMIN, Running

from .helpers import Table
from .test_play_browser import Traffic, borrowed, found, shot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("claims_browser")]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
PEOPLE = ("S", "E")
MACHINES = ("N", "W")


@pytest.fixture(scope="module")
def claim_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    from tests.api.serving import TestServer

    app = create_app(
        {
            "data_dir": str(tmp_path_factory.mktemp("claim-site")),
            "admin_token": ADMIN,
            "testing": True,
            "self_registration": True,
            "bot_tables": True,  # the /play page's "registered" cue is its bot-table button
            "register_per_hour": 0,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Running(app, f"http://127.0.0.1:{server.server_port}", server)
    server.shutdown()
    app.extensions["fairplay"].close()


@pytest.fixture(scope="module")
def two_browsers() -> Iterator[dict[str, WebDriver]]:
    with borrowed(2) as (south, east):
        yield {"S": south, "E": east}


def _person(driver: WebDriver, url: str) -> str:
    """A key made in the browser and registered; the player's id."""
    driver.get(f"{url}/play")
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready"), 10, "page")
    driver.find_element(By.ID, "create-key").click()
    wait_for(lambda: [e for e in found(driver, "#backup-link") if e.is_displayed()], 10)
    player = driver.find_element(By.ID, "player-id").text
    driver.find_element(By.ID, "register").click()
    wait_for(lambda: driver.find_element(By.ID, "play-bots").is_enabled(), 10, "registered")
    return player


def _click(driver: WebDriver, css: str) -> bool:
    try:
        hits = found(driver, css)
        if hits:
            hits[0].click()
            return True
    except (
        StaleElementReferenceException,
        ElementClickInterceptedException,
        ElementNotInteractableException,
    ):
        pass
    return False


class Game:
    def __init__(self, site: Running, drivers: dict[str, WebDriver], tmp: Path) -> None:
        self.site, self.drivers, self.tmp = site, drivers, tmp
        self.traffic = {s: Traffic(d) for s, d in drivers.items()}
        client = site.client()
        ids = {s: _person(d, site.url) for s, d in drivers.items()}
        machines = {s: Identity.generate(f"claim-{s}") for s in MACHINES}
        for s, ident in machines.items():
            client.register(ident, f"claim-{s}")
        seats = {**ids, **{s: i.id for s, i in machines.items()}}
        table = client.create_table(seats, name="claims")
        self.t = Table(client, site.origin, table["id"], machines)
        for d in drivers.values():
            d.get(f"{site.url}/play/{self.t.id}")

    def hand(self) -> dict[str, Any]:
        return self.t.hand()

    @staticmethod
    def done(h: dict[str, Any]) -> int:
        play = h["play"]
        return 0 if play is None else sum(1 for x in play["tricks"] if len(x["cards"]) == 4)

    def step(self, h: dict[str, Any]) -> None:
        """One action of whoever the hand ``h`` waits for (the machines by the API, the
        people by a click in their page); a machine's action that a person's overtook is
        retried."""
        try:
            self._step(h)
        except ApiCallError as exc:
            if exc.error_code != "REPLAYED_EVENT":
                raise

    def _step(self, h: dict[str, Any]) -> None:
        seat = h["waiting_for"][0] if h["waiting_for"] else None
        machines = [x for x in h["waiting_for"] if x in MACHINES]
        if h["phase"] in ("committing", "revealing") and machines:
            seat = machines[0]
        if h["phase"] == "committing" and seat in MACHINES:
            self.t.seeds[seat] = secrets.token_bytes(32)
            c = seat_commitment(
                self.t.seeds[seat], Seat.parse(seat), self.t.players[seat].id, self.t.id, 1
            )
            self.t.act(seat, "commit", {"commitment": c})
        elif h["phase"] == "revealing" and seat in MACHINES:
            self.t.act(seat, "reveal", {"seed": self.t.seeds[seat].hex()})
        elif h["phase"] == "calling" and seat in MACHINES:
            self.t.act(seat, "call", {"call": "grand"})
        elif h["phase"] == "playing" and seat in MACHINES:
            self.t.act(seat, "play", {"card": self.t.cards(seat)["legal_plays"][0]})
        elif seat in PEOPLE:
            d = self.drivers[seat]
            _click(d, "#actions button.call") or _click(d, "#my-hand button.playable")
        time.sleep(0.05)

    def play_to(self, tricks: int) -> None:
        """Play until ``tricks`` tricks are complete, and not a card more: each step acts on
        the same reading of the hand that says the tricks are not yet reached (a person's
        card can land between two readings, and a machine's step read after it would open
        the next trick, where no claim may be made)."""
        deadline = time.monotonic() + 120
        while self.done(h := self.hand()) < tricks:
            assert time.monotonic() < deadline, f"trick {tricks} not reached"
            self.step(h)

    def drain(self) -> None:
        for t in self.traffic.values():
            t.drain()


@pytest.fixture(scope="module")
def game(
    claim_site: Running,
    two_browsers: dict[str, WebDriver],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("claim-shots")
    g = Game(claim_site, two_browsers, tmp)
    s, e = two_browsers["S"], two_browsers["E"]
    out: dict[str, Any] = {"game": g}
    g.play_to(3)
    # S claims every trick left: E's page shows S's cards and E refuses
    wait_for(lambda: found(s, "#claim-form"), 60, "S's claim form")
    Select(s.find_element(By.ID, "claim-tricks")).select_by_value("10")
    s.find_element(By.ID, "claim-button").click()
    wait_for(lambda: found(e, "#claim-refuse"), 60, "E's answer buttons")
    out["shown_first"] = [c.get_attribute("data-card") for c in found(e, "#claim-cards .card")]
    out["s_sees_cards"] = bool(found(s, "#claim-cards"))
    out["s_buttons"] = bool(found(s, "#claim-accept"))
    shot(e, tmp, "claim-shown-1280")
    out["e_widths"] = []
    for w, h in ((390, 844), (1400, 1700)):
        e.set_window_size(w, h)
        time.sleep(0.3)
        e.execute_script("document.getElementById('claim-box').scrollIntoView()")
        shot(e, tmp, f"claim-shown-{w}")
        out["e_widths"].append(
            (
                e.execute_script("return document.documentElement.scrollWidth"),
                e.execute_script("return window.innerWidth"),
            )
        )
    e.find_element(By.ID, "claim-refuse").click()
    wait_for(lambda: g.hand()["play"]["claim"] is None, 60, "the refusal")
    out["refused_said"] = wait_for(
        lambda: "refused" in s.find_element(By.ID, "status").text, 60, "S told of the refusal"
    )
    out["after_refusal"] = g.hand()["waiting_for"]
    g.play_to(5)
    # S claims again (by keyboard this time); W accepts by the API, E in the page
    wait_for(lambda: found(s, "#claim-form"), 60, "S's claim form again")
    Select(s.find_element(By.ID, "claim-tricks")).select_by_value("4")
    s.find_element(By.ID, "claim-button").send_keys(Keys.ENTER)
    wait_for(lambda: found(e, "#claim-accept"), 60, "E's answer buttons again")
    out["shown_second"] = [c.get_attribute("data-card") for c in found(e, "#claim-cards .card")]
    g.t.act("W", "claim_answer", {"accept": True})
    time.sleep(0.5)
    g.drain()  # everything the pages received before the end
    out["before_end"] = {side: (list(t.bodies), list(t.messages)) for side, t in g.traffic.items()}
    wait_for(lambda: _click(e, "#claim-accept"), 60, "E accepts")
    deadline = time.monotonic() + 60
    while g.t.hand()["phase"] != "over":
        assert time.monotonic() < deadline, "the hand did not end"
        time.sleep(0.2)
    for side, d in two_browsers.items():
        wait_for(lambda d=d: found(d, '#verify-result[data-hand="1"]'), 60, f"{side} verified")
        out[f"verified_{side}"] = d.find_element(By.ID, "verify-result").get_attribute("class")
        out[f"claimed_{side}"] = d.find_element(By.ID, "claimed-hand").text
        shot(d, tmp, f"claimed-{side}")
    out["record"] = g.t.client.call("GET", f"/v1/tables/{g.t.id}/hands/1/record")
    return out


def test_the_claimer_s_cards_are_shown_to_the_adversary_who_refuses(game: dict[str, Any]) -> None:
    rec = game["record"]["hands"][0]
    played_by_s_first = {c for t in rec["tricks"][:3] for c in t["cards"]} & set(rec["deal"]["S"])
    assert sorted(game["shown_first"]) == sorted(set(rec["deal"]["S"]) - played_by_s_first)
    assert not game["s_sees_cards"] and not game["s_buttons"]  # the claimer answers nothing
    assert game["after_refusal"]  # the play went on
    for doc, win in game["e_widths"]:
        assert doc <= win, (doc, win)


def test_an_accepted_claim_ends_the_hand_verified_in_both_browsers(game: dict[str, Any]) -> None:
    rec = game["record"]["hands"][0]
    assert len(rec["tricks"]) == 5
    assert rec["claim"]["claimer"] == "S" and rec["claim"]["tricks"] == 4
    assert sorted(rec["claim"]["agreed"]) == ["E", "W"]
    played = {c for t in rec["tricks"] for c in t["cards"]}
    assert sorted(game["shown_second"]) == sorted(set(rec["deal"]["S"]) - played)
    for side in PEOPLE:
        assert game[f"verified_{side}"] == "verified"
        assert "Ended by a claim" in game[f"claimed_{side}"]


def test_no_page_received_a_card_it_may_not_see(game: dict[str, Any]) -> None:
    rec = game["record"]["hands"][0]
    played = {c for t in rec["tricks"] for c in t["cards"]} | {rec["cayenne"]}
    may_see = {
        "S": set(rec["deal"]["S"]) | played,
        "E": set(rec["deal"]["E"]) | set(rec["deal"]["S"]) | played,
    }
    for side, (bodies, messages) in game["before_end"].items():
        seen: set[str] = set()
        for _, body in bodies:
            seen |= set(CARD.findall(body))
        for msg in messages:
            seen |= set(CARD.findall(msg))
        assert seen, side
        assert seen <= may_see[side], (side, sorted(seen - may_see[side]))


def test_two_seats_chat_in_their_browsers_as_text(game: dict[str, Any]) -> None:
    """S writes (Enter in the labelled field), E reads it and answers; a message that is
    HTML shows as text, and each is in the log signed by its writer."""
    g: Game = game["game"]
    s, e = g.drivers["S"], g.drivers["E"]
    hostile = '<img src=x onerror="document.body.dataset.owned=1">hello <b>all</b>'
    box = wait_for(lambda: [x for x in found(s, "#chat-text") if x.is_displayed()], 60, "S's chat")
    label = s.find_element(By.CSS_SELECTOR, "label[for='chat-text']").text
    assert label == "Message to the table"
    box[0].send_keys(hostile, Keys.ENTER)
    said = wait_for(lambda: found(e, "#chat-log li .chat-text"), 60, "E reads it")
    assert said[0].text == hostile
    assert not found(e, "#chat-log img, #chat-log b b") and not e.execute_script(
        "return document.body.dataset.owned"
    )
    wait_for(lambda: found(e, "#chat-text"), 60)[0].send_keys("Thank you, partner", Keys.ENTER)
    wait_for(lambda: len(found(s, "#chat-log li")) == 2, 60, "S reads E's answer")
    seats = [li.get_attribute("data-seat") for li in found(s, "#chat-log li")]
    assert seats == ["S", "E"]
    assert found(s, "#chat-log li")[0].text.startswith("You:")
    logged = g.site.app.extensions["fairplay"].hand_log.log.hand_events(g.t.id, "chat")
    assert [x["event"]["body"]["text"] for x in logged] == [hostile, "Thank you, partner"]
    s.set_window_size(390, 844)
    time.sleep(0.3)
    s.execute_script("document.getElementById('chat').scrollIntoView()")
    shot(s, g.tmp, "chat-390")
    width = s.execute_script("return document.documentElement.scrollWidth")
    s.set_window_size(1400, 1700)
    assert width <= 390


@pytest.mark.parametrize("chat", [False, True])
def test_an_events_table_has_chat_in_the_page_only_when_the_event_turned_it_on(
    claim_site: Running, tmp_path: Path, chat: bool
) -> None:
    """A seated player of an event's table (the key brought to the browser by its backup
    file): the chat panel says it is off, unless the event was created with chat on,
    where the player writes to the table from the page."""
    from .test_chat import _event_table

    t = _event_table(claim_site, chat or None)
    north = t.players["N"]
    backup = tmp_path / "backup.txt"
    backup.write_text(north.signer.private_key_text() + "\n")
    with borrowed() as (d,):
        d.get(f"{claim_site.url}/play")
        wait_for(lambda: d.execute_script("return document.body.dataset.ready"), 10, "page")
        d.find_element(By.ID, "backup-file").send_keys(str(backup))
        wait_for(lambda: d.find_element(By.ID, "player-id").text == north.id, 20, "key")
        d.get(f"{claim_site.url}/play/{t.id}")
        wait_for(lambda: [x for x in found(d, "#chat") if x.is_displayed()], 60, "chat")
        off = d.find_element(By.ID, "chat-off").is_displayed()
        form = d.find_element(By.ID, "chat-form").is_displayed()
        assert (off, form) == (not chat, chat)
        if chat:
            d.find_element(By.ID, "chat-text").send_keys("Good luck, all", Keys.ENTER)
            said = wait_for(lambda: found(d, "#chat-log li .chat-text"), 60, "the message")
            assert said[0].text == "Good luck, all"
