// A table, live: for its seated player (their hand, their actions, each signed here) or
// for a spectator (no hidden card: the deal is shown once a hand is over). Updates come
// from the table's server-sent event stream (api/sse.py), never from a polling loop.
// When a hand ends, the player's page verifies it with hand.js and says what it checked.

import { fetchRetry } from "./retry.js";
import { toHex } from "./bytes.js";
import { verifyHandDetailed } from "./hand.js";
import { readHeader, signEvent, signedStreamUrl } from "./keys.js";
import { checkPolicy, makePolicy } from "./cosignature.js";
import { CHECKPOINT_KEY } from "./logview.js";
import { seatCommitment } from "./shuffle.js";
import { HandPause, LastTrickPanel, TurnCue, explanationOf } from "./cardroom.js";
import { ClaimPanel } from "./claims.js";
import { ChatPanel } from "./chat.js";
import { shownTableName } from "./people.js";

export const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANKS = "23456789TJQKA";
const CALL_TEXT = { pass: "Pass", S: "\u2660 Spades", H: "\u2665 Hearts", D: "\u2666 Diamonds", C: "\u2663 Clubs", grand: "Grand", nullo: "Nullo" };

const $ = (id) => document.getElementById(id);
const put = (box, ...children) => box.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
const RANK_NAME = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };
/** A card for a screen reader: "10 of hearts", "queen of spades". */
export const cardName = (card) => `${RANK_NAME[card[0]] ?? card[0]} of ${SUIT_NAME[card[1]]}`;
const isRed = (suit) => suit === "H" || suit === "D";
const sideOf = (seat) => (seat === "N" || seat === "S" ? "NS" : "EW");

/** A card face: rank and suit symbol, red for hearts and diamonds. */
export function cardFace(card, attrs = {}) {
  const suit = card[1];
  const button = attrs.onclick || attrs.disabled;
  const name = cardName(card);
  return el(
    button ? "button" : "span",
    {
      ...attrs,
      class: `card ${isRed(suit) ? "red" : "black"} ${attrs.class ?? ""}`,
      "data-card": card,
      title: name,
      ...(button ? { type: "button", "aria-label": attrs.disabled ? `${name}, cannot be played now` : `Play the ${name}` } : { role: "img", "aria-label": name }),
    },
    el("span", { class: "rank", "aria-hidden": "true" }, rankText(card)),
    el("span", { class: "suit", "aria-hidden": "true" }, SYMBOL[suit]),
  );
}

function bySuit(cards) {
  const out = { S: [], H: [], D: [], C: [] };
  for (const c of cards) out[c[1]].push(c);
  for (const s of SUITS) out[s].sort((a, b) => RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]));
  return out;
}

/** The contract as text, the cayenne suit marked ("♥ hearts — cayenne"). */
export function contractText(contract, cayenne) {
  if (!contract) return "not made yet";
  if (contract === "grand" || contract === "nullo") return contract[0].toUpperCase() + contract.slice(1);
  const cay = cayenne && cayenne[1] === contract ? " \u2014 cayenne" : "";
  return `${SYMBOL[contract]} ${SUIT_NAME[contract]}${cay}`;
}

export class TableView {
  /** `options`: {tableId, logKey, identity (the player, or null for a spectator), policy
   * (the pinned witness policy {witnesses, quorum} of key texts, or null)}. The page
   * verifies finished hands when it has a (pinned) log key. */
  constructor(options) {
    this.tableId = options.tableId;
    this.logKey = options.logKey;
    this.identity = options.identity ?? null;
    this.policy = options.policy ?? null;
    this.seat = null;
    this.names = {};
    this.table = null;
    this.hand = null;
    this.cards = null;
    this.sending = null;
    this.source = null;
    this.retry = 1000;
    this.verified = new Set();
    this.finished = new Set();
    this.status = "";
    this.seats = SEATS;
    this.previous = null;
    this.live = new Set(); // hands this page saw being played: their end is paused on
    this.lastTrick = new LastTrickPanel(this);
    this.pause = new HandPause(this);
    this.claims = new ClaimPanel(this);
    this.chat = new ChatPanel(this);
    this.turnCue = null;
    this.clockAt = 0; // when the hand's clock was received (performance.now())
    this.clockTimer = null;
  }

