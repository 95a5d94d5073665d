"""A local drand chain for the tests: keys made here, rounds signed as drand signs them, and
a node's HTTP interface (``/info``, ``/public/<round>``, ``/public/latest``).

The scheme is drand's ``pedersen-bls-chained`` (the League of Entropy's ``default`` chain):
a G1 public key, G2 signatures under the DST ``BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_``
over SHA-256(previous signature || u64_be(round)); round 1's previous signature is the
chain's genesis seed. The signing is py_ecc's (the Ethereum Foundation's BLS12-381, test
only); the service and the verifiers check the rounds with drand-verify, as they check
the League of Entropy's. A round is served only once its time has come (``clock``).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from shuffle.beacon import CHAINED, DrandChain, DrandRound


class LocalDrand:
    """A chain of one secret key (``secret``: a BLS12-381 scalar)."""

    def __init__(
        self,
        secret: int,
        genesis: int,
        period: int,
        *,
        clock: Callable[[], float] = time.time,
        genesis_seed: bytes = b"cayenne-fairplay local drand",
    ) -> None:
        from py_ecc.bls import G2Basic

        self._sign = G2Basic.Sign
        self._secret = secret
        self.chain = DrandChain(CHAINED, G2Basic.SkToPk(secret).hex(), genesis, period)
        self.clock = clock
        self._signatures = [hashlib.sha256(genesis_seed).digest()]  # index r: round r's
        self._lock = threading.Lock()

    def round(self, rnd: int) -> DrandRound:
        """Round ``rnd`` (signed now if not yet, with every round before it)."""
        with self._lock:
            while len(self._signatures) <= rnd:
                r = len(self._signatures)
                message = hashlib.sha256(self._signatures[r - 1] + r.to_bytes(8, "big"))
                self._signatures.append(self._sign(self._secret, message.digest()))
            return DrandRound(rnd, self._signatures[rnd].hex(), self._signatures[rnd - 1].hex())

    def latest(self) -> int:
        """The last round published at the clock's time (0 before genesis)."""
        now = int(self.clock())
        if now < self.chain.genesis:
            return 0
        return (now - self.chain.genesis) // self.chain.period + 1

    def info(self) -> dict[str, Any]:
        return {
            "public_key": self.chain.public_key,
            "period": self.chain.period,
            "genesis_time": self.chain.genesis,
            "hash": hashlib.sha256(self.chain.public_key.encode()).hexdigest(),
            "schemeID": self.chain.scheme,
        }

    def serve(self) -> tuple[str, ThreadingHTTPServer]:
        """Serve the chain on 127.0.0.1 (a free port); its base URL and the server."""
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                parts = self.path.strip("/").split("/")
                body: Any = None
                if parts == ["info"]:
                    body = beacon.info()
                elif len(parts) == 2 and parts[0] == "public":
                    rnd = beacon.latest() if parts[1] == "latest" else int(parts[1] or 0)
                    if 1 <= rnd <= beacon.latest():
                        r = beacon.round(rnd)
                        body = r.to_json()
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{server.server_port}", server
