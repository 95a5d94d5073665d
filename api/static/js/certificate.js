// verifyCertificate: a finished event's certificate bundle checked in the player's
// browser, as `fairplay tournament verify` checks it (audit/tournament/certificate.py,
// signed.py, online.py; the checklist in docs/tournaments.md): the note and checkpoint
// signed by the log key, every event's signature, signer, chain and inclusion, every
// chain a table's of the event, the deals from the entrants' seeds, every hand derived
// from the players' signed events and equal to its record field by field, the boards'
// scores, matchpoints (Neuberg), the standings and their hash in the signed
// tournament_end (the event's chain: tevent.js; the hands: signed.js and cayenne.js; the
// deals: tdeals.js; the scores: standings.js). Every check runs, even after one failed
// (a check that needs a failed one says so and fails too); a refusal names the field as
// the Python verifier does.
//
// A version 2 event's drand round: its BLS signature under the chain's key (drand.js,
// over the vendored @noble/curves bundle; on a service built without it, shown as "not
// checked in the browser").
//
// Not done here (shown as "not checked in the browser", ok: null): each hand's
// statistical audit (its verdict), which `fairplay tournament verify` checks. A round
// robin's match values and each rubber hand's start come from the rubber scorer
// (rubber.js).

import { VerifyError, fromBase64, sha256, subtle, toBase64, toHex } from "./bytes.js";
import { canonicalJson } from "./canonical.js";
import { boardResult, handFacts } from "./cayenne.js";
import { checkPublicKey, checkSignatureEncoding } from "./ed25519.js";
import { checkEvent, eventHash, signingInput } from "./events.js";
import { leafHash, nodeHash, verifyInclusion } from "./merkle.js";
import { boardsOfSet, mitchell, pairsOf } from "./movement.js";
import { parseNote, parseVerifierKey, verifyCheckpoint, verifyNote } from "./note.js";
import { CARD_TEXT } from "./shuffle.js";
import { checkRulings, grantsOf, ruledBy } from "./rulings.js";
import { deriveRecord, difference } from "./signed.js";
import { BlsUnavailable, chainName, loadBls, verifyRound } from "./drand.js";
import { PyFloat, duplicateStandings, places, Frac, standingsDigest } from "./standings.js";
import { Sheet, matchValue } from "./rubber.js";
import { VERSION_1, VERSION_2, boardJson, checkOpenings, deriveBoards } from "./tdeals.js";
import { DUPLICATE, EVENT_CHAIN, SPEC_FIELDS, canonicalText, chainOf, checkChains, checkEntrants, fold, members, show } from "./tevent.js";

export { DUPLICATE, fold };

export const FORMAT = "cayenne-tournament-certificate/1";
export const BUNDLE_FORMAT = "cayenne-tournament-certificate-bundle/1";
const ZERO_SCORE = { points: { NS: 0, EW: 0 }, games: { NS: 0, EW: 0 } };

/** The names of the checks, in the order they are reported. */
export const CHECKS = [
  "log key", "bundle", "note", "checkpoint", "events", "signatures", "signers", "chain",
  "inclusion", "the event's chains", "the event", "deals", "beacon signature", "hands",
  "records", "board scores", "matchpoints", "standings", "standings hash", "audit",
];

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const err = (code, message) => new VerifyError(code, message);
const unreadable = (m) => err("CERTIFICATE_UNREADABLE", m);
class NotHere extends Error {}

function need(obj, field, kind, where = "bundle") {
  const v = isObject(obj) ? obj[field] : undefined;
  const ok = kind === "object" ? isObject(v) : kind === "array" ? Array.isArray(v) : kind === "int" ? Number.isSafeInteger(v) : typeof v === kind;
  if (!ok) throw unreadable(`${where}.${field}: missing or of the wrong type`);
  return v;
}

/** CertificateMismatch's message: "board B, table T, field PATH: certified X, recomputed Y". */
function mismatch(path, certified, recomputed, board = null, table = null) {
  const at = [["board", board], ["table", table]].filter(([, v]) => v).map(([k, v]) => `${k} ${v}, `).join("");
  return err("CERTIFICATE_MISMATCH", `${at}field ${path}: certified ${show(certified)}, recomputed ${show(recomputed)}`);
}

/** The first place where the certified and the recomputed documents differ (the
 * Python's first_difference: keys sorted, lengths after items, types compared). */
export function firstDifference(certified, recomputed, path = "$", ctx = [null, null]) {
  if (isObject(certified) && isObject(recomputed)) {
    const board = certified.board ?? ctx[0];
    const table = certified.table ?? ctx[1];
    for (const k of [...new Set([...Object.keys(certified), ...Object.keys(recomputed)])].sort()) {
      if (!(k in certified) || !(k in recomputed)) return mismatch(`${path}.${k}`, certified[k], recomputed[k], board, table);
      const d = firstDifference(certified[k], recomputed[k], `${path}.${k}`, [board, table]);
      if (d) return d;
    }
    return null;
  }
  if (Array.isArray(certified) && Array.isArray(recomputed)) {
    for (let i = 0; i < Math.min(certified.length, recomputed.length); i++) {
      const d = firstDifference(certified[i], recomputed[i], `${path}[${i}]`, ctx);
      if (d) return d;
    }
    if (certified.length !== recomputed.length) return mismatch(`${path}.length`, certified.length, recomputed.length, ...ctx);
    return null;
  }
  const same = certified === recomputed || (certified === null && recomputed === undefined);
  return same ? null : mismatch(path, certified, recomputed, ...ctx);
}

