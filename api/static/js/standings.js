// Matchpoints (Neuberg), percentages, places and the standings' hash of a pairs
// duplicate, in the browser, exactly (BigInt fractions) as audit/tournament/matchpoints.py,
// standings.py and score.py compute them; and the text Python writes for the standings'
// SHA-256 (json.dumps, sorted keys, compact, floats as Python's repr).

import { sha256, toHex, utf8 } from "./bytes.js";

// ------------------------------------------------------------------ exact fractions

const gcd = (a, b) => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};
export class Frac {
  constructor(n, d = 1n) {
    n = BigInt(n);
    d = BigInt(d);
    if (d < 0n) [n, d] = [-n, -d];
    const g = gcd(n, d) || 1n;
    this.n = n / g;
    this.d = d / g;
  }
  add(o) { return new Frac(this.n * o.d + o.n * this.d, this.d * o.d); }
  sub(o) { return new Frac(this.n * o.d - o.n * this.d, this.d * o.d); }
  mul(o) { return new Frac(this.n * o.n, this.d * o.d); }
  div(o) { return new Frac(this.n * o.d, this.d * o.n); }
  cmp(o) { const x = this.n * o.d - o.n * this.d; return x < 0n ? -1 : x > 0n ? 1 : 0; }
}
const F = (n, d = 1) => new Frac(n, d);
const HALF = F(1, 2);
export const SHARE = { average: F(1, 2), "average-plus": F(3, 5), "average-minus": F(2, 5) };

/** Python's repr of a float that is a whole number or has a short decimal form. */
export function pyFloat(x) {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  if (Math.abs(x) >= 1e16 || (x !== 0 && Math.abs(x) < 1e-4)) {
    const [m, e] = x.toExponential().split("e");
    const exp = Number(e);
    return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const s = String(x);
  return Number.isInteger(x) ? `${s}.0` : s;
}

/** round_half_up(value, 2) as Python prints the float it returns. */
export function roundHalfUp(v, digits = 2) {
  const scale = 10n ** BigInt(digits);
  const q = F(v.n < 0n ? -v.n : v.n, v.d).mul(F(scale));
  const whole = (q.n * 2n + q.d) / (2n * q.d); // floor(q + 1/2)
  const signed = v.n < 0n ? -whole : whole;
  return pyFloat(Number(signed) / Number(scale));
}

// ------------------------------------------------------------------ matchpoints

/** Each score's matchpoints against the others: 1 per score beaten, 1/2 per tie. */
function matchpoints(scores) {
  return scores.map((s) => {
    const below = scores.filter((o) => o < s).length;
    const ties = scores.filter((o) => o === s).length - 1;
    return F(below).add(HALF.mul(F(ties)));
  });
}

function neuberg(m, n, most) {
  if (n === most) return m;
  return m.add(HALF).mul(F(most)).div(F(n)).sub(HALF);
}

/**
 * The boards' matchpoints and the two fields' standings from the boards' results
 * ([{board, results: [{ns, ew, ns_score | null, adjusted: {ns, ew} | undefined}]}]),
 * as score.duplicate_standings writes them (floats as Python's text). `absent`: pair
 * keys (JSON of the two ids) scored for nothing.
 */
export function duplicateStandings(boards, absent = new Set()) {
  const most = Math.max(1, ...boards.map((b) => b.results.filter((r) => r.ns_score !== null).length));
  const top = F(most - 1);
  const won = new Map();
  const possible = new Map();
  const pairs = new Map();
  const outBoards = boards.map((b) => {
    const played = b.results.filter((r) => !r.adjusted);
    if (played.length > most) throw new Error(`board ${b.board} has more results than ${most}`);
    const mps = matchpoints(played.map((r) => r.ns_score));
    const results = b.results.map((r) => {
      let ns;
      let ew;
      if (r.adjusted) {
        ns = SHARE[r.adjusted.ns].mul(top);
        ew = SHARE[r.adjusted.ew].mul(top);
      } else {
        ns = neuberg(mps[played.indexOf(r)], played.length, most);
        ew = top.sub(ns);
      }
      for (const [field, pair, mp] of [["NS", r.ns, ns], ["EW", r.ew, ew]]) {
        const key = `${field}|${JSON.stringify(pair)}`;
        if (absent.has(JSON.stringify(pair))) continue;
        pairs.set(key, { field, pair });
        won.set(key, (won.get(key) ?? F(0)).add(mp));
        possible.set(key, (possible.get(key) ?? F(0)).add(top));
      }
      const entry = { ...r, ns_matchpoints: roundHalfUp(ns), ew_matchpoints: roundHalfUp(ew) };
      if (!r.adjusted) delete entry.adjusted;
      return entry;
    });
    return { board: b.board, top: roundHalfUp(top), results };
  });
  const standings = [];
  for (const field of ["NS", "EW"]) {
    const keys = [...won.keys()].filter((k) => pairs.get(k).field === field);
    const pct = new Map(keys.map((k) => [k, possible.get(k).n === 0n ? F(50) : F(100).mul(won.get(k)).div(possible.get(k))]));
    const name = (k) => pairs.get(k).pair.join(" & ");
    for (const [k, place] of places(pct, name)) {
      standings.push({
        pair: pairs.get(k).pair,
        field,
        score: roundHalfUp(won.get(k)),
        percentage: roundHalfUp(pct.get(k)),
        place,
      });
    }
  }
  return { standings, boards: outBoards };
}

/** Every key with its place, best first ("3-4" for a tie); `name` orders a tie. */
export function places(scores, name) {
  const cmpNames = (a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  const ordered = [...scores.keys()].sort((a, b) => scores.get(b).cmp(scores.get(a)) || cmpNames(a, b));
  const out = [];
  for (let i = 0; i < ordered.length; ) {
    let j = i;
    while (j + 1 < ordered.length && scores.get(ordered[j + 1]).cmp(scores.get(ordered[i])) === 0) j++;
    const place = i === j ? String(i + 1) : `${i + 1}-${j + 1}`;
    for (const k of ordered.slice(i, j + 1)) out.push([k, place]);
    i = j + 1;
  }
  return out;
}

// ------------------------------------------------------------------ the standings' hash

/** A float to write as Python wrote it (its repr text, no quotes). */
export class PyFloat {
  constructor(text) { this.text = text; }
}

function pyString(s) {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

/** json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function pyJson(v) {
  if (v === null || v === undefined) return "null";
  if (v instanceof PyFloat) return v.text;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return pyString(v);
  if (Array.isArray(v)) return `[${v.map(pyJson).join(",")}]`;
  const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${pyString(k)}:${pyJson(v[k])}`).join(",")}}`;
}

/** SHA-256 (hex) of the standings document as tournament_end's standings_sha256. */
export async function standingsDigest(doc) {
  return toHex(await sha256(utf8(pyJson(doc))));
}
