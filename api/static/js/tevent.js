// An online event's chain folded into its state, and its chains checked as the event's
// own, in the browser: audit/tournament/online.py's fold and members, and
// audit/tournament/signed.py's check_chains with its pairs' check (each pair two entrants
// whose signed registrations name each other) and its seats' check (each table seats the
// pairs its round names, as the start and the substitutions make them). Refusals name
// the table and hand as CHAIN_OUTSIDE_EVENT, as the Python does.

import { VerifyError } from "./bytes.js";
import { canonicalJson } from "./canonical.js";

export const DUPLICATE = "pairs-duplicate";
export const EVENT_CHAIN = "event";
export const SPEC_FIELDS = [
  "name", "format", "movement", "tables", "pairs", "rounds", "boards_per_round",
  "hands_per_match", "ruleset", "schedule", "service_commitment", "pattern",
];
const ACTIONS = ["substitute", "adjust", "withdraw", "void_board", "remove"];
/** An entrant's own withdrawal before the start (online.LEAVE): its chain's event 1. */
export const LEAVE = "tournament_leave";

/** online.chain_of: the events the event's state is folded from, in log order (items
 * {index, event} in log order): its own chain's and its entrants' withdrawals. */
export const chainOf = (tid, items) =>
  items.map((i) => i.event).filter((ev) => ev.table === tid && (ev.hand === EVENT_CHAIN || (ev.type === LEAVE && String(ev.hand).startsWith("entrant-"))));

/** signed.check_entrants: every event of an entrant's chain is that entrant's own, its
 * registration, then its reveal or its withdrawal (naming it), nothing after a withdrawal. */
