"""A small HTTP client for the service, used by the bots, the demo, the tests and the bench.

It speaks JSON over one persistent ``http.client`` connection per client, and signs
events and private reads with a player's own Ed25519 key.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from api.signing import player_id, sign_read
from audit.errors import FairplayError
from audit.log.events import make_event, sign_event
from audit.log.keys import Signer, generate_signer


class ApiCallError(FairplayError):
    """The service answered with an error body."""

    code = "API_CALL_FAILED"

    def __init__(self, status: int, body: Any) -> None:
        code = body.get("code", "") if isinstance(body, dict) else ""
        message = body.get("message", "") if isinstance(body, dict) else str(body)[:200]
        super().__init__(
            f"HTTP {status} {code}: {message}", details={"status": status, "body": body}
        )
        self.status = status
        self.error_code = code


@dataclass(frozen=True, slots=True)
class Identity:
    """A player's signing key and derived id."""

    signer: Signer

    @property
    def public_key(self) -> str:
        """The C2SP verifier key text the player registers."""
        return self.signer.verifier_key()

    @property
    def id(self) -> str:
        return player_id(self.signer.verifier())

    @classmethod
    def generate(cls, name: str = "player") -> Identity:
        return cls(generate_signer(name))


class Client:
    """JSON requests to one service base URL."""

    def __init__(self, base_url: str, *, admin_token: str = "", timeout: float = 30) -> None:
        u = urlparse(base_url)
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 80
        self.admin_token = admin_token
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def raw(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        for attempt in range(2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self._conn.request(method, path, body=data, headers=hdrs)
                resp = self._conn.getresponse()
                payload = resp.read()
                return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload
            except (ConnectionError, http.client.HTTPException, OSError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        status, hdrs, payload = self.raw(method, path, body, headers)
        parsed: Any = (
            json.loads(payload)
            if hdrs.get("content-type", "").startswith("application/json")
            else payload.decode()
        )
        if status >= 400:
            raise ApiCallError(status, parsed)
        return parsed

    def admin(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.admin_token}"} if self.admin_token else {}

    # ------------------------------------------------------------------ resources

    def register(self, identity: Identity, name: str) -> dict[str, Any]:
        body = {"name": name, "public_key": identity.public_key}
        result: dict[str, Any] = self.call("POST", "/v1/players", body, self.admin())
        return result

    def create_table(
        self, seats: dict[str, str], name: str = "table", ruleset: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        body = {"name": name, "seats": seats, "ruleset": ruleset or {}}
        result: dict[str, Any] = self.call("POST", "/v1/tables", body, self.admin())
        return result

    def hand(self, table: str, number: int) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", f"/v1/tables/{table}/hands/{number}")
        return result

    def cards(self, identity: Identity, table: str, number: int, seat: str) -> dict[str, Any]:
        path = f"/v1/tables/{table}/hands/{number}/seats/{seat}/cards"
        auth = sign_read(identity.signer, identity.id, "GET", path, int(time.time()))
        result: dict[str, Any] = self.call("GET", path, headers={"Authorization": auth})
        return result

    def act(
        self,
        identity: Identity,
        origin: str,
        table: str,
        number: int,
        seq: int,
        prev: str,
        kind: str,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        """Sign and submit one action; the hand's new head (seq, hash, phase, waiting_for)."""
        event = make_event(
            origin=origin,
            table=table,
            hand=number,
            seq=seq,
            prev=prev,
            actor=identity.id,
            type=kind,
            body=body,
        )
        result: dict[str, Any] = self.call(
            "POST", f"/v1/tables/{table}/hands/{number}/events", sign_event(event, identity.signer)
        )
        return result
