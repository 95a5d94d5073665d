"""Bounded statistical tests of the derived packs (deterministic keys, so no flakes).

Each test has a negative control: the classic broken shuffle (swap position i with a
uniform j in 0..51, for every i) fed by the same stream, which the same test must
reject. Bounds are the statistic's mean ± 6 standard deviations.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable
from itertools import permutations

import pytest

from shuffle import kdf
from shuffle.permute import shuffle_pack
from shuffle.sampler import ByteStream

# one worker shuffles the sample packs once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("statistics")

SAMPLES = 20_000


def keys(n: int) -> list[bytes]:
    return [hashlib.sha256(b"stat-test" + k.to_bytes(4, "big")).digest() for k in range(n)]


def broken_shuffle(key: bytes, label: bytes) -> list[int]:
    """Swap each position with any of the 52 (52^52 paths onto 52! orders: biased)."""
    s = ByteStream(key, label)
    pack = list(range(52))
    for i in range(51, -1, -1):
        j = s.uniform(52)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


@pytest.fixture(scope="module")
def packs() -> list[list[int]]:
    return [shuffle_pack(k, kdf.LABEL_DEALING) for k in keys(SAMPLES)]


@pytest.fixture(scope="module")
def broken() -> list[list[int]]:
    return [broken_shuffle(k, kdf.LABEL_DEALING) for k in keys(SAMPLES)]


def chi2(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def within(stat: float, df: int) -> bool:
    return abs(stat - df) < 6 * math.sqrt(2 * df)


def position_card_chi2(ps: list[list[int]]) -> float:
    table = [0] * (52 * 52)
    for p in ps:
        for pos, card in enumerate(p):
            table[pos * 52 + card] += 1
    return chi2(table, len(ps) / 52)


def sub_pack_chi2(ps: list[list[int]], sub: tuple[int, ...] = (0, 1, 2, 3)) -> float:
    index = {perm: i for i, perm in enumerate(permutations(sub))}
    counts = [0] * 24
    wanted = set(sub)
    for p in ps:
        counts[index[tuple(c for c in p if c in wanted)]] += 1
    return chi2(counts, len(ps) / 24)


def ascending_runs(p: list[int]) -> int:
    return 1 + sum(1 for a, b in zip(p, p[1:], strict=False) if b < a)


def test_position_by_card_chi_squared(packs: list[list[int]], broken: list[list[int]]) -> None:
    df = 51 * 51  # rows and columns both sum to SAMPLES
    assert within(position_card_chi2(packs), df)
    assert not within(position_card_chi2(broken), df)


def test_all_24_orders_of_a_four_card_sub_pack_equally_likely(
    packs: list[list[int]], broken: list[list[int]]
) -> None:
    for sub in ((0, 1, 2, 3), (0, 13, 26, 39), (50, 51, 0, 1)):
        assert within(sub_pack_chi2(packs, sub), 23), sub
    assert len({tuple(c for c in p if c < 4) for p in packs}) == 24
    assert not within(sub_pack_chi2(broken, (0, 13, 26, 39)), 23)


def runs_z(ps: list[list[int]]) -> float:
    # Ascending runs of a uniform permutation of n: mean (n+1)/2, variance (n+1)/12.
    runs = [ascending_runs(p) for p in ps]
    mean = sum(runs) / len(runs)
    return (mean - 26.5) / math.sqrt((53 / 12) / len(runs))


def test_runs(packs: list[list[int]]) -> None:
    assert abs(runs_z(packs)) < 6
    runs = [ascending_runs(p) for p in packs]
    mean = sum(runs) / len(runs)
    var = sum((r - mean) ** 2 for r in runs) / (len(runs) - 1)
    assert abs(var - 53 / 12) < 6 * 0.05 * 53 / 12  # sd of a sample variance is small
    # Cards left next to their canonical neighbour: mean (n-1)/n, nearly Poisson(1).
    kept = [sum(1 for a, b in zip(p, p[1:], strict=False) if b == a + 1) for p in packs]
    assert abs(sum(kept) / len(kept) - 51 / 52) < 6 * math.sqrt(1 / len(kept))


def test_runs_detect_a_stacked_pack() -> None:
    """Control: a pack only cut and riffled once keeps long rising runs."""
    riffled = []
    for k in keys(2000):
        cut = k[0] % 52
        top, bottom = list(range(cut)), list(range(cut, 52))
        out: list[int] = []
        for bit in "".join(f"{b:08b}" for b in k * 2):
            src = top if bit == "1" and top else bottom if bottom else top
            out.append(src.pop(0))
            if not top and not bottom:
                break
        riffled.append(out + top + bottom)
    assert abs(runs_z(riffled)) > 6


def test_cayenne_card_uniform() -> None:
    counts = Counter(shuffle_pack(k, kdf.LABEL_STILL)[0] for k in keys(SAMPLES // 2))
    assert len(counts) == 52
    assert within(chi2([counts[c] for c in range(52)], SAMPLES / 2 / 52), 51)


def test_dealing_and_still_packs_independent(packs: list[list[int]]) -> None:
    """Top card of the dealing pack against the cayenne card: a 4x4 suit table."""
    stills = [shuffle_pack(k, kdf.LABEL_STILL) for k in keys(SAMPLES)]
    table = Counter((p[0] // 13, s[0] // 13) for p, s in zip(packs, stills, strict=True))
    assert within(chi2([table[(a, b)] for a in range(4) for b in range(4)], SAMPLES / 16), 15)


def test_sampler_draws_uniform_on_real_stream() -> None:
    draw: Callable[[bytes], int] = lambda k: ByteStream(k, b"x").uniform(52)  # noqa: E731
    counts = Counter(draw(k) for k in keys(SAMPLES // 2))
    assert within(chi2([counts[c] for c in range(52)], SAMPLES / 2 / 52), 51)
