"""Write ``worked_certificate.json``: a small event's certificate bundle, as the real
service issues it, with every intermediate value a verifier computes on the way
(docs/tournaments.md, "The certificate for an independent verifier").

The event: a pairs duplicate, Mitchell of 3 tables, 1 board a round, 3 rounds, six
pairs of bots on the HTTP service (SQLite, a real socket), dealt by
cayenne-tournament-deals/2 from a local drand chain (tests/drandlocal.py: its key made
here, its rounds signed as drand signs them) with a reveal deadline 2 s after the start;
each entrant's signed receipt for its reveal is kept beside the bundle. During round 1 the director
adjusts round 1, table 1, board 1 (average plus to NS, average minus to EW: the result
played there is replaced); in round 3 tables 1 and 2 are played and the director ends the
round early, so table 3 of round 3 (board 2) is a board that table could not play. Every
board then has N = 3 places to be played and boards 1 and 2 only n = 2 results: Neuberg.

The intermediate values are the project's own (the scorer's facts of each hand, the
standings document and its hash as the service logged them); tests/tournament/
test_worked_certificate.py recomputes every one of them from the documented formulas and
checks the bundle with ``fairplay tournament verify``'s function. Run from the
repository's root (it takes about a minute)::

    .venv/bin/python tests/vectors/tournament/make_worked_certificate.py

The keys and seeds are fresh at each run, so each run writes another (equally valid)
vector; the file holds one run, and the test reads only the file. With ``--refresh`` the
bundle already in the file is kept and only the intermediate values are written again
from it (each board's N, n, raw matchpoints and Neuberg, from audit.tournament.matchpoints).
"""

from __future__ import annotations

import json
import logging
import random
import sys
import tempfile
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import time  # noqa: E402

from api import create_app  # noqa: E402
from api.client import Client  # noqa: E402
from api.tournament_bot import TournamentBots  # noqa: E402
from audit.record.codec import load_record  # noqa: E402
from audit.rules.replay import replay_hand  # noqa: E402
from audit.rules.sitting import hand_facts  # noqa: E402
from audit.tournament.boardscore import board_score  # noqa: E402
from audit.tournament.certificate import standings_digest  # noqa: E402
from audit.tournament.matchpoints import (  # noqa: E402
    Adjustment,
    BoardResult,
    matchpoints,
    most_results,
    neuberg,
    score_board,
)
from tests.drandlocal import LocalDrand  # noqa: E402

OUT = Path(__file__).with_name("worked_certificate.json")
ADMIN = "worked-certificate-admin"
EVENT = {
    "name": "Worked certificate",
    "format": "pairs-duplicate",
    "tables": 3,
    "boards_per_round": 1,
    "rounds": 3,
}
DRAND_SECRET = 0x2323_2026
"""The local drand chain's BLS12-381 secret (a test chain: its public key is in the bundle)."""
ADJUST = {"round": 1, "table": 1, "board": 1, "ns": "average-plus", "ew": "average-minus"}


def _play(bots: TournamentBots, sitting: dict[str, Any]) -> None:
    for _ in range(2000):
        if not bots._step(bots.origin, sitting):
            return


def _facts(record: dict[str, Any]) -> dict[str, Any] | None:
    """The scorer's facts of a one-hand record (what the five steps start from)."""
    rec = load_record(record)
    hand = rec.hands[0]
    facts = hand_facts(hand, replay_hand(hand), rec.ruleset)
    if facts is None:
        return None
    score = board_score(facts)
    return {
        "contract": facts.contract.name.lower(),
        "unit": facts.unit,
        "tricks": list(facts.tricks),
        "honours": list(facts.honours),
        "revokes": [["NS" if side == 0 else "EW", option] for side, option in facts.revokes],
        "ns": score.ns,
        "ew": score.ew,
        "ns_score": score.result,
    }


def _fraction(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def board_steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Each board's matchpoints on the way to its sheet: N (the most results any board
    has), its n, the top, and per entry the raw matchpoints among the n results, the
    Neuberg value and both pairs' exact matchpoints (fractions as text, "7/4")."""
    sheets = document["boards"]
    entries = [
        [
            BoardResult(None, (Adjustment(x["adjusted"]["ns"]), Adjustment(x["adjusted"]["ew"])))
            if "adjusted" in x
            else BoardResult(x["ns_score"])
            for x in sheet["results"]
        ]
        for sheet in sheets
    ]
    most = most_results(entries)
    out = []
    for sheet, results in zip(sheets, entries, strict=True):
        scores = [r.ns_score for r in results if r.ns_score is not None]
        raw = iter(matchpoints(scores))
        final = score_board(results, most)
        steps = []
        for x, r, (ns, ew) in zip(sheet["results"], results, final, strict=True):
            step: dict[str, Any] = {"round": x["round"], "table": x["table"]}
            if r.ns_score is None:
                step["adjusted"] = x["adjusted"]
            else:
                m = next(raw)
                step |= {
                    "ns_score": r.ns_score,
                    "matchpoints": _fraction(m),
                    "neuberg": _fraction(neuberg(m, len(scores), most)),
                }
            steps.append(step | {"ns": _fraction(ns), "ew": _fraction(ew)})
        out.append(
            {
                "board": sheet["board"],
                "N": most,
                "n": len(scores),
                "top": _fraction(Fraction(most - 1)),
                "entries": steps,
            }
        )
    return out


