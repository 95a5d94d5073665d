"""C2SP tlog-checkpoints (c2sp.org/tlog-checkpoint) and fork evidence.

A checkpoint body is three lines — the log origin, the tree size in decimal, the root
hash in standard base64 — plus optional extension lines, signed as a C2SP note by the
log's Ed25519 key. Two valid checkpoints of one origin with the same size and different
roots cannot both be true: that pair is self-contained evidence of a fork.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from audit.log import note
from audit.log.errors import LogInconsistent, NoteError
from audit.log.keys import Signer, Verifier
from audit.log.merkle import HASH_SIZE

__all__ = [
    "TLOG_PROOF_HEADER",
    "Checkpoint",
    "fork_evidence",
    "format_tlog_proof",
    "parse",
    "verify_checkpoint",
    "verify_fork_evidence",
    "verify_tlog_proof",
]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A tree head: origin, size and root hash (32 bytes)."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        """The checkpoint body, ending in a newline."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode()]
        return "\n".join([*lines, *self.extensions]) + "\n"

    def sign(self, signer: Signer) -> str:
        """The signed note of this checkpoint."""
        return note.sign(self.text(), signer)


def _decimal(text: str) -> bool:
    """Whether ``text`` is a canonical unsigned 64-bit decimal: ASCII digits only (``str.isdigit``
    takes ``²`` and ``٣``, which ``int`` refuses) and at most 20 of them (``int`` refuses
    more than 4300)."""
    return _DECIMAL.fullmatch(text) is not None and int(text) < 2**64


_DECIMAL = re.compile(r"0|[1-9][0-9]{0,19}")


def parse(text: str) -> Checkpoint:
    """Parse a checkpoint body (not a note); errors name the malformed line."""
    if not isinstance(text, str) or not text.endswith("\n"):
        raise NoteError("malformed checkpoint: must end with a newline")
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        raise NoteError("malformed checkpoint: needs origin, size and root lines")
    origin, size_text, root_text, *ext = lines
    if not origin:
        raise NoteError("malformed checkpoint: empty origin")
    if not _decimal(size_text):
        raise NoteError(f"malformed checkpoint: invalid tree size {size_text[:24]!r}")
    try:
        root = base64.b64decode(root_text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError("malformed checkpoint: root hash is not base64") from exc
    if len(root) != HASH_SIZE:
        raise NoteError(f"malformed checkpoint: root hash is not {HASH_SIZE} bytes")
    if any(not line for line in ext):
        raise NoteError("malformed checkpoint: empty extension line")
    return Checkpoint(origin, int(size_text), root, tuple(ext))


def verify_checkpoint(
    note_text: str, verifier: Verifier | str, *, origin: str | None = None
) -> Checkpoint:
    """Verify the note's signature by the log key and parse its checkpoint.

    When ``origin`` is given the checkpoint must name it.
    """
    cp = parse(note.verify(note_text, verifier))
    if origin is not None and cp.origin != origin:
        raise NoteError(f"checkpoint origin {cp.origin!r} is not the log's origin {origin!r}")
    return cp


def fork_evidence(note_a: str, note_b: str, verifier: Verifier | str) -> dict[str, Any]:
    """Package two signed checkpoints that cannot both be true; raise if they can.

    Both must verify under the log key, share the origin and the size, and differ in root.
    The returned dict is self-contained: anyone with the verifier key can check it with
    :func:`verify_fork_evidence`.
    """
    a = verify_checkpoint(note_a, verifier)
    b = verify_checkpoint(note_b, verifier)
    if a.origin != b.origin:
        raise LogInconsistent("the checkpoints are of different logs (origins differ)")
    if a.size != b.size:
        raise LogInconsistent(
            "checkpoints of different sizes are evidence of a fork only with a failed "
            "consistency proof; ask the log for a checkpoint at the smaller size"
        )
    if a.root == b.root:
        raise LogInconsistent("the checkpoints agree: no fork")
    vkey = verifier.text() if isinstance(verifier, Verifier) else verifier
    return {
        "format": "cayenne-fairplay/fork-evidence/v1",
        "origin": a.origin,
        "size": a.size,
        "verifier_key": vkey,
        "checkpoints": [note_a, note_b],
        "explanation": (
            f"two checkpoints signed by {a.origin} for the same tree size {a.size} with "
            "different root hashes: the log showed different histories"
        ),
    }


def verify_fork_evidence(evidence: dict[str, Any], verifier: Verifier | str) -> None:
    """Raise unless ``evidence`` really shows two conflicting signed checkpoints."""
    notes = evidence.get("checkpoints")
    if not isinstance(notes, list) or len(notes) != 2 or not all(isinstance(n, str) for n in notes):
        raise LogInconsistent("fork evidence: 'checkpoints' must be two note texts")
    fork_evidence(notes[0], notes[1], verifier)


TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1"


def format_tlog_proof(
    index: int, proof: list[bytes], checkpoint_note: str, *, extra: bytes | None = None
) -> str:
    """A c2sp.org/tlog-proof: an entry's index, its inclusion proof and the checkpoint."""
    lines = [TLOG_PROOF_HEADER]
    if extra is not None:
        lines.append("extra " + base64.b64encode(extra).decode())
    lines.append(f"index {index}")
    lines += [base64.b64encode(h).decode() for h in proof]
    return "\n".join(lines) + "\n\n" + checkpoint_note


def verify_tlog_proof(
    text: str, entry: bytes, verifier: Verifier | str, *, origin: str | None = None
) -> tuple[int, Checkpoint, bytes | None]:
    """Check a tlog-proof for the leaf ``entry``; return (index, checkpoint, extra)."""
    from audit.log.merkle import leaf_hash, verify_inclusion

    head, sep, note_text = text.partition("\n\n")
    lines = head.split("\n")
    if not sep or not lines or lines[0] != TLOG_PROOF_HEADER:
        raise LogInconsistent(f"malformed tlog-proof: must start with {TLOG_PROOF_HEADER}")
    rest = lines[1:]
    extra = None
    try:
        if rest and rest[0].startswith("extra "):
            extra = base64.b64decode(rest.pop(0)[6:], validate=True)
        if not rest or not rest[0].startswith("index ") or not _decimal(rest[0][6:]):
            raise LogInconsistent("malformed tlog-proof: missing 'index N' line")
        index = int(rest.pop(0)[6:])
        proof = [base64.b64decode(line, validate=True) for line in rest]
    except (binascii.Error, ValueError) as exc:
        raise LogInconsistent("malformed tlog-proof: invalid base64") from exc
    cp = verify_checkpoint(note_text, verifier, origin=origin)
    verify_inclusion(leaf_hash(entry), index, cp.size, proof, cp.root)
    return index, cp, extra
