"""Registration refuses small-order and non-canonical Ed25519 keys, over real HTTP.

With the identity point as its key, a player's every action and every signed read could
be forged by anyone with ``R = identity, S = 0``; the service must refuse such a key at
registration, change nothing, and still register normal keys.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Callable

from api.client import Client, Identity
from api.signing import AUTH_SCHEME
from audit.log.ed25519 import NON_CANONICAL_SMALL_ORDER, SMALL_ORDER_POINTS
from audit.log.keys import key_hash
from tests.api.conftest import Running
from tests.api.helpers import error_of, open_table

IDENTITY = bytes.fromhex("01" + "00" * 31)
FORGED_SIG = base64.b64encode(IDENTITY + bytes(32)).decode()  # R = identity, S = 0
MALLORY = "p-" + hashlib.sha256(IDENTITY).hexdigest()[:20]  # the id the key would get


def vkey_text(name: str, raw: bytes) -> str:
    blob = base64.b64encode(b"\x01" + raw).decode()
    return f"{name}+{key_hash(name, raw).hex()}+{blob}"


def register_raw(c: Client, raw: bytes) -> None:
    c.call("POST", "/v1/players", {"name": "mallory", "public_key": vkey_text("m", raw)}, c.admin())


def test_weak_keys_are_refused_at_registration_and_change_nothing(
    backend: str, make_service: Callable[..., Running]
) -> None:
    svc = make_service(backend)
    c = svc.client()
    for raw in SMALL_ORDER_POINTS + NON_CANONICAL_SMALL_ORDER:
        err = error_of(lambda raw=raw: register_raw(c, raw))
        body = err.details["body"]
        assert err.status == 400 and body["code"] == "LOG_KEY_WEAK", body
        assert body["details"]["path"] == "public_key"
    assert c.call("GET", "/v1/players")["players"] == []
    log = svc.app.extensions["fairplay"].hand_log.log
    assert log.actor_keys(MALLORY) == []
    # a normal key still registers
    alice = Identity.generate("alice")
    assert c.register(alice, "alice")["id"] == alice.id
    assert [p["id"] for p in c.call("GET", "/v1/players")["players"]] == [alice.id]


def test_the_forged_read_gets_nothing(service: Running) -> None:
    c = service.client()
    err = error_of(lambda: register_raw(c, IDENTITY))
    assert err.status == 400 and err.error_code == "LOG_KEY_WEAK"
    t = open_table(c, service.origin)
    path = f"/v1/tables/{t.id}/hands/1/seats/N/cards"
    anon = service.client(admin=False)
    ts = int(time.time())
    # neither as the would-be identity-key player (never registered) nor as a real one
    for who in (MALLORY, t.players["N"].id):
        auth = f"{AUTH_SCHEME} player={who},ts={ts},sig={FORGED_SIG}"
        err = error_of(lambda auth=auth: anon.call("GET", path, headers={"Authorization": auth}))
        assert err.status == 401 and err.error_code == "INVALID_SIGNATURE"
