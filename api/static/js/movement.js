// Movements in the browser: who plays whom, and which boards, in each round, as
// audit/tournament/movement.py and online.py give them (shared/spec/tournaments.md).
// The board scores need the whole movement, not only the tables a round seated: a table
// the round left unseated (a withdrawn pair's) still owes its boards, each scored
// average (average minus to the withdrawn pair) once the round is over.

import { DUPLICATE } from "./tevent.js";

/** The rounds a Mitchell of `tables` tables has unless the director says otherwise. */
export const defaultMitchellRounds = (tables) => (tables % 2 ? tables : Math.max(tables - 1, 1));

/** movement.mitchell: each round's sittings [{table, ns, ew, boardSet}] (NS pair t stays
 * at table t, EW pairs move up one table and board sets down one; an even field's EW
 * pairs skip a table after round T/2). */
export function mitchell(tables, rounds = defaultMitchellRounds(tables)) {
  const mod = (a, n) => ((a % n) + n) % n;
  const out = [];
  for (let r = 1; r <= rounds; r++) {
    const skip = tables % 2 === 0 && r > tables / 2 ? 1 : 0;
    const sittings = [];
    for (let t = 1; t <= tables; t++) {
      sittings.push({ table: t, ns: t, ew: mod(t - 1 - (r - 1) - skip, tables) + 1, boardSet: mod(t - 1 + (r - 1), tables) + 1 });
    }
    out.push(sittings);
  }
  return out;
}

/** movement.boards_of_set: set s holds boards (s-1)b+1 to sb. */
export function boardsOfSet(boardSet, perRound) {
  const first = (boardSet - 1) * perRound + 1;
  return Array.from({ length: perRound }, (_, i) => first + i);
}

/** online.pairs_of: movement positions to pair numbers (Mitchell: NS t is pair t, EW t
 * pair T+t). */
export const pairsOf = (doc, ns, ew) => (doc.format === DUPLICATE ? [ns, doc.tables + ew] : [ns, ew]);
