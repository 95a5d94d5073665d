"""The browser's rubber scorer (api/static/js/rubber.js) against the Python's
(audit/rules/scoring.py): random hands without a revoke (every contract, unit, split of
tricks and of the five trump honours, marker and games before it, both values of a game
won at seven) scored one by one, and random sittings hand after hand: the start each
next hand gets (audit/tournament/signed.py's next_start from the hand's audit report)
and a round robin's match value (audit/tournament/standings.py's match_value)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

from audit.rules.contract import Contract, unit
from audit.rules.ruleset import Ruleset
from audit.rules.scoring import HandFacts, Sheet, score_hand
from audit.tournament.signed import next_start
from tests.js.test_js import ROOT, node

TEXT = ["S", "H", "D", "C", "grand", "nullo"]
ZERO = {"points": {"NS": 0, "EW": 0}, "games": {"NS": 0, "EW": 0}}


def _facts(rng: random.Random) -> tuple[HandFacts, dict[str, Any]]:
    contract = Contract(rng.randrange(6))
    ns = rng.choice([rng.randrange(14), 0, 1, 12, 13])  # slams both ways, often
    honours = (0, 0)
    if contract < 4:
        h = rng.randrange(6)
        honours = (h, 5 - h)  # all five are dealt
    facts = HandFacts(contract, unit(contract, rng.randrange(4)), (ns, 13 - ns), honours)
    return facts, {
        "contract": TEXT[contract],
        "unit": facts.unit,
        "tricks": list(facts.tricks),
        "honours": list(honours),
    }


def _ruleset(rng: random.Random) -> tuple[Ruleset, dict[str, Any]]:
    seven = rng.choice(["single", "double"])
    return Ruleset(seven_is=seven), {"seven_is": seven}


def _hand_case(rng: random.Random) -> tuple[dict[str, Any], Any]:
    facts, js = _facts(rng)
    ruleset, rjs = _ruleset(rng)
    points = (rng.randrange(10), rng.randrange(10))
    games = (rng.randrange(4), rng.randrange(4))
    r = score_hand(points, games, facts, ruleset)
    want = {
        "points": list(r.score.points),
        "games": list(r.games_after),
        "won": [{"side": int(g.side), "value": g.value} for g in r.score.games],
        "bonuses": [
            {"side": int(b.side), "kind": b.kind, "points": b.points} for b in r.score.bonuses
        ],
        "winner": None if r.rubber_winner is None else int(r.rubber_winner),
    }
    case = {"points": list(points), "games": list(games), "facts": js, "ruleset": rjs}
    return {"hand": case}, want


def _sitting_case(rng: random.Random) -> tuple[dict[str, Any], Any]:
    ruleset, rjs = _ruleset(rng)
    hands = [_facts(rng) for _ in range(rng.randrange(1, 25))]
    start: dict[str, Any] = ZERO
    starts = []
    for facts, _ in hands:  # as signed.event_hands: each hand a record of its own
        sheet = Sheet(
            (start["points"]["NS"], start["points"]["EW"]),
            (start["games"]["NS"], start["games"]["EW"]),
            (start["sheet"]["NS"], start["sheet"]["EW"]) if "sheet" in start else None,
            ruleset,
        )
        scored = sheet.score(facts)
        report = {"rubbers": sheet.rubbers_json(), "hands": [{"score": scored.score.to_json()}]}
        start = next_start(report)
        starts.append(start)
    whole = Sheet(ruleset=ruleset)
    for facts, _ in hands:
        whole.score(facts)
    value = sum(ns - ew for ns, ew in (r.totals() for r in whole.rubbers))
    case = {"start": ZERO, "hands": [js for _, js in hands], "ruleset": rjs}
    return {"sitting": case}, {"starts": starts, "value": value}


def test_the_browsers_rubber_scorer_gives_the_pythons_values(tmp_path: Path) -> None:
    rng = random.Random(2026)
    made = [_hand_case(rng) for _ in range(3000)] + [_sitting_case(rng) for _ in range(300)]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([c for c, _ in made]))
    done = subprocess.run(
        [node(), "tests/js/rubber_scorer.mjs", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(got) == len(made)
    for (case, want), answer in zip(made, got, strict=True):
        assert answer == want, case
    # the cases reach what they are for: rubbers won, games of every value, slams
    hands = [w for c, w in made if "hand" in c]
    assert sum(w["winner"] is not None for w in hands) > 100
    assert {g["value"] for w in hands for g in w["won"]} == {1, 2, 3, 4}
    assert {b["kind"] for w in hands for b in w["bonuses"]} == {"rubber", "slam", "little_slam"}
    sittings = [w for c, w in made if "sitting" in c]
    assert any(s == ZERO for w in sittings for s in w["starts"][:-1])  # a rubber won mid-way
    assert any("sheet" in s for w in sittings for s in w["starts"])
