// Ed25519 with the weak-key refusal, C2SP verifier keys, signed notes and checkpoints:
// the real sum.golang.org notes, the Go note package and tessera vectors, the eight
// small-order points and their non-canonical encodings.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { fromHex, toHex, utf8 } from "../../api/static/js/bytes.js";
import * as ed from "../../api/static/js/ed25519.js";
import * as note from "../../api/static/js/note.js";
import { ROOT, readJson, TLOG, MERKLE_PROBES } from "./paths.mjs";

const dir = TLOG;
const vectors = () => readJson(join(dir, "tlog_vectors.json"));

// The same constants audit/log/ed25519.py lists (read from it, so the two cannot drift).
const pySource = readFileSync(join(ROOT, "audit", "log", "ed25519.py"), "utf8");
const hexIn = (name) => {
  const start = pySource.indexOf(name + ": tuple[bytes, ...]");
  const end = pySource.indexOf('"""', start);
  return [...pySource.slice(start, end).matchAll(/"([0-9a-f]{64})"/g)].map((m) => m[1]);
};
const SMALL_ORDER = hexIn("SMALL_ORDER_POINTS");
const NON_CANONICAL = hexIn("NON_CANONICAL_SMALL_ORDER");

test("the eight small-order points are refused, and Web Crypto alone would accept a forgery", async () => {
  assert.equal(SMALL_ORDER.length, 8);
  for (const h of SMALL_ORDER) {
    const raw = fromHex(h);
    assert.ok(ed.isSmallOrder(ed.decodePoint(raw)), h);
    assert.throws(() => ed.checkPublicKey(raw), { code: "LOG_KEY_WEAK" });
  }
  // The identity key and R = identity, S = 0: Web Crypto says valid; we refuse.
  const identity = fromHex(SMALL_ORDER[0]);
  const forged = new Uint8Array(64);
  forged[0] = 1;
  const k = await crypto.subtle.importKey("raw", identity, { name: "Ed25519" }, false, ["verify"]);
  assert.equal(await crypto.subtle.verify({ name: "Ed25519" }, k, forged, utf8("anything")), true);
  await assert.rejects(ed.verifySignature(identity, utf8("anything"), forged), { code: "LOG_KEY_WEAK" });
});

test("non-canonical encodings of small-order points are refused as not canonical", () => {
  assert.equal(NON_CANONICAL.length, 6);
  for (const h of NON_CANONICAL) {
    assert.throws(() => ed.decodePoint(fromHex(h)), (e) => e.code === "LOG_KEY_WEAK" && /not canonical/.test(e.message), h);
  }
});

test("a signature with S >= L is refused; with S < L it verifies", async () => {
  const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const pub = new Uint8Array(await crypto.subtle.exportKey("raw", kp.publicKey));
  const msg = utf8("hello");
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, kp.privateKey, msg));
  assert.equal(await ed.verifySignature(pub, msg, sig), true);
  // S + L: the same signature for a lax verifier, refused here.
  let s = ed.littleEndian(sig.subarray(32)) + ed.L;
  const malleable = new Uint8Array(sig);
  for (let i = 32; i < 64; i++) {
    malleable[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  assert.throws(() => ed.checkSignatureEncoding(malleable), { code: "LOG_SIGNATURE_INVALID" });
  await assert.rejects(ed.verifySignature(pub, msg, malleable), { code: "LOG_SIGNATURE_INVALID" });
  const flipped = new Uint8Array(sig);
  flipped[5] ^= 1;
  assert.equal(await ed.verifySignature(pub, msg, flipped), false);
  assert.equal(await ed.verifySignature(pub, utf8("hellp"), sig), false);
});

test("a verifier key naming a small-order point is refused", async () => {
  const name = "weak.example";
  for (const h of SMALL_ORDER) {
    const raw = fromHex(h);
    const kh = toHex(await note.keyHash(name, raw));
    const blob = Buffer.from(Uint8Array.of(1, ...raw)).toString("base64");
    await assert.rejects(note.parseVerifierKey(`${name}+${kh}+${blob}`), { code: "LOG_KEY_WEAK" });
  }
});

