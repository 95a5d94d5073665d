"""The certificate page verifies the event in the person's browser (issue 20, part 5).

Bots play a two-table Mitchell on the real service, a pair withdrawn after round 1;
Chromium (Selenium) opens the certificate page, the person presses "Verify in this
browser", and the page fetches the bundle, shows its progress and then every check in a
list: all pass but the hands' audit, which the browser leaves to the command and shows
as such. The bundle offered for download
is the bytes the browser checked, and the command beside it names the log key.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.tournament_bot import TournamentBots
from tests.api.test_play_browser import borrowed, shot, wait_for
from tests.api.test_tournament_certificate import BEACON, MITCHELL, _start, _stop

from .conftest import Running

pytestmark = pytest.mark.browser

from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, str]]:
    service = _start(tmp_path_factory.mktemp("certpage"))
    try:
        client = service.client()
        bots = TournamentBots.open(client, MITCHELL, 4, random.Random(5), BEACON)
        bots.reveal_all(client.call("GET", f"/v1/tournaments/{bots.tid}"))
        # pair 4 withdrawn from round 2: a table the round leaves unseated, its board
        # average minus to pair 4, which the page scores as the command does
        withdraw = f"/v1/tournaments/{bots.tid}/actions/withdraw"
        client.call("POST", withdraw, {"pair": 4, "reason": "left"}, client.admin())
        assert bots.run(timeout=300)["phase"] == "over"
        service.client().call_when_ready("GET", f"/v1/tournaments/{bots.tid}/certificate/bundle")
        yield service, bots.tid
    finally:
        _stop(service)


def test_the_page_verifies_the_certificate_in_the_browser(
    event: tuple[Running, str], tmp_path: Path
) -> None:
    service, tid = event
    key = service.app.extensions["fairplay"].hand_log.signer.verifier_key()
    with borrowed() as (browser,):
        browser.get(f"{service.url}/tournaments/{tid}/certificate")
        command = browser.find_element(By.ID, "verify-command").text
        assert command == f"fairplay tournament verify certificate-{tid}.json --key '{key}'"
        assert browser.find_element(By.ID, "verify-status").get_attribute("aria-live")
        wait_for(lambda: browser.find_element(By.ID, "verify-key").text, 10, "the page's key")
        browser.find_element(By.ID, "verify-start").click()
        shown = wait_for(lambda: browser.find_elements(By.ID, "verify-result"), 120, "the checks")
        result = shown[0]
        shot(browser, tmp_path, "certificate-verified")
        assert "verified" in (result.get_attribute("class") or ""), result.text
        assert "every check it ran passed" in result.text
        rows = {
            r.get_attribute("data-check"): r.get_attribute("class")
            for r in browser.find_elements(By.CSS_SELECTOR, "#verify-out tr[data-check]")
        }
        for name in ("signatures", "chain", "inclusion", "deals", "records", "board scores"):
            assert rows.pop(name) == "ok", name
        assert rows.pop("audit") == "skip"
        assert set(rows.values()) == {"ok"}, rows
        progress = browser.find_element(By.ID, "verify-progress")
        assert progress.get_attribute("value") == progress.get_attribute("max")
        # the download is the bytes that were checked, the service's bundle
        checked = browser.execute_async_script(
            "const done = arguments[0];"
            "fetch(document.getElementById('verify-download').href)"
            ".then(r => r.text()).then(done);"
        )
        served = service.client().call("GET", f"/v1/tournaments/{tid}/certificate/bundle")
        assert json.loads(checked) == served
        logged = browser.get_log("browser")
        # on a phone the list reflows: nothing wider than the window
        browser.set_window_size(390, 844)
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= browser.execute_script("return window.innerWidth"), wide
        shot(browser, tmp_path, "certificate-verified-phone")
        errors = [e for e in logged if e["level"] == "SEVERE"]
        assert not errors, errors
