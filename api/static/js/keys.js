// The player's Ed25519 key, made and kept in this browser (Web Crypto), and what it signs:
// events (audit/log/events.py), signed reads (api/signing.py) and signed stream URLs
// (api/sse.py).
//
// The key is generated extractable once, so that its backup file can be offered; the
// page then imports it again as a non-extractable CryptoKey, keeps only that copy in
// IndexedDB, and drops the extractable one. The private key never leaves the browser:
// no request carries it. The backup file is one line, the C2SP-style private key text
// the Python tools read (`Signer.from_text`, `audit/log/keys.py`):
//   PRIVATE+KEY+<name>+<8 hex key id>+<base64(0x01 || 32-byte Ed25519 seed)>
// A backup imported on another browser gives the same player (the id is derived from
// the public key).

import { VerifyError, concat, fromBase64, sha256, toBase64, toHex, utf8 } from "./bytes.js";
import { canonicalJson } from "./canonical.js";
import { signingInput } from "./events.js";
import { ALG_ED25519, checkKeyName, keyHash } from "./note.js";

export const KEY_NAME = "cayenne-player";
export const PRIVATE_PREFIX = "PRIVATE+KEY+";
export const READ_CONTEXT = "cayenne-fairplay/read/v1";
export const WRITE_CONTEXT = "cayenne-fairplay/write/v1";
const DB_NAME = "cayenne-fairplay";
const STORE = "keys";
const ME = "me";
// PKCS #8 for an Ed25519 private key (RFC 8410): this prefix, then the 32-byte seed.
const PKCS8_PREFIX = fromHexText("302e020100300506032b657004220420");

function fromHexText(hex) {
  return Uint8Array.from(hex.match(/../g), (b) => parseInt(b, 16));
}

const keyError = (m) => new VerifyError("KEY_INVALID", m);

/** `p-` and the first 20 hex digits of SHA-256 of the raw public key (api/signing.py). */
export async function playerId(publicKey) {
  return "p-" + toHex(await sha256(publicKey)).slice(0, 20);
}

/** `d-` and the first 20 hex digits of SHA-256 of the raw public key: a director's id
 * (audit/tournament/directors.py), which his signed rulings name. */
export async function directorId(publicKey) {
  return "d-" + toHex(await sha256(publicKey)).slice(0, 20);
}

/** The C2SP verifier key text `name+hash+base64(0x01 || key)`. */
export async function verifierKeyText(name, publicKey) {
  const hash = toHex(await keyHash(name, publicKey));
  return `${name}+${hash}+${toBase64(concat(Uint8Array.of(ALG_ED25519), publicKey))}`;
}

async function publicOf(pkcs8) {
  // Import once extractable to read the public half (JWK "x"); the copy is dropped.
  const temp = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", temp);
  return fromBase64(jwk.x.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (jwk.x.length % 4)) % 4));
}

async function identityFrom(seed, name) {
  const pkcs8 = concat(PKCS8_PREFIX, seed);
  const publicKey = await publicOf(pkcs8);
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
  pkcs8.fill(0);
  return {
    name,
    privateKey,
    publicKey,
    verifierKey: await verifierKeyText(name, publicKey),
    id: await playerId(publicKey),
  };
}

/** A new key: {identity (non-extractable private key), backup (the private key text)}. */
export async function createKey(name = KEY_NAME) {
  checkKeyName(name);
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const seed = pkcs8.slice(pkcs8.length - 32);
  pkcs8.fill(0);
  const identity = await identityFrom(seed, name);
  const backup = await backupText(name, seed, identity.publicKey);
  seed.fill(0);
  return { identity, backup };
}

async function backupText(name, seed, publicKey) {
  const hash = toHex(await keyHash(name, publicKey));
  return `${PRIVATE_PREFIX}${name}+${hash}+${toBase64(concat(Uint8Array.of(ALG_ED25519), seed))}\n`;
}

