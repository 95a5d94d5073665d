"""``fairplay tournament score`` end to end, on generated over-the-table events.

The hand-computed Mitchell is played on the extreme deal (N the spades, E the hearts,
S the diamonds, W the clubs; dealer N, cayenne a spade), where the call alone decides
the result: S +58, H -32, D +19, C -45, grand -62, nullo +62 for NS (worked in
docs/tournaments.md's example). The round robin's matches are two hands on the same
deal, worked the same way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.cli import main
from audit.rules.cards import CARD_BY_TEXT, Seat
from audit.tournament.errors import EventError
from audit.tournament.score import score_event

from .events import EXTREME, mitchell_event, play, round_robin_event

CALLS = {  # (board, table) -> call, on the extreme deal
    (1, 1): "S", (1, 2): "H", (1, 3): "D",
    (2, 1): "grand", (2, 2): "grand", (2, 3): "nullo",
    (5, 1): "C", (5, 2): "S", (5, 3): "S",
    (6, 2): "S", (6, 3): "D",
}  # fmt: skip


def write(tmp: Path, records: list[dict[str, Any]], name: str = "event") -> Path:
    folder = tmp / name
    folder.mkdir()
    for i, r in enumerate(records):
        (folder / f"r{r.get('round')}-t{r.get('table')}-{i}.json").write_text(json.dumps(r))
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["tournament", "score", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def hand_computed_mitchell() -> list[dict[str, Any]]:
    board = (EXTREME, Seat.N, 0, CARD_BY_TEXT["2S"])
    return mitchell_event(
        random.Random(1),
        boards={b: board for b in range(1, 7)},
        calls_for=lambda b, t: [CALLS.get((b, t), "S")],
        skip={(6, 1)},  # board 6 not played at table 1: average, and Neuberg on board 6
    )


def test_mitchell_standings_match_the_hand_computed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path, hand_computed_mitchell())
    status, out, err = run(capsys, str(folder), "--format", "json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["format"] == "cayenne-standings/1"
    assert doc["event"] == "Spring Pairs" and doc["kind"] == "pairs-duplicate"
    assert doc["findings"] == []
    got = [
        (s["field"], s["pair"], s["score"], s["percentage"], s["place"]) for s in doc["standings"]
    ]
    assert got == [
        ("NS", ["North3", "South3"], 6.75, 56.25, "1"),
        ("NS", ["North2", "South2"], 5.75, 47.92, "2"),
        ("NS", ["North1", "South1"], 5.5, 45.83, "3"),
        ("EW", ["East3", "West3"], 7.75, 64.58, "1"),
        ("EW", ["East2", "West2"], 6, 50, "2"),
        ("EW", ["East1", "West1"], 4.25, 35.42, "3"),
    ]
    boards = {b["board"]: b for b in doc["boards"]}
    assert sorted(boards) == [1, 2, 3, 4, 5, 6]
    b1 = boards[1]["results"]
    assert [
        (r["round"], r["table"], r["ns_score"], r["ns_matchpoints"], r["ew_matchpoints"])
        for r in b1
    ] == [(1, "1", 58, 2, 0), (2, "3", 19, 1, 1), (3, "2", -32, 0, 2)]
    assert b1[0]["ns"] == ["North1", "South1"] and b1[0]["ew"] == ["East1", "West1"]
    b6 = boards[6]["results"]
    assert [(r["table"], r["ns_score"], r["ns_matchpoints"], r["ew_matchpoints"]) for r in b6] == [
        ("3", 19, 0.25, 1.75),
        ("2", 58, 1.75, 0.25),
        ("1", None, 1, 1),
    ]
    assert b6[2]["adjusted"] == {"ns": "average", "ew": "average"}
    assert [r["ns_score"] for r in boards[2]["results"]] == [-62, 62, -62]


def test_text_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path, hand_computed_mitchell())
    status, out, _ = run(capsys, str(folder))
    assert status == 0
    assert "NS field" in out and "North3 & South3" in out and "56.25" in out
    assert "Findings: none" in out
    target = tmp_path / "standings.html"
    status, out, _ = run(capsys, str(folder), "--format", "html", "-o", str(target))
    assert status == 0 and out == ""
    html = target.read_text()
    assert html.startswith("<!doctype html>") and "East3 &amp; West3" in html and "64.58" in html


def test_a_fouled_board_is_a_finding_naming_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = mitchell_event(random.Random(5), foul={(3, 3)})
    folder = write(tmp_path, records)
    status, out, _ = run(capsys, str(folder), "--format", "json")
    assert status == 1  # standings still printed
    doc = json.loads(out)
    assert len(doc["standings"]) == 6
    fouled = [f for f in doc["findings"] if f["code"] == "FOULED_BOARD"]
    assert len(fouled) == 1
    f = fouled[0]
    assert f["severity"] == "error" and f["evidence"]["board"] == 3
    assert "table 3 (round 3)" in f["message"]
    other = f["evidence"]["other_versions"]
    assert [[t["table"] for t in o["tables"]] for o in other] == [["3"]]
    assert other[0]["differs_in"] == ["deal"]
    assert [t["table"] for t in f["evidence"]["board_as_played_most"]["tables"]] == ["2", "1"]
    # the fouled version is alone: half the top; the other two compared with each other
    b3 = next(b for b in doc["boards"] if b["board"] == 3)["results"]
    fouled_result = next(r for r in b3 if r["table"] == "3")
    assert fouled_result["ns_matchpoints"] == 1 and fouled_result["ew_matchpoints"] == 1
    # and a clean event of the same shape exits 0
    clean = write(tmp_path, mitchell_event(random.Random(5)), "clean")
    assert run(capsys, str(clean), "--format", "json")[0] == 0


def test_one_board_a_round_is_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Each record holds a single board: each board is a set of its own (a KeyError
    # traceback before).
    records = mitchell_event(random.Random(4), tables=2, boards_per_round=1, rounds=2)
    assert main(["tournament", "score", str(write(tmp_path, records)), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [b["board"] for b in out["boards"]] == [1, 2]
    assert all(len(b["results"]) == 2 for b in out["boards"])


def test_standings_do_not_depend_on_the_order_records_arrive_in() -> None:
    records = [(f"r{i}.json", r) for i, r in enumerate(mitchell_event(random.Random(9)))]
    expected = score_event(records)
    assert expected["findings"] == []
    shuffled = list(records)
    random.Random(3).shuffle(shuffled)
    assert score_event(shuffled) == expected


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(0, 2**32))
def test_standings_are_the_same_whatever_the_order(rnd: random.Random, seed: int) -> None:
    records = [(f"r{i}.json", r) for i, r in enumerate(mitchell_event(random.Random(seed)))]
    shuffled = list(records)
    rnd.shuffle(shuffled)
    a, b = score_event(records), score_event(shuffled)
    assert a == b
    # matchpoints of every board: NS sum to top x n / 2 (n results, no adjustment here)
    for board in a["boards"]:
        n = len(board["results"])
        assert sum(r["ns_matchpoints"] for r in board["results"]) == pytest.approx(
            board["top"] * n / 2
        )


# -- rubber round robin ----------------------------------------------------------------

CAYENNE = CARD_BY_TEXT["2S"]
CASES = [  # (N's call as dealer, then E's): NS match value worked by hand
    ("grand", "grand", 0),  # EW rubber 30, then NS rubber 30
    ("D", "nullo", -19),  # NS game 4 + slam 6 unfinished; EW game 3 then 4 4 4, rubber, slam
    ("H", "grand", 14),  # EW 4 4 + slam 6, marker 6; NS double 2 then 4 4 4 + 8 + 6
    ("C", "grand", 9),  # EW 4 4 4 + slam, marker 9; NS single 1 then 4 4 4 + 8 + 6
]


def rr_hands(_round: int, _table: int, index: int) -> list[dict[str, Any]]:
    first, second, _ = CASES[index % 4]
    rng = random.Random(index)
    return [
        play(EXTREME, Seat.N, CAYENNE, [first], rng),
        play(EXTREME, Seat.E, CAYENNE, [second], rng),
    ]


def test_round_robin_of_five_pairs_against_hand_computed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path, round_robin_event(5, rr_hands))
    status, out, err = run(capsys, str(folder), "--format", "json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["kind"] == "rubber-round-robin" and doc["boards"] == []
    assert [m["ns_value"] for m in doc["matches"]] == [c[2] for c in CASES * 3][:10]
    got = [
        (s["pair"], s["score"], s["place"], s["field"], s["percentage"]) for s in doc["standings"]
    ]
    assert got == [
        (["Ann1", "Bob1"], 28, "1", None, None),
        (["Ann5", "Bob5"], 24, "2", None, None),
        (["Ann2", "Bob2"], 18, "3", None, None),
        (["Ann4", "Bob4"], -9, "4", None, None),
        (["Ann3", "Bob3"], -61, "5", None, None),
    ]


def test_not_one_event_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = mitchell_event(random.Random(2))
    records[4]["event"] = "Another"
    status, out, err = run(capsys, str(write(tmp_path, records)))
    assert status == 2 and out == ""
    assert "event: 'Another' is not 'Spring Pairs'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("round"), "round: is required"),
        (lambda r: r.pop("table"), "table: is required"),
        (lambda r: r["players"].pop("W"), "players.W: every seat needs"),
        (lambda r: r["hands"][0].update(dealer="X"), "hands[0].dealer: 'X' is not a seat"),
        (lambda r: r["hands"][0].pop("board"), "some hands carry a board"),
        (lambda r: r.update(table="2"), "round 1 table 2 is also"),
    ],
)
def test_unreadable_records_exit_2_naming_the_record_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    records = mitchell_event(random.Random(2))
    change(records[0])
    status, _, err = run(capsys, str(write(tmp_path, records)))
    assert status == 2 and message in err, err
    assert "-0.json" in err or "r1-t2" in err


def test_not_json_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    status, _, err = run(capsys, str(bad))
    assert status == 2 and "bad.json" in err and "not valid JSON" in err
    with pytest.raises(EventError):
        score_event([])