  // ------------------------------------------------------------------ the stream

  async connect() {
    let url = `/v1/tables/${encodeURIComponent(this.tableId)}/stream`;
    if (this.identity && this.seat) {
      url = await signedStreamUrl(this.identity, `/v1/tables/${encodeURIComponent(this.tableId)}/seats/${this.seat}/stream`);
    }
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener("table", (e) => this.onTable(JSON.parse(e.data)));
    source.addEventListener("chat", (e) => this.chat.update(JSON.parse(e.data)));
    source.addEventListener("state", (e) => {
      this.retry = 1000;
      this.onState(JSON.parse(e.data));
    });
    source.addEventListener("bye", (e) => {
      const bye = e.data ? JSON.parse(e.data) : {};
      if (bye.superseded) this.superseded();
      else this.reconnect(0);
    });
    source.onerror = () => this.reconnect(this.retry);
  }

  /** A newer page of this player (a reload, another window) took this page's stream: stay
   * quiet (two pages taking it in turn would never settle) until the person asks. */
  superseded() {
    if (this.source) this.source.close();
    this.source = null;
    this.say("This table is open in another window, which now follows it.");
    const box = $("status");
    const again = document.createElement("button");
    again.type = "button";
    again.id = "follow-here";
    again.textContent = "Follow it here";
    again.addEventListener("click", () => {
      this.say("");
      this.connect();
    });
    box.append(" ", again);
  }

  reconnect(delay) {
    // A seat's stream URL carries a signature valid for a minute: every new stream is
    // signed afresh, so the page opens it itself rather than letting EventSource retry.
    if (this.source) this.source.close();
    this.source = null;
    this.retry = Math.min(this.retry * 2, 30000);
    setTimeout(() => this.connect(), delay);
  }

  /** A read of the service, signed by this page's player when there is one: a duplicate
   * event's table and its hands are read by its four players only until the event ends. */
  get(path) {
    return signedGet(path, this.identity);
  }

  async start() {
    if (this.identity) {
      const resp = await this.get(`/v1/tables/${encodeURIComponent(this.tableId)}`);
      const table = await resp.json();
      if (!resp.ok) {
        this.say(`This table cannot be read with your key: ${table.message ?? resp.status}`, true);
        return;
      }
      this.seat = SEATS.find((s) => table.seats[s] === this.identity.id) ?? null;
    }
    this.turnCue = new TurnCue(Boolean(this.identity && this.seat));
    await this.connect();
  }

  onTable(msg) {
    this.table = msg.table;
    this.names = msg.names;
    $("table-name").textContent = shownTableName(msg.table.name);
  }

  onState(msg) {
    this.announceChange(this.hand, msg.hand);
    this.hand = msg.hand;
    this.clockAt = performance.now();
    if (msg.hand.clock && !this.clockTimer) this.clockTimer = setInterval(() => this.tickClocks(), 500);
    this.cards = msg.cards ?? null;
    if (msg.hand.phase === "calling" || msg.hand.phase === "playing") this.live.add(msg.hand.hand);
    if (msg.previous) this.previous = msg.previous;
    if (msg.previous && msg.previous.phase === "over") this.showFinished(msg.previous);
    this.render();
    document.body.dataset.live = "1"; // drawn from the stream (for tests and automation)
    this.act().catch((err) => this.say(`Could not act: ${err.message}`, true));
  }

  // -------------------------------------------------------------------- actions

  waitingForMe() {
    return this.seat && this.hand && this.hand.waiting_for.includes(this.seat);
  }

