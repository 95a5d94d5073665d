// A table of people waiting for its four seats (/play/{t} before its first hand): who
// sits where, "waiting for N more", the invitation link to copy, a seat to take, and for
// the creator the empty seats to give to house bots. It follows the table's seats by
// their stream (GET /v1/people-tables/{t}/stream); when the fourth sits down the table
// opens and the page reloads as the table itself (table.js).

import { signedStreamUrl } from "./keys.js";
import { clockText, request, rulesText, SEATS, shownTableName } from "./people.js";

const $ = (id) => document.getElementById(id);
const SEAT_NAME = { N: "North", E: "East", S: "South", W: "West" };
export const INVITED = "cayenne-fairplay:invited";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

export class WaitingView {
  /** `options`: {tableId, identity (this browser's key, or null)}. A private table's
   * invitation token comes from the link's fragment (#invite=...), never sent in a
   * page's URL to the server. */
  constructor(options) {
    this.tableId = options.tableId;
    this.identity = options.identity ?? null;
    this.registered = false;
    const hash = new URLSearchParams(location.hash.slice(1));
    this.token = hash.get("invite");
    this.seating = null;
    this.source = null;
    this.retry = 1000;
    this.busy = false;
  }

  path(suffix = "") {
    const q = this.token ? `?invitation=${encodeURIComponent(this.token)}` : "";
    return `/v1/people-tables/${encodeURIComponent(this.tableId)}${suffix}${q}`;
  }

  async start() {
    if (this.identity) this.registered = (await request("GET", `/v1/players/${encodeURIComponent(this.identity.id)}`)).ok;
    $("copy-invite").addEventListener("click", () => this.copy());
    $("give-bots").addEventListener("click", () => this.bots());
    await this.load();
    if (this.seating) await this.connect();
  }

  async load() {
    const r = await request("GET", this.path(), undefined, this.registered ? this.identity : null);
    if (!r.ok) {
      this.say(r.status === 403 ? "This table is private: it is joined by its invitation link. Ask whoever invited you for the link." : `Could not read this table: ${r.doc.message ?? r.status}`, true);
      $("waiting-count").textContent = "";
      return;
    }
    this.update(r.doc);
  }

  async connect() {
    // A seated player follows by a signed URL (counted per player, not per address, so
    // people behind one address do not push each other off); others by the token.
    const stream = `/v1/people-tables/${encodeURIComponent(this.tableId)}/stream`;
    const url = this.mySeat() && this.registered ? await signedStreamUrl(this.identity, stream) : this.path("/stream");
    if (this.source) this.source.close();
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener("seating", (e) => {
      this.retry = 1000;
      this.update(JSON.parse(e.data));
      document.body.dataset.live = "1"; // drawn from the stream (for tests and automation)
    });
    source.addEventListener("bye", (e) => {
      const bye = e.data ? JSON.parse(e.data) : {};
      source.close();
      if (bye.reconnect) this.reconnect(0);
    });
    source.onerror = () => this.reconnect(this.retry);
  }

  reconnect(delay) {
    if (this.source) this.source.close();
    this.source = null;
    if (this.seating && this.seating.status !== "waiting") return;
    this.retry = Math.min(this.retry * 2, 30000);
    setTimeout(() => this.connect(), delay);
  }

  /** A new account of the seats (from a read, a stream message or a seat taken). */
  update(doc) {
    const invitation = doc.invitation ?? (this.seating && this.seating.invitation);
    this.seating = { ...doc, invitation };
    if (invitation) this.token = invitation;
    if (doc.status === "open") {
      this.say("Four are seated: the table opens\u2026");
      if (this.source) this.source.close();
      setTimeout(() => location.reload(), 200);
    }
    this.render();
  }

  mySeat() {
    if (!this.identity || !this.seating) return null;
    return SEATS.find((s) => this.seating.seats[s] === this.identity.id) ?? null;
  }

