"""The tournament pages (api/routes/tournament_pages.py) on a real service: an event in
progress and a finished one, what a spectator and a player may read of a board before
the end and after, and a look at the event page in headless Chromium."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.client import Client
from api.routes.tournament_pages import num
from api.signing import sign_read
from api.tournament_bot import TournamentBots
from tests import browser

from .conftest import ADMIN, Running
from .test_tournaments import MITCHELL, open_event

# one worker plays the two events once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("tournament_pages")

SCREENS = Path(os.environ.get("FAIRPLAY_SCREENS", ""))  # a folder to keep the screenshots in


def play_until(bots: TournamentBots, tid: str, done: Callable[[dict[str, Any]], bool]) -> Any:
    """Let the bots play until ``done(event)``; the event then."""
    origin = bots.origin
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        doc = bots.client.call("GET", f"/v1/tournaments/{tid}")
        if done(doc):
            return doc
        if doc["phase"] == "revealing":
            bots.reveal_all(doc)
        elif doc["phase"] == "playing":
            for t in doc["rounds_played"][-1]["tables"]:
                bots._step(origin, t)
    raise TimeoutError(tid)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One service; one event stopped in round 2 (round 1 over), one played to its end."""
    from tests.api.serving import TestServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(
        {
            "data_dir": str(tmp_path_factory.mktemp("tpages")),
            "admin_token": ADMIN,
            "testing": True,
            "register_per_hour": 0,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    running = Running(app, f"http://127.0.0.1:{server.server_port}", server)
    _, live_id, live_bots = open_event(running, {**MITCHELL, "name": "Live pairs"}, 6)
    live = play_until(live_bots, live_id, lambda d: d["round"] == 2)
    _, over_id, over_bots = open_event(running, {**MITCHELL, "name": "Finished pairs"}, 6)
    over_bots.run(timeout=120)
    yield {
        "running": running,
        "live": live,
        "live_bots": live_bots,
        "over_id": over_id,
        "over_bots": over_bots,
    }
    server.shutdown()
    app.extensions["fairplay"].close()


def get(site: dict[str, Any], path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    client: Client = site["running"].client(admin=False)
    status, _, body = client.raw("GET", path, headers=headers or {})
    return status, body.decode()


def test_the_list_names_both_events(site: dict[str, Any]) -> None:
    status, html = get(site, "/tournaments")
    assert status == 200
    assert "Live pairs" in html and "Finished pairs" in html
    assert html.index("Finished pairs") < html.index("Live pairs")  # newest first
    status, home = get(site, "/")
    assert status == 200 and 'href="/tournaments"' in home


def test_an_event_in_progress_shows_rounds_seating_and_live_standings(
    site: dict[str, Any],
) -> None:
    live = site["live"]
    status, html = get(site, f"/tournaments/{live['id']}")
    assert status == 200
    # follows the event while it runs, in place (no meta refresh: it throws focus away)
    assert 'id="follow" data-every="5"' in html and 'http-equiv="refresh"' not in html
    assert 'Round <b id="round">2</b> of 3' in html
    assert 'id="round-1"' in html and 'id="round-2"' in html and 'id="round-3"' not in html
    # every table of round 2 with its four players' names, round 1 finished
    for t in live["rounds_played"][1]["tables"]:
        assert f'id="r2t{t["table"]}"' in html
    assert html.count("2/2 finished") >= 3
    for n in ("bot0a", "bot0b", "bot5a"):
        assert n in html
    # standings after round 1: all six pairs, two fields, and no certificate yet
    assert html.count("/pairs/") >= 6 and "NS field" not in html and "N–S field" in html
    assert "The certificate is issued when the event ends" in html
    assert "/certificate" not in html


def test_a_board_is_hidden_from_a_spectator_before_the_end(site: dict[str, Any]) -> None:
    live = site["live"]
    status, html = get(site, f"/tournaments/{live['id']}/boards/1")
    assert status == 403
    assert 'id="hidden"' in html and "hidden until the event ends" in html
    assert 'id="sheet"' not in html


def test_a_board_is_shown_to_a_player_who_played_it_and_not_to_another(
    site: dict[str, Any],
) -> None:
    live, bots = site["live"], site["live_bots"]
    first = live["rounds_played"][0]["tables"][0]
    board = first["boards"][0]
    path = f"/tournaments/{live['id']}/boards/{board}"

    def signed(player: str) -> dict[str, str]:
        ident = bots.entrants[player].ident
        return {"Authorization": sign_read(ident.signer, ident.id, "GET", path, int(time.time()))}

    status, html = get(site, path, signed(first["seats"]["N"]))
    assert status == 200 and 'id="sheet"' in html and 'id="deal"' not in html
    stranger = next(
        p
        for t in live["rounds_played"][0]["tables"]
        if board not in t["boards"]
        for p in t["seats"].values()
    )
    status, html = get(site, path, signed(stranger))
    assert status == 403 and 'id="hidden"' in html


def test_a_pair_card_in_progress_shows_its_rounds_not_its_results(site: dict[str, Any]) -> None:
    live = site["live"]
    status, html = get(site, f"/tournaments/{live['id']}/pairs/1")
    assert status == 200
    assert 'id="hidden"' in html and 'id="card"' in html
    assert "/ 2</td>" not in html  # no matchpoints out of a top
    assert 'id="place"' in html  # its running total is public, as the standings are


def test_a_finished_event_shows_sheets_cards_and_the_certificate_link(
    site: dict[str, Any],
) -> None:
    tid = site["over_id"]
    status, html = get(site, f"/tournaments/{tid}")
    assert status == 200 and 'id="follow"' not in html
    assert f'href="/v1/tournaments/{tid}/certificate"' in html and "Final standings" in html
    assert f'href="/tournaments/{tid}/certificate"' in html  # the page, for a person
    standings = site["running"].client().call("GET", f"/v1/tournaments/{tid}/standings")
    # first, or tied for first ("1-2": the bots' seeds are drawn afresh each run)
    winner = next(s for s in standings["standings"] if str(s["place"]).split("-")[0] == "1")
    assert f"{winner['percentage']:.2f}" in html
    status, board = get(site, f"/tournaments/{tid}/boards/4")
    assert status == 200 and 'id="deal"' in board and 'id="sheet"' in board
    sheet = next(b for b in standings["boards"] if b["board"] == 4)
    # each row's cells carry their column's name (the sheet reflows on a phone)
    assert board.count('<tr><td data-label="round">') == len(sheet["results"]) == 3
    for r in sheet["results"]:
        assert f'<td class="num" data-label="NS score">{r["ns_score"]}</td>' in board
    status, card = get(site, f"/tournaments/{tid}/pairs/{winner['pair_number']}")
    assert status == 200 and 'id="hidden"' not in card
    assert card.count("/ 2</td>") == 6  # six boards, each out of a top of 2
    assert f"{num(winner['score'])} MP" in card
    # its tables are on its own pages, not among the ordinary tables of the home page
    doc = site["running"].client().call("GET", f"/v1/tournaments/{tid}")
    ids = {t["id"] for r in doc["rounds_played"] for t in r["tables"]}
    assert len(ids) == 9
    status, home = get(site, "/")
    assert status == 200 and not [i for i in ids if f'href="/tables/{i}"' in home]
    status, table = get(site, f"/tables/{sorted(ids)[0]}")
    assert status == 200  # over: anyone reads it


def test_missing_things_are_404_pages_not_errors(site: dict[str, Any]) -> None:
    tid = site["over_id"]
    assert get(site, "/tournaments/e-nope")[0] == 404
    assert get(site, f"/tournaments/{tid}/boards/99")[0] == 404
    assert get(site, f"/tournaments/{tid}/pairs/99")[0] == 404


def test_a_round_robin_event_page_shows_its_pairs(site: dict[str, Any]) -> None:
    client = site["running"].client()
    body = {"name": "Rubber RR", "format": "rubber-round-robin", "pairs": 3, "hands_per_match": 1}
    tid = client.call("POST", "/v1/tournaments", body, client.admin())["id"]
    status, page = get(site, f"/tournaments/{tid}")
    assert status == 200 and "Rubber RR" in page


def test_the_pages_in_chromium(site: dict[str, Any], tmp_path: Path) -> None:
    url = site["running"].url
    client = site["running"].client()
    body = {"name": "Rubber RR", "format": "rubber-round-robin", "pairs": 3, "hands_per_match": 1}
    rr = client.call("POST", "/v1/tournaments", body, client.admin())["id"]
    shots = {
        "event-rr": f"/tournaments/{rr}",
        "event-live": f"/tournaments/{site['live']['id']}",
        "event-over": f"/tournaments/{site['over_id']}",
        "board": f"/tournaments/{site['over_id']}/boards/4",
        "pair": f"/tournaments/{site['over_id']}/pairs/1",
    }
    out = SCREENS if str(SCREENS) not in ("", ".") and SCREENS.is_dir() else tmp_path
    for name, path in shots.items():
        png = browser.screenshot(url + path, out / f"tpages-{name}.png", "1200,1400")
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
    dom = browser.dump_dom(url + f"/tournaments/{site['over_id']}")
    assert 'id="standings"' in dom and "Final standings" in dom
