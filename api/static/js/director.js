// The director's console (/director): a director's key made or imported here (keys.js,
// kept beside a player's as "director"), and every ruling of an event sent as a signed
// write with it (api/signing.py): create, registration, beacon, remove, start, rounds,
// substitute, adjust, withdraw, void a board. The creation form checks what the API
// checks (api/tournament/registration.py) before sending; every refusal, the page's or
// the service's, is shown next to its field.

import { fetchRetry } from "./retry.js";
import { createKey, directorId, forgetIdentity, importBackup, loadIdentity, readHeader, saveIdentity, writeHeader } from "./keys.js";

const SLOT = "director";
const $ = (id) => document.getElementById(id);
let identity = null;
let doc = null;

function say(id, text, bad = false) {
  const box = $(id);
  box.textContent = text;
  box.className = bad ? "status bad" : "status";
}

async function asDirector(made) {
  return { ...made, id: await directorId(made.publicKey) };
}

/** A ruling: the body signed once (a retry sends the same request). */
async function rule(path, body) {
  const text = JSON.stringify(body);
  const auth = await writeHeader(identity, "POST", path, text);
  const resp = await fetchRetry(path, { method: "POST", headers: { "Content-Type": "application/json", Authorization: auth }, body: text });
  return { ok: resp.ok, status: resp.status, doc: await resp.json().catch(() => ({})) };
}

async function get(path, signed = false) {
  const init = async () => {
    const headers = { Accept: "application/json" };
    if (signed && identity) headers.Authorization = await readHeader(identity, "GET", path);
    return { headers };
  };
  const resp = await fetchRetry(path, init);
  return resp.ok ? resp.json() : null;
}

// --------------------------------------------------------------- the tables

function cell(text, label) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (text instanceof Node) td.append(text);
  else td.textContent = text;
  return td;
}

/** A hand's clock (api/clock.py) as the watch shows it: each seat's time left on the
 * board ("house" once its time ran out, "!" when warned, "▸" for the seat whose clock
 * runs); "" at a table without a time control. */