  async act() {
    const h = this.hand;
    if (!this.identity || !this.seat || !this.waitingForMe()) return;
    const key = `${h.hand}:${h.next_seq}`;
    if (this.sending === key) return;
    if (h.phase === "committing") {
      this.sending = key;
      const seedKey = `cayenne-fairplay:seed:${this.tableId}:${h.hand}:${this.seat}`;
      let seedHex = localStorage.getItem(seedKey);
      if (!seedHex) {
        const seed = crypto.getRandomValues(new Uint8Array(32));
        seedHex = toHex(seed);
        localStorage.setItem(seedKey, seedHex); // kept before the commitment is sent
      }
      const seed = Uint8Array.from(seedHex.match(/../g), (b) => parseInt(b, 16));
      const commitment = toHex(await seatCommitment(seed, this.seat, this.identity.id, this.tableId, h.hand));
      this.say("Committing to your shuffle seed\u2026");
      await this.send("commit", { commitment });
    } else if (h.phase === "revealing") {
      this.sending = key;
      const seedHex = localStorage.getItem(`cayenne-fairplay:seed:${this.tableId}:${h.hand}:${this.seat}`);
      if (!seedHex) {
        this.say("Your seed for this hand is not in this browser: the hand will be voided after the ceremony timeout.", true);
        return;
      }
      this.say("Revealing your seed\u2026");
      await this.send("reveal", { seed: seedHex });
    }
  }