export function checkEntrants(tid, chains) {
  for (const [id, chain] of chains) {
    const [table, hand] = JSON.parse(id);
    if (table !== tid || !hand.startsWith("entrant-")) continue;
    const me = hand.slice("entrant-".length);
    chain.forEach((ev, n) => {
      const want = n === 0 ? ["tournament_register"] : ["tournament_reveal", LEAVE];
      if (!want.includes(ev.type)) throw outside(table, hand, `event ${n} is '${ev.type}', not one of ${want.join(", ")}`);
      if (ev.actor !== me) throw outside(table, hand, `its ${ev.type} is signed by ${ev.actor}, not by the entrant ${me}`);
      if (n && chain[n - 1].type === LEAVE) throw outside(table, hand, `a ${ev.type} after the entrant withdrew`);
      if (ev.type === LEAVE && (!isObject(ev.body) || ev.body.entrant !== me)) throw outside(table, hand, "a withdrawal that names another entrant");
    });
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const err = (code, message) => new VerifyError(code, message);
const outside = (table, hand, problem) => err("CHAIN_OUTSIDE_EVENT", `table ${table} hand ${hand}: ${problem}`);
/** JSON of a value, cut to 120 characters, for a message (the Python's _show). */
export const show = (v) => {
  const text = JSON.stringify(v === undefined ? null : v);
  return text.length <= 120 ? text : text.slice(0, 117) + "...";
};
/** The canonical JSON text of a value, to compare two values whole. */
export const canonicalText = (v) => (v === undefined ? "undefined" : new TextDecoder().decode(canonicalJson(v)));

/** online.fold: the event's state after its chain's events, in order. */
export function fold(tid, events) {
  const doc = {
    id: tid, beacon: null, pair_list: [], unpaired: [], revealed: [], absent: [], withdrawn: {},
    substitutions: [], adjustments: [], voided: [], removed: [], actions: [], round: 0, rounds_played: [],
    service_seed: null, standings_sha256: null, phase: "created", reveal_deadline: null, drand: null,
  };
  let started = false; // online.apply's phase past "closed": a start is folded
  events.forEach((ev, n) => {
    const kind = ev.type;
    const body = ev.body;
    if (n === 0 && kind !== "tournament_create") throw err("TOURNAMENT_ERROR", `the event's chain opens with '${kind}', not tournament_create`);
    if (kind === "tournament_create") {
      for (const k of SPEC_FIELDS) if (k in body) doc[k] = body[k];
    } else if (kind === "tournament_beacon") doc.beacon = { ...body };
    else if (kind === "tournament_start") {
      started = true;
      doc.pair_list = body.pairs;
      doc.unpaired = body.unpaired;
      if ("reveal_deadline" in body) Object.assign(doc, { reveal_deadline: body.reveal_deadline, drand: { ...body.beacon } });
    } else if (kind === "tournament_deal") {
      Object.assign(doc, { revealed: body.revealed, absent: body.withdrawn });
      if ("beacon" in body && doc.drand !== null) doc.drand = { ...doc.drand, ...body.beacon };
    } else if (kind === "tournament_round") {
      doc.round = body.round;
      doc.rounds_played.push({ round: body.round, tables: body.tables, bye: body.bye, over: false });
    } else if (kind === "tournament_round_end") {
      for (const r of doc.rounds_played) {
        if (r.round === body.round) Object.assign(r, { over: true, early: body.early, abandoned: body.abandoned });
      }
    } else if (kind === LEAVE) {
      // an entrant's own withdrawal (its chain's event 1), as the director's remove
      if (started) throw err("TOURNAMENT_ERROR", `${body.entrant} withdrew in phase ${doc.phase}: an entrant withdraws before the start`);
      if (!doc.removed.includes(body.entrant)) doc.removed.push(body.entrant);
    } else if (kind.startsWith("tournament_") && ACTIONS.includes(kind.slice(11))) {
      const action = kind.slice(11);
      const event = { ...body };
      if ("by" in event) event.by = event.by.director; // a director's signed request: his id
      if (action === "substitute") doc.substitutions.push(event);
      else if (action === "withdraw") doc.withdrawn[String(event.pair)] = event.from_round;
      else if (action === "adjust") {
        const same = (a) => a.round === event.round && a.table === event.table && a.board === event.board;
        doc.adjustments = [...doc.adjustments.filter((a) => !same(a)), event];
      } else if (action === "void_board") doc.voided.push(event.board);
      else doc.removed.push(event.entrant);
      doc.actions.push({ action, ...event });
    } else if (kind === "tournament_end") {
      Object.assign(doc, { phase: "over", service_seed: body.service_seed, standings_sha256: body.standings_sha256 });
    }
  });
  return doc;
}

/** The pair's two players in round `rnd` (substitutions from their round on). */
export function members(doc, pair, rnd) {
  const out = [...doc.pair_list[pair - 1]];
  for (const s of doc.substitutions) {
    if (s.pair === pair && s.from_round <= rnd && out.includes(s.out)) out[out.indexOf(s.out)] = s.in;
  }
  return out;
}

/** signed.check_chains: every chain the event's own, an entrant's, or a hand of a table
 * of one of its rounds (each table once, hands 1, 2, ...), each opening seated as the
 * round seats the table, a board of this event and round, each board once; and each
 * table seats the pairs its round names, their members as the start and the
 * substitutions say. Returns [{table, round, sit, hands}]. */
export function checkChains(tid, doc, chains) {
  checkPairs(tid, doc, chains);
  const sittings = new Map();
  for (const r of doc.rounds_played) {
    for (const sit of r.tables) {
      if (sittings.has(sit.id) || sit.id === tid) throw outside(sit.id, "*", "a table listed twice in the event's rounds");
      sittings.set(sit.id, [r.round, sit]);
    }
  }
  const numbers = new Map();
  for (const [table, hand] of [...chains.keys()].map((k) => JSON.parse(k))) {
    if (table === tid && (hand === EVENT_CHAIN || hand.startsWith("entrant-"))) continue;
    if (table === "directors" && hand === "grants") continue; // the directors' grants
    if (!sittings.has(table)) throw outside(table, hand, `not a chain of event ${tid}`);
    if (!/^[1-9][0-9]*$/.test(hand)) throw outside(table, hand, "not a hand number");
    if (!numbers.has(table)) numbers.set(table, []);
    numbers.get(table).push(Number(hand));
  }
  const plan = [];
  for (const [table, [rnd, sit]] of sittings) {
    const played = new Set();
    const hands = (numbers.get(table) ?? []).sort((a, b) => a - b);
    if (hands.some((n, i) => n !== i + 1)) throw outside(table, `[${hands.join(", ")}]`, "the table's hands are not numbered 1, 2, ...");
    for (const n of hands) {
      const opening = chains.get(JSON.stringify([table, String(n)]))[0];
      const body = isObject(opening.body) ? opening.body : {};
      if (canonicalText(body.seats) !== canonicalText(sit.seats)) {
        throw outside(table, n, `the opening seats ${show(body.seats)}, the round seats ${show(sit.seats)}`);
      }
      if (doc.format === DUPLICATE) {
        if (opening.type !== "board_open" || body.tournament !== tid || body.round !== rnd) {
          throw outside(table, n, `not a board of round ${rnd} of ${tid}`);
        }
        if (!(sit.boards ?? []).includes(body.board) || played.has(body.board)) {
          throw outside(table, n, `board ${body.board} is not one the table plays once`);
        }
        played.add(body.board);
      } else if (opening.type !== "open") throw outside(table, n, "a rubber's hand opens with 'open'");
    }
    plan.push({ table, round: rnd, sit, hands });
  }
  for (const r of doc.rounds_played) {
    for (const sit of r.tables) {
      const [a, b] = members(doc, sit.ns, r.round);
      const [c, d] = members(doc, sit.ew, r.round);
      const want = { N: a, E: c, S: b, W: d };
      if (canonicalText(want) !== canonicalText(sit.seats)) {
        throw outside(
          sit.id,
          "*",
          `round ${r.round} table ${sit.table} seats ${show(sit.seats)} as pairs ${sit.ns} and ${sit.ew}; the start and the substitutions make pairs ${sit.ns} and ${sit.ew} ${show(want)}`,
        );
      }
    }
  }
  return plan;
}

/** signed._check_pairs: each pair of the start is two entrants whose own signed
 * registrations name each other as partner, neither removed before the start. */
function checkPairs(tid, doc, chains) {
  const removed = new Set(doc.removed);
  doc.pair_list.forEach((pair, i) => {
    const n = i + 1;
    for (const [me, mate] of [[pair[0], pair[1]], [pair[1], pair[0]]]) {
      const reg = chains.get(JSON.stringify([tid, `entrant-${me}`]))?.[0] ?? {};
      const body = isObject(reg.body) ? reg.body : {};
      if (reg.type !== "tournament_register" || reg.actor !== me) throw err("CHAIN_OUTSIDE_EVENT", `pair ${n}: ${me} has no signed registration`);
      if (body.partner !== mate) {
        throw err("CHAIN_OUTSIDE_EVENT", `pair ${n}: ${me}'s signed registration names ${body.partner ?? "None"} as partner, not ${mate}`);
      }
      if (removed.has(me)) throw err("CHAIN_OUTSIDE_EVENT", `pair ${n}: ${me} was removed by the director before the start`);
    }
  });
}
