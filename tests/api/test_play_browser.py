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
from contextlib import contextmanager
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
from selenium.webdriver.common.keys import Keys  # noqa: E402
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
WINDOW = (1400, 1700)
"""The window's size as a browser starts (``--window-size``)."""
CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
SQLITE_TRIGGERS = [f"log_entries_no_{op}" for op in ("update", "delete")]


@contextmanager
def serving_site(data: Path, **config: Any) -> Iterator[Running]:
    """The pages' service in this process (bots' tables, people registering themselves),
    ``config`` over its defaults."""
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
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
            **config,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Running(app, f"http://127.0.0.1:{server.server_port}", server)
    finally:
        server.shutdown()
        app.extensions["fairplay"].close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with serving_site(tmp_path_factory.mktemp("site")) as running:
        yield running


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


_IDLE: list[tuple[float, WebDriver, tempfile.TemporaryDirectory[str]]] = []
"""This process's Chromiums that a module has given back (:func:`borrowed`), each with
when it was given back."""
_LENT: dict[int, tempfile.TemporaryDirectory[str]] = {}
_POOL = threading.Lock()
_CLOSING = threading.Event()
_REAPER: list[threading.Thread] = []
MAX_IDLE = 4
"""The most a process keeps (the four people of the people's modules); more are quit."""
IDLE_SECONDS = 60.0
"""How long a browser waits in the pool for its next user before it is quit: an idle
Chromium still takes 2 to 4 ms of CPU a second, so one kept idle for some ten minutes costs
what starting one does."""


@contextmanager
def borrowed(count: int = 1) -> Iterator[list[WebDriver]]:
    """``count`` Chromiums for a module or a test, given back to this process's pool at the
    end rather than quit: starting one costs about 1.8 CPU-seconds (the browser, its GPU
    process and chromedriver), and the browser tests of one worker started some ten. A
    browser is given back as a new one starts: on about:blank, at the default size, with
    its logs read and every site data of the origins it visited cleared (cookies,
    storage, the keys the pages made), so the next user finds no trace of the last
    (:func:`_reset`). One left unused for :data:`IDLE_SECONDS` is quit, and the pool is
    closed at the end of the session (tests/conftest.py)."""
    drivers: list[WebDriver] = []
    try:
        while len(drivers) < count:
            with _POOL:
                idle = _IDLE.pop() if _IDLE else None
            if idle is not None:
                _, driver, profile = idle
            else:
                profile = tempfile.TemporaryDirectory()
                try:
                    driver = new_driver(profile.name)
                except BaseException:
                    profile.cleanup()
                    raise
            _LENT[id(driver)] = profile
            drivers.append(driver)
        yield drivers
    finally:
        for driver in drivers:
            profile = _LENT.pop(id(driver))
            if _reset(driver):
                with _POOL:
                    kept = len(_IDLE) < MAX_IDLE and not _CLOSING.is_set()
                    if kept:
                        _IDLE.append((time.monotonic(), driver, profile))
                        if not _REAPER:
                            _REAPER.append(threading.Thread(target=_reap, daemon=True))
                            _REAPER[0].start()
                if kept:
                    continue
            _quit(driver, profile)


def _reap() -> None:
    """Quit the browsers left unused for :data:`IDLE_SECONDS` (until the pool closes)."""
    while not _CLOSING.wait(5):
        now = time.monotonic()
        with _POOL:
            old = [idle for idle in _IDLE if now - idle[0] > IDLE_SECONDS]
            _IDLE[:] = [idle for idle in _IDLE if now - idle[0] <= IDLE_SECONDS]
        for _, driver, profile in old:
            _quit(driver, profile)


