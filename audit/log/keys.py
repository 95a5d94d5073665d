"""Ed25519 keys in the C2SP signed-note text forms.

A verifier key reads ``name+hash+base64(0x01 || public key)`` and a signer key
``PRIVATE+KEY+name+hash+base64(0x01 || seed)`` (c2sp.org/signed-note, the Go
``sumdb/note`` package), where ``hash`` is the key ID: the first four bytes of
``SHA-256(name || 0x0a || 0x01 || public key)`` in hex. Key files hold the signer text
and a newline; they are written with mode 0600.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from audit.log.ed25519 import check_public_key, check_signature_encoding
from audit.log.errors import KeyFormatError, LogSignatureInvalid

__all__ = [
    "PRIVATE_PREFIX",
    "Signer",
    "Verifier",
    "check_key_name",
    "generate_signer",
    "key_hash",
    "load_signer",
    "load_verifier",
    "save_signer",
    "signature_valid",
]

ALG_ED25519 = 0x01
PRIVATE_PREFIX = "PRIVATE+KEY+"


def check_key_name(name: str) -> str:
    """A key name is non-empty, has no whitespace and no ``+`` (c2sp.org/signed-note)."""
    if not isinstance(name, str) or not name:
        raise KeyFormatError("key name must be a non-empty string")
    if "+" in name or any(c.isspace() for c in name) or not name.isprintable():
        raise KeyFormatError(f"key name {name!r} contains '+', whitespace or control characters")
    return name


def key_hash(name: str, public_key: bytes) -> bytes:
    """The 4-byte key ID of an Ed25519 key named ``name``."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + public_key).digest()[:4]


