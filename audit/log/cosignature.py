"""Witness cosignatures (c2sp.org/tlog-cosignature, ``cosignature/v1``, Ed25519) and
witness policies (k of n named witness keys).

A cosignature is a signed-note signature line on a checkpoint,
``— <witness name> base64(key ID[4] || timestamp[8] || Ed25519 signature[64])``, where

* the key ID is ``SHA-256(name || 0x0a || 0x04 || public key)[:4]`` (type 0x04, so that a
  witness key can never be mistaken for a log key of type 0x01, whose signatures cover
  other bytes),
* the timestamp is the POSIX time of the cosignature, big-endian, below 2^63,
* the signature covers ``"cosignature/v1\\ntime <timestamp>\\n"`` followed by the whole
  checkpoint body (final newline included, no signature lines).

A v1 cosignature states that, as of its time, the checkpoint is the largest consistent
tree head the witness has seen for that origin: a witness never cosigns two views of one
log that are not extensions of each other, so a client that requires cosignatures from
enough witnesses it trusts cannot be shown a split view.

A witness's verifier key reads ``name+hash+base64(0x04 || public key)``; it is the key a
client names in its policy. The witness's private key file is an ordinary signer key
file (``PRIVATE+KEY+name+hash+base64(0x01 || seed)``, :mod:`audit.log.keys`), as Go's
transparency-dev tools accept it. Since the signed message does not commit to the
witness's name, one key must never serve two witness names.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from audit.log.checkpoint import Checkpoint, verify_checkpoint
from audit.log.ed25519 import check_public_key
from audit.log.errors import KeyFormatError, LogError, LogSignatureInvalid, NoteError
from audit.log.keys import Signer, Verifier, _b64decode, check_key_name
from audit.log.keys import load_verifier as _load_log_verifier
from audit.log.note import SIG_PREFIX, NoteSignature
from audit.log.note import parse as parse_note

ALG_COSIGNATURE_V1 = 0x04
"""The signature type byte of an Ed25519 ``cosignature/v1`` witness key."""
HEADER = "cosignature/v1"
"""The first line of every signed message: domain separation from other signatures."""
MAX_TIMESTAMP = 2**63 - 1
SIGNATURE_SIZE = 4 + 8 + 64
"""Bytes of a cosignature line's blob: key ID, timestamp, Ed25519 signature."""


class WitnessPolicyError(LogError):
    """A checkpoint that does not carry valid cosignatures from enough policy witnesses;
    ``details["missing"]`` names the witnesses whose cosignature is absent or invalid."""

    code = "LOG_WITNESS_QUORUM"


def cosignature_key_hash(name: str, public_key: bytes) -> bytes:
    """The 4-byte key ID of a ``cosignature/v1`` Ed25519 witness key named ``name``."""
    return hashlib.sha256(
        name.encode() + b"\n" + bytes([ALG_COSIGNATURE_V1]) + public_key
    ).digest()[:4]


def signed_message(body: str, timestamp: int) -> bytes:
    """The bytes a ``cosignature/v1`` signature covers for checkpoint ``body``."""
    _check_timestamp(timestamp)
    if not isinstance(body, str) or not body.endswith("\n"):
        raise NoteError("a cosigned checkpoint body must end with a newline")
    return f"{HEADER}\ntime {timestamp}\n{body}".encode()


def _check_timestamp(timestamp: int) -> None:
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise NoteError("a cosignature timestamp is a whole number of seconds")
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise NoteError("a cosignature timestamp must be between 0 and 2^63 - 1")


