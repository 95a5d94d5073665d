// The rubber scorer in the browser: a hand's points, games and bonuses on the marker,
// and the score sheet of a sitting, as audit/rules/scoring.py's score_hand and Sheet
// give them (docs/rules.md), for a hand the engine let through: without a revoke (the
// engine refuses one), so no penalty and no cap but the honours' cap. From it: a round
// robin's match value (audit/tournament/standings.py's match_value) and the score a
// rubber's next hand starts from (audit/tournament/signed.py's next_start).

export const GAME = 10;
export const GAMES_TO_WIN = 4;
export const RUBBER_BONUS = 8;
export const SLAM = 6;
export const LITTLE_SLAM = 4;
const CAPPED = 9;

/** Ruleset.game_value: a game's value from the losers' points when it is won. */
export function gameValue(losers, ruleset) {
  if (losers === 0) return 4;
  if (losers <= 3) return 3;
  if (losers <= 6) return 2;
  if (losers === 7) return ruleset?.seven_is === "double" ? 2 : 1;
  return 1;
}

/**
 * score_hand without a revoke: the hand's facts ({contract, unit, tricks: [NS, EW],
 * honours: [NS, EW]}) scored from the marker `points` and the rubber's `games` before
 * it. Returns {points, games} after the hand (0-0 when the rubber ended), the games
 * won in it [{side, value}], its bonuses [{side, kind, points}] and the rubber's
 * winner (a side index, or null).
 */
export function scoreHand(points, games, facts, ruleset) {
  const pts = [...points];
  const gms = [...games];
  const won = [];
  const bonuses = [];
  let over = null;
  const nullo = facts.contract === "nullo";
  const add = (side, n, cap) => {
    if (n <= 0 || over !== null) return; // after the rubber is won, points are dropped
    const total = pts[side] + n;
    if (cap) {
      pts[side] = Math.max(pts[side], Math.min(total, CAPPED));
      return;
    }
    const other = side ^ 1;
    pts[side] = total;
    while (pts[side] >= GAME) {
      won.push({ side, value: gameValue(pts[other], ruleset) });
      pts[side] -= GAME;
      pts[other] = 0;
      gms[side] += 1;
      if (gms[side] >= GAMES_TO_WIN) {
        over = side;
        bonuses.push({ side, kind: "rubber", points: RUBBER_BONUS });
        return;
      }
    }
  };
  // tricks over the book (in a nullo the adversaries score them)
  const [t0, t1] = facts.tricks;
  const odd = t1 > 6 ? 1 : t0 > 6 ? 0 : null;
  if (odd !== null) add(nullo ? odd ^ 1 : odd, (facts.tricks[odd] - 6) * facts.unit, false);
  // honours, trump contracts only; none for a side whose adversaries went out by cards;
  // honours alone never win a game (capped at 9 without the odd trick)
  if (!["grand", "nullo"].includes(facts.contract)) {
    const h = facts.honours;
    const major = h[0] >= 3 ? 0 : h[1] >= 3 ? 1 : null;
    if (major !== null && !won.some((g) => g.side === (major ^ 1))) {
      add(major, (2 * h[major] - 4) * facts.unit, odd !== major);
    }
  }
  // slams, on the sheet (not the marker), to the side that scores the tricks
  for (const s of [0, 1]) {
    const n = facts.tricks[s];
    if (n >= 12) bonuses.push({ side: nullo ? s ^ 1 : s, kind: n === 13 ? "slam" : "little_slam", points: n === 13 ? SLAM : LITTLE_SLAM });
  }
  if (over !== null) return { points: [0, 0], games: [0, 0], won, bonuses, winner: over };
  return { points: pts, games: gms, won, bonuses, winner: null };
}

/** One rubber's score sheet (scoring.Rubber). */
class Rubber {
  constructor(games = [0, 0]) {
    this.columns = []; // one per game: [NS entry, EW entry], the loser's 0
    this.bonuses = [];
    this.games = [...games];
    this.winner = null;
    this.hands = 0;
  }
  sheet(side) {
    const bonuses = [...this.bonuses.filter((b) => b.kind === "rubber"), ...this.bonuses.filter((b) => b.kind !== "rubber")];
    return [...this.columns.map((c) => c[side]), ...bonuses.filter((b) => b.side === side).map((b) => b.points)];
  }
  totals() {
    return [0, 1].map((s) => this.sheet(s).reduce((a, b) => a + b, 0));
  }
}

/** The marker and the score sheets of a sitting, hand after hand (scoring.Sheet);
 * `start` a record's start ({points, games, sheet?}, sides by name) or null. */
export class Sheet {
  constructor(start, ruleset) {
    const pair = (o) => [o?.NS ?? 0, o?.EW ?? 0];
    this.ruleset = ruleset;
    this.points = pair(start?.points);
    this.games = pair(start?.games);
    const first = new Rubber(this.games);
    if (start?.sheet) {
      const [ns, ew] = [start.sheet.NS ?? [], start.sheet.EW ?? []];
      for (let i = 0; i < Math.max(ns.length, ew.length); i++) first.columns.push([ns[i] ?? 0, ew[i] ?? 0]);
    }
    this.rubbers = [first];
  }
  get current() {
    return this.rubbers[this.rubbers.length - 1];
  }
  /** Score a hand (its facts, cayenne.handFacts) on the current marker and enter it. */
  score(facts) {
    const r = scoreHand(this.points, this.games, facts, this.ruleset);
    const rubber = this.current;
    rubber.hands += 1;
    for (const g of r.won) {
      rubber.columns.push(g.side === 0 ? [g.value, 0] : [0, g.value]);
      rubber.games[g.side] += 1;
    }
    rubber.bonuses.push(...r.bonuses);
    this.points = r.points;
    this.games = r.games;
    if (r.winner !== null) {
      rubber.winner = r.winner;
      this.rubbers.push(new Rubber());
    }
    return r;
  }
  /** standings.match_value: over the rubbers, NS's sheet total minus EW's (an
   * unfinished rubber counts its games and slams, no rubber bonus, not the marker). */
  matchValue() {
    return this.rubbers.reduce((v, r) => { const [ns, ew] = r.totals(); return v + ns - ew; }, 0);
  }
  /** signed.next_start: the score the next hand starts from (zero after a rubber won,
   * else the marker, the games and the sheet so far). */
  nextStart() {
    const zero = { points: { NS: 0, EW: 0 }, games: { NS: 0, EW: 0 } };
    const last = this.current.hands === 0 && this.current.columns.length === 0 && this.rubbers.length > 1 ? this.rubbers[this.rubbers.length - 2] : this.current;
    if (last.winner !== null) return zero;
    const start = { points: { NS: this.points[0], EW: this.points[1] }, games: { NS: last.games[0], EW: last.games[1] } };
    const [ns, ew] = [last.sheet(0), last.sheet(1)];
    if (ns.length || ew.length) start.sheet = { NS: ns, EW: ew };
    return start;
  }
}

/** A round-robin match's NS value from its finished hands' facts, in hand order. */
export function matchValue(hands, ruleset) {
  const sheet = new Sheet(null, ruleset);
  for (const facts of hands) sheet.score(facts);
  return sheet.matchValue();
}
