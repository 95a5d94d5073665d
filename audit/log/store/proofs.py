"""Inclusion and consistency proofs (RFC 6962), computed from the stored tree's nodes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from audit.log import merkle
from audit.log.store.reads import LogReads

__all__ = ["LogProofs"]


class LogProofs(LogReads):
    """Audit paths, one entry at a time or in batches, and consistency proofs."""

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """The audit path of entry ``index`` in the tree of ``size`` (default: current)."""
        with self._lock:
            size = self._size() if size is None else size
            self._check_size(size)
            ranges = merkle.inclusion_ranges(index, size)
            return merkle.proof_from_nodes(ranges, self._nodes(merkle.nodes_for(ranges)))

    def inclusion_proofs(
        self, indices: Sequence[int], size: int, *, batch: int = 4096
    ) -> Iterator[tuple[int, list[bytes]]]:
        """``(index, audit path)`` of every entry in ``indices`` (ascending) in the tree of
        ``size``: the stored nodes the paths of ``batch`` neighbouring entries need are read
        together (neighbours share most of them), instead of two queries per entry."""
        with self._lock:
            self._check_size(size)
        for start in range(0, len(indices), batch):
            part = indices[start : start + batch]
            plans = [(i, merkle.inclusion_ranges(i, size)) for i in part]
            shared = {r: b"" for _, ranges in plans for r in ranges}  # upper ranges repeat
            wanted = merkle.nodes_for(shared)
            nodes: dict[merkle.Node, bytes] = {}
            for at in range(0, len(wanted), 500):  # the lock per query, not per batch
                with self._lock:
                    nodes |= self._nodes(wanted[at : at + 500])
            for r in shared:
                shared[r] = merkle.range_hash(r[0], r[1], nodes)
            for i, ranges in plans:
                yield i, [shared[r] for r in ranges]

    def consistency_proof(self, size1: int, size2: int | None = None) -> list[bytes]:
        """The consistency proof from the tree of ``size1`` to that of ``size2``."""
        with self._lock:
            size2 = self._size() if size2 is None else size2
            self._check_size(size2)
            if size1 == size2:
                return []
            ranges = merkle.consistency_ranges(size1, size2)
            return merkle.proof_from_nodes(ranges, self._nodes(merkle.nodes_for(ranges)))
