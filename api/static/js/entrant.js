// An event's entrant in the browser (docs/browser.md, "Entering and playing an event"):
// the entrant's seed, made here and kept in this browser (localStorage, keyed by event and
// player) before its commitment is sent; the signed registration and reveal
// (audit/log/schema/tournament_register.json, tournament_reveal.json) signed by the
// player's own key (keys.js); and where the entrant plays now, read from the event's
// public state. Shared by the event's page (eventpage.js) and its tables (tplay.js), for
// both kinds of event: a duplicate's sitting plays its `boards`, a round robin's plays a
// match of `hands` hands (each dealt by its own shuffle ceremony, no boards).

import { fromHex, toHex } from "./bytes.js";
import { eventHash } from "./events.js";
import { readHeader, signEvent, writeHeader } from "./keys.js";
import { fetchRetry } from "./retry.js";
import { entrantCommitment } from "./tdeals.js";

export const SEED_PREFIX = "cayenne-fairplay:entrant-seed:";
export const RECEIPT_PREFIX = "cayenne-fairplay:entrant-receipt:";
export const seedKey = (tid, pid) => `${SEED_PREFIX}${tid}:${pid}`;

/** One request of the service: a signed read (GET) or a signed write (with its body and
 * a nonce, signed once: a retry is the same request) when `identity` is given. */
export async function request(method, path, { body, identity = null } = {}) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const write = identity && method !== "GET" ? await writeHeader(identity, method, path, text ?? "") : null;
  const init = async () => {
    const headers = { Accept: "application/json" };
    if (text !== undefined) headers["Content-Type"] = "application/json";
    if (write) headers.Authorization = write;
    else if (identity) headers.Authorization = await readHeader(identity, method, path);
    return { method, headers, body: text };
  };
  const resp = await fetchRetry(path, init);
  const doc = await resp.json().catch(() => ({}));
  return { ok: resp.ok, status: resp.status, doc };
}

let origin = null;
export async function logOrigin() {
  if (!origin) origin = (await request("GET", "/healthz")).doc.log_origin;
  return origin;
}

/** The entrant's seed for event `tid`: made (32 random bytes) and kept the first time. */
export function entrantSeed(tid, pid, make = true) {
  let hex = localStorage.getItem(seedKey(tid, pid));
  if (!hex && make) {
    hex = toHex(crypto.getRandomValues(new Uint8Array(32)));
    localStorage.setItem(seedKey(tid, pid), hex); // kept before its commitment is sent
  }
  return hex;
}

const entrantEvent = async (identity, tid, seq, prev, type, body) =>
  signEvent(identity, { origin: await logOrigin(), table: tid, hand: `entrant-${identity.id}`, seq, prev, type, body });

/** Enter event `tid` naming `partner`: the seed kept first, then the signed registration. */
export async function register(identity, tid, partner) {
  const seed = entrantSeed(tid, identity.id);
  const commitment = toHex(await entrantCommitment(fromHex(seed), tid, identity.id));
  const event = await entrantEvent(identity, tid, 0, null, "tournament_register", { commitment, partner });
  return request("POST", `/v1/tournaments/${encodeURIComponent(tid)}/entrants`, { body: event });
}

/** Withdraw from event `tid` before its start: the entrant's own signed tournament_leave,
 * its chain's event 1 after the logged registration. */
export async function withdraw(identity, tid) {
  const chain = await request("GET", `/v1/tournaments/${encodeURIComponent(tid)}/events?entrant=${encodeURIComponent(identity.id)}`);
  const registered = chain.ok ? chain.doc.events[0]?.event : null;
  if (!registered) return { ok: false, status: chain.status, doc: { message: "your registration is not in the log" } };
  const event = await entrantEvent(identity, tid, 1, await eventHash(registered), "tournament_leave", { entrant: identity.id });
  return request("POST", `/v1/tournaments/${encodeURIComponent(tid)}/entrants/${encodeURIComponent(identity.id)}/withdraw`, { body: event });
}

/** Reveal the kept seed (the chain's event 1, after the logged registration); `missing`
 * when this browser holds no seed for the entry. A version 2 receipt is kept. */
export async function reveal(identity, tid) {
  const seed = entrantSeed(tid, identity.id, false);
  if (!seed) return { ok: false, missing: true, doc: {} };
  const t = encodeURIComponent(tid);
  const chain = await request("GET", `/v1/tournaments/${t}/events?entrant=${encodeURIComponent(identity.id)}`);
  const registered = chain.ok ? chain.doc.events[0]?.event : null;
  if (!registered) return { ok: false, status: chain.status, doc: { message: "your registration is not in the log" } };
  const event = await entrantEvent(identity, tid, 1, await eventHash(registered), "tournament_reveal", { seed });
  const answer = await request("POST", `/v1/tournaments/${t}/reveals`, { body: event });
  if (answer.ok && answer.doc.receipt) localStorage.setItem(`${RECEIPT_PREFIX}${tid}:${identity.id}`, answer.doc.receipt);
  return answer;
}

/** The entrant's pair number in the event's public state, or null. */
export function pairOf(doc, pid) {
  for (const p of doc.pair_list ?? []) if (p.players.includes(pid)) return p.pair;
  for (const s of doc.substitutions ?? []) if (s.in === pid) return s.pair;
  return null;
}

/** Where `pid` sits in the event's latest round: {round, over, table, id, seat, boards,
 * hands, ns, ew, side, against (pair number), seats}, or null (no round). `boards` is a
 * duplicate sitting's (empty in a round robin), `hands` a round robin's match length (0
 * in a duplicate); `table` is null when the pair sits out the round. */
export function placeOf(doc, pid) {
  const r = (doc.rounds_played ?? []).at(-1);
  if (!r) return null;
  for (const t of r.tables) {
    const seat = Object.keys(t.seats).find((s) => t.seats[s] === pid);
    if (!seat) continue;
    const side = seat === "N" || seat === "S" ? "NS" : "EW";
    return { round: r.round, over: r.over, table: t.table, id: t.id, seat, boards: t.boards ?? [], hands: t.hands ?? 0, ns: t.ns, ew: t.ew, side, against: side === "NS" ? t.ew : t.ns, seats: t.seats };
  }
  return { round: r.round, over: r.over, table: null };
}

const names = new Map();
/** A player's display name (the public player row), cached. */
export async function nameOf(pid) {
  if (!names.has(pid)) {
    const r = await request("GET", `/v1/players/${encodeURIComponent(pid)}`);
    names.set(pid, r.ok ? r.doc.name : pid);
  }
  return names.get(pid);
}

/** Whether the event is a rubber round robin (matches of hands, no boards). */
export const isRobin = (doc) => doc.format === "rubber-round-robin";

/** What a sitting plays, for a sentence: "boards 3, 4" or "a match of 2 hands". */
export function sittingPlays(sitting) {
  if (sitting.boards && sitting.boards.length) return `boards ${sitting.boards.join(", ")}`;
  const n = sitting.hands ?? 0;
  return `a match of ${n} hand${n === 1 ? "" : "s"}`;
}

export const SEAT_NAME = { N: "North", E: "East", S: "South", W: "West" };

/** "North", "East"...: the seats across from and beside `seat` seating `seats`. */
export async function opponents(place) {
  const theirs = place.side === "NS" ? ["E", "W"] : ["N", "S"];
  const who = await Promise.all(theirs.map((s) => nameOf(place.seats[s])));
  return who.join(" \u2013 ");
}
