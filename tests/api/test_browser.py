"""A finished hand's page in a real headless Chromium (Debian's, installed by .ci/run).

Through chromedriver (W3C WebDriver, plain HTTP): the deal diagram and the score sheet
are displayed with a real size, and hold the four seats and the score. Without
chromedriver but with Chromium, the rendered DOM is checked; without Chromium the test
skips and says why.
"""

from __future__ import annotations

import http.client
import json
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from api.bot import TableBots
from tests.api.conftest import Running
from tests.api.helpers import free_port

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
]


class WebDriver:
    """The few W3C WebDriver commands the test needs."""

    def __init__(self, port: int) -> None:
        self.port = port
        caps = {
            "capabilities": {
                "alwaysMatch": {"goog:chromeOptions": {"binary": CHROMIUM, "args": ARGS}}
            }
        }
        self.session = self.cmd("POST", "/session", caps)["sessionId"]

    def cmd(self, method: str, path: str, body: Any = None) -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request(
            method,
            path,
            body=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        doc = json.loads(conn.getresponse().read())
        conn.close()
        value = doc["value"]
        if isinstance(value, dict) and "error" in value:
            raise AssertionError(value)
        return value

    def s(self, method: str, path: str, body: Any = None) -> Any:
        return self.cmd(method, f"/session/{self.session}{path}", body)

    def element(self, css: str) -> str:
        found = self.s("POST", "/element", {"using": "css selector", "value": css})
        return str(next(iter(found.values())))


@pytest.fixture
def driver() -> Iterator[WebDriver]:
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("chromedriver is not installed (apt-get install chromium chromium-driver)")
    port = free_port()
    proc = subprocess.Popen(
        [DRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                wd = WebDriver(port)
                break
            except (OSError, json.JSONDecodeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield wd
        wd.s("DELETE", "")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture
def hand_url(service: Running) -> str:
    bots = TableBots.open(service.client(), random.Random(3))
    bots.play_hand(1)
    return f"{service.url}/tables/{bots.table}/hands/1"


def test_finished_hand_page_shows_diagram_and_score_sheet(driver: WebDriver, hand_url: str) -> None:
    driver.s("POST", "/url", {"url": hand_url})
    for css, words in (
        ("#deal-diagram", ("N", "E", "S", "W", "cayenne")),
        ("#score-sheet", ("N-S", "E-W", "tricks", "points after")),
    ):
        el = driver.element(css)
        assert driver.s("GET", f"/element/{el}/displayed") is True
        rect = driver.s("GET", f"/element/{el}/rect")
        assert rect["width"] > 100 and rect["height"] > 50
        assert rect["y"] >= 0  # laid out on the page, not pushed off screen
        text = driver.s("GET", f"/element/{el}/text")
        for word in words:
            assert word in text, (css, word, text)
    assert "Hand 1" in driver.s("GET", "/title")


def test_finished_hand_dom_without_webdriver(hand_url: str) -> None:
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium); .ci/run installs it")
    dom = subprocess.run(
        [CHROMIUM, *ARGS, "--dump-dom", hand_url], capture_output=True, text=True, timeout=120
    ).stdout
    assert 'id="deal-diagram"' in dom and 'id="score-sheet"' in dom
