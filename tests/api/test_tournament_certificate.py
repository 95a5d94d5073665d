"""The tournament certificate: bots play a small Mitchell and a small round robin on the
real HTTP service, the certificate bundle verifies offline with ``fairplay tournament
verify``, and every tampering fails with exit 1 naming the difference
(docs/tournaments.md, "The certificate")."""

from __future__ import annotations

import base64
import copy
import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from api import faults
from api.certificate import RETRY_AFTER
from api.tournament_bot import TournamentBots
from audit.cli import main as audit_main
from audit.errors import FairplayError
from audit.log.keys import Signer, generate_signer
from audit.log.note import sign as sign_note
from audit.native import available as native_available
from audit.tournament.certificate import certify, note_text

from .conftest import Running, _drop_schema, _pg_schema_url, start_service, stop_service

# one worker plays the two events once for every test of the module (make test's xdist)
pytestmark = pytest.mark.xdist_group("tournament_certificate")

BEACON = {"source": "test-beacon", "round": 7, "randomness": "cd" * 32}
MITCHELL = {
    "name": "Cert pairs",
    "format": "pairs-duplicate",
    "tables": 2,
    "boards_per_round": 1,
    "rounds": 2,
}
ROBIN = {"name": "Cert RR", "format": "rubber-round-robin", "pairs": 3, "hands_per_match": 1}


def _admin(client: Any, method: str, path: str, body: Any = None) -> Any:
    return client.call(method, path, body if body is not None else {}, client.admin())


# the tests' service, as make_service starts it (the certificate modules import these names)
_start = start_service
_stop = stop_service


def play(
    service: Running,
    body: dict[str, Any],
    pairs: int,
    adjust: bool,
    concede_after: int | None = None,
    leaving: int = 0,
) -> str:
    """Bots play the event ``body``; with ``concede_after``, every hand ends with a claim
    after that many tricks, which the adversaries accept; ``leaving`` entrants more
    enter and withdraw before the start."""
    client = service.client()
    bots = TournamentBots.open(client, body, pairs, random.Random(11), BEACON, leaving=leaving)
    bots.concede_after = concede_after
    tid = bots.tid
    if adjust:
        bots.reveal_all(client.call("GET", f"/v1/tournaments/{tid}"))
        action = {"round": 1, "table": 1, "board": 1, "ns": "average-plus", "ew": "average"}
        _admin(client, "POST", f"/v1/tournaments/{tid}/actions/adjust", action | {"reason": "slow"})
    assert bots.run(timeout=300)["phase"] == "over"
    return tid


class Played:
    def __init__(self, service: Running, tids: dict[str, str]) -> None:
        self.service = service
        self.tids = tids
        self.signer: Signer = service.app.extensions["fairplay"].hand_log.signer
        self.key = self.signer.verifier_key()
        client = service.client()
        self.bundles = {
            k: client.call_when_ready("GET", f"/v1/tournaments/{t}/certificate/bundle")
            for k, t in tids.items()
        }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    service = _start(tmp_path_factory.mktemp("cert"))
    try:
        tids = {
            "mitchell": play(service, MITCHELL, 4, True),
            "robin": play(service, ROBIN, 3, False),
        }
        yield Played(service, tids)
    finally:
        _stop(service)


