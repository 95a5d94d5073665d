"""`fairplay analyse` and the analysis document: every card judged, the pairs' test."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from audit.analysis.inputs import hands_of
from audit.analysis.judge import Decision, HandPlay, Settings, decisions
from audit.analysis.render import SEEN_HEAD, render_html, render_text
from audit.analysis.report import Judged, analyse, gather
from audit.analysis.solver import position, solve
from audit.cli import main
from audit.record.codec import read_json_file
from audit.rules.cards import Seat
from audit.rules.contract import Contract
from tests.tournament.events import mitchell_event

WORKED = Path(__file__).resolve().parents[3] / "audit/record/examples/worked-example.json"
FAST = ["--from-card", "40", "--samples", "5", "-j", "1"]


def _write(tmp_path: Path, docs: list[dict[str, object]]) -> list[str]:
    paths = []
    for i, doc in enumerate(docs):
        p = tmp_path / f"r{i}.json"
        p.write_text(json.dumps(doc))
        paths.append(str(p))
    return paths


def test_every_pair_of_an_event_has_players_a_p_value_and_a_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = mitchell_event(random.Random(7))
    out = tmp_path / "a.json"
    status = main(
        ["analyse", *_write(tmp_path, records), "--format", "json", "-o", str(out), *FAST]
    )
    doc = json.loads(out.read_text())
    seated = {
        tuple(r["players"][s] for s in pair) for r in records for pair in (("N", "S"), ("E", "W"))
    }
    assert {tuple(p["players"]) for p in doc["pairs"]} == seated
    for p in doc["pairs"]:
        assert 0.0 <= p["p_value"] <= 1.0
        assert p["flagged"] is (p["p_adjusted"] <= 0.001)
        assert p["p_adjusted"] >= p["p_value"]
    assert status == (1 if doc["flagged"] else 0)
    assert doc["hands"] == sum(len(r["hands"]) for r in records)
    assert "hands judged" in capsys.readouterr().err  # progress on stderr


def test_a_card_costs_what_the_solver_says_it_gives_away() -> None:
    hands, skipped = hands_of([("w", read_json_file(WORKED))])
    assert skipped == [] and len(hands) == 3
    hand = hands[0]
    judged = decisions(hand, Settings(from_card=30, samples=0))
    assert [d.index for d in judged] == list(range(30, 52))
    doc = read_json_file(WORKED)["hands"][0]
    deal = doc["deal"]
    played = [c for t in doc["tricks"] for c in t["cards"]]
    leader = doc["tricks"][0]["leader"]
    contract = hand.contract.text
    for d in judged:
        values = solve(deal, contract, leader, played[: d.index])
        pos = position(deal, contract, leader, played[: d.index])
        maximise = (pos.to_play.side == pos.counted) != (contract == "nullo")
        best = max(values.values()) if maximise else min(values.values())
        assert d.cost == abs(best - values[d.move])
        assert (d.cost == 0) is (d.move in d.best)
        assert d.p_view is None


def test_the_true_deal_counts_among_the_draws() -> None:
    hands, _ = hands_of([("w", read_json_file(WORKED))])
    judged = decisions(hands[1], Settings(from_card=32, samples=7))
    assert judged
    for d in judged:
        if d.p_view is None:
            assert d.options == 1
            continue
        hits = round(d.p_view * 8)
        assert hits * 1.0 == pytest.approx(d.p_view * 8)
        if d.cost == 0:
            assert hits >= 1  # the true deal is one of the eight
        else:
            assert hits <= 7
        # the card gives nothing away on average over the seven draws exactly when it is
        # best in each of them
        assert d.cost_view is not None and d.cost_view >= 0
        assert (d.cost_view == 0) is (hits - (d.cost == 0) == 7)
        assert d.seen == ()  # not drawn unless asked
    again = decisions(hands[1], Settings(from_card=32, samples=7))
    assert again == judged  # seeded per hand


def test_what_a_player_who_saw_an_opponents_hand_would_play() -> None:
    hands, _ = hands_of([("w", read_json_file(WORKED))])
    plain = decisions(hands[1], Settings(from_card=32, samples=7))
    judged = decisions(hands[1], Settings(from_card=32, samples=7, seen_draws=5))
    # the same judgement, with the seen hands' facts beside it (drawn after the view's)
    assert [replace(d, seen=()) for d in judged] == plain
    tested = [d for d in judged if d.p_view is not None]
    assert tested
    for d in tested:
        assert len(d.seen) == 2  # the left-hand opponent's hand seen, then the right's
        for hit, same, p_fav, gap in d.seen:
            assert round(p_fav * 8) == pytest.approx(p_fav * 8) and 0 <= p_fav <= 1
            assert gap >= 0 and (gap == 0) is same  # the view's own favourite gives nothing
            if same and d.favourite:
                assert hit or gap == 0  # a tie of favourites: both are the view's best
        # what seeing each hand adds to the card played, to the legal moves on average
        # and to the view's favourite: differences of two means of values in tricks (the
        # card's: multiples of 1/35, 5 seen draws against 7 of the view), within the
        # tricks left
        assert len(d.seen_gain) == 2
        left = 13 - d.index // 4
        for gain in d.seen_gain:
            assert all(abs(x) <= left for x in gain)
            for x in (gain[0], gain[2]):
                assert round(x * 35) == pytest.approx(x * 35, abs=0.01)
            if d.favourite:
                assert gain[0] == gain[2]
    assert any(g != (0.0, 0.0, 0.0) for d in tested for g in d.seen_gain)
    assert all(d.seen_gain == () for d in plain)


def test_a_decision_comes_back_from_json_equal_and_renders_the_same() -> None:
    """The service keeps each hand judged as JSON while a build runs (api/analysis.py):
    read back, the decisions are equal and the document built from them is the same."""
    hands, _ = hands_of([("w", read_json_file(WORKED))])
    settings = Settings(from_card=32, samples=7, seen_draws=3)
    judged = [Judged(h, tuple(decisions(h, settings))) for h in hands]
    assert any(d.seen and d.cost_view is not None for j in judged for d in j.cards)
    back = [
        Judged(j.hand, tuple(Decision.from_json(d) for d in json.loads(text)))
        for j in judged
        for text in [json.dumps([d.to_json() for d in j.cards])]
    ]
    assert back == judged
    # the seen-hand gains too (not compared by ==), and a hand judged without the seen
    # draws has no such key
    assert [d.seen_gain for j in back for d in j.cards] == [
        d.seen_gain for j in judged for d in j.cards
    ]
    assert any(d.seen_gain for j in back for d in j.cards)
    plain = decisions(hands[0], Settings(from_card=32, samples=7))
    assert all("seen_gain" not in d.to_json() for d in plain)
    first = json.dumps(gather(judged, settings, alpha=0.001))
    assert json.dumps(gather(back, settings, alpha=0.001)) == first


def test_the_seen_hand_test_is_run_when_asked(tmp_path: Path) -> None:
    """``--seen-draws``: every pair also gets the two seen-hand tests, and its p-value is
    the smallest of its three tests' times three (Bonferroni); the settings say so."""
    records = mitchell_event(random.Random(7))
    out = tmp_path / "a.json"
    main(["analyse", *_write(tmp_path, records), "--format", "json", "-o", str(out), *FAST,
          "--seen-draws", "3"])  # fmt: skip
    doc = json.loads(out.read_text())
    assert doc["settings"]["seen_draws"] == 3
    for p in doc["pairs"]:
        left, right = p["seen"]["left"], p["seen"]["right"]
        assert left["decisions"] == right["decisions"] == p["hidden_decisions"]
        assert 0 <= left["played"] <= left["decisions"]
        for test in (left, right):  # no curve of too small a field: no test, said so
            assert (test["expected"] is None) is (test["z"] is None)
            assert test["expected"] is not None or test["p_value"] == 1.0
        smallest = min(p["p_found"], left["p_value"], right["p_value"])
        assert p["p_value"] == pytest.approx(min(1.0, 3 * smallest))
    plain = tmp_path / "b.json"
    main(["analyse", *_write(tmp_path, records), "--format", "json", "-o", str(plain), *FAST])
    # the same draws for the view: the found test is the same with or without
    found = {tuple(p["players"]): p["p_value"] for p in json.loads(plain.read_text())["pairs"]}
    assert {tuple(p["players"]): p["p_found"] for p in doc["pairs"]} == found
    assert all("seen" not in p for p in json.loads(plain.read_text())["pairs"])
    # the text and the page show the seen-hand counts only when the test ran
    assert SEEN_HEAD in render_text(doc) and SEEN_HEAD in render_html(doc)
    assert SEEN_HEAD not in render_text(json.loads(plain.read_text()))