def _reset(driver: WebDriver) -> bool:
    """The browser as a new one starts (see :func:`borrowed`); False if it cannot be."""
    try:
        handles = driver.window_handles
        for handle in handles[1:]:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(handles[0])
        history = driver.execute_cdp_cmd("Page.getNavigationHistory", {})
        origins = {driver.current_url} | {e["url"] for e in history["entries"]}
        for url in origins:
            if url.startswith("http"):
                origin = "/".join(url.split("/")[:3])
                driver.execute_cdp_cmd(
                    "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
                )
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})  # a test blocks some
        driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        driver.get("about:blank")
        driver.execute_cdp_cmd("Page.resetNavigationHistory", {})
        driver.set_window_size(*WINDOW)
        driver.get_log("performance")
        driver.get_log("browser")
    except Exception:  # noqa: BLE001 - a browser that crashed or hangs is quit, not lent again
        return False
    return True


def _quit(driver: WebDriver, profile: tempfile.TemporaryDirectory[str]) -> None:
    try:
        driver.quit()
    except Exception:  # noqa: BLE001 - a browser already gone
        pass
    finally:
        profile.cleanup()


def close_pool() -> None:
    """Quit this process's idle Chromiums (the end of the session), once the thread that
    quits the unused ones has finished what it was doing."""
    _CLOSING.set()
    for reaper in _REAPER:
        reaper.join()
    with _POOL:
        idle, _IDLE[:] = list(_IDLE), []
    for _, driver, profile in idle:
        _quit(driver, profile)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with borrowed() as (driver,):
        yield driver


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
        time.sleep(0.25)


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
    # the turn sound: off until the person turns it on (a click, the gesture audio needs)
    toggle = wait_for(lambda: found(browser, "#turn-sound"), 10, "the sound toggle")[0]
    wait_for(lambda: toggle.is_displayed(), 10, "the sound toggle shown to the seat")
    sound_default = (toggle.is_selected(), browser.execute_script(f"return {SOUND_STORE}"))
    toggle.click()
    browser.execute_script(f"window.cayenneTable.pause.holdMs = {PAUSE_MS}")
    # every state the page draws is sampled as it is drawn, as well as by the loop below: a
    # loaded machine's loop may look only when it is the person's turn
    browser.execute_script(RECORD_CUES)
    cues: list[dict[str, Any]] = []
    last_trick: dict[str, Any] = {}
    shots = {"calling": False, "playing": False}
    deadline = time.monotonic() + 180
    while not found(browser, '#verify-result[data-hand="1"]'):
        assert time.monotonic() < deadline, "hand 1 did not end in time"
        traffic.drain()
        phase = browser.find_element(By.TAG_NAME, "body").get_attribute("data-phase")
        hand = browser.find_element(By.TAG_NAME, "body").get_attribute("data-hand")
        cues.append(browser.execute_script(SAMPLE_CUE))
        try:
            if not last_trick and hand == "1" and len(found(browser, "#my-hand .card")) <= 10:
                last_trick.update(look_at_last_trick(browser, tmp))
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
    cues.extend(browser.execute_script("return window.cueLog"))
    traffic.drain()
    shot(browser, tmp, "04-verified")
    pause = pause_shown(browser, tmp)
    box = browser.find_element(By.ID, "hand-pause")
    wait_for(lambda: not box.is_displayed(), PAUSE_MS / 1000 + 30, "the pause over")
    pause["closed"] = (box.get_attribute("data-closed"), int(box.get_attribute("data-closed-at")))
    return {
        "table": table,
        "player": player,
        "public_key": public_key,
        "backup": backup,
        "traffic": traffic,
        "tmp": tmp,
        "sound_default": sound_default,
        "cues": cues,
        "last_trick": last_trick,
        "pause": pause,
    }


PAUSE_MS = 12_000
"""The pause after hand 1 in these tests (the page holds 8 s): the test waits for the
hand's verification first, which a loaded machine can make outlast a short pause."""
SOUND_STORE = "localStorage.getItem('cayenne-fairplay:turn-sound')"
SAMPLE_CUE = """
const cue = document.getElementById('turn-cue');
const hand = document.getElementById('my-hand');
return {phase: document.body.dataset.phase, hand: document.body.dataset.hand,
  playable: hand ? hand.querySelectorAll('button.playable').length : 0,
  calls: document.querySelectorAll('#actions button.call[data-call]').length,
  cue: !cue.hidden && cue.offsetHeight > 0, text: cue.textContent,
  tones: Number(document.body.dataset.tones || 0),
  announce: document.getElementById('announce').textContent};
"""

