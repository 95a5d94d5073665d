"""One record audited as a stream gives the ordinary report, byte for byte, or declines.

``fairplay audit RECORD`` reads a single record hand by hand through the native fast
path and writes a JSON report hand by hand (:mod:`audit.cli.big_record`). The ordinary
path (``json.loads`` of the whole file, :func:`audit.auditor.audit_document`, one
``json.dumps``) is the definition: every record in order must be answered by the
stream with the same bytes, and every other record (an irregularity or a schema error
in a middle hand, a text the stream does not read exactly as ``json.loads``) must be
left to the ordinary path, with nothing written, so its answer is unchanged.
"""

from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from audit import native
from audit.auditor import audit_document
from audit.cli import main
from audit.cli.audit import render
from audit.cli.big_record import _record_hands, _stamp, audit_streamed
from audit.errors import RecordError
from audit.record.generate import random_record
from audit.record.lazyload import Decline, open_stream
from audit.rules.ruleset import Ruleset

from .helpers import online_record
from .test_native import RULESETS, stacked, with_collected

if not native.available():
    pytest.skip("the native fast path is not built or is off", allow_module_level=True)

ALPHA = 0.001


def ordinary(path: Path, fmt: str) -> tuple[str, str]:
    """The verdict and the report the ordinary (whole-record) path gives."""
    doc = json.loads(path.read_bytes())
    report = audit_document(doc, alpha=ALPHA)
    return report["verdict"], render(report, doc, fmt, str(path))


def streamed(path: Path, fmt: str, tmp: Path) -> tuple[str, str] | None:
    target = tmp / f"streamed.{fmt}"
    verdict = audit_streamed(path, ALPHA, fmt, target)
    if verdict is None:
        assert not target.exists() and not list(tmp.glob("*.tmp")), "nothing written"
        return None
    return verdict, target.read_text(encoding="utf-8")


def write(tmp: Path, doc: Any, text: str | None = None) -> Path:
    path = tmp / "record.json"
    path.write_text(json.dumps(doc) if text is None else text, encoding="utf-8")
    return path


def variants() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for i, ruleset in enumerate(RULESETS):
        for order in (True, False):
            doc = random_record(random.Random(i), 12, ruleset=ruleset, dealt_order=order)
            out.append((f"ruleset{i}-{'order' if order else 'hands'}", doc))
    rng = random.Random(7)
    out.append(("stacked-2", random_record(rng, 16, prepare=stacked(2))))
    out.append(("stacked-1-order", random_record(rng, 16, dealt_order=True, prepare=stacked(1))))
    out.append(("turned", random_record(rng, 12, turn_piles=0.5, prepare=stacked(2))))
    out.append(("unclaimed", random_record(rng, 12, claimed=False)))
    out.append(("ungathered", random_record(rng, 12, gathered=False)))
    doc = random_record(rng, 12)
    with_collected(doc)
    out.append(("collected", doc))
    doc = random_record(rng, 12, prepare=stacked(1))
    doc = {"x-club": {"name": "Ode"}, **doc, "independent_deals": True}
    doc["hands"] = doc.pop("hands")
    out.append(("independent-x", doc))
    doc = random_record(rng, 12, ruleset=Ruleset(seven_is="double"), claimed=False)
    start = {"start": {"points": {"NS": 4, "EW": 2}, "games": {"NS": 1, "EW": 0}}}
    doc = {**{k: v for k, v in doc.items() if k != "hands"}, **start, "hands": doc["hands"]}
    out.append(("start", doc))
    out.append(("one-hand", random_record(rng, 1)))
    doc = online_record(8, 6, start=start["start"])
    doc["hands"] = doc.pop("hands")  # the stream reads records whose `hands` come last
    out.append(("online", doc))
    return out


