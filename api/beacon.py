"""The drand beacon the service deals tournaments from (``FAIRPLAY_BEACON_URL``).

A drand node's HTTP API, for one chain: ``GET <url>/info`` (the chain's public key,
period, genesis time and scheme) and ``GET <url>/public/<round>`` (a round, once it is
published; 404 or 425 before). ``<url>`` is the chain's base, e.g.
``https://api.drand.sh/<chain hash>``. The service never trusts what it fetches: a round
is checked against the chain's key (:func:`shuffle.beacon.verify_round`) before it is
logged, and every verifier checks it again. The tests run a local node with the same
interface and keys of their own (tests/drandlocal.py).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Protocol

from audit.errors import NotReadyError
from shuffle.beacon import DrandChain, DrandRound, verify_round
from shuffle.errors import ShuffleError

__all__ = ["BeaconSource", "HttpDrand"]


class BeaconSource(Protocol):
    """Where the service gets a drand chain's facts and rounds."""

    def chain(self) -> DrandChain:
        """The chain (raises :class:`audit.errors.NotReadyError` when it cannot be reached)."""
        ...

    def fetch(self, rnd: int) -> DrandRound | None:
        """Round ``rnd``, checked against the chain's key; ``None`` while it is not out."""
        ...


class HttpDrand:
    """A drand chain read over HTTP (one node's base URL for the chain)."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._chain: DrandChain | None = None

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=self.timeout) as response:
            return json.loads(response.read(65536))

    def chain(self) -> DrandChain:
        if self._chain is None:
            try:
                info = self._get("/info")
                self._chain = DrandChain(
                    scheme=str(info["schemeID"]),
                    public_key=str(info["public_key"]),
                    genesis=int(info["genesis_time"]),
                    period=int(info["period"]),
                )
            except (OSError, ValueError, KeyError, TypeError, ShuffleError) as exc:
                raise NotReadyError(
                    f"the beacon {self.url} cannot be read: {exc}", retry_after=5
                ) from None
        return self._chain

    def fetch(self, rnd: int) -> DrandRound | None:
        chain = self.chain()
        try:
            obj = self._get(f"/public/{rnd}")
        except urllib.error.HTTPError as exc:
            if exc.code in (404, 425):
                return None
            raise NotReadyError(f"the beacon answered {exc.code} for round {rnd}", 5) from None
        except (OSError, ValueError) as exc:
            raise NotReadyError(f"the beacon {self.url} cannot be read: {exc}", 5) from None
        if not isinstance(obj, dict) or obj.get("round") != rnd:
            raise NotReadyError(f"the beacon did not answer with round {rnd}", 5)
        prev = obj.get("previous_signature")
        got = DrandRound(rnd, str(obj.get("signature")), None if prev is None else str(prev))
        try:
            verify_round(chain, got)
        except ShuffleError as exc:
            raise NotReadyError(f"the beacon's round {rnd} does not verify: {exc}", 5) from None
        return got
