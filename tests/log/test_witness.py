"""The witness's decisions on real logs (SQLite files, real keys): it cosigns append-only
growth, keeps its state across restarts, and refuses a split view with evidence that
verifies with the log's key alone."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from audit.log.cosignature import WitnessPolicy, cosignatures_by, witness_key_of
from audit.log.errors import LogError, LogInconsistent
from audit.log.keys import Signer, generate_signer
from audit.log.store import Log, open_log
from audit.log.witness import (
    SplitViewError,
    Witness,
    compare_views,
    load_state,
    verify_split_view_evidence,
)
from tests.log.conftest import ORIGIN, hand_events


class Served:
    """A log as a witness sees it: its latest checkpoint, its proofs, and what was posted."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.posted: list[str] = []
        self.fail_proofs = False

    def checkpoint(self) -> str:
        return self.log.checkpoint()

    def consistency(self, first: int, second: int) -> list[bytes]:
        if self.fail_proofs or second > self.log.size():
            raise LogError(f"no tree of size {second}")
        return self.log.consistency_proof(first, second)

    def submit(self, cosigned_note: str) -> None:
        self.posted.append(cosigned_note)


def _log(tmp_path: Path, name: str, signer: Signer, players: dict[str, Signer]) -> Log:
    log = open_log(f"sqlite:///{tmp_path / name}", ORIGIN, signer)
    for p in players.values():
        log.register_key(p.name, p.verifier())
    return log


def _grow(log: Log, players: dict[str, Signer], hand: str, count: int) -> None:
    log.append(hand_events(list(players.values()), "t1", hand, count))


@pytest.fixture
def witness_signer() -> Signer:
    return generate_signer("witness.test/w1")


def test_cosigns_growth_and_survives_a_restart(
    tmp_path: Path, log_signer: Signer, players: dict[str, Signer], witness_signer: Signer
) -> None:
    log = _log(tmp_path, "a.db", log_signer, players)
    served = Served(log)
    state = tmp_path / "w1.json"
    clock = iter(range(1000, 2000)).__next__
    w = Witness(witness_signer, state, log_key=log_signer.verifier(), clock=lambda: clock())
    _grow(log, players, "1", 5)
    first = w.step(served)
    assert (first.action, first.size) == ("cosigned", 5)
    policy = WitnessPolicy((witness_key_of(witness_signer),), 1)
    policy.check(served.posted[-1])
    assert load_state(state) is not None
    # unchanged tree: the served note lacks the cosignature (nobody stored it): re-sent
    assert w.step(served).action == "resubmitted"
    _grow(log, players, "2", 7)
    # a restarted witness: a new object reading the state file
    w2 = Witness(witness_signer, state, clock=lambda: clock())
    out = w2.step(served)
    assert (out.action, out.size) == ("cosigned", 12)
    saved = load_state(state)
    assert saved is not None and "\n12\n" in saved.checkpoint
    assert list(cosignatures_by(saved.checkpoint, policy.witnesses))
    # a checkpoint already carrying this witness's cosignature is left alone
    served.checkpoint = lambda: served.posted[-1]  # type: ignore[method-assign]
    assert w2.step(served).action == "unchanged"


def test_refuses_a_fork_at_the_same_size(
    tmp_path: Path, log_signer: Signer, players: dict[str, Signer], witness_signer: Signer
) -> None:
    a, b = _log(tmp_path, "a.db", log_signer, players), _log(tmp_path, "b.db", log_signer, players)
    _grow(a, players, "1", 6)
    _grow(b, players, "other", 6)  # same key, same origin, same size, another history
    state = tmp_path / "w.json"
    w = Witness(witness_signer, state, log_key=log_signer.verifier(), clock=lambda: 5.0)
    w.step(Served(a))
    before = state.read_text()
    served_b = Served(b)
    with pytest.raises(SplitViewError, match="same tree size 6") as err:
        w.step(served_b)
    assert served_b.posted == []  # nothing cosigned, nothing sent
    assert state.read_text() == before  # still a's view: the refusal persists
    evidence = err.value.evidence
    verify_split_view_evidence(json.loads(json.dumps(evidence)), log_signer.verifier_key())
    assert evidence["sizes"] == [6, 6]


def test_refuses_a_larger_tree_that_does_not_extend(
    tmp_path: Path, log_signer: Signer, players: dict[str, Signer], witness_signer: Signer
) -> None:
    a, b = _log(tmp_path, "a.db", log_signer, players), _log(tmp_path, "b.db", log_signer, players)
    _grow(a, players, "1", 4)
    _grow(b, players, "x", 9)
    w = Witness(
        witness_signer, tmp_path / "w.json", log_key=log_signer.verifier(), clock=lambda: 5.0
    )
    w.step(Served(a))
    with pytest.raises(SplitViewError, match="does not verify") as err:
        w.step(Served(b))
    verify_split_view_evidence(err.value.evidence, log_signer.verifier())
    # a rewritten proof cannot hide it: the evidence with an honest proof of b still fails
    # to join the two, and evidence whose checkpoints do join is refused as no split view
    a2 = Served(a)
    _grow(a, players, "2", 3)
    good = compare_views(
        err.value.evidence["checkpoints"][0], a.checkpoint(), log_signer.verifier(), a2.consistency
    )
    assert good == "extension"
    honest = dict(
        err.value.evidence, checkpoints=[err.value.evidence["checkpoints"][0], a.checkpoint()]
    )
    honest["consistency_proof"] = [base64.b64encode(h).decode() for h in a.consistency_proof(4, 7)]
    with pytest.raises(LogInconsistent, match="no split view"):
        verify_split_view_evidence(honest, log_signer.verifier())


def test_a_smaller_tree_is_stale_or_a_rollback(
    tmp_path: Path, log_signer: Signer, players: dict[str, Signer], witness_signer: Signer
) -> None:
    a = _log(tmp_path, "a.db", log_signer, players)
    _grow(a, players, "1", 3)
    small = a.checkpoint()
    _grow(a, players, "2", 3)
    w = Witness(
        witness_signer, tmp_path / "w.json", log_key=log_signer.verifier(), clock=lambda: 5.0
    )
    served = Served(a)
    w.step(served)
    served.checkpoint = lambda: small  # type: ignore[method-assign]
    assert w.step(served).action == "stale"  # a lagging host of the same log
    served.fail_proofs = True  # the log cannot prove the smaller tree a prefix: rolled back
    with pytest.raises(SplitViewError, match="rollback"):
        w.step(served)


def test_state_and_keys_are_checked(
    tmp_path: Path, log_signer: Signer, witness_signer: Signer
) -> None:
    state = tmp_path / "w.json"
    state.write_text("{not json")
    with pytest.raises(LogError, match="not JSON"):
        Witness(witness_signer, state, clock=lambda: 0.0)
    other = generate_signer("another-log")
    log = open_log(f"sqlite:///{tmp_path / 'a.db'}", ORIGIN, log_signer)
    state.unlink()
    Witness(witness_signer, state, log_key=log_signer.verifier(), clock=lambda: 0.0).step(
        Served(log)
    )
    with pytest.raises(LogError, match="follows the log key"):
        Witness(witness_signer, state, log_key=other.verifier(), clock=lambda: 0.0)
