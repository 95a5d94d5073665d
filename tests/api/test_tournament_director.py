"""The director's four actions in one Mitchell played by bots on the real HTTP service
(SQLite and PostgreSQL): a substitution, a withdrawal, an adjusted score and a voided
board change the standings exactly as shared/spec/tournaments.md says (the expected
numbers are computed here from the spec's rules, not by the project's scorer), each
is a signed logged event in the certificate, ``fairplay tournament verify`` accepts the
bundle, and tampering with an action fails with exit 1 naming the difference."""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from api.client import Identity
from api.tournament_bot import Entrant
from audit.log.keys import Signer
from audit.log.note import sign as sign_note
from audit.tournament.certificate import note_text

from .conftest import Running
from .helpers import tournament_verify
from .test_tournaments import _admin, _play_table, open_event

T = 3  # tables; one board a round, three rounds
EVENT = {
    "name": "Directed pairs",
    "format": "pairs-duplicate",
    "tables": T,
    "boards_per_round": 1,
    "rounds": 3,
}
SHARE = {"average": Fraction(1, 2), "average-plus": Fraction(3, 5), "average-minus": Fraction(2, 5)}
WITHDRAWN, SUBSTITUTED, VOID = 2, 4, 2  # pair 2 withdrawn from round 2; pair 4; board 2
ADJUSTED = (1, 1, 1)  # round 1, table 1, board 1: average plus to NS, average minus to EW


def spec_sitting(rnd: int, table: int) -> tuple[int, int, int]:
    """(NS pair, EW pair, board) at a table in a round, by the spec's Mitchell: NS pair t
    stays at table t, EW pairs move up one table, board sets down one (one board a set);
    pairs T+1..2T are EW pairs 1..T."""
    ew = (table - rnd) % T + 1
    board = (table + rnd - 2) % T + 1
    return table, T + ew, board


def r2(value: Fraction) -> float:
    """Half away from zero, two decimals (every value here is >= 0)."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def expected(
    ns_scores: dict[tuple[int, int], int],
) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    """Each pair's matchpoints and the top it could have scored, from the spec's rules:
    matchpoints against the other NS results, Neuberg on a board with fewer results than
    the most any board has, adjusted scores as shares of the top (not results), a voided
    board for no one; ``ns_scores`` the played tables' NS results by (round, table)."""
    outcome: dict[int, list[tuple[int, int, Any]]] = {}  # board: (ns, ew, score or shares)
    for rnd in (1, 2, 3):
        for table in range(1, T + 1):
            ns, ew, board = spec_sitting(rnd, table)
            if board == VOID:
                continue  # no result on it counts, for anyone
            if (rnd, table, board) == ADJUSTED:
                what: Any = ("average-plus", "average-minus")  # replaces the result played
            elif rnd >= 2 and WITHDRAWN in (ns, ew):  # its table is not played
                what = tuple("average-minus" if p == WITHDRAWN else "average" for p in (ns, ew))
            else:
                what = ns_scores[(rnd, table)]
            outcome.setdefault(board, []).append((ns, ew, what))
    most = max(sum(isinstance(w, int) for _, _, w in res) for res in outcome.values())
    top = Fraction(most - 1)
    won: dict[int, Fraction] = {}
    possible: dict[int, Fraction] = {}
    for res in outcome.values():
        scores = [w for _, _, w in res if isinstance(w, int)]
        n = len(scores)
        for ns, ew, what in res:
            if isinstance(what, int):
                m = (
                    sum(Fraction(1) for s in scores if what > s)
                    + sum(Fraction(1, 2) for s in scores if s == what)
                    - Fraction(1, 2)
                )  # itself is not a tie
                if n < most:
                    m = (m + Fraction(1, 2)) * most / n - Fraction(1, 2)
                mps = (m, top - m)
            else:
                mps = (SHARE[what[0]] * top, SHARE[what[1]] * top)
            for pair, mp in zip((ns, ew), mps, strict=True):
                won[pair] = won.get(pair, Fraction(0)) + mp
                possible[pair] = possible.get(pair, Fraction(0)) + top
    return won, possible


def places(pct: dict[int, Fraction]) -> dict[int, str]:
    out = {}
    for p, v in pct.items():
        above = sum(1 for w in pct.values() if w > v)
        same = sum(1 for w in pct.values() if w == v)
        out[p] = str(above + 1) if same == 1 else f"{above + 1}-{above + same}"
    return out


def resign(bundle: dict[str, Any], signer: Signer) -> None:
    """A service that certified other values, under its own key."""
    bundle["note"] = sign_note(note_text(bundle["certificate"]), signer)


