// A Cayenne hand derived from the players' signed events, and a duplicate board's score,
// in the browser. The rules are audit/rules/play.py's HandState (the dealer calls or
// passes, then his partner must call; each card from the player's own hand, in turn,
// following suit when he can; an ace declared high only in a nullo; a claim of the
// tricks left between tricks, ending the hand when both adversaries accept it) and
// audit/tournament/boardscore.py's five steps for a hand the engine let through (so
// without a revoke: the engine refuses one). A refusal names the event, as
// audit/tournament/signed.py does.

import { VerifyError } from "./bytes.js";
import { trickWinner } from "./hand.js";
import { CARD_TEXT, SEATS, cardOf } from "./shuffle.js";

export const CONTRACTS = ["S", "H", "D", "C", "grand", "nullo"];
/** The players' events the rules apply (api/handstate.py RULES_KINDS). */
export const RULES_KINDS = ["call", "play", "claim", "claim_answer"];
const SIDE = { N: 0, S: 0, E: 1, W: 1 };
const suit = (c) => Math.floor(c / 13);
const left = (seat) => SEATS[(SEATS.indexOf(seat) + 1) % 4];
const partner = (seat) => SEATS[(SEATS.indexOf(seat) + 2) % 4];

/** HAND_NOT_DERIVABLE, as the Python verifier names it. */
export const notDerivable = (message) => new VerifyError("HAND_NOT_DERIVABLE", message);
export const where = (ev) => `table ${ev.table} hand ${ev.hand} event ${ev.seq}`;

/**
 * Replay a hand's calls and plays (`events`, the chain after its opening) on a deal
 * ({N: [card numbers], ...}, in the order dealt); `seatOf` maps a player to a seat.
 * Returns the record's hand object (dealer, deal, cayenne, calls, tricks, gathered) and
 * the contract and tricks won; throws HAND_NOT_DERIVABLE at the first illegal action.
 */
export function replayHand(events, { deal, dealer, cayenne, seatOf }) {
  const held = {};
  for (const s of SEATS) held[s] = new Set(deal[s]);
  const calls = [];
  let contract = null;
  const tricks = [];
  const gathered = [[], []];
  const won = [0, 0];
  let trick = null;
  let pending = null; // a claim waiting for the adversaries' answers
  let claim = null; // the claim both adversaries accepted: the hand's end
  const refused = []; // [claimer, tricks played] of each claim refused
  for (const ev of events) {
    if (!RULES_KINDS.includes(ev.type)) continue;
    const seat = seatOf.get(ev.actor);
    if (!seat) throw notDerivable(`${where(ev)}: ${ev.actor} is not seated`);
    const body = ev.body ?? {};
    if (claim) throw notDerivable(`${where(ev)}: the hand is over`);
    if (ev.type === "claim") {
      // audit/rules/play.py HandState.claim_tricks
      const left = 13 - tricks.length;
      if (contract === null) throw notDerivable(`${where(ev)}: no claim while the hand is calling`);
      if (pending) throw notDerivable(`${where(ev)}: ${pending.claimer}'s claim waits for answers`);
      if (trick) throw notDerivable(`${where(ev)}: a claim is made between tricks, not during one`);
      if (!Number.isInteger(body.tricks) || body.tricks < 0 || body.tricks > left) {
        throw notDerivable(`${where(ev)}: a claim is of 0 to ${left} tricks (the tricks left), not ${JSON.stringify(body.tricks)}`);
      }
      if (refused.some(([s, n]) => s === seat && n === tricks.length)) {
        throw notDerivable(`${where(ev)}: ${seat}'s claim was refused: play a trick before claiming again`);
      }
      pending = { claimer: seat, tricks: body.tricks, left, accepted: [] };
      continue;
    }
    if (ev.type === "claim_answer") {
      // audit/rules/play.py HandState.answer_claim
      if (!pending) throw notDerivable(`${where(ev)}: there is no claim to answer`);
      if (seat !== left(pending.claimer) && seat !== partner(left(pending.claimer))) {
        throw notDerivable(`${where(ev)}: only the claimer's adversaries answer ${pending.claimer}'s claim`);
      }
      if (pending.accepted.includes(seat)) throw notDerivable(`${where(ev)}: ${seat} has already accepted the claim`);
      if (typeof body.accept !== "boolean") throw notDerivable(`${where(ev)}: accept is not true or false`);
      if (!body.accept) {
        refused.push([pending.claimer, tricks.length]);
        pending = null;
        continue;
      }
      pending.accepted.push(seat);
      if (pending.accepted.length === 2) {
        const side = SIDE[pending.claimer];
        won[side] += pending.tricks;
        won[side ^ 1] += pending.left - pending.tricks;
        claim = { claimer: pending.claimer, tricks: pending.tricks, agreed: pending.accepted };
        pending = null;
      }
      continue;
    }
    if (pending) throw notDerivable(`${where(ev)}: ${pending.claimer}'s claim waits for the adversaries' answers`);
    if (ev.type === "call") {
      if (contract !== null) throw notDerivable(`${where(ev)}: the trump has already been made`);
      const due = calls.length ? partner(dealer) : dealer;
      if (seat !== due) throw notDerivable(`${where(ev)}: ${seat} cannot call: it is ${due}'s call`);
      if (body.call === "pass") {
        if (calls.length) throw notDerivable(`${where(ev)}: the dealer's partner must call; he cannot pass`);
      } else if (!CONTRACTS.includes(body.call)) {
        throw notDerivable(`${where(ev)}: ${JSON.stringify(body.call)} is not a call (pass, S, H, D, C, grand or nullo)`);
      } else {
        contract = body.call;
      }
      calls.push({ seat, call: body.call });
      continue;
    }
    if (contract === null) throw notDerivable(`${where(ev)}: no card may be played before the trump is made`);
    if (tricks.length === 13 && !trick) throw notDerivable(`${where(ev)}: the hand is over`);
    if (!trick) {
      const leader = tricks.length ? tricks[tricks.length - 1].winner : left(dealer);
      trick = { leader, plays: [] };
    }
    const due = SEATS[(SEATS.indexOf(trick.leader) + trick.plays.length) % 4];
    if (seat !== due) throw notDerivable(`${where(ev)}: ${seat} cannot play: it is ${due}'s turn`);
    const card = cardOf(body.card);
    if (card < 0) throw notDerivable(`${where(ev)}: ${JSON.stringify(body.card)} is not a card`);
    if (!held[seat].has(card)) throw notDerivable(`${where(ev)}: ${seat} does not hold ${CARD_TEXT[card]}`);
    if (trick.plays.length) {
      const led = suit(trick.plays[0].card);
      if (suit(card) !== led && [...held[seat]].some((c) => suit(c) === led)) {
        throw notDerivable(`${where(ev)}: ${seat} must follow suit: ${CARD_TEXT[trick.plays[0].card]} was led`);
      }
    }
    const aceHigh = body.ace_high ?? false;
    if (typeof aceHigh !== "boolean") throw notDerivable(`${where(ev)}: ace_high is not true or false`);
    if (aceHigh && (contract !== "nullo" || card % 13 !== 12)) {
      throw notDerivable(`${where(ev)}: only an ace, and only in a nullo, can be declared high`);
    }
    held[seat].delete(card);
    trick.plays.push({ seat, card, aceHigh });
    if (trick.plays.length === 4) {
      trick.winner = trickWinner(trick.plays, contract);
      won[SIDE[trick.winner]] += 1;
      tricks.push(trick);
      gathered[SIDE[trick.winner]].push(tricks.length);
      trick = null;
    }
  }
  const last = events[events.length - 1];
  if (contract === null || (tricks.length !== 13 && !claim) || trick) {
    const why = pending ? " (a claim no adversary accepted is not an end)" : "";
    throw notDerivable(`${last ? where(last) : "a hand"}: the hand's play is not finished${why}`);
  }
  const hand = {
    dealer,
    deal: Object.fromEntries(SEATS.map((s) => [s, deal[s].map((c) => CARD_TEXT[c])])),
    cayenne: CARD_TEXT[cayenne],
    calls,
    tricks: tricks.map((t) => {
      const out = { leader: t.leader, cards: t.plays.map((p) => CARD_TEXT[p.card]) };
      const high = t.plays.filter((p) => p.aceHigh).map((p) => CARD_TEXT[p.card]);
      if (high.length) out.ace_high = high;
      return out;
    }),
  };
  // a claimed hand's cards not played are not tricks: no piles (signed.derive_hand)
  if (claim) hand.claim = claim;
  else hand.gathered = { NS: gathered[0], EW: gathered[1] };
  return { hand, contract, won, deal, cayenne };
}

