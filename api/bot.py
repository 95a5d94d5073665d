"""Bot players: random legal games through the real HTTP API, each seat with its own key.

A :class:`TableBots` drives the four seats of one table. For every hand it runs the
shuffle ceremony (a fresh seed per seat, committed then revealed), then reads the
acting seat's own cards with a signed request and plays a random legal call or card
(declaring a nullo ace high at random). Randomness is injected (``rng``); the seeds come
from the OS CSPRNG as the protocol requires.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from api.ceremony import seat_commitment
from api.client import ApiCallError, Client, Identity
from audit.cards import CARD_TEXT, Seat, parse_card
from audit.contract import Contract
from audit.play import HandState

SEATS = ("N", "E", "S", "W")


@dataclass
class TableBots:
    """Four bot players seated at one table."""

    client: Client
    origin: str
    table: str
    players: dict[str, Identity]
    rng: random.Random
    fast: bool = False
    """Read each seat's cards once per hand and follow the play on a local rules state,
    instead of a signed read before every action (the benchmark's mode)."""
    latencies: list[float] = field(default_factory=list)
    """Seconds per accepted call or play (request to response), when recorded."""
    plays: int = 0

    @classmethod
    def open(
        cls,
        client: Client,
        rng: random.Random,
        name: str = "bots",
        ruleset: dict[str, Any] | None = None,
    ) -> TableBots:
        """Register four fresh players and open a table for them."""
        origin = str(client.call("GET", "/healthz")["log_origin"])
        players = {s: Identity.generate(f"{name}-{s}") for s in SEATS}
        for seat, ident in players.items():
            client.register(ident, f"{name}-{seat}")
        table = client.create_table(
            {s: i.id for s, i in players.items()}, name=name, ruleset=ruleset
        )
        return cls(client, origin, str(table["id"]), players, rng)

    def _act(
        self, number: int, seat: str, seq: int, prev: str, kind: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        return self.client.act(
            self.players[seat], self.origin, self.table, number, seq, prev, kind, body
        )

    def play_hand(self, number: int, on_action: Callable[[], None] | None = None) -> dict[str, Any]:
        """Play hand ``number`` to the end; the finished hand's public JSON."""
        seeds: dict[str, bytes] = {}
        replica: HandState | None = None
        h = self.client.hand(self.table, number)
        cursor: dict[str, Any] = {
            "next_seq": h["next_seq"],
            "last_hash": h["last_hash"],
            "phase": h["phase"],
            "waiting_for": h["waiting_for"],
        }
        while cursor["phase"] != "over":
            phase = cursor["phase"]
            seat = cursor["waiting_for"][0]
            ident = self.players[seat]
            body: dict[str, Any]
            if phase == "committing":
                seeds[seat] = secrets.token_bytes(32)
                commit = seat_commitment(
                    seeds[seat], Seat.parse(seat), ident.id, self.table, number
                )
                kind, body = "commit", {"commitment": commit}
            elif phase == "revealing":
                kind, body = "reveal", {"seed": seeds[seat].hex()}
            elif self.fast:
                if replica is None:
                    replica = self._replica(number)
                if replica.to_act is None or replica.to_act.name != seat:
                    raise AssertionError(
                        f"the service waits for {seat}, the rules for {replica.to_act}"
                    )
                if phase == "calling":
                    kind, body = "call", {"call": self.rng.choice(replica.legal_calls())}
                else:
                    card = CARD_TEXT[self.rng.choice(replica.legal_plays(Seat.parse(seat)))]
                    body = {"card": card}
                    if (
                        card[0] == "A"
                        and replica.contract == Contract.NULLO
                        and self.rng.random() < 0.5
                    ):
                        body["ace_high"] = True
                    kind = "play"
            else:
                mine = self.client.cards(ident, self.table, number, seat)
                if phase == "calling":
                    kind, body = "call", {"call": self.rng.choice(mine["legal_calls"])}
                else:
                    card = self.rng.choice(mine["legal_plays"])
                    body = {"card": card}
                    if card[0] == "A" and mine["contract"] == "nullo" and self.rng.random() < 0.5:
                        body["ace_high"] = True
                    kind = "play"
            start = time.perf_counter()
            try:
                cursor = self._act(
                    number, seat, cursor["next_seq"], cursor["last_hash"], kind, body
                )
            except ApiCallError as exc:
                if exc.error_code != "REPLAYED_EVENT":
                    raise
                h = self.client.hand(self.table, number)  # someone else moved: resync
                cursor = {k: h[k] for k in ("next_seq", "last_hash", "phase", "waiting_for")}
                continue
            if kind in ("call", "play"):
                self.latencies.append(time.perf_counter() - start)
                self.plays += kind == "play"
                if replica is not None:
                    if kind == "call":
                        replica.call(Seat.parse(seat), body["call"])
                    else:
                        replica.play(
                            Seat.parse(seat), parse_card(body["card"]), body.get("ace_high", False)
                        )
            if on_action is not None:
                on_action()
        return self.client.hand(self.table, number)

    def _replica(self, number: int) -> HandState:
        """The hand's rules state from the four seats' own cards (one signed read each)."""
        deal = {}
        for seat, ident in self.players.items():
            mine = self.client.cards(ident, self.table, number, seat)
            deal[Seat.parse(seat)] = [parse_card(c) for c in mine["dealt"]]
        public = self.client.hand(self.table, number)
        return HandState(deal, Seat.parse(public["dealer"]), parse_card(public["play"]["cayenne"]))

    def play_rubber(self, first: int = 1, max_hands: int = 200) -> list[dict[str, Any]]:
        """Play hands from ``first`` until a rubber is won; the finished hands."""
        done = []
        for number in range(first, first + max_hands):
            done.append(self.play_hand(number))
            report = self.client.call("GET", f"/v1/tables/{self.table}/hands/{number}/report")[
                "report"
            ]
            rubbers = report.get("rubbers") or []
            if rubbers and rubbers[-1].get("winner") is not None:
                return done
        return done
