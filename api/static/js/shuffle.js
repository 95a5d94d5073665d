// cayenne-shuffle/1 in the browser: the commitments, the hand key, the two shuffled
// packs, the deal, the cayenne card and the deal number, exactly as
// docs/shuffle-protocol.md specifies (the Python is shuffle/kdf.py, protocol.py,
// permute.py, dealnumber.py and verify.py). Held to tests/vectors/shuffle by
// tests/js/shuffle.test.mjs.

import {
  VerifyError,
  concat,
  ctEqual,
  fromHex,
  hmacSha256,
  isWellFormedText,
  sha256,
  toHex,
  utf8,
} from "./bytes.js";

export const VERSION = "cayenne-shuffle/1";
export const LABELS = {
  serverCommit: "cayenne-shuffle/v1/commit/server",
  seatCommit: "cayenne-shuffle/v1/commit/seat",
  beacon: "cayenne-shuffle/v1/beacon",
  key: "cayenne-shuffle/v1/key",
  dealing: "cayenne-shuffle/v1/stream/dealing",
  still: "cayenne-shuffle/v1/stream/still",
};
export const SEATS = ["N", "E", "S", "W"];
export const SERVER_SEED_BYTES = 32;
export const SEAT_SEED_MIN = 16;
export const SEAT_SEED_MAX = 64;
const MAX_TEXT_BYTES = 256;

/** A shuffle error: code SHUFFLE_INVALID, SHUFFLE_INCOMPLETE, SHUFFLE_COMMITMENT_MISMATCH or
 * SHUFFLE_OUTCOME_MISMATCH, and the
 * field inside the transcript (`seats.E.seed`), as shuffle/errors.py names them. */
export class ShuffleError extends VerifyError {
  constructor(code, path, problem) {
    super(code, path ? `${path}: ${problem}` : problem, path);
    this.problem = problem;
  }
}

// ------------------------------------------------------------------ cards

const RANKS = "23456789TJQKA";
const SUITS = "SHDC";
/** Card number c (0..51) = 13·suit + rank − 2, suits S, H, D, C; text rank then suit. */
export const CARD_TEXT = Array.from({ length: 52 }, (_, c) => RANKS[c % 13] + SUITS[Math.floor(c / 13)]);
const CARD_BY_TEXT = new Map(CARD_TEXT.map((t, c) => [t, c]));
for (let s = 0; s < 4; s++) CARD_BY_TEXT.set("10" + SUITS[s], 13 * s + 8);

/** The card number of "TH" or "10H", or -1. */
export function cardOf(text) {
  const c = typeof text === "string" ? CARD_BY_TEXT.get(text) : undefined;
  return c === undefined ? -1 : c;
}

// ------------------------------------------------------------------ encodings (section 3)

