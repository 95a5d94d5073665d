"""RFC 6962 / RFC 9162 Merkle trees: hashes, roots, inclusion and consistency proofs.

Hashing is SHA-256 with domain separation (RFC 6962 section 2.1): a leaf hashes as
``SHA-256(0x00 || entry)``, an interior node as ``SHA-256(0x01 || left || right)``, the
empty tree as ``SHA-256("")``. A tree of ``n`` leaves splits at ``k``, the largest power
of two smaller than ``n``. Indices are 0-based. Proof paths run from the leaf's sibling up
to the root's child, as in RFC 6962 section 2.1.1.

The stable verifier API for third parties is ``__all__``: :func:`verify_inclusion`,
:func:`verify_consistency`, :func:`root_from_inclusion_proof`, :func:`leaf_hash`,
:func:`node_hash`, :func:`root_hash`, :func:`inclusion_proof`, :func:`consistency_proof`
and the constants ``HASH_SIZE``, ``LEAF_PREFIX``, ``NODE_PREFIX``, ``EMPTY_ROOT``; their
names and signatures do not change. The other names (the node planning, ``Frontier``)
serve the log's own store and may change. ``verify_*`` return ``None`` and raise
:class:`audit.log.errors.ProofError` (code ``LOG_INCONSISTENT``); hashes and proofs are
``bytes``. The verification follows transparency-dev/merkle exactly,
including its edge cases: the leaf hash must be 32 bytes, the proof must have exactly the
expected length, and a consistency proof from size 0 always fails (even 0 to 0).

Every *complete* subtree is addressed as ``(level, idx)``: it covers leaves
``[idx << level, (idx + 1) << level)``. A stored log keeps these nodes (about two per
leaf), so appends and proofs touch O(log n) of them; :func:`inclusion_nodes`,
:func:`consistency_nodes` and :func:`proof_from_nodes` plan and assemble proofs from
them, and the list functions here use the same planning on an in-memory tree.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from audit.log.errors import ProofError

__all__ = [
    "HASH_SIZE",
    "LEAF_PREFIX",
    "NODE_PREFIX",
    "EMPTY_ROOT",
    "leaf_hash",
    "node_hash",
    "root_hash",
    "inclusion_proof",
    "consistency_proof",
    "root_from_inclusion_proof",
    "verify_inclusion",
    "verify_consistency",
]

HASH_SIZE = 32
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
EMPTY_ROOT = hashlib.sha256(b"").digest()

Node = tuple[int, int]
"""A complete subtree ``(level, idx)`` covering leaves ``[idx << level, (idx+1) << level)``."""

Range = tuple[int, int]
"""A leaf range ``[start, end)`` of one RFC 6962 subtree (complete or right-edge)."""


def leaf_hash(entry: bytes) -> bytes:
    """The RFC 6962 leaf hash ``SHA-256(0x00 || entry)``."""
    return hashlib.sha256(LEAF_PREFIX + bytes(entry)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The RFC 6962 interior node hash ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def split_point(n: int) -> int:
    """The largest power of two strictly smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


# --------------------------------------------------------------------------- planning


def decompose(start: int, end: int) -> list[Node]:
    """The complete subtrees covering ``[start, end)`` of an RFC 6962 tree, left to right.

    ``[start, end)`` must be a subtree range of the tree (``start`` a multiple of the
    largest power of two not above ``end - start``), as produced by the proof planners.
    """
    nodes: list[Node] = []
    while start < end:
        width = end - start
        level = width.bit_length() - 1
        while start & ((1 << level) - 1):
            level -= 1
        nodes.append((level, start >> level))
        start += 1 << level
    return nodes


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """The subtree ranges whose hashes form PATH(index, D[0:size]), leaf sibling first."""
    if not 0 <= index < size:
        raise ProofError(f"index {index} is outside a tree of size {size}")
    out: list[Range] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = split_point(hi - lo)
        if index < lo + k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo += k
    out.reverse()
    return out


def consistency_ranges(size1: int, size2: int) -> list[Range]:
    """The subtree ranges whose hashes form PROOF(size1, D[0:size2]) (RFC 6962 2.1.2)."""
    if not 0 < size1 <= size2:
        raise ProofError(f"no consistency proof from size {size1} to size {size2}")
    out: list[Range] = []
    lo, hi, whole = 0, size2, True
    while True:
        m = size1 - lo
        if m == hi - lo:
            if not whole:
                out.append((lo, hi))
            break
        k = split_point(hi - lo)
        if m <= k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo += k
            whole = False
    out.reverse()
    return out


