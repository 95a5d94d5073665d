// The Merkle module against the RFC 6962 / transparency-dev vectors: hasher units, the
// standard tree's proofs, tessera's log, and the 196 golden probe files (including the
// tampered proofs that must fail), as tests/log/test_merkle.py does for the Python.
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { fromBase64, fromHex, toHex, utf8 } from "../../api/static/js/bytes.js";
import * as merkle from "../../api/static/js/merkle.js";
import { readJson, TLOG, MERKLE_PROBES } from "./paths.mjs";

const dir = TLOG;
const vectors = () => readJson(join(dir, "tlog_vectors.json"));
const b64 = (v) => fromBase64(v ?? "");

test("hasher unit vectors", async () => {
  const vec = vectors().hasher_unit_vectors.vectors;
  assert.equal(toHex(await merkle.rootHash([])), vec[0].hash_hex);
  assert.equal(toHex(await merkle.leafHash(new Uint8Array(0))), vec[1].hash_hex);
  assert.equal(toHex(await merkle.leafHash(fromHex(vec[2].leaf_input_hex))), vec[2].hash_hex);
  assert.equal(toHex(await merkle.nodeHash(fromHex(vec[3].left_hex), fromHex(vec[3].right_hex))), vec[3].hash_hex);
});

test("the RFC 6962 standard tree: roots, inclusion and consistency proofs", async () => {
  const std = vectors().rfc6962_standard_tree;
  const leaves = std.leaf_inputs_hex.map(fromHex);
  for (const [size, root] of Object.entries(std.root_hashes_by_tree_size_hex)) {
    assert.equal(toHex(await merkle.rootHash(leaves.slice(0, Number(size)))), root);
  }
  for (const p of std.inclusion_proofs) {
    await merkle.verifyInclusion(fromHex(p.leaf_hash_hex), p.leaf_index, p.tree_size, p.audit_path_hex.map(fromHex), fromHex(p.root_hex));
  }
  for (const p of std.consistency_proofs) {
    await merkle.verifyConsistency(p.size1, p.size2, fromHex(p.root1_hex), fromHex(p.root2_hex), p.proof_hex.map(fromHex));
  }
  assert.ok(std.inclusion_proofs.length > 0 && std.consistency_proofs.length > 0);
});

test("tessera's test log: locally derived proofs", async () => {
  const tess = vectors().tessera_tiled_test_log;
  for (const p of tess.derived_locally_inclusion_proofs) {
    const leaf = await merkle.leafHash(utf8(p.entry_utf8));
    assert.equal(toHex(leaf), toHex(b64(p.leaf_hash_b64)));
    await merkle.verifyInclusion(leaf, p.leaf_index, p.tree_size, p.audit_path_b64.map(b64), b64(p.root_b64));
  }
  for (const p of tess.derived_locally_consistency_proofs) {
    await merkle.verifyConsistency(p.size1, p.size2, b64(p.root1_b64), b64(p.root2_b64), p.proof_b64.map(b64));
  }
});

function probeFiles(kind) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".json")) out.push(p);
    }
  };
  walk(join(MERKLE_PROBES, kind));
  assert.ok(out.length >= 90, `${kind}: ${out.length} probe files`);
  return out;
}

test("transparency-dev inclusion probes: good ones verify, tampered ones fail", async () => {
  let failures = 0;
  for (const f of probeFiles("inclusion")) {
    const p = readJson(f);
    const run = () => merkle.verifyInclusion(b64(p.leafHash), p.leafIdx, p.treeSize, (p.proof ?? []).map(b64), b64(p.root));
    if (p.wantErr) {
      await assert.rejects(run, { code: "LOG_INCONSISTENT" }, f);
      failures += 1;
    } else {
      await run();
    }
  }
  assert.ok(failures > 50);
});

test("transparency-dev consistency probes: good ones verify, tampered ones fail", async () => {
  let failures = 0;
  for (const f of probeFiles("consistency")) {
    const p = readJson(f);
    const run = () => merkle.verifyConsistency(p.size1, p.size2, b64(p.root1), b64(p.root2), (p.proof ?? []).map(b64));
    if (p.wantErr) {
      await assert.rejects(run, { code: "LOG_INCONSISTENT" }, f);
      failures += 1;
    } else {
      assert.equal(await run(), undefined);
    }
  }
  assert.ok(failures > 50);
});

test("sizes beyond 32 bits are handled as integers, not as 32-bit words", async () => {
  // A leaf at index 2^32 of a tree of 2^32 + 1 leaves: its proof is one hash, the root of
  // the first 2^32 leaves (a 32-bit `^` or `>>` would get inner/border wrong).
  const leaf = await merkle.leafHash(utf8("x"));
  const left = new Uint8Array(32).fill(7);
  const root = await merkle.nodeHash(left, leaf);
  await merkle.verifyInclusion(leaf, 2 ** 32, 2 ** 32 + 1, [left], root);
  await assert.rejects(merkle.verifyInclusion(leaf, 2 ** 32, 2 ** 32 + 1, [left], left), { code: "LOG_INCONSISTENT" });
});
