"""A split view caught by a browser that saw both histories (real Chromium, real HTTP).

Service A and service B share one log key and one origin, and answer at the same
``127.0.0.1:PORT`` one after the other, so the person's browser keeps one localStorage
for both. B's database is a copy of A's taken when the table was opened: the same table,
the same players, then another hand 1. Two real ``fairplay witness`` processes cosign
A's log; the page on A pins the witnesses the service names (2 of 2), checks the log
and verifies hand 1, keeping A's checkpoint. A stops; B starts on the same port; the same
URL now shows B's history: the page reports the split view with both checkpoints, the
witness quorum unmet and the hand failed, and a witness that cosigned A refuses B.
Screenshots go to ``FAIRPLAY_SCREENSHOTS`` (named ``split-*.png``) and the tmp dir.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.bot import TableBots
from audit.log.keys import generate_signer, save_signer
from audit.log.witness import verify_split_view_evidence
from tests.api.conftest import ADMIN, Running
from tests.api.helpers import free_port
from tests.api.test_witness_e2e import Witnesses, get_text

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from tests.api.test_play_browser import borrowed, found, shot, wait_for  # noqa: E402

ORIGIN = "fairplay.test/split-browser"


def serve(data: Path, port: int, settings: dict[str, Any]) -> Running:
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    config = {
        "data_dir": str(data),
        "admin_token": ADMIN,
        "testing": True,
        "register_per_hour": 0,
        **settings,
    }
    app = create_app(config)
    server = TestServer("127.0.0.1", port, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return Running(app, f"http://127.0.0.1:{port}", server)


def stop(svc: Running) -> None:
    svc.server.shutdown()
    svc.server.server_close()
    svc.app.extensions["fairplay"].close()


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with borrowed() as (driver,):
        yield driver


def checks(driver: WebDriver, table_css: str) -> dict[str, tuple[bool, str]]:
    """The check table's rows, read again whole if the page re-renders it meanwhile."""
    out: dict[str, tuple[bool, str]] = {}
    for _ in range(50):
        try:
            out = {
                row.get_attribute("data-check"): (
                    row.get_attribute("class") == "ok",
                    row.find_elements(By.TAG_NAME, "td")[2].text,
                )
                for row in found(driver, f"{table_css} tr")
            }
            return out
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{table_css} kept being re-rendered")


