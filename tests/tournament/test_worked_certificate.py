"""The worked certificate (tests/vectors/tournament/worked_certificate.json), recomputed
from docs/tournaments.md ("The certificate for an independent verifier") alone.

A small verifier written from the docs, not from the code: the five steps of a board's
score, the Mitchell, which entries a board has (a director's adjustment, an unplayed
board), matchpoints, Neuberg, shares, percentages, places, the standings document, its
text and SHA-256, and the certificate's number forms. It imports nothing of the scorer;
the one call into the project is the end-to-end ``verify_bundle`` check of the bundle
(and of a tampered copy), and the receipts' checks. The event is dealt by
cayenne-tournament-deals/2: the beacon's round, randomness and deadline are checked from
the docs' words. The hands' facts (tricks, honours, revokes) are the project's
replay of each record, as the generator wrote them: the rules of play are docs/rules.md's
business, the scoring from them is this file's.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from audit.errors import FairplayError
from audit.tournament.certificate import CertificateMismatch, verify_bundle

VECTOR = Path(__file__).parents[1] / "vectors" / "tournament" / "worked_certificate.json"
V: dict[str, Any] = json.loads(VECTOR.read_text(encoding="utf-8"))
CERT: dict[str, Any] = V["bundle"]["certificate"]
HALF = Fraction(1, 2)
SHARE = {"average": Fraction(1, 2), "average-plus": Fraction(3, 5), "average-minus": Fraction(2, 5)}


def five_steps(f: dict[str, Any]) -> tuple[int, int]:
    """(NS, EW) score of a board from its facts, as the docs' five steps say."""
    nullo = f["contract"] == "nullo"
    unit = f["unit"]
    side = {"NS": 0, "EW": 1}
    revokes = [(side[s], opt) for s, opt in f["revokes"]]
    revoked = {s for s, _ in revokes}
    p = list(f["tricks"])
    for s, opt in revokes:  # 0. the `tricks` penalty
        if opt == "tricks":
            loser, gainer = (1 - s, s) if nullo else (s, 1 - s)
            n = min(3, p[loser])
            p[loser] -= n
            p[gainer] += n
    score = [0, 0]
    odd = 0 if p[0] > 6 else 1 if p[1] > 6 else None
    if odd is not None:  # 1. tricks
        scorer = 1 - odd if nullo else odd
        score[scorer] = (p[odd] - 6) * unit
    by_tricks = [min(v, 9) if s in revoked else v for s, v in enumerate(score)]
    capped = [s in revoked for s in (0, 1)]
    honours = f["honours"]
    if f["contract"] not in ("nullo", "grand"):  # 2. honours
        holder = 0 if honours[0] >= 3 else 1 if honours[1] >= 3 else None
        if holder is not None and by_tricks[1 - holder] < 10:
            score[holder] += (2 * honours[holder] - 4) * unit
            if odd != holder:
                capped[holder] = True
    score = [min(v, 9) if capped[s] else v for s, v in enumerate(score)]  # 3. caps
    for s, opt in revokes:  # 4. deduct and add
        if opt != "tricks":
            score[s] -= 3 * unit
    for s in (0, 1):  # 5. slams on the tricks taken
        if f["tricks"][s] >= 12:
            owner = 1 - s if nullo else s
            if owner not in revoked:
                score[owner] += 6 if f["tricks"][s] == 13 else 4
    return score[0], score[1]


def r2(x: Fraction) -> float:
    """Half away from zero, two decimals, as a double."""
    d = Decimal(abs(x.numerator)) / Decimal(x.denominator)
    q = d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return float(q if x >= 0 else -q)


def mitchell(t: int, rnd: int, table: int) -> tuple[int, int]:
    """(EW pair of the movement, board set) at ``table`` in round ``rnd``."""
    skip = 1 if t % 2 == 0 and rnd > t // 2 else 0
    return (table - rnd - skip) % t + 1, (table + rnd - 2) % t + 1


