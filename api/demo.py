"""The demo a newcomer sees: a table of bots playing a few certified hands.

``fairplay serve --demo`` runs :func:`main` in a child process once the server is
ready, when the database holds no table yet; it can also be run by hand:
``python -m api.demo --url http://127.0.0.1:8000 --hands 3`` (with the admin token in
``FAIRPLAY_ADMIN_TOKEN``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence

from api.bot import TableBots
from api.client import Client


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


def seed_demo(url: str, admin_token: str, hands: int = 3, rng: random.Random | None = None) -> str:
    """Open a demo table of four bots and play ``hands`` hands; the table's id."""
    client = Client(url, admin_token=admin_token)
    try:
        wait_until_up(client)
        bots = TableBots.open(client, rng or random.Random(), name="demo")
        for number in range(1, hands + 1):
            bots.play_hand(number)
        return bots.table
    finally:
        client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api.demo")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--hands", type=int, default=3)
    args = parser.parse_args(argv)
    token = os.environ.get("FAIRPLAY_ADMIN_TOKEN", "")
    table = seed_demo(args.url, token, args.hands)
    print(
        f"demo: table {table} played {args.hands} hands: {args.url}/tables/{table}", file=sys.stderr
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