def test_a_browser_that_saw_both_views_reports_the_split(
    browser: WebDriver, tmp_path: Path
) -> None:
    w = Witnesses(tmp_path)
    key_file = tmp_path / "log-key"
    save_signer(generate_signer(ORIGIN), key_file)
    shared = {"log_key_file": str(key_file), "log_origin": ORIGIN, "witness_keys": w.vkeys[:2]}
    port = free_port()
    a = serve(tmp_path / "a", port, shared)
    url = a.url
    try:
        bots = TableBots.open(a.client(), random.Random(1))
        # the other view starts from this copy: the table and its players, no hand played
        (tmp_path / "b").mkdir()
        src = sqlite3.connect(tmp_path / "a" / "fairplay.db")
        dst = sqlite3.connect(tmp_path / "b" / "fairplay.db")
        src.backup(dst)
        src.close()
        dst.close()
        bots.play_hand(1)  # hand 2 opens: the page is told hand 1 is over
        assert a.client().hand(bots.table, 2)
        for n in (1, 2):
            done = w.once(n, url)
            assert done.returncode == 0 and "cosigned size" in done.stdout, done.stderr
        seen_a = get_text(url + "/v1/log/checkpoint")

        browser.get(f"{url}/play/{bots.table}")
        wait_for(lambda: found(browser, '#verify-result[data-hand="1"]'), 60, "hand 1 on A")
        wait_for(lambda: found(browser, "#log-checks"), 10, "the log's checks on A")
        shot(browser, tmp_path, "split-1-service-a")
        assert not browser.find_element(By.ID, "log-alarm").is_displayed()
        result = browser.find_element(By.ID, "verify-result")
        assert "verified" in (result.get_attribute("class") or ""), checks(browser, "table.checks")
        hand = checks(browser, "#verification table.checks")
        assert hand["witnesses"][0], hand
        assert "2 of 2" in hand["witnesses"][1] and "needs 2" in hand["witnesses"][1]
        log = checks(browser, "#log-checks")
        assert all(ok for ok, _ in log.values()), log
        assert "cosigned by 2 of 2 (w1.test, w2.test)" in log["witnesses"][1]
        pinned = json.loads(
            browser.execute_script("return localStorage.getItem('cayenne-fairplay:witness-policy')")
        )
        assert pinned == {"witnesses": w.vkeys[:2], "quorum": 2}
        kept_a = browser.execute_script(
            "return localStorage.getItem('cayenne-fairplay:last-checkpoint')"
        )
        assert kept_a == seen_a  # the newest checkpoint verified, with its cosignatures
        browser.get("about:blank")  # the page's stream to A ends
    finally:
        stop(a)

    # B: the same port (the same origin for the browser), the same key, another history
    b = serve(tmp_path / "b", port, shared)
    try:
        assert b.url == url
        other = TableBots(b.client(), ORIGIN, bots.table, bots.players, random.Random(2))
        other.play_hand(1)
        assert b.client().hand(bots.table, 2)
        seen_b = get_text(url + "/v1/log/checkpoint")
        assert seen_b != seen_a

        refused = w.once(1, url)  # the witness that cosigned A refuses B
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "REFUSED split view" in refused.stderr
        evidence = json.loads((tmp_path / "evidence-w1.json").read_text())
        verify_split_view_evidence(evidence, get_text(url + "/v1/log/key").strip())
        assert evidence["checkpoints"][1] == seen_b

        browser.get(f"{url}/play/{bots.table}")
        wait_for(lambda: found(browser, "#split-view"), 30, "the split view on B")
        wait_for(lambda: found(browser, '#verify-result[data-hand="1"]'), 60, "hand 1 on B")
        browser.execute_script("document.getElementById('log-view').scrollIntoView()")
        shot(browser, tmp_path, "split-2-service-b-log")
        browser.execute_script("window.scrollTo(0, 0)")
        shot(browser, tmp_path, "split-3-service-b-top")

        # the fork, plainly, with the two checkpoints
        assert browser.find_element(By.ID, "log-result").get_attribute("class") == "failed"
        alarm = browser.find_element(By.ID, "log-alarm")
        assert alarm.is_displayed() and alarm.text.startswith("SPLIT VIEW"), alarm.text
        assert "Split view" in browser.find_element(By.ID, "split-view").text
        first = browser.find_element(By.ID, "fork-first").text
        second = browser.find_element(By.ID, "fork-second").text
        assert first.split("\n")[:3] == seen_a.split("\n")[:3]
        assert second.split("\n")[:3] == seen_b.split("\n")[:3]
        log = checks(browser, "#log-checks")
        assert log["log checkpoint"][0], log  # B signs with the same key: only history differs
        assert not log["same log as before"][0] and "SPLIT VIEW" in log["same log as before"][1]
        assert not log["witnesses"][0] and "missing: w1.test, w2.test" in log["witnesses"][1]
        bad = [li.get_attribute("data-witness") for li in found(browser, "#witness-list li.bad")]
        assert bad == ["w1.test", "w2.test"]
        # the hand B shows fails in the page, and the browser keeps A's checkpoint
        assert "failed" in (
            browser.find_element(By.ID, "verify-result").get_attribute("class") or ""
        )
        hand = checks(browser, "#verification table.checks")
        assert not hand["last checkpoint"][0] and not hand["witnesses"][0], hand
        kept = browser.execute_script(
            "return localStorage.getItem('cayenne-fairplay:last-checkpoint')"
        )
        assert kept == kept_a

        # the person edits the pinned policy on the page: a bad quorum is refused and
        # nothing changes; with no witnesses required, the split view is still reported
        browser.find_element(By.CSS_SELECTOR, "#policy-editor summary").click()
        quorum = browser.find_element(By.ID, "policy-quorum")
        quorum.clear()
        quorum.send_keys("3")
        browser.find_element(By.ID, "policy-save").click()
        status = wait_for(lambda: browser.find_element(By.ID, "policy-status").text, 10)
        assert status.startswith("Not saved") and "quorum 3" in status, status
        browser.find_element(By.ID, "policy-keys").clear()
        quorum.clear()
        quorum.send_keys("0")
        browser.find_element(By.ID, "policy-save").click()
        wait_for(lambda: "no witness policy" in checks(browser, "#log-checks")["witnesses"][1], 10)
        assert json.loads(
            browser.execute_script("return localStorage.getItem('cayenne-fairplay:witness-policy')")
        ) == {"witnesses": [], "quorum": 0}
        assert found(browser, "#split-view")
        assert not checks(browser, "#log-checks")["same log as before"][0]
    finally:
        stop(b)
