"""`fairplay shuffle` and `fairplay shuffle verify`, through the real command entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.cli import main
from audit.rules.cards import CARD_TEXT, Seat
from shuffle.errors import OutcomeMismatchError
from shuffle.protocol import Transcript
from shuffle.verify import check_record_hand, verify_transcript

SEEDS = {
    "N": "north seat's long phrase",
    "E": "hex:00112233445566778899aabbccddeeff",
    "S": "sixteen bytes!!!",
    "W": "HEX:" + "ff" * 64,
}


def ceremony(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, Path]:
    seeds = tmp_path / "seeds.json"
    seeds.write_text(json.dumps(SEEDS))
    out = tmp_path / "transcript.json"
    argv = [
        "shuffle",
        "--table",
        "club-3",
        "--hand",
        "17",
        "--dealer",
        "E",
        "--pack",
        "1",
        "--player-N",
        "nina",
        "--seeds",
        str(seeds),
        "--out",
        str(out),
        *extra,
    ]
    assert main(argv) == 0
    return capsys.readouterr().out, out


def test_local_ceremony_prints_commitment_deal_and_writes_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, out = ceremony(tmp_path, capsys)
    lines = text.splitlines()
    assert lines[1].startswith("server commitment: ")
    assert [ln[:13] for ln in lines[2:6]] == [f"{s} commitment:" for s in "NESW"]
    t = Transcript.from_json(json.loads(out.read_text()))
    r = verify_transcript(t.to_json())
    assert lines[1].endswith(t.server_commitment.hex())
    assert f"pack order (top first): {' '.join(CARD_TEXT[c] for c in r.pack_order)}" in lines
    for s in Seat:
        assert f"{s.name}: {' '.join(CARD_TEXT[c] for c in r.deal[s])}" in lines
    assert f"cayenne: {CARD_TEXT[r.cayenne]}" in lines
    assert (t.table, t.hand, t.dealer, t.pack, t.seats[0].player) == (
        "club-3",
        17,
        Seat.E,
        1,
        "nina",
    )
    assert t.seats[Seat.N].seed == SEEDS["N"].encode()  # a phrase is used as it is
    assert t.seats[Seat.E].seed == bytes.fromhex(SEEDS["E"][4:])
    assert t.seats[Seat.W].seed == b"\xff" * 64


def test_seed_flags_pattern_and_beacon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = ceremony(
        tmp_path,
        capsys,
        "--pattern",
        "6-7",
        "--seed-S",
        "another sixteen+ phrase",
        "--beacon",
        "drand:quicknet:777:" + "ab" * 32,
    )
    t = Transcript.from_json(json.loads(out.read_text()))
    assert t.pattern == (6, 7) and t.seats[Seat.S].seed == b"another sixteen+ phrase"
    assert t.beacon is not None and t.beacon.round == 777


def test_verify_ok_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = ceremony(tmp_path, capsys)
    assert main(["shuffle", "verify", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"OK: {out} verifies")
    assert main(["shuffle", "verify", "--json", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] and len(result["dealt_order"]) == 52


def test_verify_tampered_transcript_is_a_mismatch_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1 for a transcript that does not verify (as a record with a failing hand, and as
    the audit's irregular), 2 only for one that cannot be read as a transcript."""
    _, out = ceremony(tmp_path, capsys)
    obj = json.loads(out.read_text())
    obj["seats"]["W"]["player"] = "mallory"
    out.write_text(json.dumps(obj))
    assert main(["shuffle", "verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert (
        text.count("\n") == 1 and "FAIL SHUFFLE_COMMITMENT_MISMATCH: shuffle.seats.W.seed" in text
    )
    assert main(["shuffle", "verify", "--json", str(out)]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["ok"] is False and answer["code"] == "SHUFFLE_COMMITMENT_MISMATCH"
    del obj["seats"]["W"]["seed"]  # never revealed: it does not verify either
    out.write_text(json.dumps(obj))
    assert main(["shuffle", "verify", str(out)]) == 1
    assert "SHUFFLE_INCOMPLETE" in capsys.readouterr().out
    obj["seats"]["W"]["seed"] = "not hex"  # malformed: not a transcript
    out.write_text(json.dumps(obj))
    assert main(["shuffle", "verify", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shuffle.seats.W.seed" in err and "Traceback" not in err


def test_verify_refuses_a_key_named_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = ceremony(tmp_path, capsys)
    text = out.read_text()
    # a second "table" member: parsers disagree on which one wins
    out.write_text(text.replace('"table": "club-3"', '"table": "club-3", "table": "club-4"', 1))
    assert main(["shuffle", "verify", str(out)]) == 2
    assert "duplicate key 'table'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "seed"),
    [
        ("hex:" + "00" * 16, b"\0" * 16),
        ("  hex:" + "Ab" * 64 + " ", b"\xab" * 64),
        ("a phrase of sixteen", b"a phrase of sixteen"),
        ("deadbeef deadbeef deadbeef", b"deadbeef deadbeef deadbeef"),  # not only hex
    ],
)
def test_a_seed_has_one_reading(text: str, seed: bytes) -> None:
    from audit.cli.shuffle import parse_seat_seed

    assert parse_seat_seed(text, Seat.N) == seed


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("00112233445566778899aabbccddeeff", "write hex:0011"),  # hex-looking phrase
        ("hex:" + "00" * 15, "hex: with 30 characters"),
        ("hex:" + "00" * 65, "hex: with 130 characters"),
        ("hex:" + "zz" * 16, "hex: with 32 characters"),
        ("short", "this phrase has 5 bytes"),
        ("x" * 65, "this phrase has 65 bytes"),
    ],
)
def test_a_seed_that_could_be_read_two_ways_or_not_at_all_is_refused(text: str, why: str) -> None:
    from audit.cli.shuffle import parse_seat_seed
    from shuffle.errors import ShuffleFormatError

    with pytest.raises(ShuffleFormatError, match="seats.N.seed") as info:
        parse_seat_seed(text, Seat.N)
    assert why in info.value.message and "16..64 bytes" in info.value.message


def test_weak_seed_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "shuffle",
                "--seed-N",
                "short",
                "--seed-E",
                "x" * 20,
                "--seed-S",
                "y" * 20,
                "--seed-W",
                "z" * 20,
            ]
        )
        == 2
    )
    assert "seats.N.seed" in capsys.readouterr().err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shuffle", "verify", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def record_hand(t: dict[str, Any]) -> dict[str, Any]:
    r = verify_transcript(t)
    return {
        "dealer": t["dealer"],
        "pack": t["pack"],
        "deal": {s.name: [CARD_TEXT[c] for c in r.deal[s]] for s in Seat},
        "dealt_order": [CARD_TEXT[c] for c in r.pack_order],
        "cayenne": CARD_TEXT[r.cayenne],
        "shuffle": t,
    }


