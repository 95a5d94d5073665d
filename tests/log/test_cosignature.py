"""Witness cosignatures (c2sp.org/tlog-cosignature v1) and witness policies, against the
real cosigned checkpoint of a public log, the specification's example and the
transparency-dev/formats vectors, and against a second computation written out here."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.log import checkpoint, note
from audit.log.cosignature import (
    Cosignature,
    WitnessKey,
    WitnessPolicy,
    WitnessPolicyError,
    add_cosignatures,
    cosign,
    cosignatures_by,
    signed_message,
    verify_witnessed_checkpoint,
    witness_key_of,
)
from audit.log.ed25519 import SMALL_ORDER_POINTS
from audit.log.errors import KeyFormatError, LogSignatureInvalid, NoteError, WeakKeyError
from audit.log.keys import Signer
from audit.log.note import NoteSignature

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "cosignature"


def _vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / "cosignature_vectors.json").read_text())
    return data


def _by_hand(name: str, pub: bytes, body: str, line: str) -> int:
    """A second, independent reading of one cosignature line: the key ID, the timestamp
    and the Ed25519 signature over the spec's message, from the bytes, with nothing of
    audit.log. Returns the timestamp; raises on any mismatch."""
    blob = base64.b64decode(line.rstrip("\n").rsplit(" ", 1)[1])
    assert len(blob) == 76
    assert blob[:4] == hashlib.sha256(name.encode() + b"\n\x04" + pub).digest()[:4]
    ts = int.from_bytes(blob[4:12], "big")
    message = b"cosignature/v1\ntime " + str(ts).encode() + b"\n" + body.encode()
    Ed25519PublicKey.from_public_bytes(pub).verify(blob[12:], message)
    return ts


def test_real_witnesses_cosignatures_verify() -> None:
    vec = _vectors()["real_world_cosigned_checkpoint"]
    # the log's own signature (type 0x01) on the same note
    assert note.verify(vec["note"], vec["log_vkey"]) == vec["body"]
    keys = [WitnessKey.from_text(w["vkey"]) for w in vec["witnesses"]]
    assert [k.text() for k in keys] == [w["vkey"] for w in vec["witnesses"]]
    found = cosignatures_by(vec["note"], keys)
    assert set(found) == {k.text() for k in keys}
    for key, w in zip(keys, vec["witnesses"], strict=True):
        assert found[key.text()].timestamp == w["timestamp"]
        line = next(
            ln for ln in vec["note"].splitlines(keepends=True) if ln.startswith(f"— {key.name} ")
        )
        assert _by_hand(key.name, key.public_key, vec["body"], line) == w["timestamp"]
        assert found[key.text()].line() == line
    cp = verify_witnessed_checkpoint(vec["note"], vec["log_vkey"], WitnessPolicy(tuple(keys), 4))
    assert cp.size == 1432088532


def test_policy_names_the_missing_witnesses() -> None:
    vec = _vectors()["real_world_cosigned_checkpoint"]
    present = [w["vkey"] for w in vec["witnesses"]]
    absent = vec["witnesses_not_on_this_checkpoint"]
    WitnessPolicy.of(present[:2] + absent, 2).check(vec["note"])
    with pytest.raises(WitnessPolicyError) as err:
        WitnessPolicy.of(present[:2] + absent, 3).check(vec["note"])
    assert err.value.code == "LOG_WITNESS_QUORUM"
    assert "witness.navigli.sunlight.geomys.org" in err.value.message
    assert "rgdd.se/poc-witness" in err.value.message
    assert err.value.details["missing"] == absent
    # the log's signature alone meets no policy
    with pytest.raises(WitnessPolicyError):
        WitnessPolicy.of(present[:1], 1).check(vec["note"].split("— transparency.dev")[0])


def test_a_changed_checkpoint_fails_every_cosignature() -> None:
    vec = _vectors()["real_world_cosigned_checkpoint"]
    forged = vec["note"].replace("1432088532", "1432088533", 1)
    for w in vec["witnesses"]:
        with pytest.raises(LogSignatureInvalid, match="does not verify"):
            cosignatures_by(forged, [WitnessKey.from_text(w["vkey"])])
    # one flipped bit of one signature fails that witness only
    line = next(ln for ln in vec["note"].splitlines() if ln.startswith("— remora"))
    blob = bytearray(base64.b64decode(line.rsplit(" ", 1)[1]))
    blob[40] ^= 1
    bad = vec["note"].replace(line, "— remora.n621.de " + base64.b64encode(blob).decode())
    remora = WitnessKey.from_text(vec["witnesses"][2]["vkey"])
    with pytest.raises(LogSignatureInvalid, match="remora.n621.de"):
        cosignatures_by(bad, [remora])
    others = [
        WitnessKey.from_text(w["vkey"]) for w in vec["witnesses"] if "remora" not in w["vkey"]
    ]
    assert len(cosignatures_by(bad, others)) == 3


def test_spec_example_layout() -> None:
    vec = _vectors()["spec_example"]
    _, sigs = note.parse(vec["body"] + "\n" + vec["witness_line"])
    cos = Cosignature.from_note_signature(sigs[0])
    assert cos.key_hash.hex() == vec["key_id_hex"]
    assert cos.timestamp == vec["timestamp"]
    assert cos.line() == vec["witness_line"]
    assert signed_message(vec["body"], vec["timestamp"]) == vec["signed_message"].encode()


def test_transparency_dev_formats_vectors() -> None:
    vec = _vectors()["transparency_dev_formats_keys"]
    key = WitnessKey.from_text(vec["native_cosignature_vkey"])
    assert key.key_id == "da77ade7" and key.text() == vec["native_cosignature_vkey"]
    raw = base64.b64decode(vec["timestamp_signature_b64"])
    cos = Cosignature.from_note_signature(NoteSignature("x", raw[:4], raw[4:]))
    assert cos.timestamp == vec["timestamp"]
    raw = base64.b64decode(vec["not_a_cosignature_b64"])
    with pytest.raises(NoteError, match="not a cosignature/v1"):
        Cosignature.from_note_signature(NoteSignature("x", raw[:4], raw[4:]))


def test_sign_then_verify_both_ways() -> None:
    signer = Signer("witness.test/w1", hashlib.sha256(b"witness w1").digest())
    key = witness_key_of(signer)
    body = "fairplay.test/log\n3\n" + base64.b64encode(bytes(32)).decode() + "\n"
    cos = cosign(body, signer, 1_700_000_000)
    # our line, verified by the independent reading
    assert _by_hand(key.name, key.public_key, body, cos.line()) == 1_700_000_000
    # a line made by hand with cryptography's own signer, verified by the module
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"witness w1").digest())
    msg = b"cosignature/v1\ntime 1234\n" + body.encode()
    blob = key.key_hash + (1234).to_bytes(8, "big") + priv.sign(msg)
    line = f"— witness.test/w1 {base64.b64encode(blob).decode()}\n"
    assert cosignatures_by(body + "\n" + line, [key])[key.text()].timestamp == 1234
    # a different witness name under the same key ID does not count; the type byte matters
    assert key.key_hash != signer.key_hash  # 0x04 versus the log's 0x01
    plain = note.sign(body, signer)  # an ordinary (0x01) note signature by the same key
    assert cosignatures_by(plain, [key]) == {}
    with pytest.raises(InvalidSignature):
        Ed25519PublicKey.from_public_bytes(key.public_key).verify(cos.signature, body.encode())


def test_keys_and_timestamps_are_checked() -> None:
    with pytest.raises(WeakKeyError):
        WitnessKey("w", SMALL_ORDER_POINTS[0])
    signer = Signer("w", bytes(range(32)))
    with pytest.raises(KeyFormatError, match="type 0x04"):
        WitnessKey.from_text(signer.verifier_key())  # a log (0x01) key is no witness key
    text = witness_key_of(signer).text()
    with pytest.raises(KeyFormatError, match="does not match"):
        WitnessKey.from_text(text.replace(text.split("+")[1], "00000000"))
    with pytest.raises(NoteError):
        signed_message("a\n1\nAAAA\n", 2**63)
    with pytest.raises(NoteError):
        signed_message("a\n1\nAAAA\n", -1)
    with pytest.raises(KeyFormatError, match="between 0 and"):
        WitnessPolicy.of([text], 2)
    with pytest.raises(KeyFormatError, match="twice"):
        WitnessPolicy.of([text, text], 1)


def test_add_cosignatures_appends_once() -> None:
    log = Signer("fairplay.test/log", bytes(32))
    body = checkpoint.Checkpoint("fairplay.test/log", 1, bytes(32)).text()
    signed = note.sign(body, log)
    w = Signer("w1", bytes([7]) * 32)
    line = cosign(body, w, 5).line()
    once = add_cosignatures(signed, [line])
    assert add_cosignatures(once, [line]) == once
    assert note.verify(once, log.verifier()) == body
    assert list(cosignatures_by(once, [witness_key_of(w)])) == [witness_key_of(w).text()]