def text(x: Fraction) -> str:
    """An exact value as the vector writes it: "7/4", "2"."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def recompute() -> tuple[
    dict[str, Any], dict[tuple[int, int, int], tuple[Fraction, Fraction]], list[dict[str, Any]]
]:
    """The standings document, from the certificate's event, rounds, actions and hands;
    each entry's matchpoints; and each board's steps (N, n, raw matchpoints, Neuberg)."""
    ev = CERT["event"]
    tables, per_round = ev["tables"], ev["boards_per_round"]
    players = {p["pair"]: p["players"] for p in CERT["pairs"]}
    assert not CERT["substitutions"] and not any(p["absent"] for p in CERT["pairs"])
    withdrawn = {p["pair"]: p["withdrawn_from_round"] for p in CERT["pairs"]}
    voided = {a["board"] for a in CERT["actions"] if a["action"] == "void_board"}
    adjusted = {
        (a["round"], a["table"], a["board"]): (a["ns"], a["ew"])
        for a in CERT["actions"]
        if a["action"] == "adjust"
    }
    played = {(h["round"], h["table"], h["board"]): h["facts"] for h in V["hands"]}
    entries: dict[int, list[dict[str, Any]]] = {}
    for r in CERT["rounds"]:
        for table in range(1, tables + 1):
            ew_pos, board_set = mitchell(tables, r["round"], table)
            ns, ew = table, tables + ew_pos
            for b in range((board_set - 1) * per_round + 1, board_set * per_round + 1):
                if b in voided:
                    continue
                key = (r["round"], table, b)
                e: dict[str, Any] = {"round": r["round"], "table": table, "ns": ns, "ew": ew}
                if key in adjusted:
                    e["adjusted"] = adjusted[key]
                elif key in played and played[key] is not None:
                    ns_pts, ew_pts = five_steps(played[key])
                    e["ns_score"] = ns_pts - ew_pts
                elif key in played:
                    e["adjusted"] = ("average", "average")
                elif r["over"]:
                    e["adjusted"] = tuple(
                        "average-minus"
                        if withdrawn[p] is not None and withdrawn[p] <= r["round"]
                        else "average"
                        for p in (ns, ew)
                    )
                else:
                    continue
                entries.setdefault(b, []).append(e)
    most = max([1, *(sum("ns_score" in e for e in es) for es in entries.values())])
    top = Fraction(most - 1)
    won: dict[int, Fraction] = {}
    possible: dict[int, Fraction] = {}
    mps: dict[tuple[int, int, int], tuple[Fraction, Fraction]] = {}
    boards = []
    steps: list[dict[str, Any]] = []
    for b in sorted(entries):
        es = sorted(entries[b], key=lambda e: (e["round"], e["table"]))
        scores = [e["ns_score"] for e in es if "ns_score" in e]
        n = len(scores)
        results = []
        entry_steps = []
        for e in es:
            step: dict[str, Any] = {"round": e["round"], "table": str(e["table"])}
            if "ns_score" in e:
                s = e["ns_score"]
                raw = sum(Fraction(1) for o in scores if o < s) + HALF * (scores.count(s) - 1)
                m = (raw + HALF) * most / n - HALF if n < most else raw
                pair_mp = (m, top - m)
                step |= {"ns_score": s, "matchpoints": text(raw), "neuberg": text(m)}
            else:
                pair_mp = (SHARE[e["adjusted"][0]] * top, SHARE[e["adjusted"][1]] * top)
                step["adjusted"] = {"ns": e["adjusted"][0], "ew": e["adjusted"][1]}
            entry_steps.append(step | {"ns": text(pair_mp[0]), "ew": text(pair_mp[1])})
            mps[(e["round"], e["table"], b)] = pair_mp
            for p, mp in zip((e["ns"], e["ew"]), pair_mp, strict=True):
                won[p] = won.get(p, Fraction(0)) + mp
                possible[p] = possible.get(p, Fraction(0)) + top
            x: dict[str, Any] = {
                "round": e["round"],
                "table": str(e["table"]),
                "ns": players[e["ns"]],
                "ew": players[e["ew"]],
                "ns_score": e.get("ns_score"),
                "ns_matchpoints": r2(pair_mp[0]),
                "ew_matchpoints": r2(pair_mp[1]),
            }
            if "adjusted" in e:
                x["adjusted"] = {"ns": e["adjusted"][0], "ew": e["adjusted"][1]}
            results.append(x)
        boards.append({"board": b, "top": r2(top), "results": results})
        steps.append({"board": b, "N": most, "n": n, "top": text(top), "entries": entry_steps})
    standings = []
    for field, pairs in (("NS", range(1, tables + 1)), ("EW", range(tables + 1, 2 * tables + 1))):
        pct = {p: Fraction(50) if possible[p] == 0 else 100 * won[p] / possible[p] for p in pairs}
        order = sorted(pairs, key=lambda p: (-pct[p], " & ".join(players[p])))
        for p in order:
            above = sum(1 for q in pairs if pct[q] > pct[p])
            same = sum(1 for q in pairs if pct[q] == pct[p])
            place = str(above + 1) if same == 1 else f"{above + 1}-{above + same}"
            standings.append(
                {
                    "pair": players[p],
                    "field": field,
                    "score": r2(won[p]),
                    "percentage": r2(pct[p]),
                    "place": place,
                    "pair_number": p,
                }
            )
    doc = {
        "format": "cayenne-standings/1",
        "event": ev["id"],
        "kind": "pairs-duplicate",
        "standings": standings,
        "boards": boards,
    }
    return doc, mps, steps


def as_certified(obj: Any) -> Any:
    """The certificate's number forms: every non-integer number as its text."""
    if isinstance(obj, float):
        return repr(obj)
    if isinstance(obj, dict):
        return {k: as_certified(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [as_certified(v) for v in obj]
    return obj


def test_each_board_score_follows_the_five_steps() -> None:
    assert len(V["hands"]) == 8  # 9 sittings, one unplayed
    for h in V["hands"]:
        f = h["facts"]
        assert five_steps(f) == (f["ns"], f["ew"]), h
        assert f["ns_score"] == f["ns"] - f["ew"]


def test_matchpoints_neuberg_and_the_adjusted_and_unplayed_boards() -> None:
    doc, mps, steps = recompute()
    # every board's intermediate values as the vector lists them (the project's scorer)
    assert steps == V["boards"]
    neubergs = [
        x for b in steps for x in b["entries"] if x.get("neuberg", "") != x.get("matchpoints", "")
    ]
    assert {(x["matchpoints"], x["neuberg"]) for x in neubergs} == {("0", "1/4"), ("1", "7/4")}
    # N = 3 (board 3 has three results); boards 1 and 2 have n = 2: Neuberg
    sheets = {b["board"]: b for b in doc["boards"]}
    assert {b: sum(x["ns_score"] is not None for x in s["results"]) for b, s in sheets.items()} == {
        1: 2,
        2: 2,
        3: 3,
    }
    assert all(s["top"] == 2.0 for s in sheets.values())
    # the director's adjustment: round 1 table 1 board 1, 60% and 40% of the top
    assert mps[(1, 1, 1)] == (Fraction(6, 5), Fraction(4, 5))
    adj = sheets[1]["results"][0]
    assert adj["ns_score"] is None and adj["adjusted"] == {
        "ns": "average-plus",
        "ew": "average-minus",
    }
    # the unplayed board: round 3 table 3 board 2, average to both
    assert mps[(3, 3, 2)] == (Fraction(1), Fraction(1))
    unplayed = next(x for x in sheets[2]["results"] if (x["round"], x["table"]) == (3, "3"))
    assert unplayed["adjusted"] == {"ns": "average", "ew": "average"}
    # Neuberg on a board of n = 2 results: (m + 1/2) * 3/2 - 1/2 for m in {0, 1/2, 1}
    for (_, _, b), (ns, ew) in mps.items():
        if b in (1, 2) and (ns, ew) not in ((Fraction(6, 5), Fraction(4, 5)), (1, 1)):
            assert ns in (Fraction(1, 4), Fraction(1), Fraction(7, 4))
        assert ns + ew == 2
    # the certificate's sheets are the same numbers, in its forms
    assert CERT["results"] == as_certified(doc["boards"])
    assert CERT["standings"] == as_certified(doc["standings"])


def test_the_standings_document_and_its_hash() -> None:
    doc, _, _ = recompute()
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert doc == V["standings_document"]
    assert text == V["standings_document_text"]
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert digest == V["standings_sha256"]
    assert CERT["standings_sha256"] == {"logged": digest, "recomputed": digest}
    logged = next(
        i["event"]["body"]["standings_sha256"]
        for i in V["bundle"]["events"]
        if i["event"]["type"] == "tournament_end"
    )
    assert logged == digest


def test_deal_inputs_and_forms() -> None:
    d = CERT["deal_inputs"]
    ev = CERT["event"]
    assert d["boards"] == ev["tables"] * ev["boards_per_round"] == len(d["deals"])
    assert [e["id"] for e in d["entrants"]] == [
        p for pair in CERT["pairs"] for p in pair["players"]
    ]
    # version 2: the beacon is the drand round in deal_inputs, none in the event
    assert d["protocol"] == "cayenne-tournament-deals/2"
    assert "beacon" in d and ev["beacon"] is None
    assert all(isinstance(x["table"], str) for r in CERT["results"] for x in r["results"])
    assert all(isinstance(h["table"], int) for h in CERT["hands"])
    assert all(
        isinstance(s["place"], str) and isinstance(s["score"], str) for s in CERT["standings"]
    )
    for r in V["bundle"]["records"]:
        rec = r["record"]
        h = next(x for x in CERT["hands"] if (x["table_id"], x["hand"]) == (r["table"], r["hand"]))
        assert rec["table"] == r["table"] and rec["x-hand-number"] == r["hand"]
        assert rec["event"] == f"{ev['name']} round {h['round']} table {h['table']}"


def test_the_bundle_verifies_and_a_changed_matchpoint_does_not() -> None:
    # 9 hands: the unplayed board was opened at its table, then abandoned at the round's end
    assert verify_bundle(V["bundle"], V["log_key"])["hands"] == 9
    left = [h for h in CERT["hands"] if h["last"] != "end"]
    assert [(h["round"], h["table"], h["board"]) for h in left] == [(3, 3, 2)]
    assert [a["hand"] for a in CERT["rounds"][2]["abandoned"]] == [left[0]["hand"]]
    bad = copy.deepcopy(V["bundle"])
    bad["certificate"]["results"][0]["results"][1]["ns_matchpoints"] = "0.5"
    with pytest.raises(FairplayError):
        verify_bundle(bad, V["log_key"])
    assert issubclass(CertificateMismatch, FairplayError)


def test_the_checklists_own_steps_hold() -> None:
    """The checks docs/tournaments.md adds to the checklist, from its words alone: each
    player id derives from its key, and (version 2) the beacon is the drand chain's first
    round after the reveal deadline the signed start names, its randomness the SHA-256
    of its signature, and no beacon was fixed by hand."""
    for entry in CERT["roster"]:
        raw = base64.b64decode(entry["key"].split("+", 2)[2])
        assert len(raw) == 33 and raw[0] == 0x01
        assert entry["player"] == "p-" + hashlib.sha256(raw[1:]).hexdigest()[:20]
    chain = [
        i["event"]
        for i in V["bundle"]["events"]
        if i["event"]["table"] == CERT["event"]["id"] and i["event"]["hand"] == "event"
    ]
    kinds = [e["type"] for e in chain]
    assert "tournament_beacon" not in kinds
    start = chain[kinds.index("tournament_start")]["body"]
    deal = chain[kinds.index("tournament_deal")]["body"]
    d = CERT["deal_inputs"]
    deadline, b = start["reveal_deadline"], d["beacon"]
    assert d["reveal_deadline"] == deadline
    assert {k: b[k] for k in ("scheme", "public_key", "genesis", "period", "round")} == {
        k: start["beacon"][k] for k in ("scheme", "public_key", "genesis", "period", "round")
    }
    first_after = 1 if deadline < b["genesis"] else (deadline - b["genesis"]) // b["period"] + 2
    assert b["round"] == first_after
    assert b["genesis"] + (b["round"] - 1) * b["period"] > deadline
    assert b["genesis"] + (b["round"] - 2) * b["period"] <= deadline
    assert b["randomness"] == hashlib.sha256(bytes.fromhex(b["signature"])).hexdigest()
    assert {k: b[k] for k in deal["beacon"]} == deal["beacon"]


def test_every_entrant_holds_a_receipt_the_deal_honours() -> None:
    """The receipts (version 2) are outside the bundle, one per entrant: each is the log
    key's, names its entrant, its reveal's hash and a time before the deadline, and its
    entrant is in the deal's ``revealed``; a receipt of an entrant left out proves it."""
    from audit.log.events import event_hash
    from audit.log.keys import Verifier
    from audit.tournament.receipt import DroppedReveal, check_dealt, verify_receipt

    chain = [
        i["event"]
        for i in V["bundle"]["events"]
        if i["event"]["table"] == CERT["event"]["id"] and i["event"]["hand"] == "event"
    ]
    start = next(e["body"] for e in chain if e["type"] == "tournament_start")
    deal = next(e["body"] for e in chain if e["type"] == "tournament_deal")
    reveals = {
        i["event"]["actor"]: event_hash(i["event"])
        for i in V["bundle"]["events"]
        if i["event"]["type"] == "tournament_reveal"
    }
    assert sorted(V["receipts"]) == sorted(e["id"] for e in CERT["deal_inputs"]["entrants"])
    for pid, text in V["receipts"].items():
        r = verify_receipt(text, Verifier.from_text(V["log_key"]))
        assert (r.entrant, r.tournament) == (pid, CERT["event"]["id"])
        assert r.reveal_sha256 == reveals[pid]
        assert r.received < r.deadline == start["reveal_deadline"]
        check_dealt(r, start, deal)
    dropped = dict(deal, revealed=[p for p in deal["revealed"] if p != pid])
    with pytest.raises(DroppedReveal):
        check_dealt(r, start, dropped)
