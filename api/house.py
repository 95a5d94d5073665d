"""House bots: three bots the service runs, so that one person can sit down and play.

``POST /v1/bot-tables`` (on when ``Config.bot_tables``; ``fairplay serve --demo`` turns
it on) registers three bot players, opens a table with the person at ``S`` and the bots
at ``N``, ``E`` and ``W``, and starts a thread in this process that plays the bots'
seats: it commits and reveals at once, waits ``bot_pace`` seconds before each call or
card (so a person can follow the play) and ``bot_pause`` seconds after a hand ends. A
bot that is a claimer's adversary answers the claim by :mod:`audit.rules.claims`'s rule
(accepted only when it is sure from the cards an adversary may see).

The bots hold no state of their own. A bot's key and its seed for each hand are derived
from the log's key (HKDF, like the server's own seeds, ``api/hand_log.py``): the bot
``house-<nonce>-<seat>`` has the key derived from its name, so any worker process can
drive the bots of a table it did not open (the person's page asks for it when it opens
its stream, :meth:`House.ensure`), and a process that restarts mid-ceremony reveals the
same seeds it committed. Two processes driving the same table at once do no harm: a
commitment or a seed is the same event from both (the log answers the second with the
first's result) and a call or card from the second is refused as stale.

The service knows its bots' seeds, as it knows its own: the person's fairness rests on
the person's own seed, committed from the browser before any seed is revealed
(docs/shuffle-protocol.md), which neither the server nor its bots can predict.

A runner stops after ``IDLE_SECONDS`` without an action that follows the person's own
(:data:`PERSON_LED`: a void or a commitment to a fresh hand is not one), or when the
service shuts down; the person's page starts it again when it comes back.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime

from api import rows
from api.ceremony import seat_commitment
from api.errors import TooManyRequests
from api.room import Room, repair
from api.signing import player_id
from audit.errors import FairplayError
from audit.log.events import make_event, sign_event
from audit.log.keys import Signer
from audit.rules.cards import Seat
from audit.rules.claims import answer_from_view
from audit.rules.ruleset import Ruleset

__all__ = [
    "BOT_SEATS",
    "IDLE_SECONDS",
    "MAX_RUNNERS",
    "PERSON_SEAT",
    "PREFIX",
    "WAKE_SECONDS",
    "Bot",
    "House",
    "bot_seed",
    "bot_signer",
]

log = logging.getLogger(__name__)

PREFIX = "house-"
PERSON_SEAT = Seat.S
BOT_SEATS = (Seat.N, Seat.E, Seat.W)
MAX_RUNNERS = 32
"""Tables whose bots one process drives at once (429 beyond)."""
IDLE_SECONDS = 1800.0
PERSON_LED = frozenset({"reveal", "call", "play", "claim_answer"})
"""The bots' actions that count as the table's activity: a reveal waits for the person's
commitment, a call or a play for his reveal. A commitment to a fresh hand and a timed-out
ceremony's void do not (an abandoned table logged a void and three commits every 600 s
for ever, holding a runner)."""
"""A runner stops after this long without an action at its table."""
WAKE_SECONDS = 1.0
"""How often a waiting runner reads its hand's row (actions logged by other processes)."""


def bot_signer(room: Room, name: str) -> Signer:
    """The key of the house bot called ``name`` (derived from the log's key)."""
    label = f"cayenne-fairplay house bot v1\x00{name}".encode()
    return Signer(name, room.hand_log.signer.derive_secret(label))


def bot_seed(room: Room, table: str, hand: int, seat: Seat) -> bytes:
    """A house bot's shuffle seed for one hand (derived: a restarted process reveals it)."""
    label = f"cayenne-fairplay house bot seed v1\x00{table}\x00{hand}\x00{seat.name}".encode()
    return room.hand_log.signer.derive_secret(label)


@dataclass(frozen=True, slots=True)
class Bot:
    seat: Seat
    signer: Signer

    @property
    def id(self) -> str:
        return player_id(self.signer.verifier())


