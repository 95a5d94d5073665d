"""The browser's verifyCertificate (api/static/js/certificate.js) on rubber round robins
played by bots on the real service, several hands a match (one under seven_is double):
each match's value and each hand's start come from the browser's rubber scorer
(api/static/js/rubber.js), and they are the Python's: the certificate's values, which
``fairplay tournament verify`` accepts and :func:`audit.tournament.standings.match_value`
gives from the bundle's records. A re-signed certificate with another match value fails
"board scores"; a record whose start is another score, its end re-signed over it, fails
"records" (the browser took the start from the record before)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api.tournament_bot import TournamentBots
from audit.log.keys import Signer
from audit.log.note import sign as sign_note
from audit.record.codec import load_record
from audit.tournament.certificate import note_text
from audit.tournament.standings import match_value
from tests.api.conftest import Running
from tests.api.forge import Forger
from tests.api.helpers import tournament_verify
from tests.api.test_tournaments import BEACON
from tests.js.test_verify_certificate import certified_events, tampered_in_node

pytestmark = pytest.mark.xdist_group("certificate_js_robin")

ROBIN = "rubber-round-robin"
EVENTS = {
    "three pairs, ten hands a match": (
        {"pairs": 3, "hands_per_match": 10, "ruleset": {"seven_is": "double"}},
        None,
    ),
    "four pairs, a withdrawal": ({"pairs": 4, "hands_per_match": 4}, 4),
}


def _value_tampered(bundle: dict[str, Any], signer: Signer) -> str:
    cert = bundle["certificate"]
    i, m = next((i, m) for i, m in enumerate(cert["results"]) if m["ns_value"])
    m["ns_value"] += 1
    bundle["note"] = sign_note(note_text(cert), signer)
    return (
        f"field $.results[{i}].ns_value: certified {m['ns_value']}, recomputed {m['ns_value'] - 1}"
    )


def _start_tampered(bundle: dict[str, Any], signer: Signer) -> str:
    """An operator who re-signs the hand's end over the changed record, and certifies
    it: only the players' signed events say otherwise."""
    f = Forger(bundle, signer)
    n, r = next(
        (n, r)
        for n, r in enumerate(f.records())
        if r["hand"] > 1 and r["record"]["start"]["points"] != {"NS": 0, "EW": 0}
    )
    points = r["record"]["start"]["points"]
    points["NS"] += 1 if points["NS"] < 9 else -1  # a marker stays 0 to 9
    bundle.clear()
    bundle.update(f.finish())
    return f"table {r['table']} hand {r['hand']}, field bundle.records[{n}].record.start.points.NS"


TAMPERS = {"a match value": _value_tampered, "a hand's start": _start_tampered}


class Played:
    def __init__(self, bundles: dict[str, Any], key: str, results: dict[str, Any]) -> None:
        self.bundles = bundles
        self.key = key
        self.results = results


def _robin(name: str, spec: dict[str, Any], withdrawn: int | None) -> Callable[[Running], str]:
    def make(service: Running) -> str:
        client = service.client()
        body = {"name": name, "format": ROBIN, **spec}
        bots = TournamentBots.open(client, body, spec["pairs"], random.Random(3), BEACON)
        if withdrawn is not None:
            bots.reveal_all(client.call("GET", f"/v1/tournaments/{bots.tid}"))
            path = f"/v1/tournaments/{bots.tid}/actions/withdraw"
            client.call("POST", path, {"pair": withdrawn, "reason": "left"}, client.admin())
        assert bots.run(timeout=300)["phase"] == "over"
        return bots.tid

    return make


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    tmp = tmp_path_factory.mktemp("robinjs")
    makers = {name: _robin(name, spec, out) for name, (spec, out) in EVENTS.items()}
    bundles, signer = certified_events(tmp, makers)
    base = "three pairs, ten hands a match"
    results, expected = tampered_in_node(tmp, signer, bundles, base, TAMPERS)
    yield Played(bundles, signer.verifier_key(), results | {"expected": expected})


@pytest.mark.parametrize("name", list(EVENTS))
def test_the_browser_recomputes_the_pythons_match_values(
    played: Played, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = played.bundles[name]
    code, text = tournament_verify(bundle, played.key, tmp_path, capsys)
    assert code == 0, text
    result = played.results[name]
    not_passed = {c["check"]: c for c in result["checks"] if c["ok"] is not True}
    assert set(not_passed) == {"audit"}, not_passed
    cert = bundle["certificate"]
    # the certified values are match_value over each table's records, hand by hand
    hands: dict[tuple[int, str], list[dict[str, Any]]] = {}
    tables = {t["id"]: (r["round"], str(t["table"])) for r in cert["rounds"] for t in r["tables"]}
    for r in sorted(bundle["records"], key=lambda r: (r["table"], r["hand"])):
        hands.setdefault(tables[r["table"]], []).append(r["record"]["hands"][0])
    for m in cert["results"]:
        one = {k: v for k, v in bundle["records"][0]["record"].items() if k != "start"}
        record = load_record(one | {"hands": hands[(m["round"], m["table"])]})
        assert m["ns_value"] == match_value(record), m
        assert m["hands"] == len(hands[(m["round"], m["table"])])
    scores = {c["check"]: c for c in result["checks"]}["board scores"]
    total = sum(m["hands"] for m in cert["results"])
    assert scores["detail"].startswith(f"{len(cert['results'])} matches of {total} hands")
    assert any(m["ns_value"] for m in cert["results"])  # games were won


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_tampered_rubber_value_is_refused(played: Played, name: str) -> None:
    result = played.results[f"tampered: {name}"]
    failed = [c for c in result["checks"] if c["ok"] is False]
    assert failed, result
    first = failed[0]
    assert first["check"] == ("board scores" if name == "a match value" else "records"), failed
    assert played.results["expected"][name] in first["detail"], first["detail"]
