// A drand round's BLS signature checked in the browser, as shuffle/beacon.py checks it
// offline (docs/shuffle-protocol.md II.8 and II.9 step 6).
//
// Round r of a drand chain carries a BLS12-381 signature by the chain's threshold key; its
// randomness is SHA-256 of the signature (checked by tdeals.js). The signed message is
// SHA-256(previous signature || u64_be(r)) for the chained scheme and SHA-256(u64_be(r))
// for the unchained ones, hashed to the curve (RFC 9380, SHA-256, SSWU) under a
// domain separation tag:
//
//   pedersen-bls-chained      key on G1 (48 bytes), signature on G2 (96), DST ..._G2_...
//   bls-unchained-g1-rfc9380  key on G2 (96 bytes), signature on G1 (48), DST ..._G1_...
//                             (quicknet)
//   bls-unchained-on-g1       as quicknet, but hashed to G1 under the G2 tag (the retired
//                             fastnet's non-conformance, kept by drand for that chain)
//
// The pairing is @noble/curves' (MIT), pinned in package.json and bundled at build time
// into /static/vendor/bls.js (docs/browser.md, "Third-party code"); nothing is fetched
// from elsewhere. A service without the bundle (built without npm) still verifies
// everything else: loadBls() then throws BlsUnavailable and the certificate verifier says
// the check is left to the command. That the key is the real chain's is a separate fact
// (the chain's published /info): chainName() names the League of Entropy's chains.

import { VerifyError, concat, fromHex, sha256 } from "./bytes.js";
import { ShuffleError, u64 } from "./shuffle.js";

export const CHAINED = "pedersen-bls-chained";
export const QUICKNET = "bls-unchained-g1-rfc9380";
export const UNCHAINED_G1 = "bls-unchained-on-g1";
/** Each scheme's (public key, signature) sizes in bytes, as shuffle/beacon.py's SCHEMES. */
export const SCHEMES = { [CHAINED]: [48, 96], [QUICKNET]: [96, 48], [UNCHAINED_G1]: [96, 48] };
export const DST_G1 = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";
export const DST_G2 = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_";
const MAX_ROUND = 2 ** 53 - 1;
const HEX = /^(?:[0-9a-f]{2})+$/;

/** The League of Entropy's chains by public key (their /info documents). */
const LEAGUE_OF_ENTROPY = new Map([
  ["868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31", "the League of Entropy's mainnet (default)"],
  ["83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a", "the League of Entropy's quicknet"],
  ["a0b862a7527fee3a731bcb59280ab6abd62d5c0b6ea03dc4ddf6612fdfc9d01f01c31542541771903475eb1ec6615f8d0df0b8b6dce385811d6dcf8cbefb8759e5e616a3dfd054c928940766d9a5b9db91e3b697e5d70a975181e007f87fca5e", "the League of Entropy's fastnet (retired)"],
]);

/** The chain's name when its key is one of the League of Entropy's, else null. */
export const chainName = (publicKey) => LEAGUE_OF_ENTROPY.get(publicKey) ?? null;

/** The BLS library could not be loaded (the bundle was not built, or not served). */
export class BlsUnavailable extends Error {}

const BUNDLE = new URL("../vendor/bls.js", import.meta.url).href;
const loaded = new Map();

/** @noble/curves' bls12_381 from the vendored bundle (imported once; `href` only for the
 * tests); rejects with BlsUnavailable when it cannot be loaded. */
export function loadBls(href = BUNDLE) {
  if (!loaded.has(href)) {
    const where = new URL(href).pathname.replace(/^.*\/static\//, "/static/");
    loaded.set(href, import(href).then(
      (m) => {
        if (!m.bls12_381) throw new BlsUnavailable(`${where} has no bls12_381`);
        return m.bls12_381;
      },
      (e) => {
        throw new BlsUnavailable(`the BLS library (${where}) is not available: ${e?.message ?? e}`);
      },
    ));
  }
  return loaded.get(href);
}

const format = (path, problem) => new ShuffleError("SHUFFLE_INVALID", path, problem);
const invalid = (path, problem) => new ShuffleError("SHUFFLE_BEACON_INVALID", path, problem);

function bytesOf(value, path, size) {
  if (typeof value !== "string" || !HEX.test(value) || value.length !== 2 * size) {
    throw format(path, `must be ${size} bytes in lowercase hex`);
  }
  return fromHex(value);
}

/** The 32 bytes drand signs for `round` under `scheme` (before hashing to the curve). */
export async function roundMessage(scheme, round, previous = null) {
  return sha256(scheme === CHAINED ? concat(previous, u64(round)) : u64(round));
}

/**
 * Check `beacon` ({round, signature, previous_signature?}) under `chain` ({scheme,
 * public_key}); returns nothing, or throws a ShuffleError naming the field: SHUFFLE_INVALID
 * for a malformed field, SHUFFLE_BEACON_INVALID at `beacon.signature` for a signature that
 * does not verify (shuffle/beacon.py's verify_round). `bls` is loadBls()'s library.
 */
export async function verifyRound(bls, chain, beacon, path = "beacon") {
  if (!Object.hasOwn(SCHEMES, chain.scheme)) throw format(`${path}.scheme`, `must be one of ${Object.keys(SCHEMES).sort().join(", ")}`);
  const [keySize, sigSize] = SCHEMES[chain.scheme];
  const key = bytesOf(chain.public_key, `${path}.public_key`, keySize);
  const round = beacon.round;
  if (!Number.isSafeInteger(round) || round < 1 || round > MAX_ROUND) throw format(`${path}.round`, `must be an integer from 1 to ${MAX_ROUND}`);
  const sig = bytesOf(beacon.signature, `${path}.signature`, sigSize);
  const prev = beacon.previous_signature ?? null;
  let previous = null;
  if (chain.scheme === CHAINED) {
    if (typeof prev !== "string" || !HEX.test(prev) || prev.length > 2 * 96) {
      throw format(`${path}.previous_signature`, "the chained scheme needs it, in lowercase hex");
    }
    previous = fromHex(prev);
  } else if (prev !== null) {
    throw format(`${path}.previous_signature`, "unchained rounds have none");
  }
  const message = await roundMessage(chain.scheme, round, previous);
  const mode = chain.scheme === CHAINED ? bls.longSignatures : bls.shortSignatures;
  const [KeyPoint, SigPoint] = chain.scheme === CHAINED ? [bls.G1.Point, bls.G2.Point] : [bls.G2.Point, bls.G1.Point];
  let pk, point;
  try {
    pk = KeyPoint.fromBytes(key);
    pk.assertValidity();
    if (pk.is0()) throw new Error("the point at infinity");
  } catch (e) {
    throw invalid(`${path}.signature`, `the chain's public key is not a BLS12-381 key (${e?.message ?? e})`);
  }
  try {
    point = SigPoint.fromBytes(sig);
    point.assertValidity();
  } catch (e) {
    throw invalid(`${path}.signature`, `not a BLS signature of the chain (${e?.message ?? e})`);
  }
  const hashed = mode.hash(message, chain.scheme === QUICKNET ? DST_G1 : DST_G2);
  if (!mode.verify(point, hashed, pk)) {
    throw invalid(`${path}.signature`, `round ${round}'s signature does not verify under the chain's public key`);
  }
}

export { VerifyError };
