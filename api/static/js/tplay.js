// A duplicate event's table in /play/{t} (docs/browser.md, "Entering and playing an
// event"): the event, the round and the board in play above the table, and between
// rounds what comes next; then the page moves on by itself, to the player's next table
// or, once the event is over, to its results. It follows the event's public state; the
// table itself is table.js's (signed reads and the seat's own stream).

import { SEAT_NAME, opponents, placeOf, request } from "./entrant.js";

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
  }

  async start() {
    await this.tick();
  }

  async tick() {
    try {
      const r = await request("GET", `/v1/tournaments/${encodeURIComponent(this.event.id)}`);
      if (r.ok) {
        this.doc = r.doc;
        await this.draw();
      }
    } catch (err) {
      // the service is away for a moment: the next tick asks again
    }
    if (!this.leaving) setTimeout(() => this.tick(), EVERY_MS);
  }

  /** This table's sitting in its round, and whether its boards are all played. */
  here() {
    const r = this.doc.rounds_played.find((x) => x.round === this.event.round);
    const sitting = r ? r.tables.find((x) => x.id === this.view.tableId) : null;
    const boards = sitting ? sitting.boards.filter((b) => !(this.doc.voided ?? []).includes(b)) : [];
    const h = this.view.hand;
    const done = Boolean(r && r.over) || Boolean(h && h.phase === "over" && boards.length && h.board === boards.at(-1));
    return { r, sitting, boards, done };
  }

  async draw() {
    const doc = this.doc;
    const me = this.view.identity;
    const { sitting, boards, done } = this.here();
    const h = this.view.hand;
    const parts = [el("h3", { id: "event-title" }, el("a", { href: `/tournaments/${encodeURIComponent(doc.id)}` }, doc.name), ` \u2014 round ${this.event.round} of ${doc.rounds}, table ${this.event.table}`)];
    if (sitting && this.view.seat) {
      const place = { seat: this.view.seat, side: "NS".includes(this.view.seat) ? "NS" : "EW", seats: sitting.seats };
      const k = h && h.board ? boards.indexOf(h.board) + 1 : 0;
      const now = k ? ` \u2014 now board ${h.board} (${k} of ${boards.length})` : "";
      parts.push(el("p", { id: "event-seat" }, `You play ${SEAT_NAME[this.view.seat]} (${this.view.seat}) against ${await opponents(place)}. This round's board${boards.length === 1 ? "" : "s"}: ${boards.join(", ")}${now}.`));
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