def test_director_actions_change_the_standings_and_are_certified(
    backend: str,
    make_service: Callable[..., Running],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = make_service(backend)
    client, tid, bots = open_event(service, EVENT, 2 * T)
    bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
    doc = client.call("GET", f"/v1/tournaments/{tid}")
    assert doc["phase"] == "playing" and doc["round"] == 1
    base = f"/v1/tournaments/{tid}/actions"
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    out = doc["pair_list"][SUBSTITUTED - 1]["players"][0]
    actions = [
        ("substitute", {"pair": SUBSTITUTED, "out": out, "in": sub.id, "reason": "taken ill"}),
        ("withdraw", {"pair": WITHDRAWN, "reason": "left the club"}),
        (
            "adjust",
            {"round": 1, "table": 1, "board": 1, "ns": "average-plus", "ew": "average-minus"}
            | {"reason": "slow play by EW"},
        ),
    ]
    for action, body in actions:  # during round 1: they take effect from round 2
        _admin(client, "POST", f"{base}/{action}", body)
    tables = {t["table"]: t for t in doc["rounds_played"][0]["tables"]}
    _play_table(bots, tables[2])  # board 2 is played at table 2, then voided
    actions.append(("void_board", {"board": VOID, "reason": "fouled board"}))
    _admin(client, "POST", f"{base}/void_board", actions[-1][1])
    _play_table(bots, tables[1])
    _play_table(bots, tables[3])
    bots.entrants[sub.id] = Entrant(sub, "", b"\0" * 32)  # the bots play his seat
    final = bots.run(timeout=300)
    assert final["phase"] == "over"

    # the seating is the spec's Mitchell, less the withdrawn pair's tables
    pairs = {p["pair"]: p["players"] for p in final["pair_list"]}
    for r in final["rounds_played"]:
        got = {t["table"]: t for t in r["tables"]}
        want = {
            t: spec_sitting(r["round"], t)
            for t in range(1, T + 1)
            if r["round"] == 1 or WITHDRAWN not in spec_sitting(r["round"], t)[:2]
        }
        assert sorted(got) == sorted(want), r
        for t, (ns, ew, board) in want.items():
            assert (got[t]["ns"], got[t]["ew"], got[t]["boards"]) == (ns, ew, [board])
            seated = set(got[t]["seats"].values())
            if ew == SUBSTITUTED and r["round"] >= 2:
                assert sub.id in seated and out not in seated  # from the next round on
            elif ew == SUBSTITUTED:
                assert out in seated

    # the standings, as the spec's rules give them from the played tables' NS results
    st = client.call("GET", f"/v1/tournaments/{tid}/standings")
    sheets = {b["board"]: b for b in st["boards"]}
    assert VOID not in sheets  # a voided board counts for no one
    ns_scores = {
        (x["round"], int(x["table"])): x["ns_score"]
        for b in st["boards"]
        for x in b["results"]
        if "adjusted" not in x
    }
    # played: round 1 tables 1 (then adjusted), 3; round 2 table 3; round 3 table 1.
    assert sorted(ns_scores) == [(1, 3), (2, 3), (3, 1)]
    won, possible = expected(ns_scores)
    pct = {p: Fraction(100) * won[p] / possible[p] for p in won}
    for field, members in (("NS", (1, 2, 3)), ("EW", (4, 5, 6))):
        place = places({p: pct[p] for p in members})
        got = {s["pair_number"]: s for s in st["standings"] if s["field"] == field}
        assert sorted(got) == list(members)
        for p in members:
            assert (got[p]["score"], got[p]["percentage"], got[p]["place"]) == (
                r2(won[p]),
                r2(pct[p]),
                place[p],
            ), (p, got[p])
    # pair 2 (withdrawn, at fault) has average minus on both boards it could not play
    assert pct[WITHDRAWN] == 40
    # the standings name the substituted pair's current players
    assert sorted(got[SUBSTITUTED]["pair"]) == sorted([pairs[SUBSTITUTED][1], sub.id])
    # the adjusted table: average plus and minus of the full top, the result replaced
    top = sheets[1]["top"]
    adj = next(x for x in sheets[1]["results"] if (x["round"], x["table"]) == (1, "1"))
    assert adj["adjusted"] == {"ns": "average-plus", "ew": "average-minus"}
    assert (adj["ns_matchpoints"], adj["ew_matchpoints"]) == (
        r2(Fraction(3, 5) * Fraction(top)),
        r2(Fraction(2, 5) * Fraction(top)),
    )

    # the certificate holds every action, each a signed event of the event's chain
    bundle = client.call_when_ready("GET", f"/v1/tournaments/{tid}/certificate/bundle")
    cert = bundle["certificate"]
    assert [(a["action"], a["reason"]) for a in cert["actions"]] == [
        (a, b["reason"]) for a, b in actions
    ]
    logged = [
        e["event"]
        for e in bundle["events"]
        if e["event"]["table"] == tid
        and e["event"]["type"].removeprefix("tournament_")
        in ("substitute", "withdraw", "adjust", "void_board")
    ]
    assert [e["type"] for e in logged] == [f"tournament_{a}" for a, _ in actions]
    signer: Signer = service.app.extensions["fairplay"].hand_log.signer
    key = signer.verifier_key()
    for e, cert_action in zip(logged, cert["actions"], strict=True):
        assert e["actor"] == "server" and e["key"] == key and e["hand"] == "event"
        assert {"action": e["type"].removeprefix("tournament_"), **e["body"]} == cert_action
    assert cert["pairs"][WITHDRAWN - 1]["withdrawn_from_round"] == 2
    assert cert["substitutions"] == [
        {"pair": SUBSTITUTED, "out": out, "in": sub.id, "from_round": 2, "reason": "taken ill"}
    ]
    assert [s["player"] for s in cert["substitutes"]] == [sub.id]

    # the row the service kept, applying each event as it logged it, is its chain's fold
    from audit.tournament.online import fold

    row = service.app.extensions["fairplay"].tournaments.load(tid)
    chain = [e["event"] for e in client.call("GET", f"/v1/tournaments/{tid}/events")["events"]]
    folded = fold(tid, [(e["type"], e["body"]) for e in chain])
    assert {k: row[k] for k in folded} == folded
    assert [s["pair_number"] for s in cert["standings"]] == [
        s["pair_number"] for s in st["standings"]
    ]
    assert [s["percentage"] for s in cert["standings"]] == [
        repr(float(s["percentage"])) for s in st["standings"]
    ]
    code, text = tournament_verify(bundle, key, tmp_path, capsys)
    assert code == 0, text

    # tampering with an action fails, naming the difference
    def withdrawal_event_dropped(b: dict[str, Any]) -> str:
        b["events"] = [e for e in b["events"] if e["event"]["type"] != "tournament_withdraw"]
        return f"table {tid} hand event: seq"

    def withdrawal_event_altered(b: dict[str, Any]) -> str:
        e = next(e for e in b["events"] if e["event"]["type"] == "tournament_withdraw")
        e["event"]["body"]["from_round"] = 3  # its signature no longer verifies
        return "signature"

    def withdrawal_dropped_from_actions(b: dict[str, Any]) -> str:
        c = b["certificate"]
        c["actions"] = [a for a in c["actions"] if a["action"] != "withdraw"]
        resign(b, signer)
        return 'field $.actions[1].action: certified "adjust", recomputed "withdraw"'

    def withdrawal_dropped_from_pairs(b: dict[str, Any]) -> str:
        b["certificate"]["pairs"][WITHDRAWN - 1]["withdrawn_from_round"] = None
        resign(b, signer)
        return f"field $.pairs[{WITHDRAWN - 1}].withdrawn_from_round: certified null, recomputed 2"

    def adjusted_score_altered(b: dict[str, Any]) -> str:
        board = next(i for i, x in enumerate(b["certificate"]["results"]) if x["board"] == 1)
        results = b["certificate"]["results"][board]["results"]
        i = next(i for i, x in enumerate(results) if (x["round"], x["table"]) == (1, "1"))
        results[i]["adjusted"]["ns"] = "average"
        resign(b, signer)
        return (
            f"board 1, table 1, field $.results[{board}].results[{i}].adjusted.ns: "
            'certified "average", recomputed "average-plus"'
        )

    def adjustment_action_altered(b: dict[str, Any]) -> str:
        a = next(a for a in b["certificate"]["actions"] if a["action"] == "adjust")
        a["ew"] = "average"
        resign(b, signer)
        return 'field $.actions[2].ew: certified "average", recomputed "average-minus"'

    for tamper in (
        withdrawal_event_dropped,
        withdrawal_event_altered,
        withdrawal_dropped_from_actions,
        withdrawal_dropped_from_pairs,
        adjusted_score_altered,
        adjustment_action_altered,
    ):
        forged = copy.deepcopy(bundle)
        want = tamper(forged)
        code, text = tournament_verify(forged, key, tmp_path, capsys)
        assert code == 1 and "FAILED" in text and want in text, (tamper.__name__, text)
