"""The browser's verifyCertificate on an event dealt by cayenne-tournament-deals/2.

Bots play a one-table event whose boards come from a local drand chain served over HTTP
(tests/drandlocal.py), with a reveal deadline, as tests/api/test_tournament_beacon.py
plays it. The genuine bundle passes every check the browser runs, the drand round's BLS
signature among them (on a service built without the BLS bundle, left to the command).
Every tamper case is re-signed with the log key as an operator would, and refused as
test_tournament_beacon's certify refuses it: the deal logged with another round than the
start names (the next or the one before, validly signed by the chain), or with none, fails
the deals naming the field (SHUFFLE_BEACON_INVALID, SHUFFLE_INCOMPLETE); the round the
start names with a signature the chain did not make for it (a flipped byte, the next
round's signature; its randomness recomputed) fails the beacon signature
(SHUFFLE_BEACON_INVALID at beacon.signature), in Node, in Chromium, and in
`fairplay tournament verify` on the same files.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.tournament_bot import TournamentBots
from audit.cli import main as audit_main
from audit.log.keys import Signer
from tests.api.conftest import ADMIN, Running
from tests.api.forge import Forger
from tests.api.serving import TestServer
from tests.api.test_play_browser import borrowed, shot, wait_for
from tests.api.test_tournament_beacon import ONE_TABLE
from tests.drandlocal import LocalDrand
from tests.js.test_js import bls_bundle
from tests.js.test_verify_certificate import verify_in_node

pytestmark = pytest.mark.xdist_group("certificate_js_v2")

from selenium.webdriver.common.by import By  # noqa: E402


class Stale(Forger):
    """A forger whose certificate is the genuine one (certify refuses these deals):
    the deal event, the checkpoint, the proofs and the note re-signed with the log key."""

    def _certify(self) -> dict[str, Any]:
        return copy.deepcopy(self.bundle["certificate"])


class Played:
    def __init__(
        self, bundle: dict[str, Any], signer: Signer, chain: LocalDrand, url: str, tid: str
    ) -> None:
        self.bundle, self.signer, self.chain, self.url, self.tid = bundle, signer, chain, url, tid


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
        signer = app.extensions["fairplay"].hand_log.signer
        yield Played(bundle, signer, chain, service.url, bots.tid)
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


def _deal_signature(forge: Callable[[Played, dict[str, Any]], str]) -> Callable[[Played], Any]:
    """The round the start names, with another signature (its randomness recomputed)."""

    def make(p: Played) -> dict[str, Any]:
        f = Stale(p.bundle, p.signer)
        deal = f.server_event(f.tid, "event", "tournament_deal")
        beacon = deal["body"]["beacon"]
        beacon["signature"] = forge(p, beacon)
        beacon["randomness"] = hashlib.sha256(bytes.fromhex(beacon["signature"])).hexdigest()
        f.mark(deal)
        return f.finish()

    return make


def _flipped(p: Played, beacon: dict[str, Any]) -> str:
    sig = bytearray.fromhex(beacon["signature"])
    sig[17] ^= 0x40
    return sig.hex()


CASES: dict[str, tuple[Callable[[Played], Any], str, str, str]] = {
    "genuine": (lambda p: p.bundle, "", "", ""),
    "the forger's re-signing alone": (lambda p: Stale(p.bundle, p.signer).finish(), "", "", ""),
    "the next round": (_deal_beacon(1), "deals", "SHUFFLE_BEACON_INVALID", "beacon.round: round"),
    "the round before": (
        _deal_beacon(-1),
        "deals",
        "SHUFFLE_BEACON_INVALID",
        "beacon.round: round",
    ),
    "no round": (_deal_beacon(None), "deals", "SHUFFLE_INCOMPLETE", "beacon.signature"),
    "a flipped byte of the signature": (
        _deal_signature(_flipped),
        "beacon signature",
        "SHUFFLE_BEACON_INVALID",
        "beacon.signature: ",
    ),
    "the next round's signature": (
        _deal_signature(lambda p, b: p.chain.round(b["round"] + 1).signature),
        "beacon signature",
        "SHUFFLE_BEACON_INVALID",
        "beacon.signature: round",
    ),
}
"""name: (the bundle, the check that fails, its code, text its detail holds)."""
SIGNATURE_CASES = [n for n, c in CASES.items() if c[1] == "beacon signature"]


@pytest.fixture(scope="module")
def bundles(played: Played) -> dict[str, Any]:
    return {name: make(played) for name, (make, *_) in CASES.items()}


@pytest.fixture(scope="module")
def checked(
    played: Played, bundles: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    lines = verify_in_node(
        tmp_path_factory.mktemp("v2-cases"), played.signer.verifier_key(), list(bundles.values())
    )
    return dict(zip(CASES, lines, strict=True))


def _genuine_signature(check: dict[str, Any], rnd: int) -> None:
    if bls_bundle():
        assert check["ok"] is True, check
        assert check["detail"].startswith(
            f"drand round {rnd}'s BLS signature (pedersen-bls-chained) verifies under the key"
        ), check
    else:
        assert check["ok"] is None, check
        assert "not checked in the browser" in check["detail"], check


@pytest.mark.parametrize("name", list(CASES))
def test_a_version_2_event_in_the_browser(
    played: Played, checked: dict[str, Any], name: str
) -> None:
    result = checked[name]
    _, failing, code, text = CASES[name]
    by = {c["check"]: c for c in result["checks"]}
    if not code:
        assert result["ok"], [c for c in result["checks"] if c["ok"] is False]
        assert by["deals"]["ok"] and "cayenne-tournament-deals/2" in by["deals"]["detail"]
        rnd = played.bundle["certificate"]["deal_inputs"]["beacon"]["round"]
        _genuine_signature(by["beacon signature"], rnd)
        return
    assert not result["ok"]
    if failing == "beacon signature" and not bls_bundle():
        pytest.skip("the BLS bundle is not built (make)")
    assert by[failing]["ok"] is False and by[failing]["code"] == code, by[failing]
    assert text in by[failing]["detail"], by[failing]


@pytest.mark.parametrize("name", SIGNATURE_CASES)
def test_the_command_refuses_the_forged_signatures_too(
    played: Played,
    bundles: dict[str, Any],
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`fairplay tournament verify` on the very file the browser refused."""
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundles[name]))
    key = played.signer.verifier_key()
    capsys.readouterr()
    assert audit_main(["tournament", "verify", str(path), "--key", key]) == 1
    said = capsys.readouterr().err  # the certificate cannot be recomputed: the round's
    assert "beacon.signature: round" in said, said  # signature is not the chain's
    assert "does not verify under the chain's public key" in said, said


