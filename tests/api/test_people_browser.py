"""Four people in four browsers sit at one table and play a whole hand.

One service (SQLite, a real socket) and four Chromiums (Selenium), each with its own
profile and so its own key made in the page. Ann creates a private table on /play; Bob,
Cat and Dan open its invitation link and take a seat each; Ann's page says how many are
still awaited as they sit; when the fourth sits the table opens in every page, and the
pages play hand 1 by clicking their first legal card or call. Every JSON body and every
server-sent event each page received is checked for another seat's cards. Then a public
table is created from the form and joined from the lobby, and "my tables" is read from
the service. Screenshots (1280 and 390 px) go to the test's tmp dir, and to
``FAIRPLAY_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from tests.api.conftest import ADMIN, Running

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("people_browser")]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402

from tests.api.test_play_browser import CARD, Traffic, borrowed, found, shot, wait_for  # noqa: E402

NAMES = ("ann", "bob", "cat", "dan")
SEAT_OF = {"ann": "S", "bob": "E", "cat": "N", "dan": "W"}
AUTOPLAY = """
window.autoplay = setInterval(() => {
  const b = document.querySelector('#my-hand button.playable') || document.querySelector('#actions button.call');
  if (b && !b.disabled) b.click();
}, 250);
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(
        {
            "data_dir": str(tmp_path_factory.mktemp("people")),
            "admin_token": ADMIN,
            "testing": True,
            "self_registration": True,
            "bot_tables": True,
            "register_per_hour": 0,
            "max_streams": 24,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Running(app, f"http://127.0.0.1:{server.server_port}", server)
    server.shutdown()
    app.extensions["fairplay"].close()


@pytest.fixture(scope="module")
def browsers() -> Iterator[dict[str, WebDriver]]:
    with borrowed(len(NAMES)) as drivers:
        yield dict(zip(NAMES, drivers, strict=True))


def sign_up(site: Running, driver: WebDriver, name: str, reload: bool = True) -> str:
    """Make a key in /play and register it; the player's id."""
    if reload:
        driver.get(f"{site.url}/play")
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready"), 60, "page")
    box = driver.find_element(By.ID, "name")
    box.clear()
    box.send_keys(name)
    driver.find_element(By.ID, "create-key").click()
    wait_for(lambda: driver.find_element(By.ID, "player-id").text, 60, "key made")
    driver.find_element(By.ID, "register").click()
    wait_for(lambda: driver.find_element(By.ID, "create-table").is_enabled(), 60, "registered")
    return str(driver.find_element(By.ID, "player-id").text)


def waiting_for(driver: WebDriver) -> str | None:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-waiting-for")


def widths_at(driver: WebDriver, tmp: Path, name: str, at: str = "") -> list[tuple[int, int]]:
    """Screenshots at 1280 and 390 px (scrolled to the element ``at``); the (document,
    window) widths at each."""
    out = []
    for w, h in ((1280, 1000), (390, 844)):
        driver.set_window_size(w, h)
        time.sleep(0.3)
        if at:
            driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", at)
        shot(driver, tmp, f"{name}-{w}")
        out.append(
            (
                driver.execute_script("return document.documentElement.scrollWidth"),
                driver.execute_script("return window.innerWidth"),
            )
        )
    driver.set_window_size(1400, 1700)
    return out


def click_found(driver: WebDriver, css: str) -> bool:
    """Clicks the first element ``css`` finds, if any (in :func:`wait_for`: an element the
    page redrew between finding and clicking is looked for again)."""
    elements = found(driver, css)
    if elements:
        elements[0].click()
    return bool(elements)


@pytest.fixture(scope="module")
def played(
    site: Running, browsers: dict[str, WebDriver], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("people-screens")
    traffic = {n: Traffic(d) for n, d in browsers.items()}
    ids = {n: sign_up(site, d, n) for n, d in browsers.items() if n != "dan"}
    ann = browsers["ann"]
    ann.find_element(By.ID, "nt-name").clear()
    ann.find_element(By.ID, "nt-name").send_keys("Four friends")
    ann.find_element(By.ID, "nt-rules").click()  # the rules, opened for the screenshot
    widths = {"create": widths_at(ann, tmp, "01-play-create", "step-people")}
    ann.find_element(By.ID, "create-table").click()
    wait_for(lambda: "/play/t-" in ann.current_url, 60, "the table page")
    table = ann.current_url.split("/play/", 1)[1].split("#", 1)[0]
    wait_for(lambda: waiting_for(ann) == "3", 60, "waiting for three")
    traffic["ann"].drain()
    link = ann.find_element(By.ID, "invite-link").get_attribute("value")
    assert link and "#invite=" in link
    widths["waiting"] = widths_at(ann, tmp, "02-waiting")
    said = [ann.find_element(By.ID, "waiting-count").text]
    for name in ("bob", "cat", "dan"):
        d = browsers[name]
        d.get(link)
        if name == "dan":  # no key yet: sent to /play, and brought back once registered
            wait_for(lambda d=d: click_found(d, '#who a[href="/play"]'), 60, "to /play")  # type: ignore[misc]
            ids[name] = sign_up(site, d, name, reload=False)
            wait_for(lambda d=d: click_found(d, "#invited a"), 60, "the way back")  # type: ignore[misc]
            wait_for(lambda d=d: "#invite=" in d.current_url, 60, "back at the table")  # type: ignore[misc]
        seat = SEAT_OF[name]
        wait_for(lambda d=d, s=seat: found(d, f'button.sit[data-seat="{s}"]'), 60, "a seat")  # type: ignore[misc]
        traffic[name].drain()
        if name == "dan":
            shot(d, tmp, "03-invitee")
        wait_for(lambda d=d, s=seat: click_found(d, f'button.sit[data-seat="{s}"]'), 30, "sat")  # type: ignore[misc]
        if name != "dan":
            left = str(3 - ("bob", "cat").index(name) - 1)
            wait_for(lambda left=left: waiting_for(ann) == left, 60, f"ann sees {left} left")  # type: ignore[misc]
            said.append(ann.find_element(By.ID, "waiting-count").text)
            traffic[name].drain()
            traffic["ann"].drain()
    # the fourth sat: every page becomes the table, and plays
    for name, d in browsers.items():
        wait_for(
            lambda d=d: d.execute_script("return window.cayenneTable && window.cayenneTable.seat"),
            30,
            f"{name} at the table",
        )  # type: ignore[misc]
        d.execute_script(AUTOPLAY)
    deadline = time.monotonic() + 300
    while not all(found(d, '#verify-result[data-hand="1"]') for d in browsers.values()):
        assert time.monotonic() < deadline, "hand 1 did not end in time"
        for t in traffic.values():
            t.drain()
        time.sleep(0.5)
    for d in browsers.values():
        d.execute_script("clearInterval(window.autoplay)")
    time.sleep(0.5)
    for t in traffic.values():
        t.drain()
    shot(ann, tmp, "04-hand-played")
    return {
        "table": table,
        "ids": ids,
        "traffic": traffic,
        "tmp": tmp,
        "said": said,
        "widths": widths,
    }


def test_four_people_create_join_by_link_and_play_a_whole_hand(
    site: Running, browsers: dict[str, WebDriver], played: dict[str, Any]
) -> None:
    c = site.client()
    t, ids = played["table"], played["ids"]
    table = c.call("GET", f"/v1/tables/{t}")
    assert table["seats"] == {SEAT_OF[n]: ids[n] for n in NAMES}
    assert c.hand(t, 1)["phase"] == "over"
    events = c.call("GET", f"/v1/tables/{t}/hands/1/events")["events"]
    for name in NAMES:  # each seat's actions signed by that person's own key, in their page
        kinds = [e["event"]["type"] for e in events if e["event"]["actor"] == ids[name]]
        assert kinds[:2] == ["commit", "reveal"] and kinds.count("play") == 13, (name, kinds)
    for d in browsers.values():
        result = d.find_element(By.ID, "verify-result")
        assert "verified" in result.get_attribute("class"), result.text
    assert played["said"] == [
        "Waiting for 3 more players.",
        "Waiting for 2 more players.",
        "Waiting for 1 more player.",
    ]
    # private: in no listing a stranger reads
    assert t not in [x["id"] for x in c.call("GET", "/v1/tables")["tables"]]
    for name, (doc, win) in [(k, w) for k, ws in played["widths"].items() for w in ws]:
        assert doc <= win, (name, doc, win)  # no sideways scroll at 390 px


def test_each_page_receives_no_card_but_its_own(played: dict[str, Any]) -> None:
    t = played["table"]
    seen = [u for tr in played["traffic"].values() for u, _ in tr.bodies]
    assert any(f"/v1/people-tables/{t}" in u for u in seen)  # the waiting pages' reads
    for name, traffic in played["traffic"].items():
        seat = SEAT_OF[name]
        states = [json.loads(m) for m in traffic.messages]
        states = [m for m in states if "hand" in m]
        assert len(states) > 30, (name, "the page followed the hand by its stream")
        dealt: dict[int, set[str]] = {}
        for msg in states:
            cards, hand = msg["cards"], msg["hand"]
            assert cards["seat"] == seat, name
            allowed = set(cards["dealt"] or [])
            dealt.setdefault(hand["hand"], set()).update(allowed)
            if hand["play"]:
                allowed.add(hand["play"]["cayenne"])
                allowed |= {c for tr in hand["play"]["tricks"] for c in tr["cards"]}
            leaked = set(CARD.findall(json.dumps({"hand": hand, "cards": cards}))) - allowed
            assert not leaked, (name, hand["hand"], hand["phase"], leaked)
        assert dealt.get(1), name
        for url, body in traffic.bodies:
            path = url.split("?")[0]
            if path.endswith(("/record", "/proof", "/report")):
                continue  # fetched after the hand's end, when the deal is public
            if "/hands/" in path:
                number = int(path.split("/hands/", 1)[1].split("/", 1)[0])
                leaked = set(CARD.findall(body)) - dealt.get(number, set())
            else:
                leaked = set(CARD.findall(body))  # the seats, the lobby: no card at all
            assert not leaked, (name, url, leaked)
        assert any("/events" in u for u, _ in traffic.bodies), name


def test_a_public_table_is_joined_from_the_lobby_and_my_tables_come_from_the_service(
    site: Running, browsers: dict[str, WebDriver], played: dict[str, Any]
) -> None:
    cat, bob = browsers["cat"], browsers["bob"]
    cat.get(f"{site.url}/play")
    wait_for(lambda: cat.find_element(By.ID, "create-table").is_enabled(), 60, "cat's key")
    cat.find_element(By.ID, "nt-name").clear()  # no name: refused, said next to the field
    cat.find_element(By.ID, "create-table").click()
    error = wait_for(lambda: cat.find_element(By.ID, "nt-name-error").text, 60, "the error")
    assert error.startswith("name:"), error
    summary = cat.find_element(By.ID, "new-table-errors")
    assert summary.is_displayed() and error in summary.text
    assert summary.find_element(By.CSS_SELECTOR, 'a[href="#nt-name"]')
    assert "/play/t-" not in cat.current_url
    cat.find_element(By.ID, "nt-name").send_keys("Open to all")
    cat.find_element(By.CSS_SELECTOR, 'input[name="nt-who"][value="public"]').click()
    # a clock the service refuses (no such choice on the form): said next to the clock
    cat.execute_script(
        "const s = document.getElementById('nt-clock'); s.add(new Option('0 s', '0'));"
        "s.value = '0';"
    )
    cat.find_element(By.ID, "create-table").click()
    error = wait_for(lambda: cat.find_element(By.ID, "nt-clock-error").text, 60, "clock error")
    assert error.startswith("clock.seconds:"), error
    assert cat.find_element(By.ID, "nt-name-error").text == ""
    Select(cat.find_element(By.ID, "nt-clock")).select_by_value("120")  # 2 minutes a hand
    assert cat.find_element(By.ID, "nt-chat").is_selected()  # chat: on unless unticked
    cat.find_element(By.ID, "nt-chat").click()
    cat.find_element(By.ID, "create-table").click()
    wait_for(lambda: "/play/t-" in cat.current_url, 60, "cat's table")
    public = cat.current_url.split("/play/", 1)[1].split("#", 1)[0]
    clock = {"seconds": 120, "warning": 24}  # the warning: the service's default, a fifth
    made = site.client().call("GET", f"/v1/people-tables/{public}")
    assert made["clock"] == clock and made["chat"] is False
    wait_for(lambda: waiting_for(cat) == "3", 60)
    bob.get(f"{site.url}/play")
    item = wait_for(lambda: found(bob, f'#lobby li[data-table="{public}"] a'), 60, "the lobby")[0]
    text = bob.find_element(By.CSS_SELECTOR, f'#lobby li[data-table="{public}"]').text
    assert "Open to all" in text and "3 open seats" in text and "cat" in text
    assert "clock: 2 min a hand per seat" in text
    mine = {
        li.get_attribute("data-table"): li.get_attribute("data-status")
        for li in wait_for(lambda: found(bob, "#my-tables li[data-table]"), 60, "my tables")
    }
    assert mine == {played["table"]: "open"}  # read from the service, by a signed read
    widths = widths_at(bob, played["tmp"], "05-play-lobby", "step-people")
    assert all(doc <= win for doc, win in widths), widths
    item.click()
    wait_for(lambda: found(bob, 'button.sit[data-seat="N"]'), 60, "a seat")
    assert not found(bob, 'button.sit[data-seat="S"]')  # cat's seat
    bob.find_element(By.CSS_SELECTOR, 'button.sit[data-seat="N"]').click()
    wait_for(lambda: waiting_for(cat) == "2", 60, "cat sees bob sit")
    assert (
        site.client().call("GET", f"/v1/people-tables/{public}")["seats"]["N"]
        == played["ids"]["bob"]
    )
    # the creator gives the two empty seats to house bots: the table opens for both
    cat.find_element(By.ID, "give-bots").click()
    for d in (cat, bob):
        wait_for(
            lambda d=d: d.execute_script("return window.cayenneTable && window.cayenneTable.seat"),
            30,
            "the table",
        )  # type: ignore[misc]
    assert site.client().hand(public, 1)["hand"] == 1
    opened = site.client().call("GET", f"/v1/tables/{public}")
    assert opened["clock"] == clock and opened["chat"] is False
    wait_for(
        lambda: any(e.is_displayed() for e in found(cat, "#chat-off")), 30, "chat is off"
    )  # the table's chat panel says so