@dataclass(frozen=True, slots=True)
class WitnessKey:
    """A witness's named Ed25519 public key, of type 0x04 (``cosignature/v1``).

    Constructing one refuses a non-canonical or small-order key (``LOG_KEY_WEAK``), as
    :class:`audit.log.keys.Verifier` does.
    """

    name: str
    public_key: bytes

    def __post_init__(self) -> None:
        check_key_name(self.name)
        check_public_key(self.public_key)

    @property
    def key_hash(self) -> bytes:
        return cosignature_key_hash(self.name, self.public_key)

    @property
    def key_id(self) -> str:
        return self.key_hash.hex()

    def text(self) -> str:
        """The verifier key text ``name+hash+base64(0x04 || public key)``."""
        blob = base64.b64encode(bytes([ALG_COSIGNATURE_V1]) + self.public_key).decode()
        return f"{self.name}+{self.key_id}+{blob}"

    def verify(self, body: str, cosig: Cosignature) -> None:
        """Raise :class:`LogSignatureInvalid` unless ``cosig`` is this witness's valid
        cosignature of checkpoint ``body``."""
        if cosig.name != self.name or cosig.key_hash != self.key_hash:
            raise LogSignatureInvalid(f"the cosignature is not by witness {self.name}")
        Verifier(self.name, self.public_key).verify(
            signed_message(body, cosig.timestamp), cosig.signature
        )

    @classmethod
    def from_text(cls, vkey: str) -> WitnessKey:
        """Parse ``name+hash+base64(0x04 || key)``; the hash must match the key."""
        if not isinstance(vkey, str):
            raise KeyFormatError("witness key must be text")
        parts = vkey.strip().split("+", 2)
        if len(parts) != 3:
            raise KeyFormatError("witness key must read name+hash+base64")
        name, hash_hex, blob = parts
        check_key_name(name)
        raw = _b64decode(blob, "witness key")
        if len(raw) != 33 or raw[0] != ALG_COSIGNATURE_V1:
            raise KeyFormatError(
                f"witness key {name} is not an Ed25519 cosignature/v1 (type 0x04) key"
            )
        key = cls(name, raw[1:])
        if len(hash_hex) != 8 or hash_hex.lower() != key.key_id:
            raise KeyFormatError(f"witness key hash {hash_hex!r} does not match the key")
        return key

    def __repr__(self) -> str:
        return f"WitnessKey.from_text({self.text()!r})"


def witness_key_of(signer: Signer) -> WitnessKey:
    """The ``cosignature/v1`` verifier key of a witness's signer key."""
    return WitnessKey(signer.name, signer.public_key)


