"""A person plays in a real browser: Selenium drives Debian's Chromium and chromedriver.

One service per module (SQLite, a real socket, house bots at a fast pace). The person
makes a key in the page, registers, opens a table against three bots and plays a whole
hand by clicking; every response the page fetched (bodies read back through the Chrome
DevTools protocol) and every server-sent event it received is checked for another seat's
cards; the page verifies the hand with hand.js; then the server alters one logged event
after the fact and the page, reloaded, says the hand fails. The backup file made at
creation is read by the Python tools and imported in a second, fresh browser.

Screenshots go to the test's tmp dir, and to ``FAIRPLAY_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from audit.log.keys import Signer
from tests.api.conftest import ADMIN, Running

# one worker plays the hand once and starts one browser for every test of the module (make test's xdist)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("play_browser")]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (  # noqa: E402
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1400,1700",
]
CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
SQLITE_TRIGGERS = [f"log_entries_no_{op}" for op in ("update", "delete")]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    data = tmp_path_factory.mktemp("site")
    app = create_app(
        {
            "data_dir": str(data),
            "admin_token": ADMIN,
            "testing": True,
            "self_registration": True,
            "bot_tables": True,
            "bot_pace": 0.05,
            "bot_pause": 0.5,
            "register_per_hour": 0,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Running(app, f"http://127.0.0.1:{server.server_port}", server)
    server.shutdown()
    app.extensions["fairplay"].close()


def new_driver(profile: str) -> WebDriver:
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("chromium and chromium-driver are not installed (.ci/run installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(DRIVER))


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with tempfile.TemporaryDirectory() as profile:
        driver = new_driver(profile)
        try:
            yield driver
        finally:
            driver.quit()


class Traffic:
    """Every HTTP response body and server-sent event the page received (CDP Network)."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        self.responses: dict[str, dict[str, Any]] = {}
        self.bodies: list[tuple[str, str]] = []
        """(url, body) of every finished JSON response of the service."""
        self.messages: list[str] = []
        """The data of every server-sent event."""

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
                if resp is None or not resp["url"].startswith("http"):
                    continue
                if "json" not in resp.get("mimeType", ""):
                    continue
                try:
                    got = self.driver.execute_cdp_cmd(
                        "Network.getResponseBody", {"requestId": params["requestId"]}
                    )
                except Exception as exc:  # noqa: BLE001 - a body the browser no longer holds
                    if "/v1/tables/" in resp["url"]:  # a table's: every one is checked
                        raise AssertionError(f"no body for {resp['url']}: {exc}") from None
                    continue  # the browser's own favicon, or a page left behind

                self.bodies.append((resp["url"], got["body"]))


