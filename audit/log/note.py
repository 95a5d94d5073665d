"""C2SP signed notes (c2sp.org/signed-note), compatible with Go's ``sumdb/note``.

A note is UTF-8 text ending in a newline, a blank line, then one or more signature lines
``— <name> <base64(key ID[4] || signature)>`` (the dash is U+2014). The Ed25519 signature
covers the text exactly, final newline included. :func:`verify` raises unless a signature
by the given key is present and valid, and returns the signed text.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from audit.log.errors import NoteError
from audit.log.keys import Signer, Verifier, check_key_name

__all__ = [
    "MAX_SIGNATURES",
    "SIG_PREFIX",
    "NoteSignature",
    "add_signature",
    "parse",
    "sign",
    "verify",
]

SIG_PREFIX = "\u2014 "
MAX_SIGNATURES = 100


@dataclass(frozen=True, slots=True)
class NoteSignature:
    """One signature line: the key name, its 4-byte key ID and the raw signature."""

    name: str
    key_hash: bytes
    signature: bytes

    def line(self) -> str:
        blob = base64.b64encode(self.key_hash + self.signature).decode()
        return f"{SIG_PREFIX}{self.name} {blob}\n"


def _check_text(text: str) -> None:
    if not isinstance(text, str):
        raise NoteError("note text must be a string")
    if not text.endswith("\n"):
        raise NoteError("note text must end with a newline")
    for ch in text:
        if ch != "\n" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            raise NoteError("note text contains a control character")


def _signature_line(text: str, signer: Signer) -> str:
    check_key_name(signer.name)
    return NoteSignature(signer.name, signer.key_hash, signer.sign(text.encode())).line()


def sign(text: str, signer: Signer | Sequence[Signer]) -> str:
    """Sign ``text`` (which must end in a newline) with one or more signers."""
    _check_text(text)
    signers = [signer] if isinstance(signer, Signer) else list(signer)
    if not signers:
        raise NoteError("a note needs at least one signer")
    return text + "\n" + "".join(_signature_line(text, s) for s in signers)


def parse(note_text: str) -> tuple[str, list[NoteSignature]]:
    """Split a note into its text and signatures (nothing is verified here)."""
    if not isinstance(note_text, str):
        raise NoteError("a note must be text")
    split = note_text.rfind("\n\n")
    if split < 0:
        raise NoteError("malformed note: no blank line before the signatures")
    text, sig_block = note_text[: split + 1], note_text[split + 2 :]
    _check_text(text)
    if not sig_block.endswith("\n"):
        raise NoteError("malformed note: signature block must end with a newline")
    signatures: list[NoteSignature] = []
    for line in sig_block[:-1].split("\n"):
        if not line.startswith(SIG_PREFIX):
            raise NoteError(f"malformed note: signature line {line[:40]!r} must start with '— '")
        name, _, blob = line[len(SIG_PREFIX) :].partition(" ")
        if not name or not blob or " " in blob:
            raise NoteError("malformed note: signature line must read '— name signature'")
        try:
            raw = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise NoteError("malformed note: signature is not base64") from exc
        if len(raw) < 5:
            raise NoteError("malformed note: signature too short")
        signatures.append(NoteSignature(name, raw[:4], raw[4:]))
        if len(signatures) > MAX_SIGNATURES:
            raise NoteError("malformed note: too many signatures")
    return text, signatures


def verify(note_text: str, verifier_key: Verifier | str) -> str:
    """Check the note carries a valid signature by ``verifier_key``; return its text."""
    verifier = (
        verifier_key if isinstance(verifier_key, Verifier) else Verifier.from_text(verifier_key)
    )
    text, signatures = parse(note_text)
    matching = [
        s for s in signatures if s.name == verifier.name and s.key_hash == verifier.key_hash
    ]
    if not matching:
        raise NoteError(f"note has no signature by key {verifier.name}+{verifier.key_id}")
    for sig in matching:
        try:
            verifier.verify(text.encode(), sig.signature)
        except Exception as exc:
            raise NoteError(
                f"note signature by {verifier.name}+{verifier.key_id} does not verify"
            ) from exc
    return text


def add_signature(note_text: str, signer: Signer) -> str:
    """Add ``signer``'s signature to an existing note (for example, a witness cosigning)."""
    text, signatures = parse(note_text)
    if any(s.name == signer.name and s.key_hash == signer.key_hash for s in signatures):
        return note_text
    return note_text + _signature_line(text, signer)
