"""Every page on a phone and on a desktop, by keyboard and for a screen reader.

One service (SQLite, a real socket, house bots at a fast pace) with a finished bot
table and a finished pairs event. Each page is loaded in Debian's Chromium (Selenium)
at 390 x 844 and at 1280 x 800: the document is never wider than the window (the page
reflows instead of scrolling sideways), and axe-core (the copy bundled inside the
``axe-selenium-python`` wheel: nothing is fetched at run time) finds no serious or
critical violation. Then a person plays a whole hand against the bots by keyboard alone:
focus stays on the hand after every card, and the live region says whose turn it is,
each card played and who won each trick; the pause after the hand is continued and the
last trick opened by keyboard, both axe-clean.

Screenshots go to the test's tmp dir, and to ``FAIRPLAY_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api import sse
from api.bot import TableBots
from api.client import Identity
from audit.auditor import audit_document
from audit.report.html import render_html
from tests.api.conftest import Running
from tests.api.helpers import signed_write
from tests.api.test_analysis import answer_when
from tests.api.test_play_browser import borrowed, found, serving_site, shot, wait_for
from tests.api.test_tournaments import MITCHELL, open_event
from tests.audit.helpers import worked_example

# one worker plays the table and the event once and starts one browser for every test of the module (make test's xdist)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("pages_a11y")]

axe_selenium = pytest.importorskip("axe_selenium_python")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
LIVE = {"waiting", "table", "seat"}
"""The pages that draw themselves from an event stream (``body.dataset.live`` once they
have)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The pages' service with room for every page's stream: each live page the test
    visits opens its own, and the default 8 (2 of them for spectators) refused the seat
    page's (429) while the table page's, left, was still held."""
    with serving_site(tmp_path_factory.mktemp("site"), max_streams=24) as running:
        yield running


@pytest.fixture(scope="module", autouse=True)
def quick_heartbeat() -> Iterator[None]:
    """The streams of the pages the test has left are noticed closed within a second or
    two (at the stream's next write) rather than fifteen: a client holds at most
    ``sse.CEILING`` streams at once, its closed ones included until they are noticed."""
    before = sse.HEARTBEAT_SECONDS
    sse.HEARTBEAT_SECONDS = 1.0
    yield
    sse.HEARTBEAT_SECONDS = before


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with borrowed() as (driver,):
        yield driver


@pytest.fixture(scope="module")
def pages(site: Running, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:  # noqa: F811
    """Every kind of page, with something in it: name -> URL."""
    bots = TableBots.open(site.client(), random.Random(3))
    bots.play_hand(1)
    c = site.client()
    report = c.hand(bots.table, 1)["report_id"]
    _, tid, event = open_event(site, {**MITCHELL, "name": "Demo pairs"}, 6)
    event.run(timeout=180)
    answer_when(c, f"/v1/tournaments/{tid}/analysis", 200)  # the page shows it, not its progress
    folder = tmp_path_factory.mktemp("report")
    doc = worked_example()
    (folder / "worked-example.html").write_text(render_html(audit_document(doc), doc))
    url = site.url
    host = Identity.generate("host")
    c.register(host, "host")
    body = {"name": "Waiting for three", "public": True}
    waiting = c.call(
        "POST", "/v1/people-tables", body, signed_write(host, "/v1/people-tables", body)
    )
    return {
        "home": f"{url}/",
        "waiting": f"{url}/play/{waiting['id']}",
        "play": f"{url}/play",
        "table": f"{url}/tables/{bots.table}",
        "seat": f"{url}/play/{bots.table}",
        "hand": f"{url}/tables/{bots.table}/hands/1",
        "report": f"{url}/reports/{report}",
        "worked-example": (folder / "worked-example.html").as_uri(),
        "tournaments": f"{url}/tournaments",
        "event": f"{url}/tournaments/{tid}",
        "board": f"{url}/tournaments/{tid}/boards/1",
        "pair": f"{url}/tournaments/{tid}/pairs/1",
        "certificate": f"{url}/tournaments/{tid}/certificate",
        "analysis": f"{url}/tournaments/{tid}/analysis",
        "not-found": f"{url}/no/such/page",
    }


def serious(driver: WebDriver) -> list[str]:
    axe = axe_selenium.Axe(driver)
    axe.inject()
    result = axe.run()
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_fits_the_window_and_passes_axe(
    browser: WebDriver, pages: dict[str, str], size: str, tmp_path: Path
) -> None:
    width, height = SIZES[size]
    browser.set_window_size(width, height)
    inner = browser.execute_script("return window.innerWidth")
    problems: dict[str, Any] = {}
    for name, url in pages.items():
        browser.get(url)
        if name in LIVE:  # checked once drawn from its stream, not in its first state
            wait_for(
                lambda: browser.execute_script("return document.body.dataset.live === '1'"),
                60,
                f"{name} drawn from its stream",
            )
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        tall = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(width, min(max(tall, height), 6000))  # the whole page
        shot(browser, tmp_path, f"a11y-{size}-{name}")
        browser.set_window_size(width, height)
        if wide > inner:
            problems[f"{name} width"] = (wide, inner)
        found_here = serious(browser)
        if found_here:
            problems[f"{name} axe"] = found_here
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_the_home_page_links_to_play_and_a_missing_page_is_a_page(
    browser: WebDriver, pages: dict[str, str]
) -> None:
    browser.get(pages["home"])
    assert found(browser, 'a[href="/play"]')
    browser.get(pages["report"])
    assert found(browser, '[data-role="back"] a[href="/"]')  # a way back from the report
    browser.get(pages["not-found"])
    assert "not found" in browser.find_element(By.TAG_NAME, "h2").text.lower()
    assert found(browser, 'a[href="/"]')
    # the icon every page links is served (it was a 404)
    icon = browser.execute_async_script(
        "const done = arguments[0];"
        "const href = document.querySelector('link[rel=icon]').href;"
        "fetch(href).then(r => r.text().then(t => done([r.status,"
        " r.headers.get('content-type'), t.slice(0, 4)])));"
    )
    assert icon == [200, "image/svg+xml; charset=utf-8", "<svg"] or icon[:2] == [
        200,
        "image/svg+xml",
    ], icon


def focused(driver: WebDriver) -> dict[str, Any]:
    return dict(
        driver.execute_script(
            "const a = document.activeElement;"
            "return {inHand: !!(a && a.closest && a.closest('#my-hand')),"
            " playable: !!(a && a.matches && a.matches('button.playable')),"
            " call: !!(a && a.matches && a.matches('#actions button')),"
            " tag: a ? a.tagName : ''};"
        )
    )


def test_a_whole_hand_played_by_keyboard_alone(site: Running, tmp_path: Path) -> None:  # noqa: F811
    with borrowed() as (driver,):
        driver.set_window_size(390, 844)
        _keyboard_hand(site, driver, tmp_path)


def _press(driver: WebDriver, *keys: str) -> None:
    driver.switch_to.active_element.send_keys(*keys)


def _tab_to(driver: WebDriver, what: str, limit: int = 60) -> bool:
    """Press Tab until the focused element is ``what`` (a key of :func:`focused`)."""
    for _ in range(limit):
        if focused(driver)[what]:
            return True
        _press(driver, Keys.TAB)
    return bool(focused(driver)[what])


def _keyboard_hand(site: Running, driver: WebDriver, tmp: Path) -> None:  # noqa: F811
    driver.get(f"{site.url}/play")
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready"), 10, "page")
    driver.find_element(By.ID, "name").click()  # the one click: into the page
    assert _tab_to_id(driver, "create-key")
    _press(driver, Keys.ENTER)
    wait_for(lambda: found(driver, "#player-id") and driver.find_element(By.ID, "player-id").text)
    wait_for(lambda: driver.find_element(By.ID, "register").is_enabled(), 10, "register")
    assert _tab_to_id(driver, "register")
    _press(driver, Keys.ENTER)
    wait_for(lambda: driver.find_element(By.ID, "play-bots").is_enabled(), 10, "registered")
    assert _tab_to_id(driver, "play-bots")
    _press(driver, Keys.ENTER)
    wait_for(lambda: "/play/t-" in driver.current_url, 10, "the table page")
    # the pause after the hand holds until the keyboard continues it (the axe check that
    # comes first may take longer than the pause's few seconds on a loaded machine)
    wait_for(lambda: driver.execute_script("return Boolean(window.cayenneTable)"), 10, "the table")
    driver.execute_script("window.cayenneTable.pause.holdMs = 120000")
    # every text the live region takes, recorded by the page as it changes (a look from
    # this loop, which waits for each card it plays, missed a trick's short-lived news)
    driver.execute_script(
        "const el = document.getElementById('announce'); window.announceLog = [];"
        "new MutationObserver(() => window.announceLog.push(el.textContent))"
        ".observe(el, {childList: true, characterData: true, subtree: true});"
    )
    played = 0
    announced: list[str] = []
    refused: set[str] = set()
    deadline = time.monotonic() + 180
    while not found(driver, '#verify-result[data-hand="1"]'):
        assert time.monotonic() < deadline, "hand 1 did not end in time"
        text = driver.execute_script("return document.getElementById('announce').textContent")
        if text and (not announced or announced[-1] != text):
            announced.append(text)
        body = driver.find_element(By.TAG_NAME, "body")
        hand, phase = body.get_attribute("data-hand"), body.get_attribute("data-phase")
        cards = driver.execute_script(
            "const h = document.getElementById('my-hand'); if (!h) return null;"
            "return {spans: h.querySelectorAll('span.card').length,"
            " disabled: [...h.querySelectorAll('button.card:disabled')]"
            ".map(b => b.getAttribute('aria-label'))};"
        )
        if cards and phase == "playing":
            assert cards["spans"] == 0, cards  # every card a button, the illegal ones disabled
            if cards["disabled"]:
                refused.update(cards["disabled"])
        if hand == "1" and found(driver, "#actions button.call"):
            if _tab_to(driver, "call"):
                _press(driver, Keys.ENTER)
        elif hand == "1" and phase == "playing" and found(driver, "#my-hand button.playable"):
            if played:  # after the first card, focus stayed on the hand
                assert focused(driver)["inHand"], focused(driver)
            if _tab_to(driver, "playable", 20):
                if played == 4:
                    shot(driver, tmp, "keyboard-playing")
                before = len(found(driver, "#my-hand button.card"))
                _press(driver, Keys.ENTER)

                def gone(before: int = before) -> bool:
                    return bool(
                        len(found(driver, "#my-hand button.card")) < before
                        or found(driver, "#actions button.call")
                        or found(driver, "#verify-result")
                    )

                wait_for(gone, 20, "the card played")
                played += 1
        time.sleep(0.1)
    assert played >= 12  # every card but one the hand may have been forced to by a call
    shot(driver, tmp, "keyboard-verified")
    # the pause between hands: focus on its Continue, axe-clean; Enter goes on
    wait_for(lambda: found(driver, "#pause-lines li"), 10, "the pause")
    assert driver.switch_to.active_element.get_attribute("id") == "pause-continue"
    assert not serious(driver), serious(driver)
    _press(driver, Keys.ENTER)
    wait_for(lambda: not driver.find_element(By.ID, "hand-pause").is_displayed(), 5, "continued")
    assert driver.find_element(By.ID, "hand-pause").get_attribute("data-closed") == "continue"
    # the last trick, opened by keyboard, is axe-clean too
    assert _tab_to_id(driver, "last-trick-button")
    _press(driver, Keys.ENTER)
    wait_for(lambda: driver.find_element(By.ID, "last-trick").is_displayed(), 5, "last trick")
    assert driver.find_element(By.ID, "last-trick-button").get_attribute("aria-expanded") == "true"
    assert not serious(driver), serious(driver)
    assert not driver.execute_script("return document.body.dataset.tones")  # sound off by default
    assert refused and all(r.endswith("cannot be played now") for r in refused), refused
    announced += driver.execute_script("return window.announceLog")
    live = " | ".join(announced)
    assert "Your turn" in live and "won the trick" in live and " played " in live, live


def _tab_to_id(driver: WebDriver, element_id: str, limit: int = 40) -> bool:
    for _ in range(limit):
        if driver.switch_to.active_element.get_attribute("id") == element_id:
            return True
        _press(driver, Keys.TAB)
    return False


def test_private_tables_are_never_listed_and_a_stranger_gets_a_page(
    site: Running,  # noqa: F811
    pages: dict[str, str],
    browser: WebDriver,
) -> None:
    from tests.api.test_tournament_pages import play_until

    _, tid, bots = open_event(site, {**MITCHELL, "name": "Demo pairs"}, 6)
    doc = play_until(bots, tid, lambda d: d["phase"] == "playing")
    private = [t["id"] for t in doc["rounds_played"][-1]["tables"]]
    assert private
    c = site.client(admin=False)
    _, _, home = c.raw("GET", "/", headers={"Accept": "text/html"})
    page = home.decode()
    assert all(t not in page for t in private)
    assert "/tables/" in page  # the public bot table still is
    status, headers, body = c.raw("GET", f"/tables/{private[0]}", headers={"Accept": "text/html"})
    assert status == 403 and headers["content-type"].startswith("text/html")
    assert "Not yours to read yet" in body.decode() and 'href="/"' in body.decode()
    status, headers, _ = c.raw("GET", f"/tables/{private[0]}")  # a client asking for JSON
    assert status == 403 and headers["content-type"].startswith("application/json")
    # the pages of an event in play (it follows itself live) and of a hidden board
    for path in (f"/tournaments/{tid}", f"/tournaments/{tid}/boards/1", f"/tables/{private[0]}"):
        for width, height in SIZES.values():
            browser.set_window_size(width, height)
            browser.get(site.url + path)
            wide = browser.execute_script("return document.documentElement.scrollWidth")
            assert wide <= browser.execute_script("return window.innerWidth"), (path, width)
            assert not serious(browser), (path, width, serious(browser))
    # two events of the same name: told apart by their date and id on the list
    _, _, listing = c.raw("GET", "/tournaments", headers={"Accept": "text/html"})
    text = listing.decode()
    assert text.count(">Demo pairs</a>") == 2 and tid in text and "<time datetime=" in text


def test_the_certificate_link_opens_a_page(browser: WebDriver, pages: dict[str, str]) -> None:
    browser.get(pages["event"])
    browser.find_element(By.ID, "certificate").click()
    wait_for(lambda: "/certificate" in browser.current_url, 10, "the certificate page")
    assert "certificate" in browser.find_element(By.TAG_NAME, "h2").text.lower()
    assert browser.find_element(By.ID, "certificate-note").text.strip()
