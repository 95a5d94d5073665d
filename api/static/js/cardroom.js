// What every card room has, at the live table (table.js draws the rest): the last trick
// looked at again, a "your turn" cue with a tone that is off until the person turns it
// on, and a pause between hands that shows the hand's score step by step. The score's
// steps are the auditor's own (`hands[].explanation` of the hand's report,
// docs/audit-report.md): the page explains nothing itself, so it cannot disagree.

import { cardFace, cardName, el } from "./table.js";

/** localStorage key of the turn sound: "on" or "off" (absent: off). */
export const SOUND_KEY = "cayenne-fairplay:turn-sound";
/** The pause between hands: one step of the score shown every STEP_MS, then held HOLD_MS. */
export const STEP_MS = 700;
export const HOLD_MS = 8000;

const $ = (id) => document.getElementById(id);

/** The most recent finished trick: of the hand in play, else the last one of the hand
 * before. `{hand, number, trick}` or null. */
export function lastTrick(hand, previous) {
  const done = (h) => (h && h.play ? h.play.tricks.filter((t) => t.winner) : []);
  for (const h of [hand, previous]) {
    const tricks = done(h);
    if (tricks.length) return { hand: h.hand, number: tricks.length, trick: tricks[tricks.length - 1] };
  }
  return null;
}

/** A trick's cards in the order played, each with its seat. */
export function trickPlays(trick, seats) {
  const i = seats.indexOf(trick.leader);
  return trick.cards.map((card, k) => ({ seat: seats[(i + k) % 4], card, aceHigh: (trick.ace_high ?? []).includes(card) }));
}

/** The explanation of hand `number` in a hand's report (`{id, report}`), or null. */
export function explanationOf(report, number) {
  const hands = (report && report.report && report.report.hands) || [];
  const entry = hands.find((h) => h.hand === number) ?? (hands.length === 1 ? hands[0] : null);
  return entry && Array.isArray(entry.explanation) ? entry.explanation : null;
}

/** The "Last trick" button and its panel: a disclosure (aria-expanded), so it works by
 * mouse, touch and keyboard alike; opening it says the trick in the live region. */
export class LastTrickPanel {
  constructor(view) {
    this.view = view;
    this.open = false;
    this.shown = null;
    this.button = $("last-trick-button");
    this.box = $("last-trick");
    if (this.button) this.button.addEventListener("click", () => this.toggle());
  }

  toggle() {
    this.open = !this.open && Boolean(this.shown);
    this.render();
    if (this.open) this.view.announce(this.words());
  }

  update(hand, previous) {
    this.shown = lastTrick(hand, previous);
    this.render();
  }

  words() {
    const { hand, number, trick } = this.shown;
    const plays = trickPlays(trick, this.view.seats).map((p) => `${this.view.seatName(p.seat)} played the ${cardName(p.card)}${p.aceHigh ? " (ace high)" : ""}.`);
    return `Last trick: hand ${hand}, trick ${number}. ${plays.join(" ")} ${this.view.seatName(trick.winner)} won it.`;
  }

  render() {
    if (!this.button || !this.box) return;
    const s = this.shown;
    const open = this.open && Boolean(s);
    this.button.disabled = !s;
    this.button.setAttribute("aria-expanded", String(open));
    this.button.textContent = open ? "Hide the last trick" : "Last trick";
    this.box.hidden = !open;
    if (!open) return;
    const rows = trickPlays(s.trick, this.view.seats).map((p) =>
      el(
        "li",
        { class: p.seat === s.trick.winner ? "won" : "", "data-seat": p.seat, "data-card": p.card },
        el("span", { class: "who" }, this.view.seatName(p.seat)),
        cardFace(p.card, { class: p.seat === s.trick.winner ? "winner" : "" }),
        p.aceHigh ? el("span", { class: "chip" }, "ace high") : null,
        p.seat === s.trick.winner ? el("b", {}, "won it") : null,
      ),
    );
    this.box.replaceChildren(
      el("p", { class: "title" }, `Hand ${s.hand}, trick ${s.number}: led by ${this.view.seatName(s.trick.leader)}, won by `, el("b", { id: "last-trick-winner" }, this.view.seatName(s.trick.winner))),
      el("ol", { class: "last-trick-cards", "aria-label": "The cards in the order played" }, ...rows),
    );
  }
}

/** "Your turn": a visible cue while the seat is to act, and a short tone (Web Audio, made
 * here: no file is fetched) each time the turn comes, when the person turned it on. */
export class TurnCue {
  constructor(seated) {
    this.cue = $("turn-cue");
    this.toggle = $("turn-sound");
    this.tones = 0;
    this.ctx = null;
    this.turnKey = null;
    const box = $("turn-sound-box");
    if (box) box.hidden = !seated;
    if (!this.toggle) return;
    this.toggle.checked = localStorage.getItem(SOUND_KEY) === "on";
    this.toggle.addEventListener("change", () => {
      localStorage.setItem(SOUND_KEY, this.toggle.checked ? "on" : "off");
      if (this.toggle.checked) this.tone(); // a sample, and the gesture that lets audio start
    });
    // A browser starts audio only after a gesture on the page: a remembered "on" waits for one.
    const wake = () => this.ctx && this.ctx.state === "suspended" && this.ctx.resume();
    document.addEventListener("pointerdown", wake);
    document.addEventListener("keydown", wake);
  }

