// Tables of people on /play (api/routes/people.py): create one (a signed write), the
// lobby of public tables with open seats, and "my tables", read from the service by a
// signed read (never kept in this browser's storage).

import { fetchRetry } from "./retry.js";
import { readHeader, writeHeader } from "./keys.js";

const $ = (id) => document.getElementById(id);
export const SEATS = ["N", "E", "S", "W"];
const SEAT_NAME = { N: "North", E: "East", S: "South", W: "West" };

/** A request to the service: signed as a write (its body and a nonce, signed once, so a
 * retry is the same request) or as a read when `identity` is given. */
export async function request(method, path, body, identity = null, write = false) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const signed = identity && write ? await writeHeader(identity, method, path, text ?? "") : null;
  const init = async () => {
    const headers = { "Content-Type": "application/json" };
    if (signed) headers.Authorization = signed;
    else if (identity) headers.Authorization = await readHeader(identity, method, path);
    return { method, headers, body: text };
  };
  const resp = await fetchRetry(path, init);
  const doc = await resp.json().catch(() => ({}));
  return { ok: resp.ok, status: resp.status, doc };
}

/** A table's name as its heading shows it after "Table": nothing for the API's default
 * name ("table"), which would read "Table table". */
export function shownTableName(name) {
  return String(name ?? "").toLowerCase() === "table" ? "" : name;
}

/** The rules in a few words: "packets 4-4-5, a game at 7 single, revoke: tricks". */
export function rulesText(ruleset) {
  const r = ruleset ?? {};
  const pattern = (r.deal_pattern ?? [4, 4, 5]).every((n) => n === 1) ? "one card at a time" : `packets ${(r.deal_pattern ?? [4, 4, 5]).join("-")}`;
  return `${pattern}; a game won at 7 counts ${r.seven_is ?? "single"}; revoke penalty: ${r.default_penalty ?? "tricks"}`;
}

/** A table's time control in a few words: "clock: 2 min a hand per seat", or "no clock". */
export function clockText(clock) {
  if (!clock) return "no clock";
  const s = clock.seconds;
  const amount = s % 60 === 0 ? `${s / 60} min` : `${s} s`;
  return `clock: ${amount} a hand per seat`;
}

/** Who sits where: "N Ann · E (open) · S Bob · W (open)". */
export function seatsText(seats, names = {}) {
  return SEATS.map((s) => `${s} ${seats[s] ? names[seats[s]] ?? seats[s] : "(open)"}`).join(" \u00b7 ");
}

export function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function item(children) {
  const li = document.createElement("li");
  li.append(...children);
  return li;
}

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

const FIELDS = { name: "nt-name", seat: "nt-seat", public: "nt-public", ruleset: "nt-pattern", "ruleset.deal_pattern": "nt-pattern", "ruleset.seven_is": "nt-seven", "ruleset.default_penalty": "nt-penalty", clock: "nt-clock", "clock.seconds": "nt-clock", "clock.warning": "nt-clock", chat: "nt-chat" };

/** The create form's error: next to its field, and in the summary at the top. */
function showError(message, path) {
  const summary = $("new-table-errors");
  for (const box of document.querySelectorAll("#new-table .field-error")) box.textContent = "";
  if (!message) {
    summary.hidden = true;
    return;
  }
  const field = FIELDS[path] ?? null;
  summary.replaceChildren();
  const h = document.createElement("b");
  h.textContent = "The table was not created: ";
  summary.append(h, field ? link(`#${field}`, message) : message);
  summary.hidden = false;
  if (field && $(`${field}-error`)) $(`${field}-error`).textContent = message;
  summary.focus();
}

export class People {
  constructor() {
    this.identity = null;
    this.timer = null;
  }

