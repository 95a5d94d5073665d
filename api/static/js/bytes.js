// Byte helpers for the verifier: hex, strict base64, UTF-8, and the Web Crypto hashes.
//
// Everything here runs unchanged in a browser and in Node 20 (globalThis.crypto.subtle).
// No code is fetched at run time; the primitives are Web Crypto's.

/** The error every verifier module throws: a stable `code` and a message naming the field. */
export class VerifyError extends Error {
  constructor(code, message, path = "") {
    super(message);
    this.name = "VerifyError";
    this.code = code;
    this.path = path;
  }
}

const subtle = () => {
  const s = globalThis.crypto && globalThis.crypto.subtle;
  if (!s) throw new VerifyError("NO_WEB_CRYPTO", "this browser has no Web Crypto (crypto.subtle)");
  return s;
};

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates must be refused before: see isWellFormedText). */
export function utf8(text) {
  return encoder.encode(text);
}

/** Whether `text` is valid Unicode (no lone surrogate), as Python's str.encode() requires. */
export function isWellFormedText(text) {
  if (typeof text.isWellFormed === "function") return text.isWellFormed();
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** The concatenation of byte arrays. */
export function concat(...parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Lower-case hex of bytes. */
export function toHex(bytes) {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/** Bytes of lower-case hex (one spelling only); throws on anything else. */
export function fromHex(text) {
  if (typeof text !== "string" || !/^(?:[0-9a-f]{2})*$/.test(text)) {
    throw new VerifyError("BAD_HEX", "not lower-case hexadecimal");
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Standard base64 of bytes (with padding). */
export function toBase64(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Bytes of standard base64 with padding, refusing any other alphabet or length (as
 * Python's b64decode(validate=True)). With `canonical`, the text must also be the one
 * encoding of its bytes (the spare bits before "=" zero), as the project requires of keys
 * and event signatures.
 */
export function fromBase64(text, { canonical = false } = {}) {
  if (typeof text !== "string" || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new VerifyError("BAD_BASE64", "not standard base64");
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  if (canonical && toBase64(out) !== text) {
    throw new VerifyError("BAD_BASE64", "not canonical base64");
  }
  return out;
}

/** SHA-256 of bytes. */
export async function sha256(data) {
  return new Uint8Array(await subtle().digest("SHA-256", data));
}

/** HMAC-SHA256 (RFC 2104) of `message` under `key`. */
export async function hmacSha256(key, message) {
  const k = await subtle().importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await subtle().sign("HMAC", k, message));
}

/** Equality of two byte arrays that does not stop at the first difference. */
export function ctEqual(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) {
    return false;
  }
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Equality of two byte arrays (public values). */
export function bytesEqual(a, b) {
  return ctEqual(a, b);
}

export { subtle };