def nodes_for(ranges: Iterable[Range]) -> list[Node]:
    """Every stored node needed to hash the given ranges (deduplicated, in order)."""
    seen: dict[Node, None] = {}
    for start, end in ranges:
        for node in decompose(start, end):
            seen[node] = None
    return list(seen)


def range_hash(start: int, end: int, nodes: Mapping[Node, bytes]) -> bytes:
    """The hash of subtree ``[start, end)`` from the complete nodes covering it."""
    if start == end:
        return EMPTY_ROOT
    parts = [nodes[n] for n in decompose(start, end)]
    acc = parts[-1]
    for part in reversed(parts[:-1]):
        acc = node_hash(part, acc)
    return acc


def inclusion_nodes(index: int, size: int) -> list[Node]:
    """The stored nodes from which an inclusion proof is assembled (O(log size))."""
    return nodes_for(inclusion_ranges(index, size))


def consistency_nodes(size1: int, size2: int) -> list[Node]:
    """The stored nodes from which a consistency proof is assembled (O(log size2))."""
    return nodes_for(consistency_ranges(size1, size2))


def root_nodes(size: int) -> list[Node]:
    """The stored nodes from which the root of a tree of ``size`` leaves is computed."""
    return decompose(0, size)


def proof_from_nodes(ranges: Sequence[Range], nodes: Mapping[Node, bytes]) -> list[bytes]:
    """Assemble a proof from planned ranges and the fetched node hashes."""
    return [range_hash(start, end, nodes) for start, end in ranges]


# --------------------------------------------------------------------------- in memory


@dataclass(slots=True)
class Frontier:
    """The right edge of a tree: the complete subtrees of its size's binary decomposition.

    Appending a leaf costs O(log n) hashing and yields the new complete nodes to store;
    the root follows from the frontier alone.
    """

    size: int = 0
    nodes: list[tuple[int, int, bytes]] = field(default_factory=list)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add one leaf hash; return the complete nodes ``(level, idx, hash)`` it creates."""
        created = [(0, self.size, leaf)]
        self.nodes.append((0, self.size, leaf))
        while len(self.nodes) >= 2 and self.nodes[-1][0] == self.nodes[-2][0]:
            level, idx, right = self.nodes.pop()
            _, left_idx, left = self.nodes.pop()
            merged = (level + 1, left_idx >> 1, node_hash(left, right))
            self.nodes.append(merged)
            created.append(merged)
        self.size += 1
        return created

    def root(self) -> bytes:
        """The Merkle tree hash of the leaves appended so far."""
        if not self.nodes:
            return EMPTY_ROOT
        acc = self.nodes[-1][2]
        for _, _, h in reversed(self.nodes[:-1]):
            acc = node_hash(h, acc)
        return acc

    @classmethod
    def from_nodes(cls, size: int, get: Callable[[list[Node]], Mapping[Node, bytes]]) -> Frontier:
        """Rebuild the frontier of a stored tree from its O(log n) complete nodes."""
        wanted = root_nodes(size)
        found = get(wanted)
        return cls(size, [(lvl, idx, found[(lvl, idx)]) for lvl, idx in wanted])


def _levels(entries: Sequence[bytes]) -> dict[Node, bytes]:
    nodes: dict[Node, bytes] = {}
    row = [leaf_hash(e) for e in entries]
    level = 0
    while row:
        for i, h in enumerate(row):
            nodes[(level, i)] = h
        row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row) - 1, 2)]
        level += 1
    return nodes


def root_hash(entries: Sequence[bytes]) -> bytes:
    """The Merkle tree hash MTH(D[0:n]) of the given leaf entries (not leaf hashes)."""
    frontier = Frontier()
    for entry in entries:
        frontier.append(leaf_hash(entry))
    return frontier.root()


def inclusion_proof(entries: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path PATH(index, D[0:n]) for ``entries[index]``."""
    ranges = inclusion_ranges(index, len(entries))
    return proof_from_nodes(ranges, _levels(entries))


def inclusion_proofs(entries: Sequence[bytes]) -> list[list[bytes]]:
    """The audit path of every entry, the tree hashed once (``inclusion_proof`` for each
    index hashes the whole tree again: quadratic in the entries)."""
    nodes = _levels(entries)
    size = len(entries)
    return [proof_from_nodes(inclusion_ranges(n, size), nodes) for n in range(size)]