@pytest.mark.browser
def test_chromium_checks_the_drand_signature(
    played: Played, bundles: dict[str, Any], checked: dict[str, Any], tmp_path: Path
) -> None:
    """The certificate page's "Verify in this browser" passes the genuine round's signature
    (the bundle /static/vendor/bls.js loaded from the service); in the same page, the
    verifier refuses the forged signatures as Node does; with the bundle blocked, the page
    still verifies everything else and leaves the signature to the command."""
    key = played.signer.verifier_key()
    rnd = played.bundle["certificate"]["deal_inputs"]["beacon"]["round"]
    with borrowed() as (browser,):

        def verify_on_page(name: str) -> dict[str, str | None]:
            browser.get(f"{played.url}/tournaments/{played.tid}/certificate")
            wait_for(lambda: browser.find_element(By.ID, "verify-key").text, 10, "key")
            browser.find_element(By.ID, "verify-start").click()
            wait_for(lambda: browser.find_elements(By.ID, "verify-result"), 120, "checks")
            shot(browser, tmp_path, name)
            rows = browser.find_elements(By.CSS_SELECTOR, "#verify-out tr[data-check]")
            return {r.get_attribute("data-check") or "": r.get_attribute("class") for r in rows}

        rows = verify_on_page("certificate-v2-verified")
        result = browser.execute_script("return window.cayenneCertificate")
        by = {c["check"]: c for c in result["checks"]}
        _genuine_signature(by["beacon signature"], rnd)
        assert rows["beacon signature"] == ("ok" if bls_bundle() else "skip"), rows
        assert result["ok"], [c for c in result["checks"] if c["ok"] is False]
        browser.set_window_size(390, 844)  # the longer detail reflows on a phone
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= browser.execute_script("return window.innerWidth"), wide
        shot(browser, tmp_path, "certificate-v2-verified-phone")
        browser.set_window_size(1280, 800)
        # the tamper cases, by the page's own module, as Node checked them
        script = (
            "const [bundles, key, done] = arguments;"
            "import('/static/js/certificate.js')"
            ".then(async (m) => { const out = [];"
            "  for (const b of bundles) out.push(await m.verifyCertificateDetailed(b, key));"
            "  return out; })"
            ".then(done, (e) => done(String(e)));"
        )
        names = ["genuine", *SIGNATURE_CASES]
        got = browser.execute_async_script(script, [bundles[n] for n in names], key)
        assert isinstance(got, list), got
        for name, res in zip(names, got, strict=True):
            mine = {c["check"]: (c["ok"], c.get("code")) for c in res["checks"]}
            node = {c["check"]: (c["ok"], c.get("code")) for c in checked[name]["checks"]}
            assert mine == node, name
        logged = browser.get_log("browser")  # without the bundle: its 404 alone
        errors = [e for e in logged if e["level"] == "SEVERE"]
        if not bls_bundle():
            errors = [e for e in errors if "/static/vendor/bls.js" not in e["message"]]
        assert not errors, errors
        # a service without the bundle (here: blocked): the page still works
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/static/vendor/*"]})
        rows = verify_on_page("certificate-v2-without-bls")
        assert rows.pop("beacon signature") == "skip"
        assert rows.pop("audit") == "skip"
        assert set(rows.values()) == {"ok"}, rows
        status = browser.find_element(By.ID, "verify-result").text
        assert "every check it ran passed (2 left to the command above)" in status, status
