"""The Merkle module against the published vectors (transparency-dev/merkle, Go tlog, tessera)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import FairplayError
from audit.log import merkle
from audit.log.errors import ProofError

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / "tlog" / "tlog_vectors.json").read_text())
    return data


def _b64(v: str | None) -> bytes:
    return base64.b64decode(v or "")


def test_hasher_unit_vectors() -> None:
    vec = _vectors()["hasher_unit_vectors"]["vectors"]
    assert merkle.EMPTY_ROOT.hex() == vec[0]["hash_hex"]
    assert merkle.root_hash([]).hex() == vec[0]["hash_hex"]
    assert merkle.leaf_hash(b"").hex() == vec[1]["hash_hex"]
    assert merkle.leaf_hash(bytes.fromhex(vec[2]["leaf_input_hex"])).hex() == vec[2]["hash_hex"]
    assert (
        merkle.node_hash(
            bytes.fromhex(vec[3]["left_hex"]), bytes.fromhex(vec[3]["right_hex"])
        ).hex()
        == vec[3]["hash_hex"]
    )


def test_standard_tree_roots_and_proofs() -> None:
    std = _vectors()["rfc6962_standard_tree"]
    leaves = [bytes.fromhex(h) for h in std["leaf_inputs_hex"]]
    for size, root in std["root_hashes_by_tree_size_hex"].items():
        assert merkle.root_hash(leaves[: int(size)]).hex() == root
    for p in std["inclusion_proofs"]:
        entries = leaves[: p["tree_size"]]
        proof = merkle.inclusion_proof(entries, p["leaf_index"])
        assert [h.hex() for h in proof] == p["audit_path_hex"]
        merkle.verify_inclusion(
            bytes.fromhex(p["leaf_hash_hex"]),
            p["leaf_index"],
            p["tree_size"],
            proof,
            bytes.fromhex(p["root_hex"]),
        )
    for p in std["consistency_proofs"]:
        entries = leaves[: p["size2"]]
        proof = merkle.consistency_proof(entries, p["size1"])
        assert [h.hex() for h in proof] == p["proof_hex"]
        merkle.verify_consistency(
            p["size1"],
            p["size2"],
            bytes.fromhex(p["root1_hex"]),
            bytes.fromhex(p["root2_hex"]),
            proof,
        )


def test_tessera_log_proofs() -> None:
    tess = _vectors()["tessera_tiled_test_log"]
    entries = [e.encode() for e in tess["entries_utf8"]]
    for p in tess["derived_locally_inclusion_proofs"]:
        sub = entries[: p["tree_size"]]
        assert merkle.leaf_hash(p["entry_utf8"].encode()) == _b64(p["leaf_hash_b64"])
        assert merkle.root_hash(sub) == _b64(p["root_b64"])
        assert merkle.inclusion_proof(sub, p["leaf_index"]) == [
            _b64(x) for x in p["audit_path_b64"]
        ]
    for p in tess["derived_locally_consistency_proofs"]:
        sub = entries[: p["size2"]]
        assert merkle.consistency_proof(sub, p["size1"]) == [_b64(x) for x in p["proof_b64"]]
        merkle.verify_consistency(
            p["size1"],
            p["size2"],
            _b64(p["root1_b64"]),
            _b64(p["root2_b64"]),
            [_b64(x) for x in p["proof_b64"]],
        )


def _probe_files(kind: str) -> list[Path]:
    files = sorted((VECTORS / "transparency-dev-merkle" / kind).rglob("*.json"))
    assert len(files) >= 90
    return files


def test_inclusion_probe_files() -> None:
    files = _probe_files("inclusion")
    failures = 0
    for f in files:
        p = json.loads(f.read_text())
        proof = [_b64(x) for x in (p["proof"] or [])]
        args = (_b64(p["leafHash"]), p["leafIdx"], p["treeSize"], proof, _b64(p["root"]))
        if p["wantErr"]:
            with pytest.raises(ProofError):
                merkle.verify_inclusion(*args)
            failures += 1
        else:
            merkle.verify_inclusion(*args)
    assert failures > 50  # the tampered probes were really exercised


def test_consistency_probe_files() -> None:
    files = _probe_files("consistency")
    failures = 0
    for f in files:
        p = json.loads(f.read_text())
        proof = [_b64(x) for x in (p["proof"] or [])]
        args = (p["size1"], p["size2"], _b64(p["root1"]), _b64(p["root2"]), proof)
        if p["wantErr"]:
            with pytest.raises(ProofError) as info:
                merkle.verify_consistency(*args)
            assert isinstance(info.value, FairplayError)
            assert info.value.code == "LOG_INCONSISTENT"
            failures += 1
        else:
            assert merkle.verify_consistency(*args) is None
    assert failures > 50


def test_frontier_matches_root_hash() -> None:
    entries = [str(i).encode() for i in range(100)]
    f = merkle.Frontier()
    stored: dict[tuple[int, int], bytes] = {}
    for i, e in enumerate(entries):
        for lvl, idx, h in f.append(merkle.leaf_hash(e)):
            stored[(lvl, idx)] = h
        assert f.root() == merkle.root_hash(entries[: i + 1])
    # node planning on stored nodes agrees with the list functions
    for size in (1, 2, 7, 64, 100):
        for index in (0, size // 2, size - 1):
            ranges = merkle.inclusion_ranges(index, size)
            assert merkle.proof_from_nodes(ranges, stored) == merkle.inclusion_proof(
                entries[:size], index
            )
        assert merkle.inclusion_proofs(entries[:size]) == [
            merkle.inclusion_proof(entries[:size], index) for index in range(size)
        ]
        for size1 in sorted({1, min(3, size), size}):
            ranges = merkle.consistency_ranges(size1, size)
            assert merkle.proof_from_nodes(ranges, stored) == merkle.consistency_proof(
                entries[:size], size1
            )


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.data())
def test_proofs_round_trip_and_flipped_bytes_fail(n: int, data: st.DataObject) -> None:
    entries = [bytes([i % 256, i // 256]) for i in range(n)]
    root = merkle.root_hash(entries)
    index = data.draw(st.integers(0, n - 1))
    proof = merkle.inclusion_proof(entries, index)
    merkle.verify_inclusion(merkle.leaf_hash(entries[index]), index, n, proof, root)
    size1 = data.draw(st.integers(1, n))
    cproof = merkle.consistency_proof(entries, size1)
    root1 = merkle.root_hash(entries[:size1])
    merkle.verify_consistency(size1, n, root1, root, cproof)
    if proof:
        k = data.draw(st.integers(0, len(proof) * 32 - 1))
        bad = [bytearray(h) for h in proof]
        bad[k // 32][k % 32] ^= 1
        with pytest.raises(ProofError):
            merkle.verify_inclusion(
                merkle.leaf_hash(entries[index]), index, n, [bytes(b) for b in bad], root
            )
    if cproof:
        k = data.draw(st.integers(0, len(cproof) * 32 - 1))
        badc = [bytearray(h) for h in cproof]
        badc[k // 32][k % 32] ^= 1
        with pytest.raises(ProofError):
            merkle.verify_consistency(size1, n, root1, root, [bytes(b) for b in badc])
