"""PBN export and import, including real bridge events' boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.record.codec import load_record
from audit.record.pbn import PbnError, export_pbn, import_pbn, parse_games
from audit.rules.cards import Seat
from audit.rules.replay import replay_hand

from .helpers import worked_example

PBN_DIR = Path(__file__).resolve().parents[1] / "vectors" / "pbn"


def test_export_then_import_carries_deals_play_calls_and_cayenne() -> None:
    doc = worked_example()
    text = export_pbn(load_record(doc))
    assert (
        '[Deal "N:' in text and '[CayenneCard "7H"]' in text and '[CayennePattern "4-4-5"]' in text
    )
    back, skipped = import_pbn(text)
    assert not skipped and "independent_deals" not in back
    for before, after in zip(doc["hands"], back["hands"], strict=True):
        for key in ("dealer", "cayenne", "calls", "tricks", "gathered", "pack"):
            assert after[key] == before[key], key
        assert {s: sorted(v) for s, v in after["deal"].items()} == {
            s: sorted(v) for s, v in before["deal"].items()
        }


@pytest.mark.parametrize(
    ("name", "boards"), [("aba_17901_pairs_2021.pbn", 52), ("acbl_1607_pairs_2013-08-10.pbn", 264)]
)
def test_real_bridge_events_import_as_legal_play(name: str, boards: int) -> None:
    text = (PBN_DIR / name).read_text(encoding="latin-1")
    doc, skipped = import_pbn(text)
    assert len(doc["hands"]) == boards  # boards played to the thirteenth trick
    assert all("claim" in s or "no play" in s or "passed out" in s for s in skipped)
    record = load_record(doc)
    assert doc["independent_deals"] is True
    for hand, raw in zip(record.hands, doc["hands"], strict=True):
        out = replay_hand(hand)
        assert out.irregularities == [], raw["x-pbn"]
        declarer = Seat.parse(raw["x-pbn"]["Declarer"])
        assert out.tricks[declarer.side] == int(raw["x-pbn"]["Result"])


def test_bad_deal_tag_is_named() -> None:
    with pytest.raises(PbnError, match="Deal holding"):
        import_pbn(
            '[Board "1"]\n[Deal "N:AKQ.JT9 x y z"]\n[Contract "1S"]\n[Play "E"]\nS2 S3 S4 S5\n'
        )


def test_comments_and_annotations_are_skipped() -> None:
    games = list(
        parse_games('% c\n[Board "1"]\n{a comment\nover lines}\n[Play "W"]\nS9! S3 =1= S2 SA\n')
    )
    assert games[0].play == [["S9!", "S3", "S2", "SA"]]
