// verifyCertificate (api/static/js/certificate.js) on the worked certificate of
// tests/vectors/tournament (made by make_worked_certificate.py, verified by the Python in
// tests/tournament/test_worked_certificate.py): every check passes but the one left to the
// command (the hands' audit), drand's BLS signature among them (left to the command only on
// a service without the BLS bundle); a changed matchpoint is refused; the standings' text
// and hash are the vector's byte for byte. A forged drand signature, re-signed with the
// log key, is tests/js/test_verify_certificate_v2.py's (Node and Chromium).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { verifyCertificateDetailed } from "../../api/static/js/certificate.js";
import { PyFloat, pyFloat, pyJson, standingsDigest } from "../../api/static/js/standings.js";
import { BlsUnavailable } from "../../api/static/js/drand.js";
import { ROOT, blsSkip, readJson } from "./paths.mjs";

const V = readJson(join(ROOT, "tests", "vectors", "tournament", "worked_certificate.json"));

test("the worked certificate passes every check the browser runs", { skip: blsSkip() }, async () => {
  const result = await verifyCertificateDetailed(V.bundle, V.log_key);
  const failed = result.checks.filter((c) => c.ok === false);
  assert.deepEqual(failed, []);
  assert.equal(result.ok, true);
  const notHere = result.checks.filter((c) => c.ok === null).map((c) => c.check);
  assert.deepEqual(notHere, ["audit"]);
  const byName = Object.fromEntries(result.checks.map((c) => [c.check, c]));
  assert.match(byName.deals.detail, /cayenne-tournament-deals\/2/);
  // the vector is dealt by a local test chain (pedersen-bls-chained), not the League's
  const round = V.bundle.certificate.deal_inputs.beacon.round;
  assert.match(byName["beacon signature"].detail, new RegExp(`^drand round ${round}'s BLS signature \\(pedersen-bls-chained\\) verifies under the key the event's start names, which is not a League of Entropy chain's`));
  assert.match(byName.records.detail, /^8 records/);
  assert.match(byName.matchpoints.detail, /top of 2\.0/);
});

test("without the BLS library the signature is left to the command, everything else checked", async () => {
  const missing = async () => {
    throw new BlsUnavailable("the BLS library (/static/vendor/bls.js) is not available: 404");
  };
  const result = await verifyCertificateDetailed(V.bundle, V.log_key, { loadBls: missing });
  assert.equal(result.ok, true);
  const notHere = result.checks.filter((c) => c.ok === null).map((c) => c.check);
  assert.deepEqual(notHere, ["beacon signature", "audit"]);
  const sig = result.checks.find((c) => c.check === "beacon signature");
  assert.match(sig.detail, /^not checked in the browser: drand round \d+'s BLS signature \(the BLS library \(\/static\/vendor\/bls\.js\) is not available/);
});

test("a changed matchpoint is refused, naming the field", async () => {
  const bad = structuredClone(V.bundle);
  bad.certificate.results[0].results[1].ns_matchpoints = "0.5";
  const result = await verifyCertificateDetailed(bad, V.log_key);
  assert.equal(result.ok, false);
  const note = result.checks.find((c) => c.check === "note");
  assert.equal(note.ok, false); // not re-signed: the note is over the genuine certificate
  assert.match(note.detail, /^bundle\.note: the signed note is not over this certificate/);
  const mp = result.checks.find((c) => c.check === "matchpoints");
  assert.equal(mp.ok, false);
  assert.match(mp.detail, /field \$\.results\[0\]\.results\[1\]\.ns_matchpoints: certified "0\.5"/);
});

test("another key is refused at the note and the checkpoint", async () => {
  const other = "cayenne-fairplay.local/log+00000000+AfJWSzmU4n8NOuAKeLHkpJHinQ9SqDCbnryModokpPI2";
  const result = await verifyCertificateDetailed(V.bundle, other);
  assert.equal(result.ok, false);
  assert.ok(result.checks.filter((c) => c.ok === false).length >= 2);
});

test("the standings' text is Python's json.dumps, floats as repr", async () => {
  assert.equal(pyFloat(80), "80.0");
  assert.equal(pyFloat(33.33), "33.33");
  assert.equal(pyFloat(0.00001), "1e-05");
  assert.equal(pyFloat(1.5e16), "1.5e+16");
  assert.equal(pyJson({ b: [1, new PyFloat("2.0")], a: "é\n\"" }), '{"a":"é\\n\\"","b":[1,2.0]}');
  const doc = V.standings_document;
  const floats = (o, names) => ({ ...o, ...Object.fromEntries(names.filter((n) => typeof o[n] === "number").map((n) => [n, new PyFloat(pyFloat(o[n]))])) });
  const typed = {
    ...doc,
    standings: doc.standings.map((s) => floats(s, ["score", "percentage"])),
    boards: doc.boards.map((b) => ({ ...floats(b, ["top"]), results: b.results.map((r) => floats(r, ["ns_matchpoints", "ew_matchpoints"])) })),
  };
  assert.equal(pyJson(typed), V.standings_document_text);
  assert.equal(await standingsDigest(typed), V.standings_sha256);
});

/** Every leaf of a JSON value: [parent, key] pairs. */
function leaves(value, out = []) {
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === "object") leaves(v, out);
    else out.push([value, k]);
  }
  return out;
}

test("any value changed anywhere in the bundle is refused, and nothing throws", async () => {
  let seed = 20;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let n = 0; n < 16; n++) {
    const bad = structuredClone(V.bundle);
    const all = leaves(bad);
    const [parent, key] = all[next() % all.length];
    const v = parent[key];
    parent[key] = typeof v === "number" ? v + 1 : typeof v === "string" ? `${v}x` : v === null ? 0 : !v;
    const result = await verifyCertificateDetailed(bad, V.log_key);
    assert.equal(result.ok, false, `${key}: ${JSON.stringify(v)} changed, not refused`);
    assert.ok(result.checks.every((c) => typeof c.detail === "string" && c.detail.length > 0));
  }
  for (const hostile of [null, [], "x", { format: "cayenne-tournament-certificate-bundle/1" }, { ...V.bundle, events: [1, 2] }]) {
    const result = await verifyCertificateDetailed(hostile, V.log_key);
    assert.equal(result.ok, false);
  }
});
