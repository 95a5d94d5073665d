// The log as this browser sees it, trusting no server: the log key and the witness policy
// pinned in localStorage on first use, the last checkpoint verified, and the check of a
// service's current checkpoint against all three (docs/browser.md, "The log and its
// witnesses"). A checkpoint that is not an append-only extension of the last one kept is
// a split view: both checkpoints are the evidence, and the kept one is not replaced.

import { checkConsistency } from "./events.js";
import { cosignaturesBy, makePolicy } from "./cosignature.js";
import { parseCheckpoint, parseNote, parseVerifierKey, verifyCheckpoint } from "./note.js";

export const CHECKPOINT_KEY = "cayenne-fairplay:last-checkpoint";
export const LOG_KEY = "cayenne-fairplay:log-key";
export const POLICY_KEY = "cayenne-fairplay:witness-policy";

/** The pinned witness policy {witnesses: [key texts], quorum}, or null if none is pinned. */
export function pinnedPolicy(storage) {
  const raw = storage.getItem(POLICY_KEY);
  if (!raw) return null;
  try {
    const doc = JSON.parse(raw);
    if (Array.isArray(doc.witnesses) && Number.isInteger(doc.quorum)) return { witnesses: doc.witnesses.map(String), quorum: doc.quorum };
  } catch {
    // a damaged entry: treated as none pinned, and reported by the caller's check
  }
  return null;
}

/** Validate (parse every key, 0 ≤ quorum ≤ n, no key twice) and pin a policy. */
export async function savePolicy(storage, texts, quorum) {
  const keys = texts.map((t) => t.trim()).filter(Boolean);
  const policy = await makePolicy(keys, quorum);
  storage.setItem(POLICY_KEY, JSON.stringify({ witnesses: policy.witnesses.map((w) => w.text), quorum: policy.quorum }));
  return policy;
}

/** Pin the witnesses the service names on first use (all of them required); later, keep
 * the pinned policy and report the service's list when it differs. */
export async function pinOnFirstUse(storage, published) {
  const kept = pinnedPolicy(storage);
  if (!kept) {
    await savePolicy(storage, published, published.length);
    return { policy: pinnedPolicy(storage), first: true, differs: false };
  }
  const a = [...kept.witnesses].sort().join("\n");
  const b = [...published].map((t) => t.trim()).sort().join("\n");
  return { policy: kept, first: false, differs: a !== b };
}

const short = (note) => {
  try {
    const cp = parseCheckpoint(parseNote(note).text);
    return `size ${cp.size}`;
  } catch {
    return "unreadable";
  }
};

/**
 * Check a service's current checkpoint `note` against the pinned log key, the pinned
 * policy ({witnesses, quorum} of key texts, or null) and the last checkpoint this browser
 * kept (`last`, a note or null). `consistency(from, to)` fetches a proof (hashes, or null
 * if the service gives none). Returns {ok, checks: [{check, ok, detail}], witnesses:
 * [{name, text, cosigned}], quorum, fork: {first, second, detail} | null, checkpoint}.
 */
export async function checkLogView(note, logKeyText, policyTexts, last, consistency) {
  const checks = [];
  const out = { ok: false, checks, witnesses: [], quorum: 0, fork: null, checkpoint: null };
  let key;
  let cp;
  try {
    key = await parseVerifierKey(logKeyText);
    cp = await verifyCheckpoint(note, key);
    checks.push({ check: "log checkpoint", ok: true, detail: `signed by the pinned log key ${key.name}: ${cp.origin}, size ${cp.size}` });
  } catch (err) {
    checks.push({ check: "log checkpoint", ok: false, detail: `${err.code ?? "ERROR"}: ${err.message}` });
    checks.push({ check: "witnesses", ok: false, detail: "not checked: depends on log checkpoint" });
    checks.push({ check: "same log as before", ok: false, detail: "not checked: depends on log checkpoint" });
    return out;
  }
  let witnessesOk = false;
  try {
    if (!policyTexts) throw Object.assign(new Error("no witness policy is pinned in this browser"), { code: "LOG_WITNESS_QUORUM" });
    const policy = await makePolicy(policyTexts.witnesses, policyTexts.quorum);
    const found = await cosignaturesBy(note, policy.witnesses);
    out.quorum = policy.quorum;
    out.witnesses = policy.witnesses.map((w) => ({ name: w.name, text: w.text, cosigned: found.has(w.text) }));
    const good = out.witnesses.filter((w) => w.cosigned);
    const n = policy.witnesses.length;
    if (n === 0) {
      witnessesOk = true;
      checks.push({ check: "witnesses", ok: true, detail: "no witness policy (this service named no witnesses when first seen): nothing required" });
    } else if (good.length >= policy.quorum) {
      witnessesOk = true;
      checks.push({ check: "witnesses", ok: true, detail: `cosigned by ${good.length} of ${n} (${good.map((w) => w.name).join(", ")}); the policy needs ${policy.quorum}` });
    } else {
      const missing = out.witnesses.filter((w) => !w.cosigned).map((w) => w.name);
      checks.push({
        check: "witnesses",
        ok: false,
        detail: `LOG_WITNESS_QUORUM: cosigned by ${good.length} of ${n} witnesses, the policy needs ${policy.quorum}; missing: ${missing.join(", ")}`,
      });
    }
  } catch (err) {
    checks.push({ check: "witnesses", ok: false, detail: `${err.code ?? "ERROR"}: ${err.message}` });
  }
  let sameLog = false;
  if (!last) {
    sameLog = true;
    checks.push({ check: "same log as before", ok: true, detail: "no checkpoint seen before in this browser: this one is the first" });
  } else {
    let older;
    try {
      older = await verifyCheckpoint(last, key);
    } catch (err) {
      older = null;
      checks.push({ check: "same log as before", ok: false, detail: `the kept checkpoint does not verify with the pinned key: ${err.message}` });
    }
    if (older) {
      const [a, b] = [Math.min(older.size, cp.size), Math.max(older.size, cp.size)];
      const proof = a === b || a === 0 ? [] : await consistency(a, b);
      try {
        if (older.size > 0 && cp.size === 0) {
          throw Object.assign(new Error(`the log is empty now, and held ${older.size} entries before`), { code: "LOG_INCONSISTENT" });
        }
        if (older.size > 0 && proof === null) {
          throw Object.assign(new Error(`the service gives no consistency proof between sizes ${a} and ${b}`), { code: "LOG_INCONSISTENT" });
        }
        if (older.size > 0) await checkConsistency(last, note, proof, key);
        sameLog = true;
        checks.push({ check: "same log as before", ok: true, detail: `consistent with the checkpoint this browser kept (size ${older.size})` });
      } catch (err) {
        const detail = `${err.code ?? "ERROR"}: ${err.message}`;
        out.fork = { first: last, second: note, detail };
        checks.push({ check: "same log as before", ok: false, detail: `SPLIT VIEW: this checkpoint (${short(note)}) and the one this browser kept (${short(last)}) are not one append-only log: ${detail}` });
      }
    }
  }
  out.ok = witnessesOk && sameLog;
  // an empty log's checkpoint is not kept: every log extends it, and a hand's check
  // needs no proof from it
  if (out.ok && cp.size > 0) out.checkpoint = newest(last, note, cp);
  return out;
}

/** The larger of the kept and the new checkpoint (both verified and consistent). */
function newest(last, note, cp) {
  if (!last) return note;
  const kept = Number(String(last).split("\n")[1]);
  return cp.size >= kept ? note : last;
}