def refresh() -> None:
    """Write the intermediate values again from the bundle the file holds."""
    vector = json.loads(OUT.read_text(encoding="utf-8"))
    vector["boards"] = board_steps(vector["standings_document"])
    OUT.write_text(json.dumps(vector, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"refreshed {OUT}")


def main() -> None:
    drand = LocalDrand(DRAND_SECRET, int(time.time()) - 1, 1)
    drand_url, drand_server = drand.serve()
    with tempfile.TemporaryDirectory() as data:
        app = create_app(
            {
                "data_dir": data,
                "admin_token": ADMIN,
                "testing": True,
                "upload_per_hour": 0,
                "register_per_hour": 0,
                "beacon_url": drand_url,
            }
        )
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            client = Client(f"http://127.0.0.1:{server.server_port}", admin_token=ADMIN)
            bots = TournamentBots.open(client, EVENT, 6, random.Random(23), None, reveal_seconds=2)
            tid = bots.tid
            bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
            while (doc := client.call("GET", f"/v1/tournaments/{tid}"))["phase"] != "playing":
                bots.ask_for_the_deal(doc)  # once the deadline has passed and the round is out
                time.sleep(0.2)
            admin = client.admin()
            client.call(
                "POST",
                f"/v1/tournaments/{tid}/actions/adjust",
                ADJUST | {"reason": "slow play by EW"},
                admin,
            )
            while True:
                doc = client.call("GET", f"/v1/tournaments/{tid}")
                if doc["round"] == 3:
                    break
                for t in doc["rounds_played"][-1]["tables"]:
                    _play(bots, t)
            for t in doc["rounds_played"][-1]["tables"][:2]:
                _play(bots, t)
            client.call(
                "POST",
                f"/v1/tournaments/{tid}/rounds/end",
                {"round": 3, "reason": "the room closes"},
                admin,
            )
            final = client.call("GET", f"/v1/tournaments/{tid}")
            assert final["phase"] == "over", final["phase"]
            standings = client.call("GET", f"/v1/tournaments/{tid}/standings")
            bundle = bots.certificate_bundle()
            log_key = app.extensions["fairplay"].hand_log.verifier_key()
            receipts = {pid: e.receipt for pid, e in sorted(bots.entrants.items())}
        finally:
            server.shutdown()
            drand_server.shutdown()
    document = {k: v for k, v in standings.items() if k != "phase"}
    cert = bundle["certificate"]
    assert standings_digest(document) == cert["standings_sha256"]["logged"]
    hands = []
    for r in bundle["records"]:
        h = next(x for x in cert["hands"] if (x["table_id"], x["hand"]) == (r["table"], r["hand"]))
        hands.append(
            {
                "round": h["round"],
                "table": h["table"],
                "board": h["board"],
                "facts": _facts(r["record"]),
            }
        )
    hands.sort(key=lambda x: (x["round"], x["table"]))
    vector = {
        "about": (
            "A cayenne-tournament-certificate-bundle/1 of a 3-table Mitchell (1 board a "
            "round, 3 rounds) issued by the Cayenne Fair-Play service, dealt by "
            "cayenne-tournament-deals/2 from a local test drand chain, with the entrants' "
            "reveal receipts and the "
            "intermediate values of docs/tournaments.md. Generated by "
            "make_worked_certificate.py (this folder); project data, same licence as the "
            "project."
        ),
        "log_key": log_key,
        "receipts": receipts,
        "adjusted": ADJUST,
        "unplayed": {"round": 3, "table": 3, "board": 2},
        "hands": hands,
        "boards": board_steps(document),
        "standings_document": document,
        "standings_document_text": json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ),
        "standings_sha256": cert["standings_sha256"]["logged"],
        "bundle": bundle,
    }
    OUT.write_text(json.dumps(vector, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    refresh() if sys.argv[1:] == ["--refresh"] else main()
