"""A witness of one log: cosign each checkpoint that extends the last one cosigned, and
refuse, with evidence, anything else.

The witness keeps one state per log (:class:`WitnessState`, a JSON file written
atomically): the log's origin and verifier key, pinned at first contact, and the last
checkpoint it cosigned. Each :meth:`Witness.step` fetches the log's latest checkpoint,
checks the log's signature, and compares it with that state (c2sp.org/tlog-witness):

* the same tree (size and root): nothing to sign, unless the served checkpoint lacks
  this witness's cosignature, which is then made again and submitted;
* a larger tree: the log's consistency proof from the old size must verify against the
  two roots (RFC 6962 §2.1.2); the checkpoint is cosigned (``cosignature/v1``), the state
  saved *before* the cosignature leaves the process, then submitted;
* a smaller tree: a stale view (a lagging host); the proof from it to the cosigned tree
  must verify, and nothing is signed;
* anything else (the same size with another root, a proof that fails, another origin) is a
  split view: :class:`SplitViewError` carries evidence holding both signed checkpoints
  and the proof the log served, which :func:`verify_split_view_evidence` re-checks with
  only the log's key. The state is left alone, so the witness keeps refusing that view.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from audit.log import merkle
from audit.log.checkpoint import Checkpoint, verify_checkpoint
from audit.log.cosignature import cosign, cosignatures_by, witness_key_of
from audit.log.errors import LogError, LogInconsistent, ProofError
from audit.log.keys import Signer, Verifier
from audit.log.note import parse as parse_note

STATE_FORMAT = "cayenne-fairplay/witness-state/v1"
EVIDENCE_FORMAT = "cayenne-fairplay/split-view-evidence/v1"


class SplitViewError(LogInconsistent):
    """The log showed a checkpoint that is not an append-only extension of one this
    witness cosigned; ``evidence`` is the self-describing record of both."""

    def __init__(self, message: str, evidence: dict[str, Any]) -> None:
        super().__init__(message, details={"evidence": evidence})
        self.evidence = evidence


class LogSource(Protocol):
    """What a witness needs of a log (over HTTP: :class:`audit.cli.witness.HttpLog`)."""

    def checkpoint(self) -> str: ...

    def consistency(self, first: int, second: int) -> list[bytes]: ...

    def submit(self, cosigned_note: str) -> None: ...


@dataclass(frozen=True, slots=True)
class WitnessState:
    """The witness's record of one log: its pinned key and the last cosigned checkpoint."""

    origin: str
    log_key: str
    checkpoint: str

    def as_json(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "origin": self.origin,
            "log_key": self.log_key,
            "checkpoint": self.checkpoint,
        }