def verify(
    bundle: Any, key: str, tmp: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    path = tmp / "bundle.json"
    path.write_text(json.dumps(bundle) if not isinstance(bundle, str) else bundle)
    capsys.readouterr()
    code = audit_main(["tournament", "verify", str(path), "--key", key, *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


def resign(bundle: dict[str, Any], signer: Signer) -> dict[str, Any]:
    """A service that certified other values, under its own key."""
    bundle["note"] = sign_note(note_text(bundle["certificate"]), signer)
    return bundle


@pytest.mark.parametrize("kind", ["mitchell", "robin"])
def test_the_certificate_verifies_offline(
    played: Played, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verify(played.bundles[kind], played.key, tmp_path, capsys)
    assert code == 0, out
    assert f"tournament {played.tids[kind]}: certificate verified" in out
    cert = played.bundles[kind]["certificate"]
    assert cert["format"] == "cayenne-tournament-certificate/1"
    assert all(h["last"] == "end" and h["verdict"] == "clean" for h in cert["hands"])
    # the GET route serves the same certificate and note
    got = played.service.client().call("GET", f"/v1/tournaments/{played.tids[kind]}/certificate")
    assert got["certificate"] == cert and got["note"] == played.bundles[kind]["note"]


def test_director_actions_are_in_the_certificate(played: Played) -> None:
    cert = played.bundles["mitchell"]["certificate"]
    assert [a["action"] for a in cert["actions"]] == ["adjust"]
    assert cert["actions"][0]["reason"] == "slow"
    board1 = next(b for b in cert["results"] if b["board"] == 1)
    adjusted = [r for r in board1["results"] if r.get("adjusted")]
    assert adjusted and adjusted[0]["adjusted"] == {"ns": "average-plus", "ew": "average"}


def _hand_with_board(cert: dict[str, Any]) -> int:
    return next(i for i, h in enumerate(cert["hands"]) if "board" in h)


def tamper_card(b: dict[str, Any], s: Signer) -> str:
    rec = b["records"][0]["record"]["hands"][0]
    order = rec["dealt_order"]
    order[0], order[1] = order[1], order[0]
    return "dealt_order[0]: certified"


def tamper_result(b: dict[str, Any], s: Signer) -> str:
    played = [r for x in b["certificate"]["results"] for r in x["results"] if r["ns_score"]]
    played[0]["ns_score"] += 10
    resign(b, s)
    return "ns_score: certified"


def tamper_matchpoint(b: dict[str, Any], s: Signer) -> str:
    r = b["certificate"]["results"][0]["results"][0]
    r["ns_matchpoints"] = "99.0"
    resign(b, s)
    return "ns_matchpoints"


def tamper_standing(b: dict[str, Any], s: Signer) -> str:
    b["certificate"]["standings"][0]["percentage"] = "100.0"
    resign(b, s)
    return "percentage"


def tamper_drop(b: dict[str, Any], s: Signer) -> str:
    ends = [i for i, e in enumerate(b["events"]) if e["event"]["type"] == "end"]
    del b["events"][ends[-1]]
    return "field $.hands["


def tamper_drop_middle(b: dict[str, Any], s: Signer) -> str:
    plays = [i for i, e in enumerate(b["events"]) if e["event"]["type"] == "play"]
    del b["events"][plays[3]]
    return "seq"


def tamper_reorder(b: dict[str, Any], s: Signer) -> str:
    ev = b["events"]
    ev[4], ev[5] = ev[5], ev[4]
    return "log order"


def tamper_key(b: dict[str, Any], s: Signer) -> str:
    resign(b, generate_signer(s.name))
    return "note"


def tamper_deal_inputs(b: dict[str, Any], s: Signer) -> str:
    b["certificate"]["deal_inputs"]["entrants"][0]["seed"] = "00" * 32
    resign(b, s)
    return "deal_inputs.entrants[0].seed"


TAMPERS: dict[str, Callable[[dict[str, Any], Signer], str]] = {
    "card": tamper_card,
    "result": tamper_result,
    "matchpoint": tamper_matchpoint,
    "standing": tamper_standing,
    "dropped end": tamper_drop,
    "dropped play": tamper_drop_middle,
    "reordered": tamper_reorder,
    "other key": tamper_key,
    "deal inputs": tamper_deal_inputs,
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_tampered_bundle_fails_with_the_difference_named(
    played: Played, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = copy.deepcopy(played.bundles["mitchell"])
    expected = TAMPERS[name](bundle, played.signer)
    code, out = verify(bundle, played.key, tmp_path, capsys)
    assert code == 1, out
    assert "FAILED" in out and expected in out, out


def test_an_unreadable_bundle_exits_2(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert verify("{not json", played.key, tmp_path, capsys)[0] == 2
    assert verify({"format": "x"}, played.key, tmp_path, capsys)[0] == 2


def test_the_happy_path_on_postgresql(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, schema = _pg_schema_url(pg_url)
    service = _start(tmp_path / "pg", url)
    try:
        tid = play(service, MITCHELL, 4, False)
        bundle = service.client().call_when_ready(
            "GET", f"/v1/tournaments/{tid}/certificate/bundle"
        )
        key = service.app.extensions["fairplay"].hand_log.signer.verifier_key()
        code, out = verify(bundle, key, tmp_path, capsys)
        assert code == 0, out
    finally:
        _stop(service)
        _drop_schema(pg_url, schema)


def test_the_certificates_follow_the_shipped_schema(played: Played) -> None:
    from audit.tournament.certificate import CertificateUnreadable, check_schema

    for b in played.bundles.values():
        check_schema(b["certificate"])
    broken = copy.deepcopy(played.bundles["robin"]["certificate"])
    del broken["standings"]
    with pytest.raises(CertificateUnreadable, match="standings"):
        check_schema(broken)


def test_a_finished_events_bundle_is_computed_once_and_stored(played: Played) -> None:
    tid = played.tids["mitchell"]
    client = played.service.client()
    path = f"/v1/tournaments/{tid}/certificate/bundle"
    first, second = client.raw("GET", path), client.raw("GET", path)
    assert first[0] == second[0] == 200 and first[2] == second[2]  # the same bytes
    conn = played.service.app.extensions["fairplay"].db.connection()
    rows = conn.all("SELECT bundle FROM api_certificates WHERE tournament_id = ?", (tid,))
    assert len(rows) == 1
    stored = json.loads(rows[0][0])
    assert stored == json.loads(first[2])  # no witness: the checkpoint as the log signed it
    # the answers come from the row, not from the log again: a mark put in it is served
    conn.execute(
        "UPDATE api_certificates SET bundle = ? WHERE tournament_id = ?",
        (json.dumps(dict(stored, note="marked")), tid),
    )
    try:
        assert client.call("GET", path)["note"] == "marked"
        assert client.call("GET", f"/v1/tournaments/{tid}/certificate")["note"] == "marked"
    finally:
        conn.execute(
            "UPDATE api_certificates SET bundle = ? WHERE tournament_id = ?", (rows[0][0], tid)
        )
    assert client.raw("GET", path)[2] == first[2]
    # an event that is not over has no certificate, and nothing is stored for it
    fresh = _admin(client, "POST", "/v1/tournaments", MITCHELL)["id"]
    assert client.raw("GET", f"/v1/tournaments/{fresh}/certificate/bundle")[0] == 409
    assert conn.one("SELECT 1 FROM api_certificates WHERE tournament_id = ?", (fresh,)) is None


def _flip_signature(b: dict[str, Any], n: int) -> int:
    """Event ``n``'s signature made wrong (its first byte, still canonical); its index."""
    ev = b["events"][n]["event"]
    sig = bytearray(base64.b64decode(ev["signature"]))
    sig[0] ^= 1
    ev["signature"] = base64.b64encode(bytes(sig)).decode()
    return int(b["events"][n]["index"])


def _plays(b: dict[str, Any]) -> list[int]:
    return [i for i, e in enumerate(b["events"]) if e["event"]["type"] == "play"]


def tamper_signature(b: dict[str, Any], s: Signer) -> str:
    return f"entry {_flip_signature(b, _plays(b)[len(_plays(b)) // 2])}"


def tamper_last_signature(b: dict[str, Any], s: Signer) -> str:
    return f"entry {_flip_signature(b, len(b['events']) - 1)}"


def tamper_signature_then_chain(b: dict[str, Any], s: Signer) -> str:
    plays = _plays(b)
    index = _flip_signature(b, plays[5])
    del b["events"][plays[-3]]  # a later event gone: the chain breaks after the signature
    return f"entry {index}"


def tamper_chain_then_signature(b: dict[str, Any], s: Signer) -> str:
    plays = _plays(b)
    _flip_signature(b, plays[-3])
    del b["events"][plays[5]]  # an earlier event gone: the chain breaks first
    return "does not follow the chain"


def tamper_signature_then_record(b: dict[str, Any], s: Signer) -> str:
    # the workers may still be checking the signature when the recomputed certificate
    # (a later step) finds the record changed: the signature is named all the same
    tamper_card(b, s)
    return f"entry {_flip_signature(b, len(b['events']) - 1)}"


JOBS_TAMPERS: dict[str, Callable[[dict[str, Any], Signer], str]] = {
    **TAMPERS,
    "signature": tamper_signature,
    "last signature": tamper_last_signature,
    "signature, then chain": tamper_signature_then_chain,
    "chain, then signature": tamper_chain_then_signature,
    "signature, then record": tamper_signature_then_record,
}


@pytest.mark.parametrize("name", ["none", *JOBS_TAMPERS])
def test_jobs_give_the_same_result_and_the_same_first_difference(
    played: Played, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The signatures checked in 3 processes (the Mitchell's ~300 events in chunks of
    32) or in this one: the same exit status and the same message, word for word."""
    bundle = copy.deepcopy(played.bundles["mitchell"])
    expected = JOBS_TAMPERS[name](bundle, played.signer) if name != "none" else "verified"
    results = {j: verify(bundle, played.key, tmp_path, capsys, "--jobs", j) for j in "13"}
    assert results["1"] == results["3"], results
    code, out = results["1"]
    assert code == (0 if name == "none" else 1), out
    assert expected in out, out
    if name in ("signature", "last signature", "signature, then chain", "signature, then record"):
        assert "LOG_SIGNATURE_INVALID" in out and "does not verify" in out, out


def test_jobs_must_be_a_positive_whole_number(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit) as exit_:
            verify(played.bundles["robin"], played.key, tmp_path, capsys, "--jobs", bad)
        assert exit_.value.code == 2
        assert "--jobs" in capsys.readouterr().err


def _certify_again(bundle: dict[str, Any], key: str) -> dict[str, Any]:
    cert = bundle["certificate"]
    return certify(
        origin=cert["origin"],
        log_key=key,
        checkpoint=cert["checkpoint"],
        tournament=cert["event"]["id"],
        events=[{"index": e["index"], "event": e["event"]} for e in bundle["events"]],
        records={(r["table"], r["hand"]): r["record"] for r in bundle["records"]},
    )


def _moved_trick(b: dict[str, Any]) -> None:
    """A trick of the first record gathered by the other side: the audit finds it."""
    gathered = b["records"][0]["record"]["hands"][0]["gathered"]
    # from a side that took one (the bots' play is drawn afresh: NS may have taken none)
    side, other = ("NS", "EW") if gathered["NS"] else ("EW", "NS")
    gathered[other].append(gathered[side].pop())


def _unreadable_record(b: dict[str, Any]) -> None:
    b["records"][0]["record"]["hands"][0]["dealer"] = "X"


@pytest.mark.parametrize("kind", ["mitchell", "robin"])
@pytest.mark.parametrize("change", [None, _moved_trick, _unreadable_record])
def test_the_native_and_python_audits_recompute_the_same_certificate(
    played: Played,
    kind: str,
    change: Callable[[dict[str, Any]], None] | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """verify audits each hand with the native fast path when it answers (a record in
    order), else with the Python auditor: the certificate (each hand's verdict) or the
    error naming a bad record is the same with the fast path turned off."""
    if not native_available():
        pytest.skip("the native extension is not built")
    bundle = copy.deepcopy(played.bundles[kind])
    if change is not None:
        change(bundle)

    def outcome() -> Any:
        try:
            return _certify_again(bundle, played.key)
        except FairplayError as exc:
            return f"{type(exc).__name__}: {exc}"

    fast = outcome()
    monkeypatch.setenv("FAIRPLAY_NATIVE", "0")
    assert not native_available()
    assert outcome() == fast
    if change is None:
        assert fast == bundle["certificate"]
    elif change is _moved_trick:
        verdicts = [h["verdict"] for h in fast["hands"] if "verdict" in h]
        assert verdicts.count("irregular") == 1 and len(verdicts) == len(bundle["records"])
    else:
        assert "dealer" in fast


SMALL = {"name": "Cert small", "format": "pairs-duplicate", "tables": 1, "boards_per_round": 1}


def test_the_bundle_is_prepared_off_the_request_path(tmp_path: Path) -> None:
    """The event's end starts the build in the background; until the bundle is stored both
    certificate routes answer 409 NOT_READY with Retry-After (never a 5xx, never a wait),
    one build runs however many ask, and then every answer is the same bytes."""
    reached, gate = threading.Event(), threading.Event()

    def held() -> None:
        reached.set()
        gate.wait(60)

    faults.hold("certificate_build", held)
    service = _start(tmp_path)
    try:
        tid = play(service, SMALL, 2, False)
        assert reached.wait(30), "the end of the event did not start the build"
        client = service.client()
        path = f"/v1/tournaments/{tid}/certificate"
        for p in (f"{path}/bundle", path, f"{path}/bundle"):
            status, headers, body = client.raw("GET", p)
            assert status == 409 and headers["retry-after"] == str(RETRY_AFTER), (p, status)
            answer = json.loads(body)
            assert answer["code"] == "NOT_READY" and answer["details"]["retry_after"] == 2
        conn = service.app.extensions["fairplay"].db.connection()
        claims = conn.all(
            "SELECT owner FROM api_builds WHERE kind = 'certificate' AND tournament_id = ?",
            (tid,),
        )
        assert len(claims) == 1  # one build, however many asked
        gate.set()
        bundle = client.call_when_ready("GET", f"{path}/bundle", timeout=60)
        assert bundle["certificate"]["event"]["id"] == tid
        first, second = client.raw("GET", f"{path}/bundle"), client.raw("GET", f"{path}/bundle")
        assert first[0] == second[0] == 200 and first[2] == second[2]
        assert json.loads(first[2]) == bundle
        assert (
            conn.one(
                "SELECT 1 FROM api_builds WHERE kind = 'certificate' AND tournament_id = ?",
                (tid,),
            )
            is None
        )
    finally:
        faults.hold("certificate_build", None)
        gate.set()
        _stop(service)