  get soundOn() {
    return Boolean(this.toggle && this.toggle.checked);
  }

  /** `hand`: the state now; `mine`: whether this seat is to call or play in it. */
  update(hand, mine) {
    const acting = mine && (hand.phase === "calling" || hand.phase === "playing");
    if (this.cue) {
      this.cue.hidden = !acting;
      this.cue.textContent = acting ? (hand.phase === "calling" ? "Your turn: your call" : hand.play && hand.play.claim ? "Your turn: answer the claim" : "Your turn: play a card") : "";
    }
    document.body.dataset.yourTurn = acting ? "1" : "";
    const key = acting ? `${hand.hand}:${hand.next_seq}` : null;
    if (key && key !== this.turnKey && this.soundOn) this.tone();
    this.turnKey = key;
  }

  tone() {
    const Ctx = window.AudioContext ?? window.webkitAudioContext;
    if (!Ctx) return;
    if (!this.ctx) this.ctx = new Ctx();
    const ctx = this.ctx;
    if (ctx.state === "suspended") ctx.resume();
    const t = ctx.currentTime;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, t);
    osc.frequency.setValueAtTime(880, t + 0.12);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.32);
    this.tones += 1;
    document.body.dataset.tones = String(this.tones);
  }
}

/** The pause between hands: the hand's score, one step at a time, until the person
 * continues or the pause runs out. The next hand goes on underneath; nothing waits. */
export class HandPause {
  constructor(view, options = {}) {
    this.view = view;
    this.stepMs = options.stepMs ?? STEP_MS;
    this.holdMs = options.holdMs ?? HOLD_MS;
    this.box = $("hand-pause");
    this.timers = [];
  }

  /** `prev`: the finished hand's state; `lines`: its explanation (or null). */
  show(prev, lines) {
    if (!this.box) return;
    this.stop();
    const play = prev.play;
    const list = el("ol", { id: "pause-lines" });
    const left = el("span", { id: "pause-left" });
    const button = el("button", { type: "button", class: "call", id: "pause-continue", onclick: () => this.close("continue") }, "Continue");
    this.box.replaceChildren(
      el("h3", { id: "hand-pause-title" }, `Hand ${prev.hand} is over: the score`),
      el("p", {}, `${this.view.contractText(play)} \u2014 N-S ${play.tricks_won.NS} tricks, E-W ${play.tricks_won.EW}.`),
      list,
      el("p", { class: "pause-foot" }, button, " ", left),
    );
    this.box.hidden = false;
    this.box.dataset.hand = String(prev.hand);
    this.box.dataset.closed = "";
    const steps = lines && lines.length ? lines : [{ reason: "The score of this hand could not be explained: see its report." }];
    this.view.announce(`Hand ${prev.hand} is over. The score: ${steps.map((l) => l.reason).join(" ")}`);
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected || (active.closest && active.closest("#my-hand, #actions"))) button.focus({ preventScroll: true });
    // Each step stays alone for stepMs at least, even when the page is busy (the hand's
    // verification runs at the same time): the next is timed from when one appeared.
    const t0 = performance.now();
    this.t0 = t0;
    const step = (i) => {
      list.append(el("li", { "data-kind": steps[i].kind ?? "", "data-side": steps[i].side ?? "", "data-at": String(Math.round(performance.now() - t0)) }, steps[i].reason));
      this.box.dataset.shown = String(i + 1);
      if (i + 1 < steps.length) this.timers.push(setTimeout(() => step(i + 1), this.stepMs));
      else this.hold();
    };
    step(0);
  }

  /** After the last step: a countdown, then the pause ends by itself. */
  hold() {
    const left = $("pause-left");
    const started = Date.now();
    const tick = () => {
      const s = Math.max(0, Math.ceil((this.holdMs - (Date.now() - started)) / 1000));
      if (left) left.textContent = `The table goes on in ${s} s.`;
    };
    tick();
    this.timers.push(setInterval(tick, 1000));
    this.timers.push(setTimeout(() => this.close("time"), this.holdMs));
  }

  stop() {
    for (const t of this.timers) clearTimeout(t); // clears intervals too
    this.timers = [];
  }

  /** `by`: "continue" (the person) or "time" (the pause ran out), kept on the panel. */
  close(by) {
    this.stop();
    if (!this.box || this.box.hidden) return;
    this.box.dataset.closed = by;
    this.box.dataset.closedAt = String(Math.round(performance.now() - this.t0));
    const hadFocus = this.box.contains(document.activeElement);
    this.box.hidden = true;
    if (hadFocus) this.view.restoreFocus(null);
  }
}
