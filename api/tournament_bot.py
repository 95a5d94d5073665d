"""Bots in a tournament: enter pairs, reveal their seeds, play every seat they hold keys for.

:class:`TournamentBots` holds some entrants' keys and entrant seeds (kept in a state
file when a folder is given: ``tournament-<id>.json``, mode 0600). :meth:`run` follows the
event until it is over: it reveals its entrants' seeds when the service asks for them
(under cayenne-tournament-deals/2 before the start's reveal deadline, keeping the log
key's signed receipt of each reveal, checked, with the entrant; a director's bot asks for
the deal once the deadline has passed: the service deals when the drand round is out),
and at each round's tables acts for every seat it holds whenever the hand waits for one
(a duplicate board: calls and plays; a round-robin hand: the per-hand ceremony too).
Reads of a duplicate table are signed by a seated player (the tables are private).
:meth:`TournamentBots.open` is the director's side for a whole event of bots (the demo
event, the tests, ``bench/tournament_bench.py``): create, open registration, fix the
beacon, enter the pairs, close and start. With ``tables`` set, a bot plays only those
table numbers, so several processes holding the same keys can share an event's tables.
"""

from __future__ import annotations

import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Self

from api.bot import BotState
from api.ceremony import seat_commitment
from api.client import ApiCallError, Client, Identity
from api.signing import sign_read
from audit.log.events import event_hash, make_event, sign_event
from audit.log.keys import Signer, Verifier
from audit.rules.cards import Seat
from audit.rules.claims import answer_from_view
from audit.tournament.receipt import verify_receipt
from shuffle.tournament import entrant_commitment

__all__ = [
    "FINISHED",
    "HandMoved",
    "Entrant",
    "TournamentBots",
    "entrant_event",
    "registration",
    "reveal_event",
]

FINISHED = ("over", "void")


class HandMoved(Exception):
    """The hand is not where the bot read it: nothing to do for its seat now."""


def entrant_event(
    origin: str,
    tid: str,
    ident: Identity,
    kind: str,
    seq: int,
    prev: str | None,
    body: dict[str, Any],
) -> dict[str, Any]:
    """A signed event of the entrant's own chain (``entrant-<id>``)."""
    event = make_event(
        origin=origin,
        table=tid,
        hand=f"entrant-{ident.id}",
        seq=seq,
        prev=prev,
        actor=ident.id,
        type=kind,
        body=body,
    )
    return sign_event(event, ident.signer)


def registration(
    origin: str, tid: str, ident: Identity, partner: str, seed: bytes
) -> dict[str, Any]:
    commitment = entrant_commitment(seed, tid, ident.id).hex()
    return entrant_event(
        origin,
        tid,
        ident,
        "tournament_register",
        0,
        None,
        {"commitment": commitment, "partner": partner},
    )


def reveal_event(
    origin: str, tid: str, ident: Identity, seed: bytes, registered: dict[str, Any]
) -> dict[str, Any]:
    return entrant_event(
        origin, tid, ident, "tournament_reveal", 1, event_hash(registered), {"seed": seed.hex()}
    )


def leave_event(
    origin: str, tid: str, ident: Identity, registered: dict[str, Any]
) -> dict[str, Any]:
    """The entrant's own withdrawal before the start (its chain's event 1)."""
    return entrant_event(
        origin, tid, ident, "tournament_leave", 1, event_hash(registered), {"entrant": ident.id}
    )


@dataclass
class Entrant:
    ident: Identity
    partner: str
    seed: bytes
    receipt: str | None = None
    """The log key's signed receipt of this entrant's reveal (version 2): with the logged
    deal, the proof of a reveal the service took in time and then dropped."""

    def to_json(self) -> dict[str, str]:
        out = {
            "key": self.ident.signer.private_key_text(),
            "partner": self.partner,
            "seed": self.seed.hex(),
        }
        if self.receipt is not None:
            out["receipt"] = self.receipt
        return out

    @classmethod
    def from_json(cls, obj: dict[str, str]) -> Entrant:
        return cls(
            Identity(Signer.from_text(obj["key"])),
            obj["partner"],
            bytes.fromhex(obj["seed"]),
            obj.get("receipt"),
        )