const leafOf = async (item) => ({ index: item.index, leaf_hash: toBase64(await leafHash(canonicalJson(item.event))) });

// ------------------------------------------------------------------ the checks

/** fn over every item, up to 256 at a time (Web Crypto's work runs side by side), the
 * results in order. */
async function inBatches(items, fn, size = 256) {
  const out = [];
  for (let at = 0; at < items.length; at += size) {
    out.push(...(await Promise.all(items.slice(at, at + size).map((item, i) => fn(item, at + i)))));
  }
  return out;
}

/** events.verifyEvent with each key read, checked (not weak) and imported once: an event
 * checks only its signature's encoding and equation. Returns the key's text. */
function signatureChecker() {
  const keys = new Map();
  const keyOf = (text) => {
    if (!keys.has(text)) {
      keys.set(text, (async () => {
        let key;
        try {
          key = await parseVerifierKey(text);
          checkPublicKey(key.publicKey);
        } catch (e) {
          throw err("LOG_SIGNATURE_INVALID", `event.key: ${e.message}`);
        }
        const crypto = await subtle().importKey("raw", key.publicKey, { name: "Ed25519" }, false, ["verify"]);
        return { key, crypto };
      })());
    }
    return keys.get(text);
  };
  return async (event) => {
    const { key, crypto } = await keyOf(event.key);
    let sig;
    try {
      sig = fromBase64(event.signature, { canonical: true });
      checkSignatureEncoding(sig);
    } catch (e) {
      throw err("LOG_SIGNATURE_INVALID", `event.signature: ${e.message}`);
    }
    if (!(await subtle().verify({ name: "Ed25519" }, crypto, sig, signingInput(event)))) {
      throw err("LOG_SIGNATURE_INVALID", `event signature does not verify under ${key.name}+${key.keyId}`);
    }
    return key.text;
  };
}

/**
 * Every check, with details: {checks: [{check, ok, detail, code, ms}], ok, summary}. `ok`
 * is true (passed), false (failed) or null (not checked in the browser: the command
 * does). `options.onProgress(check, done, total)` is called before each check.
 */
