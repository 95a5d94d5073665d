"""The clock shown at the table, in Chromium: a round robin with a time control of a few
seconds a hand, one of whose players does the shuffle ceremony and then stops. The
spectators' page of the table (api/static/js/table.js) shows a clock on every seat; the
stalled seat's counts down, turns to the warning, then shows the house playing it, and
the screen reader is told."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.tournament_bot import TournamentBots

from .conftest import Running, start_service, stop_service
from .test_clock import wait_for
from .test_play_browser import borrowed, shot
from .test_tournament_certificate import BEACON

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("clock_browser")]

SECONDS, WARNING = 8, 4
ROBIN = {
    "name": "Clocked robin",
    "format": "rubber-round-robin",
    "pairs": 2,
    "hands_per_match": 2,
    "clock": {"seconds": SECONDS, "warning": WARNING},
}


class Stall(Exception):
    """The stalled player's turn to call or play: it does nothing."""


class Stalling(TournamentBots):
    """Bots one of whose players shuffles (commits, reveals) and never calls or plays."""

    stalled = ""

    def _action(
        self, table_id: str, number: int, seat: str, ident: Any, phase: str
    ) -> tuple[str, dict[str, Any]]:
        if ident.id == self.stalled and phase in ("calling", "playing"):
            raise Stall
        return super()._action(table_id, number, seat, ident, phase)

    def _step(self, origin: str, sitting: dict[str, Any], *, once: bool = False) -> bool:
        try:
            return super()._step(origin, sitting, once=once)
        except Stall:
            return False


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    service = start_service(tmp_path_factory.mktemp("clockpage"))
    try:
        yield service
    finally:
        stop_service(service)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with borrowed() as (driver,):
        yield driver


def clocks(driver: WebDriver) -> dict[str, dict[str, str]]:
    """Each seat's clock as the page shows it (read in one script: the page redraws)."""
    got: dict[str, dict[str, str]] = driver.execute_script(
        """const out = {};
        for (const e of document.querySelectorAll("[data-clock]")) {
          out[e.dataset.clock] = {text: e.textContent, class: e.className,
                                  label: e.getAttribute("aria-label")};
        }
        return out;"""
    )
    return got


def director_signs_in(driver: WebDriver, site: Running) -> None:
    """A director's key made in the console, granted by the operator."""
    client = site.client()
    driver.get(f"{site.url}/director")
    wait_for("the console", lambda: driver.execute_script("return document.body.dataset.ready"))
    driver.find_element(By.ID, "key-name").send_keys("clockwatch")
    driver.find_element(By.ID, "create-key").click()
    key = wait_for("the key", lambda: driver.find_element(By.ID, "public-key").text, 10)
    client.call("POST", "/v1/directors", {"public_key": key}, client.admin())


def live_clock(driver: WebDriver) -> str:
    got: str = driver.execute_script(
        """const td = document.querySelector("#live-tables td[data-label='Clock']");
        return td ? td.textContent : "";"""
    )
    return got


def stalled_robin(client: Any) -> list[dict[str, Any]]:
    """The clocked round robin, with its first dealer stalled, played to its end without a
    browser: its tables."""
    bots = Stalling.open(client, ROBIN, 2, random.Random(3), BEACON)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{bots.tid}"))
    doc = wait_for(
        "round 1",
        lambda: (d := client.call("GET", f"/v1/tournaments/{bots.tid}"))["rounds_played"] and d,
    )
    sitting = doc["rounds_played"][0]["tables"][0]
    dealer = client.call("GET", f"/v1/tables/{sitting['id']}/hands/1")["dealer"]
    bots.stalled = sitting["seats"][dealer]
    bots.run(timeout=120)
    doc = client.call("GET", f"/v1/tournaments/{bots.tid}")
    assert doc["phase"] == "over", doc["phase"]
    return [t for r in doc["rounds_played"] for t in r["tables"]]


