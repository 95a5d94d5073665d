"""The browser's verifyCertificate (api/static/js/certificate.js) on events played on the
real service, against every tamper case the Python verifier's tests refuse.

Bots play a Mitchell (with a director's adjustment), a round robin and a one-table event
once for the module; each case is made by the Python tests' own generators
(tests/api/test_tournament_certificate.py: TAMPERS and JOBS_TAMPERS;
tests/api/test_certificate_forgery.py: FORGERIES and its chain forgeries, re-signed with
the log key by tests/api/forge.py), written to a file, and one Node process runs the
page's module over all of them. The genuine bundles, and the forger's re-signing alone,
pass every check the browser runs; every tamper case fails a check whose message names
what the Python verifier names.
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from audit.log.events import event_hash, sign_event
from audit.log.keys import Signer
from tests.api.conftest import Running
from tests.api.forge import Forger
from tests.api.test_certificate_forgery import (
    CLAIM_FORGERIES,
    FORGERIES,
    WITHDRAWAL_FORGERIES,
    Events,
    _foreign_chain,
    house_play_without_expiry,
)
from tests.api.test_tournament_certificate import (
    JOBS_TAMPERS,
    MITCHELL,
    ROBIN,
    SMALL,
    _start,
    _stop,
    play,
)
from tests.js.test_js import ROOT, node

pytestmark = pytest.mark.xdist_group("certificate_js")

Case = Callable[[Events], tuple[Any, str]]
"""A case: the bundle to check and the text a failed check must hold ('' = passes),
after the error code that check must have when the text starts with one."""


def _tamper(name: str) -> Case:
    def make(ev: Events) -> tuple[Any, str]:
        bundle = copy.deepcopy(ev.bundles["mitchell"])
        return bundle, JOBS_TAMPERS[name](bundle, ev.signer)

    return make


def _forgery(kind: str, name: str) -> Case:
    def make(ev: Events) -> tuple[Any, str]:
        f = Forger(ev.bundles[kind], ev.signer)
        table = {"claimed": CLAIM_FORGERIES, "withdrawn": WITHDRAWAL_FORGERIES}.get(kind, FORGERIES)
        expected = table[name](f)
        return f.finish(), expected

    return make


def _foreign(ev: Events) -> tuple[Any, str]:
    f, table = _foreign_chain(ev)
    return f.finish(), f"CHAIN_OUTSIDE_EVENT table {table} hand 1"


def _foreign_in_a_round(ev: Events) -> tuple[Any, str]:
    """As test_another_events_hand_chain_listed_in_a_round_is_refused."""
    f, table = _foreign_chain(ev)
    rounds = [e for e in f.chain(f.tid, "event") if e["type"] == "tournament_round"]
    sitting = copy.deepcopy(rounds[0]["body"]["tables"][0])
    other_open = next(e for e in f.events if (e["table"], e["hand"]) == (table, "1"))
    sitting |= {"id": table, "table": 9, "seats": other_open["body"]["seats"]}
    rounds[0]["body"]["tables"].append(sitting)
    f.mark(rounds[0])
    return f.finish(), "CHAIN_OUTSIDE_EVENT not a board of round 1"


def _seating(ev: Events) -> tuple[Any, str]:
    """As test_a_round_seating_rewritten_is_refused."""
    f = Forger(ev.bundles["mitchell"], ev.signer)
    rnd = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_round")
    seats = rnd["body"]["tables"][0]["seats"]
    seats["N"], seats["S"] = seats["S"], seats["N"]
    f.mark(rnd)
    return f.finish(), "CHAIN_OUTSIDE_EVENT the round seats"


def _renumbered(ev: Events) -> tuple[Any, str]:
    """As test_pairs_renumbered_in_a_re_signed_start_are_refused (the Python names the
    movement's pairs; the browser names the pairs the start makes)."""
    f = Forger(ev.bundles["mitchell"], ev.signer)
    start = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_start")
    pairs = start["body"]["pairs"]
    pairs[0], pairs[1] = pairs[1], pairs[0]
    f.mark(start)
    return f.finish(), "CHAIN_OUTSIDE_EVENT the start and the substitutions make pairs"


def _partners(ev: Events) -> tuple[Any, str]:
    """As test_partners_exchanged_in_a_re_signed_start_are_refused."""
    f = Forger(ev.bundles["mitchell"], ev.signer)
    start = next(e for e in f.chain(f.tid, "event") if e["type"] == "tournament_start")
    pairs = start["body"]["pairs"]
    pairs[0][1], pairs[1][1] = pairs[1][1], pairs[0][1]
    f.mark(start)
    return f.finish(), "CHAIN_OUTSIDE_EVENT pair 1: "


def _house(kind: str) -> Case:
    """As test_a_server_signed_card_for_a_seat_whose_clock_never_ran_out_is_refused."""

    def make(ev: Events) -> tuple[Any, str]:
        f = Forger(ev.bundles[kind], ev.signer)
        expected = house_play_without_expiry(f)
        return f.finish(), expected

    return make


def _paired_leave(ev: Events) -> tuple[Any, str]:
    """As test_a_paired_entrants_withdrawal_forged_by_the_log_key_is_refused."""
    f = Forger(ev.bundles["other"], ev.signer)
    me = f.bundle["certificate"]["pairs"][0]["players"][0]
    chain = f.chain(f.tid, f"entrant-{me}")
    fresh = {k: v for k, v in chain[-1].items() if k != "signature"}
    fresh |= {
        "seq": len(chain),
        "prev": event_hash(chain[-1]),
        "type": "tournament_leave",
        "actor": "server",
        "body": {"entrant": me},
    }
    f.bundle["events"].append({"index": 0, "event": sign_event(fresh, f.signer)})
    return f.finish(recompute=False), "CHAIN_OUTSIDE_EVENT signed by server, not by the entrant"


def _genuine(kind: str) -> Case:
    return lambda ev: (ev.bundles[kind], "")


def _resigned(kind: str) -> Case:
    return lambda ev: (Forger(ev.bundles[kind], ev.signer).finish(), "")


CASES: dict[str, Case] = {
    "genuine mitchell": _genuine("mitchell"),
    "genuine robin": _genuine("robin"),
    "genuine one table": _genuine("other"),
    "the forger's re-signing alone, mitchell": _resigned("mitchell"),
    "the forger's re-signing alone, robin": _resigned("robin"),
    **{f"tamper: {name}": _tamper(name) for name in JOBS_TAMPERS},
    **{
        f"forgery ({kind}): {name}": _forgery(kind, name)
        for kind in ("mitchell", "robin")
        for name in FORGERIES
    },
    "genuine claimed": _genuine("claimed"),
    **{f"forgery (claimed): {name}": _forgery("claimed", name) for name in CLAIM_FORGERIES},
    "genuine withdrawn": _genuine("withdrawn"),
    **{
        f"forgery (withdrawn): {name}": _forgery("withdrawn", name) for name in WITHDRAWAL_FORGERIES
    },
    "forgery: a paired entrant's withdrawal signed by the log key": _paired_leave,
    "forgery: another event's hand chain": _foreign,
    "forgery: another event's hand chain listed in a round": _foreign_in_a_round,
    "forgery: a round's seating rewritten": _seating,
    "forgery: pairs renumbered in the start": _renumbered,
    "forgery: partners exchanged in the start": _partners,
    "forgery (mitchell): a house card without the seat's expiry": _house("mitchell"),
    "forgery (robin): a house card without the seat's expiry": _house("robin"),
    "not a bundle": lambda ev: ({"format": "x"}, "bundle.format: must be"),
}


class Checked:
    def __init__(self, results: dict[str, dict[str, Any]], expected: dict[str, str]) -> None:
        self.results = results
        self.expected = expected


def verify_in_node(tmp: Path, key: str, bundles: list[Any]) -> list[dict[str, Any]]:
    """verifyCertificateDetailed's result for each bundle, in one Node process."""
    (tmp / "key.txt").write_text(key)
    paths = []
    for n, bundle in enumerate(bundles):
        (tmp / f"case-{n}.json").write_text(json.dumps(bundle))
        paths.append(str(tmp / f"case-{n}.json"))
    done = subprocess.run(
        [node(), "tests/js/verify_certificate.mjs", str(tmp / "key.txt"), *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(bundles), done.stderr
    return lines


def certified_events(
    folder: Path, events: Mapping[str, Callable[[Running], str]]
) -> tuple[dict[str, Any], Signer]:
    """Each event played on one fresh service (its maker returns the event's id), and its
    certificate bundle, by name; the log's signer."""
    service = _start(folder / "service")
    try:
        client = service.client()
        tids = {name: make(service) for name, make in events.items()}
        bundles = {
            k: client.call_when_ready("GET", f"/v1/tournaments/{t}/certificate/bundle")
            for k, t in tids.items()
        }
        signer: Signer = service.app.extensions["fairplay"].hand_log.signer
    finally:
        _stop(service)
    return bundles, signer


def tampered_in_node(
    folder: Path,
    signer: Signer,
    bundles: dict[str, Any],
    base: str,
    tampers: Mapping[str, Callable[[dict[str, Any], Signer], str]],
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """verifyCertificateDetailed's result for each bundle and for each tamper of bundle
    ``base`` (named "tampered: NAME"), in one Node process; and the text each tamper's
    failed check must hold."""
    cases = dict(bundles)
    expected = {}
    for name, tamper in tampers.items():
        forged = copy.deepcopy(bundles[base])
        expected[name] = tamper(forged, signer)
        cases[f"tampered: {name}"] = forged
    lines = verify_in_node(folder, signer.verifier_key(), list(cases.values()))
    return dict(zip(cases, lines, strict=True)), expected


# Not the forgery tests' fixture: the tampers of test_tournament_certificate are made for
# its Mitchell with a director's adjustment (its standings differ), played here once.
@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checked]:
    tmp = tmp_path_factory.mktemp("certjs")
    bundles, signer = certified_events(
        tmp,
        {
            "mitchell": lambda service: play(service, MITCHELL, 4, True),
            "robin": lambda service: play(service, ROBIN, 3, False),
            "other": lambda service: play(service, SMALL, 2, False),
            "claimed": lambda service: play(service, SMALL, 2, False, concede_after=9),
            "withdrawn": lambda service: play(service, SMALL, 2, False, leaving=1),
        },
    )
    events = Events(bundles, signer)
    expected = {}
    made = []
    for name, make in CASES.items():
        bundle, expected[name] = make(events)
        made.append(bundle)
    lines = verify_in_node(tmp, events.key, made)
    yield Checked(dict(zip(CASES, lines, strict=True)), expected)


@pytest.mark.parametrize("name", list(CASES))
def test_the_browser_accepts_the_real_bundles_and_refuses_every_tamper_case(
    checked: Checked, name: str
) -> None:
    result, expected = checked.results[name], checked.expected[name]
    failed = [c for c in result["checks"] if c["ok"] is False]
    if not expected:
        assert result["ok"] and not failed, failed
        not_here = {c["check"] for c in result["checks"] if c["ok"] is None}
        assert not_here <= {"audit", "board scores", "matchpoints"}, not_here
        assert "audit" in not_here
        return
    assert not result["ok"]
    head, _, rest = expected.partition(" ")
    code, text = (head, rest) if head.isupper() and "_" in head else (None, expected)
    hits = [c for c in failed if text in c["detail"] and (not code or c.get("code") == code)]
    assert hits, (expected, failed)
