// verifyHand: everything a player's browser checks of a finished hand, with no trust in
// the server. Input: the hand's proof bundle (GET /v1/tables/T/hands/N/proof), the log's
// verifier key, and optionally the last checkpoint this browser saw. Output: a list of
// {check, ok, detail} to show plainly, one per check, every check run even when an
// earlier one failed (a check that depends on a failed one says so and fails too).

import { VerifyError, sha256, toHex } from "./bytes.js";
import { canonicalJson } from "./canonical.js";
import {
  FINAL_TYPES,
  checkBundleShape,
  checkConsistency,
  verifyChain,
  verifyInclusions,
  verifyLater,
  verifySignatures,
} from "./events.js";
import { parseVerifierKey, verifyCheckpoint } from "./note.js";
import {
  CARD_TEXT,
  SEATS,
  cardOf,
  cardsText,
  checkCommitments,
  derive,
  parseTranscript,
  seatCommitment,
  serverCommitment,
} from "./shuffle.js";

/** The names of the checks, in the order they are reported. */
export const CHECKS = [
  "log key",
  "bundle",
  "checkpoint",
  "signatures",
  "signers",
  "chain",
  "inclusion",
  "later checkpoint",
  "last checkpoint",
  "finished",
  "commitments",
  "deal",
  "tricks",
  "cayenne card",
  "record",
];

const SERVER = "server";
const SERVER_TYPES = ["open", "server_reveal", "end", "void"];
const PLAYER_TYPES = ["commit", "reveal", "call", "play", "claim", "claim_answer"];
const SIDE = { N: "NS", S: "NS", E: "EW", W: "EW" };
const TRUMP = { S: 0, H: 1, D: 2, C: 3 };

class Skip extends Error {}

/** The shuffle transcript (docs/shuffle-protocol.md §9) the hand's events make up. */
function transcriptOf(bundle, events) {
  const open = events[0];
  if (!open || open.type !== "open" || open.actor !== SERVER) throw new VerifyError("HAND_INVALID", "the hand's first event is not the server's open");
  const b = open.body;
  const pattern = (b.ruleset && b.ruleset.deal_pattern) ?? [4, 4, 5];
  const seatOf = seatsOf(open);
  const seats = {};
  for (const s of SEATS) seats[s] = { player: b.seats?.[s] ?? "" };
  let serverSeed;
  for (const ev of events) {
    const seat = seatOf.get(ev.actor);
    if (ev.type === "commit" && seat) seats[seat].commitment = ev.body.commitment;
    if (ev.type === "reveal" && seat) seats[seat].seed = ev.body.seed;
    if (ev.type === "server_reveal" && ev.actor === SERVER) serverSeed = ev.body.seed;
    if (ev.type === "void" && ev.actor === SERVER) serverSeed = ev.body.server_seed;
  }
  const t = {
    protocol: "cayenne-shuffle/1",
    table: bundle.table,
    hand: Number(bundle.hand),
    dealer: b.dealer,
    pack: b.pack,
    pattern,
    server: { commitment: b.server_commitment },
    seats,
  };
  if (serverSeed !== undefined) t.server.seed = serverSeed;
  return t;
}

/** player id → seat letter, from the open event. */
function seatsOf(open) {
  const m = new Map();
  for (const s of SEATS) if (typeof open.body?.seats?.[s] === "string") m.set(open.body.seats[s], s);
  return m;
}

/** Replay the calls and plays against the derived deal: each card from the player's own
 * hand, once, in turn; the tricks each side won. Throws naming the event. */