RECORD_CUES = f"""
const table = window.cayenneTable;
const draw = table.render.bind(table);
const sample = () => {{ {SAMPLE_CUE} }};
window.cueLog = [];
table.render = () => {{ draw(); window.cueLog.push(sample()); }};
"""


def at_sizes(driver: WebDriver, tmp: Path, name: str) -> list[tuple[int, int]]:
    """Screenshots at 1280 x 800 and 390 x 844; the (document, window) widths at each."""
    widths = []
    for w, h in ((1280, 800), (390, 844)):
        driver.set_window_size(w, h)
        time.sleep(0.2)
        driver.execute_script(
            "arguments[0].scrollIntoView({block: 'center'})", driver.find_element(By.ID, name)
        )
        shot(driver, tmp, f"{name}-{w}")
        widths.append(
            (
                driver.execute_script("return document.documentElement.scrollWidth"),
                driver.execute_script("return window.innerWidth"),
            )
        )
    driver.set_window_size(1400, 1700)
    return widths


WATCH_ANNOUNCE = """
const box = document.getElementById('announce');
window.announced = [];
new MutationObserver(() => window.announced.push(box.textContent))
  .observe(box, {childList: true, characterData: true, subtree: true});
"""


def look_at_last_trick(driver: WebDriver, tmp: Path) -> dict[str, Any]:
    """Open the last trick by a click, read it, then close it by keyboard (Enter)."""
    driver.execute_script(WATCH_ANNOUNCE)
    button = driver.find_element(By.ID, "last-trick-button")
    button.click()
    wait_for(lambda: [e for e in found(driver, "#last-trick") if e.is_displayed()], 20)
    seen = dict(
        driver.execute_script(
            "const p = document.getElementById('last-trick');"
            "return {title: p.querySelector('.title').textContent,"
            " plays: [...p.querySelectorAll('li')].map(li => [li.dataset.seat, li.dataset.card]),"
            " winner: p.querySelector('li.won').dataset.seat,"
            " expanded: document.getElementById('last-trick-button').getAttribute('aria-expanded'),"
            " said: window.announced};"
        )
    )
    seen.update(
        {
            "widths": at_sizes(driver, tmp, "last-trick"),
        }
    )
    driver.find_element(By.ID, "last-trick-button").send_keys(Keys.ENTER)
    seen["closed"] = not driver.find_element(By.ID, "last-trick").is_displayed()
    seen["expanded_after"] = button.get_attribute("aria-expanded")
    return seen


