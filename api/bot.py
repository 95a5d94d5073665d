"""Bot players: random legal games through the real HTTP API, each seat with its own key.

A :class:`TableBots` drives the four seats of one table. For every hand it runs the
shuffle ceremony (a fresh seed per seat, committed then revealed), then reads the
acting seat's own cards with a signed request and plays a random legal call or card
(declaring a nullo ace high at random). Randomness is injected (``rng``); the seeds come
from the OS CSPRNG as the protocol requires.

A :class:`BotState` keeps what a bot needs to carry on after a restart in a folder it is
given: per table, the four players' private keys and each hand's committed seeds, written
(atomically, mode 0600) before the key is registered or the commitment sent. A bot started
again on that folder resumes its tables where the service has them (``fairplay bot
--state DIR``).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api.ceremony import seat_commitment
from api.client import ApiCallError, Client, Identity
from audit.errors import FairplayError
from audit.log.keys import Signer
from audit.rules.cards import CARD_TEXT, Seat, parse_card
from audit.rules.contract import Contract
from audit.rules.play import HandState

__all__ = ["FINISHED", "SEATS", "BotState", "BotStateError", "TableBots"]

SEATS = ("N", "E", "S", "W")
FINISHED = ("over", "void")


class BotStateError(FairplayError):
    """A bot state folder that cannot be used (unreadable, or a seed that was lost)."""

    code = "BOT_STATE"


class BotState:
    """One JSON file per table in a folder: the seats' keys and the hands' seeds.

    The files hold private keys: the folder is made 0700 and each file 0600, replaced
    atomically (write, fsync, rename), so a bot killed at any moment leaves the last
    complete state.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)

    def names(self) -> list[str]:
        """The saved tables' names (the file stems), in order."""
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def load(self, name: str) -> dict[str, Any]:
        path = self.folder / f"{name}.json"
        try:
            data: dict[str, Any] = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise BotStateError(f"{path}: not a bot state file ({exc})") from None
        return data

    def save(self, name: str, data: dict[str, Any]) -> None:
        path = self.folder / f"{name}.json"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)


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
    state: BotState | None = None
    """Where the keys and seeds are kept, so that another run can resume the table."""
    state_name: str = ""
    seeds: dict[int, dict[str, bytes]] = field(default_factory=dict)
    """Each hand's seats' seeds (committed, or about to be)."""

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

    @classmethod
    def open_or_resume(
        cls, client: Client, rng: random.Random, state: BotState, name: str
    ) -> TableBots:
        """The table saved under ``name`` in ``state``, or a new one saved there first.

        Keys are saved before they are registered and the table id as soon as it is
        known, so a bot killed between two steps picks up from the last one.
        """
        origin = str(client.call("GET", "/healthz")["log_origin"])
        data = state.load(name) if name in state.names() else {}
        if not data.get("keys"):
            data = {
                "keys": {
                    s: Identity.generate(f"{name}-{s}").signer.private_key_text() for s in SEATS
                },
                "table": None,
                "seeds": {},
            }
            state.save(name, data)
        players = {s: Identity(Signer.from_text(k)) for s, k in data["keys"].items()}
        if data.get("table") is None:
            for seat, ident in players.items():
                try:
                    client.register(ident, f"{name}-{seat}")
                except ApiCallError as exc:
                    if exc.status != 409:  # registered by the run that was killed
                        raise
            table = client.create_table({s: i.id for s, i in players.items()}, name=name)
            data["table"] = str(table["id"])
            state.save(name, data)
        seeds = {
            int(n): {seat: bytes.fromhex(v) for seat, v in by_seat.items()}
            for n, by_seat in data.get("seeds", {}).items()
        }
        return cls(
            client,
            origin,
            str(data["table"]),
            players,
            rng,
            state=state,
            state_name=name,
            seeds=seeds,
        )

    def _remember(self, number: int, seat: str, seed: bytes) -> None:
        self.seeds.setdefault(number, {})[seat] = seed
        if self.state is None:
            return
        data = self.state.load(self.state_name)
        data["seeds"] = {
            str(n): {st: sd.hex() for st, sd in by_seat.items()}
            for n, by_seat in self.seeds.items()
            if n >= number - 1  # older hands are over: their seeds are public now
        }
        self.state.save(self.state_name, data)

    def unfinished(self, hands: int) -> list[int]:
        """The numbers among 1..hands of this table's hands not yet over or void."""
        todo = []
        for number in range(1, hands + 1):
            try:
                phase = self.client.hand(self.table, number)["phase"]
            except ApiCallError as exc:
                if exc.status != 404:  # 404: not opened yet, so not played
                    raise
                phase = "unopened"
            if phase not in FINISHED:
                todo.append(number)
        return todo

    def _act(
        self, number: int, seat: str, seq: int, prev: str, kind: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        return self.client.act(
            self.players[seat], self.origin, self.table, number, seq, prev, kind, body
        )

    def play_hand(self, number: int, on_action: Callable[[], None] | None = None) -> dict[str, Any]:
        """Play hand ``number`` to the end (or on from where it is); its public JSON."""
        seeds = self.seeds.setdefault(number, {})
        replica: HandState | None = None
        h = self.client.hand(self.table, number)
        cursor: dict[str, Any] = {
            "next_seq": h["next_seq"],
            "last_hash": h["last_hash"],
            "phase": h["phase"],
            "waiting_for": h["waiting_for"],
        }
        while cursor["phase"] not in FINISHED:
            phase = cursor["phase"]
            seat = cursor["waiting_for"][0]
            ident = self.players[seat]
            body: dict[str, Any]
            if phase == "committing":
                self._remember(number, seat, secrets.token_bytes(32))  # before it is sent
                commit = seat_commitment(
                    seeds[seat], Seat.parse(seat), ident.id, self.table, number
                )
                kind, body = "commit", {"commitment": commit}
            elif phase == "revealing":
                if seat not in seeds:
                    raise BotStateError(
                        f"table {self.table} hand {number}: {seat}'s committed seed was not "
                        "kept (run the bot with --state to resume a hand after a restart)"
                    )
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

    def play_rubber(
        self, first: int = 1, max_hands: int = 200, on_action: Callable[[], None] | None = None
    ) -> list[dict[str, Any]]:
        """Play hands from ``first`` until a rubber is won; the finished hands."""
        done = []
        for number in range(first, first + max_hands):
            done.append(self.play_hand(number, on_action))
            report = self.client.call("GET", f"/v1/tables/{self.table}/hands/{number}/report")[
                "report"
            ]
            rubbers = report.get("rubbers") or []
            if rubbers and rubbers[-1].get("winner") is not None:
                return done
        return done
