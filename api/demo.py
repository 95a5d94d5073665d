"""The demo a newcomer sees: a table of bots playing certified hands at a human pace.

``fairplay serve --demo`` runs :func:`main` in a child process once the server is
ready: ``--forever --pace 1 --pause 5 --state DATA_DIR/demo-bots``, so a visitor always
finds a live game (a card about every second, a short pause between hands), and a
restarted server resumes the same table where its log has it. It can also be run by
hand: ``python -m api.demo --url http://127.0.0.1:8000 --hands 3`` (with the admin token
in ``FAIRPLAY_ADMIN_TOKEN``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence

from api.bot import BotState, TableBots
from api.client import Client

__all__ = ["main", "seed_demo", "wait_until_up"]


def wait_until_up(client: Client, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.call("GET", "/healthz")
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def seed_demo(
    url: str,
    admin_token: str,
    hands: int = 3,
    rng: random.Random | None = None,
    *,
    pace: float = 0.0,
    pause: float = 0.0,
    state: str = "",
) -> str:
    """Play ``hands`` hands (0: for ever) at a table of four bots; the table's id.

    ``pace`` seconds after each action, ``pause`` seconds between hands; with ``state``
    (a folder), the table and its keys are kept there and resumed on the next run.
    """
    client = Client(url, admin_token=admin_token)
    rng = rng or random.Random()
    try:
        wait_until_up(client)
        if state:
            bots = TableBots.open_or_resume(client, rng, BotState(state), "demo")
        else:
            bots = TableBots.open(client, rng, name="demo")
        on_action = (lambda: time.sleep(pace)) if pace > 0 else None
        played = 0
        while hands <= 0 or played < hands:
            number = int(client.call("GET", f"/v1/tables/{bots.table}")["current_hand"])
            bots.play_hand(number, on_action)
            played += 1
            if pause > 0:
                time.sleep(pause)
        return bots.table
    finally:
        client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api.demo")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--forever", action="store_true", help="play hands until stopped")
    parser.add_argument("--pace", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--pause", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--state", default="", metavar="DIR", help="keep and resume the table")
    args = parser.parse_args(argv)
    token = os.environ.get("FAIRPLAY_ADMIN_TOKEN", "")
    hands = 0 if args.forever else args.hands
    table = seed_demo(args.url, token, hands, pace=args.pace, pause=args.pause, state=args.state)
    print(
        f"demo: table {table} played {args.hands} hands: {args.url}/tables/{table}", file=sys.stderr
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
