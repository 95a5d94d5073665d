// An event's table in /play/{t} (docs/browser.md, "Entering and playing an event"): the
// event, the round and the board in play (a duplicate) or the hand of the match (a round
// robin) above the table, and between
// rounds what comes next; then the page moves on by itself, to the player's next table
// or, once the event is over, to its results. It follows the event's public state; the
// table itself is table.js's (signed reads and the seat's own stream).

import { SEAT_NAME, isRobin, opponents, placeOf, request } from "./entrant.js";

export const EVERY_MS = 3000;
export const MOVE_AFTER_MS = 6000;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export class EventTable {
  /** `event`: {id, round, table} of this table; `view`: the page's TableView. */
  constructor(view, event, box) {
    this.view = view;
    this.event = event;
    this.box = box;
    this.doc = null;
    this.leaving = null;
    this.shown = "";
    this.handsOver = 0; // a round robin's table: its hands over, by a read of its hands
  }

  async start() {
    await this.tick();
  }

  async tick() {
    try {
      const r = await request("GET", `/v1/tournaments/${encodeURIComponent(this.event.id)}`);
      if (r.ok) {
        this.doc = r.doc;
        if (isRobin(r.doc)) await this.countHands();
        await this.draw();
      }
    } catch (err) {
      // the service is away for a moment: the next tick asks again
    }
    if (!this.leaving) setTimeout(() => this.tick(), EVERY_MS);
  }

  /** A round robin's table: how many of its hands are over (a voided hand is dealt
   * again, so the match is over when `hands` of them are, not at a hand's number). */
  async countHands() {
    const r = await request("GET", `/v1/tables/${encodeURIComponent(this.view.tableId)}/hands`, { identity: this.view.identity });
    if (r.ok) this.handsOver = r.doc.hands.filter((h) => h.phase === "over").length;
  }

  /** This table's sitting in its round, and whether all it plays is played: a
   * duplicate's boards, or a round robin's match of `hands` hands. */
  here() {
    const r = this.doc.rounds_played.find((x) => x.round === this.event.round);
    const sitting = r ? r.tables.find((x) => x.id === this.view.tableId) : null;
    const h = this.view.hand;
    if (isRobin(this.doc)) {
      const n = sitting ? sitting.hands : 0;
      const done = Boolean(r && r.over) || Boolean(n && this.handsOver >= n);
      return { r, sitting, boards: [], hands: n, done };
    }
    const boards = sitting ? sitting.boards.filter((b) => !(this.doc.voided ?? []).includes(b)) : [];
    const done = Boolean(r && r.over) || Boolean(h && h.phase === "over" && boards.length && h.board === boards.at(-1));
    return { r, sitting, boards, hands: 0, done };
  }

  /** "This round's boards: 3, 4 — now board 4 (2 of 2)", or for a round robin "This
   * round's match: 2 hands — now hand 1 of 2". */
  plays(boards, hands) {
    const h = this.view.hand;
    if (isRobin(this.doc)) {
      const live = h && h.phase !== "over" && h.phase !== "void";
      const k = Math.min(this.handsOver + (live ? 1 : 0), hands);
      return `This round's match: ${hands} hand${hands === 1 ? "" : "s"}${k ? ` \u2014 ${live ? `now hand ${k} of ${hands}` : `${k} of ${hands} played`}` : ""}`;
    }
    const k = h && h.board ? boards.indexOf(h.board) + 1 : 0;
    const now = k ? ` \u2014 now board ${h.board} (${k} of ${boards.length})` : "";
    return `This round's board${boards.length === 1 ? "" : "s"}: ${boards.join(", ")}${now}`;
  }

  async draw() {
    const doc = this.doc;
    const me = this.view.identity;
    const { sitting, boards, hands, done } = this.here();
    const parts = [el("h3", { id: "event-title" }, el("a", { href: `/tournaments/${encodeURIComponent(doc.id)}` }, doc.name), ` \u2014 round ${this.event.round} of ${doc.rounds}, table ${this.event.table}`)];
    if (sitting && this.view.seat) {
      const place = { seat: this.view.seat, side: "NS".includes(this.view.seat) ? "NS" : "EW", seats: sitting.seats };
      parts.push(el("p", { id: "event-seat" }, `You play ${SEAT_NAME[this.view.seat]} (${this.view.seat}) against ${await opponents(place)}. ${this.plays(boards, hands)}.`));
    }
    let next = null;
    let state = "playing";
    if (doc.phase === "over") {
      state = "over";
      next = { href: `/tournaments/${encodeURIComponent(doc.id)}`, text: "The event is over: its results and certificate" };
    } else if (done && me) {
      const place = placeOf(doc, me.id);
      if (place && place.round > this.event.round && place.table && !place.over) {
        state = "next";
        next = { href: `/play/${encodeURIComponent(place.id)}`, text: `Round ${place.round}: table ${place.table}, seat ${SEAT_NAME[place.seat]}, against ${await opponents(place)}` };
      } else if (place && place.round > this.event.round && !place.table) {
        state = "sitting-out";
        parts.push(el("p", { id: "event-next" }, `Round ${place.round}: your pair sits out this round. This page takes you to your next table when one seats you.`));
      } else {
        state = "waiting";
        const last = this.event.round >= doc.rounds;
        parts.push(el("p", { id: "event-next" }, `Your table has finished round ${this.event.round}. ${last ? "The results are published when every table has finished; this page then takes you to them." : `Round ${this.event.round + 1} starts when every table has finished; this page then takes you to your next table.`}`));
      }
    }
    if (next) {
      parts.push(el("p", { id: "event-next", "data-href": next.href }, `${next.text}. Going there in a few seconds\u2026 `, el("a", { href: next.href, id: "event-go" }, "Go now")));
      this.leave(next.href);
    }
    const fresh = el("div", {}, ...parts);
    if (fresh.innerHTML !== this.shown) {
      this.shown = fresh.innerHTML;
      this.box.replaceChildren(...fresh.childNodes);
    }
    this.box.dataset.state = state;
    document.body.dataset.eventState = state;
  }

  /** Off to `href` after a pause (the last board's result is on screen meanwhile). */
  leave(href) {
    if (this.leaving) return;
    this.leaving = href;
    setTimeout(() => {
      location.href = href;
    }, MOVE_AFTER_MS);
  }
}