def test_record_hands_checked_against_their_shuffles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = ceremony(tmp_path, capsys)
    t = json.loads(out.read_text())
    good = record_hand(t)
    check_record_hand(good)
    swapped = json.loads(json.dumps(good))
    swapped["deal"]["N"][0], swapped["deal"]["E"][0] = (
        swapped["deal"]["E"][0],
        swapped["deal"]["N"][0],
    )
    with pytest.raises(OutcomeMismatchError) as info:
        check_record_hand(swapped)
    assert info.value.path == "hand.deal.N"
    for field, value, path in (
        ("cayenne", "AS" if good["cayenne"] != "AS" else "KS", "hand.cayenne"),
        ("dealer", "N", "hand.dealer"),
        ("pack", 0, "hand.pack"),
        ("dealt_order", list(reversed(good["dealt_order"])), "hand.dealt_order"),
    ):
        bad = dict(good, **{field: value})
        with pytest.raises(OutcomeMismatchError) as info:
            check_record_hand(bad)
        assert info.value.path == path
        # a hand's field is printed as it is, never as shuffle.hand.…
        assert (
            info.value.message.startswith(f"{path}: ") and "shuffle.hand" not in info.value.message
        )
    with pytest.raises(OutcomeMismatchError):
        check_record_hand(good, pattern=[6, 7])

    record = {"format": "cayenne-record/1", "hands": [good, {"dealer": "S"}, swapped]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["shuffle", "verify", str(path)]) == 1
    text = capsys.readouterr().out
    assert (
        "hand 1: OK" in text
        and "hand 3: FAIL SHUFFLE_OUTCOME_MISMATCH" in text
        and "hand 2" not in text
    )
    assert main(["shuffle", "verify", "--json", str(path)]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert (summary["checked"], summary["failed"]) == (2, 1)


def test_interactive_seeds_are_read_without_echo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    prompts: list[str] = []
    typed = iter(SEEDS.values())

    def terminal(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    monkeypatch.setattr(getpass, "getpass", terminal)
    out = tmp_path / "t.json"
    assert main(["shuffle", "--player-E", "eli", "--out", str(out)]) == 0
    assert [p[:1] for p in prompts] == ["N", "E", "S", "W"] and "eli" in prompts[1]
    t = Transcript.from_json(json.loads(out.read_text()))
    assert [e.seed for e in t.seats][2] == SEEDS["S"].encode()
    text = capsys.readouterr().out
    assert SEEDS["N"] not in text.split("transcript")[0]  # seeds are not echoed before the end