export async function verifyCertificateDetailed(bundle, keyText, options = {}) {
  const checks = [];
  const ctx = {};
  const passed = new Set();
  const progress = options.onProgress ?? (() => {});
  const run = async (check, needs, fn) => {
    progress(check, checks.length, CHECKS.length);
    const missing = needs.filter((n) => !passed.has(n));
    if (missing.length) {
      checks.push({ check, ok: false, detail: `not checked: depends on ${missing.join(", ")}, which failed` });
      return;
    }
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const detail = await fn();
      checks.push({ check, ok: true, detail, ms: ms() });
      passed.add(check);
    } catch (e) {
      if (e instanceof NotHere) {
        checks.push({ check, ok: null, detail: `not checked in the browser: ${e.message}; run the command`, ms: ms() });
        passed.add(check);
      } else {
        checks.push({ check, ok: false, detail: e?.message ?? String(e), code: e?.code ?? "ERROR", ms: ms() });
      }
    }
  };

  await run("log key", [], async () => {
    ctx.key = await parseVerifierKey(keyText);
    return `${ctx.key.name}+${ctx.key.keyId}`;
  });
  await run("bundle", [], async () => {
    if (!isObject(bundle) || bundle.format !== BUNDLE_FORMAT) throw unreadable(`bundle.format: must be '${BUNDLE_FORMAT}'`);
    ctx.cert = need(bundle, "certificate", "object");
    ctx.note = need(bundle, "note", "string");
    ctx.items = need(bundle, "events", "array");
    ctx.recs = need(bundle, "records", "array");
    ctx.witnessed = need(bundle, "checkpoint", "string");
    ctx.origin = need(ctx.cert, "origin", "string", "certificate");
    ctx.tid = need(need(ctx.cert, "event", "object", "certificate"), "id", "string", "certificate.event");
    ctx.certifiedCp = need(ctx.cert, "checkpoint", "string", "certificate");
    for (const f of ["hands", "standings", "rounds", "pairs", "results"]) need(ctx.cert, f, "array", "certificate");
    ctx.given = ctx.recs.map((r, n) => [need(r, "table", "string", `bundle.records[${n}]`), need(r, "hand", "int", `bundle.records[${n}]`), need(r, "record", "object", `bundle.records[${n}]`)]);
    return `event ${ctx.tid} of log ${ctx.origin}: ${ctx.items.length} events, ${ctx.recs.length} records`;
  });
  await run("note", ["log key", "bundle"], async () => {
    let signed;
    try {
      signed = await verifyNote(ctx.note, ctx.key);
    } catch (e) {
      throw err("LOG_SIGNATURE_INVALID", `bundle.note: ${e.message}`);
    }
    const digest = toHex(await sha256(canonicalJson(ctx.cert)));
    const expected = `${FORMAT}\n${ctx.origin}\n${ctx.tid}\nsha256 ${digest}\n`;
    if (signed !== expected) {
      const last = (t) => JSON.stringify(t.trimEnd().split("\n").pop());
      throw err("LOG_SIGNATURE_INVALID", `bundle.note: the signed note is not over this certificate (signed ${last(signed)}, certificate ${last(expected)})`);
    }
    return `the log key signed this certificate (sha256 ${digest.slice(0, 16)}…)`;
  });
  await run("checkpoint", ["log key", "bundle"], async () => {
    ctx.cp = await verifyCheckpoint(ctx.certifiedCp, ctx.key, ctx.origin);
    if (parseNote(ctx.witnessed).text !== parseNote(ctx.certifiedCp).text) throw err("LOG_INCONSISTENT", "bundle.checkpoint: not the certificate's checkpoint");
    await verifyCheckpoint(ctx.witnessed, ctx.key, ctx.origin);
    return `tree of size ${ctx.cp.size}, signed by the log key`;
  });
  await run("events", ["bundle"], async () => {
    let last = -1;
    ctx.events = ctx.items.map((item, n) => {
      const where = `bundle.events[${n}]`;
      const index = isObject(item) ? item.index : undefined;
      if (!Number.isSafeInteger(index) || index < 0) throw unreadable(`${where}.index: must be a non-negative integer`);
      if (index <= last) throw err("LOG_INCONSISTENT", `${where}.index: events must be in log order`);
      last = index;
      let ev;
      try {
        ev = checkEvent(item.event);
      } catch (e) {
        throw err("LOG_INCONSISTENT", `${where}.event: ${e.message}`);
      }
      if (ev.origin !== ctx.origin) throw err("LOG_INCONSISTENT", `${where}: an event of another log`);
      return { index, event: ev, where, inclusion: item.inclusion };
    });
    return `${ctx.events.length} events of log ${ctx.origin}, in log order`;
  });
  await run("signatures", ["events"], async () => {
    const verify = signatureChecker();
    const BATCH = 256; // Web Crypto's verifications run side by side; the first failure in log order is named
    ctx.keys = [];
    for (let at = 0; at < ctx.events.length; at += BATCH) {
      const batch = ctx.events.slice(at, at + BATCH);
      const outcomes = await Promise.all(batch.map(({ event }) => verify(event).then((k) => [k, null], (e) => [null, e])));
      for (const [n, [key, e]] of outcomes.entries()) {
        const { where, index } = batch[n];
        if (e) throw err("LOG_SIGNATURE_INVALID", `${where} (log entry ${index}): ${e.message}`);
        ctx.keys.push(key);
      }
      progress("signatures", checks.length, CHECKS.length, ctx.keys.length / ctx.events.length);
    }
    return `all ${ctx.keys.length} events are signed by the keys they name`;
  });
  await run("signers", ["log key", "signatures"], async () => {
    const keys = new Map();
    for (const { event: ev, where, index } of ctx.events) {
      if (ev.actor === "server") {
        if (ev.key !== ctx.key.text) throw err("LOG_SIGNATURE_INVALID", `${where}: a server event not signed by the log key`);
      } else {
        if (!keys.has(ev.actor)) keys.set(ev.actor, ev.key);
        if (keys.get(ev.actor) !== ev.key) throw err("LOG_SIGNATURE_INVALID", `${where} (log entry ${index}): ${ev.actor} signs with two keys`);
      }
    }
    return `the server's events by the log key; each of ${keys.size} players by one key`;
  });
  await run("chain", ["events"], async () => {
    const hashes = await inBatches(ctx.events, ({ event }) => eventHash(event));
    const heads = new Map();
    ctx.chains = new Map();
    for (const [n, { event: ev, where, index }] of ctx.events.entries()) {
      const id = JSON.stringify([ev.table, String(ev.hand)]);
      const [seq, prev] = heads.get(id) ?? [0, null];
      if (ev.seq !== seq || ev.prev !== prev) {
        throw err("LOG_CHAIN_BROKEN", `${where} (log entry ${index}): table ${ev.table} hand ${ev.hand}: seq ${ev.seq} does not follow the chain (expected seq ${seq} after the event before)`);
      }
      heads.set(id, [seq + 1, hashes[n]]);
      if (!ctx.chains.has(id)) ctx.chains.set(id, []);
      ctx.chains.get(id).push(ev);
    }
    return `${ctx.chains.size} chains, each event linked to the one before`;
  });
  await run("inclusion", ["events", "checkpoint"], async () => {
    const cache = new Map();
    const proofs = ctx.events.map(({ inclusion, where }) => {
      if (!Array.isArray(inclusion) || !inclusion.every((h) => typeof h === "string")) throw unreadable(`${where}.inclusion: a list of base64 hashes`);
      try {
        return inclusion.map((h) => cache.get(h) ?? cache.set(h, fromBase64(h)).get(h));
      } catch {
        throw unreadable(`${where}.inclusion: a list of base64 hashes`);
      }
    });
    const nodes = new Map(); // the proofs share their upper nodes: each is hashed once
    const hashNode = (left, right) => {
      const k = toBase64(left) + toBase64(right);
      if (!nodes.has(k)) nodes.set(k, nodeHash(left, right));
      return nodes.get(k);
    };
    const outcomes = await inBatches(ctx.events, async ({ event, index }, n) => {
      try {
        await verifyInclusion(await leafHash(canonicalJson(event)), index, ctx.cp.size, proofs[n], ctx.cp.root, { hashNode });
        return null;
      } catch (e) {
        return e;
      }
    });
    const bad = outcomes.findIndex((e) => e !== null);
    if (bad >= 0) {
      const { where, index } = ctx.events[bad];
      throw err("LOG_INCONSISTENT", `${where} (log entry ${index}): not included in the checkpoint of size ${ctx.cp.size}: ${outcomes[bad].message}`);
    }
    return `every event is in the log's tree of size ${ctx.cp.size}`;
  });
  await run("the event's chains", ["chain", "signers"], async () => {
    checkEntrants(ctx.tid, ctx.chains); // before their withdrawals fold
    ctx.doc = fold(ctx.tid, chainOf(ctx.tid, ctx.events));
    if (ctx.doc.phase !== "over") throw err("TOURNAMENT_ERROR", `tournament ${ctx.tid}: its chain has no tournament_end`);
    try {
      ctx.plan = checkChains(ctx.tid, ctx.doc, ctx.chains);
    } catch (e) {
      if (e instanceof VerifyError) throw e;
      throw err("CHAIN_OUTSIDE_EVENT", `the event's chains: not readable: ${e.message}`);
    }
    const hands = ctx.plan.reduce((n, p) => n + p.hands.length, 0);
    return `${ctx.doc.rounds_played.length} rounds, ${ctx.plan.length} tables, ${hands} hands: every chain is the event's, seated as its round and its pairs say`;
  });
  await run("the event", ["the event's chains", "inclusion"], async () => {
    const doc = ctx.doc;
    const roster = [];
    ctx.seeds = new Map();
    ctx.commitments = new Map();
    const entrants = [...ctx.chains.entries()]
      .filter(([id]) => { const [t, h] = JSON.parse(id); return t === ctx.tid && h.startsWith("entrant-"); })
      .map(([, chain]) => chain.map((ev) => ctx.events.find((i) => i.event === ev)))
      .sort((a, b) => a[0].index - b[0].index);
    for (const chain of entrants) {
      const reg = chain[0].event;
      roster.push({ player: reg.actor, key: reg.key, partner: reg.body.partner, commitment: reg.body.commitment, registration: await leafOf(chain[0]) });
      ctx.commitments.set(reg.actor, reg.body.commitment);
      for (const item of chain.slice(1)) if (item.event.type === "tournament_reveal") ctx.seeds.set(reg.actor, item.event.body.seed);
    }
    const substitutes = doc.substitutions.map((s) => ({
      player: s.in,
      keys: [...new Set([...ctx.chains.values()].map((ch) => ch.find((e) => e.actor === s.in)).filter(Boolean).map((e) => e.key))].sort(),
    }));
    const event = { id: ctx.tid };
    for (const k of SPEC_FIELDS) if (k in doc) event[k] = doc[k];
    event.beacon = doc.beacon;
    const mine = {
      format: FORMAT,
      origin: ctx.origin,
      log_key: ctx.key.text,
      event,
      roster,
      substitutes,
      pairs: doc.pair_list.map((p, i) => ({ pair: i + 1, players: p, absent: doc.absent.includes(i + 1), withdrawn_from_round: doc.withdrawn[String(i + 1)] ?? null })),
      unpaired: doc.unpaired,
      substitutions: doc.substitutions,
      rounds: doc.rounds_played,
      actions: doc.actions,
      checkpoint: ctx.certifiedCp,
    };
    // who took each ruling: a director's signed request, by a key granted before it
    const own = ctx.events.filter(({ event: ev }) => ev.table === ctx.tid && String(ev.hand) === EVENT_CHAIN);
    const grants = grantsOf(ctx.events);
    const ruled = ruledBy(await checkRulings(ctx.tid, own, grants), grants);
    const certified = Object.fromEntries(Object.keys(mine).map((k) => [k, ctx.cert[k]]));
    const d = firstDifference(certified, mine);
    if (d) throw d;
    for (const k of ["directors", "rulings"]) {
      if (canonicalText(ctx.cert[k]) !== canonicalText(ruled[k])) throw mismatch(`$.${k}`, ctx.cert[k] ?? null, ruled[k] ?? null);
    }
    return `${doc.name}: ${doc.format}, ${roster.length} entrants, ${doc.pair_list.length} pairs, ${doc.actions.length} director's actions, as its signed chain says`;
  });
  await run("deals", ["the event"], async () => {
    const doc = ctx.doc;
    if (doc.format !== DUPLICATE) {
      if (ctx.cert.deal_inputs !== null) throw mismatch("$.deal_inputs", ctx.cert.deal_inputs, null);
      ctx.boards = new Map();
      return "a rubber event: each hand is dealt by its own ceremony (checked with the hands)";
    }
    const v2 = doc.reveal_deadline !== null;
    const entrants = doc.pair_list.flat().map((pid) => {
      const e = { id: pid, commitment: ctx.commitments.get(pid) };
      if (doc.revealed.includes(pid) && ctx.seeds.has(pid)) e.seed = ctx.seeds.get(pid);
      return e;
    });
    const t = {
      protocol: v2 ? VERSION_2 : VERSION_1,
      event: ctx.tid,
      pattern: doc.pattern,
      boards: doc.tables * doc.boards_per_round,
      service: { commitment: doc.service_commitment, seed: doc.service_seed },
      entrants,
    };
    const input = { version: v2 ? 2 : 1, event: ctx.tid, pattern: doc.pattern, boards: t.boards, serviceSeed: fromHex(doc.service_seed), serviceCommitment: fromHex(doc.service_commitment) };
    input.revealed = entrants.filter((e) => e.seed).map((e) => [e.id, fromHex(e.seed)]);
    if (v2) {
      const d = doc.drand;
      t.reveal_deadline = doc.reveal_deadline;
      t.beacon = { scheme: d.scheme, public_key: d.public_key, genesis: d.genesis, period: d.period };
      if (!("signature" in d)) throw err("SHUFFLE_INCOMPLETE", "beacon.signature: the beacon round is not out yet");
      Object.assign(t.beacon, { round: d.round, signature: d.signature });
      if (d.previous_signature != null) t.beacon.previous_signature = d.previous_signature;
      const randomness = toHex(await sha256(fromHex(d.signature)));
      if (d.randomness !== randomness) throw mismatch("$.deal_inputs.beacon.randomness", d.randomness, randomness);
      t.beacon.randomness = randomness;
      Object.assign(input, { deadline: doc.reveal_deadline, chain: t.beacon, drand: { round: d.round, signature: d.signature, randomness: fromHex(randomness) } });
    } else if (doc.beacon) {
      t.beacon = { source: doc.beacon.source, round: doc.beacon.round, randomness: doc.beacon.randomness };
      input.beacon = { source: doc.beacon.source, round: doc.beacon.round, randomness: fromHex(doc.beacon.randomness) };
    }
    await checkOpenings(input, entrants.map((e) => ({ id: e.id, commitment: fromHex(e.commitment), seed: e.seed && fromHex(e.seed) })));
    const boards = await deriveBoards(input);
    t.deals = boards.map(boardJson);
    const d = firstDifference(ctx.cert.deal_inputs, t, "$.deal_inputs");
    if (d) throw d;
    ctx.boards = new Map(boards.map((b) => [b.board, b]));
    ctx.v2 = v2;
    return `${boards.length} boards (${t.protocol}) from the service's seed and ${input.revealed.length} entrants' seeds, each opening its commitment`;
  });
  // The round the event's signed chain names (what "deals" dealt from, when it passed),
  // checked on its own: a forged signature fails here even when the deals fail first.
  await run("beacon signature", ["the event"], async () => {
    if (ctx.doc.format !== DUPLICATE) return "no beacon: a rubber event";
    if (ctx.doc.reveal_deadline === null) {
      const beacon = ctx.doc.beacon ? `the beacon value (${ctx.doc.beacon.source} round ${ctx.doc.beacon.round}) is the signed chain's; ` : "";
      return `${VERSION_1}: ${beacon}the log key's holder could choose the boards (docs/shuffle-protocol.md II.10)`;
    }
    const d = ctx.doc.drand;
    if (!("signature" in d)) throw err("SHUFFLE_INCOMPLETE", "beacon.signature: the beacon round is not out yet");
    let bls;
    try {
      bls = await (options.loadBls ?? loadBls)();
    } catch (e) {
      if (!(e instanceof BlsUnavailable)) throw e;
      throw new NotHere(`drand round ${d.round}'s BLS signature (${e.message}; its number and randomness are checked under "deals")`);
    }
    await verifyRound(bls, d, d);
    const name = chainName(d.public_key);
    const whose = name ? `${name}'s key` : "the key the event's start names, which is not a League of Entropy chain's (compare it with the chain's /info)";
    return `drand round ${d.round}'s BLS signature (${d.scheme}) verifies under ${whose}`;
  });
  await run("hands", ["the event's chains", "deals"], async () => {
    const records = new Map(ctx.given.map(([t, h, r]) => [JSON.stringify([t, h]), r]));
    const hands = [];
    const byHand = new Map();
    const certified = ctx.cert.hands;
    for (const r of ctx.doc.rounds_played) {
      for (const sit of r.tables) {
        const tid = sit.id;
        const numbers = [...ctx.chains.keys()].map((k) => JSON.parse(k)).filter(([t]) => t === tid).map(([, h]) => Number(h)).sort((a, b) => a - b);
        for (const n of numbers) {
          const chain = ctx.chains.get(JSON.stringify([tid, String(n)]));
          const first = chain[0];
          const last = chain[chain.length - 1];
          const entry = { round: r.round, table: sit.table, table_id: tid, hand: n, events: chain.length, last: last.type };
          if (first.type === "board_open") entry.board = first.body.board;
          hands.push(entry);
          if (last.type !== "end") continue;
          const record = records.get(JSON.stringify([tid, n]));
          entry.record_sha256 = record === undefined ? null : toHex(await sha256(canonicalJson(record)));
          entry.end = await leafOf(ctx.events.find((i) => i.event === last));
          if (record === undefined) continue;
          // the audit's verdict is not recomputed here ("audit" says so): the certified one
          const twin = certified[hands.length - 1];
          entry.verdict = isObject(twin) && twin.hand === n && twin.table_id === tid ? twin.verdict : null;
          entry.logged = { record_sha256: last.body.record_sha256, verdict: last.body.verdict };
          const h = record.hands?.[0] ?? {};
          if ("board" in entry) {
            const b = ctx.boards.get(entry.board);
            entry.deal = {
              dealer: h.dealer ?? null,
              cayenne: h.cayenne ?? null,
              dealt_order: h.dealt_order ?? null,
              board_deal: b ? { dealer: b.dealer, cayenne: CARD_TEXT[b.cayenne], dealt_order: b.packOrder.map((c) => CARD_TEXT[c]) } : null,
            };
          } else entry.ceremony = h.shuffle ?? null;
          byHand.set(JSON.stringify([tid, n]), entry);
        }
      }
    }
    const d = firstDifference(certified, hands, "$.hands");
    if (d) throw d;
    for (const [i, h] of hands.entries()) {
      if (h.logged) {
        for (const f of ["record_sha256", "verdict"]) {
          if (h.logged[f] !== h[f]) throw mismatch(`$.hands[${i}].${f}`, h.logged[f], h[f], h.board, h.table);
        }
      }
      if (h.deal) {
        const ours = { dealer: h.deal.dealer, cayenne: h.deal.cayenne, dealt_order: h.deal.dealt_order };
        if (canonicalText(ours) !== canonicalText(h.deal.board_deal)) throw mismatch(`$.hands[${i}].deal`, h.deal.board_deal, ours, h.board, h.table);
      }
    }
    ctx.hands = hands;
    return `${hands.length} hands: each chain's length and end, each record's hash as the server signed it, each board's deal as the seeds deal it`;
  });
  await run("records", ["hands"], async () => {
    const derived = new Map();
    const doc = ctx.doc;
    let rubberStarts = 0;
    for (const { table, round, sit, hands } of ctx.plan) {
      const name = `${doc.name} round ${round} table ${sit.table}`;
      let start = ZERO_SCORE;
      for (const n of hands) {
        const id = JSON.stringify([table, n]);
        const chain = ctx.chains.get(JSON.stringify([table, String(n)]));
        if (chain[chain.length - 1].type !== "end") continue; // void: the next starts from the same score
        const board = doc.format === DUPLICATE ? ctx.boards.get(chain[0].body.board) : null;
        const d = await deriveRecord(chain, { name, start, board });
        derived.set(id, d);
        if (doc.format !== DUPLICATE) {
          // the next hand of a rubber starts from this one's score (signed.next_start)
          const sheet = new Sheet(start, d.record.ruleset);
          sheet.score(handFacts(d.outcome));
          start = sheet.nextStart();
          rubberStarts += 1;
        }
      }
    }
    const seen = new Set();
    for (const [n, [table, hand, record]] of ctx.given.entries()) {
      const where = `bundle.records[${n}]`;
      const id = JSON.stringify([table, hand]);
      if (seen.has(id)) throw err("CHAIN_OUTSIDE_EVENT", `${where}: a second record of table ${table} hand ${hand}`);
      seen.add(id);
      if (!derived.has(id)) throw err("CHAIN_OUTSIDE_EVENT", `${where}: table ${table} hand ${hand} is not a finished hand of the event`);
      const d = difference(record, derived.get(id).record, `${where}.record`);
      if (d) {
        throw err("RECORD_MISMATCH", `table ${table} hand ${hand}, field ${d[0]}: the record says ${show(d[1])}, the players' signed events give ${show(d[2])}`);
      }
    }
    const missing = [...derived.keys()].filter((k) => !seen.has(k)).sort();
    if (missing.length) {
      const [table, hand] = JSON.parse(missing[0]);
      throw err("RECORD_MISMATCH", `bundle.records: no record of table ${table} hand ${hand}, which the log shows ended`);
    }
    ctx.derived = derived;
    const note = rubberStarts ? `; ${rubberStarts} rubber hands, each starting from the score the hands before it left (the rubber scorer)` : "";
    return `${derived.size} records, each what the players' signed calls and cards give, with the deal their seeds give${note}`;
  });
  await run("board scores", ["records"], async () => {
    const doc = ctx.doc;
    if (doc.format !== DUPLICATE) return matchValues(ctx);
    const label = (n) => members(doc, n, doc.round || 1);
    const adjusted = new Map(doc.adjustments.map((a) => [JSON.stringify([a.round, a.table, a.board]), a]));
    const unplayed = (pair, rnd) => { const w = doc.withdrawn[String(pair)]; return w != null && w <= rnd ? "average-minus" : "average"; };
    const byBoard = new Map();
    const tableOf = new Map(ctx.plan.map((p) => [p.table, p]));
    const plan = mitchell(doc.tables, doc.rounds);
    // every table of the movement, as online.standings scores it: one the round left
    // unseated (a withdrawn pair's) owes its boards too, adjusted once the round is over
    for (const r of doc.rounds_played) {
      const seated = new Map(r.tables.map((t) => [t.table, t]));
      const sittings = plan[r.round - 1];
      if (!sittings) throw mismatch("$.rounds", `round ${r.round}`, `a movement of ${plan.length} rounds`);
      for (const s of sittings) {
        const [ns, ew] = pairsOf(doc, s.ns, s.ew);
        const sit = seated.get(s.table);
        const results = new Map();
        for (const n of sit ? tableOf.get(sit.id)?.hands ?? [] : []) {
          const d = ctx.derived.get(JSON.stringify([sit.id, n]));
          if (d) results.set(d.record.hands[0].board, boardResult(d.outcome));
        }
        for (const b of boardsOfSet(s.boardSet, doc.boards_per_round)) {
          if (doc.voided.includes(b)) continue;
          const a = adjusted.get(JSON.stringify([r.round, s.table, b]));
          let res;
          if (a) res = { ns_score: null, adjusted: { ns: a.ns, ew: a.ew } };
          else if (results.has(b)) res = { ns_score: results.get(b) };
          else if (!r.over) continue; // still to be played
          else res = { ns_score: null, adjusted: { ns: unplayed(ns, r.round), ew: unplayed(ew, r.round) } };
          if (!byBoard.has(b)) byBoard.set(b, []);
          byBoard.get(b).push({ round: r.round, table: String(s.table), ns: label(ns), ew: label(ew), ...res });
        }
      }
    }
    const key = (p) => [p.round, /^[0-9]+$/.test(p.table) ? p.table.padStart(12, "0") : p.table];
    const boards = [...byBoard.keys()].sort((a, b) => a - b).map((b) => ({
      board: b,
      results: byBoard.get(b).sort((x, y) => key(x)[0] - key(y)[0] || (key(x)[1] < key(y)[1] ? -1 : key(x)[1] > key(y)[1] ? 1 : 0)),
    }));
    ctx.absent = new Set(doc.absent.map((n) => JSON.stringify(label(n))));
    ctx.scored = duplicateStandings(boards, ctx.absent);
    const strip = (bs) => bs.map((b) => ({ board: b?.board, results: (b?.results ?? []).map((r) => { const { ns_matchpoints, ew_matchpoints, ...rest } = r ?? {}; return rest; }) }));
    const d = firstDifference(strip(ctx.cert.results), strip(ctx.scored.boards), "$.results");
    if (d) throw d;
    const n = boards.reduce((s, b) => s + b.results.length, 0);
    const owed = boards.reduce((s, b) => s + b.results.filter((x) => x.adjusted).length, 0);
    return `${n} results on ${boards.length} boards: each played board scored from its derived hand, ${owed} adjusted as the director's signed actions and the withdrawals say`;
  });
  await run("matchpoints", ["board scores"], async () => {
    if (ctx.doc.format !== DUPLICATE) return "none in a rubber event: its match values are checked under board scores";
    const d = firstDifference(ctx.cert.results, ctx.scored.boards, "$.results");
    if (d) throw d;
    return `Neuberg's matchpoints on a top of ${ctx.scored.boards[0]?.top ?? "0.0"}, every result`;
  });
  await run("standings", ["matchpoints"], async () => {
    const doc = ctx.doc;
    let standings;
    if (doc.format === DUPLICATE) {
      standings = ctx.scored.standings.map((s) => ({
        ...s,
        pair_number: doc.pair_list.findIndex((_, i) => canonicalText(members(doc, i + 1, doc.round || 1)) === canonicalText(s.pair)) + 1,
      }));
    } else {
      const totals = new Map();
      const pairs = new Map();
      for (const m of ctx.matches) {
        for (const [pair, v] of [[m.ns, m.ns_value], [m.ew, -m.ns_value]]) {
          const k = JSON.stringify(pair);
          pairs.set(k, pair);
          totals.set(k, (totals.get(k) ?? new Frac(0)).add(new Frac(v)));
        }
      }
      standings = places(totals, (k) => pairs.get(k).join(" & ")).map(([k, place]) => ({
        pair: pairs.get(k), field: null, score: Number(totals.get(k).n), percentage: null, place,
      }));
    }
    const d = firstDifference(ctx.cert.standings, standings, "$.standings");
    if (d) throw d;
    ctx.standings = standings;
    const head = standings.filter((s) => s.place === "1" || s.place.startsWith("1-")).map((s) => `${s.field ? s.field + ": " : ""}pair ${s.pair_number ?? s.pair.join(" & ")}`);
    return `${standings.length} pairs placed; first: ${head.join(", ")}`;
  });
  await run("standings hash", ["standings"], async () => {
    const doc = ctx.doc;
    const floats = (o, fields) => { const out = { ...o }; for (const f of fields) if (typeof out[f] === "string") out[f] = new PyFloat(out[f]); return out; };
    let text;
    if (doc.format === DUPLICATE) {
      text = {
        format: "cayenne-standings/1",
        event: doc.id,
        kind: DUPLICATE,
        standings: ctx.standings.map((s) => floats(s, ["score", "percentage"])),
        boards: ctx.scored.boards.map((b) => ({ ...floats(b, ["top"]), results: b.results.map((r) => floats(r, ["ns_matchpoints", "ew_matchpoints"])) })),
      };
    } else {
      text = { format: "cayenne-standings/1", event: doc.id, kind: doc.format, standings: ctx.standings, boards: [], matches: ctx.matches };
    }
    const digest = await standingsDigest(text);
    const s = ctx.cert.standings_sha256 ?? {};
    const d = firstDifference(s, { logged: doc.standings_sha256, recomputed: digest }, "$.standings_sha256");
    if (d) throw d;
    if (doc.standings_sha256 !== digest) throw mismatch("$.standings_sha256", doc.standings_sha256, digest);
    return `sha256 ${digest.slice(0, 16)}…, as the server signed it in tournament_end`;
  });
  await run("audit", ["hands"], async () => {
    const verdicts = ctx.hands.filter((h) => "verdict" in h).map((h) => h.verdict);
    const clean = verdicts.filter((v) => v === "clean").length;
    throw new NotHere(`each hand's statistical audit (${clean} of ${verdicts.length} certified clean, as the server signed) and the event's findings`);
  });

  const failed = checks.filter((c) => c.ok === false);
  return {
    checks,
    ok: failed.length === 0,
    summary: failed.length ? `${failed.length} of ${checks.length} checks failed` : `every check passed; ${checks.filter((c) => c.ok === null).length} left to the command`,
  };
}

