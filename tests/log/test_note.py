"""Keys, signed notes and checkpoints against the Go sumdb/note, C2SP and tessera vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.log import checkpoint, merkle, note
from audit.log.errors import KeyFormatError, LogInconsistent, NoteError
from audit.log.keys import Signer, Verifier, generate_signer, load_signer, save_signer

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / "tlog" / "tlog_vectors.json").read_text())
    return data


def test_published_notes_verify() -> None:
    notes = _vectors()["signed_notes"]
    real_sumdb = 0
    for n in notes:
        v = Verifier.from_text(n["vkey"])
        assert v.key_id == n["key_id_check"]["sha256(name || 0x0a || 0x01 || pubkey)[:4]"]
        assert v.public_key.hex() == n["key_id_check"]["public_key_hex"]
        assert v.text() == n["vkey"]
        text = note.verify(n["note"], n["vkey"])
        assert n["note"].startswith(text)
        if n["vkey"].startswith("sum.golang.org"):
            real_sumdb += 1
            cp = checkpoint.parse(text)
            assert cp.origin == "go.sum database tree" and cp.size > 1_000_000
    assert real_sumdb >= 3


def test_flipped_note_bytes_fail() -> None:
    n = next(x for x in _vectors()["signed_notes"] if "15368405" in x["note"])
    good = n["note"]
    for i in range(len(good)):
        c = good[i]
        if c in "\n\u2014 ":
            continue
        bad = good[:i] + ("A" if c != "A" else "B") + good[i + 1 :]
        with pytest.raises(NoteError):
            note.verify(bad, n["vkey"])


def test_unverifiable_example_fails() -> None:
    bad = _vectors()["signed_notes_that_do_not_verify"][0]["note"]
    sumdb = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
    with pytest.raises(NoteError) as info:
        note.verify(bad, sumdb)
    assert info.value.code == "LOG_SIGNATURE_INVALID"


def test_signing_reproduces_published_signatures() -> None:
    vec = _vectors()
    tess = vec["tessera_tiled_test_log"]
    signer = Signer.from_text(tess["skey_published_test_only"])
    assert signer.verifier_key() == tess["vkey"]
    for size, published in tess["checkpoints_by_size"].items():
        cp = checkpoint.verify_checkpoint(
            published, tess["vkey"], origin="example.com/log/testdata"
        )
        assert cp.size == int(size)
        entries = [e.encode() for e in tess["entries_utf8"][: cp.size]]
        assert cp.root == merkle.root_hash(entries)
        assert cp.sign(signer) == published  # Ed25519 is deterministic
    go = vec["signed_notes"][0]
    s = Signer.from_text(go["skey_published_test_only"])
    text = note.verify(go["note"], go["vkey"])
    assert note.sign(text, s) == go["note"]


def test_key_files_round_trip(tmp_path: Path) -> None:
    s = generate_signer("log.example/cayenne", rng=lambda n: bytes(range(n)))
    save_signer(s, tmp_path / "k")
    assert (tmp_path / "k").stat().st_mode & 0o777 == 0o600
    with pytest.raises(FileExistsError):
        save_signer(s, tmp_path / "k")
    again = load_signer(tmp_path / "k")
    assert again.verifier_key() == s.verifier_key()
    with pytest.raises(KeyFormatError):
        Verifier.from_text(s.verifier_key().replace("+", "+0", 1))
    with pytest.raises(KeyFormatError):
        generate_signer("bad name")


def test_cosigning_and_fork_evidence() -> None:
    log = generate_signer("log.example")
    witness = generate_signer("witness.example")
    a = checkpoint.Checkpoint("log.example", 5, b"\x01" * 32).sign(log)
    b = checkpoint.Checkpoint("log.example", 5, b"\x02" * 32).sign(log)
    c = note.add_signature(a, witness)
    assert note.verify(c, witness.verifier_key()) == note.verify(c, log.verifier_key())
    ev = checkpoint.fork_evidence(a, b, log.verifier_key())
    checkpoint.verify_fork_evidence(json.loads(json.dumps(ev)), log.verifier_key())
    with pytest.raises(LogInconsistent):
        checkpoint.fork_evidence(a, c, log.verifier_key())
    with pytest.raises(NoteError):
        checkpoint.fork_evidence(a, b, witness.verifier_key())


def test_go_tlog_goldens_and_a_cosigned_checkpoint() -> None:
    import base64

    vec = _vectors()
    go = vec["go_tlog_goldens"]
    record_hash = base64.b64decode(go["record_hash_of_hello_world_b64"])
    assert merkle.leaf_hash(b"hello world") == record_hash  # tlog.RecordHash
    assert (
        checkpoint.Checkpoint("go.sum database tree", 123456789012, record_hash).text()
        == (go["format_tree_golden"])
    )
    # a witness cosignature (another key, another signature type) is carried and ignored
    cos = vec["locally_generated_cosignature_NOT_PUBLISHED"]
    tess = vec["tessera_tiled_test_log"]
    text = note.verify(cos["cosigned_checkpoint"], tess["vkey"])
    assert checkpoint.parse(text).size == 15
    assert len(note.parse(cos["cosigned_checkpoint"])[1]) == 2


def test_tlog_proof_vector() -> None:
    tess = _vectors()["tessera_tiled_test_log"]
    text = tess["derived_locally_tlog_proof_c2sp"]["text"]
    index, cp, extra = checkpoint.verify_tlog_proof(text, b"eit", tess["vkey"])
    assert (index, cp.size, extra) == (7, 15, None)
    entries = [e.encode() for e in tess["entries_utf8"]]
    note_text = tess["checkpoints_by_size"]["15"]
    assert checkpoint.format_tlog_proof(7, merkle.inclusion_proof(entries, 7), note_text) == text
    with pytest.raises(LogInconsistent):
        checkpoint.verify_tlog_proof(text, b"eight", tess["vkey"])
    with pytest.raises(LogInconsistent):
        checkpoint.verify_tlog_proof(text.replace("index 7", "index 6"), b"eit", tess["vkey"])
    extra = checkpoint.format_tlog_proof(
        7, merkle.inclusion_proof(entries, 7), note_text, extra=b"hand 7"
    )
    assert checkpoint.verify_tlog_proof(extra, b"eit", tess["vkey"])[2] == b"hand 7"
