// RFC 6962 / RFC 9162 Merkle tree hashes and the verification of inclusion and
// consistency proofs, as audit/log/merkle.py (which follows transparency-dev/merkle,
// edge cases included: a leaf hash is 32 bytes, a proof has exactly the expected length,
// a consistency proof from size 0 always fails). Sizes and indices are Numbers (safe
// integers) or BigInts; the bit arithmetic is done on BigInts (JS bit operators stop at 32
// bits). Every verify* throws LOG_INCONSISTENT and returns nothing.

import { VerifyError, concat, ctEqual, sha256 } from "./bytes.js";

export const HASH_SIZE = 32;
export const LEAF_PREFIX = Uint8Array.of(0x00);
export const NODE_PREFIX = Uint8Array.of(0x01);

const proofError = (m) => new VerifyError("LOG_INCONSISTENT", m);

/** SHA-256(0x00 || entry) */
export async function leafHash(entry) {
  return sha256(concat(LEAF_PREFIX, entry));
}

/** SHA-256(0x01 || left || right) */
export async function nodeHash(left, right) {
  return sha256(concat(NODE_PREFIX, left, right));
}

/** The root of the tree of the given entries (not leaf hashes): for tests and small trees. */
export async function rootHash(entries) {
  if (entries.length === 0) return sha256(new Uint8Array(0));
  const hashOf = async (lo, hi) => {
    if (hi - lo === 1) return leafHash(entries[lo]);
    let k = 1;
    while (k * 2 < hi - lo) k *= 2;
    return nodeHash(await hashOf(lo, lo + k), await hashOf(lo + k, hi));
  };
  return hashOf(0, entries.length);
}

const bitLength = (n) => (n === 0n ? 0 : n.toString(2).length);
const popCount = (n) => [...n.toString(2)].filter((c) => c === "1").length;

function natural(value, what) {
  if (typeof value === "bigint" && value >= 0n) return value;
  if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw proofError(`${what} must be a non-negative integer`);
}

function checkHashes(what, hashes) {
  if (!Array.isArray(hashes)) throw proofError(`${what} must be a list of hashes`);
  hashes.forEach((h, i) => {
    if (!(h instanceof Uint8Array) || h.length !== HASH_SIZE) throw proofError(`${what}[${i}] is not a ${HASH_SIZE}-byte hash`);
  });
}

function match(computed, expected, what) {
  if (!(expected instanceof Uint8Array) || !ctEqual(computed, expected)) {
    throw proofError(`${what} does not match the computed root`);
  }
}

function innerBorder(index, size) {
  const inner = bitLength(index ^ (size - 1n));
  const border = popCount(index >> BigInt(inner));
  return [inner, border];
}

/** The root an inclusion proof implies for `leaf` at `index` in a tree of `size`;
 * `hashNode` computes nodeHash (a verifier of many proofs of one tree may cache it). */
export async function rootFromInclusionProof(leaf, index, size, proof, { hashNode = nodeHash } = {}) {
  const i = natural(index, "index");
  const n = natural(size, "size");
  if (i >= n) throw proofError(`index ${i} is beyond tree size ${n}`);
  if (!(leaf instanceof Uint8Array) || leaf.length !== HASH_SIZE) throw proofError(`leaf hash must be ${HASH_SIZE} bytes`);
  checkHashes("proof", proof);
  const [inner, border] = innerBorder(i, n);
  if (proof.length !== inner + border) {
    throw proofError(`inclusion proof has ${proof.length} hashes, expected ${inner + border}`);
  }
  let acc = leaf;
  for (let k = 0; k < inner; k++) {
    acc = ((i >> BigInt(k)) & 1n) === 0n ? await hashNode(acc, proof[k]) : await hashNode(proof[k], acc);
  }
  for (const h of proof.slice(inner)) acc = await hashNode(h, acc);
  return acc;
}

/** Check that `leaf` (a leaf hash) is leaf `index` of the tree of `size` with `root`. */
export async function verifyInclusion(leaf, index, size, proof, root, options = {}) {
  match(await rootFromInclusionProof(leaf, index, size, proof, options), root, "root");
}

/** Check that the tree (size1, root1) is a prefix of the tree (size2, root2). */
export async function verifyConsistency(size1, size2, root1, root2, proof) {
  const n1 = natural(size1, "size1");
  const n2 = natural(size2, "size2");
  if (!Array.isArray(proof)) throw proofError("proof must be a list of hashes");
  if (n2 < n1) throw proofError(`size2 (${n2}) is smaller than size1 (${n1})`);
  if (n1 === 0n) throw proofError("a consistency proof from the empty tree proves nothing");
  if (n1 === n2) {
    if (proof.length) throw proofError("sizes are equal but the proof is not empty");
    match(root1 instanceof Uint8Array ? root1 : new Uint8Array(0), root2, "root2");
    return;
  }
  if (proof.length === 0) throw proofError("empty consistency proof between different sizes");
  checkHashes("proof", proof);
  let [inner, border] = innerBorder(n1 - 1n, n2);
  const shift = bitLength(n1 & -n1) - 1;
  inner -= shift;
  const powerOfTwo = n1 === 1n << BigInt(shift);
  let seed;
  let rest;
  if (powerOfTwo) {
    if (!(root1 instanceof Uint8Array) || root1.length !== HASH_SIZE) throw proofError(`root1 must be ${HASH_SIZE} bytes`);
    [seed, rest] = [root1, proof];
  } else {
    [seed, rest] = [proof[0], proof.slice(1)];
  }
  if (rest.length !== inner + border) {
    const expected = inner + border + (powerOfTwo ? 0 : 1);
    throw proofError(`consistency proof has ${proof.length} hashes, expected ${expected}`);
  }
  const mask = (n1 - 1n) >> BigInt(shift);
  let hash1 = seed;
  let hash2 = seed;
  for (let k = 0; k < inner; k++) {
    const h = rest[k];
    if ((mask >> BigInt(k)) & 1n) {
      hash1 = await nodeHash(h, hash1);
      hash2 = await nodeHash(h, hash2);
    } else {
      hash2 = await nodeHash(hash2, h);
    }
  }
  for (const h of rest.slice(inner)) {
    hash1 = await nodeHash(h, hash1);
    hash2 = await nodeHash(h, hash2);
  }
  match(hash1, root1, "root1");
  match(hash2, root2, "root2");
}
