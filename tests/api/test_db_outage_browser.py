"""A person playing in the browser rides out a database outage (issue 24): Chromium on a
real ``fairplay serve`` host of the private cluster of tests/api/test_db_outage.py. The
person makes a key, registers and sits down against the house bots; mid-hand the
database stops, and the person clicks a card while it is down. The page's request meets
the 503 and is asked again with backoff (``api/static/js/retry.js``) until the database
is back, 6 s later; the card is played once, the house bots go on, and the page plays the
hand to its end and verifies it, with no reload and no restart of the host.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.test_db_outage import Cluster, verify_log
from tests.api.test_two_hosts import Host

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from tests.api.test_play_browser import borrowed, found, wait_for  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.destroy()


@pytest.fixture
def host(cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MIN", "0.05")
    monkeypatch.setenv("FAIRPLAY_DB_BACKOFF_MAX", "0.5")
    monkeypatch.setenv("FAIRPLAY_SELF_REGISTRATION", "1")
    monkeypatch.setenv("FAIRPLAY_BOT_TABLES", "1")
    monkeypatch.setenv("FAIRPLAY_BOT_PACE", "0.05")
    h = Host(cluster.url, tmp_path)
    try:
        yield h.wait_ready()
    finally:
        h.stop()


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with borrowed() as (driver,):
        yield driver


def statuses(driver: WebDriver) -> list[tuple[int, str, str]]:
    """(status, method, url) of every response the page received since the last call."""
    methods: dict[str, str] = {}
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        params = msg.get("params", {})
        if msg["method"] == "Network.requestWillBeSent":
            methods[params["requestId"]] = params["request"]["method"]
        elif msg["method"] == "Network.responseReceived":
            resp = params["response"]
            out.append((int(resp["status"]), methods.get(params["requestId"], "?"), resp["url"]))
    return out


def test_a_player_in_the_browser_rides_out_an_outage(
    cluster: Cluster, host: Host, browser: WebDriver
) -> None:
    browser.get(f"{host.url}/play")
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready"), 10, "page")
    browser.find_element(By.ID, "create-key").click()
    wait_for(lambda: [e for e in found(browser, "#backup-link") if e.is_displayed()], 10)
    # the page asks whether the key is registered before it enables the button
    wait_for(lambda: browser.find_element(By.ID, "register").is_enabled(), 30, "register")
    browser.find_element(By.ID, "register").click()
    wait_for(lambda: browser.find_element(By.ID, "play-bots").is_enabled(), 30, "registered")
    browser.find_element(By.ID, "play-bots").click()
    wait_for(lambda: "/play/t-" in browser.current_url, 30, "the table page")
    seen = statuses(browser)
    played = 0
    outage_click = False
    deadline = time.monotonic() + 180
    while not found(browser, '#verify-result[data-hand="1"]'):
        assert time.monotonic() < deadline, "hand 1 did not end in time"
        body = browser.find_element(By.TAG_NAME, "body")
        phase, hand = body.get_attribute("data-phase"), body.get_attribute("data-hand")
        try:
            if hand == "1" and phase == "calling" and found(browser, "#actions button.call"):
                found(browser, "#actions button.call")[0].click()
            elif hand == "1" and found(browser, "#actions button.call"):  # nullo: an ace
                found(browser, "#actions button.call")[-1].click()  # declared high
            elif hand == "1" and found(browser, "#my-hand button.playable"):
                card = found(browser, "#my-hand button.playable")[0]
                if played == 2 and not outage_click:
                    cluster.stop()  # the person's third card is clicked while it is down
                    try:
                        card.click()
                        if found(browser, "#ace-high"):  # a nullo's ace asks low or high
                            found(browser, "#actions button.call")[0].click()  # before sending
                        outage_click = True
                        time.sleep(6)
                        assert not found(browser, '#verify-result[data-hand="1"]')
                    finally:
                        cluster.start()
                else:
                    card.click()
                played += 1
        except (
            StaleElementReferenceException,
            ElementClickInterceptedException,
            ElementNotInteractableException,
        ):
            pass  # the page redrew under the click: look again
        seen += statuses(browser)
        time.sleep(0.15)
    assert outage_click, "no card was clicked during the outage"
    wait_for(lambda: found(browser, "#verify-result"), 30, "verification")
    text = browser.find_element(By.ID, "verify-result").text
    assert "fail" not in text.lower(), text
    seen += statuses(browser)
    posts = [(s, u) for s, m, u in seen if m == "POST" and "/events" in u]
    assert any(s == 503 for s, _ in posts), posts  # the click met the outage...
    assert posts[-1][0] in (200, 201), posts  # ...and was answered once it was over
    assert not [(s, m, u) for s, m, u in seen if s >= 500 and s != 503], seen
    verify_log(cluster)
