"""Reading, validating and writing cayenne-record/1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from audit.errors import RecordError
from audit.record.codec import dumps, load_record, record_to_json, schema

from .helpers import worked_example


def first_hand() -> dict[str, Any]:
    return worked_example()


def error_of(doc: Any) -> str:
    with pytest.raises(RecordError) as info:
        load_record(doc)
    return str(info.value)


def test_the_shipped_schema_is_a_valid_json_schema_and_accepts_the_example() -> None:
    jsonschema.Draft7Validator.check_schema(schema())
    jsonschema.validate(worked_example(), schema())


def test_a_bad_card_names_its_json_path() -> None:
    doc = worked_example()
    doc["hands"][2]["tricks"][4]["cards"][1] = "XS"
    assert error_of(doc) == "hands[2].tricks[4].cards[1]: 'XS' is not a card"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("format"), "format: is required"),
        (
            lambda d: d.update(format="cayenne-record/2"),
            "format: 'cayenne-record/2': must be \"cayenne-record/1\"",
        ),
        (lambda d: d["hands"][0].pop("cayenne"), "hands[0].cayenne: is required"),
        (
            lambda d: d["hands"][1].update(dealer="Z"),
            "hands[1].dealer: 'Z' is not a seat (N, E, S or W)",
        ),
        (
            lambda d: d["hands"][0]["calls"][0].update(call="NT"),
            "hands[0].calls[0].call: 'NT' is not a call (pass, S, H, D, C, grand or nullo)",
        ),
        (
            lambda d: d["hands"][0]["deal"].update(N="AS KS"),
            "hands[0].deal.N: 'AS KS' is not a list",
        ),
        (
            lambda d: d["hands"][0]["claimed"]["points"].update(NS=12),
            "hands[0].claimed.points.NS: 12 is out of range (maximum 9)",
        ),
        (lambda d: d["hands"][0].update(pack=2), "hands[0].pack: 2: must be 0 or 1"),
        (
            lambda d: d.update(ruleset={"deal_pattern": [4, 4, 4]}),
            "ruleset.deal_pattern: packets must add up to 13",
        ),
        (
            lambda d: d.update(ruleset={"seven_is": "triple"}),
            'ruleset.seven_is: \'triple\': must be "single" or "double"',
        ),
        (
            lambda d: d.update(ruleset={"deal_patern": [6, 7]}),
            "ruleset: 'deal_patern' is not a ruleset setting (deal_pattern, seven_is, default_penalty)",
        ),
        (
            lambda d: (
                d["hands"][0]["penalties"].append({"trick": 2, "seat": "N", "option": "fine"})
                if "penalties" in d["hands"][0]
                else d["hands"][0].update(penalties=[{"trick": 2, "seat": "N", "option": "fine"}])
            ),
            "hands[0].penalties[0].option: 'fine' is not a penalty option (tricks, deduct or add)",
        ),
    ],
)
def test_invalid_records_name_the_first_problem(mutate: Any, message: str) -> None:
    doc = worked_example()
    mutate(doc)
    assert error_of(doc) == message


def test_not_an_object() -> None:
    assert error_of([1, 2]) == "a record must be a JSON object"


def test_counts_are_findings_not_parse_errors() -> None:
    doc = worked_example()
    doc["hands"][0]["tricks"][3]["cards"].pop()
    doc["hands"][0]["deal"]["N"].pop()
    record = load_record(doc)
    assert len(record.hands[0].tricks[3].cards) == 3


def test_ten_written_as_10_reads_and_is_written_back_as_t() -> None:
    doc = worked_example()
    hand = doc["hands"][0]
    i = next(i for i, c in enumerate(hand["deal"]["N"]) if c.startswith("T"))
    hand["deal"]["N"][i] = "10" + hand["deal"]["N"][i][1]
    out = record_to_json(load_record(doc))
    assert out["hands"][0]["deal"]["N"][i].startswith("T")


def test_a_record_written_by_the_project_reads_back_identically() -> None:
    doc = worked_example()
    doc["x-producer"] = {"name": "test"}
    doc["hands"][1]["x-note"] = "kept"
    record = load_record(doc)
    written = json.loads(dumps(record))
    assert written == doc
    assert load_record(written) == record


ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "audit.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_reports_a_bad_record_with_exit_status_2_and_no_traceback(tmp_path: Path) -> None:
    doc = worked_example()
    doc["hands"][2]["tricks"][4]["cards"][1] = "XS"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    proc = run_cli("score", str(bad))
    assert proc.returncode == 2
    assert "hands[2].tricks[4].cards[1]: 'XS' is not a card" in proc.stderr
    assert "Traceback" not in proc.stderr
    (tmp_path / "broken.json").write_text('{"format": ')
    proc = run_cli("score", str(tmp_path / "broken.json"))
    assert proc.returncode == 2 and "not valid JSON: line 1" in proc.stderr
    proc = run_cli("score", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_score_prints_the_books_sheet() -> None:
    proc = run_cli("score", str(ROOT / "audit" / "record" / "examples" / "worked-example.json"))
    assert proc.returncode == 0, proc.stderr
    assert "2  0  0  0  3  4  4  8  4  = 25" in proc.stdout
    assert "0  2  4  4  0  0  0  = 10" in proc.stdout
    assert "win the rubber by 15" in proc.stdout
    proc = run_cli(
        "score",
        "--format",
        "json",
        str(ROOT / "audit" / "record" / "examples" / "worked-example.json"),
    )
    out = json.loads(proc.stdout)
    assert out["rubbers"][0]["value"] == 15 and out["rubbers"][0]["winner"] == "NS"