/** A round robin's matches as score._round_robin lists them (each table that finished
 * a hand, by round and table: its pairs as seated, its hands, NS's match value from the
 * rubber scorer over its hands from 0-0), compared with the certified results. */
function matchValues(ctx) {
  const doc = ctx.doc;
  const tableOf = new Map(ctx.plan.map((p) => [p.table, p]));
  const matches = [];
  for (const r of doc.rounds_played) {
    for (const sit of r.tables) {
      const hands = [];
      for (const n of tableOf.get(sit.id)?.hands ?? []) {
        const d = ctx.derived.get(JSON.stringify([sit.id, n]));
        if (d) hands.push(handFacts(d.outcome));
      }
      if (!hands.length) continue;
      const s = sit.seats;
      // the match's record is under the event's ruleset (online.records), as the Python's
      matches.push({ round: r.round, table: String(sit.table), ns: [s.N, s.S], ew: [s.E, s.W], hands: hands.length, ns_value: matchValue(hands, doc.ruleset) });
    }
  }
  const key = (m) => (/^[0-9]+$/.test(m.table) ? m.table.padStart(12, "0") : m.table);
  matches.sort((x, y) => x.round - y.round || (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  const d = firstDifference(ctx.cert.results, matches, "$.results");
  if (d) throw d;
  ctx.matches = matches;
  ctx.scored = { boards: [] };
  const hands = matches.reduce((n, m) => n + m.hands, 0);
  return `${matches.length} matches of ${hands} hands: each match's value from its derived hands, by the rubber scorer`;
}

/** The list of {check, ok, detail} of verifyCertificateDetailed. */
export async function verifyCertificate(bundle, keyText, options = {}) {
  return (await verifyCertificateDetailed(bundle, keyText, options)).checks;
}

function fromHex(text) {
  if (typeof text !== "string" || !/^(?:[0-9a-f]{2})*$/.test(text)) throw unreadable(`not hex: ${show(text)}`);
  return Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
}
