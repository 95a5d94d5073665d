// Witness cosignatures (c2sp.org/tlog-cosignature, cosignature/v1, Ed25519) and witness
// policies, as audit/log/cosignature.py: a witness key reads
// `name+hash+base64(0x04 || public key)` with hash = SHA-256(name || 0x0a || 0x04 || key)[:4];
// a cosignature line is `— name base64(key ID[4] || timestamp[8, big-endian] || sig[64])`
// and the signature covers "cosignature/v1\ntime <timestamp>\n" + the checkpoint body.

import { VerifyError, concat, fromBase64, sha256, toHex, utf8 } from "./bytes.js";
import { checkPublicKey, verifySignature } from "./ed25519.js";
import { checkKeyName, parseNote, verifyCheckpoint } from "./note.js";

export const ALG_COSIGNATURE_V1 = 0x04;
const MAX_TIMESTAMP = 2n ** 63n - 1n;

const keyError = (m) => new VerifyError("LOG_KEY_INVALID", m);

/** The 4-byte key ID of a cosignature/v1 witness key. */
export async function cosignatureKeyHash(name, publicKey) {
  return (await sha256(concat(utf8(name), Uint8Array.of(0x0a, ALG_COSIGNATURE_V1), publicKey))).subarray(0, 4);
}

/** Parse a witness key `name+hash+base64(0x04 || key)`: {name, publicKey, keyHash, keyId, text}. */
export async function parseWitnessKey(text) {
  if (typeof text !== "string") throw keyError("witness key must be text");
  const vkey = text.trim();
  const parts = vkey.split("+");
  if (parts.length < 3) throw keyError("witness key must read name+hash+base64");
  const name = checkKeyName(parts[0]);
  const hashHex = parts[1];
  let raw;
  try {
    raw = fromBase64(parts.slice(2).join("+"), { canonical: true });
  } catch (err) {
    throw keyError(`witness key: ${err.message}`);
  }
  if (raw.length !== 33 || raw[0] !== ALG_COSIGNATURE_V1) {
    throw keyError(`witness key ${name} is not an Ed25519 cosignature/v1 (type 0x04) key`);
  }
  const publicKey = checkPublicKey(raw.subarray(1));
  const kh = await cosignatureKeyHash(name, publicKey);
  if (hashHex.length !== 8 || hashHex.toLowerCase() !== toHex(kh)) {
    throw keyError(`witness key hash ${JSON.stringify(hashHex)} does not match the key`);
  }
  return { name, publicKey, keyHash: kh, keyId: toHex(kh), text: vkey };
}

/** The bytes a cosignature/v1 signature covers. */
export function signedMessage(body, timestamp) {
  return utf8(`cosignature/v1\ntime ${BigInt(timestamp).toString()}\n${body}`);
}

/** The valid cosignatures of the note by the given (parsed) witness keys, as a Map from
 * key text to {name, timestamp}. Lines of other keys are ignored; a line with a witness's
 * name and key ID that does not verify throws LOG_SIGNATURE_INVALID naming it. */
export async function cosignaturesBy(noteText, witnesses) {
  const { text, signatures } = parseNote(noteText);
  const found = new Map();
  for (const key of witnesses) {
    for (const s of signatures) {
      if (s.name !== key.name || toHex(s.keyHash) !== key.keyId) continue;
      const bad = () => new VerifyError("LOG_SIGNATURE_INVALID", `the cosignature by witness ${key.name}+${key.keyId} does not verify`);
      if (s.signature.length !== 72) throw bad();
      let timestamp = 0n;
      for (const b of s.signature.subarray(0, 8)) timestamp = (timestamp << 8n) | BigInt(b);
      if (timestamp > MAX_TIMESTAMP) throw bad();
      let ok = false;
      try {
        ok = await verifySignature(key.publicKey, signedMessage(text, timestamp), s.signature.subarray(8));
      } catch {
        ok = false;
      }
      if (!ok) throw bad();
      const best = found.get(key.text);
      if (!best || timestamp > best.timestamp) found.set(key.text, { name: key.name, timestamp });
    }
  }
  return found;
}

/** A policy {witnesses: [parsed keys], quorum} from key texts; the quorum defaults to all. */
export async function makePolicy(keyTexts, quorum = null) {
  const witnesses = [];
  for (const t of keyTexts) witnesses.push(await parseWitnessKey(t));
  const q = quorum ?? witnesses.length;
  if (!Number.isInteger(q) || q < 0 || q > witnesses.length) {
    throw keyError(`witness quorum ${q} must be between 0 and the ${witnesses.length} witnesses named`);
  }
  if (new Set(witnesses.map((w) => w.text)).size !== witnesses.length) throw keyError("a witness policy names a witness key twice");
  return { witnesses, quorum: q };
}

/** Throw LOG_WITNESS_QUORUM, naming the missing witnesses, unless enough of the policy's
 * witnesses validly cosign the note; return the names of those that do. */
export async function checkPolicy(noteText, policy) {
  const found = await cosignaturesBy(noteText, policy.witnesses);
  const good = policy.witnesses.filter((w) => found.has(w.text));
  if (good.length < policy.quorum) {
    const missing = policy.witnesses.filter((w) => !found.has(w.text));
    const err = new VerifyError(
      "LOG_WITNESS_QUORUM",
      `the checkpoint is cosigned by ${good.length} of the ${policy.witnesses.length} witnesses, the policy needs ${policy.quorum}; missing: ${missing.map((w) => w.name).join(", ")}`,
    );
    err.missing = missing.map((w) => w.text);
    throw err;
  }
  return good.map((w) => w.name);
}

/** The client's check of a checkpoint: the log's signature, then the witness policy. */
export async function verifyWitnessedCheckpoint(noteText, logKey, policy, origin = null) {
  const cp = await verifyCheckpoint(noteText, logKey, origin);
  const witnesses = policy ? await checkPolicy(noteText, policy) : [];
  return { ...cp, witnesses };
}
