"""Commit-reveal cryptographic shuffles (see docs/shuffle-protocol.md).

Modules: ``kdf`` (encodings, labels, commitments, hand key), ``stream`` (HMAC-SHA256
counter stream and the rejection sampler), ``permute`` (Fisher–Yates), ``dealnumber``
(Big Deal numbers), ``protocol`` (the transcript and :func:`~shuffle.protocol.derive`),
``verify`` (:func:`~shuffle.verify.verify_transcript`), ``ceremony`` (the state
machine between the server and the seats), ``cli`` (``fairplay shuffle``).
"""

from pathlib import Path

__all__ = [
    "SCHEMA_PATH",
]

SCHEMA_PATH = Path(__file__).with_name("schema.json")
"""JSON Schema of the transcript, the record hand's ``shuffle`` object."""
