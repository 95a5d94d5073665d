"""Every score explained: the scorer's lines, checked against the rules digest."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from audit.auditor import audit_document
from audit.record.codec import load_record
from audit.rules.cards import Seat, Side
from audit.rules.contract import Contract
from audit.rules.explain import Explanation, LineKind, RevokeAt
from audit.rules.scoring import HandFacts, score_hand
from audit.rules.sitting import score_record

from .helpers import worked_example

NS, EW = Side.NS, Side.EW
K = LineKind


def lines(
    facts: HandFacts, points: tuple[int, int] = (0, 0), games: tuple[int, int] = (0, 0)
) -> Explanation:
    return score_hand(points, games, facts).explanation


def test_the_books_worked_example_line_by_line() -> None:
    """The digest's worked example: A-B = E-W, Y-Z = N-S; start A-B 6, Y-Z 8."""
    scored = score_record(load_record(worked_example()))
    one, two, three = (s.explanation for s in scored.scores if s is not None)
    # 1. Y-Z take 8 tricks (2 x 4 = 8 -> 16: a double, A-B being at 6; 6 carried).
    #    A-B's three honours do not count: Y-Z went out by cards.
    assert [(x.kind, x.side, x.amount) for x in one] == [
        (K.TRICKS, NS, 8),
        (K.GAME, NS, 2),
        (K.HONOURS, EW, 0),
    ]
    assert "2 over the book \u00d7 4 = 8" in one[0].reason
    assert "reach 16" in one[1].reason and "a double" in one[1].reason
    assert "E-W had 6" in one[1].reason and "6 carried" in one[1].reason
    assert "E-W held 3 trump honours" in one[2].reason
    assert "E-W cannot score honours, N-S went out by cards" in one[2].reason
    # 2. A-B call grand and take 10 tricks (4 x 8 = 32): a double (Y-Z at 6), then two
    #    quadruples; 2 carried.
    assert [(x.kind, x.side, x.amount) for x in two] == [
        (K.TRICKS, EW, 32),
        (K.GAME, EW, 2),
        (K.GAME, EW, 4),
        (K.GAME, EW, 4),
        (K.HONOURS, None, 0),
    ]
    assert "4 over the book \u00d7 8 = 32" in two[0].reason
    assert "N-S had 6" in two[1].reason and "a double" in two[1].reason
    assert "a quadruple" in two[2].reason and "a quadruple" in two[3].reason
    assert two[3].reason.endswith("2 carried")
    assert "grand has no trumps" in two[4].reason
    # 3. Spades (x3); Y-Z take 12 tricks holding four honours: (6 + 4) x 3 = 30: a
    #    triple (A-B at 2), two quadruples, the rubber (+8) and a little slam (+4).
    assert [(x.kind, x.side, x.amount) for x in three] == [
        (K.TRICKS, NS, 18),
        (K.GAME, NS, 3),
        (K.HONOURS, NS, 12),
        (K.GAME, NS, 4),
        (K.GAME, NS, 4),
        (K.RUBBER, NS, 8),
        (K.LITTLE_SLAM, NS, 4),
        (K.DROPPED, None, 0),
    ]
    assert "6 over the book \u00d7 3 = 18" in three[0].reason
    assert "a triple" in three[1].reason and "E-W had 2" in three[1].reason
    assert "N-S held 4 trump honours (E-W 1): 4 \u00d7 3 = 12" in three[2].reason
    assert "little slam, 4" in three[6].reason
    # Sheet: Y-Z 2 0 0 0 3 4 4 8 4 = 25; A-B 0 2 4 4 0 0 0 = 10: the sheet's entries are
    # the explanation's games, rubber and slam, in order.
    entries = [x for x in (*one, *two, *three) if x.kind in (K.GAME, K.RUBBER, K.LITTLE_SLAM)]
    assert sum(x.amount for x in entries if x.side == NS) == 25
    assert sum(x.amount for x in entries if x.side == EW) == 10


def test_the_report_carries_the_explanation_and_the_claim() -> None:
    report = audit_document(worked_example())
    first = report["hands"][0]
    assert first["claimed"] == first["score"]
    assert first["explanation"][0] == {
        "kind": "tricks",
        "side": "NS",
        "amount": 8,
        "reason": "N-S took 8 tricks: 2 over the book \u00d7 4 = 8",
    }


def test_the_default_penalty_and_the_revoking_sides_cap() -> None:
    facts = HandFacts(
        Contract.H, 4, (9, 4), revokes=((EW, "tricks"),), revokes_at=(RevokeAt(5, Seat.E, False),)
    )
    out = lines(facts, points=(0, 8))
    assert (out[0].kind, out[0].side, out[0].amount) == (K.PENALTY_TRICKS, EW, 3)
    assert "E (E-W) revoked at trick 5" in out[0].reason
    assert "no penalty recorded: the default, tricks" in out[0].reason
    assert (out[1].kind, out[1].side, out[1].amount) == (K.CAP, EW, 0)
    assert "cannot win a game in this hand" in out[1].reason
    assert "9 tricks, 12 after the penalty" in out[2].reason