  async send(type, body) {
    const h = this.hand;
    const event = await signEvent(this.identity, {
      origin: await this.loadOrigin(),
      table: this.tableId,
      hand: String(h.hand),
      seq: h.next_seq,
      prev: h.last_hash,
      type,
      body,
    });
    const resp = await fetchRetry(`/v1/tables/${encodeURIComponent(this.tableId)}/hands/${h.hand}/events`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(event),
    });
    if (!resp.ok) {
      const err = await resp.json().catch(() => ({}));
      if (err.code !== "REPLAYED_EVENT") this.say(`The service refused it: ${err.message ?? resp.status}`, true);
      this.sending = null;
      return false;
    }
    this.say("");
    return true;
  }

  async loadOrigin() {
    if (!this.origin) this.origin = (await (await fetchRetry("/healthz")).json()).log_origin;
    return this.origin;
  }

  async call(call) {
    this.keepFocus = true;
    this.sending = `${this.hand.hand}:${this.hand.next_seq}`;
    this.render();
    await this.send("call", { call });
  }

  async play(card, aceHigh = false) {
    this.keepFocus = true;
    this.sending = `${this.hand.hand}:${this.hand.next_seq}`;
    this.render();
    const body = { card };
    if (aceHigh) body.ace_high = true;
    await this.send("play", body);
  }

  /** Say something in the page's polite live region (#announce). */
  announce(text) {
    const box = $("announce");
    if (box) box.textContent = text;
  }

  say(text, bad = false) {
    const box = $("status");
    box.textContent = text;
    box.className = bad ? "status bad" : "status";
  }

  // ------------------------------------------------------------------- drawing

  positions() {
    const me = this.seat ?? "S";
    const i = SEATS.indexOf(me);
    return { bottom: me, left: SEATS[(i + 1) % 4], top: SEATS[(i + 2) % 4], right: SEATS[(i + 3) % 4] };
  }

  /** Tell a screen reader (the aria-live region #announce) what changed without a click:
   * each card played, each trick's winner, and whose turn it is. */
  announceChange(before, after) {
    const box = $("announce");
    if (!box || !after) return;
    const said = [];
    const tricks = (h) => (h && h.play && h.hand === after.hand ? h.play.tricks : []);
    const old = tricks(before);
    const now = after.play ? after.play.tricks : [];
    now.forEach((t, n) => {
      const seen = old[n] ? old[n].cards.length : 0;
      const i = SEATS.indexOf(t.leader);
      t.cards.slice(seen).forEach((c, k) => said.push(`${this.seatName(SEATS[(i + seen + k) % 4])} played the ${cardName(c)}.`));
      if (t.winner && !(old[n] && old[n].winner)) said.push(`${this.seatName(t.winner)} won the trick ${n + 1}.`);
    });
    const claimNow = (h) => Boolean(h && h.play && h.play.claim);
    if (claimNow(before) && !claimNow(after) && after.hand === before.hand && after.phase === "playing") {
      said.push("The claim was refused: the play goes on.");
      this.say("The claim was refused: the play goes on.");
    }
    const turn = (h) => (h && (h.phase === "calling" || h.phase === "playing") && !claimNow(h) ? `${h.hand}:${h.phase}:${h.waiting_for.join()}` : "");
    if (turn(after) && turn(after) !== turn(before)) {
      const mine = this.seat && after.waiting_for.includes(this.seat);
      said.push(mine ? (after.phase === "calling" ? "Your turn: your call." : "Your turn: play a card.") : `${this.seatName(after.waiting_for[0])} to ${after.phase === "calling" ? "call" : "play"}.`);
    }
    if (after.phase === "over" && before && before.phase !== "over") said.push(`Hand ${after.hand} is over.`);
    const clockNews = (field) => {
      const seen = before && before.hand === after.hand && before.clock ? before.clock[field] : [];
      return after.clock ? after.clock[field].filter((x) => !seen.includes(x)) : [];
    };
    for (const x of clockNews("warned")) {
      const left = Math.max(0, Math.ceil(after.clock.remaining_ms[x] / 1000));
      said.push(x === this.seat ? `Your clock: ${left} seconds left for this board.` : `${this.seatName(x)}: ${left} seconds left.`);
    }
    for (const x of clockNews("expired")) {
      said.push(x === this.seat ? "Your time ran out: the house plays your cards for the rest of the board." : `${this.seatName(x)}'s time ran out: the house plays that seat for the rest of the board.`);
    }
    if (said.length) box.textContent = said.join(" ");
  }

  render() {
    const h = this.hand;
    if (!h) return;
    // Focus stays where the person is working: on the hand (or the calls) across redraws.
    const active = document.activeElement;
    const focusHand = this.keepFocus || (active && active.closest && active.closest("#my-hand, #actions") !== null);
    this.keepFocus = false;
    const play = h.play;
    $("hand-title").textContent = h.board ? `Board ${h.board}` : `Hand ${h.hand}`;
    $("phase").textContent = this.phaseText();
    const pos = this.positions();
    for (const [where, seat] of Object.entries(pos)) this.renderSeat($(`seat-${where}`), seat, where === "bottom");
    this.renderTrick(pos);
    this.renderCalls();
    this.renderScore();
    this.renderActions();
    this.lastTrick.update(h, this.previous);
    this.claims.update(h, this.cards);
    if (this.turnCue) this.turnCue.update(h, this.waitingForMe());
    if (focusHand) this.restoreFocus(active && active.dataset ? active.dataset.card : null);
    document.body.dataset.phase = h.phase;
    document.body.dataset.hand = String(h.hand);
  }

  restoreFocus(card) {
    const same = card ? document.querySelector(`#my-hand button.playable[data-card="${card}"]`) : null;
    const target = same ?? document.querySelector("#actions button:not(:disabled)") ?? document.querySelector("#my-hand button.playable") ?? $("my-hand");
    if (target) target.focus({ preventScroll: true });
  }

  phaseText() {
    const h = this.hand;
    const who = h.waiting_for;
    const mine = this.waitingForMe();
    if (h.phase === "committing" || h.phase === "revealing") {
      const n = h.phase === "committing" ? Object.values(h.ceremony.commitments).filter(Boolean).length : Object.values(h.ceremony.revealed).filter(Boolean).length;
      return `Shuffle ceremony: ${h.phase === "committing" ? "commitments" : "seeds revealed"} ${n}/4`;
    }
    if (h.phase === "calling") return mine ? "Your call" : `${this.seatName(who[0])} to call`;
    if (h.phase === "playing" && h.play && h.play.claim) {
      return mine ? "A claim: your answer" : `A claim: waiting for ${who.map((s) => this.seatName(s)).join(" and ")}`;
    }
    if (h.phase === "playing") return mine ? "Your turn: play a card" : `${this.seatName(who[0])} to play`;
    if (h.phase === "void") return "This hand was void; the next is being shuffled";
    return h.phase;
  }

  contractText(play) {
    return contractText(play.contract, play.cayenne);
  }

  seatName(seat) {
    if (!seat) return "";
    const pid = this.table ? this.table.seats[seat] : null;
    if (seat === this.seat) return "You";
    return `${seat} \u00b7 ${this.names[pid] ?? pid ?? ""}`;
  }

  renderSeat(box, seat, bottom) {
    const h = this.hand;
    const toAct = h.waiting_for.length === 1 && h.waiting_for[0] === seat && (h.phase === "calling" || h.phase === "playing");
    box.className = `seat${toAct ? " to-act" : ""}${h.dealer === seat ? " dealer" : ""}`;
    box.dataset.seat = seat;
    const left = h.play ? h.play.cards_left[seat] : h.phase === "committing" || h.phase === "revealing" ? 0 : 13;
    const label = el(
      "div",
      { class: "seat-label" },
      el("b", {}, this.seatName(seat)),
      h.dealer === seat ? el("span", { class: "chip" }, "dealer") : null,
      toAct ? el("span", { class: "chip turn" }, "to act") : null,
      this.clockChip(seat),
    );
    if (bottom && this.cards && this.cards.held) {
      box.replaceChildren(label, this.handDiagram(this.cards.held));
      return;
    }
    const backs = el("div", { class: "backs", "data-count": String(left) }, ...Array.from({ length: left }, () => el("span", { class: "back" })));
    box.replaceChildren(label, backs, el("div", { class: "muted count" }, `${left} card${left === 1 ? "" : "s"}`));
  }

  /** A seat's clock (api/clock.py): its time left on the board, counting down while it is
   * to act; "house" once its time ran out and the house plays it. */
  clockChip(seat) {
    const c = this.hand.clock;
    if (!c) return null;
    const chip = el("span", { class: "clock", "data-clock": seat, role: "timer" });
    this.paintClock(chip, seat);
    return chip;
  }

  /* The seat's clock runs: it is to act, or a claim waits for its answer. */
  clockRuns(seat) {
    const c = this.hand.clock;
    return c.running === seat || (c.answering ?? []).includes(seat);
  }

  clockLeft(seat) {
    const c = this.hand.clock;
    const running = this.clockRuns(seat) ? performance.now() - this.clockAt : 0;
    return Math.max(0, c.remaining_ms[seat] - running);
  }

  paintClock(chip, seat) {
    const c = this.hand.clock;
    const house = c.expired.includes(seat);
    const left = Math.ceil(this.clockLeft(seat) / 1000);
    const text = house ? "house" : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    const warned = !house && (c.warned.includes(seat) || this.clockLeft(seat) <= c.warning_ms);
    chip.className = `clock${this.clockRuns(seat) ? " running" : ""}${warned ? " warned" : ""}${house ? " house" : ""}`;
    chip.textContent = text;
    chip.setAttribute("aria-label", house ? `${seat}: out of time, played by the house` : `${seat}: ${left} seconds left for the board`);
  }

  tickClocks() {
    if (!this.hand || !this.hand.clock) return;
    for (const chip of document.querySelectorAll("[data-clock]")) this.paintClock(chip, chip.dataset.clock);
  }

  handDiagram(held) {
    const h = this.hand;
    const legal = new Set(this.cards && h.phase === "playing" && this.waitingForMe() ? this.cards.legal_plays : []);
    const busy = this.sending === `${h.hand}:${h.next_seq}`;
    const suits = bySuit(held);
    const rows = SUITS.map((s) =>
      el(
        "div",
        { class: `suit-row ${isRed(s) ? "red" : "black"}`, role: "group", "aria-label": SUIT_NAME[s] },
        el("span", { class: "suit-symbol", "aria-hidden": "true" }, SYMBOL[s]),
        suits[s].length
          ? suits[s].map((c) =>
              legal.has(c) && !busy
                ? cardFace(c, { class: "playable", onclick: () => this.choose(c) })
                : cardFace(c, { class: legal.size ? "unplayable" : "", disabled: true }),
            )
          : el("span", { class: "muted" }, "none"),
      ),
    );
    return el("div", { class: "hand-diagram", id: "my-hand", role: "group", "aria-label": "Your hand", tabindex: "-1" }, ...rows);
  }

  choose(card) {
    const play = this.hand.play;
    if (card[0] === "A" && play && play.contract === "nullo") {
      const box = $("actions");
      box.replaceChildren(
        el("span", {}, "Nullo: play this ace "),
        el("button", { class: "call", onclick: () => this.play(card, false) }, "low"),
        el("button", { class: "call", id: "ace-high", onclick: () => this.play(card, true) }, "high (declare)"),
      );
      return;
    }
    this.play(card);
  }

  renderTrick(pos) {
    const play = this.hand.play;
    const slots = {};
    for (const [where, seat] of Object.entries(pos)) slots[seat] = el("div", { class: `slot ${where}` });
    let caption = "";
    if (play) {
      const tricks = play.tricks;
      const trick = tricks[tricks.length - 1];
      if (trick) {
        const i = SEATS.indexOf(trick.leader);
        trick.cards.forEach((c, k) => {
          const seat = SEATS[(i + k) % 4];
          slots[seat].append(cardFace(c, { class: trick.winner === seat ? "winner" : "" }));
          if ((trick.ace_high ?? []).includes(c)) slots[seat].append(el("div", { class: "chip" }, "ace high"));
        });
        caption = trick.winner ? `Trick ${tricks.length}: ${this.seatName(trick.winner)} won it` : `Trick ${tricks.length}`;
      }
    }
    $("trick").replaceChildren(...Object.values(slots), el("div", { class: "slot middle" }, el("div", { class: "caption" }, caption)));
    $("corner-left").replaceChildren(
      play ? el("div", { class: "cayenne", id: "cayenne" }, el("div", { class: "muted" }, "cayenne card"), cardFace(play.cayenne)) : el("div", { class: "muted" }, "shuffling\u2026"),
    );
    $("corner-right").replaceChildren(
      ...(play
        ? [
            el("div", { class: "muted" }, "contract"),
            el("div", { class: "big" }, contractText(play.contract, play.cayenne)),
            el("div", {}, `tricks N-S ${play.tricks_won.NS} \u00b7 E-W ${play.tricks_won.EW}`),
          ]
        : []),
    );
  }

  renderCalls() {
    const play = this.hand.play;
    const box = $("calls");
    if (!play) {
      box.replaceChildren(el("p", { class: "muted" }, "Each seat commits to a secret seed, then reveals it: the deal comes from all of them."));
      return;
    }
    const calls = play.calls.map((c) => el("li", {}, `${this.seatName(c.seat)}: `, el("b", {}, CALL_TEXT[c.call] ?? c.call)));
    const declared = play.tricks.flatMap((t) => t.ace_high ?? []);
    put(
      box,
      el("div", {}, "Cayenne card: ", el("b", { class: isRed(play.cayenne[1]) ? "red" : "" }, `${rankText(play.cayenne)}${SYMBOL[play.cayenne[1]]}`)),
      el("div", { id: "contract" }, "Contract: ", el("b", {}, contractText(play.contract, play.cayenne)), play.unit ? ` (unit ${play.unit})` : ""),
      el("ul", { class: "calls" }, ...calls),
      el("div", {}, `Tricks: N-S ${play.tricks_won.NS}, E-W ${play.tricks_won.EW}`),
      declared.length ? el("div", { id: "ace-high-list" }, "Aces declared high: ", declared.join(" ")) : null,
    );
  }

  renderScore() {
    if (this.hand.board) {
      // a duplicate board has no rubber: it is scored against the other tables' results
      $("score-title").textContent = "Duplicate board";
      $("score").replaceChildren(el("p", { id: "board-scoring" }, `Board ${this.hand.board} is scored against the other tables that play it (matchpoints). Your result shows on the event's page as soon as your table has played it.`));
      return;
    }
    const score = this.hand.score_before ?? { points: { NS: 0, EW: 0 }, games: { NS: 0, EW: 0 } };
    const sheet = score.sheet ?? { NS: [], EW: [] };
    $("score").replaceChildren(
      el(
        "table",
        { class: "score" },
        el("tr", {}, el("th", {}, ""), el("th", {}, "N-S"), el("th", {}, "E-W")),
        el("tr", {}, el("td", {}, "marker"), el("td", {}, String(score.points.NS)), el("td", {}, String(score.points.EW))),
        el("tr", {}, el("td", {}, "games"), el("td", {}, String(score.games.NS)), el("td", {}, String(score.games.EW))),
        el("tr", {}, el("td", {}, "sheet"), el("td", {}, sheet.NS.join(" + ") || "\u2014"), el("td", {}, sheet.EW.join(" + ") || "\u2014")),
      ),
    );
  }

  renderActions() {
    const box = $("actions");
    const h = this.hand;
    if (!this.identity || !this.seat) {
      box.replaceChildren();
      return;
    }
    const busy = this.sending === `${h.hand}:${h.next_seq}`;
    if (h.phase === "calling" && this.waitingForMe() && this.cards) {
      box.replaceChildren(
        el("span", {}, "Your call: "),
        ...this.cards.legal_calls.map((c) => el("button", { class: "call", "data-call": c, disabled: busy, onclick: () => this.call(c) }, CALL_TEXT[c] ?? c)),
      );
      return;
    }
    // the seat's own turn to play is said by the banner above (#turn-cue), not twice
    box.replaceChildren(h.phase === "playing" && this.waitingForMe() ? "" : el("span", { class: "muted" }, this.phaseText()));
  }

  // ---------------------------------------------------------- a finished hand

  async showFinished(prev) {
    if (this.finished.has(prev.hand)) return;
    this.finished.add(prev.hand);
    const t = encodeURIComponent(this.tableId);
    const [record, report] = await Promise.all([
      this.get(`/v1/tables/${t}/hands/${prev.hand}/record`).then((r) => r.json()),
      this.get(`/v1/tables/${t}/hands/${prev.hand}/report`).then((r) => r.json()),
    ]);
    const rec = record.hands[0];
    const box = $("last-hand");
    const diagram = el("div", { class: "deal-diagram", id: "last-deal" });
    for (const seat of SEATS) {
      const suits = bySuit(rec.deal[seat]);
      diagram.append(
        el(
          "div",
          { class: `deal-seat ${seat}` },
          el("b", {}, this.seatName(seat)),
          ...SUITS.map((s) => el("div", { class: isRed(s) ? "red" : "black" }, `${SYMBOL[s]} `, suits[s].map(rankText).join(" ") || "\u2014")),
        ),
      );
    }
    diagram.append(el("div", { class: "deal-seat centre" }, "cayenne ", cardFace(rec.cayenne)));
    const verdict = report.report.verdict;
    const play = prev.play;
    const declared = play.tricks.flatMap((t) => t.ace_high ?? []);
    const lines = explanationOf(report, prev.hand);
    if (this.live.has(prev.hand)) this.pause.show(prev, lines);
    put(
      box,
      el("h3", {}, prev.board ? `Board ${prev.board}: ` : `Hand ${prev.hand}: `, contractText(play.contract, play.cayenne), ` \u2014 N-S ${play.tricks_won.NS} tricks, E-W ${play.tricks_won.EW}`),
      diagram,
      declared.length ? el("p", {}, "Aces declared high: ", declared.join(" ")) : null,
      rec.claim
        ? el("p", { id: "claimed-hand" }, `Ended by a claim: ${this.seatName(rec.claim.claimer)} claimed ${rec.claim.tricks} of the ${13 - rec.tricks.length} tricks left, agreed by ${rec.claim.agreed.map((s) => this.seatName(s)).join(" and ")}; the cards not played are not tricks.`)
        : null,
      lines ? el("details", { id: "score-explained" }, el("summary", {}, "The score, step by step"), el("ol", {}, ...lines.map((l) => el("li", {}, l.reason)))) : null,
      el("p", {}, "Audit verdict: ", el("b", { id: "verdict", class: `verdict-${verdict}` }, verdict), ...(prev.board ? [] : [" \u2014 ", el("a", { href: `/reports/${report.id}` }, "report"), " \u00b7 ", el("a", { href: `/tables/${t}/hands/${prev.hand}` }, "hand page")])),
      el("div", { id: "verification" }),
    );
    if (prev.board) {
      // A duplicate board is dealt from the event's seeds, the service's secret until the
      // end: it is verified with the whole event, by the certificate's check.
      $("verification").replaceChildren(el("p", { class: "muted", id: "board-verification" }, `Board ${prev.board} is verified with the whole event: its deal comes from the event's seeds, published when the event ends, and the certificate's check ("Verify in this browser") replays every board.`));
      return;
    }
    if (this.logKey) await this.verify(prev.hand, record);
  }

  /** Verify a finished hand here, trusting nothing the server says without a proof. */
  async verify(number, record) {
    if (this.verified.has(number)) return;
    this.verified.add(number);
    const out = $("verification");
    out.replaceChildren(el("p", { class: "muted" }, `Verifying hand ${number} in this browser\u2026`));
    const result = await verifyFinishedHand(this.tableId, number, this.logKey, record, this.identity, this.policy);
    showChecks(out, number, result);
  }
}