class House:
    """This process's house bots: the tables it drives, one thread each."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._runners: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------- tables

    def open_table(self, person: str, name: str) -> rows.Table:
        """Register three bots and open a table with ``person`` at S; its bots start."""
        seats: dict[Seat, str] = {PERSON_SEAT: person, **self.register_bots(BOT_SEATS)}
        ruleset = Ruleset.from_json({}, extensions=False).to_json()  # the defaults, written out
        table = self.room.create_table(name, seats, ruleset, Seat.N)
        self.ensure(table.id)
        return table

    def register_bots(self, seats: tuple[Seat, ...] | list[Seat]) -> dict[Seat, str]:
        """Register a new house bot for each of ``seats``; their player ids by seat."""
        conn = self.room.db.connection()
        nonce = secrets.token_hex(6)
        out: dict[Seat, str] = {}
        for seat in seats:
            signer = bot_signer(self.room, f"{PREFIX}{nonce}-{seat.name}")
            pid = player_id(signer.verifier())
            self.room.hand_log.register_player(pid, signer.verifier())
            with conn.transaction():
                rows.insert_player(
                    conn,
                    rows.Player(pid, f"bot {seat.name}", signer.verifier_key(), self.room.now()),
                )
            out[seat] = pid
        return out

    def bots_of(self, table: rows.Table) -> list[Bot]:
        """The seats of ``table`` held by house bots (their keys re-derived and checked)."""
        conn = self.room.db.connection()
        bots = []
        for seat, pid in table.seats.items():
            player = rows.get_player(conn, pid)
            key_name = player.public_key.split("+", 1)[0]
            if not key_name.startswith(PREFIX):
                continue
            signer = bot_signer(self.room, key_name)
            if signer.verifier_key() == player.public_key:  # not a person's look-alike name
                bots.append(Bot(seat, signer))
        return bots

    def check_room(self) -> None:
        """429 when this host drives :data:`MAX_RUNNERS` bot tables: asked before a bot
        table is made, so that a refusal leaves nothing behind (a table and three bots
        were registered, then refused)."""
        with self._lock:
            alive = sum(1 for r in self._runners.values() if r.is_alive())
        if alive >= MAX_RUNNERS:
            raise TooManyRequests(
                f"this host drives {MAX_RUNNERS} bot tables already; try again later",
                retry_after=60,
            )

    def ensure(self, table_id: str) -> bool:
        """Drive the house bots of ``table_id`` in this process, if it has any and no
        thread here drives them yet; ``True`` when a thread runs for it."""
        table = rows.get_table(self.room.db.connection(), table_id)
        bots = self.bots_of(table)
        if not bots:
            return False
        with self._lock:
            runner = self._runners.get(table_id)
            if runner is not None and runner.is_alive():
                return True
            alive = sum(1 for r in self._runners.values() if r.is_alive())
            if alive >= MAX_RUNNERS:
                raise TooManyRequests(
                    f"this host drives {MAX_RUNNERS} bot tables already; try again later",
                    retry_after=60,
                )
            runner = threading.Thread(
                target=self._run, args=(table_id, bots), name=f"house-{table_id}", daemon=True
            )
            self._runners[table_id] = runner
            runner.start()
        return True

    # ------------------------------------------------------------------ playing

    def _run(self, table_id: str, bots: list[Bot]) -> None:
        room = self.room
        rng = random.Random(secrets.randbits(64))  # the bots' choices (not the shuffle)
        last_action = time.monotonic()
        seen = room.changes.version
        try:
            while not room.changes.closed:
                try:
                    acted = self._step(table_id, bots, rng)
                except FairplayError as exc:  # a stale event, a hand voided meanwhile...
                    log.info("house bots at %s: %s", table_id, exc)
                    acted = ""
                if acted:
                    if acted in PERSON_LED:  # only what follows the person's own action
                        last_action = time.monotonic()
                    continue
                if time.monotonic() - last_action > IDLE_SECONDS:
                    return
                seen = room.changes.wait(seen, WAKE_SECONDS)
        except Exception:  # noqa: BLE001 - a runner must not die silently
            log.exception("house bots at %s stopped", table_id)
        finally:
            room.db.discard()

    def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.room.changes.closed and time.monotonic() < end:
            time.sleep(min(0.1, end - time.monotonic()))

    def _step(self, table_id: str, bots: list[Bot], rng: random.Random) -> str:
        """Take one bot action if a bot is awaited; its kind (``"void"``: the ceremony
        timed out), ``""`` when none was taken."""
        room = self.room
        conn = room.db.connection()
        table = rows.get_table(conn, table_id)
        hand = rows.get_hand(conn, table_id, table.hand_count)
        if repair.expire(room, hand):
            return "void"
        mine = {b.seat: b for b in bots}
        c = hand.ceremony
        if hand.phase == "committing":
            todo = [b for b in bots if b.seat.name not in c["commitments"]]
            if not todo:
                return ""
            if hand.number > 1:
                opened = datetime.fromisoformat(hand.started_at.replace("Z", "+00:00")).timestamp()
                self._sleep(room.config.bot_pause - (room.config.clock() - opened))
            bot = todo[0]
            seed = bot_seed(room, table_id, hand.number, bot.seat)
            commitment = seat_commitment(seed, bot.seat, bot.id, table_id, hand.number)
            self._act(hand, bot, "commit", {"commitment": commitment})
            return "commit"
        if hand.phase == "revealing":
            todo = [b for b in bots if b.seat.name not in c["seeds"]]
            if not todo:
                return ""
            bot = todo[0]
            seed = bot_seed(room, table_id, hand.number, bot.seat)
            self._act(hand, bot, "reveal", {"seed": seed.hex()})
            return "reveal"
        snap = room.snapshot(hand)
        claim = None if snap is None else snap.public.get("claim")
        if snap is not None and claim is not None:  # a claim waits: no card until answered
            answering = [mine[s] for s in Seat if s.name in claim["waiting_for"] and s in mine]
            if not answering:
                return ""
            self._sleep(room.config.bot_pace)
            shown = {**claim, "cards": snap.held[Seat.parse(claim["claimer"])]}
            accept = answer_from_view(snap.public, shown)
            self._act(hand, answering[0], "claim_answer", {"accept": accept})
            return "claim_answer"
        if snap is None or snap.to_act not in mine:
            return ""
        self._sleep(room.config.bot_pace)
        bot = mine[snap.to_act]
        if hand.phase == "calling":
            self._act(hand, bot, "call", {"call": rng.choice(snap.legal_calls)})
            return "call"
        card = rng.choice(snap.legal_plays)
        body: dict[str, object] = {"card": card}
        if card[0] == "A" and snap.contract == "nullo" and rng.random() < 0.5:
            body["ace_high"] = True
        self._act(hand, bot, "play", body)
        return "play"

    def _act(self, hand: rows.HandRow, bot: Bot, kind: str, body: dict[str, object]) -> None:
        event = make_event(
            origin=self.room.hand_log.origin,
            table=hand.table_id,
            hand=str(hand.number),
            seq=hand.event_count,
            prev=hand.last_hash,
            actor=bot.id,
            type=kind,
            body=body,
        )
        self.room.submit(hand.table_id, hand.number, sign_event(event, bot.signer))