def load_state(path: Path) -> WitnessState | None:
    """The state saved at ``path``, or None when there is none yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LogError(f"witness state {path}: cannot read: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogError(f"witness state {path}: not JSON ({exc.msg})") from exc
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise LogError(f"witness state {path}: format must be {STATE_FORMAT!r}")
    fields = [data.get(k) for k in ("origin", "log_key", "checkpoint")]
    if not all(isinstance(v, str) and v for v in fields):
        raise LogError(f"witness state {path}: origin, log_key and checkpoint must be text")
    state = WitnessState(*(str(v) for v in fields))
    verify_checkpoint(state.checkpoint, state.log_key, origin=state.origin)
    return state


def save_state(path: Path, state: WitnessState) -> None:
    """Write the state atomically: a crash leaves the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(state.as_json(), fh, indent=1, ensure_ascii=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


def split_view_evidence(
    cosigned_note: str, other_note: str, proof: list[bytes], log_key: Verifier
) -> dict[str, Any]:
    """The record of two checkpoints of one log that are not extensions of each other:
    both notes (each signed by the log), the consistency proof the log served between
    them (empty for equal sizes) and what is wrong. Check it with
    :func:`verify_split_view_evidence`."""
    a = verify_checkpoint(cosigned_note, log_key)
    b = verify_checkpoint(other_note, log_key)
    if a.origin != b.origin:
        why = f"the log signed checkpoints of two origins, {a.origin!r} and {b.origin!r}"
    elif a.size == b.size:
        why = (
            f"two checkpoints signed by {a.origin} for the same tree size {a.size} with "
            "different root hashes: the log showed different histories"
        )
    else:
        lo, hi = sorted((a.size, b.size))
        why = (
            f"the log's consistency proof from size {lo} to size {hi} does not verify "
            f"between the two signed checkpoints: the tree of size {hi} does not extend "
            f"the one of size {lo}"
        )
    return {
        "format": EVIDENCE_FORMAT,
        "origin": a.origin,
        "log_key": log_key.text(),
        "checkpoints": [cosigned_note, other_note],
        "sizes": [a.size, b.size],
        "consistency_proof": _b64(proof),
        "explanation": why,
    }


def relation(old: Checkpoint, new: Checkpoint, proof: list[bytes]) -> str:
    """How ``new`` stands to ``old``: ``"same"``, ``"extension"`` or ``"older"`` (a stale
    view whose extension ``old`` is); raise :class:`ProofError` or
    :class:`LogInconsistent` when the two are not one append-only history."""
    if new.origin != old.origin:
        raise LogInconsistent(f"checkpoint origin {new.origin!r} is not {old.origin!r}")
    if new.size == old.size:
        if new.root != old.root:
            raise LogInconsistent(f"two roots for the tree of size {new.size}")
        return "same"
    if new.size > old.size:
        if old.size > 0:
            merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
        return "extension"
    if new.size > 0:
        merkle.verify_consistency(new.size, old.size, new.root, old.root, proof)
    return "older"


def verify_split_view_evidence(evidence: Any, log_key: Verifier | str) -> None:
    """Raise unless ``evidence`` shows two log-signed checkpoints that the proof in it
    does not join into one history (for equal sizes: two roots, no proof needed)."""
    verifier = log_key if isinstance(log_key, Verifier) else Verifier.from_text(log_key)
    if not isinstance(evidence, dict) or evidence.get("format") != EVIDENCE_FORMAT:
        raise LogInconsistent(f"evidence.format: must be {EVIDENCE_FORMAT!r}")
    notes = evidence.get("checkpoints")
    if not isinstance(notes, list) or len(notes) != 2 or not all(isinstance(n, str) for n in notes):
        raise LogInconsistent("evidence.checkpoints: must be two checkpoint notes")
    raw = evidence.get("consistency_proof")
    if not isinstance(raw, list) or not all(isinstance(h, str) for h in raw):
        raise LogInconsistent("evidence.consistency_proof: must be a list of base64 hashes")
    try:
        proof = [base64.b64decode(h, validate=True) for h in raw]
    except (binascii.Error, ValueError) as exc:
        raise LogInconsistent("evidence.consistency_proof: invalid base64") from exc
    a = verify_checkpoint(notes[0], verifier)
    b = verify_checkpoint(notes[1], verifier)
    try:
        relation(a, b, proof)
    except LogError:
        return
    raise LogInconsistent("the evidence's checkpoints are one append-only history: no split view")


def compare_views(
    seen_note: str,
    new_note: str,
    log_key: Verifier,
    consistency: Callable[[int, int], list[bytes]],
) -> str:
    """How a newly served checkpoint stands to one seen before (both log-signed notes):
    ``"same"``, ``"extension"`` or ``"older"``, asking ``consistency(smaller, larger)``
    for the log's proof when the sizes differ. Raise :class:`SplitViewError`, with the
    evidence, when they are not one append-only history, and also when the log cannot
    prove that a smaller tree it now serves is a prefix of the larger one it signed
    (a rollback). The witness's check, and any client's that kept a checkpoint."""
    old = verify_checkpoint(seen_note, log_key)
    new = verify_checkpoint(new_note, log_key)
    proof: list[bytes] = []
    if new.size != old.size and min(new.size, old.size) > 0 and new.origin == old.origin:
        try:
            proof = consistency(min(new.size, old.size), max(new.size, old.size))
        except LogError as exc:
            if new.size > old.size:
                raise  # the log is unreachable, or lagging: try again later
            evidence = split_view_evidence(seen_note, new_note, [], log_key)
            evidence["explanation"] = (
                f"the log now serves a tree of size {new.size} and cannot prove it a prefix "
                f"of the tree of size {old.size} it signed ({exc.message}): a rollback"
            )
            raise SplitViewError(f"split view: {evidence['explanation']}", evidence) from exc
    try:
        return relation(old, new, proof)
    except LogError as exc:
        evidence = split_view_evidence(seen_note, new_note, proof, log_key)
        raise SplitViewError(
            f"split view: {new.origin} size {new.size}: {evidence['explanation']} ({exc.message})",
            evidence,
        ) from exc


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one step did: ``action`` is ``cosigned``, ``resubmitted``, ``unchanged`` or
    ``stale``; ``line`` is the cosignature submitted, if any."""

    action: str
    size: int
    line: str | None = None


class Witness:
    """A witness of one log, with its signer key, its state file and a clock."""

    def __init__(
        self,
        signer: Signer,
        state_path: Path,
        *,
        log_key: Verifier | None = None,
        clock: Callable[[], float],
    ) -> None:
        self.signer = signer
        self.key = witness_key_of(signer)
        self.state_path = state_path
        self.clock = clock
        self.state = load_state(state_path)
        if self.state is not None and log_key is not None and self.state.log_key != log_key.text():
            raise LogError(
                f"witness state {state_path} follows the log key {self.state.log_key}, "
                f"not {log_key.text()}"
            )
        self.log_key = (
            log_key if log_key is not None or self.state is None
            else Verifier.from_text(self.state.log_key)
        )  # fmt: skip

    def _cosign(self, note_text: str) -> str:
        text, _ = parse_note(note_text)
        return cosign(text, self.signer, int(self.clock())).line()

    def step(self, log: LogSource, *, fetch_key: Callable[[], str] | None = None) -> Outcome:
        """Fetch, check, and cosign or refuse the log's latest checkpoint (see the module
        docstring). Raises :class:`SplitViewError` with the evidence on a split view."""
        note_text = log.checkpoint()
        if self.log_key is None:
            if fetch_key is None:
                raise LogError("the log's verifier key is unknown: give it (--log-key)")
            self.log_key = Verifier.from_text(fetch_key())  # trust on first use, then pinned
        origin = self.state.origin if self.state is not None else None
        new = verify_checkpoint(note_text, self.log_key, origin=origin)
        if self.state is None:
            return self._advance(log, note_text, new)
        how = compare_views(self.state.checkpoint, note_text, self.log_key, log.consistency)
        if how == "extension":
            return self._advance(log, note_text, new)
        if how == "older":
            return Outcome("stale", new.size)
        if self.key.text() in cosignatures_by(note_text, [self.key]):
            return Outcome("unchanged", new.size)
        line = self._cosign(note_text)
        log.submit(note_text + line)
        return Outcome("resubmitted", new.size, line)

    def _advance(self, log: LogSource, note_text: str, cp: Checkpoint) -> Outcome:
        assert self.log_key is not None
        line = self._cosign(note_text)
        # persist before the cosignature leaves the process (c2sp.org/tlog-witness)
        self.state = WitnessState(cp.origin, self.log_key.text(), note_text + line)
        save_state(self.state_path, self.state)
        log.submit(note_text + line)
        return Outcome("cosigned", cp.size, line)


__all__ = [
    "EVIDENCE_FORMAT",
    "LogSource",
    "Outcome",
    "ProofError",
    "SplitViewError",
    "Witness",
    "WitnessState",
    "compare_views",
    "load_state",
    "relation",
    "save_state",
    "split_view_evidence",
    "verify_split_view_evidence",
]
