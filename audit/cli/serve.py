"""``fairplay serve`` (the HTTP service under gunicorn) and ``fairplay bot``.

``fairplay serve [--host H] [--port P] [--database URL] [--workers N] [--demo]`` runs
migrations once, then serves :func:`api.create_app` with several gunicorn worker
processes. With ``--demo``, self-registration and bot tables are on (``/play``) and a
child process runs a table of bots through the real API at a human pace, for ever,
resuming its table from ``DATA_DIR/demo-bots`` after a restart (:mod:`api.demo`), and a
small pairs event of bots, resumed from ``DATA_DIR/demo-event`` (:mod:`api.demo_event`).

``fairplay bot --url URL [--url URL2...] [--state DIR] [--tables N] [--hands H | --rubber]``
(or ``--tournament ID [--enter N]``: play every seat of an event it holds keys for)
opens tables of four bot players (fresh keys, registered with the admin token or by
self-registration) and plays random legal games through the HTTP API, printing each
hand's audit verdict. It fails over between the URLs, and with ``--state`` keeps its keys
and seeds in DIR and resumes the tables it finds there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_PORT",
    "add_store_options",
    "register",
    "run_bot",
    "run_serve",
    "run_tournament_bot",
    "store_settings",
]

DEFAULT_PORT = 8000
BOT_OUTAGE = 300.0
"""Seconds a bot keeps asking while the service answers 503 or cannot be reached (a
database restart, a host restarting) before it gives up."""


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve", help="serve certified tables, reports and log proofs over HTTP"
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    add_store_options(serve)
    serve.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    serve.add_argument("--threads", type=int, default=16, help="threads per worker (default 16)")
    serve.add_argument(
        "--self-registration", action="store_true", help="let anyone register a player key"
    )
    serve.add_argument(
        "--ceremony-timeout",
        type=int,
        default=None,
        metavar="SECONDS",
        help="void a hand whose shuffle ceremony waits this long for a seat after its opening, "
        "or after its first commitment (default 600; 0: never)",
    )
    serve.add_argument(
        "--witness-key",
        action="append",
        default=[],
        metavar="VKEY",
        help="a witness's cosignature/v1 verifier key whose cosignatures the service accepts "
        "and serves (repeatable; also FAIRPLAY_WITNESS_KEYS)",
    )
    serve.add_argument(
        "--bot-tables",
        action="store_true",
        help="let a registered player open a table against three house bots (/play)",
    )
    serve.add_argument(
        "--demo",
        action="store_true",
        help="a demo: self-registration and bot tables on, and a table of bots playing at a "
        "human pace for ever, beside a small pairs event of bots (resumed from DATA_DIR after "
        "a restart)",
    )
    serve.set_defaults(func=run_serve)

    bot = subparsers.add_parser("bot", help="bot players: random legal games through the HTTP API")
    bot.add_argument(
        "--url",
        action="append",
        default=None,
        help="the service; repeat for several hosts of one service: a host that cannot be "
        f"reached is left for the next (default http://127.0.0.1:{DEFAULT_PORT})",
    )
    bot.add_argument(
        "--state",
        default="",
        metavar="DIR",
        help="keep the tables' keys and seeds in DIR (0700) and resume the tables found "
        "there: a restarted bot finishes the hands it was playing",
    )
    bot.add_argument(
        "--admin-token",
        default=os.environ.get("FAIRPLAY_ADMIN_TOKEN", ""),
        help="the service's admin token (default: $FAIRPLAY_ADMIN_TOKEN)",
    )
    bot.add_argument("--tables", type=int, default=1, help="tables to open (default 1)")
    bot.add_argument("--hands", type=int, default=1, help="hands to play at each table (default 1)")
    bot.add_argument("--rubber", action="store_true", help="play until a rubber is won")
    bot.add_argument(
        "--pace", type=float, default=0.0, metavar="SECONDS", help="pause after each action"
    )
    bot.add_argument(
        "--seed", type=int, default=None, help="seed of the bots' choices (not of the shuffle)"
    )
    bot.add_argument(
        "--tournament",
        default=None,
        help="play every seat of this event whose keys are in --state (docs/tournaments.md)",
    )
    bot.add_argument(
        "--enter",
        type=int,
        default=0,
        help="with --tournament: first register this many fresh pairs (admin token)",
    )
    bot.add_argument(
        "--bundle",
        metavar="FILE",
        default=None,
        help="with --tournament: at the end, save the event's certificate bundle here "
        "(waiting while the service prepares it)",
    )
    bot.set_defaults(func=run_bot)


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """Where the service keeps its state: the database, the data folder, the log's key and
    origin (``fairplay serve`` and the commands that act on a service's store)."""
    parser.add_argument(
        "--database",
        default="",
        help="sqlite:///PATH or postgresql://... (default: DATA_DIR/fairplay.db)",
    )
    parser.add_argument(
        "--data-dir", default="data", help="local folder for the SQLite database and the log key"
    )
    parser.add_argument(
        "--log-key", default="", help="the log's signer key file (share it between hosts)"
    )
    parser.add_argument("--origin", default="", help="the log's origin line")


def store_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The service settings of :func:`add_store_options`' options."""
    settings: dict[str, Any] = {"data_dir": args.data_dir}
    if args.database:
        settings["database_url"] = args.database
    if args.log_key:
        settings["log_key_file"] = args.log_key
    if args.origin:
        settings["log_origin"] = args.origin
    return settings


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    settings = store_settings(args)
    if args.self_registration or getattr(args, "demo", False):
        settings["self_registration"] = True
    if getattr(args, "bot_tables", False) or getattr(args, "demo", False):
        settings["bot_tables"] = True
    threads = getattr(args, "threads", None)
    if threads is not None:
        # Each server-sent event stream holds a thread: keep half of them for requests.
        settings["max_streams"] = max(1, threads // 2)
    if args.ceremony_timeout is not None:
        settings["ceremony_timeout"] = args.ceremony_timeout
    if args.witness_key:
        settings["witness_keys"] = tuple(args.witness_key)
    return settings


def _admin_token(data_dir: str) -> str:
    """The admin token from the environment, or a local one kept in DATA_DIR/admin-token."""
    token = os.environ.get("FAIRPLAY_ADMIN_TOKEN", "")
    if token:
        return token
    path = Path(data_dir) / "admin-token"
    if not path.exists():
        from api.database import private_dir

        private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
    return path.read_text().strip()


def run_serve(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    from api import create_app
    from api.server import front_worker

    settings = _settings(args)
    settings["admin_token"] = _admin_token(args.data_dir)
    # Migrate and create the log key once, in the master, before the workers fork.
    app = create_app(settings)
    services = app.extensions["fairplay"]
    config = services.config
    db_display = services.db.display_url
    services.close()
    url = f"http://{args.host}:{args.port}"
    print(
        f"fairplay serve: {url} ({db_display}, {args.workers} workers x {args.threads} threads)",
        file=sys.stderr,
    )
    if not os.environ.get("FAIRPLAY_ADMIN_TOKEN"):
        print(
            f"fairplay serve: admin token in {Path(args.data_dir) / 'admin-token'}", file=sys.stderr
        )

    def when_ready(server: Any) -> None:
        if args.demo:
            env = dict(os.environ, FAIRPLAY_ADMIN_TOKEN=settings["admin_token"])
            demo_url = (
                f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
            )
            # Bots at a human pace, for ever, resumed after a restart: a visitor always
            # finds a live game (api/demo.py).
            demo = [sys.executable, "-m", "api.demo", "--url", demo_url, "--forever"]
            demo += ["--pace", "1", "--pause", "5"]
            demo += ["--state", str(Path(args.data_dir) / "demo-bots")]
            subprocess.Popen(demo, env=env)
            # Beside it, a small pairs event of bots to watch (api/demo_event.py).
            event = [sys.executable, "-m", "api.demo_event", "--url", demo_url, "--forever"]
            event += ["--pace", "1", "--pause", "60"]
            event += ["--state", str(Path(args.data_dir) / "demo-event")]
            subprocess.Popen(event, env=env)

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", args.workers)
            # Threads let one process commit many requests' log appends together; the
            # worker reads each whole request before a thread takes it (api/server.py).
            self.cfg.set("worker_class", front_worker(config.max_body, config.request_timeout))
            self.cfg.set("threads", args.threads)
            self.cfg.set("keepalive", 5)
            self.cfg.set("timeout", 60)
            self.cfg.set("accesslog", None)
            self.cfg.set("when_ready", when_ready)
            if "control_socket_disable" in self.cfg.settings:
                # Several services may run on one host; none needs gunicorn's control socket.
                self.cfg.set("control_socket_disable", True)

        def load(self) -> Any:
            return create_app(settings)

    Server().run()
    return 0


def run_tournament_bot(args: argparse.Namespace) -> int:
    """``fairplay bot --tournament ID``: follow the event until it is over."""
    from api.bot import BotState
    from api.client import Client
    from api.tournament_bot import TournamentBots

    urls = args.url or [f"http://127.0.0.1:{DEFAULT_PORT}"]
    client = Client(urls, admin_token=args.admin_token, rounds=10, outage=BOT_OUTAGE)
    rng = random.Random(args.seed if args.seed is not None else secrets.randbits(32))
    try:
        if args.state:
            bots = TournamentBots.load(client, args.tournament, rng, BotState(args.state))
        else:
            bots = TournamentBots(client, args.tournament, {}, rng)
        if args.enter:
            bots.enter_pairs(args.enter)
        if not bots.entrants:
            print("fairplay bot: no entrant's keys (use --state DIR or --enter N)", file=sys.stderr)
            return 2
        final = bots.run(timeout=24 * 3600)
        standings = client.call("GET", f"/v1/tournaments/{args.tournament}/standings")
        for s in standings["standings"]:
            print(f"{s['place']:>5} {' & '.join(s['pair'])} {s['field'] or ''} {s['score']}")
        print(f"tournament {final['id']}: {final['phase']}")
        if getattr(args, "bundle", None):
            text = json.dumps(bots.certificate_bundle(), ensure_ascii=False)
            Path(args.bundle).write_text(text, encoding="utf-8")
            print(f"certificate bundle: {args.bundle}")
        return 0
    except Exception as exc:  # noqa: BLE001 - reported, no traceback
        print(f"fairplay bot: {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()


def run_bot(args: argparse.Namespace) -> int:
    from api.bot import BotState, TableBots
    from api.client import Client

    if args.tournament:
        return run_tournament_bot(args)

    failures: list[BaseException] = []
    lock = threading.Lock()
    base_seed = args.seed if args.seed is not None else secrets.randbits(32)
    urls = args.url or [f"http://127.0.0.1:{DEFAULT_PORT}"]
    state = BotState(args.state) if args.state else None

    def one(index: int) -> None:
        client = Client(urls, admin_token=args.admin_token, rounds=10, outage=BOT_OUTAGE)
        try:
            rng = random.Random(base_seed + index)
            if state is None:
                bots = TableBots.open(client, rng, name=f"bot{index}")
                todo = list(range(1, args.hands + 1))
            else:
                bots = TableBots.open_or_resume(client, rng, state, f"bot{index}")
                todo = bots.unfinished(args.hands)
            pace = (lambda: time.sleep(args.pace)) if args.pace > 0 else None
            if args.rubber:
                first = 1
                if state is not None:  # resume at the table's current hand
                    table = client.call("GET", f"/v1/tables/{bots.table}")
                    first = int(table["current_hand"])
                hands = bots.play_rubber(first=first, on_action=pace)
            else:
                hands = [bots.play_hand(n, on_action=pace) for n in todo]
            for h in hands:
                if h["phase"] != "over":
                    with lock:
                        print(f"table {bots.table} hand {h['hand']}: {h['phase']}")
                    continue
                report = client.call("GET", f"/v1/tables/{bots.table}/hands/{h['hand']}/report")
                with lock:
                    print(
                        f"table {bots.table} hand {h['hand']}: {report['report']['verdict']} "
                        f"report {report['id']}"
                    )
        except BaseException as exc:  # noqa: BLE001 - reported below
            with lock:
                failures.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(args.tables)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for exc in failures:
        print(f"fairplay bot: {exc}", file=sys.stderr)
    return 1 if failures else 0