/** A GET of the service, signed by `identity` (a signed read) when one is given. */
export function signedGet(path, identity) {
  if (!identity) return fetchRetry(path);
  return fetchRetry(path, async () => ({ headers: { Authorization: await readHeader(identity, "GET", path) } }));
}

/** Fetch a hand's proof bundle (and, when needed, a consistency proof from the last
 * checkpoint this browser kept) and run hand.js's checks; keeps the newest checkpoint. */
export async function verifyFinishedHand(tableId, number, logKey, record, identity, policy = null) {
  const t = encodeURIComponent(tableId);
  const bundle = await (await signedGet(`/v1/tables/${t}/hands/${number}/proof`, identity)).json();
  const lastNote = localStorage.getItem(CHECKPOINT_KEY);
  let last = null;
  if (lastNote) {
    const newest = bundle.later && bundle.later.checkpoint ? bundle.later.checkpoint : bundle.checkpoint;
    const a = Number(lastNote.split("\n")[1]);
    const b = Number(String(newest).split("\n")[1]);
    last = lastNote;
    if (a !== b && a > 0 && b > 0) {
      const resp = await fetchRetry(`/v1/log/proofs/consistency?from=${Math.min(a, b)}&to=${Math.max(a, b)}`);
      if (resp.ok) last = { checkpoint: lastNote, consistency: (await resp.json()).proof };
    }
  }
  const options = { record };
  if (identity) Object.assign(options, { player: identity.id, playerKey: identity.verifierKey });
  const result = await verifyHandDetailed(bundle, logKey, last, options);
  const witnessed = await witnessCheck(bundle, policy);
  const at = result.checks.findIndex((c) => c.check === "later checkpoint");
  result.checks.splice(at + 1, 0, witnessed);
  result.ok = result.ok && witnessed.ok;
  if (result.ok && result.checkpoint) localStorage.setItem(CHECKPOINT_KEY, result.checkpoint.note ?? result.checkpoint);
  return result;
}

