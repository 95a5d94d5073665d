// Canonical JSON byte for byte as the Python writes it, the consistency of two signed
// checkpoints (tessera's published log, and a fork signed with its published test key),
// and the trick rule verifyHand replays.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { fromBase64, toBase64, toHex, utf8 } from "../../api/static/js/bytes.js";
import { canonicalJson } from "../../api/static/js/canonical.js";
import { checkConsistency } from "../../api/static/js/events.js";
import { trickWinner } from "../../api/static/js/hand.js";
import { cardOf } from "../../api/static/js/shuffle.js";
import { readJson, TLOG, MERKLE_PROBES } from "./paths.mjs";

const dir = TLOG;

// Input JSON and the hex of audit.log.events.canonical_json of it (computed by the Python).
const CANONICAL = [
  [
    '{"b": 1, "a": [true, false, null], "\\u00e9": "x", "A": 0, "\\u20ac": "\\u2028\\u007f"}',
    "7b2241223a302c2261223a5b747275652c66616c73652c6e756c6c5d2c2262223a312c22c3a9223a2278222c22e282ac223a22e280a87f227d",
  ],
  [
    '{"s": "\\u0000\\u001f\\"\\\\\\b\\f\\n\\r\\t/\\u00e9\\ud83d\\ude00"}',
    "7b2273223a225c75303030305c75303031665c225c5c5c625c665c6e5c725c742fc3a9f09f9880227d",
  ],
  // Keys sort by UTF-16 code units: U+1F600 (D83D DE00) before U+FF61.
  [
    '{"\\ud83d\\ude00": 1, "\\uff61": 2, "z": 3, "": {}}',
    "7b22223a7b7d2c227a223a332c22f09f9880223a312c22efbda1223a327d",
  ],
  ["[9007199254740991, -9007199254740991, []]", "5b393030373139393235343734303939312c2d393030373139393235343734303939312c5b5d5d"],
];

test("canonical JSON is byte for byte the Python's", () => {
  for (const [input, hex] of CANONICAL) assert.equal(toHex(canonicalJson(JSON.parse(input))), hex, input);
});

test("canonical JSON refuses what the Python refuses", () => {
  for (const bad of [1.5, 2 ** 53, -(2 ** 53), { a: "\ud800" }, ["\udc00x"], { f: () => 1 }]) {
    assert.throws(() => canonicalJson(bad), { code: "NOT_CANONICAL" }, String(bad));
  }
});

async function signerFromSkey(skey) {
  // PRIVATE+KEY+name+hash+base64(0x01 || seed): Web Crypto takes the seed in PKCS #8.
  const parts = skey.split("+"); // the base64 may itself hold "+"
  const name = parts[2];
  const seed = fromBase64(parts.slice(4).join("+")).subarray(1);
  const pkcs8 = Uint8Array.of(...Buffer.from("302e020100300506032b657004220420", "hex"), ...seed);
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
  return { name, key };
}

test("checkpoints of tessera's log are consistent by their proofs; a bad proof is refused", async () => {
  const tess = readJson(join(dir, "tlog_vectors.json")).tessera_tiled_test_log;
  const cps = tess.checkpoints_by_size;
  let checked = 0;
  for (const p of tess.derived_locally_consistency_proofs) {
    const { older, newer } = await checkConsistency(cps[p.size2], cps[p.size1], p.proof_b64, tess.vkey);
    assert.equal(older.size, p.size1);
    assert.equal(newer.size, p.size2);
    const bad = [toBase64(new Uint8Array(32)), ...p.proof_b64.slice(1)];
    await assert.rejects(checkConsistency(cps[p.size1], cps[p.size2], bad, tess.vkey), { code: "LOG_INCONSISTENT" });
    checked += 1;
  }
  assert.ok(checked > 0);
  const same = await checkConsistency(cps["7"], cps["7"], [], tess.vkey);
  assert.equal(same.newer.size, 7);
  await assert.rejects(checkConsistency(cps["7"], cps["9"], [], tess.vkey), { code: "LOG_INCONSISTENT" });
});

test("two signed checkpoints of one size with different roots are a fork", async () => {
  const tess = readJson(join(dir, "tlog_vectors.json")).tessera_tiled_test_log;
  const { name, key } = await signerFromSkey(tess.skey_published_test_only);
  const body = `example.com/log/testdata\n15\n${toBase64(new Uint8Array(32).fill(9))}\n`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, utf8(body)));
  const keyHash = Buffer.from(tess.vkey.split("+")[1], "hex");
  const forged = `${body}\n\u2014 ${name} ${toBase64(Uint8Array.of(...keyHash, ...sig))}\n`;
  await assert.rejects(checkConsistency(tess.checkpoints_by_size["15"], forged, [], tess.vkey), /fork/);
});

test("trick winners: suit led, trumps, and the nullo ace", () => {
  const t = (...plays) => plays.map(([seat, card, aceHigh = false]) => ({ seat, card: cardOf(card), aceHigh }));
  assert.equal(trickWinner(t(["E", "5H"], ["S", "KH"], ["W", "AS"], ["N", "2H"]), "grand"), "S");
  assert.equal(trickWinner(t(["E", "5H"], ["S", "KH"], ["W", "2S"], ["N", "AH"]), "S"), "W");
  assert.equal(trickWinner(t(["E", "5H"], ["S", "3S"], ["W", "4S"], ["N", "AH"]), "S"), "W");
  assert.equal(trickWinner(t(["E", "5H"], ["S", "KH"], ["W", "AH"], ["N", "2H"]), "nullo"), "S");
  assert.equal(trickWinner(t(["E", "5H"], ["S", "KH"], ["W", "AH", true], ["N", "2H"]), "nullo"), "W");
  assert.equal(trickWinner(t(["E", "AH"], ["S", "2H"], ["W", "3D"], ["N", "4C"]), "nullo"), "S");
});