@pytest.mark.parametrize("fmt", ["json", "text", "html"])
@pytest.mark.parametrize(("name", "doc"), variants(), ids=[n for n, _ in variants()])
def test_a_record_in_order_is_streamed_to_the_same_report(
    name: str, doc: dict[str, Any], fmt: str, tmp_path: Path
) -> None:
    path = write(tmp_path, doc, json.dumps(doc, indent=1 if name == "one-hand" else None))
    got = streamed(path, fmt, tmp_path)
    assert got is not None, "a record in order must be streamed"
    assert got == ordinary(path, fmt)


def test_the_command_streams_to_standard_output_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, random_record(random.Random(3), 10, prepare=stacked(2)))
    status = main(["audit", str(path), "--format", "json"])
    verdict, text = ordinary(path, "json")
    assert capsys.readouterr().out == text
    assert status == (1 if verdict == "irregular" else 0)


def middle(doc: dict[str, Any], change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    change(doc["hands"][len(doc["hands"]) // 2])
    return doc


def _claim_more(h: dict[str, Any]) -> None:
    h["claimed"]["points"]["NS"] += 1


def _same_card_twice(h: dict[str, Any]) -> None:
    h["deal"]["N"][0] = h["deal"]["S"][0]


def _wrong_seed(h: dict[str, Any]) -> None:
    h["shuffle"]["seats"]["N"]["seed"] = "00" * 32


IRREGULAR = {"claim": _claim_more, "misdeal": _same_card_twice}


@pytest.mark.parametrize("change", list(IRREGULAR), ids=list(IRREGULAR))
def test_an_irregular_middle_hand_leaves_the_record_to_the_ordinary_path(
    change: str, tmp_path: Path
) -> None:
    doc = middle(random_record(random.Random(5), 14), IRREGULAR[change])
    path = write(tmp_path, doc)
    assert streamed(path, "json", tmp_path) is None
    out = tmp_path / "report.json"
    assert main(["audit", str(path), "--format", "json", "-o", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == ordinary(path, "json")[1]


def test_a_wrong_transcript_in_a_middle_hand_leaves_the_record_to_the_ordinary_path(
    tmp_path: Path,
) -> None:
    doc = online_record(6, 5)
    doc["hands"] = doc.pop("hands")
    doc = middle(doc, _wrong_seed)
    path = write(tmp_path, doc)
    assert streamed(path, "json", tmp_path) is None
    out = tmp_path / "report.json"
    assert main(["audit", str(path), "--format", "json", "-o", str(out)]) == 1
    text = out.read_text(encoding="utf-8")
    assert text == ordinary(path, "json")[1] and '"SHUFFLE_MISMATCH"' in text


def test_a_schema_error_in_a_middle_hand_names_its_json_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = middle(random_record(random.Random(5), 14), lambda h: h.update(dealer=7))
    path = write(tmp_path, doc)
    assert streamed(path, "json", tmp_path) is None
    assert main(["audit", str(path), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "hands[7].dealer: 7 is not a seat" in err
    assert "Traceback" not in err


TEXTS = {
    "hands-not-last": lambda t: t[:-1] + ', "x-after": 1}',
    "duplicate-key": lambda t: t.replace('{"format"', '{"players": {}, "format"', 1),
    "trailing-garbage": lambda t: t + " x",
    "broken-middle-hand": lambda t: t.replace('"pack": 1', '"pack": 1,,', 1),
    "no-hands": lambda t: t[: t.index('"hands"')] + '"hands": []}',
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_text_not_read_exactly_as_json_loads_is_declined(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = json.dumps(random_record(random.Random(2), 6))
    path = write(tmp_path, None, TEXTS[name](base))
    assert streamed(path, "json", tmp_path) is None
    status = main(["audit", str(path), "--format", "json"])
    captured = capsys.readouterr()
    try:
        verdict, text = ordinary(path, "json")
    except (RecordError, ValueError):
        assert status == 2 and captured.out == "" and "Traceback" not in captured.err
    else:
        assert captured.out == text and status == (1 if verdict == "irregular" else 0)


def test_the_hands_are_read_one_at_a_time() -> None:
    """Each hand is decoded only when asked for: the tree is never whole."""
    doc = random_record(random.Random(4), 3)
    text = json.dumps(doc)
    broken = text[: text.rindex("{")] + "{oops"  # the last hand is not JSON
    stream = open_stream(broken.encode())
    hands = stream.hands()
    assert next(hands) == doc["hands"][0]
    assert next(hands) == doc["hands"][1]
    with pytest.raises(Decline):
        next(hands)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-32-le"])
def test_a_record_read_in_chunks_is_read_as_json_loads_reads_it(chunk: int, encoding: str) -> None:
    """Chunk ends fall inside numbers, strings, escapes and multi-byte characters: each
    value is decoded only once the text after it is there, so nothing is cut short."""
    doc = random_record(random.Random(6), 3)
    doc = {"x-n": 12345, "x-é": 'ümlaut \u00e9 \\ " \U0001f0a1', **doc, "hands": doc["hands"]}
    doc["hands"][1]["x-big"] = 1234567890123456789
    data = json.dumps(doc, ensure_ascii=False, indent=1).encode(encoding)
    stream = open_stream(io.BytesIO(data), chunk)
    got = {**stream.head, "hands": list(stream.hands())}
    assert got == json.loads(data) == doc


@pytest.mark.parametrize("chunk", [1, 5, 4096])
@pytest.mark.parametrize("name", [n for n in TEXTS if n != "no-hands"])  # read, then declined
def test_a_text_read_in_chunks_is_declined_as_a_whole_one_is(chunk: int, name: str) -> None:
    base = json.dumps(random_record(random.Random(2), 6))
    with pytest.raises(Decline):
        list(open_stream(io.BytesIO(TEXTS[name](base).encode()), chunk).hands())


def test_a_cut_number_at_the_end_of_the_text_is_not_taken_for_a_shorter_one() -> None:
    """`"hands": [1` and a chunk's end: 1 is not a hand, nor is 12 when 123 follows."""
    for text in ('{"hands": [123]}', '{"a": 123, "hands": []}'):
        stream = open_stream(io.BytesIO(text.encode()), 1)
        assert {**stream.head, "hands": list(stream.hands())} == json.loads(text)
    for text in ('{"hands": [12', '{"hands": [1], "x": 2}', '{"hands": [1]} 2', "\xff{}"):
        with pytest.raises(Decline):
            list(open_stream(io.BytesIO(text.encode("latin-1")), 1).hands())


def test_the_report_s_hands_are_built_as_they_are_written() -> None:
    """The streamed report's entries are made when asked for, each time anew, and the
    same as the whole record's report; none is held by the report."""
    doc = random_record(random.Random(8), 30, prepare=stacked(2))
    report = native.audit_stream(open_stream(json.dumps(doc).encode()), ALPHA)
    assert report is not None
    whole = audit_document(doc, alpha=ALPHA)
    hands = report["hands"]
    assert isinstance(hands, native.Entries) and len(hands) == 30
    assert hands.dealers == {"N", "E", "S", "W"}
    first, second = list(hands), list(hands)
    assert first == second == whole["hands"]
    assert first[0] is not second[0]
    assert {k: v for k, v in report.items() if k != "hands"} == {
        k: v for k, v in whole.items() if k != "hands"
    }


def test_the_html_page_reads_the_hands_again_only_from_the_file_audited(tmp_path: Path) -> None:
    """The page draws each deal from the file, read a second time: a file changed in
    between is declined (the ordinary path reads it once)."""
    path = write(tmp_path, random_record(random.Random(9), 4))
    stamp = _stamp(path.stat())
    assert [h.number for h in _record_hands(path, stamp)] == [1, 2, 3, 4]
    path.write_text(path.read_text(encoding="utf-8") + " ", encoding="utf-8")
    with pytest.raises(Decline):
        list(_record_hands(path, stamp))
