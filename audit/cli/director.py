"""``fairplay director add KEY``: the operator grants a director's key on the service's
database (the same grant as ``POST /v1/directors`` with the admin token: a logged
``director_grant`` event, docs/operations.md "Directors")."""

from __future__ import annotations

import argparse
from typing import Any

from audit.cli.serve import add_store_options, store_settings

__all__ = ["register", "run_add"]


def register(subparsers: Any) -> None:
    director = subparsers.add_parser("director", help="grant a tournament director's key")
    verbs = director.add_subparsers(dest="verb", metavar="VERB")
    add = verbs.add_parser("add", help="grant a director's key (logged; the same key again: no-op)")
    add.add_argument("key", help="the director's C2SP verifier key text (name+hash+base64)")
    add_store_options(add)
    add.set_defaults(func=run_add)


def run_add(args: argparse.Namespace) -> int:
    from api.config import load_config
    from api.database import Database
    from api.directors import grant
    from api.hand_log import HandLog
    from api.migrations import migrate
    from api.rows import now_iso

    cfg = load_config(store_settings(args))
    db = Database(cfg.resolved_database_url)
    try:
        migrate(db)
        hand_log = HandLog(cfg, db.url)
        try:
            out = grant(hand_log, args.key, now_iso(cfg.clock()), field="KEY")
        finally:
            hand_log.close()
    finally:
        db.close()
    said = "granted" if out["new"] else "already granted"
    print(f"director {out['director']} {said} (log entry {out['granted_at']}): {out['key']}")
    return 0