def load_witness_key(source: str) -> WitnessKey:
    """A witness key from its text, or from a file holding it (``@path`` or a path)."""
    text = source[1:] if source.startswith("@") else source
    if text.count("+") < 2:
        try:
            with open(text, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise KeyFormatError(f"cannot read witness key file {source}: {exc.strerror}") from exc
    return WitnessKey.from_text(text)


@dataclass(frozen=True, slots=True)
class Cosignature:
    """One cosignature line: the witness name, key ID, timestamp and signature."""

    name: str
    key_hash: bytes
    timestamp: int
    signature: bytes

    def line(self) -> str:
        """The note signature line, ending in a newline."""
        blob = self.key_hash + self.timestamp.to_bytes(8, "big") + self.signature
        return f"{SIG_PREFIX}{self.name} {base64.b64encode(blob).decode()}\n"

    @classmethod
    def from_note_signature(cls, sig: NoteSignature) -> Cosignature:
        """Read a note signature as a cosignature (raise when it has not that shape)."""
        raw = sig.signature
        if len(raw) != SIGNATURE_SIZE - 4:
            raise NoteError(
                f"the signature by {sig.name} is not a cosignature/v1 signature "
                f"({len(raw) + 4} bytes, not {SIGNATURE_SIZE})"
            )
        timestamp = int.from_bytes(raw[:8], "big")
        _check_timestamp(timestamp)
        return cls(sig.name, sig.key_hash, timestamp, raw[8:])


def cosign(body: str, signer: Signer, timestamp: int) -> Cosignature:
    """The ``cosignature/v1`` of checkpoint ``body`` by ``signer`` at ``timestamp``."""
    check_key_name(signer.name)
    signature = signer.sign(signed_message(body, timestamp))
    return Cosignature(
        signer.name, cosignature_key_hash(signer.name, signer.public_key), timestamp, signature
    )


def cosignatures_by(note_text: str, witnesses: Iterable[WitnessKey]) -> dict[str, Cosignature]:
    """The valid cosignatures of the note by the given witnesses, by witness key text.

    Signature lines of other keys are ignored (c2sp.org/tlog-cosignature). A line that
    carries one of these witnesses' name and key ID but does not verify raises
    :class:`LogSignatureInvalid` naming the witness: nobody but the witness could have
    made a valid one, so a bad one is a forgery or a corruption, never to be skipped.
    """
    text, signatures = parse_note(note_text)
    found: dict[str, Cosignature] = {}
    for key in witnesses:
        for sig in signatures:
            if sig.name != key.name or sig.key_hash != key.key_hash:
                continue
            cosig = Cosignature.from_note_signature(sig)
            try:
                key.verify(text, cosig)
            except LogError as exc:
                raise LogSignatureInvalid(
                    f"the cosignature by witness {key.name}+{key.key_id} does not verify",
                    details={"witness": key.text()},
                ) from exc
            best = found.get(key.text())
            if best is None or cosig.timestamp > best.timestamp:
                found[key.text()] = cosig
    return found


def add_cosignatures(note_text: str, lines: Iterable[str]) -> str:
    """The note with the given signature lines appended (each once, in order)."""
    present = set(note_text.split("\n"))
    out = note_text
    for line in lines:
        if line.rstrip("\n") not in present:
            out += line if line.endswith("\n") else line + "\n"
            present.add(line.rstrip("\n"))
    return out


@dataclass(frozen=True, slots=True)
class WitnessPolicy:
    """Trust a checkpoint only with valid cosignatures by ``quorum`` of ``witnesses``."""

    witnesses: tuple[WitnessKey, ...]
    quorum: int

    def __post_init__(self) -> None:
        if len({w.key_hash + w.name.encode() for w in self.witnesses}) != len(self.witnesses):
            raise KeyFormatError("a witness policy names a witness key twice")
        if isinstance(self.quorum, bool) or not isinstance(self.quorum, int):
            raise KeyFormatError("witness quorum must be a whole number")
        if not 0 <= self.quorum <= len(self.witnesses):
            raise KeyFormatError(
                f"witness quorum {self.quorum} must be between 0 and the "
                f"{len(self.witnesses)} witnesses named"
            )

    @classmethod
    def of(cls, keys: Sequence[str], quorum: int | None = None) -> WitnessPolicy:
        """A policy from witness key texts (or files); the quorum defaults to all."""
        witnesses = tuple(load_witness_key(k) for k in keys)
        return cls(witnesses, len(witnesses) if quorum is None else quorum)

    def describe(self) -> str:
        names = ", ".join(w.name for w in self.witnesses) or "none"
        return f"{self.quorum} of {len(self.witnesses)} witnesses ({names})"

    def check(self, note_text: str) -> list[WitnessKey]:
        """The policy witnesses that validly cosign the note; raise
        :class:`WitnessPolicyError` (``LOG_WITNESS_QUORUM``) naming the missing ones when
        fewer than the quorum do. The log's own signature is not checked here."""
        found = cosignatures_by(note_text, self.witnesses)
        good = [w for w in self.witnesses if w.text() in found]
        if len(good) < self.quorum:
            missing = [w for w in self.witnesses if w.text() not in found]
            raise WitnessPolicyError(
                f"the checkpoint is cosigned by {len(good)} of the {len(self.witnesses)} "
                f"witnesses, the policy needs {self.quorum}; missing: "
                + ", ".join(w.name for w in missing),
                details={
                    "missing": [w.text() for w in missing],
                    "cosigned_by": [w.text() for w in good],
                    "quorum": self.quorum,
                },
            )
        return good


def verify_witnessed_checkpoint(
    note_text: str,
    log_key: Verifier | str,
    policy: WitnessPolicy | None,
    *,
    origin: str | None = None,
) -> Checkpoint:
    """The one client check: the log's signature, then the witness policy (if any)."""
    verifier = log_key if isinstance(log_key, Verifier) else _load_log_verifier(log_key)
    cp = verify_checkpoint(note_text, verifier, origin=origin)
    if policy is not None:
        policy.check(note_text)
    return cp


__all__ = [
    "ALG_COSIGNATURE_V1",
    "Cosignature",
    "WitnessKey",
    "WitnessPolicy",
    "WitnessPolicyError",
    "add_cosignatures",
    "cosign",
    "cosignature_key_hash",
    "cosignatures_by",
    "load_witness_key",
    "signed_message",
    "verify_witnessed_checkpoint",
    "witness_key_of",
]