/** The "witnesses" check: the bundle's checkpoint, or its later one, meets the pinned
 * policy (k of the n pinned witness keys validly cosign it). */
export async function witnessCheck(bundle, policy) {
  const check = "witnesses";
  if (!policy) return { check, ok: false, detail: "LOG_WITNESS_QUORUM: no witness policy is pinned in this browser" };
  let parsed;
  try {
    parsed = await makePolicy(policy.witnesses, policy.quorum);
  } catch (err) {
    return { check, ok: false, detail: `the pinned policy is not valid: ${err.message}` };
  }
  if (parsed.witnesses.length === 0) return { check, ok: true, detail: "no witness policy (this service named no witnesses when first seen): nothing required" };
  const notes = [bundle.later && bundle.later.checkpoint, bundle.checkpoint].filter((n) => typeof n === "string");
  let failure = "the bundle holds no checkpoint";
  for (const note of notes) {
    try {
      const names = await checkPolicy(note, parsed);
      return { check, ok: true, detail: `cosigned by ${names.length} of ${parsed.witnesses.length} (${names.join(", ")}); the policy needs ${parsed.quorum}` };
    } catch (err) {
      failure = `${err.code ?? "ERROR"}: ${err.message}`;
    }
  }
  return { check, ok: false, detail: failure };
}

export function showChecks(out, number, result) {
  const rows = result.checks.map((c) =>
    el("tr", { class: c.ok ? "ok" : "bad", "data-check": c.check }, el("td", {}, c.ok ? "\u2713" : "\u2717"), el("td", {}, c.check), el("td", {}, c.detail ?? "")),
  );
  out.replaceChildren(
    el(
      "p",
      { id: "verify-result", class: result.ok ? "verified" : "failed", "data-hand": String(number) },
      result.ok ? `Hand ${number} verified in this browser: every check passed.` : `Hand ${number} FAILED verification: do not trust this service's account of it.`,
    ),
    el("table", { class: "checks" }, ...rows),
  );
}