function replay(events, deal, dealer, finished) {
  const seatOf = seatsOf(events[0]);
  const held = {};
  for (const s of SEATS) held[s] = new Set(deal[s]);
  let contract = null;
  let leader = SEATS[(SEATS.indexOf(dealer) + 1) % 4];
  let trick = [];
  const won = { NS: 0, EW: 0 };
  let plays = 0;
  let claim = null;
  let claimed = null;
  for (const ev of events) {
    if (ev.type === "call") {
      if (ev.body.call !== "pass") contract = ev.body.call;
      continue;
    }
    if (ev.type === "claim") {
      const seat = seatOf.get(ev.actor);
      const left = 13 - (won.NS + won.EW);
      if (!seat || trick.length || claim || !Number.isInteger(ev.body.tricks) || ev.body.tricks < 0 || ev.body.tricks > left) {
        throw new VerifyError("TRICKS_MISMATCH", `event ${ev.seq}: not a claim the rules allow (${ev.actor}, ${JSON.stringify(ev.body.tricks)} of ${left} tricks left)`);
      }
      claim = { seat, tricks: ev.body.tricks, left, accepted: [] };
      continue;
    }
    if (ev.type === "claim_answer") {
      const seat = seatOf.get(ev.actor);
      const adversaries = claim ? [SEATS[(SEATS.indexOf(claim.seat) + 1) % 4], SEATS[(SEATS.indexOf(claim.seat) + 3) % 4]] : [];
      if (!seat || !adversaries.includes(seat) || claim.accepted.includes(seat)) {
        throw new VerifyError("TRICKS_MISMATCH", `event ${ev.seq}: ${ev.actor} cannot answer a claim here`);
      }
      if (ev.body.accept !== true) {
        claim = null;
        continue;
      }
      claim.accepted.push(seat);
      if (claim.accepted.length === 2) {
        won[SIDE[claim.seat]] += claim.tricks;
        won[SIDE[claim.seat] === "NS" ? "EW" : "NS"] += claim.left - claim.tricks;
        claimed = { claimer: claim.seat, tricks: claim.tricks, agreed: claim.accepted };
        claim = null;
      }
      continue;
    }
    if (ev.type !== "play") continue;
    if (claim || claimed) throw new VerifyError("TRICKS_MISMATCH", `event ${ev.seq}: a card played while a claim waits or after one ended the hand`);
    const seat = seatOf.get(ev.actor);
    const card = cardOf(ev.body.card);
    const at = `event ${ev.seq} (${ev.actor} plays ${JSON.stringify(ev.body.card)})`;
    if (!seat) throw new VerifyError("DEAL_MISMATCH", `${at}: not a seated player`);
    if (card < 0) throw new VerifyError("DEAL_MISMATCH", `${at}: not a card`);
    if (!held[seat].has(card)) {
      const owner = SEATS.find((s) => deal[s].includes(card));
      throw new VerifyError(
        "DEAL_MISMATCH",
        `${at}: ${CARD_TEXT[card]} was dealt to ${owner}, not ${seat}, or was played before`,
      );
    }
    const expected = SEATS[(SEATS.indexOf(leader) + trick.length) % 4];
    if (seat !== expected) throw new VerifyError("TRICKS_MISMATCH", `${at}: it was ${expected}'s turn`);
    held[seat].delete(card);
    trick.push({ seat, card, aceHigh: ev.body.ace_high === true });
    plays += 1;
    if (trick.length === 4) {
      leader = trickWinner(trick, contract);
      won[SIDE[leader]] += 1;
      trick = [];
    }
  }
  if (finished && claim) throw new VerifyError("TRICKS_MISMATCH", "the hand ended on a claim no adversary accepted");
  if (finished && !claimed) {
    const left = SEATS.filter((s) => held[s].size > 0);
    if (left.length) {
      throw new VerifyError("DEAL_MISMATCH", `the hand ended with cards of ${left.join(", ")} never played (${left.map((s) => cardsText([...held[s]]).join(" ")).join("; ")})`);
    }
  }
  return { won, plays, contract, claimed };
}

/** What the players' signed events fix of a record: the seats of the opening (which
 * the players' events chain to), every call by its seat, and every trick (its leader,
 * its cards in order, the aces declared high); the record's other fields are the deal's
 * (checked by "cayenne card") or the server's. */
