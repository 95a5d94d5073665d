"""Shared test helpers: players, tables and moving a hand to a given point."""

from __future__ import annotations

import json
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from api.ceremony import seat_commitment
from api.client import ApiCallError, Client, Identity
from audit.cli import main as audit_main
from audit.rules.cards import Seat

SEATS = ("N", "E", "S", "W")


@dataclass
class Table:
    client: Client
    origin: str
    id: str
    players: dict[str, Identity]
    seeds: dict[str, bytes] = field(default_factory=dict)

    def hand(self, number: int = 1) -> dict[str, Any]:
        return self.client.hand(self.id, number)

    def act(
        self, seat: str, kind: str, body: dict[str, Any], number: int = 1, **override: Any
    ) -> dict[str, Any]:
        h = self.hand(number)
        seq = override.pop("seq", h["next_seq"])
        prev = override.pop("prev", h["last_hash"])
        ident = override.pop("identity", self.players[seat])
        return self.client.act(ident, self.origin, self.id, number, seq, prev, kind, body)

    def commit_all(self, number: int = 1) -> None:
        for seat in SEATS:
            self.seeds[seat] = secrets.token_bytes(32)
            c = seat_commitment(
                self.seeds[seat], Seat.parse(seat), self.players[seat].id, self.id, number
            )
            self.act(seat, "commit", {"commitment": c}, number)

    def reveal_all(self, number: int = 1) -> None:
        for seat in SEATS:
            self.act(seat, "reveal", {"seed": self.seeds[seat].hex()}, number)

    def cards(self, seat: str, number: int = 1) -> dict[str, Any]:
        return self.client.cards(self.players[seat], self.id, number, seat)


def open_table(
    client: Client, origin: str, name: str = "t", ruleset: dict[str, Any] | None = None
) -> Table:
    players = {s: Identity.generate(f"{name}-{s}") for s in SEATS}
    for s, ident in players.items():
        client.register(ident, f"{name}-{s}")
    t = client.create_table({s: i.id for s, i in players.items()}, name=name, ruleset=ruleset)
    return Table(client, origin, t["id"], players)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def error_of(call: Any) -> ApiCallError:
    try:
        call()
    except ApiCallError as exc:
        return exc
    raise AssertionError("the call succeeded")


def tournament_verify(
    bundle: Any, key: str, tmp: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``fairplay tournament verify`` of a certificate bundle written to ``tmp``: its exit
    status and what it printed."""
    path = tmp / "bundle.json"
    path.write_text(json.dumps(bundle))
    capsys.readouterr()
    code = audit_main(["tournament", "verify", str(path), "--key", key])
    out = capsys.readouterr()
    return code, out.out + out.err


def at_once(n: int, call: Callable[[], tuple[int, Any]]) -> list[int]:
    """``n`` identical requests released together (``call`` in ``n`` threads held at a
    barrier); their statuses."""
    gate = threading.Barrier(n)
    out: list[int] = []

    def one() -> None:
        gate.wait()
        out.append(call()[0])

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def signed_write(
    identity: Identity, path: str, body: Any, ts: int | None = None, nonce: str | None = None
) -> dict[str, str]:
    """The headers of a signed write of ``body`` (as :class:`api.client.Client` sends it)
    to ``path``: a fresh nonce unless one is given."""
    from api.signing import sign_write

    when = int(time.time()) if ts is None else ts
    once = secrets.token_hex(16) if nonce is None else nonce
    data = json.dumps(body).encode()
    auth = sign_write(identity.signer, identity.id, "POST", path, when, once, data)
    return {"Authorization": auth}