def test_text_and_html_name_the_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(WORKED), *FAST]) == 0
    text = capsys.readouterr().out
    assert "A & B" in text and "Holm" in text
    page = tmp_path / "a.html"
    main(["analyse", str(WORKED), "--format", "html", "-o", str(page), *FAST])
    html = page.read_text()
    assert html.startswith("<!doctype html>") and '<th scope="row">A &amp; B</th>' in html


def test_the_first_card_judged_is_named_in_english(capsys: pytest.CaptureFixture[str]) -> None:
    from audit.analysis.render import ordinal

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 24, 51)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "24th", "51st"
    ]  # fmt: skip
    assert main(["analyse", str(WORKED), "--from-card", "41", "--samples", "5", "-j", "1"]) == 0
    assert "cards after the 41st)" in capsys.readouterr().out


def test_a_bundles_records_are_read(tmp_path: Path) -> None:
    record = read_json_file(WORKED)
    bundle: dict[str, Any] = {
        "format": "cayenne-tournament-certificate-bundle/1",
        "records": [{"table": "1", "hand": 1, "record": record}],
    }
    hands, _ = hands_of([("b.json", bundle)])
    assert len(hands) == 3 and hands[0].source.startswith("b.json table 1 hand 1")
    # a bundle that names its event: its hands are named by the event, whatever the file
    bundle["certificate"] = {"event": {"id": "t-1"}}
    named, _ = hands_of([("saved/elsewhere.json", bundle)])
    assert [h.source for h in named] == [h.source.replace("b.json", "t-1") for h in hands]
    doc = analyse(hands, Settings(from_card=44, samples=3))
    assert {tuple(p["players"]) for p in doc["pairs"]} == {("Z", "Y"), ("A", "B")}