function signedRecord(events) {
  const open = events[0];
  const seatOf = seatsOf(open);
  const calls = [];
  const tricks = [];
  let contract = null;
  let leader = SEATS[(SEATS.indexOf(open.body.dealer) + 1) % 4];
  let trick = null;
  for (const ev of events) {
    if (ev.type === "call") {
      calls.push({ seat: seatOf.get(ev.actor), call: ev.body.call });
      if (ev.body.call !== "pass") contract = ev.body.call;
    } else if (ev.type === "play") {
      if (!trick) trick = { leader, cards: [], plays: [] };
      trick.cards.push(ev.body.card);
      trick.plays.push({ seat: seatOf.get(ev.actor), card: cardOf(ev.body.card), aceHigh: ev.body.ace_high === true });
      if (trick.cards.length === 4) {
        const t = { leader: trick.leader, cards: trick.cards };
        const high = trick.plays.filter((p) => p.aceHigh).map((p) => CARD_TEXT[p.card]);
        if (high.length) t.ace_high = high;
        tricks.push(t);
        leader = trickWinner(trick.plays, contract);
        trick = null;
      }
    }
  }
  const players = {};
  for (const s of SEATS) players[s] = open.body.seats[s];
  return { players, hands: [{ calls, tricks }] };
}

/** The first place where `given` differs from `signed` (keys, values, lengths):
 * {path, given, signed}, or null. */
