"""drand beacons checked offline: a chain's rounds, their times and their BLS signatures.

A drand chain (https://drand.love, League of Entropy) publishes round r at
``genesis + (r - 1) * period`` (Unix seconds); each round carries a BLS12-381 signature
by the chain's threshold key, and its randomness is the SHA-256 of that signature. The
signature is over SHA-256(previous signature || u64_be(round)) for the chained scheme
(``pedersen-bls-chained``, the League of Entropy's ``default`` chain) and over
SHA-256(u64_be(round)) for the unchained ones (``bls-unchained-g1-rfc9380``: quicknet;
``bls-unchained-on-g1``: the retired fastnet). :func:`verify_round` checks a round with the
chain's public key alone and raises :class:`shuffle.errors.BeaconInvalidError`.

*Decision:* the pairing is drand-verify's (PyPI ``drand-verify``, Rust bindings of the
noislabs ``drand-verify`` crate): it checks all three League of Entropy schemes in about
2 ms and needs no network. It panics (a ``BaseException`` from PyO3) on text that is not
hex, so every field is checked here first (lengths, lowercase hex, the round's range) and
a panic that still escapes is turned into the same error.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from shuffle.errors import BeaconInvalidError, ShuffleFormatError

__all__ = [
    "CHAINED",
    "QUICKNET",
    "SCHEMES",
    "UNCHAINED_G1",
    "DrandChain",
    "DrandRound",
    "verify_round",
]

CHAINED = "pedersen-bls-chained"
QUICKNET = "bls-unchained-g1-rfc9380"
UNCHAINED_G1 = "bls-unchained-on-g1"
SCHEMES = {CHAINED: (48, 96), QUICKNET: (96, 48), UNCHAINED_G1: (96, 48)}
"""Each scheme's (public key, signature) sizes in bytes (G1 is 48, G2 is 96)."""
MAX_ROUND = 2**53 - 1
_HEX = re.compile(r"^(?:[0-9a-f]{2})+$")


def _bytes(value: object, path: str, size: int) -> str:
    if not isinstance(value, str) or not _HEX.match(value) or len(value) != 2 * size:
        raise ShuffleFormatError(path, f"must be {size} bytes in lowercase hex")
    return value


@dataclass(frozen=True, slots=True)
class DrandChain:
    """The public facts of a drand chain that a verifier needs."""

    scheme: str
    """One of :data:`SCHEMES`."""
    public_key: str
    """The chain's group public key, lowercase hex (48 bytes chained, 96 unchained)."""
    genesis: int
    """Unix seconds of round 1."""
    period: int
    """Seconds between rounds."""

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ShuffleFormatError("beacon.scheme", f"must be one of {sorted(SCHEMES)}")
        _bytes(self.public_key, "beacon.public_key", SCHEMES[self.scheme][0])
        for name, lo in (("genesis", 0), ("period", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value < 2**40:
                raise ShuffleFormatError(f"beacon.{name}", f"must be an integer from {lo}")

    def round_time(self, rnd: int) -> int:
        """When round ``rnd`` is published (Unix seconds)."""
        return self.genesis + (rnd - 1) * self.period

    def round_after(self, when: int) -> int:
        """The first round published strictly after ``when`` (Unix seconds)."""
        if when < self.genesis:
            return 1
        return (when - self.genesis) // self.period + 2

    def to_json(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "public_key": self.public_key,
            "genesis": self.genesis,
            "period": self.period,
        }


@dataclass(frozen=True, slots=True)
class DrandRound:
    """One round as a drand node publishes it (``GET /public/<round>``)."""

    round: int
    signature: str
    previous_signature: str | None = None
    """Chained scheme only: the signature of the round before."""

    @property
    def randomness(self) -> bytes:
        """SHA-256 of the signature (what drand publishes as ``randomness``)."""
        return hashlib.sha256(bytes.fromhex(self.signature)).digest()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"round": self.round, "signature": self.signature}
        if self.previous_signature is not None:
            out["previous_signature"] = self.previous_signature
        out["randomness"] = self.randomness.hex()
        return out


def verify_round(chain: DrandChain, beacon: DrandRound, path: str = "beacon") -> bytes:
    """Check ``beacon``'s signature under ``chain``'s key; its randomness, or raise."""
    import drand_verify  # type: ignore[import-untyped]  # no stubs; three functions

    rnd = beacon.round
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= MAX_ROUND:
        raise ShuffleFormatError(f"{path}.round", f"must be an integer from 1 to {MAX_ROUND}")
    sig = _bytes(beacon.signature, f"{path}.signature", SCHEMES[chain.scheme][1])
    try:
        if chain.scheme == CHAINED:
            prev = beacon.previous_signature
            if not isinstance(prev, str) or not _HEX.match(prev) or len(prev) > 2 * 96:
                raise ShuffleFormatError(
                    f"{path}.previous_signature", "the chained scheme needs it, in lowercase hex"
                )
            out = drand_verify.verify_pedersen_bls_chained(rnd, prev, sig, chain.public_key)
        elif beacon.previous_signature is not None:
            raise ShuffleFormatError(f"{path}.previous_signature", "unchained rounds have none")
        elif chain.scheme == QUICKNET:
            out = drand_verify.verify_bls_unchained_g1_rfc9380(rnd, sig, chain.public_key)
        else:
            out = drand_verify.verify_bls_unchained_on_g1(rnd, sig, chain.public_key)
    except ShuffleFormatError:
        raise
    except ValueError:
        raise BeaconInvalidError(
            f"{path}.signature",
            f"round {rnd}'s signature does not verify under the chain's public key",
        ) from None
    except BaseException as exc:  # PyO3's PanicException, on input checked above
        if type(exc).__name__ != "PanicException":
            raise
        raise BeaconInvalidError(f"{path}.signature", "not a BLS signature of the chain") from None
    randomness = bytes.fromhex(str(out))
    if randomness != beacon.randomness:  # pragma: no cover - drand's own definition
        raise BeaconInvalidError(f"{path}.randomness", "is not SHA-256 of the signature")
    return randomness