/** Read a backup file's text; the key ID must match the key. */
export async function importBackup(text) {
  const line = String(text).trim();
  if (!line.startsWith(PRIVATE_PREFIX)) throw keyError("a backup starts with PRIVATE+KEY+");
  const parts = line.slice(PRIVATE_PREFIX.length).split("+");
  if (parts.length < 3) throw keyError("a backup reads PRIVATE+KEY+name+hash+base64");
  const [name, hashHex] = parts;
  const blob = parts.slice(2).join("+");
  checkKeyName(name);
  let raw;
  try {
    raw = fromBase64(blob, { canonical: true });
  } catch (err) {
    throw keyError(`backup: ${err.message}`);
  }
  if (raw.length !== 33 || raw[0] !== ALG_ED25519) throw keyError("backup: not an Ed25519 (0x01) key");
  const seed = raw.slice(1);
  const identity = await identityFrom(seed, name);
  seed.fill(0);
  if (hashHex.toLowerCase() !== toHex(await keyHash(name, identity.publicKey))) {
    throw keyError("backup: the key ID does not match the key");
  }
  return identity;
}

// ------------------------------------------------------------------ IndexedDB

function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function withStore(mode, fn) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** Keep the identity (its CryptoKey is non-extractable) as this browser's player (or
 * under another `slot`: the director's key is kept beside the player's, as "director"). */
export function saveIdentity(identity, slot = ME) {
  const record = { ...identity, publicKey: Array.from(identity.publicKey) };
  return withStore("readwrite", (s) => s.put(record, slot));
}

/** This browser's player (or the key kept under `slot`), or null. */
export async function loadIdentity(slot = ME) {
  const record = await withStore("readonly", (s) => s.get(slot));
  if (!record) return null;
  return { ...record, publicKey: Uint8Array.from(record.publicKey) };
}

export function forgetIdentity(slot = ME) {
  return withStore("readwrite", (s) => s.delete(slot));
}

// -------------------------------------------------------------------- signing

async function sign(identity, bytes) {
  return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, identity.privateKey, bytes));
}

/** `Authorization` for a signed request of `method` on `path` (with its query). */
export async function readHeader(identity, method, path, ts = Math.floor(Date.now() / 1000)) {
  const sig = await sign(identity, utf8(`${READ_CONTEXT}\n${method.toUpperCase()}\n${path}\n${ts}`));
  return `Cayenne-Ed25519 player=${identity.id},ts=${ts},sig=${toBase64(sig)}`;
}

/** `Authorization` for a signed write (api/signing.py): the method, the path, the time, a
 * fresh nonce and the SHA-256 of the exact body text sent. A retry sends the same header
 * (the service takes a nonce once: the request has one effect). */
export async function writeHeader(identity, method, path, bodyText, ts = Math.floor(Date.now() / 1000), nonce = null) {
  const once = nonce ?? toHex(crypto.getRandomValues(new Uint8Array(16)));
  const digest = toHex(await sha256(utf8(bodyText)));
  const sig = await sign(identity, utf8(`${WRITE_CONTEXT}\n${method.toUpperCase()}\n${path}\n${ts}\n${once}\n${digest}`));
  return `Cayenne-Ed25519 player=${identity.id},ts=${ts},nonce=${once},sig=${toBase64(sig)}`;
}

/** A seat's stream URL, signed for its path and the current time (api/sse.py). */
export async function signedStreamUrl(identity, path, ts = Math.floor(Date.now() / 1000)) {
  const sig = await sign(identity, utf8(`${READ_CONTEXT}\nGET\n${path}\n${ts}`));
  const q = new URLSearchParams({ player: identity.id, ts: String(ts), sig: toBase64(sig) });
  return `${path}?${q}`;
}

/** An event of the log's format, signed: `key` is the player's verifier key. */
export async function signEvent(identity, fields) {
  const event = { v: 1, ...fields, actor: identity.id, key: identity.verifierKey };
  canonicalJson(event); // every value encodable
  event.signature = toBase64(await sign(identity, signingInput(event)));
  return event;
}