export function u32(n) {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

export function u64(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

/** `u32(len(b)) ‖ b` */
export function field(bytes) {
  return concat(u32(bytes.length), bytes);
}

/** `field(label) ‖ field(f1) ‖ … ‖ field(fn)` */
export function frame(label, ...fields) {
  return concat(field(utf8(label)), ...fields.map(field));
}

// ------------------------------------------------------------------ commitments (section 4)

export async function serverCommitment(serverSeed, table, hand) {
  return sha256(frame(LABELS.serverCommit, utf8(table), u64(hand), serverSeed));
}

export async function seatCommitment(seed, seat, player, table, hand) {
  return sha256(frame(LABELS.seatCommit, utf8(table), u64(hand), utf8(seat), utf8(player), seed));
}

// ------------------------------------------------------------------ hand key (section 5)

export function beaconField(beacon) {
  if (!beacon) return new Uint8Array(0);
  return frame(LABELS.beacon, utf8(beacon.source), u64(beacon.round), beacon.randomness);
}

/** The exact bytes hashed into the hand key. */
export function keyInput(t) {
  return frame(
    LABELS.key,
    utf8(t.table),
    u64(t.hand),
    Uint8Array.of(t.pack),
    utf8(t.dealer),
    Uint8Array.from(t.pattern),
    beaconField(t.beacon),
    t.serverSeed,
    ...SEATS.map((s) => t.seats[s].seed),
  );
}

// ------------------------------------------------------------------ streams and packs (section 6)

/** `limit = 256 − (256 mod n)`: bytes at or above it are rejected for a draw in 0..n−1. */
export function acceptLimit(n) {
  return 256 - (256 % n);
}

/** Block `i` of the stream `label` under `key`. */
export async function streamBlock(key, label, i) {
  return hmacSha256(key, concat(field(utf8(label)), u64(i)));
}

/** The pack shuffled by the stream `label` under `key`, top card first, and the draws. */
export async function shufflePack(key, label) {
  const pack = Array.from({ length: 52 }, (_, p) => p);
  let buf = new Uint8Array(0);
  let pos = 0;
  let blocks = 0;
  const next = async () => {
    if (pos === buf.length) {
      buf = concat(buf, await streamBlock(key, label, blocks));
      blocks += 1;
    }
    return buf[pos++];
  };
  const draws = [];
  for (let i = 51; i >= 1; i--) {
    const n = i + 1;
    const limit = acceptLimit(n);
    let b = await next();
    while (b >= limit) b = await next();
    const j = b % n;
    draws.push(j);
    [pack[i], pack[j]] = [pack[j], pack[i]];
  }
  return { pack, draws, blocks };
}

/** The seat receiving each of the 52 cards, in the order they leave the pack. */
export function dealPositions(pattern, dealer) {
  const out = [];
  const d = SEATS.indexOf(dealer);
  for (const size of pattern) {
    for (let k = 1; k <= 4; k++) {
      const seat = SEATS[(d + k) % 4];
      for (let c = 0; c < size; c++) out.push(seat);
    }
  }
  return out;
}

/** Deal a pack (first card first) by the pattern from the dealer's left: {N: [...], ...}. */
export function dealFromOrder(order, dealer, pattern) {
  const hands = { N: [], E: [], S: [], W: [] };
  const seats = dealPositions(pattern, dealer);
  order.forEach((card, i) => hands[seats[i]].push(card));
  return hands;
}

// ------------------------------------------------------------------ deal number (section 8)

const BINOM = Array.from({ length: 53 }, () => new Array(14).fill(0n));
for (let n = 0; n <= 52; n++) {
  BINOM[n][0] = 1n;
  for (let k = 1; k <= 13; k++) BINOM[n][k] = n === 0 ? 0n : BINOM[n - 1][k - 1] + BINOM[n - 1][k];
}
const C26 = BINOM[26][13];
const C39 = BINOM[39][13];
const C52 = BINOM[52][13];
/** 52!/(13!)^4, the number of different deals. */
export const DEAL_COUNT = C52 * C39 * C26;
const bigDealIndex = (c) => Math.floor(c / 13) * 13 + 12 - (c % 13);

/** Rank of a 13-subset of n cards at sorted positions p: C(n,13) − 1 − Σ C(n−1−p_j, 13−j). */
function subsetRank(positions, n) {
  let s = 0n;
  positions.forEach((p, j) => {
    s += BINOM[n - 1 - p][13 - j];
  });
  return BINOM[n][13] - 1n - s;
}

/** The Big Deal number (a BigInt) of a deal {N, E, S, W: card numbers}. */
export function dealNumber(deal) {
  const owner = new Array(52);
  for (const seat of SEATS) for (const c of deal[seat]) owner[bigDealIndex(c)] = seat;
  let left = Array.from({ length: 52 }, (_, i) => i);
  const ranks = [];
  for (const [seat, n] of [["N", 52], ["E", 39], ["S", 26]]) {
    const positions = [];
    const rest = [];
    left.forEach((idx, p) => (owner[idx] === seat ? positions.push(p) : rest.push(idx)));
    ranks.push(subsetRank(positions, n));
    left = rest;
  }
  return ranks[0] * C39 * C26 + ranks[1] * C26 + ranks[2];
}

// ------------------------------------------------------------------ transcript (section 9)

const TOP_KEYS = new Set([
  "protocol", "table", "hand", "dealer", "pack", "pattern", "server", "seats", "beacon",
  "deal_number", "cayenne",
]);
const REQUIRED_TOP = ["protocol", "table", "hand", "dealer", "pack", "pattern", "server", "seats"];

const invalid = (path, problem) => new ShuffleError("SHUFFLE_INVALID", path, problem);
const join = (path, key) => (path ? `${path}.${key}` : key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function obj(value, path, keys, required) {
  if (!isObject(value)) throw invalid(path, "must be an object");
  for (const k of Object.keys(value)) {
    if (!keys.has(k) && !k.startsWith("x-")) throw invalid(join(path, k), "unknown field");
  }
  for (const k of required) if (!(k in value)) throw invalid(join(path, k), "missing");
  return value;
}

function text(value, path, allowEmpty) {
  if (typeof value !== "string") throw invalid(path, "must be a string");
  if (!isWellFormedText(value)) throw invalid(path, "is not valid Unicode text");
  const n = utf8(value).length;
  if (n > MAX_TEXT_BYTES || (n === 0 && !allowEmpty)) {
    throw invalid(path, `must be ${allowEmpty ? 0 : 1}..256 bytes of UTF-8`);
  }
  return value;
}

function int(value, path, lo, hi) {
  // JSON numbers above 2^53 are not exact in JavaScript: refuse them rather than guess.
  if (!Number.isSafeInteger(value) || BigInt(value) < lo || BigInt(value) > hi) {
    throw invalid(path, `must be an integer in ${lo}..${hi}`);
  }
  return value;
}

function hex(value, path, lo, hi) {
  if (typeof value !== "string" || !/^(?:[0-9a-f]{2})+$/.test(value)) {
    throw invalid(path, "must be lower-case hexadecimal");
  }
  const n = value.length / 2;
  if (n < lo || n > hi) {
    throw invalid(path, `must be ${lo === hi ? lo : `${lo}..${hi}`} bytes`);
  }
  return fromHex(value);
}

/** Parse a transcript (the record hand's `shuffle` object); throws SHUFFLE_INVALID naming
 * the field. Byte strings become Uint8Array, the deal number a BigInt. */
export function parseTranscript(o) {
  const top = obj(o, "", TOP_KEYS, REQUIRED_TOP);
  if (top.protocol !== VERSION) throw invalid("protocol", `must be '${VERSION}'`);
  const t = {
    table: text(top.table, "table", false),
    hand: int(top.hand, "hand", 1n, 2n ** 63n - 1n),
  };
  if (!SEATS.includes(top.dealer)) throw invalid("dealer", "must be N, E, S or W");
  t.dealer = top.dealer;
  t.pack = int(top.pack, "pack", 0n, 1n);
  const p = top.pattern;
  if (
    !Array.isArray(p) ||
    p.length === 0 ||
    p.some((n) => !Number.isInteger(n) || n < 1 || n > 13) ||
    p.reduce((a, b) => a + b, 0) !== 13
  ) {
    throw invalid("pattern", "must be packet sizes (1..13) adding up to 13");
  }
  t.pattern = [...p];
  const server = obj(top.server, "server", new Set(["commitment", "seed"]), ["commitment"]);
  t.serverCommitment = hex(server.commitment, "server.commitment", 32, 32);
  t.serverSeed = "seed" in server ? hex(server.seed, "server.seed", 32, 32) : null;
  const seats = obj(top.seats, "seats", new Set(SEATS), SEATS);
  t.seats = {};
  for (const s of SEATS) {
    const path = `seats.${s}`;
    const e = obj(seats[s], path, new Set(["player", "commitment", "seed"]), ["player", "commitment"]);
    const seed = "seed" in e ? hex(e.seed, `${path}.seed`, SEAT_SEED_MIN, SEAT_SEED_MAX) : null;
    t.seats[s] = {
      player: text(e.player, `${path}.player`, true),
      commitment: hex(e.commitment, `${path}.commitment`, 32, 32),
      seed,
    };
  }
  t.beacon = null;
  if ("beacon" in top) {
    const keys = ["source", "round", "randomness"];
    const b = obj(top.beacon, "beacon", new Set(keys), keys);
    t.beacon = {
      source: text(b.source, "beacon.source", false),
      round: int(b.round, "beacon.round", 0n, 2n ** 64n - 1n),
      randomness: hex(b.randomness, "beacon.randomness", 1, 64),
    };
  }
  t.claimedDealNumber = null;
  if ("deal_number" in top) {
    const dn = top.deal_number;
    if (typeof dn !== "string" || !/^(?:0|[1-9][0-9]*)$/.test(dn) || BigInt(dn) >= DEAL_COUNT) {
      throw invalid("deal_number", "must be a decimal string 0..52!/(13!)^4 - 1");
    }
    t.claimedDealNumber = BigInt(dn);
  }
  t.claimedCayenne = null;
  if ("cayenne" in top) {
    const c = cardOf(top.cayenne);
    if (c < 0) throw invalid("cayenne", `${JSON.stringify(top.cayenne)} is not a card`);
    if (CARD_TEXT[c] !== top.cayenne) throw invalid("cayenne", "must be written in the two-character form");
    t.claimedCayenne = c;
  }
  return t;
}

// ------------------------------------------------------------------ derivation and verification

/** The hand key of a complete transcript (SHUFFLE_INCOMPLETE when a seed is missing). */
export async function handKey(t) {
  if (!t.serverSeed) {
    throw new ShuffleError("SHUFFLE_INCOMPLETE", "server.seed", "the server's seed has not been revealed");
  }
  for (const s of SEATS) {
    if (!t.seats[s].seed) {
      throw new ShuffleError("SHUFFLE_INCOMPLETE", `seats.${s}.seed`, "this seat's seed was not revealed");
    }
  }
  return sha256(keyInput(t));
}

/** Pack order, deal, cayenne card and deal number (card numbers; the number a BigInt).
 * No commitment is checked here: verify() does. */
export async function derive(t) {
  const key = await handKey(t);
  const dealing = await shufflePack(key, LABELS.dealing);
  const still = await shufflePack(key, LABELS.still);
  const deal = dealFromOrder(dealing.pack, t.dealer, t.pattern);
  return {
    key,
    packOrder: dealing.pack,
    deal,
    cayenne: still.pack[0],
    dealNumber: dealNumber(deal),
    streams: { dealing, still },
  };
}

/** Raise unless every seed is revealed and opens its commitment (section 10, steps 2-4). */
export async function checkCommitments(t) {
  if (!t.serverSeed) {
    throw new ShuffleError("SHUFFLE_INCOMPLETE", "server.seed", "the server's seed was not revealed");
  }
  const opened = await serverCommitment(t.serverSeed, t.table, t.hand);
  if (!ctEqual(opened, t.serverCommitment)) {
    throw new ShuffleError("SHUFFLE_COMMITMENT_MISMATCH", "server.seed", "the server's seed does not open the server commitment");
  }
  for (const s of SEATS) {
    const e = t.seats[s];
    if (!e.seed) {
      throw new ShuffleError("SHUFFLE_INCOMPLETE", `seats.${s}.seed`, `${s}'s seed was not revealed (the hand is void)`);
    }
    const mine = await seatCommitment(e.seed, s, e.player, t.table, t.hand);
    if (!ctEqual(mine, e.commitment)) {
      throw new ShuffleError(
        "SHUFFLE_COMMITMENT_MISMATCH",
        `seats.${s}.seed`,
        `${s}'s seed does not open ${s}'s commitment (for this seat, player, table and hand)`,
      );
    }
  }
}

/** Verify a parsed transcript: commitments, then the stated deal number and cayenne card. */
export async function verify(t) {
  await checkCommitments(t);
  const d = await derive(t);
  if (t.claimedDealNumber !== null && t.claimedDealNumber !== d.dealNumber) {
    throw new ShuffleError(
      "SHUFFLE_OUTCOME_MISMATCH",
      "deal_number",
      `the stated deal number ${t.claimedDealNumber} is not the derived ${d.dealNumber}`,
    );
  }
  if (t.claimedCayenne !== null && t.claimedCayenne !== d.cayenne) {
    throw new ShuffleError(
      "SHUFFLE_OUTCOME_MISMATCH",
      "cayenne",
      `the stated cayenne card ${CARD_TEXT[t.claimedCayenne]} is not the derived ${CARD_TEXT[d.cayenne]}`,
    );
  }
  return d;
}

/** Verify the JSON `shuffle` object (shuffle.verify.verify_transcript). */
export async function verifyTranscript(o) {
  return verify(parseTranscript(o));
}

/** Cards as text: [12, 0] → ["AS", "2S"]. */
export const cardsText = (cards) => cards.map((c) => CARD_TEXT[c]);

export { toHex };