def test_a_recorded_add_penalty_capped_by_the_revoke() -> None:
    facts = HandFacts(
        Contract.S, 1, (6, 7), revokes=((NS, "add"),), revokes_at=(RevokeAt(2, Seat.S, True),)
    )
    out = lines(facts, points=(0, 8))
    assert (out[0].kind, out[0].side, out[0].amount) == (K.PENALTY_ADD, EW, 3)
    assert "the penalty recorded: add" in out[0].reason
    assert [x.kind for x in out].count(K.GAME) == 1  # E-W 8 + 3: the game is won


def test_a_revoking_side_stops_at_9_and_says_what_is_lost() -> None:
    facts = HandFacts(Contract.H, 2, (11, 2), revokes=((NS, "deduct"),))
    deduct, notice, tricks, cap = lines(facts, points=(5, 0))[:4]
    assert (deduct.kind, deduct.amount) == (K.PENALTY_DEDUCT, 5)  # 3 x 2 = 6, but only 5 held
    assert "5 \u2192 0" in deduct.reason
    assert (notice.kind, notice.amount) == (K.CAP, 0)
    assert (tricks.kind, tricks.amount) == (K.TRICKS, 10)
    assert (cap.kind, cap.side, cap.amount) == (K.CAP, NS, 1)
    assert "capped at 9" in cap.reason and "revoked" in cap.reason


def test_honours_capped_at_9_without_the_odd_trick() -> None:
    out = lines(HandFacts(Contract.C, 2, (7, 6), honours=(1, 4)), points=(0, 5))
    honours, cap = out[1], out[2]
    assert (honours.kind, honours.side, honours.amount) == (K.HONOURS, EW, 8)
    assert (cap.kind, cap.side, cap.amount) == (K.CAP, EW, 4)
    assert "did not win the odd trick" in cap.reason and "capped at 9" in cap.reason


def test_a_slam_denied_to_a_side_that_revoked() -> None:
    out = lines(HandFacts(Contract.H, 1, (13, 0), revokes=((NS, "deduct"),)))
    (slam,) = [x for x in out if x.kind == K.SLAM]
    assert slam.amount == 0 and "N-S revoked" in slam.reason


@given(
    contract=st.sampled_from(list(Contract)),
    unit=st.sampled_from([1, 2, 3, 4, 8]),
    ns=st.integers(0, 13),
    h=st.integers(0, 5),
    before=st.tuples(st.integers(0, 9), st.integers(0, 9)),
    games=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    revokes=st.lists(
        st.tuples(st.sampled_from([NS, EW]), st.sampled_from(["tricks", "deduct", "add"])),
        max_size=2,
    ),
)
def test_the_explanation_is_the_score(
    contract: Contract,
    unit: int,
    ns: int,
    h: int,
    before: tuple[int, int],
    games: tuple[int, int],
    revokes: list[tuple[Side, str]],
) -> None:
    """Games, the rubber and slams in the lines are exactly the score's."""
    honours = (h, 5 - h) if contract.has_trump else (0, 0)
    facts = HandFacts(contract, unit, (ns, 13 - ns), honours, tuple(revokes))
    r = score_hand(before, games, facts)
    got = [(x.side, x.amount) for x in r.explanation if x.kind == K.GAME]
    assert got == [(g.side, g.value) for g in r.score.games]
    sheet = [
        (x.side, x.kind.value, x.amount)
        for x in r.explanation
        if x.kind in (K.RUBBER, K.SLAM, K.LITTLE_SLAM) and x.amount
    ]
    assert sheet == [(b.side, b.kind, b.points) for b in r.score.bonuses]


def test_text_and_html_show_the_steps_the_claim_and_alpha() -> None:
    from audit.report.html import render_html
    from audit.report.text import render_text

    doc = worked_example()
    doc["hands"] = doc["hands"][:1]
    doc["hands"][0]["claimed"]["points"] = {"NS": 6, "EW": 8}
    report = audit_document(doc, alpha=0.01)
    text = render_text(report)
    assert "    - E-W held 3 trump honours (N-S 2)" in text
    assert (
        "    claimed: marker N-S 6, E-W 8; games N-S 2; bonuses none; the rules give "
        "marker N-S 6, E-W 0; games N-S 2; bonuses none (SCORE_MISMATCH)"
    ) in text
    assert "alpha = 0.01 is the false-alarm level" in text
    html = render_html(report, doc)
    assert (
        "<li>N-S reach 16: game, a double (2): E-W had 6, now turned down; 6 carried</li>" in html
    )
    assert '<p data-role="claim" class="sev-error">Claimed: marker N-S 6, E-W 8' in html
    assert 'data-role="alpha">(alpha = 0.01 is the false-alarm level' in html
