"""The native fast path gives the Python auditor's report, byte for byte, or declines.

The Python auditor (``audit_record(load_record(doc))``) is the definition of the
report. Wherever :func:`audit.native.audit_fast` answers, its report must serialise to
the same JSON text; where the record holds anything but stacked deals to report, it
must decline (``None``). Every clean generated record must take the fast path, or the
speed it exists for is lost without anyone noticing.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit import native
from audit.auditor import audit_document, audit_record
from audit.errors import RecordError
from audit.record.codec import load_record
from audit.record.generate import cut, random_record, riffle
from audit.record.pbn import import_pbn
from audit.rules.cards import CARD_BY_TEXT
from audit.rules.ruleset import Ruleset

from .helpers import online_record, worked_example
from .test_fastload import mutate, paths, schema_accepts

if not native.available():
    if os.environ.get("FAIRPLAY_TEST_NATIVE") == "required":
        raise RuntimeError(
            "FAIRPLAY_TEST_NATIVE=required but audit.native._fastaudit is not built "
            "(pip install -e . needs a C compiler and the Python headers)"
        )
    pytest.skip(
        "the native fast path is not built (no C compiler at install) or FAIRPLAY_NATIVE=0",
        allow_module_level=True,
    )

ALPHA = 0.001
PBN_DIR = Path(__file__).resolve().parents[1] / "vectors" / "pbn"


def python_report(doc: Any, alpha: float = ALPHA) -> str:
    return json.dumps(audit_record(load_record(doc), alpha=alpha))


def fast_report(doc: Any, alpha: float = ALPHA) -> str | None:
    report = native.audit_fast(doc, alpha)
    return None if report is None else json.dumps(report)


def assert_same(doc: Any, alpha: float = ALPHA) -> str:
    fast = fast_report(doc, alpha)
    assert fast is not None, "a record in order must take the fast path"
    assert fast == python_report(doc, alpha)
    return fast


def stacked(riffles: int) -> Any:
    def prepare(pack: list[int], rng: random.Random) -> list[int]:
        for _ in range(riffles):
            pack = riffle(pack, rng)
        return cut(pack, rng)

    return prepare


def with_collected(doc: dict[str, Any], *, rising: bool = False) -> None:
    """Add each hand's pack as put together: N-S's pile on E-W's, each pile's last trick on
    top (``rising``: each pile written the other way up); cards of a trick in play order."""
    for h in doc["hands"]:
        piles = [h["gathered"]["NS"], h["gathered"]["EW"]]
        order = [t for pile in piles for t in (pile if rising else reversed(pile))]
        h["collected"] = [c for t in order for c in h["tricks"][t - 1]["cards"]]


RULESETS = [
    Ruleset(),
    Ruleset(deal_pattern=(6, 7)),
    Ruleset(deal_pattern=(1,) * 13),
    Ruleset(seven_is="double"),
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: "-".join(map(str, r.deal_pattern)))
@pytest.mark.parametrize("dealt_order", [True, False], ids=["dealt_order", "hands"])
def test_generated_records_take_the_fast_path_with_the_same_report(
    ruleset: Ruleset, dealt_order: bool
) -> None:
    rng = random.Random(11)
    for _ in range(6):
        doc = random_record(rng, 24, ruleset=ruleset, dealt_order=dealt_order)
        assert_same(doc)
        # without claims, or without gatherings (no stacking test at all)
        assert_same(random_record(rng, 8, ruleset=ruleset, claimed=False))
        assert_same(random_record(rng, 8, ruleset=ruleset, gathered=False))


@pytest.mark.parametrize("riffles", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("dealt_order", [True, False], ids=["dealt_order", "hands"])
def test_stacked_deals_are_reported_as_the_python_auditor_reports_them(
    riffles: int, dealt_order: bool
) -> None:
    rng = random.Random(riffles)
    doc = random_record(rng, 16, dealt_order=dealt_order, prepare=stacked(riffles))
    text = assert_same(doc)
    report = json.loads(text)
    if riffles <= 1:
        codes = {f["code"] for f in report["findings"]}
        assert codes == {"STACKED_DEAL", "STACKED_DEALER"}
        assert report["verdict"] == "irregular"
    # the evidence of the small p-values (riffles, advances, close tricks) is built too
    assert riffles > 2 or any(
        h["stacking"]["p_value"] < 0.05 for h in report["hands"] if "stacking" in h
    )


@pytest.mark.parametrize("riffles", [0, 1, 2, 7])
@pytest.mark.parametrize("dealt_order", [True, False], ids=["dealt_order", "hands"])
def test_turned_piles_give_the_same_report(riffles: int, dealt_order: bool) -> None:
    """Both readings of a gathered pile: the backward one, its advances and riffles too."""
    rng = random.Random(300 + riffles)
    doc = random_record(rng, 16, dealt_order=dealt_order, prepare=stacked(riffles), turn_piles=0.5)
    report = json.loads(assert_same(doc))
    directions = {h["stacking"]["evidence"]["direction"] for h in report["hands"][2:]}
    if riffles <= 2:
        assert directions == {
            "first trick of each pile on top",
            "last trick of each pile on top",
        }


@pytest.mark.parametrize("riffles", [0, 1, 3, 7])
@pytest.mark.parametrize("dealt_order", [True, False], ids=["dealt_order", "hands"])
@pytest.mark.parametrize("rising", [False, True], ids=["last-on-top", "first-on-top"])
def test_collected_packs_give_the_same_report(
    riffles: int, dealt_order: bool, rising: bool
) -> None:
    rng = random.Random(100 + riffles)
    doc = random_record(rng, 10, dealt_order=dealt_order, prepare=stacked(riffles))
    with_collected(doc, rising=rising)
    assert_same(doc)
    del doc["hands"][3]["gathered"]  # collected alone is enough for the stacking test
    assert_same(doc)


def test_alpha_is_applied_as_in_python() -> None:
    doc = random_record(random.Random(5), 12, prepare=stacked(3))
    for alpha in (1e-9, 0.01, 0.2, 0.9):
        assert_same(doc, alpha)


def test_the_worked_example_and_the_record_level_options() -> None:
    doc = worked_example()
    assert_same(doc)
    doc["start"]["sheet"] = {"NS": [2, 0, 3], "EW": [0]}
    doc["x-producer"] = {"anything": [1, 2]}
    doc["hands"][0]["x-note"] = "ignored"
    doc["hands"][0]["deal"]["x-seen"] = True
    doc["hands"][1]["penalties"] = []
    assert_same(doc)
    gen = random_record(random.Random(3), 6, ruleset=Ruleset(deal_pattern=(6, 7)))
    gen["independent_deals"] = True
    gen["hands"][3]["dealer"] = "W"  # not checked for independent deals
    gen["hands"][3].pop("claimed", None)
    assert_same(gen)


def test_a_cut_that_names_the_dealer_is_fast_and_one_that_does_not_is_not() -> None:
    doc = random_record(random.Random(4), 4)
    doc["cut"] = {"N": "AS", "E": "KH", "S": "TD", "W": "2C"}  # ace low: N deals
    assert_same(doc)
    doc["cut"] = {"N": "KS", "E": "KH", "S": "TD", "W": "2C"}  # W should have dealt
    assert fast_report(doc) is None
    assert "WRONG_DEALER" in python_report(doc)


def _swap_cards(doc: dict[str, Any]) -> None:
    t = doc["hands"][0]["tricks"]
    t[0]["cards"][1], t[1]["cards"][1] = t[1]["cards"][1], t[0]["cards"][1]


def _claim_off_by_one(doc: dict[str, Any]) -> None:
    pts = doc["hands"][1]["claimed"]["points"]
    pts["NS"] = (pts["NS"] + 1) % 10


def _misdeal(doc: dict[str, Any]) -> None:
    order = doc["hands"][2]["dealt_order"]
    order[0], order[5] = order[5], order[0]


def _wrong_gathering(doc: dict[str, Any]) -> None:
    g = doc["hands"][0]["gathered"]
    g["NS"], g["EW"] = g["EW"], g["NS"]


def _lead(doc: dict[str, Any]) -> None:
    t = doc["hands"][0]["tricks"][0]
    t["leader"] = {"N": "E", "E": "S", "S": "W", "W": "N"}[t["leader"]]


def _dealer(doc: dict[str, Any]) -> None:
    doc["hands"][2]["dealer"] = doc["hands"][1]["dealer"]


def _pack(doc: dict[str, Any]) -> None:
    doc["hands"][1]["pack"] = doc["hands"][0]["pack"]


def _deal_twice(doc: dict[str, Any]) -> None:
    d = doc["hands"][0]["deal"]
    d["N"][0] = d["E"][0]


def _short_trick(doc: dict[str, Any]) -> None:
    doc["hands"][1]["tricks"][4]["cards"].pop()


def _all_pass(doc: dict[str, Any]) -> None:
    h = doc["hands"][0]
    h["calls"] = [{"seat": h["dealer"], "call": "pass"}]


def _ace_high(doc: dict[str, Any]) -> None:
    doc["hands"][0]["tricks"][0]["ace_high"] = [doc["hands"][0]["tricks"][0]["cards"][0]]


def _penalty(doc: dict[str, Any]) -> None:
    doc["hands"][0]["penalties"] = [{"trick": 2, "seat": "N", "option": "add"}]


def _collected(doc: dict[str, Any]) -> None:
    with_collected(doc)
    pack = doc["hands"][0]["collected"]
    pack[0], pack[4] = pack[4], pack[0]  # two tricks split up


def _collected_card_twice(doc: dict[str, Any]) -> None:
    with_collected(doc)
    pack = doc["hands"][0]["collected"]
    pack[1] = pack[0]  # trick stays together, but a card twice and one missing


def _shuffle(doc: dict[str, Any]) -> None:
    doc["hands"][0]["shuffle"] = {}


@pytest.mark.parametrize(
    "spoil",
    [
        _swap_cards,
        _claim_off_by_one,
        _misdeal,
        _wrong_gathering,
        _lead,
        _dealer,
        _pack,
        _deal_twice,
        _short_trick,
        _all_pass,
        _ace_high,
        _penalty,
        _collected,
        _collected_card_twice,
        _shuffle,
    ],
)
def test_anything_else_to_report_or_unhandled_goes_to_the_python_auditor(spoil: Any) -> None:
    doc = random_record(random.Random(9), 5)
    assert_same(doc)
    spoil(doc)
    assert fast_report(doc) is None
    # and audit_document still audits it, through Python
    try:
        load_record(doc)
    except RecordError:
        return
    assert json.dumps(audit_document(doc)) == python_report(doc)


# -- online hands: a shuffle transcript verified by Python, the rest in C -------------

START = {"points": {"NS": 4, "EW": 2}, "games": {"NS": 1, "EW": 0}}


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: "-".join(map(str, r.deal_pattern)))
def test_online_records_take_the_fast_path_with_the_same_report(ruleset: Ruleset) -> None:
    for seed in range(3):
        # one hand with its start, as the service audits a table's hand; and several
        assert_same(online_record(seed, 1, ruleset=ruleset, start=START, first_pack=seed % 2))
        assert_same(online_record(seed + 10, 6, ruleset=ruleset))


def _seat_seed(doc: dict[str, Any]) -> None:
    doc["hands"][1]["shuffle"]["seats"]["E"]["seed"] = "00" * 32


def _server_seed(doc: dict[str, Any]) -> None:
    doc["hands"][0]["shuffle"]["server"]["seed"] = "11" * 32


def _unrevealed(doc: dict[str, Any]) -> None:
    del doc["hands"][1]["shuffle"]["seats"]["S"]["seed"]


def _deal_number(doc: dict[str, Any]) -> None:
    t = doc["hands"][2]["shuffle"]
    t["deal_number"] = str(int(t["deal_number"]) + 1)


def _other_player(doc: dict[str, Any]) -> None:
    doc["players"]["W"] = "somebody else"


def _two_other_players(doc: dict[str, Any]) -> None:
    doc["players"]["N"] = doc["players"]["S"] = "somebody else"


def _transcript_pattern(doc: dict[str, Any]) -> None:
    doc["hands"][0]["shuffle"]["pattern"] = [6, 7]


def _transcript_dealer(doc: dict[str, Any]) -> None:
    t = doc["hands"][1]["shuffle"]
    t["dealer"] = "N" if t["dealer"] != "N" else "E"


def _transcript_pack(doc: dict[str, Any]) -> None:
    t = doc["hands"][0]["shuffle"]
    t["pack"] = 1 - t["pack"]


def _transcript_table(doc: dict[str, Any]) -> None:
    doc["hands"][0]["shuffle"]["table"] = "another table"


def _transcript_empty(doc: dict[str, Any]) -> None:
    doc["hands"][2]["shuffle"] = {}


def _transcript_not_an_object(doc: dict[str, Any]) -> None:
    doc["hands"][2]["shuffle"] = ["not", "an", "object"]


def _transcript_field(doc: dict[str, Any]) -> None:
    doc["hands"][1]["shuffle"]["x"] = 1


def _swapped_seats(doc: dict[str, Any]) -> None:
    # the other hand's transcript: every commitment opens, but not to this deal
    hs = doc["hands"]
    hs[0]["shuffle"], hs[2]["shuffle"] = hs[2]["shuffle"], hs[0]["shuffle"]


WRONG_TRANSCRIPTS = [
    _seat_seed,
    _server_seed,
    _unrevealed,
    _deal_number,
    _other_player,
    _two_other_players,
    _transcript_pattern,
    _transcript_dealer,
    _transcript_pack,
    _transcript_table,
    _transcript_empty,
    _transcript_not_an_object,
    _transcript_field,
    _swapped_seats,
]


@pytest.mark.parametrize("spoil", WRONG_TRANSCRIPTS)
def test_a_wrong_transcript_is_the_python_auditor_s_finding(spoil: Any) -> None:
    doc = online_record(4, 4, start=START)
    clean = assert_same(doc)
    assert '"SHUFFLE' not in clean
    spoil(doc)
    assert fast_report(doc) is None
    try:
        expected = python_report(doc)
    except RecordError:  # a transcript that is not an object: the schema's error
        with pytest.raises(RecordError):
            audit_document(doc)
        return
    assert '"SHUFFLE_MISMATCH"' in expected
    assert json.dumps(audit_document(doc)) == expected


def test_an_online_hand_with_another_finding_too_goes_to_the_python_auditor() -> None:
    for spoil in (_wrong_gathering, _dealer):
        doc = online_record(5, 3)
        spoil(doc)
        assert fast_report(doc) is None
        assert json.dumps(audit_document(doc)) == python_report(doc)


def test_turned_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = random_record(random.Random(1), 3)
    monkeypatch.setenv("FAIRPLAY_NATIVE", "0")
    assert native.audit_fast(doc, ALPHA) is None
    assert json.dumps(audit_document(doc)) == python_report(doc)


def test_real_bridge_boards_give_the_same_report() -> None:
    for name in ("aba_17901_pairs_2021.pbn", "acbl_1607_pairs_2013-08-10.pbn"):
        text = (PBN_DIR / name).read_text(encoding="latin-1")
        doc, _skipped = import_pbn(text)
        assert_same(doc)


# -- mutations: never a report the Python auditor would not give --------------------


BASE = random_record(random.Random(2026), 4, prepare=stacked(1))
with_collected(BASE)
del BASE["hands"][1]["collected"]  # hand 3 tested against `gathered`, hand 4 `collected`
CARDS = st.sampled_from(sorted(CARD_BY_TEXT))
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 14),
    CARDS,
    st.sampled_from(["N", "E", "S", "W", "NS", "EW", "pass", "grand", "nullo", "H", "x-y"]),
    st.lists(CARDS, min_size=0, max_size=5),
    st.lists(st.integers(1, 13), min_size=0, max_size=7),
)


def mutations(
    base: dict[str, Any], values: st.SearchStrategy[Any], keys: list[str]
) -> st.SearchStrategy[list[Any]]:
    """One or two changes anywhere in ``base``: a field set, deleted or added."""
    return st.lists(
        st.tuples(
            st.sampled_from([p for p in paths(base, limit=None) if p]),
            st.sampled_from(["set", "delete", "add"]),
            values,
            st.sampled_from(keys),
        ),
        min_size=1,
        max_size=2,
    )


def assert_python_report_or_none(base: dict[str, Any], muts: list[Any]) -> None:
    doc = copy.deepcopy(base)
    for path, action, value, key in muts:
        with contextlib.suppress(KeyError, IndexError, TypeError):
            mutate(doc, path, action, value, key)
    fast = fast_report(doc)
    if fast is not None:
        assert schema_accepts(doc), doc
        assert fast == python_report(doc)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(muts=mutations(BASE, values, ["x-ext", "N", "ace_high", "collected", "games"]))
def test_mutated_records_give_the_python_report_or_none(muts: list[Any]) -> None:
    assert_python_report_or_none(BASE, muts)


def test_swapping_any_two_played_cards_never_fools_it() -> None:
    """Every swap of two cards between tricks of one hand: same report or declined."""
    base = random_record(random.Random(77), 3)
    spots = [(t, i) for t in range(13) for i in range(4)]
    rng = random.Random(0)
    for _ in range(150):
        (t1, i1), (t2, i2) = rng.sample(spots, 2)
        doc = copy.deepcopy(base)
        tr = doc["hands"][1]["tricks"]
        tr[t1]["cards"][i1], tr[t2]["cards"][i2] = tr[t2]["cards"][i2], tr[t1]["cards"][i1]
        fast = fast_report(doc)
        if fast is not None:
            assert fast == python_report(doc)


def test_version_says_the_fast_path_is_built(capsys: pytest.CaptureFixture[str]) -> None:
    from audit.cli import main

    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cayenne-fairplay ") and "auditor: native fast path" in out


ONLINE = online_record(2026, 3, start=START)
HEX = st.sampled_from(["00" * 32, "ab" * 32, "", "0" * 63, "zz"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(muts=mutations(ONLINE, st.one_of(values, HEX), ["x-ext", "N", "seed", "player"]))
def test_mutated_online_records_give_the_python_report_or_none(muts: list[Any]) -> None:
    assert_python_report_or_none(ONLINE, muts)
