"""The analysis page on a phone (390 px, Chromium through Selenium): while the event's
analysis is built it shows a progress bar and "1 of 4 hands" in a live region; when the
build is done the analysis takes the bar's place by itself, without a reload; the
document is never wider than the window. Then the same page on a desktop (1280 px).

The build is held after its first hand (api/faults.py) until the page has been seen.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import faults
from api.tournament_bot import TournamentBots
from tests.api.test_analysis import HANDS, Gate
from tests.api.test_play_browser import borrowed, shot, wait_for
from tests.api.test_tournament_certificate import BEACON, MITCHELL

from .conftest import Running, start_service, stop_service

pytestmark = pytest.mark.browser

from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, str, Gate]]:
    gate = Gate()
    faults.hold("analysis_hand", gate)
    service = start_service(tmp_path_factory.mktemp("analysis-page"))
    try:
        client = service.client()
        bots = TournamentBots.open(client, MITCHELL, 4, random.Random(23), BEACON)
        assert bots.run(timeout=300)["phase"] == "over"
        assert gate.reached.wait(60), "the end of the event did not start the analysis"
        yield service, bots.tid, gate
    finally:
        faults.hold("analysis_hand", None)
        gate.opened.set()
        stop_service(service)


def fits(browser: object) -> bool:
    wide = browser.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    inner = browser.execute_script("return window.innerWidth")  # type: ignore[attr-defined]
    return bool(wide <= inner)


def test_the_page_shows_the_progress_then_the_analysis_at_390_px(
    event: tuple[Running, str, Gate], tmp_path: Path
) -> None:
    service, tid, gate = event
    with borrowed() as (browser,):
        browser.set_window_size(390, 844)
        browser.get(f"{service.url}/tournaments/{tid}/analysis")
        bar = browser.find_element(By.ID, "analysis-progress")
        assert (bar.get_attribute("value"), bar.get_attribute("max")) == ("1", str(HANDS))
        status = browser.find_element(By.ID, "analysis-status")
        assert status.text == f"1 of {HANDS} hands"
        assert status.get_attribute("aria-live") == "polite"
        label = browser.find_element(By.CSS_SELECTOR, "label[for=analysis-progress]")
        assert label.text == "Hands analysed"
        assert fits(browser)
        shot(browser, tmp_path, "analysis-building-390")
        # a mark on this very document: a reload would lose it
        browser.execute_script("window.stayed = true")
        gate.opened.set()
        wait_for(
            lambda: browser.find_elements(By.CSS_SELECTOR, "#analysis h3"),
            60,
            "the analysis in place of the bar",
        )
        assert browser.execute_script("return window.stayed === true"), "the page reloaded"
        assert not browser.find_elements(By.ID, "analysis-progress")
        assert browser.find_element(By.ID, "analysis-status").text == "The analysis is ready."
        headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#analysis h3")]
        assert headings[:2] == ["Pairs", "Players"]
        pairs = browser.find_elements(By.CSS_SELECTOR, "#analysis table tbody tr")
        assert len(pairs) >= 4
        assert fits(browser)
        tall = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(390, min(tall + 100, 4000))
        shot(browser, tmp_path, "analysis-done-390")
        browser.set_window_size(1280, 800)
        browser.get(f"{service.url}/tournaments/{tid}/analysis")
        assert browser.find_elements(By.CSS_SELECTOR, "#analysis h3")
        assert fits(browser)
        shot(browser, tmp_path, "analysis-done-1280")


def test_a_failed_build_is_said_on_the_page(
    event: tuple[Running, str, Gate], tmp_path: Path
) -> None:
    """The page's follower (api/static/js/analysis.js), in Chromium, answered 503
    BUILD_FAILED (the service's error page, Retry-After 300): it stops following, takes
    the progress away and says the service's words in its live region, at once (the
    requests' retry returns a 503 that asks for more than its patience)."""
    service, tid, gate = event
    gate.opened.set()  # the analysis stored: the page's own follower is not running
    client = service.client()
    wait_for(lambda: client.raw("GET", f"/v1/tournaments/{tid}/analysis")[0] == 200, 60, "stored")
    with borrowed() as (browser,):
        browser.set_window_size(390, 844)
        browser.get(f"{service.url}/tournaments/{tid}/analysis")
        said = browser.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const box = document.createElement("div");
            box.id = "analysis-building";
            box.dataset.retryAfter = "2";
            box.innerHTML = '<progress id="analysis-progress"></progress>'
              + '<p id="analysis-started"></p>';
            document.getElementById("analysis").before(box);
            let asked = 0;
            const fetch = async () => {
              asked++;
              return new Response(
                '<h2>Unavailable</h2><p id="error-message">the analysis of this event could '
                  + 'not be built (records[3]: not a hand)</p>',
                { status: 503, headers: { "Retry-After": "300", "Content-Type": "text/html" } });
            };
            import("/static/js/analysis.js")
              .then((m) => m.followAnalysis({ fetch, sleep: async () => {} }))
              .then(() => done([
                document.getElementById("analysis-status").textContent,
                asked,
                !!document.getElementById("analysis-progress"),
              ]), (err) => done(String(err)));
            """
        )
        assert said == [
            "The analysis of this event could not be built (records[3]: not a hand) (HTTP 503)",
            1,
            False,
        ], said
        shot(browser, tmp_path, "analysis-failed-390")
