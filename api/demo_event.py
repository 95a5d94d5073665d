"""The demo event a newcomer can watch: a small pairs duplicate played by bots at a human pace.

``fairplay serve --demo`` runs :func:`main` in a child process beside the demo table
(:mod:`api.demo`): ``--forever --pace 1 --pause 60 --state DATA_DIR/demo-event``. It
creates "Demo pairs" (3 tables Mitchell, 2 boards a round, 3 rounds: 18 boards), enters
six pairs of bots, starts it, and plays every table one action at a time, ``pace``
seconds between the passes over the tables (so every table moves at about a card a
second and a visitor sees all of them progress together). When the event is over it
waits ``pause`` seconds and runs the next one. With ``--state`` the event and its
entrants' keys are kept in the folder, and a restarted demo resumes the event it had.

By hand: ``python -m api.demo_event --url http://127.0.0.1:8000 --tables 3 --boards 1``
(the admin token in ``FAIRPLAY_ADMIN_TOKEN``) runs one event to its end, as fast as the
bots can.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
import time
from collections.abc import Sequence
from typing import Any

from api.bot import BotState
from api.client import ApiCallError, Client
from api.demo import wait_until_up
from api.tournament_bot import TournamentBots

__all__ = [
    "IDLE_SECONDS",
    "NAME",
    "PacedBots",
    "STATE",
    "main",
    "open_event",
    "play",
    "resume",
    "run_demo_event",
]

NAME = "Demo pairs"
STATE = "demo-event"
"""The state file (in the ``--state`` folder) naming the event being played."""
IDLE_SECONDS = 0.2
"""The wait between passes when no table had anything for the bots to do."""


class PacedBots(TournamentBots):
    """Tournament bots that take one action per table per pass."""

    def act_once(self, origin: str, sitting: dict[str, Any]) -> bool:
        """One action at this table if it waits for a seat held here; whether one was taken."""
        return self._step(origin, sitting, once=True)


def open_event(
    client: Client, rng: random.Random, tables: int, boards: int, state: BotState | None
) -> PacedBots:
    """Create the event, enter its bot pairs and start it."""
    rounds = tables if tables % 2 else max(tables - 1, 1)
    body = {
        "name": NAME,
        "format": "pairs-duplicate",
        "tables": tables,
        "boards_per_round": boards,
        "rounds": rounds,
        "schedule": "played by bots, for visitors to watch",
    }
    # The beacon of a demo is local randomness (a real event names a public beacon).
    beacon = {"source": "demo", "round": int(time.time()), "randomness": secrets.token_hex(32)}
    bots = PacedBots.open(client, body, 2 * tables, rng, beacon, state=state, prefix="demo")
    if state is not None:
        state.save(STATE, {"tournament": bots.tid})
    return bots


def resume(client: Client, rng: random.Random, state: BotState) -> PacedBots | None:
    """The event the state folder names, if it is still being played."""
    if STATE not in state.names():
        return None
    tid = str(state.load(STATE)["tournament"])
    try:
        doc = client.call("GET", f"/v1/tournaments/{tid}")
    except ApiCallError as exc:
        if exc.status == 404:  # another database
            return None
        raise
    if doc["phase"] not in ("revealing", "playing"):
        return None
    loaded = TournamentBots.load(client, tid, rng, state)
    return PacedBots(client, tid, loaded.entrants, rng, state)


def play(bots: PacedBots, pace: float) -> dict[str, Any]:
    """Play the event to its end, one action per table per pass; its final state."""
    origin = bots.origin
    while True:
        doc = bots.client.call("GET", f"/v1/tournaments/{bots.tid}")
        if doc["phase"] == "over":
            return dict(doc)
        acted = False
        if doc["phase"] == "revealing":
            bots.reveal_all(doc)
        elif doc["phase"] == "playing" and doc["rounds_played"]:
            for sitting in doc["rounds_played"][-1]["tables"]:
                acted |= bots.act_once(origin, sitting)
        time.sleep(pace if acted else max(pace, IDLE_SECONDS))


def run_demo_event(
    url: str,
    admin_token: str,
    *,
    tables: int = 3,
    boards: int = 2,
    pace: float = 0.0,
    pause: float = 0.0,
    state: str = "",
    forever: bool = False,
    rng: random.Random | None = None,
) -> str:
    """Run the demo event (and the next ones with ``forever``); the last event's id."""
    client = Client(url, admin_token=admin_token)
    rng = rng or random.Random()
    folder = BotState(state) if state else None
    try:
        wait_until_up(client)
        bots = resume(client, rng, folder) if folder is not None else None
        while True:
            if bots is None:
                bots = open_event(client, rng, tables, boards, folder)
            play(bots, pace)
            if not forever:
                return bots.tid
            time.sleep(pause)
            bots = None
    finally:
        client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api.demo_event")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--boards", type=int, default=2, help="boards a round")
    parser.add_argument("--forever", action="store_true", help="a new event after each")
    parser.add_argument("--pace", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--pause", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--state", default="", metavar="DIR", help="keep and resume the event")
    args = parser.parse_args(argv)
    token = os.environ.get("FAIRPLAY_ADMIN_TOKEN", "")
    try:
        tid = run_demo_event(
            args.url,
            token,
            tables=args.tables,
            boards=args.boards,
            pace=args.pace,
            pause=args.pause,
            state=args.state,
            forever=args.forever,
        )
    except (OSError, ApiCallError) as exc:  # the service went away, or refused the demo
        print(f"demo event: {exc}", file=sys.stderr)
        return 1
    print(f"demo event: {tid} is over: {args.url}/tournaments/{tid}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
