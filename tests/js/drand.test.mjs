// drand's BLS signatures in the browser (api/static/js/drand.js over the vendored
// @noble/curves bundle), on the rounds the Python's tests/shuffle/test_tournament_v2.py
// checks with drand-verify: the League of Entropy's published rounds of each scheme
// (tests/vectors/shuffle/drand_league_of_entropy.json) verify; the same signature as
// another round's, any flipped byte and the other scheme's tag fail; the v2 transcript
// vectors' must-fail cases about the signature fail with the Python's code and field.
// Skipped when the bundle is not built, except under FAIRPLAY_TEST_NODE=required.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { BlsUnavailable, DST_G1, DST_G2, QUICKNET, chainName, loadBls, roundMessage, verifyRound } from "../../api/static/js/drand.js";
import { fromHex, toHex } from "../../api/static/js/bytes.js";
import { BLS_BUNDLE, ROOT, blsSkip, readJson } from "./paths.mjs";

const LOE = readJson(join(ROOT, "tests", "vectors", "shuffle", "drand_league_of_entropy.json"));
const V2 = readJson(join(ROOT, "tests", "vectors", "shuffle", "tournament_vectors_v2.json"));
const skip = blsSkip();

async function refusal(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("accepted");
}

test("the BLS bundle is built", { skip }, () => {
  assert.ok(existsSync(BLS_BUNDLE), `${BLS_BUNDLE} is missing: run \`make\` (npm ci, then esbuild)`);
});

test("the League of Entropy's rounds verify, one of each scheme", { skip }, async () => {
  const bls = await loadBls();
  assert.deepEqual(LOE.rounds.map((r) => r.chain.scheme).sort(), ["bls-unchained-g1-rfc9380", "bls-unchained-on-g1", "pedersen-bls-chained"]);
  for (const r of LOE.rounds) {
    await verifyRound(bls, r.chain, r);
    assert.ok(chainName(r.chain.public_key).startsWith("the League of Entropy's"), r.name);
    // the same signature as the next round's: the message is the round's
    const e = await refusal(verifyRound(bls, r.chain, { ...r, round: r.round + 1 }));
    assert.equal(e.code, "SHUFFLE_BEACON_INVALID", r.name);
    assert.match(e.message, /^beacon\.signature: round \d+'s signature does not verify under the chain's public key$/);
  }
});

test("any flipped byte of a published signature fails", { skip }, async () => {
  const bls = await loadBls();
  let seed = 2026;
  const next = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (const r of LOE.rounds) {
    for (let n = 0; n < 12; n++) {
      const sig = fromHex(r.signature);
      sig[next(sig.length)] ^= 1 + next(255);
      const e = await refusal(verifyRound(bls, r.chain, { ...r, signature: toHex(sig) }));
      assert.equal(e.code, "SHUFFLE_BEACON_INVALID", `${r.name}: ${e.message}`);
      assert.equal(e.path, "beacon.signature");
    }
  }
});

test("the message is hashed to the curve under the scheme's tag", { skip }, async () => {
  const bls = await loadBls();
  const quicknet = LOE.rounds.find((r) => r.chain.scheme === QUICKNET);
  const fastnet = LOE.rounds.find((r) => r.chain.scheme === "bls-unchained-on-g1");
  const short = bls.shortSignatures;
  const check = async (r, dst) =>
    short.verify(fromHex(r.signature), short.hash(await roundMessage(r.chain.scheme, r.round), dst), fromHex(r.chain.public_key));
  assert.equal(await check(quicknet, DST_G1), true);
  assert.equal(await check(quicknet, DST_G2), false);
  assert.equal(await check(fastnet, DST_G2), true); // fastnet's non-conformance, as drand signs it
  assert.equal(await check(fastnet, DST_G1), false);
  // the message is SHA-256 of the round as 8 big-endian bytes
  assert.equal(toHex(await roundMessage(QUICKNET, 1)), "cd2662154e6d76b2b2b92e70c0cac3ccf534f9b74eb5b89819ec509083d00a50");
});

test("the v2 vectors verify, and their signature cases fail as the Python's", { skip }, async () => {
  const bls = await loadBls();
  for (const v of V2.vectors) await verifyRound(bls, v.transcript.beacon, v.transcript.beacon);
  const cases = V2.must_fail.filter((c) => c.transcript.beacon && /^beacon\.(signature|scheme|public_key)$/.test(c.path));
  assert.deepEqual(cases.map((c) => c.name), [
    "beacon round not yet out",
    "signature of another chain's key",
    "signature altered, randomness recomputed",
    "previous signature altered",
    "public key swapped",
    "unknown scheme",
    "signature not hex",
  ]);
  for (const c of cases) {
    const b = c.transcript.beacon;
    const e = await refusal(verifyRound(bls, b, b));
    assert.deepEqual([e.code, e.path], [c.code, c.path], c.name);
  }
});

test("malformed fields are format errors naming the field, never a crash", { skip }, async () => {
  const bls = await loadBls();
  const [chained, quicknet] = LOE.rounds;
  const bad = [
    [quicknet.chain, { ...quicknet, previous_signature: "ab" }, "beacon.previous_signature"],
    [chained.chain, { ...chained, previous_signature: undefined }, "beacon.previous_signature"],
    [chained.chain, { ...chained, previous_signature: "0g" }, "beacon.previous_signature"],
    [chained.chain, { ...chained, round: 0 }, "beacon.round"],
    [chained.chain, { ...chained, round: "7" }, "beacon.round"],
    [chained.chain, { ...chained, signature: chained.signature.toUpperCase() }, "beacon.signature"],
    [{ ...chained.chain, public_key: quicknet.chain.public_key }, chained, "beacon.public_key"],
  ];
  for (const [chain, beacon, path] of bad) {
    const e = await refusal(verifyRound(bls, chain, beacon));
    assert.deepEqual([e.code, e.path], ["SHUFFLE_INVALID", path], e.message);
  }
  // a key of the right size that is no point of G2
  const e = await refusal(verifyRound(bls, { ...quicknet.chain, public_key: "ab" + "cd".repeat(95) }, quicknet));
  assert.deepEqual([e.code, e.path], ["SHUFFLE_BEACON_INVALID", "beacon.signature"], e.message);
});

test("without the bundle, the loader says so (the page then leaves the check to the command)", async () => {
  const missing = new URL("../../api/static/vendor/no-such-bundle.js", import.meta.url).href;
  const e = await refusal(loadBls(missing));
  assert.ok(e instanceof BlsUnavailable);
  assert.match(e.message, /^the BLS library \(\/static\/vendor\/no-such-bundle\.js\) is not available/);
});
