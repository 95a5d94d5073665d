"""The browser's verifyCertificate on an event dealt by cayenne-tournament-deals/2.

Bots play a one-table event whose boards come from a local drand chain served over HTTP
(tests/drandlocal.py), with a reveal deadline, as tests/api/test_tournament_beacon.py
plays it. The genuine bundle passes every check the browser runs, the drand round's BLS
signature shown as left to the command; the deal logged with another round than the
start names (the next or the one before, validly signed by the chain), or with none,
re-signed with the log key as an operator would, is refused naming the field, as
test_tournament_beacon's certify refuses them (SHUFFLE_BEACON_INVALID, SHUFFLE_INCOMPLETE).
"""

from __future__ import annotations

import copy
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from api import create_app
from api.tournament_bot import TournamentBots
from audit.log.keys import Signer
from tests.api.conftest import ADMIN, Running
from tests.api.forge import Forger
from tests.api.serving import TestServer
from tests.api.test_tournament_beacon import ONE_TABLE
from tests.drandlocal import LocalDrand
from tests.js.test_verify_certificate import verify_in_node

pytestmark = pytest.mark.xdist_group("certificate_js_v2")


class Stale(Forger):
    """A forger whose certificate is the genuine one (certify refuses these deals):
    the deal event, the checkpoint, the proofs and the note re-signed with the log key."""

    def _certify(self) -> dict[str, Any]:
        return copy.deepcopy(self.bundle["certificate"])


class Played:
    def __init__(self, bundle: dict[str, Any], signer: Signer, chain: LocalDrand) -> None:
        self.bundle, self.signer, self.chain = bundle, signer, chain


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    chain = LocalDrand(0x51DE_2026, int(time.time()) - 1, 1)
    url, drand = chain.serve()
    app = create_app(
        {
            "data_dir": str(tmp_path_factory.mktemp("v2")),
            "admin_token": ADMIN,
            "testing": True,
            "register_per_hour": 0,
            "beacon_url": url,
        }
    )
    server = TestServer("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    service = Running(app, f"http://127.0.0.1:{server.server_port}", server)
    try:
        client = service.client()
        bots = TournamentBots.open(client, ONE_TABLE, 2, random.Random(3), None, reveal_seconds=2)
        assert bots.run(timeout=120)["phase"] == "over"
        bundle = bots.certificate_bundle(timeout=120)
        yield Played(bundle, app.extensions["fairplay"].hand_log.signer, chain)
    finally:
        server.shutdown()
        app.extensions["fairplay"].close()
        drand.shutdown()


def _deal_beacon(shift: int | None) -> Callable[[Played], dict[str, Any]]:
    def make(p: Played) -> dict[str, Any]:
        f = Stale(p.bundle, p.signer)
        deal = f.server_event(f.tid, "event", "tournament_deal")
        if shift is None:
            del deal["body"]["beacon"]
        else:
            deal["body"]["beacon"] = p.chain.round(
                deal["body"]["beacon"]["round"] + shift
            ).to_json()
        f.mark(deal)
        return f.finish()

    return make


CASES: dict[str, tuple[Callable[[Played], Any], str, str]] = {
    "genuine": (lambda p: p.bundle, "", ""),
    "the forger's re-signing alone": (lambda p: Stale(p.bundle, p.signer).finish(), "", ""),
    "the next round": (_deal_beacon(1), "SHUFFLE_BEACON_INVALID", "beacon.round: round"),
    "the round before": (_deal_beacon(-1), "SHUFFLE_BEACON_INVALID", "beacon.round: round"),
    "no round": (_deal_beacon(None), "SHUFFLE_INCOMPLETE", "beacon.signature"),
}


@pytest.fixture(scope="module")
def checked(played: Played, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    bundles = [make(played) for make, _, _ in CASES.values()]
    lines = verify_in_node(
        tmp_path_factory.mktemp("v2-cases"), played.signer.verifier_key(), bundles
    )
    return dict(zip(CASES, lines, strict=True))


@pytest.mark.parametrize("name", list(CASES))
def test_a_version_2_event_in_the_browser(checked: dict[str, Any], name: str) -> None:
    result = checked[name]
    _, code, text = CASES[name]
    by = {c["check"]: c for c in result["checks"]}
    if not code:
        assert result["ok"], [c for c in result["checks"] if c["ok"] is False]
        assert by["deals"]["ok"] and "cayenne-tournament-deals/2" in by["deals"]["detail"]
        assert by["beacon signature"]["ok"] is None
        assert "BLS signature" in by["beacon signature"]["detail"]
        return
    assert not result["ok"]
    assert by["deals"]["ok"] is False and by["deals"]["code"] == code, by["deals"]
    assert text in by["deals"]["detail"], by["deals"]