@dataclass
class TournamentBots:
    client: Client
    tid: str
    entrants: dict[str, Entrant]
    rng: random.Random
    state: BotState | None = None
    pause: float = 0.02
    tables: frozenset[int] | None = None
    """The table numbers this bot plays at (``None``: every table where it holds a seat)."""
    seeds: dict[tuple[str, int, str], bytes] = field(default_factory=dict)
    """Round-robin ceremonies: each (table, hand, seat)'s committed seed."""
    concede_after: int | None = None
    """With a number, a seat of this bot on lead after that many tricks concedes the rest
    (a claim of none of them; in a nullo, of all of them), which the adversaries' bots
    accept: how the tests certify a claimed hand."""
    claim_all: bool = False
    """With ``concede_after``, claim every trick left instead (in a nullo, none), which the
    adversaries' bots refuse unless it is sure: how the tests make a refused claim."""

    @property
    def origin(self) -> str:
        return str(self.client.call("GET", "/healthz")["log_origin"])

    def save(self) -> None:
        if self.state is not None:
            self.state.save(
                f"tournament-{self.tid}",
                {"players": {p: e.to_json() for p, e in self.entrants.items()}},
            )

    @classmethod
    def load(cls, client: Client, tid: str, rng: random.Random, state: BotState) -> TournamentBots:
        name = f"tournament-{tid}"
        data = state.load(name) if name in state.names() else {"players": {}}
        entrants = {p: Entrant.from_json(e) for p, e in data["players"].items()}
        return cls(client, tid, entrants, rng, state)

    @classmethod
    def open(
        cls,
        client: Client,
        spec: dict[str, Any],
        pairs: int,
        rng: random.Random,
        beacon: dict[str, Any] | None,
        *,
        state: BotState | None = None,
        prefix: str = "bot",
        reveal_seconds: int | None = None,
        leaving: int = 0,
    ) -> Self:
        """As the director (``client`` holds the admin token): create the event ``spec``
        (the body of ``POST /v1/tournaments``), open registration, fix the ``beacon``
        (version 1 only: ``None`` on a service dealing from drand), enter ``pairs`` fresh
        pairs of bots, close registration and start (``reveal_seconds`` to the reveal
        deadline under version 2); the bots. ``leaving`` entrants more enter first and
        withdraw before the start, each by their own signed ``tournament_leave``."""

        def admin(path: str, body: dict[str, Any]) -> Any:
            return client.call("POST", path, body, client.admin())

        # One key for the creation, kept across the client's retries: an answer lost in
        # an outage, asked again, is the same event's (api/idempotency.py).
        once = {**client.admin(), "Idempotency-Key": secrets.token_hex(16)}
        tid = str(client.call("POST", "/v1/tournaments", spec, once)["id"])
        admin(f"/v1/tournaments/{tid}/registration", {"open": True})
        if beacon is not None:
            admin(f"/v1/tournaments/{tid}/beacon", beacon)
        bots = cls(client, tid, {}, rng, state)
        for i in range(leaving):
            gone = Identity.generate(f"{prefix}-left{i}")
            client.register(gone, f"{prefix}-left{i}")
            ev = registration(bots.origin, tid, gone, gone.id + "-mate", secrets.token_bytes(32))
            client.call("POST", f"/v1/tournaments/{tid}/entrants", ev)
            path = f"/v1/tournaments/{tid}/entrants/{gone.id}/withdraw"
            client.call("POST", path, leave_event(bots.origin, tid, gone, ev))
        bots.enter_pairs(pairs, prefix=prefix)
        admin(f"/v1/tournaments/{tid}/registration", {"open": False})
        start = {} if reveal_seconds is None else {"reveal_seconds": reveal_seconds}
        admin(f"/v1/tournaments/{tid}/start", start)
        return bots

    def enter_pairs(self, count: int, prefix: str = "bot") -> None:
        """Register ``count`` fresh pairs (players with the admin token, then entrants)."""
        origin = self.origin
        for i in range(count):
            a, b = Identity.generate(f"{prefix}{i}a"), Identity.generate(f"{prefix}{i}b")
            new = {
                a.id: Entrant(a, b.id, secrets.token_bytes(32)),
                b.id: Entrant(b, a.id, secrets.token_bytes(32)),
            }
            self.entrants |= new
            self.save()  # keys and seeds before anything is sent
            for n, e in enumerate(new.values()):
                self.client.register(e.ident, f"{prefix}{i}{'ab'[n]}")
                ev = registration(origin, self.tid, e.ident, e.partner, e.seed)
                self.client.call("POST", f"/v1/tournaments/{self.tid}/entrants", ev)

    def _signed_get(self, ident: Identity, path: str) -> Any:
        auth = sign_read(ident.signer, ident.id, "GET", path, int(time.time()))
        return self.client.call("GET", path, headers={"Authorization": auth})

    def reveal_all(self, doc: dict[str, Any]) -> None:
        origin = self.origin
        for entry in doc["entrants"]:
            e = self.entrants.get(entry["player"])
            if e is None or entry["revealed"]:
                continue
            if not any(entry["player"] in p["players"] for p in doc["pair_list"]):
                continue
            registered = self.client.call(
                "GET", f"/v1/tournaments/{self.tid}/events?entrant={entry['player']}"
            )["events"][0]["event"]
            try:
                answer = self.client.call(
                    "POST",
                    f"/v1/tournaments/{self.tid}/reveals",
                    reveal_event(origin, self.tid, e.ident, e.seed, registered),
                )
            except ApiCallError as exc:
                if exc.status != 409:  # the deal has started meanwhile, or the deadline passed
                    raise
                continue
            if "receipt" in answer:  # version 2: checked before it is kept
                receipt = verify_receipt(answer["receipt"], self.log_key())
                if receipt.entrant != e.ident.id or receipt.tournament != self.tid:
                    raise ValueError(f"the receipt is not {e.ident.id}'s in {self.tid}")
                e.receipt = answer["receipt"]
                self.save()

    def log_key(self) -> Verifier:
        """The log's verifier key, as the service publishes it."""
        status, _, text = self.client.raw("GET", "/v1/log/key")
        if status != 200:
            raise ApiCallError(status, text.decode(errors="replace"))
        return Verifier.from_text(text.decode().strip())

    def ask_for_the_deal(self, doc: dict[str, Any]) -> None:
        """Version 2, as the director: past the reveal deadline, ask for the deal (the
        service deals once the drand round is out; before, 409 NOT_READY)."""
        deadline = doc.get("reveal_deadline")
        if not self.client.admin_token or deadline is None or time.time() < deadline:
            return
        try:
            self.client.call(
                "POST", f"/v1/tournaments/{self.tid}/rounds/next", {"round": 1}, self.client.admin()
            )
        except ApiCallError as exc:
            if exc.status != 409:
                raise

    def certificate_bundle(self, timeout: float = 600.0) -> dict[str, Any]:
        """The finished event's certificate bundle, asked for again while the service
        prepares it (409 ``NOT_READY`` with ``Retry-After``)."""
        path = f"/v1/tournaments/{self.tid}/certificate/bundle"
        bundle: dict[str, Any] = self.client.call_when_ready("GET", path, timeout=timeout)
        return bundle

    def run(self, timeout: float = 600.0) -> dict[str, Any]:
        """Follow the event until it is over; its final public state."""
        deadline = time.monotonic() + timeout
        origin = self.origin
        while time.monotonic() < deadline:
            doc = self.client.call("GET", f"/v1/tournaments/{self.tid}")
            if doc["phase"] == "over":
                return dict(doc)
            acted = False
            if doc["phase"] == "revealing":
                self.reveal_all(doc)
                self.ask_for_the_deal(doc)
            elif doc["phase"] == "playing" and doc["rounds_played"]:
                for t in doc["rounds_played"][-1]["tables"]:
                    if self.tables is None or t["table"] in self.tables:
                        acted |= self._step(origin, t)
            if not acted:
                time.sleep(self.pause)
        raise TimeoutError(f"tournament {self.tid} is not over after {timeout} s")

    def _step(self, origin: str, sitting: dict[str, Any], *, once: bool = False) -> bool:
        """Actions at a table while it waits for a seat this bot holds (``once``: one at
        most); whether any was taken."""
        mine = {
            s: self.entrants[p].ident for s, p in sitting["seats"].items() if p in self.entrants
        }
        if not mine:
            return False
        reader = next(iter(mine.values()))
        table_id = sitting["id"]
        try:
            table = self._signed_get(reader, f"/v1/tables/{table_id}")
            number = int(table["current_hand"])
            hand = self._signed_get(reader, f"/v1/tables/{table_id}/hands/{number}")
        except ApiCallError as exc:
            if exc.status == 404:
                return False
            raise
        cursor = {k: hand[k] for k in ("next_seq", "last_hash", "phase", "waiting_for")}
        acted = False
        # Act while the hand waits for a seat held here, following the answers' heads.
        while cursor["phase"] not in FINISHED:
            seat = next((s for s in cursor["waiting_for"] if s in mine), None)
            if seat is None:
                break
            try:
                kind, body = self._action(table_id, number, seat, mine[seat], cursor["phase"])
            except HandMoved:
                return True  # read the hand again
            try:
                cursor = self.client.act(
                    mine[seat],
                    origin,
                    table_id,
                    number,
                    cursor["next_seq"],
                    cursor["last_hash"],
                    kind,
                    body,
                )
            except ApiCallError as exc:
                if exc.error_code not in ("REPLAYED_EVENT", "WRONG_PHASE"):
                    raise
                return True  # someone else moved: read the hand again
            acted = True
            if once:
                break
        return acted

    def _action(
        self, table_id: str, number: int, seat: str, ident: Identity, phase: str
    ) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any]
        if phase == "committing":
            seed = self.seeds.setdefault((table_id, number, seat), secrets.token_bytes(32))
            kind = "commit"
            body = {
                "commitment": seat_commitment(seed, Seat.parse(seat), ident.id, table_id, number)
            }
        elif phase == "revealing":
            kind, body = "reveal", {"seed": self.seeds[(table_id, number, seat)].hex()}
        else:
            cards = self.client.cards(ident, table_id, number, seat)
            claim = cards.get("claim")
            if claim is not None and claim.get("to_answer"):
                hand = self._signed_get(ident, f"/v1/tables/{table_id}/hands/{number}")
                return "claim_answer", {"accept": answer_from_view(hand["play"], claim)}
            if phase == "playing" and self.concede_after is not None and cards["may_claim"]:
                play = self._signed_get(ident, f"/v1/tables/{table_id}/hands/{number}")["play"]
                done = sum(1 for t in play["tricks"] if len(t["cards"]) == 4)
                if done == self.concede_after and play["to_act"] == seat:
                    nullo = play["contract"] == "nullo"
                    concede = 13 - done if nullo else 0
                    outrageous = 0 if nullo else 13 - done
                    return "claim", {"tricks": outrageous if self.claim_all else concede}
            legal = cards["legal_calls"] if phase == "calling" else cards["legal_plays"]
            if not legal:
                # The hand moved since it was read: another seat acted, or this seat's clock
                # ran out and the house plays it (api/clock.py).
                raise HandMoved
            if phase == "calling":
                kind, body = "call", {"call": self.rng.choice(legal)}
            else:
                card = self.rng.choice(legal)
                kind, body = "play", {"card": card}
                if card[0] == "A" and cards["contract"] == "nullo" and self.rng.random() < 0.5:
                    body["ace_high"] = True
        return kind, body
