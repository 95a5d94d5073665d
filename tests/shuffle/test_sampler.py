"""The integer sampler is exactly uniform; Fisher–Yates is a bijection onto all orders."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shuffle.permute import CANONICAL, permute, shuffle_pack, shuffle_pack_traced
from shuffle.sampler import LIMIT, ByteStream, accept_limit, accepts, block


@pytest.mark.parametrize("n", range(2, 53))
def test_acceptance_rule_is_exactly_uniform(n: int) -> None:
    """Enumerate all 256 byte values: every residue has the same number of preimages."""
    images = Counter(v for b in range(256) if (v := accepts(n, b)) is not None)
    assert set(images) == set(range(n))
    assert len(set(images.values())) == 1  # no modulo bias
    per_value = images[0]
    assert per_value == 256 // n
    rejected = sum(1 for b in range(256) if accepts(n, b) is None)
    assert rejected == 256 % n < n  # fewer rejected bytes than one full round
    assert per_value * n + rejected == 256
    # Rejected bytes are exactly the top ones, at and above the limit.
    assert all((accepts(n, b) is None) == (b >= accept_limit(n)) for b in range(256))


def test_a_plain_modulo_would_be_biased() -> None:
    """The check above can fail: without rejection, 256 % 52 = 48 residues get an extra byte."""
    plain = Counter(b % 52 for b in range(256))
    assert len(set(plain.values())) == 2


def test_limits_table() -> None:
    assert LIMIT[52] == 208 and LIMIT[2] == 256 and LIMIT[51] == 255 and LIMIT[13] == 247
    with pytest.raises(ValueError):
        accept_limit(0)
    with pytest.raises(ValueError):
        accept_limit(257)


@given(key=st.binary(min_size=32, max_size=32), n=st.integers(2, 52))
def test_stream_draws_follow_the_rule_on_the_hmac_bytes(key: bytes, n: int) -> None:
    s = ByteStream(key, b"label")
    raw = block(key, b"label", 0) + block(key, b"label", 1)
    draws = [s.draw(n) for _ in range(5)]
    pos = 0
    for d in draws:
        for off, b in d.consumed:
            assert off == pos and raw[pos] == b
            pos += 1
        *rejected, (_, last) = d.consumed
        assert all(b >= LIMIT[n] for _, b in rejected) and last < LIMIT[n]
        assert d.value == last % n


@given(key=st.binary(min_size=32, max_size=32), label=st.binary(max_size=40))
def test_fast_and_traced_shuffles_agree(key: bytes, label: bytes) -> None:
    fast = shuffle_pack(key, label)
    traced, draws, _ = shuffle_pack_traced(key, label)
    assert fast == traced == permute([d.value for d in draws])
    assert sorted(fast) == list(CANONICAL)


def invert(pack: list[int]) -> list[int]:
    """Recover the Fisher–Yates draws that produce ``pack`` (exists and is unique)."""
    a = list(pack)
    draws = []
    # Replay forward: step i must bring the card that ends at position i to i, from
    # wherever it is now (positions above i are final), so j is forced.
    cur = list(CANONICAL)
    where = {c: c for c in cur}
    for i in range(51, 0, -1):
        j = where[a[i]]
        draws.append(j)
        cur[i], cur[j] = cur[j], cur[i]
        where[cur[i]], where[cur[j]] = i, j
    return draws


@given(st.permutations(list(range(52))))
def test_fisher_yates_is_a_bijection(pack: list[int]) -> None:
    """Every order has exactly one draw sequence, so uniform draws give a uniform pack."""
    draws = invert(pack)
    assert all(0 <= j <= i for j, i in zip(draws, range(51, 0, -1), strict=True))
    assert permute(draws) == pack


def test_different_draws_give_different_packs() -> None:
    seen = set()
    for k in range(2000):
        draws = [
            hashlib.sha256(k.to_bytes(4, "big") + bytes([i])).digest()[0] % (i + 1)
            for i in range(51, 0, -1)
        ]
        seen.add((tuple(draws), tuple(permute(draws))))
    assert len({d for d, _ in seen}) == len({p for _, p in seen})


def test_permute_rejects_bad_draws() -> None:
    with pytest.raises(ValueError):
        permute([0] * 50)
    with pytest.raises(ValueError):
        permute([52] + [0] * 50)
