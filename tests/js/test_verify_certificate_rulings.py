"""The browser's verifyCertificate (api/static/js/certificate.js) on events the director
ruled on, played by bots on the real service: a pair withdrawn (its tables left unseated,
their boards average minus to it), two withdrawn in different rounds, a withdrawal in an
even Mitchell (the EW pairs' skip), a pair
absent from the deal, every kind of ruling in one event (a removed entrant, a
substitution, a withdrawal, an adjusted score, a voided board, a round ended early), and a
round robin with a withdrawal.

Each bundle passes ``fairplay tournament verify``, and in Node every check the browser
runs passes: its board scores, matchpoints and standings are the certificate's, which
are the Python's. A re-signed certificate that scores an unseated table otherwise, or
leaves it out, fails "board scores" naming the field.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api.client import Client, Identity
from api.tournament_bot import Entrant, TournamentBots
from audit.log.keys import Signer
from audit.log.note import sign as sign_note
from audit.tournament.certificate import note_text
from audit.tournament.movement import mitchell
from tests.api.conftest import Running
from tests.api.helpers import tournament_verify
from tests.api.test_tournaments import BEACON, _play_table
from tests.js.test_verify_certificate import certified_events, tampered_in_node

pytestmark = pytest.mark.xdist_group("certificate_js_rulings")

DUPLICATE = "pairs-duplicate"


def _spec(name: str, tables: int, per_round: int, rounds: int) -> dict[str, Any]:
    return {
        "name": name,
        "format": DUPLICATE,
        "tables": tables,
        "boards_per_round": per_round,
        "rounds": rounds,
    }


def _admin(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.call("POST", path, body, client.admin())


def _doc(client: Client, tid: str) -> dict[str, Any]:
    doc: dict[str, Any] = client.call("GET", f"/v1/tournaments/{tid}")
    return doc


def _play_round(bots: TournamentBots, doc: dict[str, Any]) -> None:
    for t in doc["rounds_played"][-1]["tables"]:
        _play_table(bots, t)


def _started(service: Running, spec: dict[str, Any], pairs: int) -> TournamentBots:
    return TournamentBots.open(service.client(), spec, pairs, random.Random(5), BEACON)


def withdrawn(service: Running) -> str:
    """Three tables, two boards a round: pair 2 (NS) withdrawn from round 2, pair 6 (EW)
    from round 3."""
    bots = _started(service, _spec("Withdrawn", 3, 2, 3), 6)
    client, tid = bots.client, bots.tid
    bots.reveal_all(_doc(client, tid))
    _admin(client, f"/v1/tournaments/{tid}/actions/withdraw", {"pair": 2, "reason": "left"})
    _play_round(bots, _doc(client, tid))
    doc = _doc(client, tid)
    assert doc["round"] == 2, doc["round"]
    _admin(client, f"/v1/tournaments/{tid}/actions/withdraw", {"pair": 6, "reason": "ill"})
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


def even(service: Running) -> str:
    """Four tables (the EW pairs skip a table after round 2): pair 8 (EW) withdrawn from
    round 2."""
    bots = _started(service, _spec("Even", 4, 1, 3), 8)
    client, tid = bots.client, bots.tid
    bots.reveal_all(_doc(client, tid))
    _admin(client, f"/v1/tournaments/{tid}/actions/withdraw", {"pair": 8, "reason": "left"})
    unseated = [s.table for r in mitchell(4, 3)[1:] for s in r.sittings if s.ew + 4 == 8]
    assert len(set(unseated)) == 2  # after the skip it leaves another table than before
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


def absent(service: Running) -> str:
    """Three tables: one player of pair 3 never reveals; the director deals without him
    (his pair absent: scored for nothing, its opponents average)."""
    bots = _started(service, _spec("Absent", 3, 1, 3), 6)
    client, tid = bots.client, bots.tid
    doc = _doc(client, tid)
    silent = doc["pair_list"][2]["players"][0]
    kept = bots.entrants.pop(silent)
    bots.reveal_all(doc)
    bots.entrants[silent] = kept
    _admin(client, f"/v1/tournaments/{tid}/rounds/next", {"round": 1})
    assert _doc(client, tid)["phase"] == "playing"
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


def every_ruling(service: Running) -> str:
    """Every kind of ruling in one event: an entrant removed before the start, then a
    substitution, a withdrawal, an adjusted score, a voided board (played already) and
    round 1 ended early with a table unplayed."""
    client = service.client()
    tid = client.call("POST", "/v1/tournaments", _spec("Ruled", 3, 1, 3), client.admin())["id"]
    base = f"/v1/tournaments/{tid}"
    _admin(client, f"{base}/registration", {"open": True})
    _admin(client, f"{base}/beacon", BEACON)
    bots = TournamentBots(client, tid, {}, random.Random(9), None)
    bots.enter_pairs(1, prefix="gone")
    gone = next(p for p in bots.entrants if bots.entrants[p].ident.signer.name == "gone0a")
    _admin(client, f"{base}/actions/remove", {"entrant": gone, "reason": "no card"})
    bots.enter_pairs(6)
    _admin(client, f"{base}/registration", {"open": False})
    _admin(client, f"{base}/start", {})
    bots.reveal_all(_doc(client, tid))
    doc = _doc(client, tid)
    assert doc["phase"] == "playing" and doc["round"] == 1
    sub = Identity.generate("sub")
    client.register(sub, "substitute")
    out = doc["pair_list"][3]["players"][0]
    _admin(
        client,
        f"{base}/actions/substitute",
        {"pair": 4, "out": out, "in": sub.id} | {"reason": "ill"},
    )
    _admin(client, f"{base}/actions/withdraw", {"pair": 2, "reason": "left"})
    adjust = {"round": 1, "table": 1, "board": 1, "ns": "average-plus", "ew": "average-minus"}
    _admin(client, f"{base}/actions/adjust", adjust | {"reason": "slow play"})
    tables = {t["table"]: t for t in doc["rounds_played"][0]["tables"]}
    _play_table(bots, tables[2])
    _admin(client, f"{base}/actions/void_board", {"board": 2, "reason": "fouled"})
    _play_table(bots, tables[1])
    _admin(client, f"{base}/rounds/end", {"round": 1, "reason": "out of time"})
    bots.entrants[sub.id] = Entrant(sub, "", b"\0" * 32)
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


def robin(service: Running) -> str:
    """A rubber round robin of four pairs, pair 4 withdrawn from round 2."""
    spec = {"name": "Robin", "format": "rubber-round-robin", "pairs": 4, "hands_per_match": 1}
    bots = _started(service, spec, 4)
    client, tid = bots.client, bots.tid
    bots.reveal_all(_doc(client, tid))
    _admin(client, f"/v1/tournaments/{tid}/actions/withdraw", {"pair": 4, "reason": "left"})
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


EVENTS: dict[str, Callable[[Running], str]] = {
    "withdrawn": withdrawn,
    "even": even,
    "absent": absent,
    "every ruling": every_ruling,
    "robin": robin,
}


def _unseated(cert: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """(board index, result index, result) of every result at a table its round did not
    seat."""
    seated = {(r["round"], str(t["table"])) for r in cert["rounds"] for t in r["tables"]}
    return [
        (b, i, x)
        for b, board in enumerate(cert["results"])
        for i, x in enumerate(board["results"])
        if (x["round"], x["table"]) not in seated
    ]


def _resigned(bundle: dict[str, Any], signer: Signer) -> None:
    bundle["note"] = sign_note(note_text(bundle["certificate"]), signer)


def _score_otherwise(bundle: dict[str, Any], signer: Signer) -> str:
    cert = bundle["certificate"]
    b, i, x = next(u for u in _unseated(cert) if u[2]["adjusted"]["ns"] == "average-minus")
    x["adjusted"]["ns"] = "average"
    _resigned(bundle, signer)
    return f'field $.results[{b}].results[{i}].adjusted.ns: certified "average", recomputed "average-minus"'


def _leave_out(bundle: dict[str, Any], signer: Signer) -> str:
    b, i, _ = _unseated(bundle["certificate"])[0]
    results = bundle["certificate"]["results"][b]["results"]
    del results[i]
    _resigned(bundle, signer)
    return f"field $.results[{b}].results.length: certified {len(results)}, recomputed {len(results) + 1}"


class Played:
    def __init__(self, bundles: dict[str, Any], signer: Signer, results: dict[str, Any]) -> None:
        self.bundles = bundles
        self.signer = signer
        self.key = signer.verifier_key()
        self.results = results


TAMPERS = {"scored otherwise": _score_otherwise, "left out": _leave_out}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    tmp = tmp_path_factory.mktemp("rulingsjs")
    bundles, signer = certified_events(tmp, EVENTS)
    results, expected = tampered_in_node(tmp, signer, bundles, "withdrawn", TAMPERS)
    yield Played(bundles, signer, results | {"expected": expected})


@pytest.mark.parametrize("name", list(EVENTS))
def test_the_python_verifier_accepts_the_event(
    played: Played, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = tournament_verify(played.bundles[name], played.key, tmp_path, capsys)
    assert code == 0, text


@pytest.mark.parametrize("name", list(EVENTS))
def test_the_browser_passes_every_check_on_a_ruled_event(played: Played, name: str) -> None:
    result = played.results[name]
    not_passed = {c["check"]: c for c in result["checks"] if c["ok"] is not True}
    assert not [c for c in not_passed.values() if c["ok"] is False], not_passed
    assert set(not_passed) == {"audit"}, not_passed  # the statistical audit: the command's
    assert result["ok"] is True


@pytest.mark.parametrize("name", ["withdrawn", "even", "absent", "every ruling"])
def test_the_event_has_tables_its_rounds_left_unseated(played: Played, name: str) -> None:
    """The case the browser used to get wrong: the certificate scores boards at tables
    no round seated (a withdrawn or absent pair's), and the browser agrees."""
    cert = played.bundles[name]["certificate"]
    unseated = _unseated(cert)
    assert unseated
    owed = {"absent": {"average"}}.get(name, {"average", "average-minus"})
    assert {v for _, _, x in unseated for v in x["adjusted"].values()} <= owed | {"average-plus"}
    scores = next(c for c in played.results[name]["checks"] if c["check"] == "board scores")
    total = sum(len(b["results"]) for b in cert["results"])
    assert scores["detail"].startswith(f"{total} results on {len(cert['results'])} boards")


@pytest.mark.parametrize("name", list(TAMPERS))
def test_an_unseated_tables_score_changed_is_refused(played: Played, name: str) -> None:
    result = played.results[f"tampered: {name}"]
    failed = {c["check"]: c for c in result["checks"] if c["ok"] is False}
    assert list(failed) == ["board scores", "matchpoints", "standings", "standings hash"], failed
    scores = failed["board scores"]
    assert scores["code"] == "CERTIFICATE_MISMATCH"
    assert played.results["expected"][name] in scores["detail"], scores["detail"]
