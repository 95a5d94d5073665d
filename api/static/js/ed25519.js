// Ed25519 signature checks with Web Crypto, refusing what Web Crypto accepts but the
// project does not (audit/log/ed25519.py): a public key that is not the canonical
// encoding of a curve point, or lies in the small-order subgroup (the identity key makes
// "R = identity, S = 0" verify for every message, and Web Crypto accepts it), and a
// signature whose scalar S is not below the group order L (RFC 8032 §5.1.7).

import { VerifyError, subtle } from "./bytes.js";

export const P = 2n ** 255n - 19n;
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;

function mod(a) {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function pow(base, exp) {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

const D = mod(-121665n * pow(121666n, P - 2n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

/** Little-endian integer of bytes. */
export function littleEndian(bytes) {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

const weak = (message) => new VerifyError("LOG_KEY_WEAK", message);

/** The affine point [x, y] of a 32-byte encoding per RFC 8032 §5.1.3, or LOG_KEY_WEAK. */
export function decodePoint(raw) {
  if (!(raw instanceof Uint8Array) || raw.length !== 32) throw weak("an Ed25519 public key is 32 bytes");
  const n = littleEndian(raw);
  const y = n & ((1n << 255n) - 1n);
  const sign = n >> 255n;
  if (y >= P) throw weak("public key is not canonical: its y coordinate is not below p");
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  const vxx = mod(v * x * x);
  if (vxx === mod(-u)) x = mod(x * SQRT_M1);
  else if (vxx !== u) throw weak("public key is not a point of the curve");
  if (x === 0n && sign) throw weak("public key is not canonical: x = 0 with the sign bit set");
  if ((x & 1n) !== sign) x = P - x;
  return [x, y];
}

/** Whether [8]pt is the identity (three doublings in projective coordinates, a = -1). */
export function isSmallOrder([x0, y0]) {
  let [x, y, z] = [x0, y0, 1n];
  for (let i = 0; i < 3; i++) {
    const b = mod((x + y) * (x + y));
    const c = mod(x * x);
    const d = mod(y * y);
    const e = mod(-c);
    const f = mod(e + d);
    const j = mod(f - 2n * z * z);
    [x, y, z] = [mod((b - c - d) * j), mod(f * (e - d)), mod(f * j)];
  }
  return x === 0n && mod(y - z) === 0n;
}

/** Return `raw` if it is a canonical point outside the small-order subgroup; else throw
 * LOG_KEY_WEAK. */
export function checkPublicKey(raw) {
  const pt = decodePoint(raw);
  if (isSmallOrder(pt)) {
    throw weak("public key is a point of small order: signatures under it can be forged");
  }
  return raw;
}

/** Throw LOG_SIGNATURE_INVALID unless the signature is 64 bytes with S < L. */
export function checkSignatureEncoding(sig) {
  if (!(sig instanceof Uint8Array) || sig.length !== 64) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", "an Ed25519 signature is 64 bytes");
  }
  if (littleEndian(sig.subarray(32)) >= L) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", "signature is not canonical: S is not below the group order");
  }
}

/** Whether `sig` is a valid Ed25519 signature of `message` under the raw public key;
 * throws (rather than answering false) for a weak key or a non-canonical signature. */
export async function verifySignature(publicKey, message, sig) {
  checkPublicKey(publicKey);
  checkSignatureEncoding(sig);
  const key = await subtle().importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  return subtle().verify({ name: "Ed25519" }, key, sig, message);
}