def pause_shown(driver: WebDriver, tmp: Path) -> dict[str, Any]:
    """The pause after hand 1, once every step of the score is shown."""
    box = wait_for(lambda: [e for e in found(driver, "#hand-pause") if e.is_displayed()], 10)[0]
    wait_for(
        lambda: (
            0
            < len(found(driver, "#pause-lines li"))
            == len(found(driver, "#last-hand #score-explained li"))
        ),
        10,
        "every step shown",
    )
    return {
        "hand": box.get_attribute("data-hand"),
        "lines": [li.get_attribute("textContent") for li in found(driver, "#pause-lines li")],
        "at": [int(li.get_attribute("data-at")) for li in found(driver, "#pause-lines li")],
        "focus": driver.switch_to.active_element.get_attribute("id"),
        "widths": at_sizes(driver, tmp, "hand-pause"),
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


def test_the_last_trick_is_looked_at_again_by_click_and_by_keyboard(
    site: Running, browser: WebDriver, played: dict[str, Any]
) -> None:
    seen = played["last_trick"]
    assert seen, "the last trick was never opened during the hand"
    number = int(re.search(r"trick (\d+)", seen["title"]).group(1))  # type: ignore[union-attr]
    tricks = site.client().hand(played["table"], 1)["play"]["tricks"]
    trick = tricks[number - 1]
    seats = "NESW"
    order = [seats[(seats.index(trick["leader"]) + k) % 4] for k in range(4)]
    assert seen["plays"] == [list(p) for p in zip(order, trick["cards"], strict=True)]
    assert seen["winner"] == trick["winner"]
    assert seen["expanded"] == "true" and seen["expanded_after"] == "false" and seen["closed"]
    said = [t for t in seen["said"] if t.startswith(f"Last trick: hand 1, trick {number}.")]
    assert said and said[0].endswith(" won it."), seen["said"]  # for a screen reader
    assert all(doc <= win for doc, win in seen["widths"]), seen["widths"]  # fits at 390 px
    # after the hand, the button shows the last trick of the hand before: trick 13 of hand 1
    browser.find_element(By.ID, "last-trick-button").click()
    title = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#last-trick .title").text, 5)
    if browser.find_element(By.TAG_NAME, "body").get_attribute("data-hand") == "2":
        assert title.startswith("Hand 1, trick 13") or title.startswith("Hand 2"), title
    browser.find_element(By.ID, "last-trick-button").click()


def test_your_turn_is_shown_said_and_sounded_when_turned_on(
    browser: WebDriver, played: dict[str, Any]
) -> None:
    assert played["sound_default"] == (False, None)  # off by default, nothing kept
    cues = [c for c in played["cues"] if c["hand"] == "1"]
    mine = [c for c in cues if c["playable"] or c["calls"]]
    others = [c for c in cues if c["phase"] == "playing" and not c["playable"]]
    assert mine and others
    assert all(c["cue"] and c["text"].startswith("Your turn") for c in mine), mine[:3]
    assert any(not c["cue"] for c in others)
    assert any("Your turn" in c["announce"] for c in mine)
    tones = max(c["tones"] for c in cues)
    assert tones >= 12, tones  # at least one for every card the person played
    state = browser.execute_script("return window.cayenneTable.turnCue.ctx.state")
    assert state == "running"
    assert browser.execute_script(f"return {SOUND_STORE}") == "on"
    label = browser.find_element(By.CSS_SELECTOR, "label#turn-sound-box").text
    assert label == "Sound on my turn"


def test_the_pause_between_hands_explains_the_score_step_by_step(
    site: Running, played: dict[str, Any]
) -> None:
    pause = played["pause"]
    report = site.client().call("GET", f"/v1/tables/{played['table']}/hands/1/report")
    (entry,) = [h for h in report["report"]["hands"] if h["hand"] == 1]
    assert pause["hand"] == "1"
    assert pause["lines"] == [line["reason"] for line in entry["explanation"]]
    at = pause["at"]  # when each step appeared (ms after the pause began)
    gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
    assert all(g >= 690 for g in gaps), at  # one at a time, each alone for 0.7 s
    assert pause["focus"] == "pause-continue"  # the person's next move
    by, closed_at = pause["closed"]
    assert by == "time" and closed_at - at[-1] >= PAUSE_MS  # it ran out by itself, after its hold
    assert all(doc <= win for doc, win in pause["widths"]), pause["widths"]


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
    with borrowed() as (other,):
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
        assert other.find_element(By.ID, "key-status").text == "Key imported from the backup file."
        assert other.find_element(By.ID, "player-id").text == played["player"]
        assert not other.find_element(By.ID, "backup-offer").is_displayed()  # offered once
        wait_for(lambda: other.find_element(By.ID, "play-bots").is_enabled(), 10)
        # the imported copy cannot be exported from this browser either
        extractable = other.execute_script(
            "const m = await import('/static/js/keys.js');"
            "return (await m.loadIdentity()).privateKey.extractable;"
        )
        assert extractable is False


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


def test_the_turn_sound_is_remembered_in_this_browser(
    site: Running, browser: WebDriver, played: dict[str, Any]
) -> None:
    # the seat's page loaded again (the test above did; each load opens a seat stream)
    if not browser.current_url.endswith(f"/play/{played['table']}"):
        browser.get(f"{site.url}/play/{played['table']}")
    toggle = wait_for(lambda: found(browser, "#turn-sound"), 10)[0]
    wait_for(lambda: toggle.is_displayed(), 10, "the toggle")
    assert toggle.is_selected()