@functools.lru_cache(maxsize=4096)
def _ed25519_key(raw: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(raw)


def signature_valid(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` signs ``message`` under the raw 32-byte ``public_key`` (64
    bytes, ``S`` below the group order, and valid): :meth:`Verifier.verify` without the
    error, for a key a :class:`Verifier` has already accepted (the batch checks of
    :mod:`audit.log.sigbatch` run it in other processes)."""
    try:
        check_signature_encoding(signature)
        _ed25519_key(public_key).verify(signature, message)
    except (LogSignatureInvalid, InvalidSignature, ValueError):
        return False
    return True


def _b64decode(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise KeyFormatError(f"{what}: invalid base64") from exc
    if base64.b64encode(raw).decode("ascii") != text:
        raise KeyFormatError(f"{what}: not canonical base64")
    return raw


@dataclass(frozen=True, slots=True)
class Verifier:
    """A named Ed25519 public key that checks signatures (and notes, see audit.log.note).

    Every public key the project accepts becomes a ``Verifier``, and constructing one
    refuses a non-canonical or small-order key with :class:`WeakKeyError`
    (``LOG_KEY_WEAK``, see :mod:`audit.log.ed25519`): such a key would "verify" forged
    signatures.
    """

    name: str
    public_key: bytes

    def __post_init__(self) -> None:
        check_public_key(self.public_key)

    @property
    def key_hash(self) -> bytes:
        """The 4-byte key ID used in note signatures."""
        return key_hash(self.name, self.public_key)

    @property
    def key_id(self) -> str:
        """The key ID as 8 hex digits, as it appears in the key text."""
        return self.key_hash.hex()

    def text(self) -> str:
        """The C2SP verifier key text ``name+hash+base64``."""
        blob = base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()
        return f"{self.name}+{self.key_id}+{blob}"

    def verify(self, message: bytes, signature: bytes) -> None:
        """Raise :class:`LogSignatureInvalid` unless ``signature`` signs ``message``
        (64 bytes, ``S`` below the group order, and valid under this key)."""
        check_signature_encoding(signature)
        try:
            _ed25519_key(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError) as exc:
            raise LogSignatureInvalid(f"signature does not verify under key {self.name}") from exc

    @classmethod
    def from_text(cls, vkey: str) -> Verifier:
        """Parse ``name+hash+base64``; the hash must match the key."""
        if not isinstance(vkey, str):
            raise KeyFormatError("verifier key must be text")
        vkey = vkey.strip()
        parts = vkey.split("+", 2)
        if len(parts) != 3:
            raise KeyFormatError("verifier key must read name+hash+base64")
        name, hash_hex, blob = parts
        check_key_name(name)
        raw = _b64decode(blob, "verifier key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise KeyFormatError("verifier key is not an Ed25519 (0x01) key")
        verifier = cls(name, raw[1:])
        if len(hash_hex) != 8 or hash_hex.lower() != verifier.key_id:
            raise KeyFormatError(f"verifier key hash {hash_hex!r} does not match the key")
        return verifier

    def __repr__(self) -> str:
        return f"Verifier.from_text({self.text()!r})"


class Signer:
    """A named Ed25519 private key. ``sign`` returns a raw 64-byte signature."""

    __slots__ = ("name", "_private", "_public")

    def __init__(self, name: str, seed: bytes) -> None:
        check_key_name(name)
        if len(seed) != 32:
            raise KeyFormatError("an Ed25519 seed is 32 bytes")
        self.name = name
        self._private = Ed25519PrivateKey.from_private_bytes(seed)
        self._public = self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def public_key(self) -> bytes:
        return self._public

    @property
    def key_hash(self) -> bytes:
        return key_hash(self.name, self._public)

    @property
    def key_id(self) -> str:
        """The key ID as 8 hex digits."""
        return self.key_hash.hex()

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature of ``message`` (deterministic)."""
        return self._private.sign(message)

    def derive_secret(self, label: bytes, length: int = 32) -> bytes:
        """A secret derived from this key for one purpose: HKDF-SHA256 (RFC 5869) of the
        private seed, with ``label`` as the info string, so that no two labels give
        related secrets and none reveals anything of the key (the service derives each
        hand's server seed this way, so a crash cannot lose one)."""
        seed = self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return HKDF(algorithm=SHA256(), length=length, salt=None, info=label).derive(seed)

    def verifier(self) -> Verifier:
        return Verifier(self.name, self._public)

    def verifier_key(self) -> str:
        """The C2SP verifier key text for this signer."""
        return self.verifier().text()

    def private_key_text(self) -> str:
        """The secret ``PRIVATE+KEY+name+hash+base64`` text; keep it secret."""
        from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

        seed = self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        blob = base64.b64encode(bytes([ALG_ED25519]) + seed).decode()
        return f"{PRIVATE_PREFIX}{self.name}+{self.key_id}+{blob}"

    @classmethod
    def from_text(cls, skey: str) -> Signer:
        """Parse ``PRIVATE+KEY+name+hash+base64``; the hash must match the key."""
        if not isinstance(skey, str) or not skey.strip().startswith(PRIVATE_PREFIX):
            raise KeyFormatError("signer key must start with PRIVATE+KEY+")
        parts = skey.strip()[len(PRIVATE_PREFIX) :].split("+", 2)
        if len(parts) != 3:
            raise KeyFormatError("signer key must read PRIVATE+KEY+name+hash+base64")
        name, hash_hex, blob = parts
        raw = _b64decode(blob, "signer key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise KeyFormatError("signer key is not an Ed25519 (0x01) key")
        signer = cls(name, raw[1:])
        if hash_hex.lower() != signer.key_id:
            raise KeyFormatError(f"signer key hash {hash_hex!r} does not match the key")
        return signer

    def __repr__(self) -> str:
        return f"<Signer {self.name}+{self.key_id}>"


def generate_signer(name: str, *, rng: Callable[[int], bytes] = os.urandom) -> Signer:
    """A new Ed25519 signer; ``rng(n)`` supplies the 32-byte seed (injectable for tests)."""
    return Signer(name, rng(32))


def save_signer(signer: Signer, path: str | Path) -> None:
    """Write the signer key text to ``path`` with mode 0600 (refuses to overwrite:
    ``FileExistsError``).

    The file appears whole or not at all: the text is written to a private file beside
    it, which is then linked to ``path`` (a link never replaces a file). Two processes
    creating the key at once (the hosts of a service started together) see one key; the
    loser never reads a file the winner has created but not yet written."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(signer.private_key_text() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, p)
    finally:
        os.unlink(tmp)


def load_signer(path: str | Path) -> Signer:
    """Read a signer key file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise KeyFormatError(f"cannot read signer key file {path}: {exc.strerror}") from exc
    return Signer.from_text(text)


def load_verifier(source: str | Path) -> Verifier:
    """A verifier from key text, or from a file holding it (``@path`` or an existing path)."""
    text = str(source)
    if text.startswith("@"):
        text = text[1:]
    candidate = Path(text)
    if text.count("+") < 2 or candidate.is_file():
        try:
            text = candidate.read_text()
        except OSError as exc:
            raise KeyFormatError(f"cannot read verifier key file {source}: {exc.strerror}") from exc
    return Verifier.from_text(text)