def consistency_proof(entries: Sequence[bytes], size1: int) -> list[bytes]:
    """The consistency proof PROOF(size1, D[0:n]) from the first ``size1`` entries."""
    ranges = consistency_ranges(size1, len(entries))
    return proof_from_nodes(ranges, _levels(entries))


# --------------------------------------------------------------------------- verifying


def _check_hashes(what: str, hashes: Sequence[bytes]) -> None:
    for i, h in enumerate(hashes):
        if not isinstance(h, bytes | bytearray) or len(h) != HASH_SIZE:
            raise ProofError(f"{what}[{i}] is not a {HASH_SIZE}-byte hash")


def _match(computed: bytes, expected: bytes, what: str) -> None:
    if not isinstance(expected, bytes | bytearray) or not hmac.compare_digest(
        computed, bytes(expected)
    ):
        raise ProofError(f"{what} does not match the computed root")


def _inner_border(index: int, size: int) -> tuple[int, int]:
    inner = (index ^ (size - 1)).bit_length()
    border = bin(index >> inner).count("1")
    return inner, border


def root_from_inclusion_proof(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes]
) -> bytes:
    """The root implied by an inclusion proof; raises if the proof is malformed."""
    if not isinstance(index, int) or not isinstance(size, int) or index < 0 or size < 0:
        raise ProofError("index and size must be non-negative integers")
    if index >= size:
        raise ProofError(f"index {index} is beyond tree size {size}")
    if not isinstance(leaf_hash, bytes | bytearray) or len(leaf_hash) != HASH_SIZE:
        raise ProofError(f"leaf hash must be {HASH_SIZE} bytes")
    proof = list(proof)
    _check_hashes("proof", proof)
    inner, border = _inner_border(index, size)
    if len(proof) != inner + border:
        raise ProofError(f"inclusion proof has {len(proof)} hashes, expected {inner + border}")
    acc = bytes(leaf_hash)
    for i, h in enumerate(proof[:inner]):
        acc = node_hash(acc, h) if (index >> i) & 1 == 0 else node_hash(h, acc)
    for h in proof[inner:]:
        acc = node_hash(h, acc)
    return acc


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """Check that ``leaf_hash`` is leaf ``index`` of the tree of ``size`` with ``root``."""
    computed = root_from_inclusion_proof(leaf_hash, index, size, proof)
    _match(computed, root, "root")


def verify_consistency(
    size1: int, size2: int, root1: bytes, root2: bytes, proof: Sequence[bytes]
) -> None:
    """Check that the tree (size1, root1) is a prefix of the tree (size2, root2)."""
    if not all(isinstance(s, int) and s >= 0 for s in (size1, size2)):
        raise ProofError("sizes must be non-negative integers")
    proof = list(proof)
    if size2 < size1:
        raise ProofError(f"size2 ({size2}) is smaller than size1 ({size1})")
    if size1 == 0:
        raise ProofError("a consistency proof from the empty tree proves nothing")
    if size1 == size2:
        if proof:
            raise ProofError("sizes are equal but the proof is not empty")
        _match(bytes(root1) if isinstance(root1, bytes | bytearray) else b"", root2, "root2")
        return
    if not proof:
        raise ProofError("empty consistency proof between different sizes")
    _check_hashes("proof", proof)
    inner, border = _inner_border(size1 - 1, size2)
    shift = (size1 & -size1).bit_length() - 1
    inner -= shift
    if size1 == 1 << shift:
        if not isinstance(root1, bytes | bytearray) or len(root1) != HASH_SIZE:
            raise ProofError(f"root1 must be {HASH_SIZE} bytes")
        seed, rest = bytes(root1), proof
    else:
        seed, rest = proof[0], proof[1:]
    if len(rest) != inner + border:
        expected = inner + border + (0 if size1 == 1 << shift else 1)
        raise ProofError(f"consistency proof has {len(proof)} hashes, expected {expected}")
    mask = (size1 - 1) >> shift
    hash1 = seed
    hash2 = seed
    for i, h in enumerate(rest[:inner]):
        if (mask >> i) & 1:
            hash1 = node_hash(h, hash1)
            hash2 = node_hash(h, hash2)
        else:
            hash2 = node_hash(hash2, h)
    for h in rest[inner:]:
        hash1 = node_hash(h, hash1)
        hash2 = node_hash(h, hash2)
    _match(hash1, root1, "root1")
    _match(hash2, root2, "root2")