test("published notes verify, with the key IDs of the vectors", async () => {
  let sumdb = 0;
  for (const n of vectors().signed_notes) {
    const key = await note.parseVerifierKey(n.vkey);
    assert.equal(key.keyId, n.key_id_check["sha256(name || 0x0a || 0x01 || pubkey)[:4]"]);
    assert.equal(toHex(key.publicKey), n.key_id_check.public_key_hex);
    const text = await note.verifyNote(n.note, n.vkey);
    assert.ok(n.note.startsWith(text));
    if (n.vkey.startsWith("sum.golang.org")) {
      sumdb += 1;
      const cp = note.parseCheckpoint(text);
      assert.equal(cp.origin, "go.sum database tree");
      assert.ok(cp.size > 1_000_000);
    }
  }
  assert.ok(sumdb >= 3);
});

test("any changed byte of a real sum.golang.org note fails", async () => {
  const n = vectors().signed_notes.find((x) => x.note.includes("15368405"));
  const good = n.note;
  let tried = 0;
  for (let i = 0; i < good.length; i++) {
    if ("\n\u2014 ".includes(good[i])) continue;
    const bad = good.slice(0, i) + (good[i] !== "A" ? "A" : "B") + good.slice(i + 1);
    await assert.rejects(note.verifyNote(bad, n.vkey), { code: "LOG_SIGNATURE_INVALID" }, `byte ${i}`);
    tried += 1;
  }
  assert.ok(tried > 100);
});

test("the C2SP example that does not verify fails; a wrong key fails", async () => {
  const v = vectors();
  const sumdb = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8";
  await assert.rejects(note.verifyNote(v.signed_notes_that_do_not_verify[0].note, sumdb), {
    code: "LOG_SIGNATURE_INVALID",
  });
  const go = v.signed_notes[0];
  await assert.rejects(note.verifyNote(go.note, sumdb), /no signature by key sum.golang.org/);
});

test("verifier keys: a wrong hash, a bad name or bad base64 are refused", async () => {
  const vkey = vectors().signed_notes[0].vkey; // PeterNeumann+c74f20a3+ARpc...
  await assert.rejects(note.parseVerifierKey(vkey.replace("c74f20a3", "c74f20a4")), { code: "LOG_KEY_INVALID" });
  await assert.rejects(note.parseVerifierKey("Peter Neumann" + vkey.slice(12)), { code: "LOG_KEY_INVALID" });
  await assert.rejects(note.parseVerifierKey(vkey.slice(0, -1) + "!"), { code: "LOG_KEY_INVALID" });
  await assert.rejects(note.parseVerifierKey(vkey.slice(0, -1) + "X"), { code: "LOG_KEY_WEAK" }); // not a point
  await assert.rejects(note.parseVerifierKey("no-plus-signs"), { code: "LOG_KEY_INVALID" });
});

test("tessera checkpoints verify with their origin, and another origin is refused", async () => {
  const tess = vectors().tessera_tiled_test_log;
  for (const [size, published] of Object.entries(tess.checkpoints_by_size)) {
    const cp = await note.verifyCheckpoint(published, tess.vkey, "example.com/log/testdata");
    assert.equal(cp.size, Number(size));
  }
  await assert.rejects(note.verifyCheckpoint(tess.checkpoints_by_size["3"], tess.vkey, "example.com/other"), /origin/);
});

test("malformed checkpoints name the line", () => {
  assert.throws(() => note.parseCheckpoint("o\n01\n" + "A".repeat(43) + "=\n"), /invalid tree size/);
  assert.throws(() => note.parseCheckpoint("o\n1\nAAAA\n"), /not 32 bytes/);
  assert.throws(() => note.parseCheckpoint("\n1\n" + "A".repeat(43) + "=\n"), /empty origin/);
  assert.throws(() => note.parseCheckpoint("o\n1\n"), /needs origin, size and root/);
});
