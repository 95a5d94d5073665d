// Signed hand events and offline proof bundles, checked as audit/log/events.py and
// audit/log/bundle.py check them: each event's shape and its Ed25519 signature by the key
// it names, the hand's chain (seq 0, 1, 2, ... and prev = the hash of the event before),
// every event's inclusion in the bundle's checkpoint signed by the log key, the later
// checkpoint's consistency, and that the hand is finished. Plus checkConsistency: a
// checkpoint against the last one this browser saw.

import { VerifyError, fromBase64, sha256, toHex, utf8, concat } from "./bytes.js";
import { canonicalJson } from "./canonical.js";
import { verifySignature } from "./ed25519.js";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle.js";
import { parseVerifierKey, verifyCheckpoint } from "./note.js";

export const FORMAT = "cayenne-fairplay/hand-proof/v1";
export const FINAL_TYPES = ["end", "void"];
export const SIGNING_CONTEXT = "cayenne-fairplay/event/v1\n";
const REQUIRED = ["v", "origin", "table", "hand", "seq", "prev", "actor", "key", "type", "body"];
const OPTIONAL = ["time", "signature"];

const eventError = (m) => new VerifyError("LOG_EVENT_INVALID", m);
const inconsistent = (m) => new VerifyError("LOG_INCONSISTENT", m);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Check an event's shape (errors name the field); returns it. */
export function checkEvent(event, { signed = true } = {}) {
  if (!isObject(event)) throw eventError("event must be a JSON object");
  for (const name of REQUIRED) if (!(name in event)) throw eventError(`event.${name}: missing`);
  if (signed && !("signature" in event)) throw eventError("event.signature: missing");
  for (const name of Object.keys(event)) {
    if (!REQUIRED.includes(name) && !OPTIONAL.includes(name)) throw eventError(`event.${name}: unknown field`);
  }
  if (event.v !== 1) throw eventError("event.v: must be 1");
  for (const name of ["origin", "table", "hand", "actor", "key", "type"]) {
    if (typeof event[name] !== "string" || !event[name]) throw eventError(`event.${name}: must be a non-empty string`);
  }
  if (!Number.isSafeInteger(event.seq) || event.seq < 0) throw eventError("event.seq: must be a non-negative integer");
  if (event.seq === 0) {
    if (event.prev !== null) throw eventError("event.prev: must be null for the first event of a hand (seq 0)");
  } else if (typeof event.prev !== "string" || !/^[0-9a-f]{64}$/.test(event.prev)) {
    throw eventError("event.prev: must be the 64-hex-digit hash of the previous event");
  }
  if (!isObject(event.body)) throw eventError("event.body: must be a JSON object");
  if ("time" in event && typeof event.time !== "string") throw eventError("event.time: must be a string");
  if ("signature" in event && typeof event.signature !== "string") throw eventError("event.signature: must be base64 text");
  canonicalJson(event); // every value must be canonically encodable
  return event;
}

/** Hex SHA-256 of the canonical JSON of the whole signed event (the next event's prev). */
export async function eventHash(event) {
  return toHex(await sha256(canonicalJson(event)));
}

/** The bytes an actor signs: the context string and the event without its signature. */
export function signingInput(event) {
  const unsigned = {};
  for (const [k, v] of Object.entries(event)) if (k !== "signature") unsigned[k] = v;
  return concat(utf8(SIGNING_CONTEXT), canonicalJson(unsigned));
}

/** Throw LOG_SIGNATURE_INVALID unless the event is signed by the key it names (a weak or
 * malformed key is refused, the signature must be canonical base64 with S < L). Returns the
 * parsed key. */
export async function verifyEvent(event) {
  let key;
  try {
    key = await parseVerifierKey(event.key);
  } catch (err) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", `event.key: ${err.message}`);
  }
  let sig;
  try {
    sig = fromBase64(event.signature, { canonical: true });
  } catch (err) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", `event.signature: ${err.message}`);
  }
  let ok = false;
  try {
    ok = await verifySignature(key.publicKey, signingInput(event), sig);
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new VerifyError("LOG_SIGNATURE_INVALID", `event signature does not verify under ${key.name}+${key.keyId}`);
  }
  return key;
}

function hashList(values, where) {
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
    throw inconsistent(`${where}: must be a list of base64 hashes`);
  }
  try {
    return values.map((v) => fromBase64(v));
  } catch {
    throw inconsistent(`${where}: invalid base64`);
  }
}

/** The bundle's fields and events, shape-checked (LOG_INCONSISTENT / LOG_EVENT_INVALID
 * naming `bundle.events[n]`). Returns {origin, table, hand, items: [{index, event,
 * inclusion}]}. */
export function checkBundleShape(bundle) {
  if (!isObject(bundle) || bundle.format !== FORMAT) throw inconsistent(`bundle.format: must be '${FORMAT}'`);
  for (const f of ["origin", "table", "hand", "checkpoint"]) {
    if (typeof bundle[f] !== "string") throw inconsistent(`bundle.${f}: must be a string`);
  }
  const { origin, table, hand } = bundle;
  if (!Array.isArray(bundle.events) || bundle.events.length === 0) throw inconsistent("bundle.events: must be a non-empty list");
  let last = -1;
  const items = bundle.events.map((item, n) => {
    const where = `bundle.events[${n}]`;
    const index = isObject(item) ? item.index : undefined;
    if (!Number.isSafeInteger(index) || index < 0) throw inconsistent(`${where}.index: must be a non-negative integer`);
    if (index <= last) throw inconsistent(`${where}.index: events must be in log order`);
    last = index;
    let event;
    try {
      event = checkEvent(item.event);
    } catch (err) {
      throw new VerifyError(err.code, `${where}.event: ${err.message}`);
    }
    if (event.origin !== origin || event.table !== table || event.hand !== hand) {
      throw inconsistent(`${where}: event is not of this log, table and hand`);
    }
    return { index, event, inclusion: hashList(item.inclusion, `${where}.inclusion`), where };
  });
  return { origin, table, hand, items };
}

