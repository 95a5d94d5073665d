// A finished hand's record derived from what its players signed, in the browser, as
// audit/tournament/signed.py's derive_record and difference: the seats from the opening,
// the deal from the ceremony's seeds (shuffle.js) or the event's board (tdeals.js), then
// every call and card through the rules (cayenne.js). HAND_NOT_DERIVABLE names the event.

import { VerifyError } from "./bytes.js";
import { replayHand } from "./cayenne.js";
import { CARD_TEXT, SEATS, checkCommitments, derive, parseTranscript } from "./shuffle.js";
import { show } from "./tevent.js";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const err = (code, message) => new VerifyError(code, message);

/** A hand's record derived from its chain (signed.derive_record); `board` the event's
 * deal of a duplicate board. Throws HAND_NOT_DERIVABLE naming the event. */
export async function deriveRecord(chain, { name, start, board }) {
  const opening = chain[0];
  const at = `table ${opening.table} hand ${opening.hand} event ${opening.seq}`;
  const body = opening.body;
  const seats = body.seats ?? {};
  const seatOf = new Map();
  for (const s of SEATS) if (typeof seats[s] === "string") seatOf.set(seats[s], s);
  if (seatOf.size !== 4) throw err("HAND_NOT_DERIVABLE", `${at}: the seats are not four players`);
  const pattern = body.ruleset?.deal_pattern ?? [4, 4, 5];
  let deal;
  let cayenne;
  let order;
  let shuffle = null;
  if (opening.type === "board_open") {
    if (!board || board.board !== body.board) throw err("HAND_NOT_DERIVABLE", `${at}: board ${body.board} is not dealt`);
    if (board.dealer !== body.dealer || board.pack !== body.pack) {
      throw err("HAND_NOT_DERIVABLE", `${at}: the opening's dealer and pack are not board ${board.board}'s (${board.dealer}, ${board.pack})`);
    }
    ({ deal, cayenne, packOrder: order } = board);
  } else {
    const t = { protocol: "cayenne-shuffle/1", table: String(opening.table), hand: Number(opening.hand), dealer: body.dealer, pack: body.pack, pattern, server: { commitment: body.server_commitment }, seats: {} };
    for (const s of SEATS) t.seats[s] = { player: seats[s] };
    for (const ev of chain.slice(1)) {
      const seat = seatOf.get(ev.actor);
      if (ev.type === "commit" && seat) t.seats[seat].commitment = ev.body.commitment;
      else if (ev.type === "reveal" && seat) t.seats[seat].seed = ev.body.seed;
      else if (ev.type === "server_reveal" && ev.actor === "server") t.server.seed = ev.body.seed;
    }
    const missing = SEATS.filter((s) => !t.seats[s].commitment || !t.seats[s].seed);
    if (missing.length) throw err("HAND_NOT_DERIVABLE", `${at}: no commitment or seed of ${show(missing)}`);
    try {
      const parsed = parseTranscript(t);
      await checkCommitments(parsed);
      const d = await derive(parsed);
      ({ deal, cayenne, packOrder: order } = d);
      shuffle = { ...t, deal_number: d.dealNumber.toString(), cayenne: CARD_TEXT[d.cayenne] };
    } catch (e) {
      throw err("HAND_NOT_DERIVABLE", `${at}: the ceremony: ${e.message}`);
    }
  }
  const { hand, ...outcome } = replayHand(chain.slice(1), { deal, dealer: body.dealer, cayenne, seatOf });
  hand.pack = body.pack;
  hand.dealt_order = order.map((c) => CARD_TEXT[c]);
  if (shuffle) hand.shuffle = shuffle;
  else hand.board = body.board;
  const record = {
    format: "cayenne-record/1",
    table: String(opening.table),
    event: name,
    players: Object.fromEntries(SEATS.map((s) => [s, seats[s]])),
    ruleset: body.ruleset,
    start: structuredClone(start),
    hands: [hand],
    "x-hand-number": Number(opening.hand),
  };
  return { record, outcome };
}

/** signed.difference: the first path where `given` and `derived` differ. */
export function difference(given, derived, path) {
  if (isObject(given) && isObject(derived)) {
    for (const k of [...new Set([...Object.keys(given), ...Object.keys(derived)])].sort()) {
      if (!(k in given) || !(k in derived)) return [`${path}.${k}`, given[k], derived[k]];
      const d = difference(given[k], derived[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (Array.isArray(given) && Array.isArray(derived)) {
    for (let i = 0; i < Math.min(given.length, derived.length); i++) {
      const d = difference(given[i], derived[i], `${path}[${i}]`);
      if (d) return d;
    }
    return given.length === derived.length ? null : [`${path}.length`, given.length, derived.length];
  }
  return given === derived ? null : [path, given, derived];
}
