// Witness cosignatures (cosignature/v1) and policies in the browser's verifier, on the same
// vectors as tests/log/test_cosignature.py: a real checkpoint cosigned by four public
// witnesses, the C2SP specification's example and transparency-dev/formats' key.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { fromBase64, toBase64, toHex, utf8 } from "../../api/static/js/bytes.js";
import * as cos from "../../api/static/js/cosignature.js";
import { parseNote } from "../../api/static/js/note.js";
import { ROOT, readJson } from "./paths.mjs";

const vectors = () => readJson(join(ROOT, "tests", "vectors", "cosignature", "cosignature_vectors.json"));

test("the four public witnesses' cosignatures verify, and a 4-of-4 policy holds", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const policy = await cos.makePolicy(v.witnesses.map((w) => w.vkey));
  const cp = await cos.verifyWitnessedCheckpoint(v.note, v.log_vkey, policy);
  assert.equal(cp.size, 1432088532);
  assert.equal(cp.witnesses.length, 4);
  const found = await cos.cosignaturesBy(v.note, policy.witnesses);
  for (const w of v.witnesses) assert.equal(found.get(w.vkey).timestamp, BigInt(w.timestamp));
});

test("a policy names the witnesses that are missing", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const keys = [...v.witnesses.slice(0, 2).map((w) => w.vkey), ...v.witnesses_not_on_this_checkpoint];
  assert.deepEqual(await cos.checkPolicy(v.note, await cos.makePolicy(keys, 2)), [
    "transparency.dev/DEV:witness-little-garden",
    "witness1.smartit.nu/witness1",
  ]);
  await assert.rejects(cos.checkPolicy(v.note, await cos.makePolicy(keys, 3)), (err) => {
    assert.equal(err.code, "LOG_WITNESS_QUORUM");
    assert.match(err.message, /missing: witness\.navigli\.sunlight\.geomys\.org, rgdd\.se\/poc-witness/);
    assert.deepEqual(err.missing, v.witnesses_not_on_this_checkpoint);
    return true;
  });
});

test("a changed checkpoint or a flipped signature bit fails the witness", async () => {
  const v = vectors().real_world_cosigned_checkpoint;
  const remora = await cos.parseWitnessKey(v.witnesses[2].vkey);
  await assert.rejects(cos.cosignaturesBy(v.note.replace("1432088532", "1432088533"), [remora]), {
    code: "LOG_SIGNATURE_INVALID",
  });
  const line = v.note.split("\n").find((l) => l.startsWith("— remora"));
  const blob = fromBase64(line.split(" ").at(-1));
  blob[40] ^= 1;
  const bad = v.note.replace(line, `— remora.n621.de ${toBase64(blob)}`);
  await assert.rejects(cos.cosignaturesBy(bad, [remora]), /remora\.n621\.de/);
});

test("the specification's example and transparency-dev's key", async () => {
  const spec = vectors().spec_example;
  const { signatures } = parseNote(spec.body + "\n" + spec.witness_line);
  assert.equal(toHex(signatures[0].keyHash), spec.key_id_hex);
  assert.deepEqual(cos.signedMessage(spec.body, spec.timestamp), utf8(spec.signed_message));
  const td = vectors().transparency_dev_formats_keys;
  assert.equal((await cos.parseWitnessKey(td.native_cosignature_vkey)).keyId, "da77ade7");
});

test("log (0x01) keys, wrong hashes and weak keys are refused as witness keys", async () => {
  const logKey = vectors().real_world_cosigned_checkpoint.log_vkey;
  await assert.rejects(cos.parseWitnessKey(logKey), /type 0x04/);
  const td = vectors().transparency_dev_formats_keys.native_cosignature_vkey;
  await assert.rejects(cos.parseWitnessKey(td.replace("da77ade7", "00000000")), /does not match/);
  const identity = new Uint8Array(33);
  identity[0] = 0x04;
  identity[1] = 1;
  const kh = await cos.cosignatureKeyHash("w", identity.subarray(1));
  await assert.rejects(cos.parseWitnessKey(`w+${toHex(kh)}+${toBase64(identity)}`), { code: "LOG_KEY_WEAK" });
  await assert.rejects(cos.makePolicy([td], 2), /between 0 and/);
});

test("a cosignature made by Web Crypto verifies, and an ordinary note signature does not count", async () => {
  const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const pub = new Uint8Array(await crypto.subtle.exportKey("raw", kp.publicKey));
  const kh = await cos.cosignatureKeyHash("w.test", pub);
  const key = `w.test+${toHex(kh)}+${toBase64(Uint8Array.of(0x04, ...pub))}`;
  const body = "fairplay.test/log\n3\n" + toBase64(new Uint8Array(32)) + "\n";
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, kp.privateKey, cos.signedMessage(body, 77)));
  const ts = new Uint8Array(8);
  ts[7] = 77;
  const line = `— w.test ${toBase64(Uint8Array.of(...kh, ...ts, ...sig))}\n`;
  const policy = await cos.makePolicy([key]);
  assert.deepEqual(await cos.checkPolicy(body + "\n" + line, policy), ["w.test"]);
  const plain = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, kp.privateKey, utf8(body)));
  const plainLine = `— w.test ${toBase64(Uint8Array.of(...kh, ...plain))}\n`; // 68 bytes: no timestamp
  await assert.rejects(cos.checkPolicy(body + "\n" + plainLine, policy), { code: "LOG_SIGNATURE_INVALID" });
});