def shot(driver: WebDriver, tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.png"
    driver.save_screenshot(str(path))
    out = os.environ.get("FAIRPLAY_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(out) / path.name)
    return path


def wait_for(what: Callable[[], Any], timeout: float = 30, message: str = "") -> Any:
    """``what()``'s first true value; an element the page re-rendered while ``what`` read
    it (stale) counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = what()
        except StaleElementReferenceException:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting: {message}")
        time.sleep(0.1)


def found(driver: WebDriver, css: str) -> list[Any]:
    return list(driver.find_elements(By.CSS_SELECTOR, css))


@pytest.fixture(scope="module")
def played(
    site: Running, browser: WebDriver, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The person makes a key, registers, sits down against the bots and plays hand 1."""
    tmp = tmp_path_factory.mktemp("screens")
    traffic = Traffic(browser)
    browser.get(f"{site.url}/play")
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready"), 10, "page")
    browser.find_element(By.ID, "create-key").click()
    link = wait_for(lambda: [e for e in found(browser, "#backup-link") if e.is_displayed()], 10)[0]
    backup = browser.execute_script(
        "return fetch(arguments[0]).then(r => r.text())", link.get_attribute("href")
    )
    player = browser.find_element(By.ID, "player-id").text
    public_key = browser.find_element(By.ID, "public-key").text
    shot(browser, tmp, "01-key-made")
    browser.find_element(By.ID, "register").click()
    wait_for(lambda: browser.find_element(By.ID, "play-bots").is_enabled(), 10, "registered")
    browser.find_element(By.ID, "play-bots").click()
    wait_for(lambda: "/play/t-" in browser.current_url, 10, "the table page")
    table = browser.current_url.rsplit("/", 1)[1]
    traffic.drain()
    shots = {"calling": False, "playing": False}
    deadline = time.monotonic() + 180
    while not found(browser, '#verify-result[data-hand="1"]'):
        assert time.monotonic() < deadline, "hand 1 did not end in time"
        traffic.drain()
        phase = browser.find_element(By.TAG_NAME, "body").get_attribute("data-phase")
        hand = browser.find_element(By.TAG_NAME, "body").get_attribute("data-hand")
        try:
            if hand == "1" and phase == "calling" and found(browser, "#actions button.call"):
                if not shots["calling"]:
                    shots["calling"] = bool(shot(browser, tmp, "02-calling"))
                found(browser, "#actions button.call")[0].click()
            elif hand == "1" and found(browser, "#actions button.call"):  # nullo: an ace
                found(browser, "#actions button.call")[-1].click()  # declared high
            elif hand == "1" and found(browser, "#my-hand button.playable"):
                cards = found(browser, "#my-hand button.playable")
                if not shots["playing"] and len(found(browser, "#my-hand .card")) <= 9:
                    shots["playing"] = bool(shot(browser, tmp, "03-playing"))
                cards[0].click()
        except (
            StaleElementReferenceException,
            ElementClickInterceptedException,
            ElementNotInteractableException,
        ):
            pass  # the page redrew under the click: look again
        time.sleep(0.15)
    wait_for(lambda: found(browser, "#verify-result"), 30, "verification")
    time.sleep(0.5)
    traffic.drain()
    shot(browser, tmp, "04-verified")
    return {
        "table": table,
        "player": player,
        "public_key": public_key,
        "backup": backup,
        "traffic": traffic,
        "tmp": tmp,
    }


def test_a_person_plays_a_whole_hand_and_it_verifies_in_the_page(
    site: Running, browser: WebDriver, played: dict[str, Any]
) -> None:
    c = site.client()
    h1 = c.hand(played["table"], 1)
    assert h1["phase"] == "over" and h1["seats"]["S"] == played["player"]
    events = c.call("GET", f"/v1/tables/{played['table']}/hands/1/events")["events"]
    mine = [e["event"] for e in events if e["event"]["actor"] == played["player"]]
    kinds = [e["type"] for e in mine]
    assert kinds[:2] == ["commit", "reveal"] and kinds.count("play") == 13  # signed here
    assert {e["key"] for e in mine} == {played["public_key"]}
    result = browser.find_element(By.ID, "verify-result")
    assert "verified" in result.get_attribute("class"), result.text
    rows = found(browser, "table.checks tr")
    names = [r.get_attribute("data-check") for r in rows]
    assert names[:3] == ["log key", "bundle", "checkpoint"] and "deal" in names
    assert all(r.get_attribute("class") == "ok" for r in rows), [r.text for r in rows]
    # the last checkpoint is kept for the next verification's consistency check
    kept = browser.execute_script("return localStorage.getItem('cayenne-fairplay:last-checkpoint')")
    assert kept and kept.startswith(site.origin + "\n")
    verdict = browser.find_element(By.ID, "verdict").text
    assert (
        verdict
        == c.call("GET", f"/v1/tables/{played['table']}/hands/1/report")["report"]["verdict"]
    )


def test_the_page_never_receives_another_seats_cards(played: dict[str, Any]) -> None:
    traffic: Traffic = played["traffic"]
    states = [json.loads(m) for m in traffic.messages]
    states = [m for m in states if "hand" in m]
    assert len(states) > 30, "the page followed the hand by its stream"
    seen_own = False
    for msg in states:
        cards = msg["cards"]
        assert cards["seat"] == "S"  # the seat's own stream: S's cards only
        hand = msg["hand"]
        allowed = set(cards["dealt"] or [])
        seen_own |= bool(allowed)
        if hand["play"]:
            allowed.add(hand["play"]["cayenne"])
            allowed |= {c for t in hand["play"]["tricks"] for c in t["cards"]}
        unit = json.dumps({"hand": hand, "cards": cards})
        leaked = set(CARD.findall(unit)) - allowed
        assert not leaked, (hand["hand"], hand["phase"], leaked)
        if "previous" in msg:
            assert msg["previous"]["phase"] in ("over", "void")
    assert seen_own
    # every plain response the page fetched, before the hand was over
    record_url = f"/v1/tables/{played['table']}/hands/1/"
    dealt_s = next(set(m["cards"]["dealt"]) for m in states if m["cards"]["dealt"])
    for url, body in traffic.bodies:
        if url.split("?")[0].endswith(("/record", "/proof", "/report")) and record_url in url:
            continue  # fetched after the end, when the deal is public
        leaked = set(CARD.findall(body)) - dealt_s
        assert not leaked or "/hands/1/" not in url, (url, leaked)
    assert any("/events" in u for u, _ in traffic.bodies)  # the page's signed actions


def test_the_backup_is_a_key_the_tools_read_and_another_browser_imports(
    site: Running, played: dict[str, Any], tmp_path: Path
) -> None:
    signer = Signer.from_text(played["backup"])
    assert signer.verifier_key() == played["public_key"]
    backup = tmp_path / "backup.txt"
    backup.write_text(played["backup"])
    with tempfile.TemporaryDirectory() as profile:
        other = new_driver(profile)
        try:
            other.get(f"{site.url}/play")
            wait_for(lambda: other.execute_script("return document.body.dataset.ready"), 10)
            assert not found(other, "#player-id") or not other.find_element(By.ID, "player-id").text
            other.find_element(By.ID, "backup-file").send_keys(str(backup))
            wait_for(
                lambda: (
                    other.find_element(By.ID, "player-id").text
                    or other.find_element(By.ID, "key-status").text
                ),
                10,
                "imported key",
            )
            assert (
                other.find_element(By.ID, "key-status").text == "Key imported from the backup file."
            )
            assert other.find_element(By.ID, "player-id").text == played["player"]
            assert not other.find_element(By.ID, "backup-offer").is_displayed()  # offered once
            wait_for(lambda: other.find_element(By.ID, "play-bots").is_enabled(), 10)
            # the imported copy cannot be exported from this browser either
            extractable = other.execute_script(
                "const m = await import('/static/js/keys.js');"
                "return (await m.loadIdentity()).privateKey.extractable;"
            )
            assert extractable is False
        finally:
            other.quit()


def test_a_spectator_sees_the_table_live_and_the_last_hand_once_over(
    site: Running, browser: WebDriver, played: dict[str, Any]
) -> None:
    browser.get(f"{site.url}/tables/{played['table']}")
    wait_for(lambda: found(browser, "#last-deal .deal-seat.N"), 20, "the last hand's deal")
    wait_for(lambda: browser.find_element(By.ID, "verdict").text, 20, "the verdict")
    shot(browser, played["tmp"], "06-spectator")
    c = site.client()
    record = c.call("GET", f"/v1/tables/{played['table']}/hands/1/record")["hands"][0]
    north = browser.find_element(By.CSS_SELECTOR, "#last-deal .deal-seat.N").text
    assert all(c[0].replace("T", "10") in north for c in record["deal"]["N"])
    assert not found(browser, "#my-hand")  # a spectator holds no hand
    assert browser.find_element(By.ID, "phase").text  # the live hand is drawn


def test_an_event_altered_after_the_fact_is_caught_by_the_page(
    site: Running, browser: WebDriver, played: dict[str, Any]
) -> None:
    table = played["table"]
    db = Path(site.app.extensions["fairplay"].config.resolved_database_url[len("sqlite:///") :])
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        for name in SQLITE_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        idx, leaf = conn.execute(
            "SELECT idx, leaf FROM log_entries WHERE table_id = ? AND hand_id = '1' "
            "AND type = 'play' ORDER BY seq LIMIT 1",
            (table,),
        ).fetchone()
        text = bytes(leaf).decode()
        card = re.search(r'"card":"(..)"', text)
        assert card is not None
        other = "2C" if card.group(1) != "2C" else "3C"
        forged = text.replace(card.group(0), f'"card":"{other}"').encode()
        conn.execute("UPDATE log_entries SET leaf = ? WHERE idx = ?", (forged, idx))
    finally:
        conn.close()
    browser.get(f"{site.url}/play/{table}")
    result = wait_for(lambda: found(browser, '#verify-result[data-hand="1"]'), 30, "re-verify")[0]
    shot(browser, played["tmp"], "05-tampered")
    assert "failed" in result.get_attribute("class"), result.text
    bad = {r.get_attribute("data-check") for r in found(browser, "table.checks tr.bad")}
    assert "signatures" in bad, bad