def test_the_table_shows_every_seats_clock_and_the_house_taking_a_silent_seat(
    site: Running, browser: WebDriver, tmp_path: Path
) -> None:
    browser.set_window_size(1280, 900)
    director_signs_in(browser, site)
    client = site.client()
    bots = Stalling.open(client, ROBIN, 2, random.Random(3), BEACON)
    tid = bots.tid
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = wait_for(
        "round 1",
        lambda: (d := client.call("GET", f"/v1/tournaments/{tid}"))["rounds_played"] and d,
    )
    sitting = doc["rounds_played"][0]["tables"][0]
    table = sitting["id"]
    hand = client.call("GET", f"/v1/tables/{table}/hands/1")
    dealer = hand["dealer"]  # the dealer calls first: he is the one who stops
    bots.stalled = sitting["seats"][dealer]
    runner = threading.Thread(target=bots.run, kwargs={"timeout": 120}, daemon=True)
    runner.start()

    # The director's console watches the table's clock: the dealer's runs.
    browser.get(f"{site.url}/director?event={tid}")
    watched = wait_for(
        "the clock in the console's watch",
        lambda: f"\u25b8{dealer} " in (t := live_clock(browser)) and t,
        timeout=30,
    )
    assert all(f"{s} " in watched for s in ("N", "E", "S", "W")), watched
    browser.execute_script("document.getElementById('live-tables').scrollIntoView()")
    shot(browser, tmp_path, "clock-director-watch")

    # The spectators' page: a clock on every seat; the dealer's counts down, is warned,
    # then shows the house playing it.
    browser.get(f"{site.url}/tables/{table}")
    browser.execute_script(
        """window.said = [];
        new MutationObserver(() => window.said.push(document.getElementById("announce").textContent))
          .observe(document.getElementById("announce"), {childList: true, characterData: true, subtree: true});"""
    )
    seen = wait_for(
        "a clock on every seat",
        lambda: (c := clocks(browser)) and set(c) == {"N", "E", "S", "W"} and c,
        timeout=30,
    )
    assert all(c["text"] == "house" or ":" in c["text"] for c in seen.values()), seen
    wait_for("the dealer's clock running", lambda: "running" in clocks(browser)[dealer]["class"])
    first = clocks(browser)[dealer]["text"]
    wait_for("the clock counting down", lambda: clocks(browser)[dealer]["text"] != first, 10)
    wait_for("the warning", lambda: "warned" in clocks(browser)[dealer]["class"], 30)
    shot(browser, tmp_path, "clock-warned")
    wait_for("the house", lambda: clocks(browser)[dealer]["text"] == "house", 30)
    assert "played by the house" in clocks(browser)[dealer]["label"]
    said = " ".join(browser.execute_script("return window.said"))
    assert "seconds left" in said and "time ran out: the house plays that seat" in said, said
    shot(browser, tmp_path, "clock-house")
    browser.set_window_size(390, 844)
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, width
    shot(browser, tmp_path, "clock-phone")
    browser.set_window_size(1280, 900)
    runner.join(120)
    assert client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "over"

    # The console's findings: the house's hands, each linked to its table.
    browser.get(f"{site.url}/director?event={tid}")
    wait_for("the console", lambda: browser.execute_script("return document.body.dataset.ready"))
    browser.find_element(By.ID, "refresh-findings").click()
    item = wait_for(
        "the clock's mark in the findings",
        lambda: browser.execute_script(
            """const li = document.querySelector("#findings li[data-code='HOUSE_PLAYED']");
            return li && {text: li.textContent, links: [...li.querySelectorAll("a")].map((a) => a.href)};"""
        ),
    )
    assert "played by the house after the clock ran out" in item["text"], item
    assert any(link.endswith(f"/tables/{table}") for link in item["links"]), item
    browser.execute_script("document.getElementById('findings').scrollIntoView()")
    shot(browser, tmp_path, "clock-director-findings")


def test_the_hand_page_verifier_accepts_the_house_after_the_expiry(
    site: Running, tmp_path: Path
) -> None:
    """The hand page's own check (api/static/js/hand.js, in Node) of a round-robin hand
    the house finished: the server's calls and cards stand after the seat's expiry."""
    from tests.js.test_verify_hand import run_verify

    client = site.client()
    done = [
        t
        for e in client.call("GET", "/v1/tournaments")["tournaments"]
        if e["name"] == ROBIN["name"]
        for r in client.call("GET", f"/v1/tournaments/{e['id']}")["rounds_played"]
        for t in r["tables"]
    ]
    if not done:  # the test above did not run in this process: a robin of its own, headless
        done = stalled_robin(client)
    table = done[0]["id"]
    path = f"/v1/tables/{table}/hands/1"
    events = [i["event"] for i in client.call("GET", f"{path}/events")["events"]]
    assert any(e["actor"] == "server" and e["type"] == "play" for e in events)
    bundle = client.call("GET", f"{path}/proof")
    record = client.call("GET", f"{path}/record")
    (tmp_path / "record.json").write_text(json.dumps(record))
    key = site.app.extensions["fairplay"].hand_log.signer.verifier_key()
    verdict = run_verify(tmp_path, bundle, key, "--record", str(tmp_path / "record.json"))
    assert verdict["ok"], [c for c in verdict["checks"] if not c["ok"]]