/** Every event's signature by its own key; returns the parsed keys, one per event. */
export async function verifySignatures(items) {
  const keys = [];
  for (const { event, where, index } of items) {
    try {
      keys.push(await verifyEvent(event));
    } catch (err) {
      throw new VerifyError(err.code, `${where} (log entry ${index}): ${err.message}`);
    }
  }
  return keys;
}

/** The hand's chain: seq 0, 1, 2, ... and each prev the hash of the event before. */
export async function verifyChain(items) {
  let prev = null;
  for (const [n, { event, where }] of items.entries()) {
    if (event.seq !== n) throw new VerifyError("LOG_CHAIN_BROKEN", `${where}: seq ${event.seq}, expected ${n}`);
    if (event.prev !== prev) throw new VerifyError("LOG_CHAIN_BROKEN", `${where}: prev is not the hash of the event before`);
    prev = await eventHash(event);
  }
}

/** Every event's inclusion proof against the checkpoint {size, root}. */
export async function verifyInclusions(items, cp) {
  for (const { event, index, inclusion, where } of items) {
    try {
      await verifyInclusion(await leafHash(canonicalJson(event)), index, cp.size, inclusion, cp.root);
    } catch (err) {
      throw inconsistent(`${where}: not included in the checkpoint of size ${cp.size}: ${err.message}`);
    }
  }
}

/** The bundle's `later` checkpoint, verified and shown consistent with `cp`; or null. */
export async function verifyLater(bundle, cp, logKey) {
  const later = bundle.later;
  if (later === undefined || later === null) return null;
  if (!isObject(later) || typeof later.checkpoint !== "string") throw inconsistent("bundle.later.checkpoint: must be a checkpoint note");
  const cp2 = await verifyCheckpoint(later.checkpoint, logKey, bundle.origin);
  const proof = hashList(later.consistency, "bundle.later.consistency");
  try {
    await verifyConsistency(cp.size, cp2.size, cp.root, cp2.root, proof);
  } catch (err) {
    throw inconsistent(`bundle.later: checkpoint ${cp2.size} is not an extension of ${cp.size}: ${err.message}`);
  }
  return cp2;
}

/**
 * Check that two checkpoints of the log (signed notes) show one history: both signed by
 * the log key with the same origin, and the smaller a prefix of the larger by the
 * consistency proof (a list of base64 or byte hashes) from the smaller size to the larger.
 * Equal sizes need equal roots and no proof; anything else is a fork (LOG_INCONSISTENT).
 * Returns {older, newer}: newer is the checkpoint to remember.
 */
export async function checkConsistency(lastNote, newNote, proof, logKey, origin = null) {
  const a = await verifyCheckpoint(lastNote, logKey, origin);
  const b = await verifyCheckpoint(newNote, logKey, origin ?? a.origin);
  const [older, newer] = a.size <= b.size ? [a, b] : [b, a];
  const hashes = (proof ?? []).map((h) => (h instanceof Uint8Array ? h : hashList([h], "consistency proof")[0]));
  if (older.size === newer.size) {
    if (toHex(older.root) !== toHex(newer.root)) {
      throw inconsistent(`fork: two checkpoints of size ${older.size} with different roots (the log showed different histories)`);
    }
    return { older, newer };
  }
  try {
    await verifyConsistency(older.size, newer.size, older.root, newer.root, hashes);
  } catch (err) {
    throw inconsistent(`the checkpoint of size ${newer.size} is not an extension of the one of size ${older.size}: ${err.message}`);
  }
  return { older, newer };
}

/**
 * verify_bundle of audit/log/bundle.py: throws the first failure (a VerifyError with the
 * Python's code), or returns {origin, table, hand, events, checkpoint, final, finished,
 * lastType, items, keys}. A hand not finished (last event not end/void) throws
 * LOG_HAND_PARTIAL unless `partial`.
 */
export async function verifyBundle(bundle, logKeyText, { partial = false } = {}) {
  const logKey = await parseVerifierKey(logKeyText);
  const shape = checkBundleShape(bundle);
  const cp = await verifyCheckpoint(bundle.checkpoint, logKey, shape.origin);
  const keys = await verifySignatures(shape.items);
  await verifyChain(shape.items);
  await verifyInclusions(shape.items, cp);
  const final = (await verifyLater(bundle, cp, logKey)) ?? cp;
  const lastType = shape.items[shape.items.length - 1].event.type;
  const finished = FINAL_TYPES.includes(lastType);
  if (!finished && !partial) {
    throw new VerifyError(
      "LOG_HAND_PARTIAL",
      `table ${shape.table} hand ${shape.hand} is not finished: the bundle's last event is '${lastType}'`,
    );
  }
  return { ...shape, events: shape.items.length, checkpoint: cp, final, finished, lastType, keys, logKey };
}