def test_bad_input_is_named_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "cayenne-record/1", "hands": [{"dealer": "Q"}]}))
    assert main(["analyse", str(bad), *FAST]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exit_:
        main(["analyse", str(WORKED), "--from-card", "60"])
    assert exit_.value.code == 2
    assert "--from-card 60 must be from 1 to 51" in capsys.readouterr().err


def test_a_pair_that_always_finds_the_hidden_best_card_is_flagged_with_its_evidence() -> None:
    """Judged hands made by hand: in every open spot (the view gives the card played a
    chance of 0.3) the pair N-S of table 0 finds the best card, the field about as
    often as the view says. Holm flags that pair alone, and its evidence is those cards,
    beside the field's rate in such spots."""
    rng = random.Random(5)
    results = []
    for board in range(30):
        for table in range(7):
            ns = (f"N{table}", f"S{table}")
            ew = (f"E{table}", f"W{table}")
            hand = HandPlay(
                source=f"board {board} table {table}",
                board=f"b{board}",
                contract=Contract.S,
                leader=Seat.E,
                players=(ns[0], ew[0], ns[1], ew[1]),
                deal=(0, 0, 0, 0),
                moves=(),
            )
            cards = []
            for i, seat in enumerate((Seat.N, Seat.E, Seat.S, Seat.W) * 2):
                found = table == 0 and seat in (Seat.N, Seat.S) or rng.random() < 0.3
                cards.append(
                    Decision(
                        index=30 + i,
                        seat=seat,
                        role="declarer" if seat & 1 == 0 else "defence",
                        move="2S",
                        cost=0 if found else 1,
                        best=("2S",) if found else ("3S",),
                        options=2,
                        p_view=0.3,
                        favourite=rng.random() < 0.5,
                    )
                )
            results.append(Judged(hand, tuple(cards)))
    doc = gather(results, Settings(), alpha=0.001)
    assert doc["flagged"] == [["N0", "S0"]]
    top = doc["pairs"][0]
    assert top["players"] == ["N0", "S0"] and top["p_value"] < 1e-6 and top["flagged"]
    assert all(not p["flagged"] for p in doc["pairs"][1:])
    assert len(top["evidence"]) == 12
    for e in top["evidence"]:
        assert e["player"] in ("N0", "S0") and e["cost"] == 0 and e["p_view"] == 0.3
        field = e["field_in_such_spots"]
        assert field["n"] == 52 and field["rate"] < 0.6  # every other player on that board
