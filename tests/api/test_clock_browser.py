"""The clock shown at the table, in Chromium: a round robin with a time control of a few
seconds a hand, one of whose players does the shuffle ceremony and then stops. The
spectators' page of the table (api/static/js/table.js) shows a clock on every seat; the
stalled seat's counts down, turns to the warning, then shows the house playing it, and
the screen reader is told."""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.tournament_bot import TournamentBots

from .conftest import Running, start_service, stop_service
from .test_play_browser import new_driver, shot
from .test_tournament_certificate import BEACON

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("clock_browser")]

SECONDS, WARNING = 6, 3
ROBIN = {
    "name": "Clocked robin",
    "format": "rubber-round-robin",
    "pairs": 2,
    "hands_per_match": 1,
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


def wait_for(what: str, test: Any, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = test()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"not seen in {timeout} s: {what}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    service = start_service(tmp_path_factory.mktemp("clockpage"))
    try:
        yield service
    finally:
        stop_service(service)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with tempfile.TemporaryDirectory() as profile:
        driver = new_driver(profile)
        try:
            yield driver
        finally:
            driver.quit()


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


def test_the_table_shows_every_seats_clock_and_the_house_taking_a_silent_seat(
    site: Running, browser: WebDriver, tmp_path: Path
) -> None:
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
    runner = __import__("threading").Thread(target=bots.run, kwargs={"timeout": 120}, daemon=True)
    runner.start()

    browser.set_window_size(1280, 900)
    browser.get(f"{site.url}/tables/{table}")
    seen = wait_for(
        "a clock on every seat, the dealer's running",
        lambda: (c := clocks(browser))
        and set(c) == {"N", "E", "S", "W"}
        and "running" in c[dealer]["class"]
        and c,
        timeout=60,
    )
    for seat, c in seen.items():
        assert c["text"] == "house" or ":" in c["text"], seen
    first = seen[dealer]["text"]
    # it counts down, then warns, then the house takes the seat
    wait_for("the clock counting down", lambda: clocks(browser)[dealer]["text"] != first, 10)
    wait_for("the warning", lambda: "warned" in clocks(browser)[dealer]["class"], 30)
    shot(browser, tmp_path, "clock-warned")
    wait_for("the house", lambda: clocks(browser)[dealer]["text"] == "house", 30)
    said = browser.find_element(By.ID, "announce").get_attribute("textContent")
    assert "time ran out" in said or "house" in clocks(browser)[dealer]["label"], said
    assert "played by the house" in clocks(browser)[dealer]["label"]
    shot(browser, tmp_path, "clock-house")
    browser.set_window_size(390, 844)
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, width
    shot(browser, tmp_path, "clock-phone")
    runner.join(120)
    assert client.call("GET", f"/v1/tournaments/{tid}")["phase"] == "over"
