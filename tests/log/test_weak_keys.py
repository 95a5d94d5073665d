"""Weak Ed25519 keys: small-order and non-canonical public keys, and non-canonical ``S``.

OpenSSL (through ``cryptography``) verifies ``R = identity, S = 0`` under the identity
key for every message; each test here shows that every place that accepts a key or a
signature refuses the weak ones, and that a normal key still works.

The small-order points are computed here independently of ``audit.log.ed25519``, with
affine Edwards arithmetic: ``[L]Q`` of a random curve point ``Q`` is a torsion point,
and the multiples of one of order 8 are all eight.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.cli import main
from audit.log import note
from audit.log.bundle import build_bundle, verify_bundle
from audit.log.ed25519 import NON_CANONICAL_SMALL_ORDER, SMALL_ORDER_POINTS, L, P
from audit.log.errors import LogError, LogSignatureInvalid, WeakKeyError
from audit.log.events import canonical_json, make_event, signing_input, verify_event
from audit.log.keys import Signer, Verifier, generate_signer, key_hash, load_verifier
from audit.log.store import open_log
from audit.log.verify import verify_log

from .conftest import ORIGIN, hand_events

# --- an independent reference: affine arithmetic on edwards25519 (-x² + y² = 1 + d x²y²)

D = -121665 * pow(121666, -1, P) % P
Pt = tuple[int, int]


def _add(a: Pt, b: Pt) -> Pt:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return (
        (x1 * y2 + x2 * y1) * pow(1 + t, -1, P) % P,
        (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P,
    )


def _mul(k: int, a: Pt) -> Pt:
    out: Pt = (0, 1)
    while k:
        if k & 1:
            out = _add(out, a)
        a, k = _add(a, a), k >> 1
    return out


def _point_with_y(y: int) -> Pt | None:
    xx = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    if pow(xx, (P - 1) // 2, P) not in (0, 1):
        return None
    # P ≡ 5 (mod 8): a square root is xx^((P+3)/8), times sqrt(-1) if needed
    x = pow(xx, (P + 3) // 8, P)
    if x * x % P != xx:
        x = x * pow(2, (P - 1) // 4, P) % P
    return (x, y)


def _encode(pt: Pt) -> bytes:
    x, y = pt
    return (y | (x & 1) << 255).to_bytes(32, "little")


def torsion_points() -> set[bytes]:
    rng = random.Random(8032)
    while True:
        q = _point_with_y(rng.randrange(P))
        if q is None:
            continue
        t = _mul(L, q)
        if _mul(4, t) != (0, 1):  # of order 8: its multiples are the whole torsion subgroup
            return {_encode(_mul(k, t)) for k in range(8)}


def vkey_text(name: str, raw: bytes) -> str:
    """The C2SP verifier key text of any 32 bytes (a Verifier refuses to make it)."""
    blob = base64.b64encode(b"\x01" + raw).decode()
    return f"{name}+{key_hash(name, raw).hex()}+{blob}"


IDENTITY = bytes.fromhex("01" + "00" * 31)
FORGED_SIG = IDENTITY + bytes(32)  # R = identity, S = 0
WEAK = SMALL_ORDER_POINTS + NON_CANONICAL_SMALL_ORDER
Y_NOT_BELOW_P = tuple(
    ((P + k) | sign << 255).to_bytes(32, "little") for k in range(19) for sign in (0, 1)
)


def test_the_small_order_constants_are_the_eight_torsion_points() -> None:
    assert set(SMALL_ORDER_POINTS) == torsion_points() and len(SMALL_ORDER_POINTS) == 8
    # every non-canonical form names one of them when read naively (y mod p, x's sign)
    for raw in NON_CANONICAL_SMALL_ORDER:
        n = int.from_bytes(raw, "little")
        y = (n & ((1 << 255) - 1)) % P
        assert any(int.from_bytes(c, "little") & ((1 << 255) - 1) == y for c in SMALL_ORDER_POINTS)


def test_openssl_alone_accepts_the_forgery() -> None:
    """The premise: without our checks, R = identity, S = 0 verifies any message."""
    for message in (b"", b"play 2S", b"anything at all"):
        Ed25519PublicKey.from_public_bytes(IDENTITY).verify(FORGED_SIG, message)


@pytest.mark.parametrize("raw", WEAK + Y_NOT_BELOW_P, ids=lambda r: r.hex()[:6] + r.hex()[-2:])
def test_every_weak_key_is_refused_with_one_code(raw: bytes) -> None:
    with pytest.raises(WeakKeyError) as info:
        Verifier("mallory", raw)
    assert info.value.code == "LOG_KEY_WEAK"
    with pytest.raises(WeakKeyError):
        Verifier.from_text(vkey_text("mallory", raw))
    with pytest.raises(WeakKeyError):
        load_verifier(vkey_text("mallory", raw))


def test_points_off_the_curve_are_refused() -> None:
    off = next(
        y for y in range(2, 100) if _point_with_y(y) is None
    )  # no x satisfies the curve equation
    with pytest.raises(WeakKeyError, match="not a point of the curve"):
        Verifier("mallory", off.to_bytes(32, "little"))


def test_a_normal_key_still_works_and_s_must_be_below_l() -> None:
    signer = generate_signer("alice")
    verifier = Verifier.from_text(signer.verifier_key())
    sig = signer.sign(b"hello")
    verifier.verify(b"hello", sig)
    with pytest.raises(LogSignatureInvalid):
        verifier.verify(b"hullo", sig)
    s = int.from_bytes(sig[32:], "little")
    malleated = sig[:32] + (s + L).to_bytes(32, "little")
    with pytest.raises(LogSignatureInvalid, match="S is not below the group order"):
        verifier.verify(b"hello", malleated)
    with pytest.raises(LogSignatureInvalid, match="64 bytes"):
        verifier.verify(b"hello", sig[:63])
    # the largest canonical y of a point (y = p - 1 is the point of order 2) is fine
    real = next(y for y in range(P - 2, P - 200, -1) if _point_with_y(y) is not None)
    Verifier("edge", real.to_bytes(32, "little"))


def _forged_event(seq: int = 0, prev: str | None = None, hand: str = "1") -> dict[str, Any]:
    ev = make_event(
        origin=ORIGIN,
        table="t",
        hand=hand,
        seq=seq,
        prev=prev,
        actor="mallory",
        type="play",
        body={"card": 1},
        key=vkey_text("mallory", IDENTITY),
    )
    # the forgery verifies under OpenSSL for this exact signing input too
    Ed25519PublicKey.from_public_bytes(IDENTITY).verify(FORGED_SIG, signing_input(ev))
    ev["signature"] = base64.b64encode(FORGED_SIG).decode()
    return ev


def test_events_notes_and_the_log_refuse_the_forgery(tmp_path: Path) -> None:
    ev = _forged_event()
    with pytest.raises(LogSignatureInvalid, match="small order"):
        verify_event(ev)
    # a C2SP note "signed" by the identity key: the key is refused before any signature
    text = "anything\n"
    forged_note = (
        text
        + "\n"
        + note.NoteSignature("mallory", key_hash("mallory", IDENTITY), FORGED_SIG).line()
    )
    with pytest.raises(WeakKeyError):
        note.verify(forged_note, vkey_text("mallory", IDENTITY))
    log = open_log(
        str(tmp_path / "l.db"), ORIGIN, generate_signer(ORIGIN), require_registered_keys=False
    )
    with pytest.raises(LogError) as info:
        log.append([ev])
    assert info.value.code == "LOG_SIGNATURE_INVALID" and log.size() == 0
    with pytest.raises(WeakKeyError):
        log.register_key("mallory", vkey_text("mallory", IDENTITY))
    assert log.actor_keys("mallory") == []
    log.close()


def _log_with_a_forged_leaf(tmp_path: Path, signer: Signer) -> tuple[str, dict[str, Any]]:
    """A log of one finished hand whose event 2 is replaced, behind the log's back, by a
    forgery under the identity key (the chain and the tree are recomputed around it
    except for the changed leaf)."""
    path = tmp_path / "forged.db"
    log = open_log(str(path), ORIGIN, signer, require_registered_keys=False)
    seats = [generate_signer(n) for n in ("north", "east")]
    log.append(hand_events(seats, "t", "1", 4))
    log.checkpoint()
    bundle = build_bundle(log, "t", "1")
    log.close()
    evs = [item["event"] for item in bundle["events"]]
    forged = _forged_event(seq=2, prev=evs[2]["prev"])
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER log_entries_no_update")
    conn.execute(
        "UPDATE log_entries SET leaf = ?, actor = 'mallory' WHERE idx = 2",
        (canonical_json(forged),),
    )
    conn.close()
    bundle["events"][2]["event"] = forged
    return f"sqlite:///{path}", bundle


def test_log_audit_and_bundles_refuse_the_forgery(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    signer = generate_signer(ORIGIN)
    url, bundle = _log_with_a_forged_leaf(tmp_path, signer)
    with open_log(url, ORIGIN) as log:
        findings = verify_log(log, verifier=signer.verifier())
    at2 = [f for f in findings if f.entry == 2 and f.code == "LOG_SIGNATURE_INVALID"]
    assert at2 and "small order" in at2[0].message
    with pytest.raises(LogSignatureInvalid, match="small order") as info:
        verify_bundle(bundle, signer.verifier_key())
    assert info.value.entry == 2
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    assert main(["verify", str(path), "--key", signer.verifier_key()]) == 1
    out = capsys.readouterr().out
    assert out.startswith("LOG_SIGNATURE_INVALID entry 2:") and "small order" in out


@pytest.mark.parametrize(
    "raw", [IDENTITY, NON_CANONICAL_SMALL_ORDER[-1]], ids=["identity", "y=p+1"]
)
def test_fairplay_verify_refuses_a_weak_log_key(
    raw: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bundle.json"
    path.write_text("{}")
    assert main(["verify", str(path), "--key", vkey_text(ORIGIN, raw)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("small order" in err or "not canonical" in err)
