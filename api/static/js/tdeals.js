// cayenne-tournament-deals/1 and /2 in the browser: the boards of a duplicate event from
// the service's seed, the entrants' seeds and the beacon, as docs/shuffle-protocol.md
// (part II) gives every byte (the Python is shuffle/tournament.py). Version 2's drand
// round is checked here for its round number and its randomness (SHA-256 of the
// signature); its BLS signature is drand.js's (the certificate's "beacon signature").

import { ctEqual, fromHex, hmacSha256, sha256, toHex, utf8 } from "./bytes.js";
import {
  CARD_TEXT,
  SEATS,
  ShuffleError,
  dealFromOrder,
  dealNumber,
  frame,
  shufflePack,
  u32,
  u64,
} from "./shuffle.js";

export const VERSION_1 = "cayenne-tournament-deals/1";
export const VERSION_2 = "cayenne-tournament-deals/2";
export const LABELS = {
  serviceCommit: "cayenne-tournament/v1/commit/service",
  entrantCommit: "cayenne-tournament/v1/commit/entrant",
  beacon: "cayenne-tournament/v1/beacon",
  key: "cayenne-tournament/v1/key",
  board: "cayenne-tournament/v1/board",
  dealing: "cayenne-tournament/v1/stream/dealing",
  still: "cayenne-tournament/v1/stream/still",
  v2Key: "cayenne-tournament/v2/key",
  v2Beacon: "cayenne-tournament/v2/beacon",
};

export async function serviceCommitment(seed, event) {
  return sha256(frame(LABELS.serviceCommit, utf8(event), seed));
}

export async function entrantCommitment(seed, event, entrant) {
  return sha256(frame(LABELS.entrantCommit, utf8(event), utf8(entrant), seed));
}

/** Entrants sorted by the UTF-8 bytes of their ids, as (id bytes, seed) fields. */
function revealedFields(revealed) {
  const rows = revealed.map(([id, seed]) => [utf8(id), seed]);
  rows.sort(([a], [b]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  });
  return [u32(rows.length), ...rows.flat()];
}

/** The first drand round published strictly after `when` (Unix seconds). */
export function roundAfter(chain, when) {
  if (when < chain.genesis) return 1;
  return Math.floor((when - chain.genesis) / chain.period) + 2;
}

const dealer = (board) => SEATS[(board - 1) % 4];
const pack = (board) => (board - 1) % 2;

/** The event key of a transcript {version, event, pattern, serviceSeed, revealed:
 * [[id, seed bytes]], beacon (v1: {source, round, randomness bytes}), v2: deadline,
 * chain {scheme, public_key, genesis, period}, drand {round, randomness bytes}}. */
export async function eventKey(t) {
  if (t.version === 1) {
    const beacon = t.beacon
      ? frame(LABELS.beacon, utf8(t.beacon.source), u64(t.beacon.round), t.beacon.randomness)
      : new Uint8Array(0);
    return sha256(
      frame(LABELS.key, utf8(t.event), Uint8Array.from(t.pattern), beacon, t.serviceSeed, ...revealedFields(t.revealed)),
    );
  }
  const beacon = frame(
    LABELS.v2Beacon,
    utf8(t.chain.scheme),
    fromHex(t.chain.public_key),
    u64(t.chain.genesis),
    u64(t.chain.period),
    u64(t.drand.round),
    t.drand.randomness,
  );
  return sha256(
    frame(
      LABELS.v2Key,
      utf8(t.event),
      Uint8Array.from(t.pattern),
      u64(t.deadline),
      beacon,
      t.serviceSeed,
      ...revealedFields(t.revealed),
    ),
  );
}

/** Every board 1..t.boards: {board, dealer, pack, packOrder, deal, cayenne, dealNumber}. */
export async function deriveBoards(t) {
  if (!t.revealed.length) throw new ShuffleError("SHUFFLE_INCOMPLETE", "entrants", "no entrant revealed a seed");
  const key = await eventKey(t);
  const out = [];
  for (let board = 1; board <= t.boards; board++) {
    const bk = await hmacSha256(key, frame(LABELS.board, u64(board)));
    const order = (await shufflePack(bk, LABELS.dealing)).pack;
    const deal = dealFromOrder(order, dealer(board), t.pattern);
    const cayenne = (await shufflePack(bk, LABELS.still)).pack[0];
    out.push({ board, dealer: dealer(board), pack: pack(board), packOrder: order, deal, cayenne, dealNumber: dealNumber(deal) });
  }
  return out;
}

/** A board as the transcript publishes it (`deals[i]`). */
export const boardJson = (b) => ({
  board: b.board,
  dealer: b.dealer,
  pack: b.pack,
  deal_number: b.dealNumber.toString(),
  cayenne: CARD_TEXT[b.cayenne],
});

/** The commitments the transcript's seeds must open (constant-time comparison), then
 * the drand round (v2: the first after the deadline, its randomness the signature's
 * hash). Throws a ShuffleError naming the field. */
export async function checkOpenings(t, commitments) {
  if (!ctEqual(await serviceCommitment(t.serviceSeed, t.event), t.serviceCommitment)) {
    throw new ShuffleError("SHUFFLE_COMMITMENT_MISMATCH", "service.seed", "the seed does not open the service's commitment");
  }
  for (const [i, e] of commitments.entries()) {
    if (e.seed && !ctEqual(await entrantCommitment(e.seed, t.event, e.id), e.commitment)) {
      throw new ShuffleError("SHUFFLE_COMMITMENT_MISMATCH", `entrants[${i}].seed`, `${e.id}'s seed does not open ${e.id}'s commitment`);
    }
  }
  if (t.version === 2) {
    const due = roundAfter(t.chain, t.deadline);
    if (t.drand.round !== due) {
      throw new ShuffleError(
        "SHUFFLE_BEACON_INVALID",
        "beacon.round",
        `round ${t.drand.round} is not ${due}, the first published after the reveal deadline ${t.deadline}`,
      );
    }
    const randomness = await sha256(fromHex(t.drand.signature));
    if (toHex(randomness) !== toHex(t.drand.randomness)) {
      throw new ShuffleError("SHUFFLE_BEACON_INVALID", "beacon.randomness", "is not SHA-256 of the signature");
    }
  }
}

