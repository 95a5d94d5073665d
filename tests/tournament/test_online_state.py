"""An event's state: one function, :func:`audit.tournament.online.apply`, gives each event
of its chain its meaning; :func:`fold` is that function over the chain."""

from __future__ import annotations

from typing import Any

import pytest

from audit.tournament.errors import TournamentError
from audit.tournament.online import ACTIONS, PHASES, apply, chain_of, fold, initial

SPEC = {"name": "Club night", "format": "pairs-duplicate", "tables": 2, "rounds": 1}
ROUND = {"round": 1, "tables": [{"table": 1, "id": "t-1", "boards": [1]}], "bye": None}
ADJUST = {"round": 1, "table": 1, "board": 1, "ns": "average", "ew": "average"}
CHAIN: list[tuple[str, dict[str, Any]]] = [
    ("tournament_create", SPEC | {"not_a_spec_field": 1}),
    ("tournament_registration", {"open": True}),
    ("tournament_beacon", {"source": "club", "round": 7, "randomness": "ab"}),
    ("tournament_remove", {"entrant": "f", "reason": "entered twice"}),
    ("tournament_registration", {"open": False}),
    ("tournament_start", {"pairs": [["a", "b"], ["c", "d"]], "unpaired": ["e"]}),
    ("tournament_deal", {"revealed": ["a", "b"], "withdrawn": [2]}),
    ("tournament_round", ROUND),
    ("tournament_adjust", ADJUST | {"reason": "slow play"}),
    ("tournament_adjust", ADJUST | {"ns": "average-plus", "reason": "on appeal"}),
    ("tournament_withdraw", {"pair": 1, "from_round": 2, "reason": "left"}),
    ("tournament_void_board", {"board": 1, "reason": "fouled"}),
    ("tournament_round_end", {"round": 1, "early": False, "abandoned": []}),
    ("tournament_end", {"service_seed": "00" * 32, "standings_sha256": "11" * 32}),
]
PHASE_AFTER = [
    "created",
    "registration",
    "registration",
    "registration",
    "closed",
    "revealing",
    "playing",
    "playing",
    "playing",
    "playing",
    "playing",
    "playing",
    "playing",
    "over",
]


def test_each_event_moves_the_phase_as_the_spec_orders_them() -> None:
    doc = initial("e-1")
    seen = []
    for kind, body in CHAIN:
        seen.append(apply(doc, kind, body)["phase"])
    assert seen == PHASE_AFTER
    assert [p for n, p in enumerate(seen) if n == 0 or p != seen[n - 1]] == list(PHASES)


def test_fold_is_apply_over_the_chain() -> None:
    doc = initial("e-1")
    for kind, body in CHAIN:
        apply(doc, kind, body)
    assert fold("e-1", CHAIN) == doc
    assert doc["name"] == "Club night" and "not_a_spec_field" not in doc
    assert doc["beacon"] == {"source": "club", "round": 7, "randomness": "ab"}
    assert doc["pair_list"] == [["a", "b"], ["c", "d"]] and doc["unpaired"] == ["e"]
    assert (doc["revealed"], doc["absent"]) == (["a", "b"], [2])
    assert doc["round"] == 1 and doc["rounds_played"][0]["over"] is True
    # an adjusted score given again for the same board replaces the first; both are actions
    assert doc["adjustments"] == [ADJUST | {"ns": "average-plus", "reason": "on appeal"}]
    assert [a["action"] for a in doc["actions"]] == [
        "remove",
        "adjust",
        "adjust",
        "withdraw",
        "void_board",
    ]
    assert doc["removed"] == ["f"]
    assert set(a["action"] for a in doc["actions"]) <= set(ACTIONS)
    assert doc["withdrawn"] == {"1": 2} and doc["voided"] == [1]
    assert (doc["service_seed"], doc["standings_sha256"]) == ("00" * 32, "11" * 32)


def test_apply_keeps_no_reference_to_a_body_it_is_given() -> None:
    body = ADJUST | {"reason": "slow play"}
    doc = apply(fold("e-1", CHAIN[:8]), "tournament_adjust", body)
    body["ns"] = "average-minus"
    assert doc["adjustments"][0]["ns"] == "average" and doc["actions"][-1]["ns"] == "average"


def test_a_row_kept_before_removals_existed_takes_one() -> None:
    doc = fold("e-1", CHAIN[:3])
    del doc["removed"]
    assert apply(doc, "tournament_remove", {"entrant": "f", "reason": "r"})["removed"] == ["f"]


def test_a_chain_opens_with_the_event_s_creation() -> None:
    with pytest.raises(TournamentError, match="opens with 'tournament_registration'"):
        fold("e-1", CHAIN[1:])


def test_an_entrants_own_withdrawal_folds_as_a_removal_before_the_start() -> None:
    doc = fold("e-1", [*CHAIN[:2], ("tournament_leave", {"entrant": "g"})])
    assert doc["removed"] == ["g"] and doc["actions"] == []  # the entrant's, not a ruling
    assert apply(doc, "tournament_leave", {"entrant": "g"})["removed"] == ["g"]  # once
    started = fold("e-1", CHAIN[:6])
    with pytest.raises(TournamentError, match="withdraws before the start"):
        apply(started, "tournament_leave", {"entrant": "a"})


def test_the_state_is_folded_from_the_chain_and_its_entrants_withdrawals_in_log_order() -> None:
    def item(index: int, hand: str, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"index": index, "event": {"table": "e-1", "hand": hand, "type": kind, "body": body}}

    items = [
        item(0, "event", "tournament_create", SPEC),
        item(1, "entrant-g", "tournament_register", {"commitment": "00", "partner": "h"}),
        item(2, "entrant-g", "tournament_leave", {"entrant": "g"}),
        item(3, "event", "tournament_registration", {"open": True}),
        item(4, "entrant-h", "tournament_reveal", {"seed": "00"}),
        {"index": 5, "event": {**item(5, "event", "x", {})["event"], "table": "e-2"}},
    ]
    assert chain_of("e-1", items) == [
        ("tournament_create", SPEC),
        ("tournament_leave", {"entrant": "g"}),
        ("tournament_registration", {"open": True}),
    ]