  render() {
    const t = this.seating;
    const mine = this.mySeat();
    $("table-name").textContent = shownTableName(t.name);
    $("rules").textContent = `Rules: ${rulesText(t.ruleset)}; ${clockText(t.clock)}. ${t.public ? "Public: listed in the lobby." : "Private: joined by the invitation link."}`;
    const open = t.open_seats.length;
    $("waiting-count").textContent =
      t.status === "expired" ? "This table expired before four were seated: it can no longer be joined."
      : t.status === "open" ? "Four are seated: the first hand begins."
      : `Waiting for ${open} more player${open === 1 ? "" : "s"}.`;
    document.body.dataset.waitingFor = String(open);
    document.body.dataset.status = t.status;
    for (const seat of SEATS) {
      const box = document.querySelector(`#seating .seat[data-seat="${seat}"]`);
      const pid = t.seats[seat];
      box.className = `seat ${seat}${pid ? "" : " open"}${pid && pid === (this.identity && this.identity.id) ? " me" : ""}`;
      const who = pid ? (pid === (this.identity && this.identity.id) ? `You (${t.names[pid] ?? pid})` : t.names[pid] ?? pid) : "open seat";
      const canSit = !pid && !mine && this.registered && t.status === "waiting";
      box.replaceChildren(el("h4", {}, SEAT_NAME[seat]), el("div", { class: pid ? "" : "muted" }, who));
      if (canSit) box.append(el("button", { type: "button", class: "sit", "data-seat": seat, disabled: this.busy, onclick: () => this.sit(seat) }, `Sit here (${SEAT_NAME[seat]})`));
    }
    const link = t.invitation ? new URL(`/play/${encodeURIComponent(t.id)}#invite=${encodeURIComponent(t.invitation)}`, location.href).href : null;
    $("invite-box").hidden = !(link && mine && t.status === "waiting");
    if (link) $("invite-link").value = link;
    $("bots-box").hidden = !(mine && this.identity.id === t.creator && t.status === "waiting" && open > 0 && $("bots-box").dataset.on === "1");
    if (!this.registered && t.status === "waiting") {
      // the Play page offers the way back here once the key is made and registered
      sessionStorage.setItem(INVITED, JSON.stringify({ url: location.href, name: t.name }));
      const play = el("a", { href: "/play" }, "the Play page");
      $("who").replaceChildren(
        this.identity ? "Your key is not registered with this service yet: register it on " : "No key in this browser: make and register your key on ",
        play,
        ", which then brings you back here to sit down.",
      );
      return;
    }
    $("who").textContent = mine
          ? `You sit ${SEAT_NAME[mine]} as ${this.identity.id}. This page follows the table: it starts by itself when four are seated.`
          : t.status === "waiting" ? "Choose an open seat to sit down." : "";
  }

  async sit(seat) {
    this.busy = true;
    this.render();
    const body = { seat };
    if (this.token && !this.seating.public) body.invitation = this.token;
    const r = await request("POST", `/v1/people-tables/${encodeURIComponent(this.tableId)}/seats`, body, this.identity, true);
    this.busy = false;
    if (!r.ok) {
      this.say(`You could not sit there: ${r.doc.message ?? r.status}`, true);
      await this.load();
      return;
    }
    this.say(`You sit ${SEAT_NAME[seat]}.`);
    this.update(r.doc);
    if (r.doc.status === "waiting") await this.connect(); // now as the seat's player
  }

  async bots() {
    const button = $("give-bots");
    button.disabled = true;
    const r = await request("POST", `/v1/people-tables/${encodeURIComponent(this.tableId)}/bots`, {}, this.identity, true);
    button.disabled = false;
    if (!r.ok) {
      this.say(`The bots could not sit down: ${r.doc.message ?? r.status}`, true);
      this.render();
      return;
    }
    this.update(r.doc);
  }

  async copy() {
    const input = $("invite-link");
    try {
      await navigator.clipboard.writeText(input.value);
      $("copy-status").textContent = "Copied.";
    } catch {
      input.select();
      $("copy-status").textContent = "Selected: copy it with Ctrl+C (or Cmd+C).";
    }
  }

  say(text, bad = false) {
    const box = $("status");
    box.textContent = text;
    box.className = bad ? "status bad" : "status";
  }
}