// ------------------------------------------------------------------ a board's score

const GAME = 10;
const CAPPED = 9;
// SUIT_VALUE[cayenne suit][trump suit]: the cayenne suit 4, its colour's other suit 3,
// the other colour's 2 and 1 (audit/rules/contract.py); grand and nullo 8.
const ORDER = { 1: [1, 2, 3, 0], 2: [2, 1, 3, 0], 3: [3, 0, 1, 2], 0: [0, 3, 1, 2] };
export function unit(contract, cayenneSuit) {
  const trump = CONTRACTS.indexOf(contract);
  return trump >= 4 ? 8 : 4 - ORDER[cayenneSuit].indexOf(trump);
}

/** The scorer's view of a derived hand (sitting.hand_facts without a revoke): the
 * contract, its unit, the tricks won and the trump honours dealt, each [NS, EW]. */
export function handFacts({ contract, won, deal, cayenne }) {
  const trump = CONTRACTS.indexOf(contract);
  const honours = [0, 0];
  if (trump < 4) {
    const honour = (c) => suit(c) === trump && c % 13 >= 8; // T J Q K A
    for (const s of SEATS) honours[SIDE[s]] += deal[s].filter(honour).length;
  }
  return { contract, unit: unit(contract, suit(cayenne)), tricks: [...won], honours };
}

/** The NS result (NS minus EW) of a derived hand scored as a duplicate board. */
export function boardResult(outcome) {
  const { contract, unit: u, tricks: won, honours: h } = handFacts(outcome);
  const nullo = contract === "nullo";
  const score = [0, 0];
  const capped = [false, false];
  const odd = won[0] > 6 ? 0 : won[1] > 6 ? 1 : null;
  if (odd !== null) score[nullo ? odd ^ 1 : odd] = (won[odd] - 6) * u;
  const byTricks = [...score];
  if (CONTRACTS.indexOf(contract) < 4) {
    const major = h[0] >= 3 ? 0 : h[1] >= 3 ? 1 : null;
    if (major !== null && byTricks[major ^ 1] < GAME) {
      score[major] += (2 * h[major] - 4) * u;
      if (odd !== major) capped[major] = true;
    }
  }
  for (const s of [0, 1]) if (capped[s]) score[s] = Math.min(score[s], CAPPED);
  for (const s of [0, 1]) {
    const n = won[s];
    if (n >= 12) score[nullo ? s ^ 1 : s] += n === 13 ? 6 : 4;
  }
  return score[0] - score[1];
}
