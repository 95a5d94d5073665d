"""Proofs as they are handed out: JSON and tlog-proof text naming their checkpoint.

Each proof is computed against a checkpoint (the current one, issued if needed, or one
the caller names) and carries that checkpoint's note, so a client checks the two
together. ``fairplay log`` prints :meth:`LogServing.tlog_proof`; the HTTP service builds
its own answers (:mod:`api.hand_log`) from the same proofs and checkpoints.
"""

from __future__ import annotations

import base64
from typing import Any

from audit.log import merkle
from audit.log.checkpoint import Checkpoint, format_tlog_proof
from audit.log.checkpoint import parse as parse_checkpoint
from audit.log.errors import LogInconsistent, StoreError
from audit.log.note import parse as parse_note
from audit.log.store.checkpoints import LogCheckpoints

__all__ = ["LogServing"]


class LogServing(LogCheckpoints):
    """Inclusion and consistency proofs, each with its checkpoint."""

    def _serving_checkpoint(self, note_text: str | None) -> tuple[str, Checkpoint]:
        if note_text is None:
            note_text = self.checkpoint() if self.signer else self.latest_checkpoint()
        if note_text is None:
            raise StoreError("no checkpoint has been issued yet")
        return note_text, parse_checkpoint(parse_note(note_text)[0])

    def serve_inclusion(self, index: int, checkpoint: str | None = None) -> dict[str, Any]:
        """An inclusion proof as JSON, naming the checkpoint it was computed against.

        ``checkpoint`` defaults to the current one (issued if needed). Returns
        ``{"index", "size", "leaf_hash", "proof": [base64...], "checkpoint": note}``.
        """
        note_text, cp = self._serving_checkpoint(checkpoint)
        leaves = self.leaves(index, index + 1)
        if not leaves or index >= cp.size:
            raise LogInconsistent(f"entry {index} is not in the checkpoint of size {cp.size}")
        proof = self.inclusion_proof(index, cp.size)
        return {
            "index": index,
            "size": cp.size,
            "leaf_hash": base64.b64encode(merkle.leaf_hash(leaves[0])).decode(),
            "proof": [base64.b64encode(h).decode() for h in proof],
            "checkpoint": note_text,
        }

    def serve_consistency(self, size1: int, checkpoint: str | None = None) -> dict[str, Any]:
        """A consistency proof from ``size1`` to a checkpoint, as JSON naming that checkpoint."""
        note_text, cp = self._serving_checkpoint(checkpoint)
        proof = self.consistency_proof(size1, cp.size)
        return {
            "size1": size1,
            "size2": cp.size,
            "proof": [base64.b64encode(h).decode() for h in proof],
            "checkpoint": note_text,
        }

    def tlog_proof(self, index: int, checkpoint: str | None = None) -> str:
        """Entry ``index``'s inclusion as a c2sp.org/tlog-proof naming its checkpoint."""
        served = self.serve_inclusion(index, checkpoint)
        proof = [base64.b64decode(h) for h in served["proof"]]
        return format_tlog_proof(index, proof, served["checkpoint"])

    def tree_hash_b64(self, size: int | None = None) -> str:
        return base64.b64encode(self.root(size)).decode()
