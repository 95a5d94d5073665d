// Who ruled, checked in the browser as audit/tournament/directors.py checks it: the
// directors' grants (director_grant events of the log's "directors" chain, signed by the
// log key), and each ruling of the event's chain that carries a director's signed request
// (its "by"): a grant logged before it names the director's key, the request's path is
// the ruling's route, its signature verifies over cayenne-fairplay/write/v1, and every
// field the request and the ruling both have is equal. Refusals carry the Python's codes.

import { VerifyError, fromBase64, sha256, subtle, toHex, utf8 } from "./bytes.js";
import { checkPublicKey, checkSignatureEncoding } from "./ed25519.js";
import { parseVerifierKey } from "./note.js";
import { canonicalText, show } from "./tevent.js";

export const GRANTS_TABLE = "directors";
export const GRANTS_HAND = "grants";
const OPERATOR = "operator";
const ALWAYS = [
  "tournament_create", "tournament_registration", "tournament_beacon", "tournament_start",
  "tournament_substitute", "tournament_adjust", "tournament_withdraw", "tournament_void_board",
  "tournament_remove",
];
const err = (code, message) => new VerifyError(code, message);

/** directors.grants_of: id → [key text, the grant's log index] (the first grant counts). */
export function grantsOf(items) {
  const out = new Map();
  for (const { event: ev, index } of items) {
    if (ev.table !== GRANTS_TABLE || String(ev.hand) !== GRANTS_HAND || ev.type !== "director_grant") continue;
    if (ev.actor !== "server") throw err("RULING_NOT_GRANTED", `log entry ${index}: a grant not by the service`);
    if (!out.has(ev.body.director)) out.set(ev.body.director, [ev.body.key, index]);
  }
  return out;
}

/** directors.routes_of: the paths whose signed request may rule `kind`. */
export function routesOf(tid, kind) {
  const base = `/v1/tournaments/${tid}`;
  const fixed = {
    tournament_create: ["/v1/tournaments"],
    tournament_registration: [`${base}/registration`],
    tournament_beacon: [`${base}/beacon`],
    tournament_start: [`${base}/start`],
    tournament_deal: [`${base}/rounds/next`],
    tournament_round_end: [`${base}/rounds/end`, `${base}/rounds/next`],
  };
  return fixed[kind] ?? [`${base}/actions/${kind.replace(/^tournament_/, "")}`];
}

async function checkRuling(tid, kind, body, index, grants) {
  const by = body.by;
  const who = by.director;
  const where = `${kind} of ${tid}`;
  const granted = grants.get(who);
  if (!granted || granted[1] >= index) throw err("RULING_NOT_GRANTED", `${where}: ${who} was not granted as a director before this ruling`);
  if (!routesOf(tid, kind).includes(by.path)) throw err("RULING_NOT_GRANTED", `${where}: the director's request was for ${show(by.path)}, not this ruling`);
  let ok = false;
  try {
    const key = await parseVerifierKey(granted[0]);
    checkPublicKey(key.publicKey);
    const sig = fromBase64(by.signature, { canonical: true });
    checkSignatureEncoding(sig);
    const digest = toHex(await sha256(utf8(by.body)));
    const message = utf8(`cayenne-fairplay/write/v1\nPOST\n${by.path}\n${by.ts}\n${by.nonce}\n${digest}`);
    const crypto = await subtle().importKey("raw", key.publicKey, { name: "Ed25519" }, false, ["verify"]);
    ok = await subtle().verify({ name: "Ed25519" }, crypto, sig, message);
  } catch {
    ok = false;
  }
  if (!ok) throw err("LOG_SIGNATURE_INVALID", `${where}: the director's request is not signed by ${who}'s granted key`);
  let asked = null;
  try {
    asked = by.body.trim() ? JSON.parse(by.body) : {};
  } catch {
    asked = null;
  }
  if (asked === null || typeof asked !== "object" || Array.isArray(asked)) throw err("RULING_NOT_GRANTED", `${where}: the director's request is not a JSON object`);
  if (by.path.endsWith("/rounds/next")) return who; // it names the round to start, the ruling the round it ends
  for (const [name, raw] of Object.entries(asked)) {
    if (name === "by" || name === "ruleset" || !(name in body)) continue;
    const value = typeof raw === "string" ? raw.trim() : raw;
    if (canonicalText(value) !== canonicalText(body[name])) {
      throw err("RULING_NOT_GRANTED", `${where}: ${name} is ${show(body[name])}, the director asked for ${show(value)}`);
    }
  }
  return who;
}

/** directors.check_rulings: each ruling of the event's chain (`{index, event}` items):
 * its log index, type, who took it and its reason. */
export async function checkRulings(tid, chain, grants) {
  const out = [];
  for (const { event: ev, index } of chain) {
    const body = ev.body;
    let who;
    if ("by" in body) who = await checkRuling(tid, ev.type, body, index, grants);
    else if (ALWAYS.includes(ev.type) || (ev.type === "tournament_round_end" && "reason" in body)) who = OPERATOR;
    else continue;
    const ruling = { index, type: ev.type, by: who };
    if ("reason" in body) ruling.reason = body.reason;
    out.push(ruling);
  }
  return out;
}

/** The certificate's `directors` and `rulings` (both absent when every ruling was the
 * operator's, as in certificates before directors). */
export function ruledBy(rulings, grants) {
  const ruled = [...new Set(rulings.map((r) => r.by).filter((b) => b !== OPERATOR))];
  if (!ruled.length) return {};
  return {
    directors: ruled.map((d) => ({ director: d, key: grants.get(d)[0], granted_at: grants.get(d)[1] })),
    rulings,
  };
}
