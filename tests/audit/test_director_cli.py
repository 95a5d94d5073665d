"""The command line a director uses: where reports go, help text, `fairplay score`."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import pytest

from audit.cli import COMMANDS, build_parser, main

from .helpers import WORKED_EXAMPLE, worked_example


def test_output_to_a_folder_or_into_a_missing_folder_is_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("audit", "score"):
        assert main([command, str(WORKED_EXAMPLE), "-o", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert "is a folder" in err and "Traceback" not in err
        missing = tmp_path / "no-such-folder" / "report.txt"
        assert main([command, str(WORKED_EXAMPLE), "-o", str(missing)]) == 2
        err = capsys.readouterr().err
        assert "does not exist" in err and "Traceback" not in err


def test_a_folder_audit_keeps_the_relative_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "records"
    for club in ("north-club", "south-club"):
        (src / club).mkdir(parents=True)
        doc = worked_example()
        if club == "south-club":
            doc["hands"][1]["dealer"] = "W"  # irregular
        (src / club / "rubber.json").write_text(json.dumps(doc))
    out = tmp_path / "reports"
    assert main(["audit", str(src), "-o", str(out), "-j", "1", "--format", "json"]) == 1
    north = json.loads((out / "north-club" / "rubber.report.json").read_text())
    south = json.loads((out / "south-club" / "rubber.report.json").read_text())
    assert (north["verdict"], south["verdict"]) == ("clean", "irregular")
    # the same file named twice directly: two reports, not one overwritten
    a = src / "north-club" / "rubber.json"
    b = src / "south-club" / "rubber.json"
    out2 = tmp_path / "two"
    assert main(["audit", str(a), str(b), "-o", str(out2), "-j", "1"]) == 1
    assert (out2 / "rubber.report.txt").exists() and (out2 / "rubber-2.report.txt").exists()
    capsys.readouterr()
    assert main(["score", str(src), "-o", str(tmp_path / "sheets")]) == 0
    assert (tmp_path / "sheets" / "south-club" / "rubber.score.txt").exists()


def _walk(parser: argparse.ArgumentParser, where: str, out: list[str]) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                if not helps.get(name):
                    out.append(f"{where} {name}")
                _walk(sub, f"{where} {name}", out)
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            out.append(f"{where} {'/'.join(action.option_strings) or action.dest}")


def test_every_command_and_option_has_help() -> None:
    missing: list[str] = []
    for command in COMMANDS:
        _walk(build_parser(command), "fairplay", missing)
    assert missing == []


def test_help_shows_no_markup_and_shuffle_verify_is_optional(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in ("audit", "score", "shuffle"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert "``" not in text and ":func:" not in text, command
    with pytest.raises(SystemExit):
        main(["shuffle", "--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert "fairplay shuffle [options]" in usage and "verify FILE" in usage
    assert not usage.rstrip().endswith("verify ...")


def test_score_gives_per_hand_json_and_writes_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sheet.json"
    assert main(["score", str(WORKED_EXAMPLE), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [h["hand"] for h in data["hands"]] == [1, 2, 3]
    first = data["hands"][0]
    assert set(first) >= {"hand", "dealer", "contract", "cayenne", "unit", "tricks", "score"}
    assert data["rubbers"][0]["value"] == 15 and data["players"]["N"] == "Z"


def test_score_refuses_a_deal_of_fourteen_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = worked_example()
    h = doc["hands"][0]
    h["deal"]["N"].append(h["deal"]["E"].pop())
    path = tmp_path / "fourteen.json"
    path.write_text(json.dumps(doc))
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "hand 1: N was dealt 14 cards" in err and "cannot be scored" in err


def test_the_text_audit_names_players_and_marks_cayenne(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", str(WORKED_EXAMPLE)]) == 0
    audit_text = capsys.readouterr().out
    assert main(["score", str(WORKED_EXAMPLE)]) == 0
    score_text = capsys.readouterr().out
    doc = copy.deepcopy(worked_example())
    assert doc["players"]["N"] == "Z"
    assert "N (Z)" in audit_text and "NS (Z-Y)" in audit_text
    assert ("(cayenne)" in audit_text) == ("(cayenne)" in score_text)
    assert "(cayenne)" in score_text