export function clockText(clock) {
  if (!clock) return "";
  const mmss = (ms) => {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  return ["N", "E", "S", "W"].map((seat) => {
    if (clock.expired.includes(seat)) return `${seat} house`;
    const mark = clock.running === seat || (clock.answering ?? []).includes(seat) ? "▸" : "";
    return `${mark}${seat} ${mmss(clock.remaining_ms[seat])}${clock.warned.includes(seat) ? "!" : ""}`;
  }).join(" · ");
}

/** Every table of the round, as its public state says (a director's signed read opens a
 * private duplicate table's; a seat's cards are never in it). */
async function watchTables() {
  const round = doc?.rounds_played?.at(-1);
  $("tables-live").hidden = !round || doc.phase !== "playing" || !identity;
  if ($("tables-live").hidden) return;
  const rows = await Promise.all(round.tables.map(async (t) => {
    const table = await get(`/v1/tables/${encodeURIComponent(t.id)}`, true);
    const n = table?.current_hand ?? 0;
    const hand = n ? await get(`/v1/tables/${encodeURIComponent(t.id)}/hands/${n}`, true) : null;
    const play = hand?.play;
    const trick = play?.tricks?.at(-1);
    const link = document.createElement("a");
    link.href = `/tables/${encodeURIComponent(t.id)}`;
    link.textContent = `table ${t.table}`;
    const tr = document.createElement("tr");
    tr.dataset.table = t.id;
    const board = t.boards ? `board ${t.boards[Math.max(n, 1) - 1] ?? t.boards.at(-1)}` : `hand ${n}`;
    let state = !hand ? "not started" : play?.contract ? `${hand.phase}: ${play.contract}` : hand.phase;
    // a claim (never its cards: the watch is the public state)
    if (play?.claim) state += ` — claim: ${play.claim.claimer} claims ${play.claim.tricks} of ${play.claim.left}, waiting for ${play.claim.waiting_for.join(" ")}`;
    else if (play?.claimed) state += ` — ended by ${play.claimed.claimer}'s claim of ${play.claimed.tricks}`;
    const cards = trick ? `${trick.leader} led: ${trick.cards.join(" ")}` : "";
    tr.append(
      cell(link, "Table"),
      cell(`${t.ns ?? ""}–${t.ew ?? ""}`, "Pairs"),
      cell(board, "Board"),
      cell(state, "State"),
      cell(play?.to_act ?? [hand?.waiting_for ?? []].flat().join(" "), "To act"),
      cell(cards, "Trick"),
      cell(play ? `${play.tricks_won.NS}–${play.tricks_won.EW}` : "", "Tricks NS–EW"),
      cell(clockText(hand?.clock), "Clock"),
    );
    return tr;
  }));
  const head = $("live-tables").querySelector("tr");
  $("live-tables").replaceChildren(head, ...rows);
}

// ------------------------------------------------------------------- the key

async function showKey(backup = null) {
  $("key-none").hidden = Boolean(identity);
  $("key-made").hidden = !identity;
  $("create-event").disabled = !identity;
  if (!identity) return;
  $("director-id").textContent = identity.id;
  $("public-key").textContent = identity.verifierKey;
  if (backup) {
    $("backup-link").href = URL.createObjectURL(new Blob([backup], { type: "text/plain" }));
    $("backup-offer").hidden = false;
  }
  const listed = await get("/v1/directors");
  const granted = listed?.directors.some((d) => d.director === identity.id);
  say("grant-status", granted
    ? "The operator has granted this key: your rulings are signed with it."
    : "Not granted yet: give the operator your public key (fairplay director add KEY).", !granted);
}

// ------------------------------------------------------------- the creation

/** The API's checks of a creation (api/tournament/registration.py create): field → problem. */
export function creationProblems(body) {
  const out = {};
  const int = (name, lo, hi, optional = false) => {
    const v = body[name];
    if (v === undefined && optional) return;
    if (!Number.isInteger(v) || v < lo || v > hi) out[name] = `must be an integer from ${lo} to ${hi}`;
  };
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (name.length < 1 || name.length > 100) out.name = "a name of 1 to 100 characters";
  if (body.schedule !== undefined && body.schedule.length > 200) out.schedule = "at most 200 characters";
  if (body.format === "pairs-duplicate") {
    int("tables", 1, 100);
    int("boards_per_round", 1, 36);
    if (!out.tables) int("rounds", 1, body.tables, true);
  } else if (body.format === "rubber-round-robin") {
    int("pairs", 2, 100);
    int("hands_per_match", 1, 32);
    if (!out.pairs) int("rounds", 1, body.pairs - 1 + (body.pairs % 2), true);
  } else out.format = "must be 'pairs-duplicate' or 'rubber-round-robin'";
  if (body.clock !== undefined) {
    const sec = body.clock?.seconds;
    if (!Number.isInteger(sec) || sec < 60 || sec > 86400) out.clock = "must be a whole number of minutes from 1 to 1440";
  }
  return out;
}

function creationBody() {
  const format = $("c-format").value;
  const body = { name: $("c-name").value, format };
  const num = (name) => {
    const raw = $(`c-${name}`).value.trim();
    if (raw !== "") body[name] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
  };
  if (format === "pairs-duplicate") ["tables", "boards_per_round"].forEach(num);
  else ["pairs", "hands_per_match"].forEach(num);
  num("rounds");
  if ($("c-schedule").value.trim()) body.schedule = $("c-schedule").value;
  const minutes = $("c-clock").value.trim();
  if (minutes !== "") body.clock = { seconds: /^\d+$/.test(minutes) ? Number(minutes) * 60 : minutes };
  return body;
}

function showCreationErrors(problems) {
  const list = $("error-list");
  list.replaceChildren();
  for (const box of document.querySelectorAll("#create .field-error")) {
    box.hidden = true;
    box.textContent = "";
  }
  for (const input of document.querySelectorAll("#create [name]")) input.removeAttribute("aria-invalid");
  const names = Object.keys(problems);
  $("error-summary").hidden = names.length === 0;
  for (const name of names) {
    const field = $(`c-${name}`) ? name : "name";
    const box = $(`err-c-${field}`);
    box.textContent = `Error: ${problems[name]}`;
    box.hidden = false;
    $(`c-${field}`).setAttribute("aria-invalid", "true");
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `#c-${field}`;
    a.textContent = `${$(`c-${field}`).labels[0].textContent}: ${problems[name]}`;
    li.append(a);
    list.append(li);
  }
  if (names.length) $("error-summary").focus();
}

async function create(e) {
  e.preventDefault();
  const body = creationBody();
  const problems = creationProblems(body);
  showCreationErrors(problems);
  if (Object.keys(problems).length) return;
  say("create-status", "Creating…");
  const r = await rule("/v1/tournaments", body);
  if (!r.ok) {
    const path = r.doc.details?.path;
    if (path) showCreationErrors({ [String(path).split(".")[0].replace("$", "name")]: r.doc.message });
    return say("create-status", `Refused: ${r.doc.message ?? r.status}`, true);
  }
  say("create-status", `Created ${r.doc.name} (${r.doc.id}).`);
  await listEvents(r.doc.id);
}

// ------------------------------------------------------------- the findings

let findingsAt = 0;

function linkTo(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

/** A refused claim's "Rule on it": the adjustment form filled with its round, table and
 * board and a reason naming the claim; the director chooses the scores and signs. */
function ruleOnClaim(f) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "act";
  button.textContent = "Rule on it";
  button.addEventListener("click", () => {
    $("r-adj-round").value = String(f.round);
    $("r-adj-table").value = String(f.table);
    $("r-adj-board").value = String(f.board);
    $("r-adj-reason").value = `${f.evidence.claimer}'s claim of ${f.evidence.tricks} refused by ${f.evidence.refused_by}`.slice(0, 200);
    $("r-adj-reason").focus();
  });
  return button;
}

/** The event's findings so far (a director's signed read), each linked to its tables
 * and its board. Asked again at most every 15 seconds, or at the director's word. */
async function showFindings(now = false) {
  const box = $("findings-box");
  box.hidden = !doc || !identity || doc.round === 0;
  if (box.hidden || (!now && Date.now() - findingsAt < 15000)) return;
  findingsAt = Date.now();
  const got = await get(`/v1/tournaments/${encodeURIComponent(doc.id)}/findings`, true);
  if (!got) return say("findings-status", "The findings could not be read.", true);
  const items = got.findings.map((f) => {
    const li = document.createElement("li");
    li.dataset.code = f.code;
    li.append(`${f.severity}: ${f.code}: ${f.message}`);
    for (const t of f.tables) li.append(" — ", linkTo(`/tables/${encodeURIComponent(t.table_id)}`, `table ${t.table} (round ${t.round})`));
    if (f.board != null) li.append(" — ", linkTo(`/tournaments/${encodeURIComponent(doc.id)}/boards/${f.board}`, `board ${f.board}`));
    if (f.code === "CLAIM_REFUSED" && f.board != null) li.append(" ", ruleOnClaim(f));
    return li;
  });
  $("findings").replaceChildren(...items);
  say("findings-status", items.length ? `${items.length} finding${items.length === 1 ? "" : "s"}; the audit's verdict: ${got.verdict}.` : `No finding so far; the audit's verdict: ${got.verdict}.`);
}

// ------------------------------------------------------------- the event

async function listEvents(chosen = null) {
  const all = (await get("/v1/tournaments"))?.tournaments ?? [];
  const select = $("event");
  const keep = chosen ?? select.value;
  select.replaceChildren(new Option("(choose an event)", ""), ...all.map((t) => new Option(`${t.name} — ${t.id} (${t.phase})`, t.id)));
  select.value = keep;
  await load();
}

function fill(select, items) {
  const keep = select.value;
  select.replaceChildren(...items.map(([value, text]) => new Option(text, value)));
  if (items.some(([v]) => v === keep)) select.value = keep;
}

async function load() {
  const tid = $("event").value;
  const url = new URL(location.href); // the chosen event kept in the address: a reload keeps it
  if ((url.searchParams.get("event") ?? "") !== tid) {
    if (tid) url.searchParams.set("event", tid);
    else url.searchParams.delete("event");
    history.replaceState(null, "", url);
  }
  doc = tid ? await get(`/v1/tournaments/${encodeURIComponent(tid)}`) : null;
  const option = $("event").selectedOptions[0];
  if (doc && option) option.textContent = `${doc.name} — ${doc.id} (${doc.phase})`;
  document.body.dataset.phase = doc?.phase ?? "";
  document.body.dataset.round = doc ? String(doc.round) : "";
  $("event-state").textContent = doc ? `${doc.name}: ${doc.phase}, round ${doc.round} of ${doc.rounds}; ${doc.entrants.length} entrants, ${doc.pair_list.length} pairs.` : "";
  $("event-link").replaceChildren();
  if (doc) {
    const a = document.createElement("a");
    a.href = `/tournaments/${encodeURIComponent(doc.id)}`;
    a.textContent = "The event's page (standings, tables, rulings)";
    $("event-link").append(a);
  }
  for (const form of document.querySelectorAll("form.ruling")) {
    const on = Boolean(doc) && Boolean(identity) && form.dataset.phases.split(" ").includes(doc.phase);
    form.hidden = !on;
    for (const b of form.querySelectorAll("button")) b.disabled = !on;
  }
  if (!doc) return;
  const removed = new Set(doc.removed ?? []);
  for (const s of document.querySelectorAll('[data-fill="entrants"]')) {
    fill(s, doc.entrants.filter((e) => !removed.has(e.player)).map((e) => [e.player, `${e.name ?? e.player} (${e.player})`]));
  }
  for (const s of document.querySelectorAll('[data-fill="pairs"]')) {
    fill(s, doc.pair_list.map((p) => [String(p.pair), `pair ${p.pair}`]));
  }
  const pair = doc.pair_list.find((p) => String(p.pair) === $("r-sub-pair").value);
  fill($("r-sub-out"), (pair?.players ?? []).map((p) => [p, p]));
  $("next-round").textContent = doc.round === 0 ? "Deal and start round 1" : `Start round ${doc.round + 1}`;
  await watchTables();
  await showFindings();
}

function fieldsOf(form) {
  const body = form.dataset.fixed ? JSON.parse(form.dataset.fixed) : {};
  for (const input of form.querySelectorAll("[name]")) {
    const raw = input.value.trim();
    if (input.type === "number" || "number" in input.dataset) body[input.name] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    else body[input.name] = input.value;
  }
  if (form.dataset.round === "next") body.round = doc.round + 1;
  if (form.dataset.round === "current") body.round = doc.round;
  return body;
}

function showFieldError(form, path, message) {
  for (const box of form.querySelectorAll(".field-error")) {
    box.hidden = true;
    box.textContent = "";
  }
  for (const input of form.querySelectorAll("[name]")) input.removeAttribute("aria-invalid");
  if (!path) return;
  const input = form.querySelector(`[name="${CSS.escape(String(path))}"]`);
  const box = input?.closest(".field")?.querySelector(".field-error");
  if (!box) return;
  box.textContent = `Error: ${message}`;
  box.hidden = false;
  box.id ||= `err-${input.id}`;
  input.setAttribute("aria-describedby", box.id);
  input.setAttribute("aria-invalid", "true");
  input.focus();
}

async function ruling(e) {
  e.preventDefault();
  const form = e.target;
  const title = form.querySelector("h4").textContent;
  const path = `/v1/tournaments/${encodeURIComponent(doc.id)}/${form.dataset.path}`;
  for (const b of form.querySelectorAll("button")) b.disabled = true;
  const r = await rule(path, fieldsOf(form));
  showFieldError(form, r.ok ? null : r.doc.details?.path, r.doc.message);
  say("rule-status", r.ok ? `${title}: done, signed by ${identity.id}.` : `${title}: refused: ${r.doc.message ?? r.status}`, !r.ok);
  if (r.ok) for (const input of form.querySelectorAll('input[name="reason"]')) input.value = "";
  form.dataset.done = String(Number(form.dataset.done ?? 0) + (r.ok ? 1 : 0));
  await load();
  if (form.hidden) $("rule-status").focus(); // the step is over: focus stays near the answer
}

// ----------------------------------------------------------------- start

function main() {
  $("create-key").addEventListener("click", async () => {
    try {
      const made = await createKey($("key-name").value.trim() || "director");
      identity = await asDirector(made.identity);
      await saveIdentity(identity, SLOT);
      await showKey(made.backup);
      say("key-status", "Key made. Only a non-extractable copy is kept in this browser.");
      await load();
    } catch (err) {
      say("key-status", `Could not make a key: ${err.message}`, true);
    }
  });
  $("backup-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try {
      identity = await asDirector(await importBackup(await file.text()));
      await saveIdentity(identity, SLOT);
      await showKey();
      say("key-status", "Key imported from the backup file.");
      await load();
    } catch (err) {
      say("key-status", `Not a backup of a key: ${err.message}`, true);
    }
  });
  $("forget-key").addEventListener("click", async () => {
    if (!confirm("Forget this key? Without its backup file you cannot rule with it again.")) return;
    await forgetIdentity(SLOT);
    identity = null;
    $("backup-offer").hidden = true;
    await showKey();
    await load();
  });
  $("c-format").addEventListener("change", () => {
    for (const f of document.querySelectorAll("#create [data-for]")) f.hidden = f.dataset.for !== $("c-format").value;
  });
  $("create").addEventListener("submit", create);
  $("event").addEventListener("change", load);
  $("r-sub-pair").addEventListener("change", load);
  $("refresh-findings").addEventListener("click", () => showFindings(true));
  for (const form of document.querySelectorAll("form.ruling")) form.addEventListener("submit", ruling);
}

async function start() {
  main();
  identity = await loadIdentity(SLOT);
  await showKey();
  await listEvents(new URL(location.href).searchParams.get("event"));
  setInterval(() => { if (doc && doc.phase !== "over" && document.activeElement?.tagName !== "SELECT") load(); }, 3000);
  document.body.dataset.ready = "1";
}

start().catch((err) => say("key-status", `This browser cannot run the console: ${err.message}`, true));