function firstDifference(given, signed, path) {
  if (Array.isArray(signed)) {
    if (!Array.isArray(given)) return { path, given, signed };
    for (let i = 0; i < Math.min(given.length, signed.length); i++) {
      const d = firstDifference(given[i], signed[i], `${path}[${i}]`);
      if (d) return d;
    }
    return given.length === signed.length ? null : { path: `${path}.length`, given: given.length, signed: signed.length };
  }
  if (signed !== null && typeof signed === "object") {
    if (given === null || typeof given !== "object" || Array.isArray(given)) return { path, given, signed };
    for (const k of [...new Set([...Object.keys(given), ...Object.keys(signed)])].sort()) {
      const d = firstDifference(given[k], signed[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return given === signed ? null : { path, given, signed };
}

/** The seat winning a trick under the contract (S, H, D, C, grand or nullo). */
export function trickWinner(trick, contract) {
  const suit = (c) => Math.floor(c / 13);
  const trump = contract in TRUMP ? TRUMP[contract] : -1;
  const rank = (p) => {
    const r = p.card % 13; // 0 = deuce .. 12 = ace
    return contract === "nullo" && r === 12 && !p.aceHigh ? -1 : r;
  };
  let best = trick[0];
  for (const p of trick.slice(1)) {
    const s = suit(p.card);
    const bs = suit(best.card);
    // Same suit as the best so far (the suit led, or trumps): the higher rank wins;
    // another suit wins only if it is trumps (the best so far then is not).
    if (s === bs ? rank(p) > rank(best) : s === trump) best = p;
  }
  return best.seat;
}

/**
 * Every check, with details: {checks: [{check, ok, detail}], ok, checkpoint (the newest
 * verified checkpoint note, to remember as the last one seen), derived}.
 *
 * `lastCheckpoint` is the note this browser saw last, or {checkpoint, consistency}: the
 * note and the consistency proof (base64 hashes, GET /v1/log/proofs/consistency) between
 * it and the bundle's newest checkpoint. `options.record` (the hand's cayenne-record/1,
 * GET .../record) is compared with the derivation and with the hash the server signed in
 * its end event; `options.player` and `options.playerKey` (this browser's player id and
 * verifier key) require that player's events to be signed by that key.
 */
export async function verifyHandDetailed(bundle, logKeyText, lastCheckpoint = null, options = {}) {
  const checks = [];
  const ctx = {};
  const run = async (check, needs, fn) => {
    const missing = needs.filter((n) => !ctx[n]);
    if (missing.length) {
      checks.push({ check, ok: false, detail: `not checked: depends on ${missing.join(", ")}, which failed` });
      return;
    }
    try {
      const detail = await fn();
      checks.push({ check, ok: true, detail });
      ctx[check] = true;
    } catch (err) {
      if (err instanceof Skip) checks.push({ check, ok: true, detail: err.message });
      else checks.push({ check, ok: false, detail: err && err.message ? err.message : String(err) });
      if (err instanceof Skip) ctx[check] = true;
    }
  };

  await run("log key", [], async () => {
    ctx.key = await parseVerifierKey(logKeyText);
    return `${ctx.key.name}+${ctx.key.keyId}`;
  });
  await run("bundle", [], async () => {
    ctx.shape = checkBundleShape(bundle);
    ctx.events = ctx.shape.items.map((i) => i.event);
    return `table ${ctx.shape.table} hand ${ctx.shape.hand}: ${ctx.events.length} events of log ${ctx.shape.origin}`;
  });
  await run("checkpoint", ["log key", "bundle"], async () => {
    ctx.cp = await verifyCheckpoint(bundle.checkpoint, ctx.key, ctx.shape.origin);
    ctx.newest = ctx.cp;
    return `tree of size ${ctx.cp.size}, signed by the log key`;
  });
  await run("signatures", ["bundle"], async () => {
    ctx.keys = await verifySignatures(ctx.shape.items);
    return `all ${ctx.keys.length} events are signed by the keys they name`;
  });
  await run("signers", ["log key", "signatures"], async () => {
    const seatOf = seatsOf(ctx.events[0]);
    const keyOf = new Map();
    ctx.shape.items.forEach(({ event, where }, n) => {
      const key = ctx.keys[n].text;
      if (SERVER_TYPES.includes(event.type)) {
        if (event.actor !== SERVER || key !== ctx.key.text) {
          throw new VerifyError("SIGNER_INVALID", `${where}: a '${event.type}' event must be the server's, signed by the log key`);
        }
      } else if (PLAYER_TYPES.includes(event.type)) {
        if (!seatOf.has(event.actor)) throw new VerifyError("SIGNER_INVALID", `${where}: ${event.actor} is not seated at this hand`);
        if (keyOf.has(event.actor) && keyOf.get(event.actor) !== key) {
          throw new VerifyError("SIGNER_INVALID", `${where}: ${event.actor} signs with two different keys in one hand`);
        }
        keyOf.set(event.actor, key);
        if (options.player === event.actor && options.playerKey && key !== options.playerKey.trim()) {
          throw new VerifyError("SIGNER_INVALID", `${where}: an event in your name (${event.actor}) is not signed by your key`);
        }
      } else {
        throw new VerifyError("SIGNER_INVALID", `${where}: unknown event type '${event.type}'`);
      }
    });
    const mine = options.player ? `; your events are signed by your key` : "";
    return `the server's events by the log key, each seat's by one key of its player${mine}`;
  });
  await run("chain", ["bundle"], async () => {
    await verifyChain(ctx.shape.items);
    return `seq 0..${ctx.events.length - 1}, each event linked to the one before`;
  });
  await run("inclusion", ["checkpoint"], async () => {
    await verifyInclusions(ctx.shape.items, ctx.cp);
    return `every event is in the log's tree of size ${ctx.cp.size}`;
  });
  await run("later checkpoint", ["checkpoint"], async () => {
    const later = await verifyLater(bundle, ctx.cp, ctx.key);
    if (!later) throw new Skip("none in the bundle");
    ctx.newest = later;
    return `the tree of size ${later.size} extends the one of size ${ctx.cp.size}`;
  });
  await run("last checkpoint", ["checkpoint", "later checkpoint"], async () => {
    if (!lastCheckpoint) throw new Skip("no checkpoint seen before in this browser: this one is the first");
    const note = typeof lastCheckpoint === "string" ? lastCheckpoint : lastCheckpoint.checkpoint;
    const proof = typeof lastCheckpoint === "string" ? null : lastCheckpoint.consistency;
    const last = await verifyCheckpoint(note, ctx.key, ctx.shape.origin);
    for (const cp of [ctx.cp, ctx.newest]) {
      if (cp.size === last.size) {
        await checkConsistency(note, cp.note, [], ctx.key, ctx.shape.origin);
        if (last.size > ctx.newest.size) ctx.newest = last;
        return `the same tree of size ${last.size} as last seen`;
      }
    }
    if (!proof) {
      throw new VerifyError(
        "LOG_INCONSISTENT",
        `not checked: the last checkpoint seen (size ${last.size}) needs a consistency proof between sizes ${Math.min(last.size, ctx.newest.size)} and ${Math.max(last.size, ctx.newest.size)}`,
      );
    }
    const { older, newer } = await checkConsistency(note, ctx.newest.note, proof, ctx.key, ctx.shape.origin);
    ctx.newest = newer;
    return `the tree of size ${newer.size} extends the one of size ${older.size}: one history`;
  });
  await run("finished", ["bundle"], async () => {
    const last = ctx.events[ctx.events.length - 1];
    ctx.void = last.type === "void";
    if (!FINAL_TYPES.includes(last.type)) {
      throw new VerifyError("LOG_HAND_PARTIAL", `the hand is not finished: its last event is '${last.type}' (seq ${last.seq})`);
    }
    return ctx.void ? `the hand was void: ${last.body.reason ?? ""}` : "the hand ended ('end' by the server)";
  });
  await run("commitments", ["bundle"], async () => {
    const t = parseTranscript(transcriptOf(bundle, ctx.events));
    ctx.transcript = t;
    if (ctx.void) {
      const opened = [];
      if (t.serverSeed) {
        if (toHex(await serverCommitment(t.serverSeed, t.table, t.hand)) !== toHex(t.serverCommitment)) {
          throw new VerifyError("SHUFFLE_COMMITMENT_MISMATCH", "server.seed: the server's seed does not open the server commitment");
        }
        opened.push("the server's");
      }
      for (const s of SEATS) {
        const e = t.seats[s];
        if (e.seed && toHex(await seatCommitment(e.seed, s, e.player, t.table, t.hand)) !== toHex(e.commitment)) {
          throw new VerifyError("SHUFFLE_COMMITMENT_MISMATCH", `seats.${s}.seed: ${s}'s seed does not open ${s}'s commitment`);
        }
        if (e.seed) opened.push(s);
      }
      return `void hand: the seeds revealed (${opened.join(", ") || "none"}) open their commitments`;
    }
    await checkCommitments(t);
    return "the server's seed and the four seats' seeds open their commitments";
  });
  await run("deal", ["commitments"], async () => {
    if (ctx.void) throw new Skip("void hand: no card was dealt");
    ctx.derived = await derive(ctx.transcript);
    ctx.replay = replay(ctx.events, ctx.derived.deal, ctx.transcript.dealer, true);
    return `deal number ${ctx.derived.dealNumber}: all ${ctx.replay.plays} cards played came from the hands the seeds dealt`;
  });
  await run("tricks", ["deal"], async () => {
    if (ctx.void) throw new Skip("void hand: no trick was played");
    const end = ctx.events[ctx.events.length - 1];
    const said = end.body.tricks ?? {};
    const { won, contract } = ctx.replay;
    if (said.NS !== won.NS || said.EW !== won.EW) {
      throw new VerifyError("TRICKS_MISMATCH", `the server's end says NS ${said.NS}, EW ${said.EW}; the cards played give NS ${won.NS}, EW ${won.EW} (contract ${contract})`);
    }
    const by = ctx.replay.claimed ? ` (${ctx.replay.claimed.claimer}'s claim of ${ctx.replay.claimed.tricks} of the tricks left, agreed by ${ctx.replay.claimed.agreed.join(" and ")})` : "";
    return `contract ${contract}: NS took ${won.NS} tricks, EW ${won.EW}${by}, as the server's end says`;
  });
  await run("cayenne card", ["commitments"], async () => {
    if (ctx.void) throw new Skip("void hand: no cayenne card was turned");
    const d = ctx.derived ?? (await derive(ctx.transcript));
    const cayenne = CARD_TEXT[d.cayenne];
    const record = options.record;
    if (!record) return `${cayenne}, turned from the still pack the seeds shuffled`;
    const end = ctx.events[ctx.events.length - 1];
    const digest = toHex(await sha256(canonicalJson(record)));
    if (digest !== end.body.record_sha256) {
      throw new VerifyError("RECORD_MISMATCH", "the record given is not the one whose hash the server signed in its end event");
    }
    const h = record.hands?.[0] ?? {};
    if (h.cayenne !== cayenne) {
      throw new VerifyError("SHUFFLE_OUTCOME_MISMATCH", `hand.cayenne: the record's cayenne card ${h.cayenne} is not the derived ${cayenne}`);
    }
    for (const s of SEATS) {
      const want = cardsText(d.deal[s]).sort().join(" ");
      const got = [...(h.deal?.[s] ?? [])].sort().join(" ");
      if (want !== got) throw new VerifyError("SHUFFLE_OUTCOME_MISMATCH", `hand.deal.${s}: the record's cards are not the derived deal`);
    }
    if (JSON.stringify(h.dealt_order) !== JSON.stringify(cardsText(d.packOrder))) {
      throw new VerifyError("SHUFFLE_OUTCOME_MISMATCH", "hand.dealt_order: the record's dealt order is not the shuffled pack");
    }
    return `${cayenne}, as the record the server signed says (and its deal and dealt order)`;
  });
  await run("record", [], async () => {
    const record = options.record;
    if (!record) throw new Skip("no record given");
    if (ctx.void) throw new Skip("void hand: no record");
    if (!ctx.replay) throw new VerifyError("RECORD_MISMATCH", "not checked: depends on deal, which failed");
    const want = signedRecord(ctx.events);
    const h = record.hands?.[0] ?? {};
    const diff =
      firstDifference(record.players, want.players, "record.players") ??
      firstDifference(h.calls, want.hands[0].calls, "record.hands[0].calls") ??
      firstDifference(h.tricks, want.hands[0].tricks, "record.hands[0].tricks") ??
      firstDifference(h.claim ?? null, ctx.replay.claimed, "record.hands[0].claim");
    if (diff) {
      throw new VerifyError(
        "RECORD_MISMATCH",
        `${diff.path}: the record says ${JSON.stringify(diff.given)}, the players' signed events give ${JSON.stringify(diff.signed)}`,
      );
    }
    const claimed = ctx.replay.claimed ? ", and its claim" : "";
    return `its seats, calls and tricks (every card, its leader, every ace declared high)${claimed} are the players' signed events`;
  });

  return {
    checks,
    ok: checks.every((c) => c.ok),
    checkpoint: ctx.newest ? ctx.newest.note : null,
    derived: ctx.derived
      ? {
          deal: Object.fromEntries(SEATS.map((s) => [s, cardsText(ctx.derived.deal[s])])),
          cayenne: CARD_TEXT[ctx.derived.cayenne],
          dealNumber: ctx.derived.dealNumber.toString(),
        }
      : null,
  };
}

/** The list of {check, ok, detail} of verifyHandDetailed. */
export async function verifyHand(bundle, logKeyText, lastCheckpoint = null, options = {}) {
  return (await verifyHandDetailed(bundle, logKeyText, lastCheckpoint, options)).checks;
}
