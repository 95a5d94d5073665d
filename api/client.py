"""A small HTTP client for the service, used by the bots, the demo, the tests and the bench.

It speaks JSON over one persistent ``http.client`` connection per client, and signs
events and private reads with a player's own Ed25519 key.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from api.signing import player_id, sign_read
from audit.errors import FairplayError
from audit.log.events import make_event, sign_event
from audit.log.keys import Signer, generate_signer

__all__ = ["ApiCallError", "Client", "Identity"]


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
    """JSON requests to a service, at one base URL or several hosts of one service.

    With several URLs (hosts sharing one database), a request that cannot reach a host (a
    refused or reset connection, a timeout) is sent to the next, and the client stays
    there; it goes round the hosts ``rounds`` times, ``pause`` seconds apart, then goes on
    trying with backoff for up to ``outage`` seconds, as it does on a 503 (the service's
    database down), before it gives up. A signed event resent to another host after a lost answer is refused there
    as ``REPLAYED_EVENT`` if the first host applied it, which the bots resync from.
    """

    def __init__(
        self,
        base_url: str | Sequence[str],
        *,
        admin_token: str = "",
        timeout: float = 30,
        rounds: int = 3,
        pause: float = 0.5,
        outage: float = 0.0,
    ) -> None:
        urls = [base_url] if isinstance(base_url, str) else list(base_url)
        if not urls:
            raise ValueError("a client needs at least one URL")
        self.hosts: list[tuple[str, int]] = []
        for url in urls:
            u = urlparse(url)
            self.hosts.append((u.hostname or "127.0.0.1", u.port or 80))
        self.current = 0
        self.admin_token = admin_token
        self.timeout = timeout
        self.rounds = rounds
        self.pause = pause
        self.outage = outage
        """Seconds a request is asked again while the service answers 503 or cannot be
        reached (a database restart, a host restarting); 0 to give up at once."""
        self._conn: http.client.HTTPConnection | None = None

    @property
    def host(self) -> str:
        return self.hosts[self.current][0]

    @property
    def port(self) -> int:
        return self.hosts[self.current][1]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def raw(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """One request; while the service is unavailable (503, as while its database is
        down) or no host can be reached, asked again with backoff for up to ``outage``
        seconds, after the ``Retry-After`` the service names (a signed action sent again
        is answered as the first time, whether or not the lost try was applied)."""
        deadline = time.monotonic() + self.outage
        delay = self.pause
        while True:
            try:
                status, hdrs, payload = self._once(method, path, body, headers)
            except (ConnectionError, http.client.HTTPException, OSError):
                if time.monotonic() + delay > deadline:
                    raise
            else:
                if status != 503 or time.monotonic() + delay > deadline:
                    return status, hdrs, payload
                with contextlib.suppress(ValueError):
                    delay = max(delay, min(float(hdrs.get("retry-after", "")), 10.0))
                if len(self.hosts) > 1:
                    self.close()
                    self.current = (self.current + 1) % len(self.hosts)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _once(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        # A kept-alive connection the server closed fails once: retry on the same host
        # first, then the next ones.
        tries = 1 + self.rounds * len(self.hosts)
        for attempt in range(tries):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self._conn.request(method, path, body=data, headers=hdrs)
                resp = self._conn.getresponse()
                payload = resp.read()
                return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload
            except (ConnectionError, http.client.HTTPException, OSError):
                self.close()
                if attempt == tries - 1:
                    raise
                if attempt > 0:
                    self.current = (self.current + 1) % len(self.hosts)
                    if self.current == 0:
                        time.sleep(self.pause)  # every host refused: wait a little
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

    def call_when_ready(
        self,
        method: str,
        path: str,
        *,
        timeout: float = 600.0,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """:meth:`call`, asked again while the service answers 409 ``NOT_READY`` (a
        finished event's certificate bundle being built), after its ``Retry-After``
        seconds; :class:`ApiCallError` if it is still not ready after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.call(method, path, headers=headers)
            except ApiCallError as exc:
                if exc.status != 409 or exc.error_code != "NOT_READY":
                    raise
                left = deadline - time.monotonic()
                if left <= 0:
                    raise
                wait = exc.details.get("body", {}).get("details", {}).get("retry_after", 1)
                time.sleep(min(max(float(wait), 0.1), left))

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