  /** Wire the controls (once). */
  wire() {
    const form = $("new-table");
    if (!form) return;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.create().catch((err) => showError(`Could not create it: ${err.message}`, null));
    });
    $("lobby-refresh").addEventListener("click", () => this.showLobby());
    this.showLobby();
    // refreshed by itself, but never under a keyboard user's focus (it would be lost)
    this.timer = setInterval(() => {
      if (!$("lobby").contains(document.activeElement)) this.showLobby();
    }, 15000);
  }

  /** The person's key (registered or not): the form is usable once it is registered. */
  async ready(identity, registered) {
    this.identity = registered ? identity : null;
    const button = $("create-table");
    if (button) button.disabled = !this.identity;
    this.showInvited();
    await this.showMine();
  }

  /** A table this tab was invited to before its key was registered: the way back. */
  showInvited() {
    const box = $("invited");
    const kept = sessionStorage.getItem("cayenne-fairplay:invited");
    if (!box || !kept) return;
    const { url, name } = JSON.parse(kept);
    if (!this.identity || new URL(url, location.href).origin !== location.origin) {
      box.hidden = true;
      return;
    }
    box.replaceChildren("Your key is registered: ", link(url, `go back to the table “${name}” and sit down`), ".");
    box.hidden = false;
    box.querySelector("a").addEventListener("click", () => sessionStorage.removeItem("cayenne-fairplay:invited"));
  }

  body() {
    const pattern = $("nt-pattern").value;
    const ruleset = {};
    if (pattern !== "4,4,5") ruleset.deal_pattern = pattern.split(",").map(Number);
    if ($("nt-seven").value !== "single") ruleset.seven_is = $("nt-seven").value;
    if ($("nt-penalty").value !== "tricks") ruleset.default_penalty = $("nt-penalty").value;
    const body = {
      name: $("nt-name").value.trim(),
      seat: $("nt-seat").value,
      public: document.querySelector('input[name="nt-who"]:checked').value === "public",
      ruleset,
    };
    const seconds = $("nt-clock").value;
    if (seconds) body.clock = { seconds: Number(seconds) }; // the warning: the service's default
    if (!$("nt-chat").checked) body.chat = false;
    return body;
  }

  async create() {
    const button = $("create-table");
    showError("");
    button.disabled = true;
    $("create-status").textContent = "Creating the table\u2026";
    const r = await request("POST", "/v1/people-tables", this.body(), this.identity, true);
    if (!r.ok) {
      button.disabled = false;
      $("create-status").textContent = "";
      const path = r.doc.details && r.doc.details.path;
      return showError(r.doc.message ?? `refused (${r.status})`, path);
    }
    $("create-status").textContent = "Created: taking you to your table\u2026";
    location.href = r.doc.public ? r.doc.links.play : r.doc.links.invite;
  }

  async showLobby() {
    const ul = $("lobby");
    if (!ul) return;
    const r = await request("GET", "/v1/people-tables?limit=50");
    if (!r.ok) return;
    if (!r.doc.tables.length) {
      ul.replaceChildren(item(["No public table is waiting for players just now: create one above."]));
      return;
    }
    ul.replaceChildren(
      ...r.doc.tables.map((t) => {
        const li = item([
          link(`/play/${encodeURIComponent(t.id)}`, `${t.name}`),
          ` \u2014 ${t.open_seats.length} open seat${t.open_seats.length === 1 ? "" : "s"} (${t.open_seats.map((s) => SEAT_NAME[s]).join(", ")}); `,
          seatsText(t.seats, t.names),
          `; ${rulesText(t.ruleset)}; ${clockText(t.clock)}; created ${when(t.created_at)}`,
        ]);
        li.dataset.table = t.id;
        return li;
      }),
    );
  }

  async showMine() {
    const ul = $("my-tables");
    if (!ul) return;
    if (!this.identity) {
      ul.replaceChildren(item(["Your tables are listed here once your key is registered."]));
      return;
    }
    const r = await request("GET", `/v1/players/${encodeURIComponent(this.identity.id)}/tables?limit=50`, undefined, this.identity);
    if (!r.ok) {
      ul.replaceChildren(item([`Could not read your tables: ${r.doc.message ?? r.status}`]));
      return;
    }
    if (!r.doc.tables.length) {
      ul.replaceChildren(item(["You sit at no table yet."]));
      return;
    }
    const STATUS = { waiting: "waiting for players", open: "playing", expired: "expired (never filled)" };
    ul.replaceChildren(
      ...r.doc.tables.map((t) => {
        const li = item([
          link(t.links.invite ?? t.links.play, t.name),
          ` \u2014 you sit ${SEAT_NAME[t.seat]}; ${STATUS[t.status] ?? t.status}`,
          t.status === "open" ? `, hand ${t.hands}` : "",
          t.clock ? `; ${clockText(t.clock)}` : "",
          t.created_at ? `; created ${when(t.created_at)}` : "",
        ]);
        li.dataset.table = t.id;
        li.dataset.status = t.status;
        return li;
      }),
    );
  }
}
