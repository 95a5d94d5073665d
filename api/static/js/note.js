// C2SP verifier keys, signed notes and checkpoints (audit/log/keys.py, note.py,
// checkpoint.py; c2sp.org/signed-note and c2sp.org/tlog-checkpoint, compatible with Go's
// sumdb/note). A verifier key reads `name+hash+base64(0x01 || public key)`, where hash is
// the first four bytes of SHA-256(name || 0x0a || 0x01 || public key) in hex.

import { VerifyError, concat, fromBase64, sha256, toHex, utf8 } from "./bytes.js";
import { checkPublicKey, verifySignature } from "./ed25519.js";

export const ALG_ED25519 = 0x01;
const SIG_PREFIX = "\u2014 ";
const MAX_SIGNATURES = 100;

const keyError = (m) => new VerifyError("LOG_KEY_INVALID", m);
const noteError = (m) => new VerifyError("LOG_SIGNATURE_INVALID", m);

/** A key name: non-empty, no "+", no whitespace, nothing unprintable. */
export function checkKeyName(name) {
  if (typeof name !== "string" || !/^[^+\s\p{C}\p{Z}]+$/u.test(name)) {
    throw keyError(`key name ${JSON.stringify(name)} is empty or holds '+', whitespace or control characters`);
  }
  return name;
}

/** The 4-byte key ID of an Ed25519 key named `name`. */
export async function keyHash(name, publicKey) {
  return (await sha256(concat(utf8(name), Uint8Array.of(0x0a, ALG_ED25519), publicKey))).subarray(0, 4);
}

/** Parse `name+hash+base64`; the hash must match and the key must not be weak (LOG_KEY_WEAK).
 * Returns {name, publicKey, keyHash, keyId, text}. */
export async function parseVerifierKey(text) {
  if (typeof text !== "string") throw keyError("verifier key must be text");
  const vkey = text.trim();
  const first = vkey.indexOf("+");
  const second = first < 0 ? -1 : vkey.indexOf("+", first + 1);
  if (second < 0) throw keyError("verifier key must read name+hash+base64");
  const name = checkKeyName(vkey.slice(0, first));
  const hashHex = vkey.slice(first + 1, second);
  let raw;
  try {
    raw = fromBase64(vkey.slice(second + 1), { canonical: true });
  } catch (err) {
    throw keyError(`verifier key: ${err.message}`);
  }
  if (raw.length !== 33 || raw[0] !== ALG_ED25519) throw keyError("verifier key is not an Ed25519 (0x01) key");
  const publicKey = checkPublicKey(raw.subarray(1));
  const kh = await keyHash(name, publicKey);
  if (hashHex.length !== 8 || hashHex.toLowerCase() !== toHex(kh)) {
    throw keyError(`verifier key hash ${JSON.stringify(hashHex)} does not match the key`);
  }
  return { name, publicKey, keyHash: kh, keyId: toHex(kh), text: vkey };
}

function checkText(text) {
  if (typeof text !== "string") throw noteError("note text must be a string");
  if (!text.endsWith("\n")) throw noteError("note text must end with a newline");
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (ch !== "\n" && (c < 0x20 || c === 0x7f)) throw noteError("note text contains a control character");
  }
}

/** Split a note into its text and signatures {name, keyHash, signature}; nothing verified. */
export function parseNote(noteText) {
  if (typeof noteText !== "string") throw noteError("a note must be text");
  const split = noteText.lastIndexOf("\n\n");
  if (split < 0) throw noteError("malformed note: no blank line before the signatures");
  const text = noteText.slice(0, split + 1);
  const block = noteText.slice(split + 2);
  checkText(text);
  if (!block.endsWith("\n")) throw noteError("malformed note: signature block must end with a newline");
  const signatures = [];
  for (const line of block.slice(0, -1).split("\n")) {
    if (!line.startsWith(SIG_PREFIX)) throw noteError("malformed note: a signature line must start with '— '");
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const blob = space < 0 ? "" : rest.slice(space + 1);
    if (!name || !blob || blob.includes(" ")) throw noteError("malformed note: signature line must read '— name signature'");
    let raw;
    try {
      raw = fromBase64(blob);
    } catch {
      throw noteError("malformed note: signature is not base64");
    }
    if (raw.length < 5) throw noteError("malformed note: signature too short");
    signatures.push({ name, keyHash: raw.subarray(0, 4), signature: raw.subarray(4) });
    if (signatures.length > MAX_SIGNATURES) throw noteError("malformed note: too many signatures");
  }
  return { text, signatures };
}

/** Check the note carries a valid signature by the verifier key (text or parsed); return
 * its text. Every signature line of that key must verify. */
export async function verifyNote(noteText, verifierKey) {
  const key = typeof verifierKey === "string" ? await parseVerifierKey(verifierKey) : verifierKey;
  const { text, signatures } = parseNote(noteText);
  const mine = signatures.filter((s) => s.name === key.name && toHex(s.keyHash) === key.keyId);
  if (mine.length === 0) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", `note has no signature by key ${key.name}+${key.keyId}`);
  }
  for (const s of mine) {
    let ok = false;
    try {
      ok = await verifySignature(key.publicKey, utf8(text), s.signature);
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new VerifyError("LOG_SIGNATURE_INVALID", `note signature by ${key.name}+${key.keyId} does not verify`);
    }
  }
  return text;
}

/** Parse a checkpoint body: {origin, size (a Number), root (32 bytes), extensions}. */
export function parseCheckpoint(text) {
  const bad = (m) => noteError(`malformed checkpoint: ${m}`);
  if (typeof text !== "string" || !text.endsWith("\n")) throw bad("must end with a newline");
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) throw bad("needs origin, size and root lines");
  const [origin, sizeText, rootText, ...extensions] = lines;
  if (!origin) throw bad("empty origin");
  if (!/^(?:0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    throw bad(`invalid tree size ${JSON.stringify(sizeText)}`);
  }
  let root;
  try {
    root = fromBase64(rootText);
  } catch {
    throw bad("root hash is not base64");
  }
  if (root.length !== 32) throw bad("root hash is not 32 bytes");
  if (extensions.some((l) => !l)) throw bad("empty extension line");
  return { origin, size: Number(sizeText), root, extensions };
}

/** Verify a checkpoint note's signature by the log key and parse it; with `origin`, the
 * checkpoint must name it. */
export async function verifyCheckpoint(noteText, verifierKey, origin = null) {
  const cp = parseCheckpoint(await verifyNote(noteText, verifierKey));
  if (origin !== null && cp.origin !== origin) {
    throw noteError(`checkpoint origin ${JSON.stringify(cp.origin)} is not the log's origin ${JSON.stringify(origin)}`);
  }
  return { ...cp, note: noteText };
}
