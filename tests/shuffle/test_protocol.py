"""Commitments, the transcript's JSON form, tampering, and the package's hygiene rules."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuffle
from audit.errors import FairplayError
from audit.rules.cards import Seat
from shuffle import kdf
from shuffle import verify as verify_module
from shuffle.errors import (
    CommitmentMismatchError,
    ShuffleError,
    ShuffleFormatError,
    ShuffleIncompleteError,
)
from shuffle.protocol import (
    SEAT_ORDER,
    Beacon,
    SeatEntry,
    Transcript,
    derive,
    new_seed,
    seat_commitment,
    server_commitment,
)
from shuffle.verify import verify, verify_transcript

PACKAGE_DIR = Path(shuffle.__file__).resolve().parent


def make(
    table: str = "t-1",
    hand: int = 7,
    seeds: list[bytes] | None = None,
    players: tuple[str, ...] = ("ann", "ben", "cat", "dan"),
    beacon: Beacon | None = None,
    dealer: Seat = Seat.E,
) -> Transcript:
    seeds = seeds or [bytes([i]) * 32 for i in range(1, 6)]
    entries = [
        SeatEntry(
            players[s], seat_commitment(seeds[1 + s], s, players[s], table, hand), seeds[1 + s]
        )
        for s in SEAT_ORDER
    ]
    return Transcript(
        table=table,
        hand=hand,
        dealer=dealer,
        server_commitment=server_commitment(seeds[0], table, hand),
        seats=(entries[0], entries[1], entries[2], entries[3]),
        server_seed=seeds[0],
        beacon=beacon,
    ).with_outcome()


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# ---------------------------------------------------------------- commitments


def test_seeds_come_from_the_csprng_and_the_source_is_injectable() -> None:
    a, b = new_seed(), new_seed()
    assert len(a) == 32 and a != b
    assert new_seed(lambda n: b"\x07" * n) == b"\x07" * 32
    with pytest.raises(ValueError):
        new_seed(lambda n: b"short")


def test_a_copied_seat_commitment_does_not_verify_for_another_seat() -> None:
    seed = bytes(range(32))
    c_north = seat_commitment(seed, Seat.N, "ann", "t", 1)
    # Same seed, same player, any other seat: a different commitment.
    assert all(seat_commitment(seed, s, "ann", "t", 1) != c_north for s in (Seat.E, Seat.S, Seat.W))
    # Another table, hand or player also changes it.
    assert seat_commitment(seed, Seat.N, "ann", "t2", 1) != c_north
    assert seat_commitment(seed, Seat.N, "ann", "t", 2) != c_north
    assert seat_commitment(seed, Seat.N, "ann2", "t", 1) != c_north

    # E copies N's commitment and, at reveal, N's seed (which N revealed first).
    t = make()
    north = t.seats[Seat.N]
    copied = replace(t, seats=(north, replace(north, player="ben"), t.seats[2], t.seats[3]))
    with pytest.raises(CommitmentMismatchError) as info:
        verify(copied)
    assert info.value.path == "seats.E.seed"


def test_length_prefixes_keep_fields_apart() -> None:
    seed = bytes(32)
    assert seat_commitment(seed, Seat.N, "ab", "c", 1) != seat_commitment(
        seed, Seat.N, "a", "bc", 1
    )
    assert kdf.frame(b"L", b"ab", b"c") != kdf.frame(b"L", b"a", b"bc")
    assert kdf.frame(b"L", b"") != kdf.frame(b"L")


def test_server_commitment_binds_table_and_hand() -> None:
    s = bytes(range(32))
    c = server_commitment(s, "t", 1)
    assert c != server_commitment(s, "t", 2) != server_commitment(s, "u", 1)
    assert len(c) == 32


# ---------------------------------------------------------------- verification


def test_verify_returns_the_deal_and_cayenne() -> None:
    t = make()
    r = verify_transcript(t.to_json())
    d = derive(t)
    assert (r.deal, r.cayenne, r.pack_order, r.deal_number) == d[1:3] + (d[0], d[3])
    assert sorted(c for s in Seat for c in r.deal[s]) == list(range(52))
    assert r.pack_order[0] in r.deal[Seat.E.left]  # dealer E: first card to S


def test_every_seed_moves_the_deal() -> None:
    base = derive(make()).pack_order
    for i in range(5):
        seeds = [bytes([k]) * 32 for k in range(1, 6)]
        seeds[i] = bytes([99]) * 32
        assert derive(make(seeds=seeds)).pack_order != base


def test_beacon_changes_the_deal() -> None:
    a = derive(make()).pack_order
    b = derive(make(beacon=Beacon("drand:quicknet", 5, b"\x01" * 32))).pack_order
    c = derive(make(beacon=Beacon("drand:quicknet", 6, b"\x01" * 32))).pack_order
    assert len({tuple(a), tuple(b), tuple(c)}) == 3


def test_incomplete_transcripts_raise_typed_errors_naming_the_seed() -> None:
    t = make()
    with pytest.raises(ShuffleIncompleteError) as info:
        derive(replace(t, server_seed=None))
    assert info.value.path == "server.seed" and info.value.code == "SHUFFLE_INCOMPLETE"
    obj = t.to_json()
    del obj["seats"]["S"]["seed"]
    with pytest.raises(ShuffleIncompleteError) as info:
        verify_transcript(obj)
    assert info.value.path == "seats.S.seed"
    assert isinstance(info.value, FairplayError)


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda o: o.pop("table"), "table"),
        (lambda o: o.__setitem__("hand", 0), "hand"),
        (lambda o: o.__setitem__("hand", True), "hand"),
        (lambda o: o.__setitem__("dealer", "X"), "dealer"),
        (lambda o: o.__setitem__("pack", 2), "pack"),
        (lambda o: o.__setitem__("pattern", [4, 4, 4]), "pattern"),
        (lambda o: o["server"].__setitem__("seed", "zz" * 32), "server.seed"),
        (lambda o: o["server"].__setitem__("seed", "00" * 31), "server.seed"),
        (lambda o: o["seats"]["W"].__setitem__("seed", "00" * 15), "seats.W.seed"),
        (lambda o: o["seats"]["W"].__setitem__("seed", "00" * 65), "seats.W.seed"),
        (lambda o: o["seats"].pop("N"), "seats.N"),
        (lambda o: o["seats"]["E"].__setitem__("player", 5), "seats.E.player"),
        (lambda o: o.__setitem__("deal_number", "0012"), "deal_number"),
        (lambda o: o.__setitem__("deal_number", 12), "deal_number"),
        (lambda o: o.__setitem__("cayenne", "10H"), "cayenne"),
        (lambda o: o.__setitem__("cayenne", "XX"), "cayenne"),
        (
            lambda o: o.__setitem__("beacon", {"source": "d", "round": -1, "randomness": "00"}),
            "beacon.round",
        ),
        (lambda o: o.__setitem__("surprise", 1), "surprise"),
    ],
)
def test_malformed_fields_are_named(edit: Any, path: str) -> None:
    obj = make().to_json()
    edit(obj)
    with pytest.raises(ShuffleFormatError) as info:
        verify_transcript(obj)
    assert info.value.path == path, info.value.message
    assert info.value.message.startswith(f"shuffle.{path}:")


def test_not_an_object() -> None:
    for bad in (None, [], "x", 3):
        with pytest.raises(ShuffleFormatError):
            verify_transcript(bad)


def test_producer_fields_are_carried_and_ignored() -> None:
    obj = make().to_json()
    obj["x-note"] = {"by": "tests"}
    verify_transcript(obj)
    assert Transcript.from_json(obj).to_json() == obj


@settings(max_examples=60, deadline=None)
@given(
    table=st.text(min_size=1, max_size=30),
    hand=st.integers(1, 2**63 - 1),
    players=st.tuples(*[st.text(max_size=10)] * 4),
    seat_seeds=st.lists(st.binary(min_size=16, max_size=64), min_size=4, max_size=4),
    server=st.binary(min_size=32, max_size=32),
    dealer=st.sampled_from(list(Seat)),
    beacon=st.none()
    | st.builds(
        Beacon,
        st.text(min_size=1, max_size=10),
        st.integers(0, 2**64 - 1),
        st.binary(min_size=1, max_size=64),
    ),
)
def test_commit_then_reveal_verifies_and_json_round_trips(
    table: str,
    hand: int,
    players: tuple[str, ...],
    seat_seeds: list[bytes],
    server: bytes,
    dealer: Seat,
    beacon: Beacon | None,
) -> None:
    t = make(table, hand, [server, *seat_seeds], players, beacon, dealer)
    obj = json.loads(json.dumps(t.to_json()))
    assert Transcript.from_json(obj) == t
    assert verify_transcript(obj).deal_number == t.claimed_deal_number


def test_tampering_with_any_byte_fails_verification() -> None:
    """Every byte of the canonical transcript, changed three ways, fails (or stops parsing)."""
    t = make(beacon=Beacon("drand:quicknet", 42, bytes(range(32))))
    data = canonical(t.to_json())
    verify_transcript(json.loads(data))
    tried = 0
    for i in range(len(data)):
        for new in {data[i] ^ 0x01, data[i] ^ 0x20, ord("0") if data[i] != ord("0") else ord("1")}:
            tampered = data[:i] + bytes([new]) + data[i + 1 :]
            tried += 1
            try:
                obj = json.loads(tampered)
            except ValueError:
                continue  # not JSON any more: rejected before the verifier
            with pytest.raises(ShuffleError):
                verify_transcript(obj)
    assert tried > 2000


# ---------------------------------------------------------------- hygiene


def package_sources() -> list[Path]:
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(files) >= 8
    return files


def test_nothing_in_the_package_imports_random() -> None:
    for path in package_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                mods = [str(a.value) for a in node.args if isinstance(a, ast.Constant)]
                if node.func.id != "__import__":
                    continue
            else:
                continue
            for m in mods:
                assert m.split(".")[0] != "random" and "random" not in m.split("."), (path, m)


def test_the_random_import_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("from random import shuffle\n")
    tree = ast.parse((tmp_path / "bad.py").read_text())
    assert any(isinstance(n, ast.ImportFrom) and n.module == "random" for n in ast.walk(tree))


def test_commitments_compare_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every commitment check goes through hmac.compare_digest, none through ==."""
    import hmac

    assert verify_module.ct_equal is hmac.compare_digest
    calls: list[tuple[bytes, bytes]] = []

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return hmac.compare_digest(a, b)

    monkeypatch.setattr(verify_module, "ct_equal", spy)
    t = make()
    verify(t)
    assert len(calls) == 5
    assert {b for _, b in calls} == {t.server_commitment, *(e.commitment for e in t.seats)}


def test_no_equality_operator_on_commitment_bytes() -> None:
    """The verifier and the ceremony never use ==/!= on a commitment or an opened digest."""
    for name in ("verify.py", "ceremony.py"):
        tree = ast.parse((PACKAGE_DIR / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                isinstance(op, ast.Eq | ast.NotEq) for op in node.ops
            ):
                operands = [node.left, *node.comparators]
                if any(isinstance(o, ast.Constant) and isinstance(o.value, int) for o in operands):
                    continue  # a length check, not a comparison of digests
                text = ast.unparse(node)
                assert "commit" not in text and "opened" not in text, (name, text)
